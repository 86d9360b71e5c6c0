//! Runs the example cases through the built `kriegspiel referee`, exactly as
//! tests/cases/README-referee.md describes: a new process per case, `new` first, every
//! command in order, the compared fields only, exit status 0 at end of input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases")
}

/// Feeds `lines` to a fresh referee and returns its answers and exit status.
fn run_referee(args: &[&str], lines: &[String]) -> (Vec<Value>, i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .arg("referee")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kriegspiel referee");
    {
        // A referee that refused its command line exits without reading: a broken pipe here
        // is part of what is tested, not a failure.
        let mut stdin = child.stdin.take().unwrap();
        let mut input = lines.join("\n");
        input.push('\n');
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    let answers = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("answer is not JSON: {l}: {e}")))
        .collect();
    (
        answers,
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Compares the fields the case format compares, with exact JSON types.
fn matches(expected: &Value, got: &Value) -> bool {
    if let Some(e) = expected.get("error") {
        return got.pointer("/error/code") == e.get("code") && got["error"]["message"].is_string();
    }
    let mut keys = vec!["answer", "heard_by", "to_move"];
    match expected["answer"].as_str() {
        Some("moved" | "new") => {
            keys.extend(["capture", "checks", "pawn_tries", "promotion", "end"])
        }
        Some("count") => keys.push("count"),
        _ => {}
    }
    keys.iter().all(|k| expected.get(*k) == got.get(*k)) && got["text"].is_string()
}

fn run_case_file(name: &str) -> usize {
    let text = std::fs::read_to_string(cases_dir().join(name)).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        count += 1;
        let case: Value = serde_json::from_str(line).unwrap();
        let mut new = json!({"cmd": "new", "rules": case["rules"], "options": case["options"]});
        if !case["fen"].is_null() {
            new["fen"] = case["fen"].clone();
        }
        let mut lines = vec![new.to_string()];
        for c in case["commands"].as_array().unwrap() {
            lines.push(match c {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        }
        let mut expected = vec![case["new_expect"].clone()];
        expected.extend(case["expect"].as_array().unwrap().iter().cloned());
        let (answers, status, stderr) = run_referee(&[], &lines);
        let label = format!("{} {} ({})", case["id"], case["rules"], case["title"]);
        if status != 0 {
            failures.push(format!("{label}: exit status {status}: {stderr}"));
        }
        if answers.len() != expected.len() {
            failures.push(format!(
                "{label}: {} answers for {} lines",
                answers.len(),
                expected.len()
            ));
            continue;
        }
        for (i, (e, g)) in expected.iter().zip(&answers).enumerate() {
            if !matches(e, g) {
                failures.push(format!(
                    "{label}: line {i} {}\n  expected {e}\n  got      {g}",
                    lines[i]
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}

#[test]
fn public_cases_pass() {
    assert!(run_case_file("referee-public.jsonl") >= 159);
}

#[test]
fn own_cases_pass() {
    assert!(run_case_file("referee-own.jsonl") >= 40);
}

#[test]
fn bad_lines_get_error_codes_and_leave_the_game_unchanged() {
    let lines: Vec<String> = [
        "not json",
        "",
        "[1,2]",
        "\"try\"",
        r#"{"move":"e2e4"}"#,
        r#"{"cmd":7}"#,
        r#"{"cmd":"dance"}"#,
        r#"{"cmd":"try"}"#,
        r#"{"cmd":"try","move":"E2E4"}"#,
        r#"{"cmd":"try","move":"e2e9"}"#,
        r#"{"cmd":"try","move":"e7e8k"}"#,
        r#"{"cmd":"try","move":42}"#,
        r#"{"cmd":"ask","what":"time"}"#,
        r#"{"cmd":"ask"}"#,
        r#"{"cmd":"new","rules":"chess960"}"#,
        r#"{"cmd":"new","rules":"rand","options":{"strict":true}}"#,
        r#"{"cmd":"new","options":{"colour":"blue"}}"#,
        r#"{"cmd":"new","rules":"rand","options":{"ladder":"maybe"}}"#,
        r#"{"cmd":"new","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
        r#"{"cmd":"new","fen":"rnbqkbnr/pppppppp"}"#,
        r#"{"cmd":"new","rules":"russian","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"}"#,
        r#"{"cmd":"try","move":"e2e4"}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (answers, status, _) = run_referee(&[], &lines);
    assert_eq!(status, 0);
    let codes: Vec<&str> = answers
        .iter()
        .map(|a| {
            a.pointer("/error/code")
                .and_then(Value::as_str)
                .unwrap_or("-")
        })
        .collect();
    assert_eq!(
        codes,
        [
            "bad-json",
            "bad-json",
            "bad-json",
            "bad-json",
            "unknown-command",
            "unknown-command",
            "unknown-command",
            "bad-move",
            "bad-move",
            "bad-move",
            "bad-move",
            "bad-move",
            "unknown-command",
            "unknown-command",
            "unknown-rules",
            "bad-option",
            "bad-option",
            "bad-option",
            "bad-fen",
            "bad-fen",
            "bad-setup",
            "-",
        ]
    );
    // The game the bad lines did not touch: the standard start, White to move.
    let last = answers.last().unwrap();
    assert_eq!(last["answer"], "moved");
    assert_eq!(last["to_move"], "black");
}

#[test]
fn undecodable_bytes_are_bad_json() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .arg("referee")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"cmd\":\"try\",\"move\":\"e2e4\xff\"}\n{\"cmd\":\"try\",\"move\":\"e2e4\"}")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[0]["error"]["code"], "bad-json");
    // The last line has no newline: it is still answered.
    assert_eq!(answers[1]["answer"], "moved");
}

#[test]
fn game_over_comes_after_bad_move_in_precedence() {
    let lines: Vec<String> = [
        r#"{"cmd":"new","fen":"k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"}"#,
        r#"{"cmd":"try","move":"a8a7"}"#,
        r#"{"cmd":"try","move":"a8"}"#,
        r#"{"cmd":"ask","what":"any"}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (answers, _, _) = run_referee(&[], &lines);
    assert_eq!(answers[0]["end"]["reason"], "stalemate");
    assert_eq!(answers[1]["error"]["code"], "game-over");
    assert_eq!(answers[2]["error"]["code"], "bad-move");
    assert_eq!(answers[3]["error"]["code"], "game-over");
}

#[test]
fn command_line_sets_defaults_and_bad_command_lines_exit_2() {
    let lines = vec![r#"{"cmd":"try","move":"e2e4"}"#.to_string()];
    let (answers, status, _) = run_referee(&["--rules", "rand", "--lang", "fr"], &lines);
    assert_eq!(status, 0);
    assert_eq!(answers[0]["promotion"], false);
    assert_eq!(answers[0]["text"], "Aux noirs.");
    let new = vec![r#"{"cmd":"new"}"#.to_string()];
    let (answers, _, _) = run_referee(
        &[
            "--rules",
            "rand",
            "--option",
            "ladder=true",
            "--fen",
            "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
        ],
        &new,
    );
    assert_eq!(answers[0]["end"]["result"], "1-0");
    for bad in [
        &["--rules", "chess960"][..],
        &["--option", "ladder=true"][..],
        &["--rules", "rand", "--option", "ladder"][..],
        &["--fen", "not a fen"][..],
        &["--lang", "de"][..],
        &["--rules", "russian", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1"][..],
    ] {
        let (answers, status, stderr) = run_referee(bad, &lines);
        assert_eq!(status, 2, "{bad:?}");
        assert!(answers.is_empty(), "{bad:?}");
        assert!(stderr.contains("kriegspiel referee:"), "{bad:?}: {stderr}");
    }
}
