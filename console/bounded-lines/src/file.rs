//! Whole text files, read only up to a size limit.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use crate::reader::BOM;

/// The default largest file read whole (configs, scripts, game files).
pub const MAX_FILE: u64 = 4 * 1024 * 1024;

/// Why a whole file could not be read.
#[derive(Debug)]
pub enum FileError {
    Io(io::Error),
    /// The file is larger than `limit` bytes.
    TooLarge {
        limit: u64,
    },
    NotUtf8 {
        valid_up_to: usize,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(e) => e.fmt(f),
            FileError::TooLarge { limit } => {
                write!(f, "file too large (the limit is {limit} bytes)")
            }
            FileError::NotUtf8 { valid_up_to } => {
                write!(f, "not UTF-8 text (invalid byte after {valid_up_to} bytes)")
            }
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io(e) => Some(e),
            FileError::TooLarge { .. } | FileError::NotUtf8 { .. } => None,
        }
    }
}

/// Reads a whole text file of at most `limit` bytes (a device such as `/dev/zero` stops at
/// the limit too); a leading byte-order mark is dropped.
pub fn read_text(path: &Path, limit: u64) -> Result<String, FileError> {
    let file = std::fs::File::open(path).map_err(FileError::Io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(FileError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { limit });
    }
    let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
    std::str::from_utf8(body)
        .map(str::to_owned)
        .map_err(|e| FileError::NotUtf8 {
            valid_up_to: e.valid_up_to(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_have_a_size_limit() {
        let dir = std::env::temp_dir().join(format!("bounded-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.txt");
        std::fs::write(&p, b"\xEF\xBB\xBFhello").unwrap();
        assert_eq!(read_text(&p, 100).unwrap(), "hello");
        assert!(matches!(
            read_text(&p, 4),
            Err(FileError::TooLarge { limit: 4 })
        ));
        assert!(matches!(
            read_text(Path::new("/dev/zero"), 1000),
            Err(FileError::TooLarge { limit: 1000 })
        ));
        std::fs::write(&p, b"ok\xff").unwrap();
        assert!(matches!(
            read_text(&p, 100),
            Err(FileError::NotUtf8 { valid_up_to: 2 })
        ));
        assert!(matches!(
            read_text(&dir.join("none"), 100),
            Err(FileError::Io(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
