//! Console side of the board link.
//!
//! [`BoardLink::spawn`] opens a board's serial port and hands back a stream of [`Report`]s:
//! sensor events ([`LinkEvent::Lift`] / [`LinkEvent::Place`]), occupancy snapshots, resyncs and
//! connection changes, each with the link's [`Health`] counters at that moment.
//!
//! The decisions (sequence gaps, duplicates, occupancy reconstruction, resync, timeouts) live
//! in [`LinkCore`], which takes the current time as a value and does no I/O, so they are unit
//! tested without a serial port; `spawn` only moves bytes between the port and the core.

mod board_clock;
mod core;
mod event;
mod io;
mod net;
mod progress;
mod silence;

pub use crate::core::{LinkCore, Step, Timing};
pub use crate::event::{DisconnectReason, Health, LinkEvent, NetKey, Report, ResyncReason};
pub use crate::io::{BoardLink, BoardLinkHandle, LinkConfig};
pub use crate::net::{NetInput, NetLink};
pub use crate::progress::Progress;
pub use kriegspiel_link::{square_name, FaultCode, SquareIndex};
