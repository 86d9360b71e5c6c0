//! The events of many games in one pass: what a console restarted late in an evening reads
//! for all its tables at once.
//!
//! Tables write their events side by side, so one game's rows lie scattered over the whole
//! events table, and reading game after game by its key seeks back and forth through it
//! (most of a restart's time at 200 tables). One scan in the order the rows were written,
//! from the first row of the earliest game asked for, reads each page once.

use std::collections::HashMap;

use rusqlite::params;

use super::bounds::{sql_len, MAX_LINE};
use super::events::{GameReader, SELECT_ROWS};
use super::{sql, GameEvents, GameId, Journal, JournalError};

/// How many rows the scan may read for each row it wants before the games are read alone.
const SPREAD: i64 = 4;

impl Journal {
    /// The events of each of `games`, as [`Journal::events`] reads them (in order, up to the
    /// first damage), read together. A game the scan cannot read whole and in order (a row
    /// missing, damaged, or stored out of order) is read again alone, so that its damage is
    /// named exactly as a read of it alone names it.
    pub fn events_of(&self, games: &[GameId]) -> HashMap<GameId, GameEvents> {
        let mut read: HashMap<GameId, GameEvents> = HashMap::with_capacity(games.len());
        let mut scanned = self.scan(games).unwrap_or_default();
        for &game in games {
            let events = match scanned.remove(&game) {
                Some(Scanned::Whole(events)) => GameEvents {
                    events,
                    damage: None,
                },
                _ => self.events(game),
            };
            read.insert(game, events);
        }
        read
    }

    /// One scan of the events table from the first row of the earliest of `games`.
    fn scan(&self, games: &[GameId]) -> Result<HashMap<GameId, Scanned>, JournalError> {
        let mut first_row: Option<i64> = None;
        let mut last_seq = HashMap::with_capacity(games.len());
        for &game in games {
            // Both by the (game, seq) key, without reading the game's rows.
            let (first, last): (Option<i64>, Option<i64>) = self
                .conn
                .query_row(
                    "SELECT (SELECT rowid FROM events WHERE game = ?1 ORDER BY seq LIMIT 1),
                            (SELECT max(seq) FROM events WHERE game = ?1)",
                    params![game],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(sql("reading events"))?;
            first_row = match (first_row, first) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            last_seq.insert(game, last.unwrap_or(0));
        }
        // Games far apart (a table's last game finished rounds ago, say) would make the
        // scan read much more than they hold: each is then read alone, as before.
        let wanted: i64 = last_seq.values().sum();
        let last_row: Option<i64> = self
            .conn
            .query_row("SELECT max(rowid) FROM events", [], |r| r.get(0))
            .map_err(sql("reading events"))?;
        if let (Some(first), Some(last)) = (first_row, last_row) {
            if last - first + 1 > wanted.saturating_mul(SPREAD) + 1024 {
                return Ok(HashMap::new());
            }
        }
        let mut readers: HashMap<GameId, Option<GameReader>> = games
            .iter()
            .map(|&g| (g, Some(GameReader::new(g))))
            .collect();
        if let Some(first_row) = first_row {
            let mut stmt = self
                .conn
                .prepare(&format!("{SELECT_ROWS} WHERE rowid >= ?1 ORDER BY rowid"))
                .map_err(sql("reading events"))?;
            let mut rows = stmt
                .query(params![first_row, sql_len(MAX_LINE)])
                .map_err(sql("reading events"))?;
            while let Some(row) = rows.next().map_err(sql("reading events"))? {
                let game: GameId = row.get(8).map_err(sql("reading events"))?;
                if let Some(slot) = readers.get_mut(&game) {
                    // A game the scan cannot take whole is read alone afterwards.
                    if slot.as_mut().is_some_and(|r| r.take(row).is_err()) {
                        *slot = None;
                    }
                }
            }
        }
        Ok(readers
            .into_iter()
            .map(|(game, reader)| {
                let scanned = match reader {
                    Some(r) if Some(&r.last_seq()) == last_seq.get(&game) => {
                        Scanned::Whole(r.events)
                    }
                    _ => Scanned::ReadAlone,
                };
                (game, scanned)
            })
            .collect())
    }
}

enum Scanned {
    Whole(Vec<super::JournalEvent>),
    /// Damaged, or not all of it in the scan's order: read alone.
    ReadAlone,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::journal::Stamp;
    use crate::setup::TableSetup;
    use kriegspiel_table::{Event, Input};

