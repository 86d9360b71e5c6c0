//! What the journal's tests share.

use std::path::Path;

/// Runs SQL on a journal file behind the journal's back (a damaged or tampered row).
pub fn sql(path: &Path, statement: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(statement).unwrap();
}
