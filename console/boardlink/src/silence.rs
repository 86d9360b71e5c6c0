//! How long a board has been silent, counting only the time the link was awake to hear it.
//!
//! A console starved of the processor (a loaded laptop, a suspended terminal) wakes to a
//! clock that jumped: its tick is long due, and the board's bytes of meanwhile wait in the
//! port's buffer, or in the broker's stream, still unread (the runtime learns they are
//! there only after the tick has run). Counting that time as the board's silence would call
//! a board gone that spoke all along, and a reopened serial port drops what it had sent.

use std::time::Duration;

/// A look at the clock this long after the one before means the link itself was held up.
const HELD_UP: Duration = Duration::from_millis(500);

/// When a board was last heard, and when the link last looked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Silence {
    last_heard: Duration,
    last_look: Duration,
}

impl Silence {
    /// Heard at `now` (a frame, or a port just opened).
    pub(crate) fn heard(now: Duration) -> Self {
        Silence {
            last_heard: now,
            last_look: now,
        }
    }

    /// Looks at the clock: how long the board has been silent, the time the link was held up
    /// (a gap of [`HELD_UP`] or more since its previous look) left out.
    pub(crate) fn silent_for(&mut self, now: Duration) -> Duration {
        let gap = now.saturating_sub(self.last_look);
        if gap >= HELD_UP {
            self.last_heard = self.last_heard.saturating_add(gap).min(now);
        }
        self.last_look = now;
        now.saturating_sub(self.last_heard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_board_unheard_while_the_link_looks_is_silent_for_that_long() {
        let mut s = Silence::heard(ms(1_000));
        let mut silent = Duration::ZERO;
        for t in (1_050..=2_500).step_by(50) {
            silent = s.silent_for(ms(t));
        }
        assert_eq!(silent, ms(1_500));
    }

    /// The console stopped for 2 s, 100 ms after the board was last heard: on waking it
    /// has been silent for those 100 ms only, and from then on counts again.
    #[test]
    fn the_time_the_link_was_held_up_is_not_the_boards() {
        let mut s = Silence::heard(ms(1_000));
        assert_eq!(s.silent_for(ms(1_050)), ms(50));
        assert_eq!(s.silent_for(ms(1_100)), ms(100));
        assert_eq!(s.silent_for(ms(3_100)), ms(100));
        assert_eq!(s.silent_for(ms(3_150)), ms(150));
        // A tick late by less than the threshold is the board's time.
        assert_eq!(s.silent_for(ms(3_600)), ms(600));
    }
}
