//! The board program: reed switches -> `kriegspiel-link` frames on a serial port.
//!
//! `main.rs` only parses the command line; the commands live here so tests can reach them.

pub mod config;
pub mod dgt;
pub mod pacer;
pub mod pi;
pub mod script;
pub mod selftest;
pub mod serial;
pub mod simulate;
pub mod stop;
