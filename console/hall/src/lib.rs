//! The hall: many Kriegspiel tables in one process, each with its boards (serial, DGT
//! e-boards, networked through an MQTT broker, or simulated), its clock and its players' channels; the journal that survives a crash; the
//! PGN and event-log export. Front ends (the JSON-lines commands, the arbiter's window,
//! speakers) send commands and subscribe to events; none reaches into a table.

mod arrival;
mod clock;
pub mod dgt_board;
mod error;
mod event;
mod handle;
mod heartbeat;
pub mod journal;
mod network;
pub mod pgn;
pub mod private_file;
mod resume;
mod service;
pub mod setup;
pub mod sim;
mod spec;
mod summary;
mod table_task;
mod writer;

pub use clock::TableClock;
pub use error::HallError;
pub use event::{
    fen, BoardSeen, BrokerNotice, HallCommand, HallEvent, SeatChange, SeatNotice, TableView,
};
pub use handle::{check_input, HallGone, HallHandle, InputError, RunningHall, SUBSCRIBER_QUEUE};
pub use journal::{
    code_matches, Beat, EventRow, GameId, GameRecord, Journal, JournalError, JournalEvent, Stamp,
    SEAT_CODE_DIGITS,
};
pub use network::NetworkSpec;
pub use resume::resuming;
pub use service::{follower, start, Hall, Subscriber};
pub use setup::{SetupError, TableSetup};
pub use spec::{BoardSource, Resume, TableNo, TableSpec, TimeMode};
pub use summary::{
    Both, RecentLine, RoundNews, SummaryClocks, SummaryError, TableSummary, MAX_SUMMARY,
    RECENT_LINES,
};
/// The channel the hall's events come on (its receivers are part of this API).
pub use tokio::sync::broadcast;
