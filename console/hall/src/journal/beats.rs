//! The heartbeats: each game's last moment seen running (its table time and the wall clock),
//! one row per game, replaced each time. After a crash the table resumes from its last
//! heartbeat, not its last event, so the thinking time between the two counts on the clock.

use kriegspiel_table::Millis;
use rusqlite::{params, Connection};

use super::{sql, GameId, Journal, JournalError};

/// A table seen running: its game, its table time and the wall clock then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Beat {
    pub game: GameId,
    pub at: Millis,
    /// Unix milliseconds.
    pub wall_ms: i64,
}

impl Journal {
    /// Records that each game's table was running at table time `at` (wall-clock
    /// `wall_ms`), one row per game replaced each time, all in one commit. After a crash the
    /// table resumes from its last heartbeat, not its last event, so the thinking time
    /// between the two counts on the clock.
    pub fn beat(&mut self, beats: &[Beat]) -> Result<(), JournalError> {
        self.write_group(
            &[],
            &super::Asides {
                beats: beats.to_vec(),
                applied: Vec::new(),
            },
        )
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
}

/// Replaces each game's heartbeat with its beat among `beats`, in the open transaction `tx`.
pub(super) fn upsert_beats(tx: &Connection, beats: &[Beat]) -> Result<(), JournalError> {
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
    Ok(())
}
