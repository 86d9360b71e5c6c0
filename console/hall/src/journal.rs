//! The journal: one SQLite file holding every game of every table and every input event,
//! committed (WAL, `synchronous=FULL`) before the hall publishes what the event caused.
//!
//! Each event is stored as its trace line (docs/TRACE-FORMAT.md), with the table time, the
//! wall-clock time, the board's own time for board events, and a CRC over all of it, so a
//! damaged row is found and named; everything before the damage stays readable.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use kriegspiel_table::event_text::{parse_event, render_event};
use kriegspiel_table::{Event, Millis};
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, MAIN_DB};

use crate::setup::{check_name, SetupError, TableSetup, MAX_NAME};

mod said;
mod seats;
pub use seats::{code_matches, SEAT_CODE_DIGITS};

/// The schema this program writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The longest event line kept (an arbiter's FEN or reason is the longest input); a longer
/// stored row is damage, and is not read.
pub const MAX_LINE: usize = 4096;

/// The longest table name kept, in bytes: [`MAX_NAME`] characters of at most 4 bytes.
pub const MAX_NAME_BYTES: usize = 4 * MAX_NAME;

/// The longest table set-up kept (its JSON), in bytes.
pub const MAX_SETUP: usize = 64 * 1024;

/// A write taken back, to find a journal that cannot be written when it is opened, not at
/// its first event.
const WRITE_CHECK: &str = "BEGIN IMMEDIATE; CREATE TABLE write_check (x); ROLLBACK;";

/// The most of a lock file read for the name of the program holding it.
const MAX_HOLDER: u64 = 256;

const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// A game's number in the journal.
pub type GameId = i64;

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
            | JournalError::ReadOnly { .. }
            | JournalError::InUse { .. } => None,
        }
    }
}

fn sql(doing: &'static str) -> impl Fn(rusqlite::Error) -> JournalError {
    move |error| JournalError::Sqlite { doing, error }
}

/// A game as the journal holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub id: GameId,
    /// The table's name (the same name resumes the same table).
    pub name: String,
    pub setup: TableSetup,
    /// Wall-clock time the game started (Unix milliseconds).
    pub started_wall_ms: i64,
}

/// One stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEvent {
    pub seq: i64,
    pub event: Event,
    /// Wall-clock time it was written (Unix milliseconds).
    pub wall_ms: i64,
    /// The board's own clock for a board event.
    pub board_ms: Option<u32>,
    /// The board's sequence number of the frame that carried a board event.
    pub board_seq: Option<u16>,
}

/// A table seen running: its game, its table time and the wall clock then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Beat {
    pub game: GameId,
    pub at: Millis,
    /// Unix milliseconds.
    pub wall_ms: i64,
}

/// The events of one game that read back, and the damage that stopped the reading, if any.
#[derive(Debug)]
pub struct GameEvents {
    pub events: Vec<JournalEvent>,
    pub damage: Option<JournalError>,
}

/// An event ready to be written: rendered and checksummed, so that writing it is SQL only
/// (and can happen on another thread, together with other tables' events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    game: GameId,
    row: Row,
}

impl EventRow {
    /// The row of `event`, the `seq`th of `game`; refused if its line is too long to keep.
    pub fn new(
        game: GameId,
        seq: i64,
        event: &Event,
        wall_ms: i64,
        board_ms: Option<u32>,
        board_seq: Option<u16>,
    ) -> Result<EventRow, JournalError> {
        let line = render_event(event);
        if line.len() > MAX_LINE {
            return Err(JournalError::BadEvent(format!(
                "a line of {} bytes (at most {MAX_LINE})",
                line.len()
            )));
        }
        let at = i64::try_from(event.at)
            .map_err(|_| JournalError::BadEvent("a table time beyond any game".to_owned()))?;
        let mut row = Row {
            seq,
            at,
            wall_ms,
            line,
            board_ms,
            board_seq,
            crc: 0,
        };
        row.crc = row.checksum(game);
        Ok(EventRow { game, row })
    }
}

/// An open journal file.
#[derive(Debug)]
pub struct Journal {
    conn: Connection,
    path: PathBuf,
    /// The lock file held while this journal may be written (none when read only). It is
    /// the last field: dropped after the connection is closed, which frees the journal for
    /// the next writer.
    _lock: Option<File>,
}

