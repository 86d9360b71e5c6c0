//! Host cost of one board period: a scan through the real drivers over simulated pins,
//! the debouncer, frame encoding, and a whole `Board::tick`. The simulated pins cost more
//! than real GPIO register reads, so these are upper bounds for the logic; on hardware the
//! settle delays (8 × settle_us for a matrix) dominate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kriegspiel_board_core::{Board, BoardConfig, FrameWriter};
use kriegspiel_link::{encode, BoardMsg, Frame, MAX_FRAME};
use reed_matrix::sim::{InstantDelay, PinBoard};
use reed_matrix::{
    Debouncer, MatrixConfig, Occupancy, ReedMatrix, ShiftConfig, ShiftRegisterBoard, Square,
};

/// Counts bytes instead of sending them.
struct Sink(usize);

impl FrameWriter for Sink {
    type Error = core::convert::Infallible;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
        self.0 += bytes.len();
        Ok(())
    }
}

fn benches(c: &mut Criterion) {
    let pins = PinBoard::new();
    pins.set_magnets(Occupancy::START);

    let mut matrix = ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    );
    c.bench_function("scan/matrix_start_position", |b| {
        b.iter(|| black_box(matrix.scan().unwrap()))
    });

    let (load, clk, data) = pins.shift_pins();
    let mut chain = ShiftRegisterBoard::new(load, clk, data, InstantDelay, ShiftConfig::default());
    c.bench_function("scan/74hc165_start_position", |b| {
        b.iter(|| black_box(chain.scan().unwrap()))
    });

    let mut debouncer = Debouncer::new(4, Occupancy::START);
    let mut tick = 0u32;
    c.bench_function("debounce/quiet_board", |b| {
        b.iter(|| {
            tick = tick.wrapping_add(4);
            black_box(debouncer.update(black_box(Occupancy::START), tick).count())
        })
    });

    // A man lifted and put back every 8 scans: every switch change path is exercised.
    let e2 = Square::parse("e2").unwrap();
    let lifted = Occupancy::START.without(e2);
    let mut debouncer = Debouncer::new(4, Occupancy::START);
    let mut n = 0u32;
    c.bench_function("debounce/moving_man", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let raw = if n % 16 < 8 { lifted } else { Occupancy::START };
            black_box(debouncer.update(raw, n).count())
        })
    });

    let mut seq = 0u16;
    c.bench_function("encode/lift_frame", |b| {
        b.iter(|| {
            seq = seq.wrapping_add(1);
            let mut buf = [0u8; MAX_FRAME];
            let frame = Frame {
                seq,
                body: BoardMsg::Lift {
                    square: 12,
                    board_ms: 123_456,
                },
            };
            black_box(encode(black_box(&frame), &mut buf).unwrap())
        })
    });

    let mut matrix = ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    );
    let mut debouncer = Debouncer::new(4, Occupancy::START);
    let mut n = 0u32;
    c.bench_function("period/scan_debounce_encode_moving_man", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            pins.set_magnets(if n % 16 < 8 { lifted } else { Occupancy::START });
            let raw = matrix.scan().unwrap();
            let mut bytes = 0;
            for event in debouncer.update(raw, n) {
                let mut buf = [0u8; MAX_FRAME];
                let body = BoardMsg::Lift {
                    square: event.square().index(),
                    board_ms: event.since(),
                };
                bytes += encode(
                    &Frame {
                        seq: n as u16,
                        body,
                    },
                    &mut buf,
                )
                .unwrap();
            }
            black_box(bytes)
        })
    });

    let matrix = ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    );
    let mut board = Board::new(matrix, Sink(0), BoardConfig::default());
    let mut now = 0u32;
    c.bench_function("board/tick_moving_man", |b| {
        b.iter(|| {
            now = now.wrapping_add(4);
            pins.set_magnets(if (now / 4) % 16 < 8 {
                lifted
            } else {
                Occupancy::START
            });
            board.tick(now).unwrap();
        })
    });
}

criterion_group!(board, benches);
criterion_main!(board);
