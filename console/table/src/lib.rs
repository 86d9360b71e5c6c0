//! The table: the per-board try recognizer (docs/OVER-THE-BOARD.md §3) and the [`Table`] that
//! owns the referee, both recognizers and the table clock. Pure logic: every input is a
//! typed, timestamped [`Event`]; time is passed in, never read; replaying the same events
//! rebuilds the same table.

pub mod arbiter_words;
mod board_notice;
pub mod clock;
mod config;
mod error;
pub mod event_text;
pub mod game;
mod input;
mod output;
mod own_board;
mod recognizer;
pub mod render;
mod table;
mod time;
pub mod trace;

pub use board_notice::BoardNotice;
pub use clock::{Clock, TimeControl};
pub use config::{
    ClockStart, TableConfig, TouchMove, GUIDE_MS, GUIDE_RANGE, SETTLE_MS, SETTLE_RANGE,
};
pub use error::Error;
pub use game::{ArbiterAction, ArbiterNote, PublicMessage, TableEnd, Termination};
pub use input::{BoardInput, Event, Input};
pub use output::{role_name, Output, PrivateMessage};
pub use table::Table;
pub use time::Millis;

/// Re-exported so users name the same types the table uses.
pub use kriegspiel_referee;
pub use shakmaty;