    /// Three games written side by side, as tables write them.
    fn side_by_side(path: &std::path::Path) -> Vec<GameId> {
        let mut j = Journal::open(path).unwrap();
        let games: Vec<GameId> = (0..3)
            .map(|i| {
                j.new_game(&format!("t{i}"), &TableSetup::default(), 0)
                    .unwrap()
            })
            .collect();
        for seq in 1..=40 {
            for (i, &g) in games.iter().enumerate() {
                if seq > 30 && i == 2 {
                    continue;
                }
                let e = Event::new(u64::try_from(seq).unwrap() * 10, Input::Tick);
                j.append(g, seq, &e, Stamp::default()).unwrap();
            }
        }
        games
    }

    fn sql(path: &std::path::Path, statement: &str) {
        rusqlite::Connection::open(path)
            .unwrap()
            .execute_batch(statement)
            .unwrap();
    }

    #[test]
    fn many_games_read_together_read_as_each_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let games = side_by_side(&path);
        let j = Journal::open(&path).unwrap();
        // Only the games asked for; one with no events too.
        let asked = [games[0], games[2], 99];
        let together = j.events_of(&asked);
        assert_eq!(together.len(), 3);
        for g in asked {
            let alone = j.events(g);
            assert_eq!(together[&g].events, alone.events, "game {g}");
            assert!(together[&g].damage.is_none());
        }
        assert_eq!(together[&games[0]].events.len(), 40);
        assert_eq!(together[&games[2]].events.len(), 30);
        assert!(together[&99].events.is_empty());
    }

    /// A game asked for whose rows lie far from the others' (a table's game of an earlier
    /// round) is not worth a scan of everything between: each is read alone, the same.
    #[test]
    fn games_far_apart_are_read_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let games = side_by_side(&path);
        let mut j = Journal::open(&path).unwrap();
        let late = j.new_game("late", &TableSetup::default(), 0).unwrap();
        let filler = j.new_game("filler", &TableSetup::default(), 0).unwrap();
        for seq in 1..=2000 {
            j.append(filler, seq, &Event::new(10, Input::Tick), Stamp::default())
                .unwrap();
        }
        j.append(late, 1, &Event::new(10, Input::Tick), Stamp::default())
            .unwrap();
        assert!(j.scan(&[games[0], late]).unwrap().is_empty(), "read alone");
        assert_eq!(j.scan(&[filler, late]).unwrap().len(), 2, "scanned");
        let together = j.events_of(&[games[0], late]);
        assert_eq!(together[&games[0]].events.len(), 40);
        assert_eq!(together[&late].events, j.events(late).events);
    }

    #[test]
    fn a_damaged_or_disordered_game_is_named_as_when_read_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let games = side_by_side(&path);
        // Game 1 loses a row; game 2's last row is stored again before its first (out of
        // the scan's reach); game 0 is whole.
        sql(
            &path,
            &format!("DELETE FROM events WHERE game = {} AND seq = 7", games[1]),
        );
        sql(
            &path,
            &format!(
                "CREATE TABLE keep AS SELECT * FROM events WHERE game = {g} AND seq = 30;
                 DELETE FROM events WHERE game = {g} AND seq = 30;
                 INSERT INTO events (rowid, game, seq, at, wall_ms, line, board_ms, board_seq, crc)
                     SELECT 0, game, seq, at, wall_ms, line, board_ms, board_seq, crc FROM keep;",
                g = games[2]
            ),
        );
        let j = Journal::open(&path).unwrap();
        let together = j.events_of(&games);
        for g in &games {
            let alone = j.events(*g);
            assert_eq!(together[g].events, alone.events, "game {g}");
            assert_eq!(
                together[g].damage.as_ref().map(ToString::to_string),
                alone.damage.as_ref().map(ToString::to_string),
                "game {g}"
            );
        }
        assert_eq!(together[&games[0]].events.len(), 40);
        assert_eq!(together[&games[1]].events.len(), 6);
        assert!(together[&games[1]].damage.is_some());
        assert_eq!(together[&games[2]].events.len(), 30, "read alone, in order");
    }
}
