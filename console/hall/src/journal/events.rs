//! The events: each stored as its trace line (docs/TRACE-FORMAT.md) with its table time, its
//! stamp and a CRC over all of it and its game; written in one transaction per batch, read
//! back in order up to the first damage.

use kriegspiel_table::event_text::{parse_event, render_event};
use kriegspiel_table::{Event, Input, Millis};
use rusqlite::{params, Connection};

use super::beats::upsert_beats;
use super::bounds::{bounded, sql_len, MAX_LINE};
use super::{sql, Beat, GameId, Journal, JournalError, NetStamp, CRC};

/// When an event was written and, for a board event, where it came from: the same three
/// values travel from the hall into the journal's row and back out to replay and export, so
/// they are one type rather than three loose arguments or fields. Stored in the `wall_ms`,
/// `board_ms` and `board_seq` columns of the events table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Wall-clock time it was written (Unix milliseconds).
    pub wall_ms: i64,
    /// The board's own clock for a board event.
    pub board_ms: Option<u32>,
    /// The board's sequence number of the frame that carried a board event.
    pub board_seq: Option<u16>,
    /// For a networked board's event, its frame's number: written beside the event, in its
    /// transaction, as how far that board was applied (not read back with the event).
    pub net: Option<super::NetStamp>,
}

/// What a group commit writes beside its events and no one waits for; lost in a crash,
/// each costs only a little more work after the restart.
#[derive(Debug, Default)]
pub struct Asides {
    /// Each game's latest heartbeat.
    pub beats: Vec<Beat>,
    /// How far networked boards' frames were applied by frames that needed no event of
    /// their own (snapshots that changed nothing): compaction and a restart go on from there.
    pub applied: Vec<NetStamp>,
}

impl Asides {
    pub fn is_empty(&self) -> bool {
        self.beats.is_empty() && self.applied.is_empty()
    }

    pub fn clear(&mut self) {
        self.beats.clear();
        self.applied.clear();
    }
}

/// One stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEvent {
    pub seq: i64,
    pub event: Event,
    pub stamp: Stamp,
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
    /// Whether a replay derives this row again if it is lost with the machine's power: a
    /// timer's, or a networked board's event, whose frame the board inbox keeps on disk
    /// (its "applied" mark, in the same transaction, is lost with it and the frame is
    /// taken again). Such rows need no disk sync of their own.
    rederivable: bool,
}

impl EventRow {
    /// The row of `event`, the `seq`th of `game`; refused if its line is too long to keep.
    pub fn new(
        game: GameId,
        seq: i64,
        event: &Event,
        stamp: Stamp,
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
            line,
            stamp,
            crc: 0,
        };
        row.crc = row.checksum(game);
        let rederivable = stamp.net.is_some() || matches!(event.input, Input::Tick);
        Ok(EventRow {
            game,
            row,
            rederivable,
        })
    }
}

impl Journal {
    /// Writes one event; it is on disk when this returns.
    pub fn append(
        &mut self,
        game: GameId,
        seq: i64,
        event: &Event,
        stamp: Stamp,
    ) -> Result<(), JournalError> {
        let row = EventRow::new(game, seq, event, stamp)?;
        self.write(std::slice::from_ref(&row))
    }

    /// Writes `rows` in one transaction: one commit, one sync to the disk, for all of them.
    /// On failure none is written.
    pub fn write(&mut self, rows: &[EventRow]) -> Result<(), JournalError> {
        self.write_group(rows, &Asides::default())
    }

    /// Events and what goes beside them in one transaction (the journal thread's group
    /// commit); on failure nothing is written.
    pub fn write_group(&mut self, rows: &[EventRow], asides: &Asides) -> Result<(), JournalError> {
        self.still_there()?;
        // Rows a replay derives again are committed without a sync of their own (safe from
        // a killed process all the same; a power cut loses only what a replay derives). The
        // next synced commit syncs them too: the log is one file, written in order.
        let sync = rows.iter().any(|r| !r.rederivable);
        if !sync {
            self.set_synchronous("NORMAL")?;
        }
        let written = self.write_rows(rows, asides);
        if !sync {
            self.set_synchronous("FULL")?;
        }
        written
    }

    /// SQLite's `synchronous` setting now (2 is FULL).
    #[cfg(test)]
    pub(crate) fn synchronous(&self) -> i64 {
        self.conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap_or(-1)
    }

    fn set_synchronous(&self, mode: &str) -> Result<(), JournalError> {
        self.conn
            .pragma_update(None, "synchronous", mode)
            .map_err(sql("choosing how the journal syncs"))
    }

    fn write_rows(&mut self, rows: &[EventRow], asides: &Asides) -> Result<(), JournalError> {
        let tx = self
            .conn
            .transaction()
            .map_err(sql("starting to write events"))?;
        insert_events(&tx, rows)?;
        upsert_beats(&tx, &asides.beats)?;
        for stamp in &asides.applied {
            super::inbox::mark_applied(&tx, *stamp)?;
        }
        tx.commit().map_err(sql("committing events"))
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
            .prepare(&format!("{SELECT_ROWS} WHERE game = ?1 ORDER BY seq"))
            .map_err(sql("reading events"))?;
        let mut rows = stmt
            .query(params![game, sql_len(MAX_LINE)])
            .map_err(sql("reading events"))?;
        let mut reader = GameReader::new(game);
        let read = loop {
            match rows.next() {
                Ok(Some(row)) => {
                    if let Err(e) = reader.take(row) {
                        break Err(e);
                    }
                }
                Ok(None) => break Ok(()),
                Err(error) => break Err(reader.unreadable(&error)),
            }
        };
        // What was read up to the damage is the game's.
        out.append(&mut reader.events);
        read
    }
}

