//! `kriegspiel-board simulate`: the whole board chain on simulated pins.
//!
//! The script moves magnets on a [`PinBoard`]; the REAL [`ReedMatrix`] driver scans its
//! pins, and the real [`Board`] debounces and sends frames, in real time.

use std::sync::mpsc::Receiver;

use kriegspiel_board_core::{Board, BoardConfig, BoardError, FrameWriter};
use reed_matrix::sim::{InstantDelay, PinBoard};
use reed_matrix::{MatrixConfig, ReedMatrix};

use crate::pacer::Pacer;
use crate::script::{Action, Script};

/// Plays `script` on simulated pins and sends the board's frames to `writer`, answering
/// console bytes from `incoming`. Returns once every event has been reported and a final
/// snapshot sent.
pub fn run<W: FrameWriter>(
    script: &Script,
    config: BoardConfig,
    writer: W,
    incoming: &Receiver<Vec<u8>>,
) -> Result<(), BoardError<W::Error>> {
    let pins = PinBoard::new();
    pins.set_magnets(script.initial);
    let matrix = ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    );
    let mut board = Board::new(matrix, writer, config);
    let mut pacer = Pacer::new();
    let mut next_event = 0;
    loop {
        let now_ms = pacer.now_ms();
        while let Some(event) = script.events.get(next_event).filter(|e| e.at_ms <= now_ms) {
            pins.set_magnet(event.square, event.action == Action::Place);
            next_event += 1;
        }
        board.tick(now_ms)?;
        if next_event == script.events.len() && board.occupancy() == Some(pins.magnets()) {
            return board.snapshot_now_or_soon(now_ms);
        }
        pacer.wait(&mut board, incoming)?;
    }
}

/// A [`Scanner`](kriegspiel_board_core::Scanner) reading simulated pins through the real
/// matrix driver.
pub fn sim_matrix(
    pins: &PinBoard,
) -> ReedMatrix<reed_matrix::sim::RowPin<'_>, reed_matrix::sim::ColPin<'_>, InstantDelay> {
    ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    )
}