impl Journal {
    /// Opens (or creates, readable by its owner only) the journal at `path` to write it.
    ///
    /// Refused before anything is written when another program writes it (the lock file
    /// beside it, `<journal>.lock`, is held and names that program), when it cannot be
    /// written, or when its folder does not exist. A journal of ours that others may read
    /// is made private (mode 0600) first.
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        let folder = folder_of(path);
        if !folder.is_dir() {
            return Err(JournalError::NoFolder {
                path: path.to_owned(),
                folder: folder.to_owned(),
            });
        }
        let lock = take_lock(path)?;
        create_private(path)?;
        let conn = connect(
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
        let not_journal = not_a_journal(path);
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(read_only_or(path, not_journal))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(not_journal)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(not_journal)?;
        conn.execute_batch(WRITE_CHECK).map_err(read_only_or(
            path,
            sql("checking that the journal can be written"),
        ))?;
        let tables: Vec<String> = {
            let mut stmt = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(not_journal)?;
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(not_journal)?;
            rows.collect::<Result<_, _>>().map_err(not_journal)?
        };
        if tables.is_empty() {
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
        } else {
            check_schema(&conn, path)?;
        }
        // Added after schema 1 was first written; a program without it ignores the table.
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS beats (
                 game INTEGER PRIMARY KEY REFERENCES games(id),
                 at INTEGER NOT NULL,
                 wall_ms INTEGER NOT NULL
             );",
        )
        .map_err(sql("creating the journal's heartbeat table"))?;
        Ok(Journal {
            conn,
            path: path.to_owned(),
            _lock: Some(lock),
        })
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
            _lock: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a new game of the table `name`.
    pub fn new_game(
        &mut self,
        name: &str,
        setup: &TableSetup,
        wall_ms: i64,
    ) -> Result<GameId, JournalError> {
        check_name("name", name).map_err(JournalError::BadGame)?;
        setup.check_names().map_err(JournalError::BadGame)?;
        let setup_json = serde_json::to_string(setup)
            .map_err(|e| JournalError::BadEvent(format!("table setup: {e}")))?;
        if setup_json.len() > MAX_SETUP {
            return Err(JournalError::BadGame(SetupError {
                field: "setup",
                message: format!(
                    "a set-up of {} bytes; at most {MAX_SETUP}",
                    setup_json.len()
                ),
            }));
        }
        let crc = game_crc(name, &setup_json, wall_ms);
        self.conn
            .execute(
                "INSERT INTO games (name, setup, started_wall_ms, crc) VALUES (?1, ?2, ?3, ?4)",
                params![name, setup_json, wall_ms, crc],
            )
            .map_err(sql("starting a game"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Writes one event; it is on disk when this returns.
    pub fn append(
        &mut self,
        game: GameId,
        seq: i64,
        event: &Event,
        wall_ms: i64,
        board_ms: Option<u32>,
    ) -> Result<(), JournalError> {
        self.append_stamped(game, seq, event, wall_ms, board_ms, None)
    }

    /// Writes one event with the board's own time and frame sequence number.
    pub fn append_stamped(
        &mut self,
        game: GameId,
        seq: i64,
        event: &Event,
        wall_ms: i64,
        board_ms: Option<u32>,
        board_seq: Option<u16>,
    ) -> Result<(), JournalError> {
        let row = EventRow::new(game, seq, event, wall_ms, board_ms, board_seq)?;
        self.write(std::slice::from_ref(&row))
    }

    /// Writes `rows` in one transaction: one commit, one sync to the disk, for all of them.
    /// On failure none is written.
    pub fn write(&mut self, rows: &[EventRow]) -> Result<(), JournalError> {
        self.write_with_beats(rows, &[])
    }

    /// Records that each game's table was running at table time `at` (wall-clock
    /// `wall_ms`), one row per game replaced each time, all in one commit. After a crash the
    /// table resumes from its last heartbeat, not its last event, so the thinking time
    /// between the two counts on the clock.
    pub fn beat(&mut self, beats: &[Beat]) -> Result<(), JournalError> {
        self.write_with_beats(&[], beats)
    }

    /// Events and heartbeats in one transaction (the journal thread's group commit); on
    /// failure nothing is written.
    pub fn write_with_beats(
        &mut self,
        rows: &[EventRow],
        beats: &[Beat],
    ) -> Result<(), JournalError> {
        let tx = self
            .conn
            .transaction()
            .map_err(sql("starting to write events"))?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO events (game, seq, at, wall_ms, line, board_ms, board_seq, crc)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(sql("writing an event"))?;
            for EventRow { game, row: r } in rows {
                insert
                    .execute(params![
                        game,
                        r.seq,
                        r.at,
                        r.wall_ms,
                        r.line,
                        r.board_ms,
                        r.board_seq,
                        r.crc
                    ])
                    .map_err(sql("writing an event"))?;
            }
            let mut upsert = tx
                .prepare_cached(
                    "INSERT INTO beats (game, at, wall_ms) VALUES (?1, ?2, ?3)
                     ON CONFLICT (game) DO UPDATE SET at = excluded.at, wall_ms = excluded.wall_ms",
                )
                .map_err(sql("writing a heartbeat"))?;
            for b in beats {
                let at = i64::try_from(b.at).unwrap_or(i64::MAX);
                upsert
                    .execute(params![b.game, at, b.wall_ms])
                    .map_err(sql("writing a heartbeat"))?;
            }
        }
        tx.commit().map_err(sql("committing events"))
    }

    /// A game's last heartbeat, if it has one. A journal opened read-only from an older
    /// program has none.
    pub fn last_beat(&self, game: GameId) -> Option<Beat> {
        self.conn
            .query_row(
                "SELECT at, wall_ms FROM beats WHERE game = ?1",
                params![game],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .ok()
            .and_then(|(at, wall_ms)| {
                Some(Beat {
                    game,
                    at: Millis::try_from(at).ok()?,
                    wall_ms,
                })
            })
    }

    /// Every game, oldest first. A damaged game row ends the list with its error; a name or
    /// set-up longer than this program writes is damage, and is not read.
    pub fn games(&self) -> Result<Vec<GameRecord>, JournalError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id,
                        CASE WHEN octet_length(name) <= ?1 THEN name END, octet_length(name),
                        CASE WHEN octet_length(setup) <= ?2 THEN setup END, octet_length(setup),
                        started_wall_ms, crc
                 FROM games ORDER BY id",
            )
            .map_err(sql("reading the games"))?;
        let mut rows = stmt
            .query(params![sql_len(MAX_NAME_BYTES), sql_len(MAX_SETUP)])
            .map_err(sql("reading the games"))?;
        let mut games = Vec::new();
        while let Some(row) = rows.next().map_err(sql("reading the games"))? {
            let id: i64 = row.get(0).map_err(sql("reading a game"))?;
            let damaged = |what: String| JournalError::Damaged {
                game: id,
                seq: 0,
                what,
            };
            let name = bounded(row, 1, "a name", MAX_NAME_BYTES).map_err(damaged)?;
            let setup_json = bounded(row, 3, "a set-up", MAX_SETUP).map_err(damaged)?;
            let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<(i64, u32)> {
                Ok((row.get(5)?, row.get(6)?))
            };
            let (started, crc) =
                read(row).map_err(|e| damaged(format!("unreadable game row: {e}")))?;
            if game_crc(&name, &setup_json, started) != crc {
                return Err(damaged(
                    "the game's set-up does not match its checksum".to_owned(),
                ));
            }
            let setup: TableSetup = serde_json::from_str(&setup_json)
                .map_err(|e| damaged(format!("unreadable set-up: {e}")))?;
            games.push(GameRecord {
                id,
                name,
                setup,
                started_wall_ms: started,
            });
        }
        Ok(games)
    }

    /// How many events of a game are stored (without reading them).
    pub fn event_count(&self, game: GameId) -> Result<u64, JournalError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM events WHERE game = ?1",
                params![game],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(sql("counting events"))
    }

