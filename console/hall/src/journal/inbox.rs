//! Networked boards' frames, kept before they are acknowledged, and how far each board's
//! frames were applied to a game: a restarted console replays the one and skips the other.
//!
//! The intake writes through its own connection to the journal file (WAL lets it beside
//! the tables' writer), so a table's slow commit never holds up another table's board.

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::error::sql;
use super::{Journal, JournalError};

/// A frame as the intake stores it: board, epoch, seq, when the board made it (Unix ms on
/// the console's clock: its arrival less its age), the link frame's bytes.
pub type InboxRow = (u32, u64, u64, u64, Vec<u8>);

/// A stored frame of one board's epoch: seq, when made, bytes.
pub type StoredFrame = (u64, u64, Vec<u8>);

/// How far one board's frames were applied to a game (written with the game's event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetStamp {
    pub board: u32,
    pub epoch: u64,
    pub seq: u64,
}

/// The intake's connection to the journal.
#[derive(Debug)]
pub struct Inbox {
    conn: Connection,
    /// The journal's path and file, to know it is still there before frames are stored
    /// (and acknowledged, and dropped by their boards).
    path: std::path::PathBuf,
    file: Option<(u64, u64)>,
}

/// SQLite keeps integers signed; outbox numbers stay far below 2^63, epochs are Unix ms.
fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn uint(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

pub(super) const CREATE: &str = "CREATE TABLE IF NOT EXISTS board_inbox (
                 board INTEGER NOT NULL,
                 epoch INTEGER NOT NULL,
                 seq INTEGER NOT NULL,
                 made_ms INTEGER NOT NULL,
                 frame BLOB NOT NULL,
                 PRIMARY KEY (board, epoch, seq)
             );
             CREATE TABLE IF NOT EXISTS board_applied (
                 board INTEGER PRIMARY KEY,
                 epoch INTEGER NOT NULL,
                 seq INTEGER NOT NULL
             );";

/// Records in the game's own transaction how far a board's frames were applied. The mark
/// only moves forward (epochs only grow): marks written out of order in one group commit
/// (a frame left out of the journal, then an event of a later frame) keep the latest.
pub(super) fn mark_applied(tx: &Connection, stamp: NetStamp) -> Result<(), JournalError> {
    tx.prepare_cached(
        "INSERT INTO board_applied (board, epoch, seq) VALUES (?1, ?2, ?3)
         ON CONFLICT (board) DO UPDATE SET epoch = excluded.epoch, seq = excluded.seq
         WHERE excluded.epoch > board_applied.epoch
            OR (excluded.epoch = board_applied.epoch AND excluded.seq > board_applied.seq)",
    )
    .and_then(|mut s| s.execute(params![stamp.board, int(stamp.epoch), int(stamp.seq)]))
    .map(|_| ())
    .map_err(sql("recording a board's applied frame"))
}

impl Journal {
    /// A second connection to this journal for the networked boards' intake.
    pub fn inbox(&self) -> Result<Inbox, JournalError> {
        let mut conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|error| JournalError::Open {
            path: self.path.clone(),
            error,
        })?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sql("opening the board inbox"))?;
        conn.busy_handler(Some(super::open::wait_briefly))
            .map_err(sql("opening the board inbox"))?;
        Ok(Inbox {
            conn,
            path: self.path.clone(),
            file: self.file,
        })
    }
}

