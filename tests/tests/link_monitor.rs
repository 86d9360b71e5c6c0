#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `kriegspiel board-monitor` as a user runs it: the real board program -> pty -> relay ->
//! pty -> the monitor's JSON lines.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::{cargo_bin, name, Script};
use kriegspiel_tests::process::socat_cable;
use kriegspiel_tests::relay::{FaultPlan, Relay};
use serde_json::Value;

struct Monitor {
    child: Child,
    lines: mpsc::Receiver<Value>,
}

impl Monitor {
    fn start(path: &std::path::Path) -> Monitor {
        Monitor::start_with(path, &[])
    }

    fn start_with(path: &std::path::Path, flags: &[&str]) -> Monitor {
        let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .arg("board-monitor")
            .arg(path)
            .args(flags)
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

    /// Lines (with their arrival time) up to and including the first that `stop` accepts.
    fn until(&self, deadline: Instant, stop: impl Fn(&Value) -> bool) -> Vec<(Instant, Value)> {
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = self.lines.recv_timeout(left) else {
                panic!("board-monitor: the awaited line did not come; got {lines:#?}");
            };
            let done = stop(&line);
            lines.push((Instant::now(), line));
            if done {
                return lines;
            }
        }
    }

    fn child_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
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
fn a_regular_file_given_as_the_port_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "not a board\n").unwrap();
    let monitor = Monitor::start(&path);
    let line = monitor.next(Duration::from_secs(10));
    assert_eq!(line["event"], "open_failed", "{line}");
    let error = line["error"].as_str().unwrap();
    assert!(
        error.contains("notes.txt: it is a regular file, not a serial port"),
        "{error}"
    );
    let stderr = monitor.stop();
    assert!(stderr.contains("not a serial port"), "{stderr}");
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

/// The board program playing `script` into `port`, printing nothing.
fn board_program(
    dir: &std::path::Path,
    name: &str,
    script: &Script,
    port: &std::path::Path,
) -> Child {
    let script_path = dir.join(name);
    std::fs::write(&script_path, script.to_text()).unwrap();
    Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
        .arg("simulate")
        .arg("--quiet")
        .arg("--script")
        .arg(&script_path)
        .arg("--port")
        .arg(port)
        .stdout(Stdio::null())
        .spawn()
        .expect("cannot start kriegspiel-board")
}

fn event(line: &Value) -> &str {
    line["event"].as_str().unwrap_or("")
}

fn moves_of(lines: &[(Instant, Value)]) -> Vec<String> {
    lines
        .iter()
        .filter(|(_, l)| matches!(event(l), "lift" | "place"))
        .map(|(_, l)| format!("{} {}", event(l), l["square"].as_str().unwrap_or("?")))
        .collect()
}

fn script_moves(script: &Script) -> Vec<String> {
    script
        .moves
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                if m.place { "place" } else { "lift" },
                name(m.square)
            )
        })
        .collect()
}

