//! How far a board's stream has come, for a table that must not run ahead of it: a timer
//! (a settle window, a flag) due after a move the board made but the console has not read
//! yet would be judged before that move.

use std::time::Duration;

/// A frame read more than this after it was made is part of a backlog: more are on their
/// way (a networked board's kept frames, or a serial port's bytes after the console was
/// held up).
const LATE: Duration = Duration::from_millis(250);

/// How far a board's stream has come (serial and networked boards; none for boards in the
/// same process, which are never late).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// When (link clock) the board made the latest frame whose reports were handed over:
    /// everything it made before is here. `None` before its first frame.
    pub through: Option<Duration>,
    /// The latest frame came late: more are on their way.
    pub behind: bool,
    /// Nothing is on its way, nobody waits for it: the board stopped cleanly, or its serial
    /// port closed (what it held is gone).
    pub stopped: bool,
}

impl Progress {
    /// Once the reports of every frame made through `through` are handed over, the latest
    /// read at `read` (both on the link's clock).
    pub(crate) fn delivered(through: Option<Duration>, read: Duration) -> Progress {
        Progress {
            through,
            behind: through.is_some_and(|made| read.saturating_sub(made) > LATE),
            stopped: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_read_long_after_it_was_made_means_more_are_coming() {
        let ms = Duration::from_millis;
        assert!(!Progress::delivered(Some(ms(1000)), ms(1250)).behind);
        assert!(Progress::delivered(Some(ms(1000)), ms(1251)).behind);
        let none = Progress::delivered(None, ms(5000));
        assert_eq!(none, Progress::default());
    }
}