    /// The events of a game in order, up to the first damage.
    pub fn events(&self, game: GameId) -> GameEvents {
        let mut events = Vec::new();
        let damage = self.read_events(game, &mut events).err();
        GameEvents { events, damage }
    }

    fn read_events(&self, game: GameId, out: &mut Vec<JournalEvent>) -> Result<(), JournalError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT seq, at, wall_ms,
                        CASE WHEN octet_length(line) <= ?2 THEN line END, octet_length(line),
                        board_ms, board_seq, crc
                 FROM events WHERE game = ?1 ORDER BY seq",
            )
            .map_err(sql("reading events"))?;
        let mut rows = stmt
            .query(params![game, sql_len(MAX_LINE)])
            .map_err(sql("reading events"))?;
        let mut expected_seq = 1;
        let mut last_at = 0;
        loop {
            let row = match rows.next() {
                Ok(Some(row)) => row,
                Ok(None) => return Ok(()),
                Err(error) => {
                    return Err(JournalError::Damaged {
                        game,
                        seq: expected_seq,
                        what: format!("SQLite cannot read further: {error}"),
                    })
                }
            };
            let damaged = |what: String| JournalError::Damaged {
                game,
                seq: expected_seq,
                what,
            };
            let line = bounded(row, 3, "a row", MAX_LINE).map_err(damaged)?;
            let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<Row> {
                Ok(Row {
                    seq: row.get(0)?,
                    at: row.get(1)?,
                    wall_ms: row.get(2)?,
                    line,
                    board_ms: row.get(5)?,
                    board_seq: row.get(6)?,
                    crc: row.get(7)?,
                })
            };
            let stored = read(row).map_err(|e| damaged(format!("unreadable row: {e}")))?;
            if stored.seq != expected_seq {
                return Err(damaged(format!(
                    "event {expected_seq} is missing (found {})",
                    stored.seq
                )));
            }
            if stored.checksum(game) != stored.crc {
                return Err(damaged("the event does not match its checksum".to_owned()));
            }
            let Row {
                seq,
                at,
                wall_ms,
                line,
                board_ms,
                board_seq,
                ..
            } = stored;
            let event =
                parse_event(&line).map_err(|e| damaged(format!("unreadable event: {e}")))?;
            if Millis::try_from(at).ok() != Some(event.at) || event.at < last_at {
                return Err(damaged("the event's time is out of order".to_owned()));
            }
            last_at = event.at;
            out.push(JournalEvent {
                seq,
                event,
                wall_ms,
                board_ms,
                board_seq,
            });
            expected_seq += 1;
        }
    }
}

