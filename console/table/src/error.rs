//! The one error type of the table crate.

use core::fmt;

use crate::config::{GUIDE_RANGE, SETTLE_RANGE};

/// Why a table could not be set up or a trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The referee refused the game (rules, options, FEN, set-up).
    Referee(kriegspiel_referee::Error),
    SettleOutOfRange(u32),
    GuideOutOfRange(u32),
    BadTouchMove(String),
    BadClockStart(String),
    /// A trace file line that does not follow docs/TRACE-FORMAT.md.
    Trace {
        line: usize,
        message: String,
    },
}

impl From<kriegspiel_referee::Error> for Error {
    fn from(e: kriegspiel_referee::Error) -> Error {
        Error::Referee(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Referee(e) => write!(f, "{e}"),
            Error::SettleOutOfRange(ms) => write!(
                f,
                "settle time {ms} ms is outside {}..={} ms",
                SETTLE_RANGE.start(),
                SETTLE_RANGE.end()
            ),
            Error::GuideOutOfRange(ms) => write!(
                f,
                "guidance delay {ms} ms is outside {}..={} ms",
                GUIDE_RANGE.start(),
                GUIDE_RANGE.end()
            ),
            Error::BadTouchMove(s) => {
                write!(
                    f,
                    "unknown touch-move mode '{s}' (known: strict, warn, off)"
                )
            }
            Error::BadClockStart(s) => write!(
                f,
                "unknown clock start '{s}' (known: arbiter, boards, at-once)"
            ),
            Error::Trace { line, message } => write!(f, "trace line {line}: {message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Referee(e) => Some(e),
            Error::SettleOutOfRange(_)
            | Error::GuideOutOfRange(_)
            | Error::BadTouchMove(_)
            | Error::BadClockStart(_)
            | Error::Trace { .. } => None,
        }
    }
}
