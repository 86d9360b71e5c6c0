//! The console demo without boards: two simulated player boards (`kriegspiel-board
//! simulate` behind socat pseudo-terminals) play one of the rule-set games of `tests/games`
//! at a human pace, `kriegspiel table` referees it and speaks, and this program prints what
//! the table says the way a spectator at the arbiter's desk would read it.
//!
//! `console/run.sh` builds the programs and starts this; by hand:
//! `cargo run -p kriegspiel-tests --example demo -- --kriegspiel target/release/kriegspiel
//!  --board target/release/kriegspiel-board [--rules ID] [--no-speech]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_tests::games::{self, Timing};
use kriegspiel_tests::process::play_table;
use serde_json::Value;

struct Args {
    kriegspiel: PathBuf,
    board: PathBuf,
    rules: String,
    speech: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        kriegspiel: PathBuf::from("target/release/kriegspiel"),
        board: PathBuf::from("target/release/kriegspiel-board"),
        rules: "cincinnati".to_owned(),
        speech: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--kriegspiel" => args.kriegspiel = PathBuf::from(value()?),
            "--board" => args.board = PathBuf::from(value()?),
            "--rules" => args.rules = value()?,
            "--no-speech" => args.speech = false,
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(args)
}

/// One table line as a spectator reads it.
fn describe(v: &Value) -> Option<String> {
    let text = v["text"].as_str().unwrap_or_default();
    if let Some(answer) = v["answer"].as_str() {
        let audience = if v["heard_by"] == "mover" {
            format!("  (to {} only)", v["color"].as_str().unwrap_or("the mover"))
        } else {
            String::new()
        };
        return Some(match (answer, v["try"].as_str(), v["ask"].as_str()) {
            ("new", _, _) => format!("REFEREE      {text}"),
            (_, Some(t), _) => format!(
                "{:<5} tries {t:<6} {text}{audience}",
                v["color"].as_str().unwrap_or("")
            ),
            (_, _, Some(q)) => format!(
                "{:<5} asks {q:<7} {text}",
                v["color"].as_str().unwrap_or("")
            ),
            _ => format!("REFEREE      {text}"),
        });
    }
    if let Some(c) = v["private"].as_str() {
        return Some(format!("  (to {c} only: {text})"));
    }
    if let Some(c) = v["link"].as_str() {
        return Some(format!(
            "  [{c} board {}]",
            v["event"].as_str().unwrap_or("")
        ));
    }
    v["final_fen"]
        .as_str()
        .map(|fen| format!("FINAL POSITION {fen}"))
}

fn run(args: Args) -> Result<(), String> {
    // A human pace: time to hear each announcement before the next man moves.
    let timing = Timing {
        start_ms: 2500,
        step_ms: 180,
        settle_ms: 300,
        after_verdict_ms: 900,
        react_ms: 1600,
        command_ms: 400,
    };
    let game = games::load(&args.rules, timing).map_err(|e| e.to_string())?;
    println!(
        "Demo: {} ({} plies) on two simulated boards.",
        game.def.name,
        game.def.plies.len()
    );
    println!("House rules: only your own men carry magnets; guess men of the other colour are unmagnetised.\n");
    let mut table_args = vec!["--settle-ms".to_owned(), timing.settle_ms.to_string()];
    if !args.speech {
        table_args.push("--no-speech".to_owned());
    }
    let run = play_table(
        &game,
        &args.kriegspiel,
        &args.board,
        &table_args,
        None,
        Duration::from_millis(game.duration_ms + 120_000),
        |v| {
            if let Some(s) = describe(v) {
                println!("{s}");
            }
        },
    )?;
    for line in &run.stderr {
        eprintln!("{line}");
    }
    if !run.status.success() {
        return Err(format!("the table ended with {}", run.status));
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_args().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}
