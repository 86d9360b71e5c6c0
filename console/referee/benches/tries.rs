//! Tries adjudicated per second, per rule set, over random games with a realistic mix of
//! legal, illegal and impossible tries, beside the cost of shakmaty's `legal_moves()` on the
//! same positions. Figures go to docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kriegspiel_referee::shakmaty::{Chess, Position, Square};
use kriegspiel_referee::{Options, Referee, RuleSet, Try, Verdict};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One game: for each ply, a few refused tries then the legal one.
struct Game {
    start: Chess,
    plies: Vec<Vec<Try>>,
    positions: Vec<Chess>,
}

fn games(n: usize, seed: u64, start: &Chess) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let mut pos = start.clone();
            let mut plies = Vec::new();
            let mut positions = Vec::new();
            for _ in 0..80 {
                let legal = pos.legal_moves();
                if legal.is_empty() || pos.is_insufficient_material() {
                    break;
                }
                let mut tries = Vec::new();
                // Refused tries: own men to random squares (mostly illegal or impossible).
                let ours: Vec<Square> = pos.us().into_iter().collect();
                while tries.len() < 2 {
                    let t = Try::new(
                        ours[rng.gen_range(0..ours.len())],
                        Square::new(rng.gen_range(0..64)),
                    );
                    if !legal.iter().any(|m| Try::from_move(m).unwrap() == t) {
                        tries.push(t);
                    }
                }
                let m = legal[rng.gen_range(0..legal.len())];
                tries.push(Try::from_move(&m).unwrap());
                positions.push(pos.clone());
                plies.push(tries);
                pos = pos.play(m).unwrap();
            }
            Game {
                start: start.clone(),
                plies,
                positions,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let standard = games(40, 7, &Chess::default());
    // The chess battle has no castling: its games start from the same men without the rights.
    let battle_start: Chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
        .parse::<kriegspiel_referee::shakmaty::fen::Fen>()
        .unwrap()
        .into_position(kriegspiel_referee::shakmaty::CastlingMode::Standard)
        .unwrap();
    let battle = games(40, 7, &battle_start);
    let games = &standard;
    let tries: usize = games.iter().flat_map(|g| &g.plies).map(Vec::len).sum();
    let positions: usize = games.iter().map(|g| g.positions.len()).sum();

    let mut group = c.benchmark_group("adjudicate");
    group.throughput(Throughput::Elements(tries as u64));
    for rules in RuleSet::ALL {
        let games = if rules == RuleSet::Russian {
            &battle
        } else {
            &standard
        };
        group.bench_function(rules.id(), |b| {
            b.iter(|| {
                let mut stood = 0usize;
                for g in games {
                    let mut referee =
                        Referee::from_position(rules, Options::default(), g.start.clone());
                    'plies: for ply in &g.plies {
                        for t in ply {
                            match referee.try_move(*t) {
                                Ok(Verdict::Moved(r)) => {
                                    stood += 1;
                                    if r.end.is_some() {
                                        break 'plies;
                                    }
                                }
                                Ok(Verdict::Refused(_)) => {}
                                Err(_) => break 'plies,
                            }
                        }
                    }
                }
                black_box(stood)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("shakmaty");
    group.throughput(Throughput::Elements(positions as u64));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for g in games {
                for p in &g.positions {
                    n += black_box(p.legal_moves()).len();
                }
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