/// The columns [`Row::read`] reads (the line only when at most ?2 bytes long), and the game
/// as column 8.
pub(super) const SELECT_ROWS: &str = "SELECT seq, at, wall_ms,
                        CASE WHEN octet_length(line) <= ?2 THEN line END, octet_length(line),
                        board_ms, board_seq, crc, game
                 FROM events";

/// One game's rows taken in order and checked: numbering, checksum, event, time.
pub(super) struct GameReader {
    game: GameId,
    expected_seq: i64,
    last_at: Millis,
    pub(super) events: Vec<JournalEvent>,
}

impl GameReader {
    pub(super) fn new(game: GameId) -> GameReader {
        GameReader {
            game,
            expected_seq: 1,
            last_at: 0,
            events: Vec::new(),
        }
    }

    /// The number of the last event taken (0 before the first).
    pub(super) fn last_seq(&self) -> i64 {
        self.expected_seq - 1
    }

    fn damaged(&self, what: String) -> JournalError {
        JournalError::Damaged {
            game: self.game,
            seq: self.expected_seq,
            what,
        }
    }

    pub(super) fn unreadable(&self, error: &rusqlite::Error) -> JournalError {
        self.damaged(format!("SQLite cannot read further: {error}"))
    }

    /// Takes the game's next row (of a query of [`SELECT_ROWS`]).
    pub(super) fn take(&mut self, row: &rusqlite::Row<'_>) -> Result<(), JournalError> {
        let stored = Row::read(row).map_err(|what| self.damaged(what))?;
        if stored.seq != self.expected_seq {
            return Err(self.damaged(format!(
                "event {} is missing (found {})",
                self.expected_seq, stored.seq
            )));
        }
        if stored.checksum(self.game) != stored.crc {
            return Err(self.damaged("the event does not match its checksum".to_owned()));
        }
        let Row {
            seq,
            at,
            line,
            stamp,
            ..
        } = stored;
        let event =
            parse_event(&line).map_err(|e| self.damaged(format!("unreadable event: {e}")))?;
        if Millis::try_from(at).ok() != Some(event.at) || event.at < self.last_at {
            return Err(self.damaged("the event's time is out of order".to_owned()));
        }
        self.last_at = event.at;
        self.events.push(JournalEvent { seq, event, stamp });
        self.expected_seq += 1;
        Ok(())
    }
}

/// Inserts `rows` in the open transaction `tx`.
fn insert_events(tx: &Connection, rows: &[EventRow]) -> Result<(), JournalError> {
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO events (game, seq, at, wall_ms, line, board_ms, board_seq, crc)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .map_err(sql("writing an event"))?;
    for EventRow { game, row: r, .. } in rows {
        insert
            .execute(params![
                game,
                r.seq,
                r.at,
                r.stamp.wall_ms,
                r.line,
                r.stamp.board_ms,
                r.stamp.board_seq,
                r.crc
            ])
            .map_err(sql("writing an event"))?;
        if let Some(net) = r.stamp.net {
            super::inbox::mark_applied(tx, net)?;
        }
    }
    Ok(())
}

/// One row of the events table as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    seq: i64,
    at: i64,
    line: String,
    stamp: Stamp,
    crc: u32,
}

impl Row {
    /// The row as read by the query of [`Journal::read_events`]: its line is read only when
    /// it is at most [`MAX_LINE`] bytes long. The error says what is wrong with it.
    fn read(row: &rusqlite::Row<'_>) -> Result<Row, String> {
        let line = bounded(row, 3, "a row", MAX_LINE)?;
        let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<Row> {
            Ok(Row {
                seq: row.get(0)?,
                at: row.get(1)?,
                line,
                stamp: Stamp {
                    wall_ms: row.get(2)?,
                    board_ms: row.get(5)?,
                    board_seq: row.get(6)?,
                    net: None,
                },
                crc: row.get(7)?,
            })
        };
        read(row).map_err(|e| format!("unreadable row: {e}"))
    }

    /// The checksum of everything the row holds but the checksum, and of its game.
    fn checksum(&self, game: GameId) -> u32 {
        let mut d = CRC.digest();
        d.update(&game.to_le_bytes());
        d.update(&self.seq.to_le_bytes());
        d.update(&self.at.to_le_bytes());
        d.update(&self.stamp.wall_ms.to_le_bytes());
        d.update(self.line.as_bytes());
        match self.stamp.board_ms {
            Some(ms) => d.update(&ms.to_le_bytes()),
            None => d.update(&[0xff]),
        }
        match self.stamp.board_seq {
            Some(n) => d.update(&n.to_le_bytes()),
            None => d.update(&[0xfe]),
        }
        d.finalize()
    }
}