#[test]
fn confirming_snapshots_are_not_printed_and_a_repeated_disconnect_is_printed_once() {
    // A socat cable (not the in-process relay): killing socat really pulls the cable, as
    // no other process can hold an inherited copy of its pseudo-terminals.
    let dir = tempfile::tempdir().unwrap();
    let (cable, board_path, console_path) = socat_cable(dir.path(), "cable").unwrap();
    let monitor = Monitor::start(&console_path);
    // Moves for about 1.5 s: three periodic snapshots at least, and the opening ones.
    let first = Script::random(4, 11, 300, 150, 20);
    let mut board = board_program(dir.path(), "first.txt", &first, &board_path);
    let deadline = Instant::now() + Duration::from_secs(30);
    // The board exits after its last move; 1.5 s of silence later the link declares it gone.
    let mut lines = monitor.until(deadline, |l| event(l) == "disconnected");
    let _ = board.wait();
    // The link reopens the (still present) port; now pull the cable: a second disconnect,
    // with no connection in between.
    std::thread::sleep(Duration::from_millis(700));
    drop(cable);
    lines.extend(monitor.until(deadline, |l| event(l) == "open_failed"));
    // Plug in again and play a second board: it connects, its counters show two disconnects.
    for stale in [&board_path, &console_path] {
        let _ = std::fs::remove_file(stale);
    }
    let (_cable, board_path, _) = socat_cable(dir.path(), "cable").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let second = Script::random(2, 12, 500, 150, 20);
    let mut board = board_program(dir.path(), "second.txt", &second, &board_path);
    let want = first.moves.len() + second.moves.len();
    while moves_of(&lines).len() < want {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = monitor
            .lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("missing moves; got {lines:#?}"));
        lines.push((Instant::now(), line));
    }
    let _ = board.wait();
    monitor.stop();

    let events: Vec<&str> = lines.iter().map(|(_, l)| event(l)).collect();
    assert!(
        !events.contains(&"snapshot"),
        "snapshots that agree with the moves were printed: {events:?}"
    );
    let connected: Vec<usize> = (0..events.len())
        .filter(|&i| events[i] == "connected")
        .collect();
    assert_eq!(connected.len(), 2, "{events:?}");
    let disconnected: Vec<usize> = (0..events.len())
        .filter(|&i| events[i] == "disconnected")
        .collect();
    assert_eq!(
        disconnected.len(),
        1,
        "two disconnects in a row are one line: {events:?}"
    );
    assert!(
        connected[0] < disconnected[0] && disconnected[0] < connected[1],
        "{events:?}"
    );
    let again = &lines[connected[1]].1;
    assert_eq!(again["health"]["disconnects"], 2, "{again}");
    assert_eq!(events[connected[0] + 1], "resync", "{events:?}");
    assert_eq!(events[connected[1] + 1], "resync", "{events:?}");
    let mut expected = script_moves(&first);
    expected.extend(script_moves(&second));
    assert_eq!(moves_of(&lines), expected);
}

#[test]
fn verbose_prints_every_snapshot_and_health_prints_the_counters_every_second() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start(dir.path(), None).unwrap();
    let monitor = Monitor::start_with(&relay.console_path, &["--verbose", "--health"]);
    let script = Script::random(4, 13, 300, 300, 20);
    let mut board = board_program(dir.path(), "script.txt", &script, &relay.board_path);
    let lines = monitor.until(Instant::now() + Duration::from_secs(30), |l| {
        event(l) == "disconnected"
    });
    let _ = board.wait();
    monitor.stop();

    assert_eq!(moves_of(&lines), script_moves(&script));
    // About 2.7 s of moves: a snapshot every 450 ms, each with the counters.
    let snapshots: Vec<&Value> = lines
        .iter()
        .map(|(_, l)| l)
        .filter(|l| event(l) == "snapshot")
        .collect();
    assert!(snapshots.len() >= 4, "{lines:#?}");
    assert!(snapshots.iter().all(|l| l["health"]["frames"].is_u64()));
    // A health line every second, whatever changed (nothing, on this clean link): not one
    // per report.
    let health: Vec<&Value> = lines
        .iter()
        .map(|(_, l)| l)
        .filter(|l| event(l) == "health")
        .collect();
    let seconds = (lines[lines.len() - 1].0 - lines[0].0).as_secs_f64();
    assert!(
        health.len() >= 2 && health.len() as f64 <= seconds + 2.0,
        "{} health lines in {seconds:.1} s: {lines:#?}",
        health.len()
    );
    for line in &health {
        assert_eq!(line["health"]["crc_errors"], 0, "{line}");
        assert!(line["health"]["frames"].is_u64(), "{line}");
    }
}

