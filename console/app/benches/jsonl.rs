//! JSONL lines per second through the built `kriegspiel referee` binary: a stream of random
//! games (refused tries, legal tries, questions, a `new` per game) piped in, answers read back.
//! Prints the median of five runs; figures go to docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use kriegspiel_referee::shakmaty::{Chess, Position, Square};
use kriegspiel_referee::Try;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn input(lines_wanted: usize) -> (String, usize) {
    let mut rng = StdRng::seed_from_u64(11);
    let mut out = String::new();
    let mut n = 0;
    let rules = [
        "cincinnati",
        "wild16",
        "traditional",
        "rand",
        "berkeley",
        "berkeley-any",
    ];
    while n < lines_wanted {
        out.push_str(&format!(
            "{{\"cmd\":\"new\",\"rules\":\"{}\"}}\n",
            rules[n % rules.len()]
        ));
        n += 1;
        let mut pos = Chess::default();
        for _ in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() || pos.is_insufficient_material() {
                break;
            }
            for _ in 0..2 {
                let from = Square::new(rng.gen_range(0..64));
                let to = Square::new(rng.gen_range(0..64));
                out.push_str(&format!("{{\"cmd\":\"try\",\"move\":\"{from}{to}\"}}\n"));
                n += 1;
            }
            let m = legal[rng.gen_range(0..legal.len())];
            out.push_str(&format!(
                "{{\"cmd\":\"try\",\"move\":\"{}\"}}\n",
                Try::from_move(&m).unwrap().to_uci()
            ));
            n += 1;
            pos = pos.play(m).unwrap();
        }
    }
    (out, n)
}

fn main() {
    let (text, lines) = input(200_000);
    let mut rates = Vec::new();
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
        let mut answers = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut answers)
            .unwrap();
        writer.join().unwrap().unwrap();
        assert!(child.wait().unwrap().success());
        assert_eq!(answers.lines().count(), lines);
        let secs = start.elapsed().as_secs_f64();
        rates.push(lines as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "jsonl: {lines} lines per run; lines/s median {:.0} (min {:.0}, max {:.0})",
        rates[2], rates[0], rates[4]
    );
}
