//! The board program's logic, independent of the hardware it runs on.
//!
//! [`Board`] owns a [`Scanner`] (a reed matrix, a 74HC165 chain or simulated pins) and a
//! [`FrameWriter`] (a UART, a USB gadget, a pseudo-terminal). The caller runs
//! [`Board::tick`] at the scan rate with the board clock in milliseconds, and hands every
//! byte received from the console to [`Board::receive`]. Nothing here reads a clock or
//! sleeps, so the same code runs on a microcontroller, a Raspberry Pi and in tests.
//!
//! [`SelfTest`] is the per-square hardware check of `hardware/README.md`.
#![no_std]

#[cfg(test)]
extern crate std;

mod board;
mod selftest;

pub use board::{
    Board, BoardConfig, BoardError, FrameWriter, Stats, DEBOUNCE_SCANS_RANGE, HEARTBEAT_AFTER_MS,
    SCAN_HZ_RANGE, SNAPSHOT_EVERY_MS,
};
pub use reed_matrix::{Occupancy, Scanner, Square};
pub use selftest::{Prompt, SelfTest, SelfTestReport, CHATTER_GLITCHES};

/// This firmware's version, sent in the Hello.
pub const FIRMWARE_VERSION: [u8; 3] = [0, 1, 0];
