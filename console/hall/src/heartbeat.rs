//! The journal heartbeat: each playing table's time once a second, so that after a crash
//! thinking time counts on the clocks and downtime does not; and what each table has said.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kriegspiel_table::Millis;

use crate::clock::TableClock;
use crate::journal::{Beat, GameId};
use crate::writer::JournalQueue;

pub(crate) fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How often each running table's time is journaled: after a crash about this much of a
/// player's thinking time is lost to his clock.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(1);

/// Whether a heartbeat can be believed after the game's last event (table time, wall time):
/// it came after it, by no more table time than wall time passed (table time only runs
/// while the console does), and not from the future. Any other (a damaged row; a beat
/// left by this program before an older one played on) is ignored, and the table resumes
/// from its last event as it did before heartbeats.
pub(crate) fn credible(beat: &Beat, (last_at, last_wall): (Millis, i64), now_wall: i64) -> bool {
    /// Wall clocks step a little (NTP); a beat and an event written together may cross.
    const SLACK_MS: i64 = 2_000;
    let table_ran = i64::try_from(beat.at.saturating_sub(last_at)).unwrap_or(i64::MAX);
    beat.at >= last_at
        && beat.wall_ms >= last_wall.saturating_sub(SLACK_MS)
        && beat.wall_ms <= now_wall.saturating_add(SLACK_MS)
        && table_ran
            <= beat
                .wall_ms
                .saturating_sub(last_wall)
                .saturating_add(SLACK_MS)
}

/// The tables whose time the heartbeat journals.
#[derive(Clone, Default)]
pub(crate) struct Beating(Arc<Mutex<Vec<(GameId, TableClock, Live)>>>);

/// The last event a table has published all it caused of.
pub(crate) type SaidThrough = Arc<AtomicI64>;

/// The event up to which each table has published what it caused.
#[derive(Clone, Default)]
pub(crate) struct Said(Arc<Mutex<Vec<(GameId, SaidThrough)>>>);

impl Said {
    pub(crate) fn add(&self, game: GameId, seq: i64) -> Arc<AtomicI64> {
        let through = Arc::new(AtomicI64::new(seq));
        if let Ok(mut tables) = self.0.lock() {
            tables.push((game, through.clone()));
        }
        through
    }

    pub(crate) fn rows(&self) -> Vec<(GameId, i64)> {
        self.0.lock().map_or_else(
            |_| Vec::new(),
            |tables| {
                tables
                    .iter()
                    .map(|(g, s)| (*g, s.load(Ordering::Acquire)))
                    .collect()
            },
        )
    }
}

/// Whether a table still plays; cleared when its game ends or its task stops.
#[derive(Clone)]
pub(crate) struct Live(pub(crate) Arc<AtomicBool>);

impl Live {
    pub(crate) fn end(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// Clears [`Live`] when a table's task ends, however it ends (aborted included).
pub(crate) struct EndsLive(pub(crate) Live);

impl Drop for EndsLive {
    fn drop(&mut self) {
        self.0.end();
    }
}

impl Beating {
    pub(crate) fn add(&self, game: GameId, clock: TableClock, over: bool) -> Live {
        let live = Live(Arc::new(AtomicBool::new(!over)));
        if let Ok(mut tables) = self.0.lock() {
            tables.push((game, clock, live.clone()));
        }
        live
    }

    /// Journals every playing table's time now, in one commit.
    pub(crate) fn beat(&self, journal: &JournalQueue) {
        let wall = wall_ms();
        let beats: Vec<Beat> = match self.0.lock() {
            Ok(tables) => tables
                .iter()
                .filter(|(_, _, live)| live.0.load(Ordering::Relaxed))
                .map(|(game, clock, _)| Beat {
                    game: *game,
                    at: clock.now(),
                    wall_ms: wall,
                })
                .collect(),
            Err(_) => return,
        };
        if !beats.is_empty() {
            journal.beat(beats);
        }
    }
}

pub(crate) async fn heartbeat(tables: Beating, journal: JournalQueue) {
    let mut every = tokio::time::interval(HEARTBEAT);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        every.tick().await;
        tables.beat(&journal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heartbeat_is_believed_only_after_the_last_event_and_within_the_wall_time() {
        let beat = |at, wall_ms| Beat {
            game: 1,
            at,
            wall_ms,
        };
        let last = (10_000, 1_000_000);
        let now = 1_060_000;
        // Written 5 s after the last event, 5 s of table time on.
        assert!(credible(&beat(15_000, 1_005_000), last, now));
        // Before the last event in table time.
        assert!(!credible(&beat(9_000, 999_000), last, now));
        // More table time than wall time passed (a damaged row).
        assert!(!credible(&beat(900_000, 1_005_000), last, now));
        // Written long before the last event (left before an older program played on).
        assert!(!credible(&beat(12_000, 900_000), last, now));
        // From the future.
        assert!(!credible(&beat(15_000, 2_000_000), last, now));
        // A beat and an event written together may cross by a little.
        assert!(credible(&beat(10_000, 999_500), last, now));
    }
}
