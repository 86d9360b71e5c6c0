//! The chess clock of one table: pure, time passed in.
//!
//! The clock of the side to move runs from the verdict that ended the opponent's turn,
//! through all his tries, and stops while the game is paused. A verdict that stands adds
//! the increment to the mover's time.

use core::fmt;
use core::str::FromStr;

use shakmaty::{ByColor, Color};

use crate::Millis;

/// Private low-time warnings, in milliseconds of remaining time.
pub const LOW_TIME_WARNINGS: [Millis; 2] = [60_000, 10_000];

/// Base time and increment per move, written `MINUTES+SECONDS` (`25+10`), or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeControl {
    /// No clock.
    #[default]
    None,
    Fischer {
        base_ms: Millis,
        increment_ms: Millis,
    },
}

/// A time control that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTimeControl(pub String);

impl fmt::Display for BadTimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad time control '{}': expected MINUTES+SECONDS (e.g. 25+10, 90+30, 5+0) or none",
            excerpt(&self.0)
        )
    }
}

impl std::error::Error for BadTimeControl {}

/// At most 40 characters of a bad value (the table crate has no I/O crates).
fn excerpt(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The longest base time accepted: a day.
const MAX_BASE_MIN: u64 = 24 * 60;
/// The longest increment accepted: an hour.
const MAX_INCREMENT_S: u64 = 3600;

impl FromStr for TimeControl {
    type Err = BadTimeControl;

    fn from_str(s: &str) -> Result<TimeControl, BadTimeControl> {
        let bad = || BadTimeControl(s.to_owned());
        if s == "none" || s == "-" {
            return Ok(TimeControl::None);
        }
        let (base, inc) = s.split_once('+').ok_or_else(bad)?;
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 5 && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(base) || !digits(inc) {
            return Err(bad());
        }
        let base: u64 = base.parse().map_err(|_| bad())?;
        let inc: u64 = inc.parse().map_err(|_| bad())?;
        if base == 0 || base > MAX_BASE_MIN || inc > MAX_INCREMENT_S {
            return Err(bad());
        }
        Ok(TimeControl::Fischer {
            base_ms: base * 60_000,
            increment_ms: inc * 1000,
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::None => f.write_str("none"),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => write!(f, "{}+{}", base_ms / 60_000, increment_ms / 1000),
        }
    }
}

impl TimeControl {
    /// The PGN `TimeControl` tag value: seconds, `base+increment`, or `-`.
    pub fn pgn(&self) -> String {
        match self {
            TimeControl::None => "-".to_owned(),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => format!("{}+{}", base_ms / 1000, increment_ms / 1000),
        }
    }
}

/// Both players' remaining time and which clock runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    increment: Millis,
    /// Remaining time at `since` for the running side, now for the other.
    remaining: ByColor<Millis>,
    /// The side whose clock runs (none: paused or game over), and since when.
    running: Option<(Color, Millis)>,
    /// Low-time warnings already given, per side (indices into [`LOW_TIME_WARNINGS`]).
    warned: ByColor<u8>,
}

impl Clock {
    /// A clock for `control`, or none without a time control.
    pub fn new(control: TimeControl) -> Option<Clock> {
        match control {
            TimeControl::None => None,
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => {
                // A warning at or above the base time would only say what everyone knows.
                let skipped = LOW_TIME_WARNINGS.iter().filter(|w| **w >= base_ms).count();
                let skipped = u8::try_from(skipped).unwrap_or(u8::MAX);
                Some(Clock {
                    increment: increment_ms,
                    remaining: ByColor::new_with(|_| base_ms),
                    running: None,
                    warned: ByColor::new_with(|_| skipped),
                })
            }
        }
    }

    /// Remaining time of each side at `now`.
    pub fn remaining_at(&self, now: Millis) -> ByColor<Millis> {
        let mut r = self.remaining;
        if let Some((side, since)) = self.running {
            r[side] = r[side].saturating_sub(now.saturating_sub(since));
        }
        r
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// Starts `side`'s clock at `now` (the other stands).
    pub fn start(&mut self, side: Color, now: Millis) {
        self.stop(now);
        self.running = Some((side, now));
    }

    /// Stops whichever clock runs, keeping its time.
    pub fn stop(&mut self, now: Millis) {
        self.remaining = self.remaining_at(now);
        self.running = None;
    }

    /// A move stood: the mover gets his increment and the opponent's clock starts.
    pub fn moved(&mut self, mover: Color, now: Millis) {
        self.stop(now);
        self.remaining[mover] = self.remaining[mover].saturating_add(self.increment);
        self.running = Some((!mover, now));
    }

    /// Sets both remaining times (an arbiter's correction or a take-back restoring them).
    pub fn set_remaining(&mut self, remaining: ByColor<Millis>, now: Millis) {
        let side = self.running();
        self.remaining = remaining;
        self.running = side.map(|s| (s, now));
    }

    /// When the running side's flag falls.
    pub fn flag_due(&self) -> Option<Millis> {
        self.running
            .map(|(side, since)| since.saturating_add(self.remaining[side]))
    }

    /// When the running side passes its next low-time warning.
    pub fn warning_due(&self) -> Option<Millis> {
        let (side, since) = self.running?;
        let next = *LOW_TIME_WARNINGS.get(usize::from(self.warned[side]))?;
        let left = self.remaining[side];
        Some(since.saturating_add(left.saturating_sub(next)))
    }

    /// The warnings passed by `now` that were not given yet, in seconds; marks them given.
    pub fn take_warnings(&mut self, now: Millis) -> Vec<(Color, Millis)> {
        let left = self.remaining_at(now);
        let mut out = Vec::new();
        for side in Color::ALL {
            while let Some(&limit) = LOW_TIME_WARNINGS.get(usize::from(self.warned[side])) {
                if left[side] > limit {
                    break;
                }
                self.warned[side] += 1;
                // A warning passed long ago (a base below it) is not worth saying twice.
                if left[side] > 0 {
                    out.push((side, limit / 1000));
                }
            }
        }
        // Several thresholds passed at once: say only the lowest per side.
        out.dedup_by(|later, earlier| {
            later.0 == earlier.0 && {
                earlier.1 = later.1;
                true
            }
        });
        out
    }

    /// Whether `side`'s flag has fallen at `now`.
    pub fn flag_fallen(&self, side: Color, now: Millis) -> bool {
        self.remaining_at(now)[side] == 0
    }
}

/// `h:mm:ss` of a time (PGN `%clk`, the arbiter's view).
pub fn hms(ms: Millis) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_write() {
        assert_eq!(
            "25+10".parse(),
            Ok(TimeControl::Fischer {
                base_ms: 1_500_000,
                increment_ms: 10_000
            })
        );
        assert_eq!("none".parse(), Ok(TimeControl::None));
        for s in ["25+10", "5+0", "none", "90+30"] {
            assert_eq!(s.parse::<TimeControl>().unwrap().to_string(), s);
        }
        for bad in [
            "", "25", "+10", "0+5", "25+", "-5+1", "2000+0", "25+4000", "1e3+1", "a+b",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        assert_eq!("25+10".parse::<TimeControl>().unwrap().pgn(), "1500+10");
        assert_eq!(hms(3_725_999), "1:02:05");
    }

    #[test]
    fn the_side_to_move_runs_and_the_mover_gets_his_increment() {
        let mut c = Clock::new("1+2".parse().unwrap()).unwrap();
        c.start(Color::White, 0);
        assert_eq!(c.remaining_at(10_000).white, 50_000);
        c.moved(Color::White, 10_000);
        assert_eq!(c.remaining_at(10_000).white, 52_000);
        assert_eq!(c.running(), Some(Color::Black));
        assert_eq!(c.flag_due(), Some(70_000));
        c.stop(20_000);
        assert_eq!(c.remaining_at(99_000).black, 50_000);
        assert_eq!(c.flag_due(), None);
        c.start(Color::Black, 100_000);
        assert!(!c.flag_fallen(Color::Black, 149_999));
        assert!(c.flag_fallen(Color::Black, 150_000));
    }

    #[test]
    fn low_time_warnings_come_once_each() {
        let mut c = Clock::new("1+0".parse().unwrap()).unwrap();
        c.start(Color::White, 0);
        assert_eq!(c.warning_due(), Some(50_000), "no warning at the base time");
        let mut c = Clock::new("2+0".parse().unwrap()).unwrap();
        c.start(Color::White, 0);
        assert_eq!(c.warning_due(), Some(60_000));
        assert!(c.take_warnings(59_999).is_empty());
        assert_eq!(c.take_warnings(60_000), [(Color::White, 60)]);
        assert!(c.take_warnings(60_001).is_empty());
        assert_eq!(c.warning_due(), Some(110_000));
        // Passing both at once says the lower.
        let mut c = Clock::new("2+0".parse().unwrap()).unwrap();
        c.start(Color::Black, 0);
        assert_eq!(c.take_warnings(115_000), [(Color::Black, 10)]);
        assert_eq!(c.warning_due(), None);
    }
}
