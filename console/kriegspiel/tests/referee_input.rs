//! `kriegspiel referee` through the built binary: bounded input (a 200 MB line is one
//! `line-too-long` error and costs no memory), byte-order mark, answers flushed while the
//! input stays open, and the protocol rulings of the hardening issue (duplicate keys,
//! variant FENs, the rebuff count before the opponent has moved).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

fn spawn(args: &[&str]) -> (Child, ChildStdin, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .arg("referee")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start kriegspiel referee");
    let stdin = child.stdin.take().unwrap();
    let lines = answer_lines(child.stdout.take().unwrap());
    (child, stdin, lines)
}

/// The child's output lines, read on a thread so that a missing answer fails the test
/// (after a timeout) instead of hanging it.
fn answer_lines(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn next_answer(rx: &mpsc::Receiver<String>) -> Value {
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("an answer within 60 s");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"))
}

/// The peak resident set of a live process, in KiB (Linux).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

/// Ends the session: closes the input, expects no further answer and exit status 0.
fn finish(mut child: Child, stdin: ChildStdin, rx: &mpsc::Receiver<String>) {
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(rest.is_empty(), "unexpected answers: {rest:?}");
}

#[test]
fn a_200_mb_line_is_one_error_and_memory_stays_small() {
    const LINE_BYTES: usize = 200 * 1024 * 1024;
    let (child, mut stdin, rx) = spawn(&[]);
    let pid = child.id();
    // Streamed from a thread in 64 KiB pieces: neither side ever holds the line.
    let writer = thread::spawn(move || {
        let chunk = vec![b'x'; 64 * 1024];
        stdin.write_all(br#"{"cmd":"try","move":""#).unwrap();
        let mut sent = 0;
        while sent < LINE_BYTES {
            let n = chunk.len().min(LINE_BYTES - sent);
            stdin.write_all(&chunk[..n]).unwrap();
            sent += n;
        }
        stdin.write_all(b"\"}\n").unwrap();
        stdin
            .write_all(b"{\"cmd\":\"try\",\"move\":\"e2e4\"}\n")
            .unwrap();
        stdin
    });
    let first = next_answer(&rx);
    assert_eq!(first["error"]["code"], "line-too-long", "{first}");
    let message = first["error"]["message"].as_str().unwrap();
    assert!(message.len() < 200, "{message}");
    let second = next_answer(&rx);
    assert_eq!(second["answer"], "moved", "{second}");
    assert_eq!(second["to_move"], "black");
    // The input is still open and the referee waits for more: its peak memory so far is
    // the whole run's.
    let stdin = writer.join().unwrap();
    let peak_kib = peak_rss_kib(pid);
    eprintln!("peak RSS of kriegspiel referee after a 200 MB line: {peak_kib} KiB");
    assert!(
        peak_kib < 20 * 1024,
        "peak RSS {peak_kib} KiB, more than 20 MB"
    );
    finish(child, stdin, &rx);
}

#[test]
fn answers_are_flushed_while_the_input_stays_open() {
    let (child, mut stdin, rx) = spawn(&["--rules", "rand"]);
    stdin
        .write_all(b"{\"cmd\":\"try\",\"move\":\"e2e4\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    let a = next_answer(&rx);
    assert_eq!(a["answer"], "moved");
    // Half a line, then its end: the answer comes once the line is complete.
    stdin.write_all(b"{\"cmd\":\"try\",").unwrap();
    stdin.flush().unwrap();
    thread::sleep(Duration::from_millis(50));
    stdin.write_all(b"\"move\":\"e7e5\"}\n").unwrap();
    stdin.flush().unwrap();
    let b = next_answer(&rx);
    assert_eq!(b["answer"], "moved");
    assert_eq!(b["to_move"], "white");
    // Several lines in one write: every answer, without closing the input.
    stdin
        .write_all(b"{\"cmd\":\"try\",\"move\":\"e1e3\"}\n{\"cmd\":\"ask\",\"what\":\"rebuffs\"}\n{\"cmd\":\"try\",\"move\":\"g1f3\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    assert_eq!(next_answer(&rx)["answer"], "impossible");
    assert_eq!(next_answer(&rx)["count"], 0);
    assert_eq!(next_answer(&rx)["answer"], "moved");
    finish(child, stdin, &rx);
}

#[test]
fn the_line_limit_is_64_kib_and_a_bom_is_skipped() {
    let (child, mut stdin, rx) = spawn(&[]);
    let command = br#"{"cmd":"try","move":"e2e4"}"#;
    // Exactly 64 KiB (JSON allows the padding spaces): read as usual...
    let mut at_limit = command.to_vec();
    at_limit.resize(64 * 1024, b' ');
    // ...and one byte more: refused unread.
    let mut over = command.to_vec();
    over.resize(64 * 1024 + 1, b' ');
    stdin.write_all(b"\xEF\xBB\xBF").unwrap();
    stdin.write_all(&over).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.write_all(&at_limit).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin
        .write_all(b"{\"cmd\":\"try\",\"move\":\"e7e5\xff\"}\n")
        .unwrap();
    stdin
        .write_all(b"{\"cmd\":\"try\",\"move\":\"e7e5\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    assert_eq!(next_answer(&rx)["error"]["code"], "line-too-long");
    assert_eq!(next_answer(&rx)["answer"], "moved");
    let bad = next_answer(&rx);
    assert_eq!(bad["error"]["code"], "bad-json");
    assert_eq!(next_answer(&rx)["answer"], "moved");
    finish(child, stdin, &rx);

    // A byte-order mark before the first line is not part of it.
    let (child, mut stdin, rx) = spawn(&[]);
    stdin
        .write_all(b"\xEF\xBB\xBF{\"cmd\":\"try\",\"move\":\"e2e4\"}\n")
        .unwrap();
    stdin.flush().unwrap();
    assert_eq!(next_answer(&rx)["answer"], "moved");
    finish(child, stdin, &rx);
}

#[test]
fn duplicate_keys_variant_fens_and_early_rebuffs() {
    let (child, mut stdin, rx) = spawn(&["--rules", "rand"]);
    let long = "y".repeat(5000);
    let lines = [
        r#"{"cmd":"try","move":"e2e4","move":"d2d4"}"#.to_owned(),
        r#"{"cmd":"new","rules":"rand","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1"}"#.to_owned(),
        r#"{"cmd":"new","rules":"rand","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ~KBNR w KQkq - 0 1"}"#.to_owned(),
        r#"{"cmd":"new","rules":"rand","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1"}"#.to_owned(),
        r#"{"cmd":"new","rules":"rand","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +0+0"}"#.to_owned(),
        format!(r#"{{"cmd":"try","move":"{long}"}}"#),
        r#"{"cmd":"ask","what":"rebuffs"}"#.to_owned(),
        r#"{"cmd":"try","move":"e2e5"}"#.to_owned(),
        r#"{"cmd":"try","move":"e2e4"}"#.to_owned(),
        r#"{"cmd":"ask","what":"rebuffs"}"#.to_owned(),
    ];
    for l in &lines {
        stdin.write_all(l.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let answers: Vec<Value> = lines.iter().map(|_| next_answer(&rx)).collect();
    assert_eq!(answers[0]["error"]["code"], "bad-json");
    assert!(answers[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("duplicate key 'move'"));
    for a in &answers[1..5] {
        assert_eq!(a["error"]["code"], "bad-fen", "{a}");
    }
    assert_eq!(answers[5]["error"]["code"], "bad-move");
    assert!(answers[5]["error"]["message"].as_str().unwrap().len() < 200);
    // Nothing above changed the game: White to move, and Black has not moved yet.
    assert_eq!(answers[6]["answer"], "count");
    assert_eq!(answers[6]["count"], 0);
    assert_eq!(answers[6]["opponent_moved"], false);
    assert_eq!(answers[6]["text"], "Black has not moved yet.");
    assert_eq!(answers[7]["answer"], "impossible");
    assert_eq!(answers[8]["answer"], "moved");
    assert_eq!(answers[9]["count"], 1);
    assert_eq!(answers[9]["opponent_moved"], true);
    assert_eq!(answers[9]["text"], "White had 1 rebuff.");
    finish(child, stdin, &rx);
}
