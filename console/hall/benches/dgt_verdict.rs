//! From a DGT board's settled dump to the table's verdict, in this process: the dump's
//! bytes decoded (`kriegspiel_dgt::frame::Decoder`), read through the board's orientation
//! (`Placement`), diffed into the owner's lift and place (`DgtReader`), applied to the
//! table, and the verdict given when the table's settle window ends (virtual time: the
//! window itself is a wait, added to the figure in docs/PERFORMANCE.md, as are the
//! driver's settle time before the dump and the journal's commit in a running hall).
//!
//! `cargo bench -p kriegspiel-hall --bench dgt_verdict`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use kriegspiel_dgt::codes::piece_code;
use kriegspiel_dgt::frame::{encode_frame, Decoder, Message};
use kriegspiel_dgt::{Orientation, Placement};
use kriegspiel_hall::dgt_board::{DgtReader, Fed};
use kriegspiel_referee::shakmaty::{Board, Color, Square};
use kriegspiel_referee::{GameConfig, Options, RuleSet};
use kriegspiel_table::{Event, Input, Output, Table, TableConfig};

/// The 64 field codes of a board (normal orientation), guess men and all.
fn fields(board: &Board) -> [u8; 64] {
    let mut f = [0u8; 64];
    for (sq, piece) in board.clone() {
        f[usize::from(Orientation::Normal.field(sq))] = piece_code(piece);
    }
    f
}

/// A fresh table with both boards read in their start placement.
fn table(settle_ms: u32, start: &Board) -> (Table, [DgtReader; 2]) {
    let mut config = TableConfig::new(GameConfig {
        rules: RuleSet::Berkeley,
        options: Options::default(),
        fen: None,
    });
    config.settle_ms = settle_ms;
    let (mut table, _) = Table::new(config, 0).unwrap();
    let mut readers = [DgtReader::new(Color::White), DgtReader::new(Color::Black)];
    let first = Placement::from_fields(&fields(start), Orientation::Normal, true);
    for reader in &mut readers {
        let color = reader.owner();
        for fed in reader.read(&first) {
            if let Fed::Board(input) = fed {
                table.apply(Event::new(10, Input::Board { color, input }));
            }
        }
    }
    (table, readers)
}

fn main() {
    let rounds = 2000;
    let start = Board::default();
    let mut after = start.clone();
    let pawn = after.remove_piece_at(Square::E2).unwrap();
    after.set_piece_at(Square::E4, pawn);
    let dump = encode_frame(0x86, &fields(&after)).unwrap();
    let settle_ms = 300;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let (mut table, mut readers) = table(settle_ms, &start);
        let at = 1000;
        let began = Instant::now();
        let mut decoder = Decoder::new();
        let mut placement = None;
        decoder.feed(&dump, |m| {
            if let Ok(Message::BoardDump(codes)) = m {
                placement = Some(Placement::from_fields(&codes, Orientation::Normal, true));
            }
        });
        let placement = placement.unwrap();
        for fed in readers[0].read(&placement) {
            let input = match fed {
                Fed::Board(input) => Input::Board {
                    color: Color::White,
                    input,
                },
                Fed::Promote(role) => Input::Promote {
                    color: Color::White,
                    role,
                },
                Fed::Notice(_) => continue,
            };
            table.apply(Event::new(at, input));
        }
        let outputs = table.apply(Event::tick(at + u64::from(settle_ms)));
        let took = began.elapsed();
        assert!(
            outputs.iter().any(|o| matches!(o, Output::Verdict { .. })),
            "no verdict: {outputs:?}"
        );
        samples.push(took);
    }
    samples.sort_unstable();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "DGT dump -> verdict (compute only, {rounds} rounds): median {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        us(pick(0.5)),
        us(pick(0.99)),
        us(pick(1.0))
    );
    println!(
        "plus the table's settle window ({settle_ms} ms by default) and, in a running hall, the journal's commit"
    );
}
