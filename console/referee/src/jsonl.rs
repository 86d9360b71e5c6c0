//! The scriptable referee protocol (docs/REFEREE.md): one JSON line in, one JSON line out.
//!
//! Pure: the `kriegspiel referee` command only moves lines between this and stdin/stdout, and
//! the console builds its answers with the same code. Every answer is an [`Answer`], whose
//! `Serialize` is the one rendering of the protocol's objects: written straight to a stream
//! by the referee command, or turned into a [`Value`](serde_json::Value) by the table (which
//! adds its own keys).
//!
//! Error messages quote at most [`bounded_lines::QUOTE_CHARS`] characters of the input.

mod answer;
mod command;
mod error;
mod session;

pub use answer::{error_value, reply_value, report_value, verdict_value, Answer};
pub use error::LineError;
pub use session::{Defaults, Session};

#[cfg(test)]
mod tests;
