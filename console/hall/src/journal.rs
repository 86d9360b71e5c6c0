//! The journal: one SQLite file holding every game of every table and every input event,
//! committed (WAL, `synchronous=FULL`) before the hall publishes what the event caused. A
//! commit of rows a replay derives again (timers, networked boards' events, whose frames
//! the board inbox has synced) skips its own sync: a killed process loses nothing of it.
//!
//! Each event is stored as its trace line (docs/TRACE-FORMAT.md), with the table time, the
//! wall-clock time, the board's own time for board events, and a CRC over all of it, so a
//! damaged row is found and named; everything before the damage stays readable.
//!
//! One module per job: `open` (opening to write or to read, the schema), `files` (the lock
//! and the file's mode), `error`, `bounds` (the longest values kept), `games`, `events`
//! (their [`Stamp`], writing and reading), `beats` (heartbeats), `seats` (seat codes) and
//! `said` (how far outputs were said), `inbox` (networked boards' frames and how far each
//! was applied).

use std::path::{Path, PathBuf};

use rusqlite::Connection;

mod beats;
mod bounds;
mod error;
mod events;
mod files;
pub use files::{files_of, lock_file_of};
mod games;
mod inbox;
mod many;
mod open;
mod said;
mod seats;

pub use beats::Beat;
pub use bounds::{MAX_LINE, MAX_NAME_BYTES, MAX_SETUP};
use error::sql;
pub use error::JournalError;
pub use events::{Asides, EventRow, GameEvents, JournalEvent, Stamp};
pub use games::GameRecord;
pub use inbox::{Inbox, InboxRow, NetStamp, StoredFrame};
pub use open::SCHEMA_VERSION;
pub use seats::{code_matches, SEAT_CODE_DIGITS};

/// The checksum of game and event rows.
const CRC: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);

/// A game's number in the journal.
pub type GameId = i64;

/// An open journal file.
#[derive(Debug)]
pub struct Journal {
    conn: Connection,
    path: PathBuf,
    /// The file's device and inode when it was opened to be written: a journal deleted or
    /// replaced under a running console is found at the next commit, not at the restart
    /// that finds its game gone (attack review).
    file: Option<(u64, u64)>,
    /// Whether this program made the journal's file when it opened it.
    made: bool,
    /// The locks held while this journal may be written (none when read only). They are
    /// the last field: dropped after the connection is closed, which frees the journal for
    /// the next writer (and closing the journal file's second descriptor before SQLite's
    /// would drop SQLite's own locks).
    _lock: Option<files::WriterLock>,
}

impl Journal {
    pub fn path(&self) -> &Path {
        &self.path
    }
}
