//! `kriegspiel board-monitor dgt:PATH` watching `kriegspiel-board dgt-emulate` over its
//! pseudo-terminal: the lines an operator sees for a move, a foreign object and an unplug.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Builds the board program (another package's binary).
fn board_program() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "-p",
            "kriegspiel-board",
            "--bin",
            "kriegspiel-board",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "building kriegspiel-board failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("debug")
        .join("kriegspiel-board")
}

/// Kills its child on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_monitor_prints_connection_settled_positions_foreign_objects_and_an_unplug() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("board.txt");
    std::fs::write(
        &script,
        "occupied start\n1500 lift e2\n1550 place e4\n2500 place d5 Z\n3500 unplug\n",
    )
    .unwrap();
    let port = dir.path().join("dgt");
    let _emulator = Killed(
        Command::new(board_program())
            .args(["dgt-emulate", "--quiet", "--script"])
            .arg(&script)
            .arg("--port")
            .arg(&port)
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !port.exists() {
        assert!(Instant::now() < deadline, "no port from the emulator");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut monitor = Killed(
        Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
            .arg("board-monitor")
            .arg(format!("dgt:{}", port.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = monitor.0.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines: Vec<Value> = Vec::new();
    let until = Instant::now() + Duration::from_millis(5000);
    while let Ok(line) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        lines.push(serde_json::from_str(&line).unwrap());
        if lines.iter().any(|l| l["event"] == "lost") {
            break;
        }
    }
    let shown: Vec<String> = lines
        .iter()
        .map(|l| match l["event"].as_str().unwrap() {
            "position" => format!("position {} {}", l["board"], l["foreign"]),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(
        shown[..4],
        [
            "connected".to_owned(),
            "position \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\" []".to_owned(),
            "position \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\" []".to_owned(),
            "position \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\" [{\"code\":15,\"square\":\"d5\"}]"
                .to_owned(),
        ],
        "{lines:?}"
    );
    assert_eq!(lines[0]["serial"], "12345");
    assert_eq!(lines.last().unwrap()["event"], "lost", "{lines:?}");
}
