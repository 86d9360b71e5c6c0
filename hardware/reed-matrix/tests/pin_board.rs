//! Whole positions through the real drivers over a simulated pin board.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reed_matrix::sim::{InstantDelay, PinBoard};
use reed_matrix::{
    Debouncer, MatrixConfig, Occupancy, ReedMatrix, Scanner, ShiftConfig, ShiftRegisterBoard,
    Square, SwitchEvent,
};

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn matrix(
    board: &PinBoard,
) -> impl Scanner<Error = reed_matrix::Error<core::convert::Infallible>> + '_ {
    ReedMatrix::new(
        board.rows(),
        board.cols(),
        InstantDelay,
        MatrixConfig::default(),
    )
}

fn chain(
    board: &PinBoard,
) -> impl Scanner<Error = reed_matrix::Error<core::convert::Infallible>> + '_ {
    let (load, clk, data) = board.shift_pins();
    ShiftRegisterBoard::new(load, clk, data, InstantDelay, ShiftConfig::default())
}

#[test]
fn both_wirings_read_the_start_position_and_every_single_square() {
    let board = PinBoard::new();
    let mut m = matrix(&board);
    let mut c = chain(&board);
    for position in [
        Occupancy::START,
        Occupancy::WHITE_START,
        Occupancy::BLACK_START,
        Occupancy::EMPTY,
    ] {
        board.set_magnets(position);
        assert_eq!(m.scan().unwrap(), position);
        assert_eq!(c.scan().unwrap(), position);
    }
    for square in Square::all() {
        board.set_magnets(Occupancy::EMPTY.with(square));
        assert_eq!(m.scan().unwrap(), Occupancy::EMPTY.with(square), "{square}");
        assert_eq!(c.scan().unwrap(), Occupancy::EMPTY.with(square), "{square}");
    }
}

#[test]
fn without_diodes_1_e4_shows_ghosts_on_e2_and_the_whole_fourth_rank() {
    let board = PinBoard::new();
    let after_e4 = Occupancy::WHITE_START.without(sq("e2")).with(sq("e4"));
    board.set_magnets(after_e4);
    let mut m = matrix(&board);
    assert_eq!(
        m.scan().unwrap(),
        after_e4,
        "with diodes the matrix is exact"
    );
    board.set_no_diodes(true);
    let seen = m.scan().unwrap();
    // Rank 2 strobed: d2 pulls file d, d1 joins rank 1, e1 pulls file e: a ghost on e2.
    // Rank 4 strobed: e4 pulls file e, e1 joins rank 1, which pulls every file: all of
    // rank 4 looks occupied.
    assert!(seen.contains(sq("e2")));
    assert_eq!(seen, Occupancy(0x0000_0000_FF00_FFFF));
}

#[test]
fn debounced_scans_turn_a_bouncy_move_into_one_lift_and_one_place() {
    let board = PinBoard::new();
    board.set_magnets(Occupancy::WHITE_START);
    let mut m = matrix(&board);
    let mut debouncer = Debouncer::new(3, m.scan().unwrap());
    let mut events = Vec::new();
    let lifted = Occupancy::WHITE_START.without(sq("g1"));
    let placed = lifted.with(sq("f3"));
    // (magnets, scans): g1 bounces as it is lifted, f3 bounces as it lands.
    let script = [
        (Occupancy::WHITE_START, 2),
        (lifted, 1),
        (Occupancy::WHITE_START, 1),
        (lifted, 5),
        (placed, 2),
        (lifted, 1),
        (placed, 6),
    ];
    let mut tick = 0u32;
    for (magnets, scans) in script {
        board.set_magnets(magnets);
        for _ in 0..scans {
            events.extend(debouncer.update(m.scan().unwrap(), tick));
            tick += 5;
        }
    }
    assert_eq!(
        events,
        [
            SwitchEvent::Lift {
                square: sq("g1"),
                since: 20
            },
            SwitchEvent::Place {
                square: sq("f3"),
                since: 60
            },
        ]
    );
    assert_eq!(debouncer.stable(), placed);
}

#[test]
fn faults_show_up_in_raw_scans() {
    let board = PinBoard::new();
    let mut m = matrix(&board);
    board.set_dead(Occupancy::EMPTY.with(sq("c4")));
    board.set_magnets(Occupancy::EMPTY.with(sq("c4")));
    assert_eq!(
        m.scan().unwrap(),
        Occupancy::EMPTY,
        "a dead switch never closes"
    );
    assert!(board.add_short(sq("a1"), sq("b1")));
    board.set_magnets(Occupancy::EMPTY.with(sq("a1")));
    assert_eq!(
        m.scan().unwrap(),
        Occupancy::EMPTY.with(sq("a1")).with(sq("b1"))
    );
    board.set_chatter(Occupancy::EMPTY.with(sq("h8")));
    board.set_magnets(Occupancy::EMPTY.with(sq("h8")));
    let reads: Vec<bool> = (0..4)
        .map(|_| m.scan().unwrap().contains(sq("h8")))
        .collect();
    assert_eq!(reads.iter().filter(|&&r| r).count(), 2, "{reads:?}");
}
