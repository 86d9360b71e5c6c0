//! DGT electronic chess boards as player boards: see `docs/DGT.md`.
//!
//! [`DgtBoard::open`] drives one board on a serial port (or `dgt:auto`) and hands back a
//! stream of [`Report`]s: [`DgtEvent::Connected`] / [`DgtEvent::Back`] with the board's
//! [`Identity`], a [`DgtEvent::Position`] each time the board settles in a new placement
//! (64 squares, each empty, a man, or a foreign object, read through the board's
//! [`Orientation`]), and [`DgtEvent::Lost`] when it stops answering.
//!
//! The pure parts take the time as a value and do no I/O: the framing ([`frame`]), the
//! piece codes and field numbering ([`codes`]), the settle, pulse, pacing and back-off
//! policies ([`policy`]) and the whole protocol ([`DgtCore`]).

pub mod codes;
mod core;
mod event;
pub mod frame;
mod io;
pub mod policy;
mod rawlog;

pub use crate::codes::{Code, Content, Orientation, Placement};
pub use crate::core::{DgtCore, Settings, Step};
pub use crate::event::{
    Counters, DgtEvent, Identity, LostReason, Orientations, OrientationsError, Report,
};
pub use crate::io::{
    auto_candidates, find_board, open_port, probe, DgtBoard, DgtHandle, DgtOptions, DgtPort,
    PortSpecError, BAUD, PROBE_WAIT,
};
pub use crate::policy::{LinkKind, Timing};
pub use crate::rawlog::{Direction, RawEntry, RawLog};
