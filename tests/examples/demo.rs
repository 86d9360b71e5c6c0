//! The console demo without boards: two simulated player boards (`kriegspiel-board
//! simulate` behind socat pseudo-terminals) play one of the rule-set games of `tests/games`
//! at a human pace, `kriegspiel table` referees it and speaks, and this program prints what
//! the table says the way a spectator at the arbiter's desk would read it.
//!
//! `console/run.sh` builds the programs and starts this; by hand:
//! `cargo run -p kriegspiel-tests --example demo -- --kriegspiel target/release/kriegspiel
//!  --board target/release/kriegspiel-board [--rules ID] [--no-speech]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use kriegspiel_table::kriegspiel_referee::shakmaty::Color;
use kriegspiel_tests::games::{self, Timing};
use kriegspiel_tests::process::{socat_cable, ChildGuard};
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
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (_w, white_board, white_console) = socat_cable(dir.path(), "white")?;
    let (_b, black_board, black_console) = socat_cable(dir.path(), "black")?;
    println!(
        "Demo: {} ({} plies), two simulated boards on {} and {}.",
        game.def.name,
        game.def.plies.len(),
        white_console.display(),
        black_console.display()
    );
    println!("House rules: only your own men carry magnets; guess men of the other colour are unmagnetised.\n");

    let mut table = Command::new(&args.kriegspiel);
    table
        .arg("table")
        .arg("--white")
        .arg(&white_console)
        .arg("--black")
        .arg(&black_console)
        .args(game.table_args())
        .args(["--settle-ms", &timing.settle_ms.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if !args.speech {
        table.arg("--no-speech");
    }
    let mut table = ChildGuard(
        table
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", args.kriegspiel.display()))?,
    );
    let out = table.0.stdout.take().ok_or("no table output")?;
    let mut keypad = table.0.stdin.take().ok_or("no table input")?;

    let mut boards = Vec::new();
    for (color, port) in [(Color::White, &white_board), (Color::Black, &black_board)] {
        let script = dir
            .path()
            .join(format!("{}.script", games::color_id(color)));
        std::fs::write(
            &script,
            game.script(color)
                .with_hold(game.duration_ms + 60_000)
                .render(),
        )
        .map_err(|e| e.to_string())?;
        let child = Command::new(&args.board)
            .arg("simulate")
            .arg("--script")
            .arg(&script)
            .arg("--port")
            .arg(port)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", args.board.display()))?;
        boards.push(ChildGuard(child));
    }

    let mut answers = 0;
    let mut sent = 0;
    for line in BufReader::new(out).lines() {
        let line = line.map_err(|e| e.to_string())?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            println!("{line}");
            continue;
        };
        if let Some(s) = describe(&v) {
            println!("{s}");
        }
        if v.get("answer").is_some() {
            answers += 1;
            // The players' keypad: promotion choices and questions, at their moment.
            while let Some(c) = game.commands.get(sent) {
                if c.after_answers > answers {
                    break;
                }
                writeln!(keypad, "{}", c.line).map_err(|e| e.to_string())?;
                println!("  [keypad] {}", c.line);
                sent += 1;
            }
        }
    }
    let status = table.0.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("the table ended with {status}"));
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
