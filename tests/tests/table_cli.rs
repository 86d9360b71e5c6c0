//! `kriegspiel table` on its own: bad command lines, speech program present or missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::cargo_bin;
use serde_json::Value;

fn table(args: &[&str], path_env: &Path) -> Command {
    let mut c = Command::new(cargo_bin("kriegspiel", "kriegspiel"));
    c.arg("table")
        .args(args)
        .env("PATH", path_env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn bad_command_lines_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let ports = ["--white", "/nonexistent/w", "--black", "/nonexistent/b"];
    for (extra, reason) in [
        (&["--rules", "chess"][..], "chess"),
        (&["--rules", "rand", "--option", "strict=true"], "strict"),
        (&["--rules", "rand", "--settle-ms", "20"], "settle"),
        (
            &["--rules", "rand", "--touch-move", "sometimes"],
            "sometimes",
        ),
        (&["--rules", "rand", "--lang", "de"], "de"),
        (
            &["--rules", "rand", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
            "fen",
        ),
        (
            &[
                "--rules",
                "russian",
                "--fen",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1",
            ],
            "",
        ),
    ] {
        let mut args = ports.to_vec();
        args.extend_from_slice(extra);
        let out = table(&args, dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(err.starts_with("kriegspiel table: "), "{extra:?}: {err}");
        assert!(err.contains(reason), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
    // clap's own refusals (a missing board) also exit with 2.
    let out = table(&["--rules", "rand"], dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Starts a table whose boards are absent, reads its first stdout line, and stops it.
fn first_line_and_stderr(path_env: &Path, extra: &[&str]) -> (Value, String) {
    let mut args = vec![
        "--white",
        "/nonexistent/w",
        "--black",
        "/nonexistent/b",
        "--rules",
        "cincinnati",
    ];
    args.extend_from_slice(extra);
    let mut child = table(&args, path_env).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    // Give the background speaker a moment, then stop the table.
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (serde_json::from_str(&line).unwrap(), err)
}

#[test]
fn missing_speech_program_is_one_warning() {
    let empty = tempfile::tempdir().unwrap();
    let (new, err) = first_line_and_stderr(empty.path(), &[]);
    assert_eq!(new["answer"], "new");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("text-to-speech"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].contains("espeak-ng"), "{err}");
    // The absent boards are reported too (the link keeps retrying).
    assert!(err.contains("white board"), "{err}");
}

#[test]
fn announcements_go_to_espeak_ng_with_the_table_voice() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spoken.txt");
    let prog = dir.path().join("espeak-ng");
    std::fs::write(
        &prog,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The fake needs a shell: keep /bin on the PATH after our folder.
    let path =
        std::env::join_paths([dir.path(), Path::new("/bin"), Path::new("/usr/bin")]).unwrap();
    let (new, err) = first_line_and_stderr(Path::new(&path), &["--lang", "fr"]);
    assert!(!err.contains("text-to-speech"), "{err}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !log.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let spoken = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        spoken,
        format!("-v fr -- {}\n", new["text"].as_str().unwrap())
    );

    // --no-speech: nothing is spoken.
    std::fs::remove_file(&log).unwrap();
    let _ = first_line_and_stderr(Path::new(&path), &["--no-speech"]);
    assert!(!log.exists());
}
