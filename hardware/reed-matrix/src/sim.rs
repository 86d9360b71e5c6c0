//! A simulated reed board behind real embedded-hal pins.
//!
//! The simulator, the self-test's scripted mode, tests and benches drive the real
//! [`ReedMatrix`](crate::ReedMatrix) / [`ShiftRegisterBoard`](crate::ShiftRegisterBoard)
//! drivers through these pins, so everything above the pins is the production code.
//! Magnets are set with [`PinBoard::set_magnets`]; hardware faults (dead switches, shorts,
//! chatter, missing diodes) can be injected to exercise the self-test.

use core::cell::Cell;
use core::convert::Infallible;

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType, InputPin, OutputPin};

use crate::{Occupancy, Square};

/// Most shorted pairs a [`PinBoard`] can model.
pub const MAX_SHORTS: usize = 8;

/// The shared electrical state behind the simulated pins (single-threaded: `Cell`s).
#[derive(Debug, Default)]
pub struct PinBoard {
    magnets: Cell<u64>,
    dead: Cell<u64>,
    chatter: Cell<u64>,
    shorts: Cell<[Option<(Square, Square)>; MAX_SHORTS]>,
    no_diodes: Cell<bool>,
    /// Rows currently driven low (bit r = row r).
    rows_low: Cell<u8>,
    /// Counts scans (row 0 strobes / LOAD pulses); odd scans open chattering switches.
    scans: Cell<u32>,
    /// 74HC165 chain: latched inputs, shifted MSB (square 63) first.
    latch: Cell<u64>,
    clk_high: Cell<bool>,
}

impl PinBoard {
    /// An empty board with healthy switches and diodes.
    pub fn new() -> Self {
        PinBoard::default()
    }

    /// Puts magnets exactly on the squares of `magnets`.
    pub fn set_magnets(&self, magnets: Occupancy) {
        self.magnets.set(magnets.0);
    }

    /// Where the magnets are now.
    pub fn magnets(&self) -> Occupancy {
        Occupancy(self.magnets.get())
    }

    /// Places or lifts one magnet.
    pub fn set_magnet(&self, square: Square, present: bool) {
        let mut m = self.magnets();
        m.set(square, present);
        self.set_magnets(m);
    }

    /// These switches never close (broken glass, cut wire).
    pub fn set_dead(&self, dead: Occupancy) {
        self.dead.set(dead.0);
    }

    /// These switches, when closed, read open on every other scan.
    pub fn set_chatter(&self, chatter: Occupancy) {
        self.chatter.set(chatter.0);
    }

    /// Wires `a` and `b` together: a magnet on either closes both. False when full.
    pub fn add_short(&self, a: Square, b: Square) -> bool {
        let mut shorts = self.shorts.get();
        let Some(slot) = shorts.iter_mut().find(|s| s.is_none()) else {
            return false;
        };
        *slot = Some((a, b));
        self.shorts.set(shorts);
        true
    }

    /// Builds the matrix without diodes, so closed switches ghost onto open ones.
    pub fn set_no_diodes(&self, no_diodes: bool) {
        self.no_diodes.set(no_diodes);
    }

    /// Scans seen so far (row 0 strobes plus LOAD pulses).
    pub fn scans(&self) -> u32 {
        self.scans.get()
    }

    /// The switches that conduct right now, faults included.
    pub fn closed_switches(&self) -> Occupancy {
        let mut closed = self.magnets.get() & !self.dead.get();
        for (a, b) in self.shorts.get().into_iter().flatten() {
            let pair = (1u64 << a.index()) | (1u64 << b.index());
            if closed & pair != 0 {
                closed |= pair;
            }
        }
        if self.scans.get() % 2 == 1 {
            closed &= !self.chatter.get();
        }
        Occupancy(closed)
    }

