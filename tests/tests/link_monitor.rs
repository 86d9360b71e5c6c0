#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `kriegspiel board-monitor` as a user runs it: the real board program -> pty -> relay ->
//! pty -> the monitor's JSON lines.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::{cargo_bin, name, Script};
use kriegspiel_tests::relay::Relay;
use serde_json::Value;

struct Monitor {
    child: Child,
    lines: mpsc::Receiver<Value>,
}

impl Monitor {
    fn start(path: &std::path::Path) -> Monitor {
        let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .arg("board-monitor")
            .arg(path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start kriegspiel board-monitor");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Monitor { child, lines }
    }

    fn next(&self, timeout: Duration) -> Value {
        self.lines
            .recv_timeout(timeout)
            .expect("no JSON line from board-monitor in time")
    }

    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        stderr
    }
}

#[test]
fn a_missing_port_is_reported_once_and_retried() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-board");
    let mut monitor = Monitor::start(&path);
    let line = monitor.next(Duration::from_secs(10));
    assert_eq!(line["event"], "open_failed", "{line}");
    let error = line["error"].as_str().unwrap();
    assert!(error.contains("no-such-board"), "{error}");
    // Still running and retrying, without repeating the same error.
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        monitor.child.try_wait().unwrap().is_none(),
        "board-monitor gave up"
    );
    assert!(
        monitor.lines.try_recv().is_err(),
        "the same error was printed again"
    );
    let stderr = monitor.stop();
    assert!(
        stderr.contains("cannot open") && stderr.contains("retrying"),
        "{stderr}"
    );
}

#[test]
fn board_monitor_prints_the_boards_events_as_json_lines() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    let dir = tempfile::tempdir().unwrap();
    let script = Script::random(15, 4, 300, 30, 10);
    let relay = Relay::start(dir.path(), None).unwrap();
    let monitor = Monitor::start(&relay.console_path);
    let script_path = dir.path().join("script.txt");
    std::fs::write(&script_path, script.to_text()).unwrap();
    let mut board = Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
        .arg("simulate")
        .arg("--script")
        .arg(&script_path)
        .arg("--port")
        .arg(&relay.board_path)
        .stdout(Stdio::null())
        .spawn()
        .expect("cannot start kriegspiel-board");

    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut moves = Vec::new();
    while moves.len() < script.moves.len() {
        assert!(Instant::now() < deadline, "missing moves; got {lines:#?}");
        let line = monitor.next(Duration::from_secs(10));
        match line["event"].as_str().unwrap() {
            "lift" | "place" => {
                assert!(line["board_ms"].is_u64(), "{line}");
                moves.push(format!(
                    "{} {}",
                    line["event"].as_str().unwrap(),
                    line["square"].as_str().unwrap()
                ));
            }
            "connected" | "resync" | "snapshot" => {
                assert!(line["health"]["frames"].is_u64(), "{line}")
            }
            other => panic!("unexpected event {other}: {line}"),
        }
        lines.push(line);
    }
    let expected: Vec<String> = script
        .moves
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                if m.place { "place" } else { "lift" },
                name(m.square)
            )
        })
        .collect();
    assert_eq!(moves, expected);
    assert_eq!(lines[0]["event"], "connected", "{lines:#?}");
    assert_eq!(lines[0]["protocol"], 1);
    assert_eq!(lines[1]["event"], "resync");
    assert_eq!(lines[1]["reason"], "connected");
    assert_eq!(lines[1]["squares"].as_array().unwrap().len(), 32);
    assert_eq!(lines[1]["occupancy"], "ffff00000000ffff");
    let _ = board.wait();
    monitor.stop();
}
