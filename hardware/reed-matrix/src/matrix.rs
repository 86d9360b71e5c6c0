use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};

use crate::{Error, Occupancy, Scanner};

/// Timing of a matrix scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixConfig {
    /// Wait between pulling a row low and reading the columns, in microseconds: the
    /// column pull-ups must charge the wiring's capacitance back after the previous row.
    pub settle_us: u32,
}

impl Default for MatrixConfig {
    /// 10 µs: ample for internal pull-ups (~50 kΩ) on a board's worth of wire.
    fn default() -> Self {
        MatrixConfig { settle_us: 10 }
    }
}

/// An 8×8 reed-switch matrix with one diode per switch.
///
/// Polarity: row `r` is rank `r + 1`, column `c` is file `a + c`. Rows idle HIGH and are
/// driven LOW one at a time; columns are inputs with pull-ups. A closed switch on
/// (row r, column c) conducts through its diode (cathode towards the row) into the low
/// row, so column c reads LOW while row r is strobed: LOW = magnet present. The diodes
/// stop current flowing back through other closed switches (ghosting, see
/// `hardware/README.md`).
#[derive(Debug)]
pub struct ReedMatrix<R, C, D> {
    rows: [R; 8],
    cols: [C; 8],
    delay: D,
    config: MatrixConfig,
    /// False until every row has been driven high once (and after a failed scan), so a
    /// row left low by a reset or an error never strobes two rows at once.
    rows_idle: bool,
}

impl<R, C, D> ReedMatrix<R, C, D> {
    /// Takes ownership of the pins and the delay; no pin is touched until the first scan.
    pub fn new(rows: [R; 8], cols: [C; 8], delay: D, config: MatrixConfig) -> Self {
        ReedMatrix {
            rows,
            cols,
            delay,
            config,
            rows_idle: false,
        }
    }

    /// Gives the pins and the delay back.
    pub fn destroy(self) -> ([R; 8], [C; 8], D) {
        (self.rows, self.cols, self.delay)
    }

    /// The timing in use.
    pub fn config(&self) -> MatrixConfig {
        self.config
    }
}

impl<R, C, D, E> ReedMatrix<R, C, D>
where
    R: OutputPin<Error = E>,
    C: InputPin<Error = E>,
    D: DelayNs,
{
    /// Reads all 64 switches: for each rank, strobe its row low, wait `settle_us`, read the
    /// eight columns, release the row.
    pub fn scan(&mut self) -> Result<Occupancy, Error<E>> {
        if !self.rows_idle {
            for row in self.rows.iter_mut() {
                row.set_high().map_err(Error::Output)?;
            }
            self.rows_idle = true;
        }
        let mut bits = 0u64;
        for rank in 0..8 {
            let result = self.scan_row(rank);
            match result {
                Ok(byte) => bits |= u64::from(byte) << (8 * rank),
                Err(e) => {
                    self.rows_idle = false;
                    return Err(e);
                }
            }
        }
        Ok(Occupancy(bits))
    }

    fn scan_row(&mut self, rank: usize) -> Result<u8, Error<E>> {
        let row = &mut self.rows[rank];
        row.set_low().map_err(Error::Output)?;
        self.delay.delay_us(self.config.settle_us);
        let mut byte = 0u8;
        for (file, col) in self.cols.iter_mut().enumerate() {
            if col.is_low().map_err(Error::Input)? {
                byte |= 1 << file;
            }
        }
        row.set_high().map_err(Error::Output)?;
        Ok(byte)
    }
}

impl<R, C, D, E> Scanner for ReedMatrix<R, C, D>
where
    R: OutputPin<Error = E>,
    C: InputPin<Error = E>,
    D: DelayNs,
    E: core::fmt::Debug,
{
    type Error = Error<E>;
    fn scan(&mut self) -> Result<Occupancy, Error<E>> {
        ReedMatrix::scan(self)
    }
}
