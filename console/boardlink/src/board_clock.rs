//! A board's own clock, mapped onto the link's.
//!
//! A frame's arrival says when it was made only as well as it was carried and read: a
//! broker that queued it, a Wi-Fi hiccup, or a console starved of the processor for a
//! second (a serial line's bytes then wait in the port's buffer) brings a stretch of play
//! at once, and a table that timed it by arrival would see a lift, a place and the next try
//! in the same instant. Every frame also carries the board's own time; the board's clock
//! and the link's differ by a fixed amount (and a crystal's slow drift), which the fastest
//! frames show: the least of "arrival minus board time" over the recent frames. Each frame
//! is then timed by its board time plus that difference.

use std::time::Duration;

use kriegspiel_link::BoardMs;

/// How much later (ms a second) the mapping may move when no frame is as fast as the one
/// that set it: a board whose clock runs slow (a microcontroller's ceramic resonator is off
/// by up to 0.5 %, a crystal by far less) is followed, and the few seconds a console is held
/// up misplace its frames by no more than this a second.
const DRIFT_MS_PER_S: i64 = 20;
/// A board time this far off the mapping is another clock (the board restarted).
const ANOTHER_CLOCK_MS: i64 = 60_000;

/// The mapping of one board's clock onto the link's, from the frames heard so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BoardClock {
    /// The latest board time, as sent and unwrapped (it wraps after ~49 days).
    last: Option<(BoardMs, i64)>,
    /// Link time minus board time of the fastest recent frame (ms), and its link time.
    offset: Option<(i64, i64)>,
}

impl BoardClock {
    /// Forgets the board's clock: a new epoch, a reopened port or a board that restarted
    /// may count from another moment.
    pub(crate) fn reset(&mut self) {
        *self = BoardClock::default();
    }

    /// When, on the link's clock, a frame with board time `board_ms` was made, given when
    /// its arrival says it was (`heard`): never later than that.
    pub(crate) fn place(&mut self, heard: Duration, board_ms: BoardMs) -> Duration {
        let heard_ms = i64::try_from(heard.as_millis()).unwrap_or(i64::MAX);
        let board = match self.last {
            // A signed step: a lift's time is when the switch began to change, which may
            // be before the heartbeat sent just ahead of it.
            Some((raw, unwrapped)) => unwrapped + i64::from(board_ms.wrapping_sub(raw) as i32),
            None => i64::from(board_ms),
        };
        self.last = Some((board_ms, board));
        let sample = heard_ms.saturating_sub(board);
        let drifted = self
            .offset
            .map(|(base, at)| base + (heard_ms - at).max(0) / 1000 * DRIFT_MS_PER_S);
        let offset = match drifted {
            Some(o) if o < sample && sample - o <= ANOTHER_CLOCK_MS => o,
            Some(o) if o >= sample && o - sample <= ANOTHER_CLOCK_MS => {
                self.offset = Some((sample, heard_ms));
                sample
            }
            // The first frame, or another clock: start again from this one.
            _ => {
                self.offset = Some((sample, heard_ms));
                self.last = Some((board_ms, i64::from(board_ms)));
                return heard;
            }
        };
        Duration::from_millis(u64::try_from(board.saturating_add(offset)).unwrap_or(0)).min(heard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Frames held back together (a console starved for 3 s, a broker's queue) keep the
    /// spacing the board gave them, not the instant they came in.
    #[test]
    fn frames_that_come_in_at_once_keep_the_boards_spacing() {
        let mut c = BoardClock::default();
        // Board time 500 at link time 10,000; frames quick for a while.
        for k in 0..10 {
            assert_eq!(
                c.place(ms(10_000 + k * 200 + 3), 500 + k as u32 * 200),
                ms(10_000 + k * 200 + 3)
            );
        }
        // Then three frames made 20 ms apart all arrive at link time 15,000.
        let placed: Vec<_> = [4_000, 4_020, 4_040]
            .into_iter()
            .map(|b| c.place(ms(15_000), b))
            .collect();
        // Timed 20 ms apart, 1.4 s before they came (60 ms of allowed drift since).
        assert_eq!(placed, [ms(13_563), ms(13_583), ms(13_603)]);
    }

    #[test]
    fn a_faster_frame_lowers_the_mapping_and_a_slow_one_never_raises_it_at_once() {
        let mut c = BoardClock::default();
        assert_eq!(c.place(ms(1_050), 1_000), ms(1_050));
        // 10 ms quicker than the first: the mapping follows it.
        assert_eq!(c.place(ms(1_240), 1_200), ms(1_240));
        assert_eq!(c.place(ms(1_900), 1_400), ms(1_440));
    }

    /// A board clock running slow or fast against the link's is followed.
    #[test]
    fn drift_is_followed() {
        for (slow, fast) in [(1u64, 0u64), (0, 1)] {
            let mut c = BoardClock::default();
            let (mut last, mut arrival) = (Duration::ZERO, Duration::ZERO);
            for s in 1..=600u64 {
                // A frame a second, 5 ms on the way; the board's clock 0.5 % off (a
                // ceramic resonator's worst).
                let t = s * 1_000;
                let board = t + fast * t / 200 - slow * t / 200;
                arrival = ms(t + 5);
                last = c.place(arrival, u32::try_from(board).unwrap());
            }
            // Ten minutes on, the board's clock is 3 s off: the mapping has followed it.
            assert!(arrival - last < ms(3), "{last:?} against {arrival:?}");
        }
    }

    #[test]
    fn the_board_ms_wrap_is_taken_in_stride() {
        let mut c = BoardClock::default();
        assert_eq!(c.place(ms(100_000), u32::MAX - 99), ms(100_000));
        assert_eq!(c.place(ms(100_200), 100), ms(100_200));
        assert_eq!(c.place(ms(101_000), 300), ms(100_400));
    }

    /// A board time far from the mapping (a board that restarted) starts it again.
    #[test]
    fn another_clock_starts_again() {
        let mut c = BoardClock::default();
        assert_eq!(c.place(ms(500_000), 400_000), ms(500_000));
        assert_eq!(c.place(ms(501_000), 20), ms(501_000));
        assert_eq!(c.place(ms(502_500), 1_000), ms(502_000));
    }
}
