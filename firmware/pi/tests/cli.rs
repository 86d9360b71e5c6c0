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
