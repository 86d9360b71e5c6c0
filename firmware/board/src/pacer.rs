//! Real-time pacing of the scan loop.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use kriegspiel_board_core::{Board, BoardError, FrameWriter, Scanner};

/// Keeps ticks at the board's scan rate and answers the console between them.
#[derive(Debug)]
pub struct Pacer {
    start: Instant,
    next_tick: Duration,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

impl Pacer {
    /// The board clock starts now at 0 ms.
    pub fn new() -> Self {
        Pacer {
            start: Instant::now(),
            next_tick: Duration::ZERO,
        }
    }

    /// The board clock: milliseconds since start, wrapping after ~49 days.
    pub fn now_ms(&self) -> u32 {
        // Truncation is the wrap the protocol's BoardMs expects.
        self.start.elapsed().as_millis() as u32
    }

    /// Waits for the next scan slot, handing every byte from the console to the board as
    /// soon as it arrives. A loop that fell behind skips slots rather than bursting.
    pub fn wait<S: Scanner, W: FrameWriter>(
        &mut self,
        board: &mut Board<S, W>,
        incoming: &Receiver<Vec<u8>>,
    ) -> Result<(), BoardError<W::Error>> {
        let period = Duration::from_micros(u64::from(board.scan_period_us()));
        self.next_tick += period;
        let elapsed = self.start.elapsed();
        if self.next_tick + period < elapsed {
            self.next_tick = elapsed;
        }
        while let Some(wait) = self.next_tick.checked_sub(self.start.elapsed()) {
            match incoming.recv_timeout(wait) {
                Ok(bytes) => board.receive(&bytes, self.now_ms())?,
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(wait);
                    break;
                }
            }
        }
        Ok(())
    }
}
