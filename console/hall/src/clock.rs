//! A table's time: milliseconds since its game began, counted only while the console runs.

use kriegspiel_table::Millis;
use tokio::time::{Duration, Instant};

/// Table time now = `base` + time since `origin` on the hall's clock (real or simulated).
/// After a restart `base` is the last journaled time, so downtime never counts.
#[derive(Debug, Clone, Copy)]
pub struct TableClock {
    origin: Instant,
    base: Millis,
}

impl TableClock {
    /// A clock that reads `base` now. Call inside the hall's runtime.
    pub fn starting_at(base: Millis) -> TableClock {
        TableClock {
            origin: Instant::now(),
            base,
        }
    }

    /// A clock that reads `base` as it was `ago` (when the console went down): the time the
    /// console was down counts, as it does for networked boards, whose players went on
    /// playing and whose every event comes, timed, when the console is back.
    pub fn resumed(base: Millis, ago: Duration) -> TableClock {
        let now = Instant::now();
        TableClock {
            origin: now.checked_sub(ago).unwrap_or(now),
            base,
        }
    }

    pub fn now(&self) -> Millis {
        let run = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(Millis::MAX);
        self.base.saturating_add(run)
    }

    /// What the clock read (or will read) at `instant`; before the clock began, its start.
    pub fn millis_at(&self, instant: Instant) -> Millis {
        let run = u64::try_from(instant.saturating_duration_since(self.origin).as_millis())
            .unwrap_or(Millis::MAX);
        self.base.saturating_add(run)
    }

    /// The instant the clock reads `at` (now, for a time already past).
    pub fn instant_at(&self, at: Millis) -> Instant {
        self.origin + Duration::from_millis(at.saturating_sub(self.base))
    }
}
