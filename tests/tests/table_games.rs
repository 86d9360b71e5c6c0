//! Whole games end to end: two `kriegspiel-board simulate` programs play the physical
//! handling of a game definition on pseudo-terminals (socat), `kriegspiel table` reads both
//! links, and its JSON lines must be exactly the referee's answers for the game, ending with
//! the expected final position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_table::kriegspiel_referee::shakmaty::{Color, Role};
use kriegspiel_table::PrivateMessage;
use kriegspiel_tests::games::{self, BuiltGame, Timing};
use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::process::{socat_cable, ChildGuard};
use serde_json::{json, Value};

fn lines_of(reader: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn color_id(c: Color) -> &'static str {
    games::color_id(c)
}

/// Runs one game and checks every line the table prints.
fn play(name: &str) {
    let timing = Timing::default();
    let game: BuiltGame = games::load(name, timing).unwrap_or_else(|e| panic!("{name}: {e}"));
    let kriegspiel = cargo_bin("kriegspiel", "kriegspiel");
    let board_bin = cargo_bin("kriegspiel-board", "kriegspiel-board");
    let dir = tempfile::tempdir().unwrap();
    let (_white_cable, white_board, white_console) =
        socat_cable(dir.path(), "white").unwrap_or_else(|e| panic!("{e}"));
    let (_black_cable, black_board, black_console) =
        socat_cable(dir.path(), "black").unwrap_or_else(|e| panic!("{e}"));

    let mut table = Command::new(&kriegspiel);
    table
        .arg("table")
        .arg("--white")
        .arg(&white_console)
        .arg("--black")
        .arg(&black_console)
        .args(game.table_args())
        .args(["--settle-ms", &timing.settle_ms.to_string(), "--no-speech"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut table = ChildGuard(table.spawn().expect("kriegspiel table starts"));
    let out = lines_of(table.0.stdout.take().unwrap());
    let err = lines_of(table.0.stderr.take().unwrap());
    let mut stdin = table.0.stdin.take().unwrap();

    let hold = game.duration_ms + 30_000;
    let mut boards = Vec::new();
    for (color, port) in [(Color::White, &white_board), (Color::Black, &black_board)] {
        let script = dir.path().join(format!("{}.script", color_id(color)));
        std::fs::write(&script, game.script(color).with_hold(hold).render()).unwrap();
        let child = Command::new(&board_bin)
            .arg("simulate")
            .arg("--script")
            .arg(&script)
            .arg("--port")
            .arg(port)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kriegspiel-board simulate starts");
        boards.push(ChildGuard(child));
    }

    // A player mistypes on his keypad first: an error on stderr, and the game goes on.
    writeln!(stdin, "this is not a command").unwrap();
    let deadline = Instant::now() + Duration::from_millis(game.duration_ms + 20_000);
    let mut answers: Vec<Value> = Vec::new();
    let mut privates: Vec<Value> = Vec::new();
    let mut links: Vec<Value> = Vec::new();
    let mut others: Vec<Value> = Vec::new();
    let mut sent = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match out.recv_timeout(left) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "{name}: timed out after {} answers of {}; last answers: {:#?}\nprivate: {privates:#?}\nlinks: {links:#?}\nstderr: {:?}",
                answers.len(),
                game.expected.len(),
                &answers[answers.len().saturating_sub(3)..],
                err.try_iter().collect::<Vec<_>>()
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("{name}: not a JSON line ({e}): {line}"));
        if v.get("answer").is_some() {
            let i = answers.len();
            assert!(
                i < game.expected.len(),
                "{name}: an answer more than expected: {v}"
            );
            assert_eq!(
                v, game.expected[i],
                "{name}: answer {i} differs (left: printed, right: expected); earlier private lines: {privates:?}"
            );
            answers.push(v);
            while let Some(c) = game.commands.get(sent) {
                if c.after_answers > answers.len() {
                    break;
                }
                writeln!(stdin, "{}", c.line).unwrap();
                stdin.flush().unwrap();
                sent += 1;
            }
        } else if v.get("private").is_some() {
            privates.push(v);
        } else if v.get("link").is_some() {
            links.push(v);
        } else {
            others.push(v);
        }
    }
    let status = table.0.wait().unwrap();
    assert!(status.success(), "{name}: table exited with {status}");
    assert_eq!(
        answers.len(),
        game.expected.len(),
        "{name}: answers missing"
    );
    assert_eq!(sent, game.commands.len());
    assert_eq!(
        others,
        [json!({"final_fen": game.final_fen})],
        "{name}: final position"
    );
    // The only private messages are the acknowledgements of the promotion choices.
    let chosen: Vec<Value> = game
        .commands
        .iter()
        .filter_map(|c| {
            let role = match c.line["promote"].as_str()? {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                _ => Role::Knight,
            };
            Some(json!({
                "private": c.line["color"],
                "text": PrivateMessage::PromotionChoice(role).text(game.lang),
            }))
        })
        .collect();
    assert_eq!(privates, chosen, "{name}: private messages");
    let mut connected: Vec<&str> = links.iter().map(|l| l["event"].as_str().unwrap()).collect();
    connected.sort_unstable();
    assert_eq!(
        connected,
        ["connected", "connected"],
        "{name}: link lines {links:?}"
    );
    let stderr: Vec<String> = err.try_iter().collect();
    assert!(
        stderr
            .iter()
            .any(|l| l.contains("bad command line on stdin")),
        "{name}: the bad keypad line was not reported: {stderr:?}"
    );
}

#[test]
fn table_game_cincinnati() {
    play("cincinnati");
}

#[test]
fn table_game_wild16() {
    play("wild16");
}

#[test]
fn table_game_traditional() {
    play("traditional");
}

#[test]
fn table_game_rand() {
    play("rand");
}

#[test]
fn table_game_berkeley() {
    play("berkeley");
}

#[test]
fn table_game_berkeley_any() {
    play("berkeley-any");
}

#[test]
fn table_game_russian() {
    play("russian");
}
