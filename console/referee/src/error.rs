//! The one error type of the referee.

use core::fmt;

use bounded_lines::excerpt;

use crate::setup::SetupError;

/// Why a command was not carried out. The game is always left as it was. Messages quote at
/// most [`bounded_lines::QUOTE_CHARS`] characters of any input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    UnknownRules(String),
    BadOption(String),
    BadFen(String),
    BadSetup(SetupError),
    BadMove(String),
    BadLang(String),
    GameOver,
}

impl Error {
    /// The protocol's error code (docs/REFEREE.md).
    pub const fn code(&self) -> &'static str {
        match self {
            Error::UnknownRules(_) => "unknown-rules",
            Error::BadOption(_) | Error::BadLang(_) => "bad-option",
            Error::BadFen(_) => "bad-fen",
            Error::BadSetup(_) => "bad-setup",
            Error::BadMove(_) => "bad-move",
            Error::GameOver => "game-over",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownRules(id) => write!(
                f,
                "unknown rule set '{}' (known: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian)",
                excerpt(id)
            ),
            Error::BadOption(why) => f.write_str(why),
            Error::BadFen(why) => write!(f, "bad FEN: {why}"),
            Error::BadSetup(why) => write!(f, "bad set-up: {why}"),
            Error::BadMove(why) => f.write_str(why),
            Error::BadLang(l) => write!(f, "unknown language '{}' (known: en, fr, ru)", excerpt(l)),
            Error::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for Error {}