    /// Columns pulled low by the rows driven low now (bit c = column c).
    fn columns_low(&self) -> u8 {
        let closed = self.closed_switches();
        let conn = |row: u8| closed.rank_bits(row);
        let driven = self.rows_low.get();
        let mut cols = 0u8;
        for row in 0..8 {
            if driven & (1 << row) != 0 {
                cols |= conn(row);
            }
        }
        if !self.no_diodes.get() {
            return cols;
        }
        // Without diodes current also flows backwards: a column reaches every row that
        // shares a closed switch with it, and that row reaches its other columns.
        let mut rows = driven;
        loop {
            let mut new_rows = rows;
            for row in 0..8 {
                if conn(row) & cols != 0 {
                    new_rows |= 1 << row;
                }
            }
            let mut new_cols = cols;
            for row in 0..8 {
                if new_rows & (1 << row) != 0 {
                    new_cols |= conn(row);
                }
            }
            if new_rows == rows && new_cols == cols {
                return cols;
            }
            rows = new_rows;
            cols = new_cols;
        }
    }

    /// The eight row outputs, row 0 (rank 1) first.
    pub fn rows(&self) -> [RowPin<'_>; 8] {
        core::array::from_fn(|r| RowPin {
            board: self,
            row: r as u8,
        })
    }

    /// The eight column inputs, column 0 (file a) first.
    pub fn cols(&self) -> [ColPin<'_>; 8] {
        core::array::from_fn(|c| ColPin {
            board: self,
            col: c as u8,
        })
    }

    /// LOAD, CLK and DATA of a simulated 74HC165 chain wired as `ShiftRegisterBoard` expects.
    pub fn shift_pins(&self) -> (LoadPin<'_>, ClkPin<'_>, DataPin<'_>) {
        (
            LoadPin { board: self },
            ClkPin { board: self },
            DataPin { board: self },
        )
    }
}

/// A simulated row output.
#[derive(Debug)]
pub struct RowPin<'a> {
    board: &'a PinBoard,
    row: u8,
}

impl ErrorType for RowPin<'_> {
    type Error = Infallible;
}

impl OutputPin for RowPin<'_> {
    fn set_low(&mut self) -> Result<(), Infallible> {
        if self.row == 0 {
            self.board.scans.set(self.board.scans.get().wrapping_add(1));
        }
        self.board
            .rows_low
            .set(self.board.rows_low.get() | (1 << self.row));
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        self.board
            .rows_low
            .set(self.board.rows_low.get() & !(1 << self.row));
        Ok(())
    }
}

/// A simulated column input with pull-up: low while a strobed row reaches it.
#[derive(Debug)]
pub struct ColPin<'a> {
    board: &'a PinBoard,
    col: u8,
}

impl ErrorType for ColPin<'_> {
    type Error = Infallible;
}

impl InputPin for ColPin<'_> {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        Ok(self.board.columns_low() & (1 << self.col) == 0)
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        Ok(self.board.columns_low() & (1 << self.col) != 0)
    }
}

/// SH/LD of the simulated chain: low latches the switches.
#[derive(Debug)]
pub struct LoadPin<'a> {
    board: &'a PinBoard,
}

impl ErrorType for LoadPin<'_> {
    type Error = Infallible;
}

impl OutputPin for LoadPin<'_> {
    fn set_low(&mut self) -> Result<(), Infallible> {
        let b = self.board;
        b.scans.set(b.scans.get().wrapping_add(1));
        b.latch.set(b.closed_switches().0);
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// CLK of the simulated chain: a rising edge shifts one bit.
#[derive(Debug)]
pub struct ClkPin<'a> {
    board: &'a PinBoard,
}

impl ErrorType for ClkPin<'_> {
    type Error = Infallible;
}

impl OutputPin for ClkPin<'_> {
    fn set_low(&mut self) -> Result<(), Infallible> {
        self.board.clk_high.set(false);
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        let b = self.board;
        if !b.clk_high.get() {
            b.latch.set(b.latch.get() << 1);
        }
        b.clk_high.set(true);
        Ok(())
    }
}

/// QH of the simulated chain: low when the bit in front is a closed switch.
#[derive(Debug)]
pub struct DataPin<'a> {
    board: &'a PinBoard,
}

impl ErrorType for DataPin<'_> {
    type Error = Infallible;
}

impl InputPin for DataPin<'_> {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        Ok(self.board.latch.get() >> 63 == 0)
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        Ok(self.board.latch.get() >> 63 == 1)
    }
}

/// A delay that returns at once: simulated wires settle instantly.
#[derive(Debug, Default, Clone, Copy)]
pub struct InstantDelay;

impl DelayNs for InstantDelay {
    fn delay_ns(&mut self, _ns: u32) {}
}
