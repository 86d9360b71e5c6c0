//! What the journal keeps at most, and reading a stored text within those bounds: a row
//! longer than this program ever writes is damage, and is never read whole.

use crate::setup::MAX_NAME;

/// The longest event line kept (an arbiter's FEN or reason is the longest input); a longer
/// stored row is damage, and is not read.
pub const MAX_LINE: usize = 4096;

/// The longest table name kept, in bytes: [`MAX_NAME`] characters of at most 4 bytes.
pub const MAX_NAME_BYTES: usize = 4 * MAX_NAME;

/// The longest table set-up kept (its JSON), in bytes.
pub const MAX_SETUP: usize = 64 * 1024;

/// A text column read only when it is at most `max` bytes: column `i` holds it when it is
/// short enough (else NULL), column `i + 1` its length in bytes, so a row longer than this
/// program ever writes is damage and never read whole.
pub(super) fn bounded(
    row: &rusqlite::Row<'_>,
    i: usize,
    what: &str,
    max: usize,
) -> Result<String, String> {
    let len: Option<i64> = row
        .get(i + 1)
        .map_err(|e| format!("{what} unreadable: {e}"))?;
    if let Some(n) = len.filter(|&n| usize::try_from(n).map_or(true, |n| n > max)) {
        return Err(format!("{what} of {n} bytes, at most {max}"));
    }
    row.get(i).map_err(|e| format!("{what} unreadable: {e}"))
}

/// A bound as SQLite takes it.
pub(super) fn sql_len(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
