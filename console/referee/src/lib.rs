//! The Kriegspiel rules core: one official position, seven rule sets, and every
//! announcement as a typed value with its audience. No I/O: the console, the scriptable
//! referee and the tests all drive this same code.

mod announce;
mod error;
pub mod jsonl;
mod own_board;
mod referee;
mod rules;
mod setup;
mod wording;

pub use announce::{
    Announcement, Audience, Capture, CheckKind, Checks, End, EndReason, GameResult, Man, PawnTries,
    Question, Refusal, RefusalKind, Reply, Report, Try, UnknownQuestion, Verdict,
};
pub use error::Error;
pub use own_board::{has_own_board_try, own_board_targets, own_board_targets_on};
pub use referee::{GameConfig, Referee};
pub use rules::{Lang, Notation, OptionValue, Options, RuleSet, TrySquares};
pub use setup::{position_from_fen, validate_russian, SetupError};
pub use wording::Wording;

/// Re-exported so users name the same chess types the referee uses.
pub use shakmaty;
