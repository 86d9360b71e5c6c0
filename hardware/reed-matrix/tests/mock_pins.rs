//! The exact pin transactions of both drivers, scripted with embedded-hal-mock (strict,
//! ordered, each mock ends with `done()`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use embedded_hal_mock::eh1::delay::{CheckedDelay, Transaction as DelayTx};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinTx};
use embedded_hal_mock::eh1::MockError;
use reed_matrix::{
    Error, MatrixConfig, Occupancy, ReedMatrix, ShiftConfig, ShiftRegisterBoard, Square,
};

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// Column reads for one strobe of `rank`: LOW where `occ` has a magnet.
fn column_level(occ: Occupancy, rank: u8, file: u8) -> State {
    if occ.contains(Square::from_coords(file, rank).unwrap()) {
        State::Low
    } else {
        State::High
    }
}

fn matrix_mocks(
    scans: &[Occupancy],
    first_scan_idles_rows: bool,
    settle_us: u32,
) -> ([PinMock; 8], [PinMock; 8], CheckedDelay) {
    let rows = core::array::from_fn(|_r| {
        let mut tx = Vec::new();
        if first_scan_idles_rows {
            tx.push(PinTx::set(State::High));
        }
        for _ in scans {
            tx.push(PinTx::set(State::Low));
            tx.push(PinTx::set(State::High));
        }
        PinMock::new(&tx)
    });
    let cols = core::array::from_fn(|file| {
        let mut tx = Vec::new();
        for &occ in scans {
            for rank in 0..8 {
                tx.push(PinTx::get(column_level(occ, rank, file as u8)));
            }
        }
        PinMock::new(&tx)
    });
    let delays: Vec<_> = (0..scans.len() * 8)
        .map(|_| DelayTx::delay_us(settle_us))
        .collect();
    (rows, cols, CheckedDelay::new(&delays))
}

fn finish<D>(matrix: ReedMatrix<PinMock, PinMock, D>) -> D {
    let (rows, cols, delay) = matrix.destroy();
    for mut pin in rows.into_iter().chain(cols) {
        pin.done();
    }
    delay
}

#[test]
fn matrix_scan_strobes_each_row_low_and_reads_active_low_columns() {
    let position = Occupancy::START;
    let after_e4 = Occupancy::START.without(sq("e2")).with(sq("e4"));
    let (rows, cols, delay) = matrix_mocks(&[position, after_e4], true, 7);
    let mut matrix = ReedMatrix::new(rows, cols, delay, MatrixConfig { settle_us: 7 });
    assert_eq!(matrix.scan(), Ok(position));
    assert_eq!(matrix.scan(), Ok(after_e4));
    let mut delay = finish(matrix);
    delay.done();
}

#[test]
fn matrix_reports_a_column_error_and_idles_the_rows_again_next_scan() {
    let io = MockError::Io(std::io::ErrorKind::Other);
    // Scan 1: rows idled, row 0 strobed, column c fails on its first read.
    // Scan 2: rows idled again, then a full clean scan of an empty board.
    let rows = core::array::from_fn(|r| {
        let mut tx = vec![PinTx::set(State::High)];
        if r == 0 {
            tx.push(PinTx::set(State::Low));
        }
        tx.push(PinTx::set(State::High));
        tx.push(PinTx::set(State::Low));
        tx.push(PinTx::set(State::High));
        PinMock::new(&tx)
    });
    let cols = core::array::from_fn(|file| {
        let mut tx = Vec::new();
        match file {
            0 | 1 => tx.push(PinTx::get(State::High)),
            2 => tx.push(PinTx::get(State::High).with_error(io.clone())),
            _ => {}
        }
        tx.extend((0..8).map(|_| PinTx::get(State::High)));
        PinMock::new(&tx)
    });
    let delays: Vec<_> = (0..9).map(|_| DelayTx::delay_us(10)).collect();
    let mut matrix = ReedMatrix::new(
        rows,
        cols,
        CheckedDelay::new(&delays),
        MatrixConfig::default(),
    );
    assert_eq!(matrix.scan(), Err(Error::Input(io)));
    assert_eq!(matrix.scan(), Ok(Occupancy::EMPTY));
    finish(matrix).done();
}

#[test]
fn matrix_reports_a_row_error() {
    let io = MockError::Io(std::io::ErrorKind::BrokenPipe);
    let rows = core::array::from_fn(|r| {
        let tx = if r == 0 {
            vec![PinTx::set(State::High).with_error(io.clone())]
        } else {
            vec![]
        };
        PinMock::new(&tx)
    });
    let cols = core::array::from_fn(|_| PinMock::new(&[]));
    let mut matrix = ReedMatrix::new(rows, cols, CheckedDelay::new(&[]), MatrixConfig::default());
    assert_eq!(matrix.scan(), Err(Error::Output(io)));
    finish(matrix).done();
}

#[test]
fn shift_register_chain_latches_then_shifts_h8_first_a1_last() {
    let occ = Occupancy::WHITE_START
        .without(sq("e2"))
        .with(sq("e4"))
        .with(sq("h8"));
    let pulse = 300;
    let mut load = PinMock::new(&[PinTx::set(State::Low), PinTx::set(State::High)]);
    let clk_tx: Vec<_> = (0..63)
        .flat_map(|_| [PinTx::set(State::High), PinTx::set(State::Low)])
        .collect();
    let mut clk = PinMock::new(&clk_tx);
    let data_tx: Vec<_> = (0..64u8)
        .rev()
        .map(|i| {
            PinTx::get(if occ.contains(Square::new(i).unwrap()) {
                State::Low
            } else {
                State::High
            })
        })
        .collect();
    let mut data = PinMock::new(&data_tx);
    let delays: Vec<_> = (0..2 + 63 * 2).map(|_| DelayTx::delay_ns(pulse)).collect();
    let mut delay = CheckedDelay::new(&delays);
    let mut chain = ShiftRegisterBoard::new(
        load.clone(),
        clk.clone(),
        data.clone(),
        delay.clone(),
        ShiftConfig { pulse_ns: pulse },
    );
    assert_eq!(chain.scan(), Ok(occ));
    drop(chain.destroy());
    load.done();
    clk.done();
    data.done();
    delay.done();
}

#[test]
fn shift_register_chain_reports_a_data_error() {
    let io = MockError::Io(std::io::ErrorKind::Other);
    let mut load = PinMock::new(&[PinTx::set(State::Low), PinTx::set(State::High)]);
    let mut clk = PinMock::new(&[PinTx::set(State::High), PinTx::set(State::Low)]);
    let mut data = PinMock::new(&[
        PinTx::get(State::High),
        PinTx::get(State::High).with_error(io.clone()),
    ]);
    let delays: Vec<_> = (0..4).map(|_| DelayTx::delay_ns(500)).collect();
    let mut delay = CheckedDelay::new(&delays);
    let mut chain = ShiftRegisterBoard::new(
        load.clone(),
        clk.clone(),
        data.clone(),
        delay.clone(),
        ShiftConfig::default(),
    );
    assert_eq!(chain.scan(), Err(Error::Input(io)));
    load.done();
    clk.done();
    data.done();
    delay.done();
}