/// A text column read only when it is at most `max` bytes: column `i` holds it when it is
/// short enough (else NULL), column `i + 1` its length in bytes, so a row longer than this
/// program ever writes is damage and never read whole.
fn bounded(row: &rusqlite::Row<'_>, i: usize, what: &str, max: usize) -> Result<String, String> {
    let len: Option<i64> = row
        .get(i + 1)
        .map_err(|e| format!("{what} unreadable: {e}"))?;
    if let Some(n) = len.filter(|&n| usize::try_from(n).map_or(true, |n| n > max)) {
        return Err(format!("{what} of {n} bytes, at most {max}"));
    }
    row.get(i).map_err(|e| format!("{what} unreadable: {e}"))
}

/// A bound as SQLite takes it.
fn sql_len(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
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

/// The folder a journal is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."))
}

/// `<journal>.lock`, beside the journal's real file: every name of one journal (a relative
/// path, a link) has the same lock.
fn lock_path(path: &Path) -> PathBuf {
    let real = std::fs::canonicalize(path).or_else(|_| {
        std::fs::canonicalize(folder_of(path))
            .map(|folder| folder.join(path.file_name().unwrap_or_default()))
    });
    let mut name = real.unwrap_or_else(|_| path.to_owned()).into_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// Whether an I/O error means the file or its folder may not be written.
fn is_read_only(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    )
}

