//! Bounded line input for every line-oriented reader of the project (the referee's standard
//! input, keypad commands, board scripts, configuration files).
//!
//! A line longer than the limit is skipped up to its newline without being held in memory
//! and reported once; a line that is not UTF-8 is reported and the next line is read as
//! usual. A UTF-8 byte-order mark at the very start of the input is skipped. Whole files are
//! read only up to a size limit.

mod excerpt;
mod file;
mod reader;

pub use excerpt::{excerpt, excerpt_bytes, QUOTE_CHARS};
pub use file::{read_text, FileError, MAX_FILE};
pub use reader::{LineError, LineReader, MAX_LINE};