impl Inbox {
    /// Stores frames (a re-sent one is ignored): on disk when this returns.
    pub fn store(&mut self, rows: &[InboxRow]) -> Result<(), JournalError> {
        super::open::unchanged(&self.path, self.file)?;
        let tx = self
            .conn
            .transaction()
            .map_err(sql("storing board frames"))?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO board_inbox (board, epoch, seq, made_ms, frame)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql("storing board frames"))?;
            for (board, epoch, seq, made_ms, frame) in rows {
                insert
                    .execute(params![board, int(*epoch), int(*seq), int(*made_ms), frame])
                    .map_err(sql("storing board frames"))?;
            }
        }
        tx.commit().map_err(sql("storing board frames"))
    }

    /// The board's latest epoch and the end of its stored frames (the seq after the last);
    /// older epochs are deleted (a restarted board resynced from its new one).
    pub fn latest_epoch(&mut self, board: u32) -> Result<Option<(u64, u64)>, JournalError> {
        let err = sql("reading a board's stored frames");
        let latest: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT epoch, MAX(seq) FROM board_inbox
                 WHERE board = ?1 AND epoch = (SELECT MAX(epoch) FROM board_inbox WHERE board = ?1)",
                params![board],
                |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
            )
            .optional()
            .map_err(&err)?
            .flatten();
        let Some((epoch, last)) = latest else {
            return Ok(None);
        };
        self.conn
            .execute(
                "DELETE FROM board_inbox WHERE board = ?1 AND epoch < ?2",
                params![board, epoch],
            )
            .map_err(&err)?;
        Ok(Some((uint(epoch), uint(last).saturating_add(1))))
    }

    /// Up to `limit` stored frames of the board's `epoch` from `from` on, in order: a
    /// restarted console reads an evening's frames (100,000 a board) a page at a time.
    pub fn frames(
        &self,
        board: u32,
        epoch: u64,
        from: u64,
        limit: usize,
    ) -> Result<Vec<StoredFrame>, JournalError> {
        self.query_frames(
            "SELECT seq, made_ms, frame FROM board_inbox
             WHERE board = ?1 AND epoch = ?2 AND seq >= ?3 ORDER BY seq LIMIT ?4",
            (board, epoch, from, limit),
        )
    }

    /// Up to `limit` stored frames of the board's `epoch` up to `through`, the latest
    /// first: where a restart finds the latest snapshot its table applied.
    pub fn frames_back(
        &self,
        board: u32,
        epoch: u64,
        through: u64,
        limit: usize,
    ) -> Result<Vec<StoredFrame>, JournalError> {
        self.query_frames(
            "SELECT seq, made_ms, frame FROM board_inbox
             WHERE board = ?1 AND epoch = ?2 AND seq <= ?3 ORDER BY seq DESC LIMIT ?4",
            (board, epoch, through, limit),
        )
    }

    fn query_frames(
        &self,
        query: &str,
        (board, epoch, seq, limit): (u32, u64, u64, usize),
    ) -> Result<Vec<StoredFrame>, JournalError> {
        let err = sql("reading a board's stored frames");
        let mut stmt = self.conn.prepare_cached(query).map_err(&err)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![board, int(epoch), int(seq), limit], |r| {
                Ok((
                    uint(r.get::<_, i64>(0)?),
                    uint(r.get::<_, i64>(1)?),
                    r.get::<_, Vec<u8>>(2)?,
                ))
            })
            .map_err(&err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(&err);
        rows
    }

    /// Deletes the board's stored frames of `epoch` in `seqs`: frames its table applied,
    /// whose result a later snapshot holds (see the intake's compaction). The rows' pages
    /// are reused, so the journal stops growing with a board's heartbeats.
    pub fn compact(
        &mut self,
        board: u32,
        epoch: u64,
        seqs: std::ops::Range<u64>,
    ) -> Result<usize, JournalError> {
        self.conn
            .execute(
                "DELETE FROM board_inbox WHERE board = ?1 AND epoch = ?2 AND seq >= ?3 AND seq < ?4",
                params![board, int(epoch), int(seqs.start), int(seqs.end)],
            )
            .map_err(sql("compacting a board's stored frames"))
    }

    /// How far the board's frames were applied to a game.
    pub fn applied(&self, board: u32) -> Result<Option<(u64, u64)>, JournalError> {
        self.conn
            .query_row(
                "SELECT epoch, seq FROM board_applied WHERE board = ?1",
                params![board],
                |r| Ok((uint(r.get(0)?), uint(r.get(1)?))),
            )
            .optional()
            .map_err(sql("reading how far a board was applied"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_restart_reads_the_latest_epoch_a_page_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
        let mut inbox = journal.inbox().unwrap();
        assert_eq!(inbox.latest_epoch(7).unwrap(), None);
        let rows = |epoch: u64, seqs: std::ops::Range<u64>| -> Vec<InboxRow> {
            seqs.map(|s| (7, epoch, s, 1000 + s, vec![u8::try_from(s % 250).unwrap()]))
                .collect()
        };
        inbox.store(&rows(100, 0..40)).unwrap();
        inbox.store(&rows(200, 0..1000)).unwrap();
        // Another board's frames are its own.
        inbox.store(&[(8, 300, 0, 0, vec![1])]).unwrap();
        assert_eq!(inbox.latest_epoch(7).unwrap(), Some((200, 1000)));
        assert!(
            inbox.frames(7, 100, 0, 10).unwrap().is_empty(),
            "older epoch deleted"
        );
        let mut read = Vec::new();
        let mut from = 0;
        loop {
            let page = inbox.frames(7, 200, from, 256).unwrap();
            assert!(page.len() <= 256);
            let Some(last) = page.last() else { break };
            from = last.0 + 1;
            read.extend(page);
        }
        assert_eq!(read.len(), 1000);
        assert!(read
            .iter()
            .enumerate()
            .all(|(i, (seq, made, _))| *seq == i as u64 && *made == 1000 + i as u64));
        assert_eq!(inbox.latest_epoch(8).unwrap(), Some((300, 1)));
    }
}