/// Takes the journal's lock for this program, or says who holds it. The lock is the
/// kernel's lock on the open lock file: it goes with the file when the program ends,
/// however it ends.
fn take_lock(path: &Path) -> Result<File, JournalError> {
    let lock = lock_path(path);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&lock)
        .map_err(|error| {
            if is_read_only(&error) {
                JournalError::ReadOnly {
                    path: path.to_owned(),
                    detail: format!(
                        "its lock file {} cannot be written: {error}",
                        lock.display()
                    ),
                }
            } else {
                JournalError::Lock {
                    path: path.to_owned(),
                    lock: lock.clone(),
                    error,
                }
            }
        })?;
    make_private(&lock);
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(JournalError::InUse {
                path: path.to_owned(),
                holder: read_holder(&mut file),
            })
        }
        Err(std::fs::TryLockError::Error(error)) => {
            return Err(JournalError::Lock {
                path: path.to_owned(),
                lock,
                error,
            })
        }
    }
    // Who holds it, for the refusal of the next one; a lock file that cannot say it still
    // locks.
    let _ = write_holder(&mut file);
    Ok(file)
}

/// Writes "PROGRAM, pid PID" into the held lock file.
fn write_holder(file: &mut File) -> std::io::Result<()> {
    let program = std::env::args_os()
        .next()
        .and_then(|arg0| {
            Path::new(&arg0)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .map(|name| one_line(&name))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "a program".to_owned());
    file.set_len(0)?;
    file.rewind()?;
    writeln!(file, "{program}, pid {}", std::process::id())?;
    file.flush()
}

/// What the lock file held by another program says of it (bounded, one line).
fn read_holder(file: &mut File) -> Option<String> {
    file.rewind().ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_HOLDER).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = one_line(text.lines().next().unwrap_or_default());
    (!line.is_empty()).then_some(line)
}

/// A name for a message: no control characters, at most 100 characters.
fn one_line(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Creates a new journal file readable and writable by its owner only (SQLite gives its
/// `-wal` and `-shm` files the same mode); an existing one of ours that others may read is
/// made private, with its `-wal` and `-shm`.
fn create_private(path: &Path) -> Result<(), JournalError> {
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        // An empty file is an empty SQLite database.
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                make_private(Path::new(&name));
            }
            Ok(())
        }
        Err(e) if is_read_only(&e) => Err(JournalError::ReadOnly {
            path: path.to_owned(),
            detail: format!("it cannot be created in {}: {e}", folder_of(path).display()),
        }),
        // SQLite says what is wrong with it when it opens it.
        Err(_) => Ok(()),
    }
}

/// Takes the group's and the others' rights off a file of ours; a file that is not ours,
/// or that cannot be changed, is left as it is.
fn make_private(path: &Path) {
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    let mode = meta.permissions().mode();
    if !meta.is_file() || mode & 0o077 == 0 || !owned_by_us(&meta) {
        return;
    }
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7700));
}

/// Whether this program's user owns the file (`/proc/self` belongs to the program's user).
fn owned_by_us(meta: &std::fs::Metadata) -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|me| me.uid() == meta.uid())
}

/// The error for SQLite's "attempt to write a readonly database", else `otherwise`'s.
fn read_only_or<'a>(
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
fn not_a_journal(path: &Path) -> impl Fn(rusqlite::Error) -> JournalError + Copy + '_ {
    move |e| JournalError::NotAJournal {
        path: path.to_owned(),
        detail: e.to_string(),
    }
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

fn game_crc(name: &str, setup: &str, wall_ms: i64) -> u32 {
    let mut d = CRC.digest();
    d.update(name.as_bytes());
    d.update(&[0]);
    d.update(setup.as_bytes());
    d.update(&wall_ms.to_le_bytes());
    d.finalize()
}

/// One row of the events table as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    seq: i64,
    at: i64,
    wall_ms: i64,
    line: String,
    board_ms: Option<u32>,
    board_seq: Option<u16>,
    crc: u32,
}

impl Row {
    /// The checksum of everything the row holds but the checksum, and of its game.
    fn checksum(&self, game: GameId) -> u32 {
        let mut d = CRC.digest();
        d.update(&game.to_le_bytes());
        d.update(&self.seq.to_le_bytes());
        d.update(&self.at.to_le_bytes());
        d.update(&self.wall_ms.to_le_bytes());
        d.update(self.line.as_bytes());
        match self.board_ms {
            Some(ms) => d.update(&ms.to_le_bytes()),
            None => d.update(&[0xff]),
        }
        match self.board_seq {
            Some(n) => d.update(&n.to_le_bytes()),
            None => d.update(&[0xfe]),
        }
        d.finalize()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

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
