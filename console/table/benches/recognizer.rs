#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]
//! Wall-clock cost of the table: one sensor event, and the completing tick (settle window
//! end: recognition + adjudication) for each kind of try. The spread between the kinds is
//! the timing leak forbidden by docs/OVER-THE-BOARD.md §3 (the verdict comes at the end of the
//! settle window whatever the kind of try).

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use kriegspiel_table::kriegspiel_referee::GameConfig;
use kriegspiel_table::shakmaty::{Color, Square};
use kriegspiel_table::{Event, Table, TableConfig};

/// A table whose mover's man stands on its destination, with the tick that completes it.
fn standing(fen: &str, color: Color, moves: &[(Square, Square)]) -> (Table, Event) {
    let config = TableConfig::new(GameConfig {
        fen: Some(fen.to_owned()),
        ..GameConfig::default()
    });
    let (mut table, _) = Table::new(config, 0).unwrap();
    let mut t = 1000;
    for (from, to) in moves {
        table.apply(Event::lift(t, color, *from));
        t += 50;
        table.apply(Event::place(t, color, *to));
        t += 50;
    }
    let tick = Event::tick(table.next_deadline().unwrap_or(t));
    (table, tick)
}

fn bench(c: &mut Criterion) {
    let cases = [
        (
            "quiet g2g3",
            standing(
                "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
                Color::White,
                &[(Square::G2, Square::G3)],
            ),
        ),
        (
            "capture e4d5",
            standing(
                "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
                Color::White,
                &[(Square::E4, Square::D5)],
            ),
        ),
        (
            "castling e1g1 rook first",
            standing(
                "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
                Color::White,
                &[(Square::H1, Square::F1), (Square::E1, Square::G1)],
            ),
        ),
        (
            "promotion b7b8",
            standing(
                "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
                Color::White,
                &[(Square::B7, Square::B8)],
            ),
        ),
        (
            "refused g2g5",
            standing(
                "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
                Color::White,
                &[(Square::G2, Square::G5)],
            ),
        ),
    ];
    let mut group = c.benchmark_group("verdict tick");
    for (name, (table, tick)) in &cases {
        let verdicts = table.clone().apply(tick.clone());
        assert!(
            matches!(
                verdicts.as_slice(),
                [kriegspiel_table::Output::Verdict { .. }]
            ),
            "{name}: {verdicts:?}"
        );
        group.bench_function(*name, |b| {
            b.iter_batched(
                || table.clone(),
                |mut t| black_box(t.apply(tick.clone())),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    let (table, _) = standing(
        "r3k2r/1P4pp/8/3p4/4P3/8/6PP/R3K2R w KQkq - 0 1",
        Color::White,
        &[],
    );
    let mut group = c.benchmark_group("sensor event");
    group.bench_function("lift (touch)", |b| {
        b.iter_batched(
            || table.clone(),
            |mut t| black_box(t.apply(Event::lift(5000, Color::White, Square::E4))),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("place (try standing)", |b| {
        let mut lifted = table.clone();
        lifted.apply(Event::lift(5000, Color::White, Square::E4));
        b.iter_batched(
            || lifted.clone(),
            |mut t| black_box(t.apply(Event::place(5050, Color::White, Square::E5))),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("next_deadline", |b| {
        let mut lifted = table.clone();
        lifted.apply(Event::lift(5000, Color::White, Square::E4));
        lifted.apply(Event::place(5050, Color::White, Square::E5));
        b.iter(|| black_box(lifted.next_deadline()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
