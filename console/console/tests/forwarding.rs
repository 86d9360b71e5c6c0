//! `kriegspiel console …` and `kriegspiel` alone run this program with the same arguments.
//! The `kriegspiel` binary is the one cargo built beside this one (tests/run.sh builds it first).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

fn kriegspiel() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_kriegspiel-console")).with_file_name("kriegspiel");
    assert!(
        p.is_file(),
        "{} is missing: cargo build -p kriegspiel --bin kriegspiel",
        p.display()
    );
    p
}

#[test]
fn kriegspiel_console_passes_its_arguments_to_the_window_program() {
    let out = Command::new(kriegspiel())
        .args(["console", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Usage: kriegspiel-console"), "{text}");
    assert!(text.contains("--sync-alert"), "{text}");
    // A bad option is the window program's own error. `kriegspiel` alone runs the window:
    // options alone go to it too, and --tables needs no --demo (the demo is the default).
    for args in [
        &["console", "--tables", "0", "--demo"][..],
        &["--tables", "0", "--no-speech"][..],
    ] {
        let out = Command::new(kriegspiel()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("kriegspiel-console: --tables: 1 to 64"),
            "{args:?}: {err}"
        );
    }
    let out = Command::new(kriegspiel()).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Usage: kriegspiel [COMMAND]"), "{text}");
}

#[test]
fn without_the_window_program_kriegspiel_console_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("kriegspiel");
    std::fs::copy(kriegspiel(), &alone).unwrap();
    let out = Command::new(&alone)
        .arg("console")
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("cannot run the window program kriegspiel-console")
            && err.contains("cargo build --release -p kriegspiel-console"),
        "{err}"
    );
}
