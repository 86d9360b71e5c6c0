//! JSONL lines per second through the built `kriegspiel referee` binary.
//!
//! A realistic stream: random games in every rule set, each starting with `new` (half of
//! them naming a FEN), and per ply two refused tries (a random man of the side to move to a
//! random square, or a random square to another: illegal or impossible), the questions the
//! rule set has now and then, and the legal try. It is piped in from a thread while the
//! answers are read back, as a driver would; every answer is counted. Prints the median of
//! five runs; the figures go to docs/PERFORMANCE.md.
//!
//! `KRIEGSPIEL_BENCH_INPUT=PATH` also writes the input to PATH, to profile the binary alone
//! (`perf record kriegspiel referee < PATH > /dev/null`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{CastlingMode, Chess, Position, Square};
use kriegspiel_referee::Try;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How many lines of each kind the input holds.
#[derive(Debug, Default)]
struct Mix {
    new: usize,
    refused: usize,
    questions: usize,
    legal: usize,
}

impl Mix {
    fn lines(&self) -> usize {
        self.new + self.refused + self.questions + self.legal
    }
}

const RULES: [&str; 7] = [
    "cincinnati",
    "wild16",
    "traditional",
    "rand",
    "berkeley",
    "berkeley-any",
    "russian",
];

/// No castling rights: the Russian games' start (the referee drops them anyway).
const NO_CASTLING: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

fn input(lines_wanted: usize) -> (String, Mix) {
    let mut rng = StdRng::seed_from_u64(11);
    let mut out = String::new();
    let mut mix = Mix::default();
    let mut game = 0;
    while mix.lines() < lines_wanted {
        let rules = RULES[game % RULES.len()];
        game += 1;
        let mut pos = Chess::default();
        if rules == "russian" || rng.gen_bool(0.5) {
            let fen = if rules == "russian" {
                NO_CASTLING
            } else {
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
            };
            pos = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            writeln!(out, r#"{{"cmd":"new","rules":"{rules}","fen":"{fen}"}}"#).unwrap();
        } else {
            writeln!(out, r#"{{"cmd":"new","rules":"{rules}"}}"#).unwrap();
        }
        mix.new += 1;
        for _ in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() || pos.is_insufficient_material() {
                break;
            }
            let ours: Vec<Square> = pos.us().into_iter().collect();
            for _ in 0..2 {
                let from = if rng.gen_bool(0.7) {
                    ours[rng.gen_range(0..ours.len())]
                } else {
                    Square::new(rng.gen_range(0..64))
                };
                let to = Square::new(rng.gen_range(0..64));
                let t = Try::new(from, to);
                let stands = |m: &kriegspiel_referee::shakmaty::Move| {
                    Try::from_move(m).is_some_and(|l| l.from == t.from && l.to == t.to)
                };
                if legal.iter().any(stands) {
                    continue;
                }
                writeln!(out, r#"{{"cmd":"try","move":"{}"}}"#, t.to_uci()).unwrap();
                mix.refused += 1;
            }
            let question = match rules {
                "rand" => Some("rebuffs"),
                "berkeley-any" | "russian" => Some("any"),
                _ => None,
            };
            let mut candidates: Vec<_> = legal.iter().copied().collect();
            if let Some(what) = question.filter(|_| rng.gen_bool(0.2)) {
                writeln!(out, r#"{{"cmd":"ask","what":"{what}"}}"#).unwrap();
                mix.questions += 1;
                // After a "yes" to "Any?" a pawn capture is owed: play one, so that the
                // game goes on as the referee sees it.
                let pawn_captures: Vec<_> = candidates
                    .iter()
                    .copied()
                    .filter(|m| {
                        m.role() == kriegspiel_referee::shakmaty::Role::Pawn && m.is_capture()
                    })
                    .collect();
                if what == "any" && !pawn_captures.is_empty() {
                    candidates = pawn_captures;
                }
            }
            let m = candidates[rng.gen_range(0..candidates.len())];
            writeln!(
                out,
                r#"{{"cmd":"try","move":"{}"}}"#,
                Try::from_move(&m).unwrap().to_uci()
            )
            .unwrap();
            mix.legal += 1;
            pos = pos.play(m).unwrap();
        }
    }
    (out, mix)
}

fn main() {
    let (text, mix) = input(200_000);
    let lines = mix.lines();
    if let Ok(path) = std::env::var("KRIEGSPIEL_BENCH_INPUT") {
        std::fs::write(&path, &text).unwrap();
    }
    let mut rates = Vec::new();
    let mut answers_seen = [0usize; 4];
    for _ in 0..5 {
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
            .arg("referee")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feed = text.clone();
        let writer = std::thread::spawn(move || stdin.write_all(feed.as_bytes()));
        let mut count = 0;
        answers_seen = [0; 4];
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            count += 1;
            let kind = if line.starts_with(r#"{"answer":"moved""#) {
                0
            } else if line.starts_with(r#"{"answer":"new""#) {
                1
            } else if line.starts_with(r#"{"error""#) {
                3
            } else {
                2
            };
            answers_seen[kind] += 1;
        }
        writer.join().unwrap().unwrap();
        assert!(child.wait().unwrap().success());
        assert_eq!(count, lines);
        let secs = start.elapsed().as_secs_f64();
        rates.push(lines as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "jsonl: {lines} lines per run ({} new, {} refused tries, {} questions, {} legal tries); \
         answers: {} moved, {} new, {} refusals and replies, {} errors",
        mix.new,
        mix.refused,
        mix.questions,
        mix.legal,
        answers_seen[0],
        answers_seen[1],
        answers_seen[2],
        answers_seen[3],
    );
    println!(
        "jsonl: lines/s median {:.0} (min {:.0}, max {:.0})",
        rates[2], rates[0], rates[4]
    );
}
