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

impl<E: core::fmt::Display> core::fmt::Display for Error<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Output(e) => write!(f, "an output pin (row, LOAD or CLK) failed: {e}"),
            Error::Input(e) => write!(f, "an input pin (column or DATA) could not be read: {e}"),
        }
    }
}

impl<E: core::fmt::Debug + core::fmt::Display> core::error::Error for Error<E> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn errors_say_which_pin_failed_in_words() {
        let e: Error<embedded_hal::digital::ErrorKind> =
            Error::Input(embedded_hal::digital::ErrorKind::Other);
        let text = e.to_string();
        assert!(
            text.starts_with("an input pin (column or DATA) could not be read: "),
            "{text}"
        );
        assert!(!text.contains("Input("), "{text}");
        let e: Error<&str> = Error::Output("stuck low");
        assert_eq!(
            e.to_string(),
            "an output pin (row, LOAD or CLK) failed: stuck low"
        );
        let boxed: &dyn core::error::Error = &e;
        assert_eq!(boxed.to_string(), e.to_string());
    }
}