#[test]
fn damaged_and_repeated_frames_get_a_health_line_when_the_counters_change() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    let dir = tempfile::tempdir().unwrap();
    let faults = FaultPlan {
        corrupt: 0.15,
        drop: 0.0,
        duplicate: 0.15,
        seed: 14,
    };
    let relay = Relay::start(dir.path(), Some(faults)).unwrap();
    let monitor = Monitor::start(&relay.console_path);
    let script = Script::random(4, 14, 300, 300, 20);
    let mut board = board_program(dir.path(), "script.txt", &script, &relay.board_path);
    let lines = monitor.until(Instant::now() + Duration::from_secs(30), |l| {
        event(l) == "disconnected"
    });
    let _ = board.wait();
    monitor.stop();
    let stats = relay.stats();
    assert!(stats.corrupted + stats.duplicated > 0, "{stats:?}");

    const QUIET: [&str; 8] = [
        "crc_errors",
        "cobs_errors",
        "decode_errors",
        "gaps",
        "missed_frames",
        "duplicates",
        "mismatches",
        "skipped_events",
    ];
    let mut shown: Option<&Value> = None;
    let mut health_lines = 0;
    for (_, line) in &lines {
        assert_ne!(event(line), "snapshot", "{line}");
        if event(line) == "health" {
            health_lines += 1;
            let changed: Vec<&str> = line["changed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert!(!changed.is_empty(), "{line}");
            for name in &changed {
                assert!(QUIET.contains(name), "{line}");
                let before = shown.map_or(0, |h| h[name].as_u64().unwrap());
                assert_ne!(line["health"][name].as_u64().unwrap(), before, "{line}");
            }
        }
        if line.get("health").is_some() {
            shown = Some(&line["health"]);
        }
    }
    assert!(health_lines > 0, "no health line: {lines:#?}");
    // The last line (disconnected) carries every fault the link saw.
    let last = shown.unwrap();
    let seen = ["crc_errors", "cobs_errors", "decode_errors", "duplicates"]
        .iter()
        .map(|c| last[c].as_u64().unwrap())
        .sum::<u64>();
    assert!(seen > 0, "{last}");
}

/// A line speed no UART runs at is refused with the range, before any port is opened.
#[test]
fn a_line_speed_out_of_range_is_refused() {
    for baud in ["0", "9000000"] {
        let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["board-monitor", "/nonexistent/port", "--baud", baud])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{baud}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not in 50..=4000000"), "{baud}: {err}");
    }
}

#[test]
fn a_board_flooding_alternating_protocol_versions_is_said_once_per_version() {
    use kriegspiel_link::{encode, BoardMsg, Frame};
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (_cable, board, console) = socat_cable(dir.path(), "flood").unwrap();
    let monitor = Monitor::start(&console);
    let mut port = std::fs::OpenOptions::new()
        .write(true)
        .open(&board)
        .unwrap();
    const HELLOS: u16 = 100;
    let hello = |seq: u16| {
        let frame = Frame {
            seq,
            body: BoardMsg::Hello {
                protocol: 9000 + seq % 2,
                firmware: [0, 0, 1],
                board_id: 7,
            },
        };
        let mut out = [0u8; kriegspiel_link::MAX_FRAME];
        let n = encode(&frame, &mut out).unwrap();
        out[..n].to_vec()
    };
    // The first until the monitor has the port open and has heard it...
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        port.write_all(&hello(0)).unwrap();
        match monitor.lines.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if event(&line) == "version_mismatch" => break,
            _ => assert!(Instant::now() < deadline, "the first Hello was not heard"),
        }
    }
    // ...then the flood: every Hello that changes what the board speaks is a line on stdout,
    let bytes: Vec<u8> = (1..HELLOS).flat_map(hello).collect();
    port.write_all(&bytes).unwrap();
    let mut mismatches = 1;
    while mismatches < HELLOS {
        let lines = monitor.until(deadline, |l| event(l) == "version_mismatch");
        mismatches += 1;
        assert!(lines.len() <= 2, "{lines:#?}");
    }
    // but the operator's terminal is told of each version once.
    let stderr = monitor.stop();
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("protocol version"))
        .collect();
    assert_eq!(said.len(), 2, "{stderr}");
    assert!(said[0].contains("version 9000"), "{stderr}");
    assert!(said[1].contains("version 9001"), "{stderr}");
}

/// A port that opens where no board ever answers (a DGT board named without `dgt:`, a
/// board switched off) is said after 10 s, once, naming dgt:PATH; the greeting goes on.
#[test]
fn a_port_where_no_board_answers_is_said_after_10_s() {
    let dir = tempfile::tempdir().unwrap();
    let (_cable, _board_end, console_end) = socat_cable(dir.path(), "cable").unwrap();
    let mut monitor = Monitor::start(&console_end);
    let line = monitor.next(Duration::from_secs(20));
    assert_eq!(line["event"], "open_failed", "{line}");
    let error = line["error"].as_str().unwrap();
    assert!(
        error.contains("no board has answered its greeting in 10 s")
            && error.contains("A DGT e-board is named dgt:PATH"),
        "{error}"
    );
    assert!(monitor.child_running(), "board-monitor gave up");
    let stderr = monitor.stop();
    assert!(stderr.contains("no board has answered"), "{stderr}");
}
