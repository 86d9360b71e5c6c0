//! `kriegspiel-board dgt-emulate` as a program: its help, its refusals, its port link.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kriegspiel-board");

fn emulate(dir: &std::path::Path, script: &str, args: &[&str]) -> std::process::Output {
    let path = dir.join("board.txt");
    std::fs::write(&path, script).unwrap();
    Command::new(BIN)
        .arg("dgt-emulate")
        .arg("--script")
        .arg(&path)
        .arg("--port")
        .arg(dir.join("dgt"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn help_documents_the_script_and_every_fault() {
    let out = Command::new(BIN)
        .args(["dgt-emulate", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for word in [
        "flicker",
        "garbage",
        "truncated",
        "eeprom",
        "silence",
        "unplug",
        "replug",
        "--serial",
        "--bluetooth",
        "--rotated",
        "bus mode",
        "10 bytes",
    ] {
        assert!(help.contains(word), "--help lacks {word}:\n{help}");
    }
}

#[test]
fn a_bad_script_is_refused_before_any_port_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let out = emulate(dir.path(), "occupied start\n100 lift e4\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with("board.txt: script line 2: lift e4: there is no man on e4\n"),
        "{err}"
    );
    assert!(!dir.path().join("dgt").exists());
}

#[test]
fn a_port_path_that_is_no_link_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dgt"), b"mine").unwrap();
    let out = emulate(dir.path(), "occupied start\n", &["--exit-after", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("exists and is not a symbolic link"), "{err}");
    assert_eq!(std::fs::read(dir.path().join("dgt")).unwrap(), b"mine");
}

#[test]
fn it_links_the_port_plays_the_script_and_removes_the_link_when_done() {
    let dir = tempfile::tempdir().unwrap();
    let out = emulate(
        dir.path(),
        "occupied start\n50 lift e2\n60 place e4\n100 unplug\n150 replug 3000147740\n",
        &["--exit-after", "100", "--serial", "01025"],
    );
    assert!(out.status.success());
    let lines = String::from_utf8(out.stdout).unwrap();
    let said: Vec<&str> = lines
        .lines()
        .map(|l| l.split(" at ").next().unwrap_or(""))
        .collect();
    assert!(
        said[0].starts_with("board 01025 (firmware 1.02) on /dev/pts/"),
        "{lines}"
    );
    assert_eq!(
        said[1..5],
        ["lift e2", "place e4 P", "unplug", "replug 3000147740"],
        "{lines}"
    );
    assert!(said[5].starts_with("board 47740 on /dev/pts/"), "{lines}");
    assert!(!dir.path().join("dgt").exists());
}
