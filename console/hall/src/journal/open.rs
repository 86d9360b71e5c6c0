//! Opening a journal: to write it (its lock taken, its file private, its schema created or
//! checked, a write tried) or to read it only, beside a hall that may be writing it.

use std::path::Path;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, MAIN_DB};

use super::error::{not_a_journal, read_only_or};
use super::files::{create_private, folder_of, make_journal_private, take_lock, WriterLock};
use super::{sql, Journal, JournalError};

/// The schema this program writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A write taken back, to find a journal that cannot be written when it is opened, not at
/// its first event.
const WRITE_CHECK: &str = "BEGIN IMMEDIATE; CREATE TABLE write_check (x); ROLLBACK;";

impl Journal {
    /// Opens (or creates, readable by its owner only) the journal at `path` to write it.
    ///
    /// Refused before anything is written when another program writes it (the lock file
    /// beside it, `<journal>.lock`, is held and names that program), when it cannot be
    /// written, or when its folder does not exist. A journal of ours that others may read
    /// is made private (mode 0600) first.
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        if path.is_dir() {
            return Err(JournalError::IsAFolder {
                path: path.to_owned(),
            });
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(JournalError::NotAFile {
                path: path.to_owned(),
            });
        }
        let folder = folder_of(path);
        if !folder.is_dir() {
            return Err(JournalError::NoFolder {
                path: path.to_owned(),
                folder: folder.to_owned(),
            });
        }
        let mut lock = take_lock(path)?;
        match open_locked(path, &mut lock) {
            Ok((conn, existed)) => Ok(Journal {
                conn,
                path: path.to_owned(),
                file: identity(path),
                made: !existed,
                _lock: Some(lock),
            }),
            Err(e) => {
                lock.refused();
                Err(e)
            }
        }
    }

    /// Opens an existing journal to read it only (export, inspection), beside a hall that
    /// may be writing it.
    pub fn open_read_only(path: &Path) -> Result<Journal, JournalError> {
        let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let not_journal = not_a_journal(path);
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(not_journal)?;
        // A file cut short (a copy or a disk that filled up) is refused whole by SQLite
        // unless it may trust the pages it has; the reading then stops at the first page
        // that is gone, and everything before it is exported.
        conn.pragma_update(None, "writable_schema", true)
            .map_err(not_journal)?;
        check_schema(&conn, path)?;
        Ok(Journal {
            conn,
            path: path.to_owned(),
            file: None,
            made: false,
            _lock: None,
        })
    }

    /// Closes a journal whose program was refused before its first game (the table runs
    /// elsewhere, a setting cannot be used): a file this program made for it, still empty
    /// of games, is removed with its `-wal`, `-shm` and lock, so that a refused start
    /// leaves nothing a later start would take for a journal of its own. A journal that
    /// was there before, or has a game, is closed as it is.
    pub fn close_refused(self) {
        let unused = self.made
            && self.still_there().is_ok()
            && self
                .conn
                .query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0))
                .is_ok_and(|games| games == 0);
        let Journal {
            conn, path, _lock, ..
        } = self;
        drop(conn);
        if unused {
            for file in super::files::files_of(&path) {
                let _ = std::fs::remove_file(file);
            }
            if let Some(lock) = _lock {
                lock.refused();
            }
        }
    }

    /// Whether the journal's file is still the one this journal writes: not deleted,
    /// renamed away or replaced. Checked before each commit (a `stat`).
    pub(super) fn still_there(&self) -> Result<(), JournalError> {
        unchanged(&self.path, self.file)
    }
}

