//! The switches of a real board on a Raspberry Pi's GPIO header (rppal).

use std::convert::Infallible;
use std::fmt;

use kriegspiel_board_core::{Occupancy, Scanner};
use reed_matrix::{MatrixConfig, ReedMatrix, ShiftConfig, ShiftRegisterBoard};
use rppal::gpio::{Gpio, InputPin, OutputPin};
use rppal::hal::Delay;

use crate::config::Wiring;

/// The GPIO could not be set up (not a Raspberry Pi, no permission, pin busy).
#[derive(Debug)]
pub enum GpioError {
    Open(rppal::gpio::Error),
    Pin {
        bcm: u8,
        source: rppal::gpio::Error,
    },
    /// A matrix side did not come out as eight pins.
    PinCount,
}

impl fmt::Display for GpioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpioError::Open(source) => write!(
                f,
                "cannot open the Raspberry Pi GPIO: {source} (is this a Raspberry Pi, and may this user use /dev/gpiomem? off a Pi, use `simulate`)"
            ),
            GpioError::Pin { bcm, source } => write!(f, "cannot use GPIO BCM {bcm}: {source}"),
            GpioError::PinCount => f.write_str("a matrix needs exactly eight row and eight column pins"),
        }
    }
}

impl std::error::Error for GpioError {}

/// The board's switches behind whichever wiring the config names.
#[derive(Debug)]
pub enum PiScanner {
    // Boxed: rppal pins are large and the two variants differ a lot in size.
    Matrix(Box<ReedMatrix<OutputPin, InputPin, Delay>>),
    ShiftRegister(Box<ShiftRegisterBoard<OutputPin, OutputPin, InputPin, Delay>>),
}

impl PiScanner {
    /// Claims the configured pins: rows/LOAD as outputs idling high, CLK low, columns/DATA
    /// as inputs with the Pi's internal pull-ups.
    pub fn open(wiring: &Wiring) -> Result<PiScanner, GpioError> {
        let gpio = Gpio::new().map_err(GpioError::Open)?;
        let get = |bcm: u8| {
            gpio.get(bcm)
                .map_err(|source| GpioError::Pin { bcm, source })
        };
        match wiring {
            Wiring::Matrix(m) => {
                let mut rows = Vec::with_capacity(8);
                for bcm in m.rows {
                    rows.push(get(bcm)?.into_output_high());
                }
                let mut cols = Vec::with_capacity(8);
                for bcm in m.cols {
                    cols.push(get(bcm)?.into_input_pullup());
                }
                let (Ok(rows), Ok(cols)) = (
                    <[OutputPin; 8]>::try_from(rows),
                    <[InputPin; 8]>::try_from(cols),
                ) else {
                    return Err(GpioError::PinCount);
                };
                let config = MatrixConfig {
                    settle_us: m.settle_us,
                };
                let matrix = ReedMatrix::new(rows, cols, Delay::new(), config);
                Ok(PiScanner::Matrix(Box::new(matrix)))
            }
            Wiring::ShiftRegister(s) => {
                let load = get(s.load)?.into_output_high();
                let clk = get(s.clk)?.into_output_low();
                let data = get(s.data)?.into_input_pullup();
                let config = ShiftConfig {
                    pulse_ns: s.pulse_ns,
                };
                let chain = ShiftRegisterBoard::new(load, clk, data, Delay::new(), config);
                Ok(PiScanner::ShiftRegister(Box::new(chain)))
            }
        }
    }
}

impl Scanner for PiScanner {
    type Error = reed_matrix::Error<Infallible>;
    fn scan(&mut self) -> Result<Occupancy, Self::Error> {
        match self {
            PiScanner::Matrix(m) => m.scan(),
            PiScanner::ShiftRegister(s) => s.scan(),
        }
    }
}
