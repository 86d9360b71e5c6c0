//! The command line: self-test on simulated pins, and `run` / `self-test` off a Raspberry Pi.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_kriegspiel-board");

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One magnet walked over a1 .. h8: placed for 100 ms, lifted for 100 ms.
fn walk_script() -> String {
    let mut text = String::from("# self-test walk\n");
    for i in 0..64u32 {
        let name = format!("{}{}", (b'a' + (i % 8) as u8) as char, i / 8 + 1);
        text += &format!("{} place {name}\n{} lift {name}\n", i * 200, i * 200 + 100);
    }
    text
}

fn self_test(dir: &Path, extra: &[&str]) -> Output {
    let script = file(dir, "walk.txt", &walk_script());
    Command::new(BIN)
        .args(["self-test", "--simulate", "--script"])
        .arg(script)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_healthy_simulated_board_passes_the_self_test() {
    let dir = tempfile::tempdir().unwrap();
    let out = self_test(dir.path(), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("squares that closed cleanly: 64 of 64"),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with("PASS"), "{stdout}");
}

#[test]
fn the_self_test_names_dead_shorted_and_chattering_squares() {
    let dir = tempfile::tempdir().unwrap();
    let out = self_test(
        dir.path(),
        &["--dead", "e4", "--short", "b2:c2", "--chatter", "g7"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    for line in [
        "squares that closed cleanly: 60 of 64",
        "never closed: e4 g7",
        "  b2 with c2",
        "  c2 with b2",
        "asked for e4, f4 closed instead",
        "chatter (flips the debouncer filtered): g7 (",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    assert!(stdout.trim_end().ends_with("FAIL"), "{stdout}");
}

#[test]
fn self_test_rejects_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = self_test(dir.path(), &["--dead", "z9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'z9' is not a square"));
    let out = self_test(dir.path(), &["--short", "b2:b2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'b2:b2' names one square twice"));
    let bad = file(
        dir.path(),
        "bad.txt",
        "occupied a1\n10 lift a1\n20 lift a1\n",
    );
    let out = Command::new(BIN)
        .args(["self-test", "--simulate", "--script"])
        .arg(bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("script line 3: lift a1: there is no magnet on a1"),
        "{stderr}"
    );
}

const CONFIG: &str = "board_id = 3\n[matrix]\nrows = [5, 6, 13, 19, 26, 16, 20, 21]\ncols = [4, 17, 27, 22, 23, 24, 25, 12]\n";

#[test]
fn run_and_self_test_off_a_pi_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let config = file(dir.path(), "board.toml", CONFIG);
    for args in [
        vec!["run", "--port", "/dev/null", "--config"],
        vec!["self-test", "--config"],
    ] {
        let out = Command::new(BIN).args(&args).arg(&config).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot open the Raspberry Pi GPIO"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_bad_config_file_is_named_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = file(dir.path(), "board.toml", &CONFIG.replace("21]", "21, 2]"));
    let out = Command::new(BIN)
        .args(["run", "--port", "/dev/null", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("board.toml") && stderr.contains("[matrix] rows needs 8 BCM pins, found 9"),
        "{stderr}"
    );
}

/// Runs the program with a deadline, so that a regression fails instead of hanging.
fn output_within(mut command: Command, limit: std::time::Duration) -> Output {
    use std::process::Stdio;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn an_endless_script_ends_promptly_with_a_clear_error() {
    for args in [
        vec!["simulate", "--port", "/dev/null", "--script", "/dev/zero"],
        vec!["self-test", "--simulate", "--script", "/dev/zero"],
    ] {
        let mut command = Command::new(BIN);
        command.args(&args);
        let out = output_within(command, std::time::Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            "kriegspiel-board: /dev/zero: script line 1: line too long (more than 65536 bytes)"
        );
    }
}

#[test]
fn a_from_event_past_the_scripts_end_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let script = file(
        dir.path(),
        "s.txt",
        "occupied white\n10 lift e2\n20 place e4\n",
    );
    let out = Command::new(BIN)
        .args([
            "simulate",
            "--port",
            "/nonexistent/port",
            "--from-event",
            "3",
        ])
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--from-event 3: ") && stderr.contains("s.txt has only 2 events"),
        "{stderr}"
    );
}

#[test]
fn long_lines_and_large_files_are_one_short_error() {
    let dir = tempfile::tempdir().unwrap();
    // A script line over 64 KiB, after a good line.
    let script = file(
        dir.path(),
        "long.txt",
        &format!("occupied white\n10 lift {}\n", "e".repeat(70_000)),
    );
    let out = Command::new(BIN)
        .args(["simulate", "--port", "/dev/null", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("long.txt: script line 2: line too long (70008 bytes; the limit is 65536)"),
        "{stderr}"
    );
    // A bad square of 60,000 characters is quoted in at most 80.
    let script = file(
        dir.path(),
        "square.txt",
        &format!("occupied white\n10 lift {}\n", "e".repeat(60_000)),
    );
    let out = Command::new(BIN)
        .args(["simulate", "--port", "/dev/null", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.len() < 200, "{} bytes: {stderr}", stderr.len());
    assert!(stderr.contains("script line 2: 'eeee"), "{stderr}");
    // A config line over 64 KiB, and a config that never ends.
    let config = file(
        dir.path(),
        "board.toml",
        &format!("{CONFIG}# {}\n", "x".repeat(70_000)),
    );
    for (path, want) in [
        (
            config.as_path(),
            "board.toml: line 5 too long (70002 bytes; the limit is 65536)",
        ),
        (
            Path::new("/dev/zero"),
            "cannot read config file /dev/zero: file too large (the limit is 4194304 bytes)",
        ),
    ] {
        let mut command = Command::new(BIN);
        command
            .args(["run", "--port", "/dev/null", "--config"])
            .arg(path);
        let out = output_within(command, std::time::Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
    }
}

#[test]
fn toml_mistakes_are_one_line_naming_the_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let config = file(
        dir.path(),
        "board.toml",
        &CONFIG.replace("board_id", "bord_id"),
    );
    let out = Command::new(BIN)
        .args(["run", "--port", "/dev/null", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("board.toml: line 1, column 1: unknown field `bord_id`"),
        "{stderr}"
    );
}

#[test]
fn a_start_in_seconds_or_far_off_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let script = file(dir.path(), "s.txt", "occupied white\n100 lift e2\n");
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    for (value, reason) in [
        ((now_ms / 1000).to_string(), "more than a day from now"),
        (
            (now_ms + 2 * 86_400_000).to_string(),
            "more than a day from now",
        ),
        (
            "18446744073709551615".to_owned(),
            "more than a day from now",
        ),
        ("soon".to_owned(), "expected milliseconds since 1970"),
    ] {
        let out = Command::new(BIN)
            .args(["simulate", "--port", "/nonexistent/port", "--script"])
            .arg(&script)
            .args(["--start-at", &value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{value}: {stderr}");
        assert!(stderr.contains(reason), "{value}: {stderr}");
        assert!(stderr.contains("(date +%s%3N)"), "{value}: {stderr}");
    }
}

/// A board's broker user may send only as its own board: another id is refused before
/// anything is sent (the broker would drop every frame without a word), and a simulated
/// board without --board-id takes the user's.
#[test]
fn a_boards_broker_user_decides_its_id() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let script = file(dir.path(), "s.txt", "occupied white\n1000 lift e2\n");
    let password = file(dir.path(), "board-7.seat", "password = \"x\"\n");
    // Nothing listens on port 1 of this machine.
    let broker = [
        "--broker",
        "mqtt://127.0.0.1:1",
        "--username",
        "board-7",
        "--password-file",
    ];
    let mut other = Command::new(BIN);
    other
        .args(["simulate", "--board-id", "1", "--script"])
        .arg(&script)
        .args(broker)
        .arg(&password);
    let out = output_within(other, std::time::Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the broker user board-7 may send only as board 7, not as board 1"),
        "{stderr}"
    );
    let config = file(dir.path(), "board.toml", CONFIG);
    let mut run = Command::new(BIN);
    run.args(["run", "--config"])
        .arg(&config)
        .args(broker)
        .arg(&password);
    let out = output_within(run, std::time::Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The config file's board 3, before any pin is opened.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("may send only as board 7, not as board 3: give --board-id 7"),
        "{stderr}"
    );
    let mut own = Command::new(BIN)
        .args(["simulate", "--script"])
        .arg(&script)
        .args(broker)
        .arg(&password)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(own.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let _ = own.kill();
    let _ = own.wait();
    assert!(
        first.starts_with("kriegspiel-board: board 7: broker unreachable"),
        "{first}"
    );
}
