//! The second ear's cost per utterance, the model as shipped against the model prepared
//! (docs/PERFORMANCE.md, twelfth round): `cargo bench -p kriegspiel-moonshine --bench score
//! [-- shipped|prepared]`. Each utterance is encoded and then scored against the phrases of
//! one moment of a game: the answers of a read-back, a free turn's commands, a try and its
//! alternatives in letters and in a phonetic scheme. The cost depends on the utterance's
//! length and the phrases, not on what was said, so a tone stands for speech. Peak memory
//! (VmHWM) is printed when one model is asked for.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::Instant;

use kriegspiel_moonshine::Moonshine;

const ANSWERS: [&str; 16] = [
    "Confirm.", "Confirm", "Confirm,", "Confirm!", "Cancel.", "Cancel", "Cancel,", "Cancel!",
    "Yes.", "Yes", "Yes,", "Yes!", "No.", "No", "No,", "No!",
];
const COMMANDS: [&str; 12] = [
    "Any.",
    "Rebuffs.",
    "Repeat.",
    "My men.",
    "Confirm.",
    "Cancel.",
    "Queen.",
    "Rook.",
    "Bishop.",
    "Knight.",
    "Resign.",
    "Offer draw.",
];

fn tries() -> Vec<String> {
    let mut out = Vec::new();
    for (from, to) in [
        ("e", "e"),
        ("e", "d"),
        ("d", "d"),
        ("b", "b"),
        ("g", "g"),
        ("c", "b"),
        ("d", "e"),
        ("b", "d"),
    ] {
        out.push(format!("Pawn {from} seven to {to} five."));
        out.push(format!("Pawn {} seven to {} five.", nato(from), nato(to)));
        out.push(format!("{from} seven to {to} five."));
    }
    out
}

fn nato(file: &str) -> &'static str {
    match file {
        "b" => "bravo",
        "c" => "charlie",
        "d" => "delta",
        "e" => "echo",
        _ => "golf",
    }
}

fn main() {
    let which = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = Moonshine::default_dir();
    let tries = tries();
    let tries: Vec<&str> = tries.iter().map(String::as_str).collect();
    let moments: [(&str, f32, &[&str]); 3] = [
        ("read-back answers (16 phrases), 0.8 s", 0.8, &ANSWERS),
        ("free turn's commands (12 phrases), 1.0 s", 1.0, &COMMANDS),
        (
            "a try and 7 alternatives, 3 forms (24 phrases), 2.0 s",
            2.0,
            &tries,
        ),
    ];
    for (name, shipped) in [("as shipped", true), ("prepared", false)] {
        if which
            .as_deref()
            .is_some_and(|w| w != if shipped { "shipped" } else { "prepared" })
        {
            continue;
        }
        let start = Instant::now();
        let mut model = if shipped {
            Moonshine::open_as_shipped(&dir, 1)
        } else {
            Moonshine::open(&dir, 1)
        }
        .unwrap();
        println!("== model {name}: opened in {:.0} ms", ms(start));
        for (moment, secs, phrases) in &moments {
            let samples: Vec<i16> = (0..(16_000.0 * secs) as usize)
                .map(|i| ((i as f32 * 0.05).sin() * 3000.0) as i16)
                .collect();
            let mut times = Vec::new();
            for _ in 0..21 {
                let start = Instant::now();
                let heard = model.encode(&samples).unwrap();
                model.score(&heard, phrases).unwrap();
                times.push(ms(start));
            }
            times.sort_by(f64::total_cmp);
            println!(
                "  {moment:55} encode + score: median {:.0} ms, slowest {:.0} ms",
                times[10], times[20]
            );
        }
    }
    if which.is_some() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM")) {
            println!("peak memory: {}", line.trim_start_matches("VmHWM:").trim());
        }
    }
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
