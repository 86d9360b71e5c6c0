//! The hall: many Kriegspiel tables in one process, each with its boards (serial or
//! simulated), its clock and its players' channels; the journal that survives a crash; the
//! PGN and event-log export. Front ends (the JSON-lines commands, the arbiter's window,
//! speakers) send commands and subscribe to events; none reaches into a table.

mod clock;
pub mod journal;
pub mod pgn;
mod service;
pub mod setup;
pub mod sim;
mod writer;

pub use clock::TableClock;
pub use journal::{
    code_matches, Beat, EventRow, GameId, GameRecord, Journal, JournalError, JournalEvent,
    SEAT_CODE_DIGITS,
};
pub use service::{
    board_input, check_input, fen, start, start_subscribed, view, BoardSeen, BoardSource,
    HallCommand, HallError, HallEvent, HallGone, HallHandle, InputError, Resume, RunningHall,
    SeatChange, SeatNotice, TableNo, TableSpec, TableView, TimeMode, SUBSCRIBER_QUEUE,
};
pub use setup::{SetupError, TableSetup};
/// The channel the hall's events come on (its receivers are part of this API).
pub use tokio::sync::broadcast;