/// Whether the file at `path` is still the one opened (`file`; none: not checked).
pub(super) fn unchanged(path: &Path, file: Option<(u64, u64)>) -> Result<(), JournalError> {
    match (file, identity(path)) {
        (Some(opened), now) if now != Some(opened) => Err(JournalError::Gone {
            path: path.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// A file's device and inode.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Opens the journal whose lock file is held: its own file locked too, created private or
/// found to be a journal (and then made private), its schema created or checked.
fn open_locked(path: &Path, lock: &mut WriterLock) -> Result<(Connection, bool), JournalError> {
    let existed = create_private(path)?;
    lock.hold_journal(path)?;
    let mut conn = connect(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
    )?;
    // SQLite opens a file it may not write read-only without a word; say it now rather
    // than at the first event.
    if conn.is_readonly(MAIN_DB).unwrap_or(false) {
        return Err(JournalError::ReadOnly {
            path: path.to_owned(),
            detail: "its permissions do not let this program write it".to_owned(),
        });
    }
    prepare_writing(&mut conn, path)?;
    if table_names(&conn, path)?.is_empty() {
        create_schema(&conn)?;
    } else {
        check_schema(&conn, path)?;
    }
    add_later_tables(&conn)?;
    if existed {
        make_journal_private(path);
    }
    Ok((conn, existed))
}

/// Opens the SQLite file, one connection per journal (no mutex of SQLite's own).
fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, JournalError> {
    Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(|error| {
        JournalError::Open {
            path: path.to_owned(),
            error,
        }
    })
}

/// Write-ahead logging, every commit synced, a wait for other readers; then a write taken
/// back, so that a journal that cannot be written is refused now.
fn prepare_writing(conn: &mut Connection, path: &Path) -> Result<(), JournalError> {
    let not_journal = not_a_journal(path);
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(read_only_or(path, not_journal))?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(not_journal)?;
    conn.busy_handler(Some(wait_briefly)).map_err(not_journal)?;
    conn.execute_batch(WRITE_CHECK).map_err(read_only_or(
        path,
        sql("checking that the journal can be written"),
    ))
}

/// The names of the file's tables (none for a new journal).
fn table_names(conn: &Connection, path: &Path) -> Result<Vec<String>, JournalError> {
    let not_journal = not_a_journal(path);
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .map_err(not_journal)?;
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(not_journal)?;
    rows.collect::<Result<_, _>>().map_err(not_journal)
}

// The SQL of the two functions below is kept as first written, spaces and all: SQLite
// stores each CREATE TABLE's text in the journal (`sqlite_master`).

/// Creates the tables of schema [`SCHEMA_VERSION`] in a new journal.
fn create_schema(conn: &Connection) -> Result<(), JournalError> {
    conn.execute_batch(
        "BEGIN;
                 CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE games (
                     id INTEGER PRIMARY KEY,
                     name TEXT NOT NULL,
                     setup TEXT NOT NULL,
                     started_wall_ms INTEGER NOT NULL,
                     crc INTEGER NOT NULL
                 );
                 CREATE TABLE events (
                     game INTEGER NOT NULL REFERENCES games(id),
                     seq INTEGER NOT NULL,
                     at INTEGER NOT NULL,
                     wall_ms INTEGER NOT NULL,
                     line TEXT NOT NULL,
                     board_ms INTEGER,
                     board_seq INTEGER,
                     crc INTEGER NOT NULL,
                     PRIMARY KEY (game, seq)
                 );
                 COMMIT;",
    )
    .map_err(sql("creating the journal"))?;
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema', ?1), ('program', 'kriegspiel')",
        params![SCHEMA_VERSION.to_string()],
    )
    .map_err(sql("creating the journal"))?;
    Ok(())
}

/// The tables added after schema 1 was first written; a program without them ignores them.
fn add_later_tables(conn: &Connection) -> Result<(), JournalError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS beats (
                 game INTEGER PRIMARY KEY REFERENCES games(id),
                 at INTEGER NOT NULL,
                 wall_ms INTEGER NOT NULL
             );",
    )
    .map_err(sql("creating the journal's heartbeat table"))?;
    conn.execute_batch(super::inbox::CREATE)
        .map_err(sql("creating the journal's board inbox"))
}

/// Refuses a file that is not a journal of this schema.
fn check_schema(conn: &Connection, path: &Path) -> Result<(), JournalError> {
    let found: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
            r.get(0)
        })
        .optional()
        .map_err(|e| JournalError::NotAJournal {
            path: path.to_owned(),
            detail: e.to_string(),
        })?;
    let found: u32 =
        found
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| JournalError::NotAJournal {
                path: path.to_owned(),
                detail: "no schema version".to_owned(),
            })?;
    if found != SCHEMA_VERSION {
        return Err(JournalError::Schema {
            path: path.to_owned(),
            found,
        });
    }
    Ok(())
}

/// Waits for the journal's other writer (a table's events, the board inbox) in short
/// steps, about 5 s in all. SQLite's own busy handler sleeps up to 100 ms at a time, and a
/// board's frame waited behind it: p99 from a board to the journal was 229 ms at 800 frames
/// a second, against the few milliseconds a commit takes.
pub(super) fn wait_briefly(count: i32) -> bool {
    let step = match count {
        0..=99 => std::time::Duration::from_micros(100),
        100..=5099 => std::time::Duration::from_millis(1),
        _ => return false,
    };
    std::thread::sleep(step);
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use rusqlite::ErrorCode;

    use super::*;
    /// What SQLite says when a journal cannot be written becomes "journal X is read-only"
    /// (the end-to-end test needs a user whom permissions stop, which root is not).
    #[test]
    fn sqlites_read_only_error_is_said_as_a_read_only_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        drop(Journal::open(&path).unwrap());
        let conn = connect(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let error = conn.execute_batch(WRITE_CHECK).unwrap_err();
        assert_eq!(error.sqlite_error_code(), Some(ErrorCode::ReadOnly));
        let said = read_only_or(&path, sql("checking"))(error).to_string();
        assert_eq!(
            said,
            format!(
                "journal {} is read-only: attempt to write a readonly database",
                path.display()
            )
        );
        // Any other failure keeps its own words.
        let other = conn.execute_batch("NOT SQL").unwrap_err();
        let said = read_only_or(&path, sql("checking"))(other).to_string();
        assert!(said.starts_with("journal: checking: "), "{said}");
    }
}
