use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};

use crate::{Error, Occupancy, Scanner};

/// Timing of a 74HC165 chain read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShiftConfig {
    /// Width of the LOAD pulse and of each clock half-period, in nanoseconds. The 74HC165
    /// needs ~100 ns at 3.3 V; long ribbon cables want more.
    pub pulse_ns: u32,
}

impl Default for ShiftConfig {
    /// 500 ns: five times the 74HC165's worst-case figure at 2 V.
    fn default() -> Self {
        ShiftConfig { pulse_ns: 500 }
    }
}

/// 64 switches read directly through eight daisy-chained 74HC165 shift registers.
///
/// Wiring (see `hardware/README.md`): every switch pulls its register input to ground
/// against a pull-up, so LOW = magnet present. The chip whose QH drives `DATA` holds rank 8
/// with input A = file a … input H = file h; its SER takes the next chip's QH (rank 7), and
/// so on down to rank 1. `LOAD` goes to every SH/LD, `CLK` to every CLK, CLK INH is tied
/// low. A read latches all 64 inputs with a low LOAD pulse, then shifts them out:
/// h8, g8, …, a8, h7, …, a1, i.e. square 63 first and square 0 last.
#[derive(Debug)]
pub struct ShiftRegisterBoard<LOAD, CLK, DATA, D> {
    load: LOAD,
    clk: CLK,
    data: DATA,
    delay: D,
    config: ShiftConfig,
}

impl<LOAD, CLK, DATA, D> ShiftRegisterBoard<LOAD, CLK, DATA, D> {
    /// Takes ownership of the pins and the delay; no pin is touched until the first scan.
    /// Start with LOAD high and CLK low (the idle levels a scan leaves behind).
    pub fn new(load: LOAD, clk: CLK, data: DATA, delay: D, config: ShiftConfig) -> Self {
        ShiftRegisterBoard {
            load,
            clk,
            data,
            delay,
            config,
        }
    }

    /// Gives the pins and the delay back.
    pub fn destroy(self) -> (LOAD, CLK, DATA, D) {
        (self.load, self.clk, self.data, self.delay)
    }
}

impl<LOAD, CLK, DATA, D, E> ShiftRegisterBoard<LOAD, CLK, DATA, D>
where
    LOAD: OutputPin<Error = E>,
    CLK: OutputPin<Error = E>,
    DATA: InputPin<Error = E>,
    D: DelayNs,
{
    /// Latches and shifts out all 64 inputs (63 clock pulses: the first bit is on QH as
    /// soon as LOAD rises).
    pub fn scan(&mut self) -> Result<Occupancy, Error<E>> {
        let pulse = self.config.pulse_ns;
        self.load.set_low().map_err(Error::Output)?;
        self.delay.delay_ns(pulse);
        self.load.set_high().map_err(Error::Output)?;
        self.delay.delay_ns(pulse);
        let mut bits = 0u64;
        for i in 0..64 {
            if i > 0 {
                self.clk.set_high().map_err(Error::Output)?;
                self.delay.delay_ns(pulse);
                self.clk.set_low().map_err(Error::Output)?;
                self.delay.delay_ns(pulse);
            }
            let closed = self.data.is_low().map_err(Error::Input)?;
            bits = (bits << 1) | u64::from(closed);
        }
        Ok(Occupancy(bits))
    }
}

impl<LOAD, CLK, DATA, D, E> Scanner for ShiftRegisterBoard<LOAD, CLK, DATA, D>
where
    LOAD: OutputPin<Error = E>,
    CLK: OutputPin<Error = E>,
    DATA: InputPin<Error = E>,
    D: DelayNs,
    E: core::fmt::Debug,
{
    type Error = Error<E>;
    fn scan(&mut self) -> Result<Occupancy, Error<E>> {
        ShiftRegisterBoard::scan(self)
    }
}
