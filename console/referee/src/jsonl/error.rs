//! The protocol's error answer: a line that was not carried out, and why.

use std::fmt;

use crate::Error;

/// A protocol error answer: the game stays as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub code: &'static str,
    pub message: String,
}

impl LineError {
    pub fn new(code: &'static str, message: impl Into<String>) -> LineError {
        LineError {
            code,
            message: message.into(),
        }
    }

    /// The answer to a line the reader could not use: too long (`line-too-long`, the line
    /// was skipped unread) or not UTF-8 (`bad-json`).
    pub fn from_input(e: &bounded_lines::LineError) -> LineError {
        match e {
            bounded_lines::LineError::TooLong { .. } => {
                LineError::new("line-too-long", e.to_string())
            }
            bounded_lines::LineError::NotUtf8 { .. } => {
                LineError::new("bad-json", format!("the line is not UTF-8: {e}"))
            }
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for LineError {}

impl From<Error> for LineError {
    fn from(e: Error) -> LineError {
        LineError::new(e.code(), e.to_string())
    }
}
