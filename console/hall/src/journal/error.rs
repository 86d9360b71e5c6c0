//! Why the journal cannot be used, or where it is damaged, in the words said to the arbiter;
//! and SQLite's errors turned into them.

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

use super::{GameId, SCHEMA_VERSION};
use crate::setup::SetupError;

/// Why the journal cannot be used, or where it is damaged.
#[derive(Debug)]
pub enum JournalError {
    Open {
        path: PathBuf,
        error: rusqlite::Error,
    },
    /// The file is not a journal of this program (another database, another file).
    NotAJournal { path: PathBuf, detail: String },
    /// Written by a newer version of the program.
    Schema { path: PathBuf, found: u32 },
    /// SQLite failed (a full disk, a damaged file).
    Sqlite {
        doing: &'static str,
        error: rusqlite::Error,
    },
    /// One stored row does not read back as written.
    Damaged {
        game: GameId,
        seq: i64,
        what: String,
    },
    /// An event line too long or unreadable was refused before it was written.
    BadEvent(String),
    /// The folder the journal should be in does not exist.
    NoFolder { path: PathBuf, folder: PathBuf },
    /// The journal's path names a folder.
    IsAFolder { path: PathBuf },
    /// A device, a pipe or a socket: SQLite would write beside it (`/dev/null-journal`).
    NotAFile { path: PathBuf },
    /// The journal's file was deleted or replaced while it was being written.
    Gone { path: PathBuf },
    /// The journal (or its folder, for a new one) cannot be written.
    ReadOnly { path: PathBuf, detail: String },
    /// Another program (another console) writes this journal; `holder` says which, as its
    /// lock file does ("kriegspiel, pid 1234"), when it can be read.
    InUse {
        path: PathBuf,
        holder: Option<String>,
    },
    /// The lock that keeps a second writer away cannot be taken.
    Lock {
        path: PathBuf,
        lock: PathBuf,
        error: std::io::Error,
    },
    /// A game was not started: a name of its set-up is not one short line.
    BadGame(SetupError),
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Open { path, error } => {
                write!(f, "cannot open the journal {}: {error}", path.display())
            }
            JournalError::NotAJournal { path, detail } => write!(
                f,
                "{} is not a Kriegspiel journal, or it is damaged ({detail})",
                path.display()
            ),
            JournalError::Schema { path, found } => write!(
                f,
                "{} has journal schema {found}; this program reads schema {SCHEMA_VERSION} (use a newer program)",
                path.display()
            ),
            JournalError::Sqlite { doing, error } => write!(f, "journal: {doing}: {error}"),
            JournalError::Damaged { game, seq, what } => {
                write!(f, "journal damaged at game {game}, event {seq}: {what}")
            }
            JournalError::BadEvent(what) => write!(f, "journal: event not written: {what}"),
            JournalError::NoFolder { path, folder } => write!(
                f,
                "the folder {} of the journal {} does not exist",
                folder.display(),
                path.display()
            ),
            JournalError::Gone { path } => write!(
                f,
                "journal {} was deleted or replaced while this console was writing it; the table stops, as nothing more could be kept",
                path.display()
            ),
            JournalError::NotAFile { path } => write!(
                f,
                "journal {} is not a file (a device, a pipe or a socket): give a file",
                path.display()
            ),
            JournalError::IsAFolder { path } => write!(
                f,
                "journal {} is a folder; give a file in it ({})",
                path.display(),
                path.join("journal.sqlite").display()
            ),
            JournalError::ReadOnly { path, detail } => {
                write!(f, "journal {} is read-only: {detail}", path.display())
            }
            JournalError::InUse { path, holder } => write!(
                f,
                "journal {} is in use by another console ({}); stop it first, or give --journal another file",
                path.display(),
                holder.as_deref().unwrap_or("which one is unknown")
            ),
            JournalError::Lock { path, lock, error } => write!(
                f,
                "cannot lock the journal {} (with {}): {error}",
                path.display(),
                lock.display()
            ),
            JournalError::BadGame(e) => write!(f, "journal: game not started: {e}"),
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Open { error, .. } | JournalError::Sqlite { error, .. } => Some(error),
            JournalError::Lock { error, .. } => Some(error),
            JournalError::BadGame(e) => Some(e),
            JournalError::NotAJournal { .. }
            | JournalError::Schema { .. }
            | JournalError::Damaged { .. }
            | JournalError::BadEvent(_)
            | JournalError::NoFolder { .. }
            | JournalError::IsAFolder { .. }
            | JournalError::NotAFile { .. }
            | JournalError::Gone { .. }
            | JournalError::ReadOnly { .. }
            | JournalError::InUse { .. } => None,
        }
    }
}

/// The error of an SQL step that failed while the journal was `doing` something.
pub(super) fn sql(doing: &'static str) -> impl Fn(rusqlite::Error) -> JournalError {
    move |error| JournalError::Sqlite { doing, error }
}

/// The error for SQLite's "attempt to write a readonly database", else `otherwise`'s.
pub(super) fn read_only_or<'a>(
    path: &'a Path,
    otherwise: impl Fn(rusqlite::Error) -> JournalError + 'a,
) -> impl Fn(rusqlite::Error) -> JournalError + 'a {
    move |e| {
        if e.sqlite_error_code() == Some(ErrorCode::ReadOnly) {
            JournalError::ReadOnly {
                path: path.to_owned(),
                detail: e.to_string(),
            }
        } else {
            otherwise(e)
        }
    }
}

/// The error for a file SQLite cannot use as a journal.
pub(super) fn not_a_journal(path: &Path) -> impl Fn(rusqlite::Error) -> JournalError + Copy + '_ {
    move |e| JournalError::NotAJournal {
        path: path.to_owned(),
        detail: e.to_string(),
    }
}
