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

/// A link at --port that is not a dead emulator's is left alone: another program's link,
/// or a running emulator's (a second one on its port would cut it off, then delete the
/// link it uses). A link to a pseudo-terminal that is gone is an emulator's left behind by
/// a kill, and is replaced.
#[test]
fn a_link_still_in_use_is_not_replaced_and_a_dead_ones_is() {
    let dir = tempfile::tempdir().unwrap();
    let port = dir.path().join("dgt");
    std::fs::write(dir.path().join("notes"), b"mine").unwrap();
    std::os::unix::fs::symlink(dir.path().join("notes"), &port).unwrap();
    let out = emulate(dir.path(), "occupied start\n", &["--exit-after", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("which is there (another emulator's"), "{err}");
    assert_eq!(std::fs::read(&port).unwrap(), b"mine");
    std::fs::remove_file(&port).unwrap();

    // A running emulator's link.
    let script = dir.path().join("long.txt");
    std::fs::write(&script, "occupied start\n").unwrap();
    let mut first = Command::new(BIN)
        .arg("dgt-emulate")
        .arg("--script")
        .arg(&script)
        .arg("--port")
        .arg(&port)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::read_link(&port).is_err() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let theirs = std::fs::read_link(&port).unwrap();
    let out = emulate(dir.path(), "occupied start\n", &["--exit-after", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_link(&port).unwrap(), theirs);
    first.kill().unwrap();
    first.wait().unwrap();

    // Killed, it left its link to a pseudo-terminal now gone: the next one replaces it.
    std::fs::remove_file(&port).unwrap();
    std::os::unix::fs::symlink("/dev/pts/999999", &port).unwrap();
    let out = emulate(dir.path(), "occupied start\n", &["--exit-after", "0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::symlink_metadata(&port).is_err());
}

/// Line noise larger than a pseudo-terminal holds, with no PC reading: the emulator still
/// stops when --exit-after says (it waited for ever on a full line before).
#[test]
fn a_full_line_never_holds_the_emulator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("board.txt");
    std::fs::write(&path, "occupied start\n0 garbage 20000\n").unwrap();
    let mut child = Command::new(BIN)
        .arg("dgt-emulate")
        .arg("--quiet")
        .arg("--script")
        .arg(&path)
        .arg("--port")
        .arg(dir.path().join("dgt"))
        .args(["--exit-after", "500"])
        .spawn()
        .unwrap();
    // A hang, not a speed, is what is tested: a minute is far beyond the half second.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}
