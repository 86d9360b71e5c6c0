//! Driver for an 8×8 reed-switch chess board on embedded-hal 1.0 pins.
//!
//! Two wirings are supported (see `hardware/README.md`):
//! - [`ReedMatrix`]: a diode matrix, 8 row outputs strobed low one at a time, 8 column
//!   inputs with pull-ups (a closed switch reads low);
//! - [`ShiftRegisterBoard`]: 64 direct inputs through eight daisy-chained 74HC165s.
//!
//! Both return an [`Occupancy`] (bit i = square i, a1 = 0, b1 = 1, …, h8 = 63) and implement
//! [`Scanner`], so board logic is written once. The [`Debouncer`] turns raw scans into
//! [`SwitchEvent`]s; [`sim`] is a simulated pin board for tests, benches and the simulator.
#![no_std]

#[cfg(test)]
extern crate std;

mod debounce;
mod matrix;
mod occupancy;
mod shift;
pub mod sim;

pub use debounce::{Debouncer, SwitchEvent, SwitchEvents, MAX_DEBOUNCE_SCANS};
pub use matrix::{MatrixConfig, ReedMatrix};
pub use occupancy::{Occupancy, Square, Squares};
pub use shift::{ShiftConfig, ShiftRegisterBoard};

/// Anything that can read the whole board at once.
///
/// Board logic is generic over this, so the same firmware runs on a diode matrix, a
/// shift-register chain or simulated pins.
pub trait Scanner {
    /// The error of one failed scan.
    type Error: core::fmt::Debug;
    /// Reads every switch once; a closed switch (magnet present) is a set bit.
    fn scan(&mut self) -> Result<Occupancy, Self::Error>;
}

/// The driver's one error type, generic over the pin error `E`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error<E> {
    /// A row (or LOAD/CLK) output pin failed to change level.
    Output(E),
    /// A column (or DATA) input pin could not be read.
    Input(E),
}
