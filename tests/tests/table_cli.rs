//! `kriegspiel table` on its own: bad command lines, speech program present or missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::cargo_bin;
use serde_json::Value;

/// `kriegspiel table` with `PATH` set to `path_env`; its journal goes to the default place
/// under `data` (as `XDG_DATA_HOME`).
fn table(args: &[&str], path_env: &Path, data: &Path) -> Command {
    let mut c = Command::new(cargo_bin("kriegspiel", "kriegspiel"));
    c.arg("table")
        .args(args)
        .env("PATH", path_env)
        .env("XDG_DATA_HOME", data)
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
        (
            &["--rules", "rand", "--touch-move", "sometimes"],
            "sometimes",
        ),
        (&["--rules", "rand", "--lang", "de"], "de"),
        // A broker's files that cannot be used: the boards would never connect.
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--username",
                "x",
                "--password-file",
                "/nonexistent/pw",
            ],
            "the broker: password file /nonexistent/pw",
        ),
        (
            &["--broker", "mqtts://127.0.0.1:1"],
            "the broker: mqtts://127.0.0.1:1 is tls",
        ),
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
        let out = table(&args, dir.path(), dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(err.starts_with("kriegspiel table: "), "{extra:?}: {err}");
        assert!(err.contains(reason), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
    // clap's own refusals (an unknown option) also exit with 2.
    let out = table(
        &["--rules", "rand", "--colour", "white"],
        dir.path(),
        dir.path(),
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A settle window out of the table's range: refused by the command line, with the range.
    let out = table(
        &["--rules", "rand", "--settle-ms", "20"],
        dir.path(),
        dir.path(),
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--settle-ms") && err.contains("100..=1500"),
        "{err}"
    );
    // Both players on one port.
    let out = table(
        &["--white", "/dev/ttyX", "--black", "/dev/ttyX"],
        dir.path(),
        dir.path(),
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--white and --black name the same port"),
        "{err}"
    );
    // No journal is created for a refused command line.
    assert!(!dir.path().join("kriegspiel").exists());
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
        // These tests are about the speech programs found on the PATH (the fallback);
        // speech-dispatcher would answer whatever the PATH holds.
        "--no-speech-dispatcher",
    ];
    args.extend_from_slice(extra);
    let data = tempfile::tempdir().unwrap();
    let mut child = table(&args, path_env, data.path()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // The first line says which game the table opened; the referee's first answer follows.
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let opened: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(opened["opened"], "table", "{line}");
    line.clear();
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

/// A table on absent boards and silent, for keypad tests.
fn keypad_table(data: &Path) -> std::process::Child {
    let empty = tempfile::tempdir().unwrap();
    table(
        &[
            "--white",
            "/nonexistent/w",
            "--black",
            "/nonexistent/b",
            "--no-speech",
        ],
        empty.path(),
        data,
    )
    .spawn()
    .unwrap()
}

/// Reads stdout lines until one satisfies `want` (or fails after 20 s).
fn wait_for_line(out: &mut impl BufRead, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "the line never came");
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "stdout closed");
        let v: Value = serde_json::from_str(&line).unwrap();
        if want(&v) {
            return v;
        }
    }
}

fn is_promotion_choice(v: &Value) -> bool {
    v["private"] == "white" && v["id"] == "promotion-choice"
}

#[test]
fn a_bad_byte_on_the_keypad_spoils_one_line_only() {
    let data = tempfile::tempdir().unwrap();
    let mut child = keypad_table(data.path());
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(
        &mut stdin,
        b"\xff\n{\"color\":\"white\",\"promote\":\"n\"}\n",
    )
    .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let v = wait_for_line(&mut out, is_promotion_choice);
    assert!(v["text"].as_str().unwrap().contains("knight"), "{v}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("standard input line 1: invalid UTF-8"),
        "{err}"
    );
    // The journal went to the default place and was named at the start.
    let journal = data.path().join("kriegspiel/journal.sqlite");
    assert!(
        err.contains(&format!("journal {}", journal.display())),
        "{err}"
    );
    assert!(journal.exists());
}

/// The largest resident size the process has had, in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_200_mb_keypad_line_is_one_error_and_memory_stays_flat() {
    let data = tempfile::tempdir().unwrap();
    let mut child = keypad_table(data.path());
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // The program's own size before the line, to tell what the line adds.
    wait_for_line(&mut out, |v| v.get("answer").is_some());
    let before = peak_rss_kib(pid);
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'e'; 1 << 20];
        std::io::Write::write_all(&mut stdin, b"{\"color\":\"white\",\"ask\":\"").unwrap();
        for _ in 0..200 {
            std::io::Write::write_all(&mut stdin, &chunk).unwrap();
        }
        std::io::Write::write_all(
            &mut stdin,
            b"\"}\n{\"color\":\"white\",\"promote\":\"b\"}\n",
        )
        .unwrap();
        stdin
    });
    let v = wait_for_line(&mut out, is_promotion_choice);
    assert!(v["text"].as_str().unwrap().contains("bishop"), "{v}");
    let peak = peak_rss_kib(pid);
    let _stdin = writer.join().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    // A 200 MB line costs no more than a few MB: it is never held. The whole program stays
    // small: its debug build is about 20 MB before any input (it links the referee, the
    // hall, speech, voice and the broker client; the window lives in its own program).
    assert!(
        peak < before + 4 * 1024,
        "peak RSS {peak} KiB, {before} KiB before the line"
    );
    assert!(
        peak < 24 * 1024,
        "peak RSS {peak} KiB, more than 24 MB ({before} KiB before the line)"
    );
    assert!(
        err.contains("standard input line 1: line too long"),
        "{err}"
    );
    assert!(
        err.len() < 2000,
        "the error quotes no more than an excerpt: {err}"
    );
}

#[test]
fn a_game_by_keys_without_boards() {
    let data = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let mut child = table(
        &["--rules", "wild16", "--no-speech"],
        empty.path(),
        data.path(),
    )
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        r#"{"color":"white","try":"f2f3"}"#,
        r#"{"color":"black","try":"e7e4"}"#,
        r#"{"color":"black","try":"e7e5"}"#,
        r#"{"color":"white","try":"g2g4"}"#,
        r#"{"color":"black","try":"d8h4"}"#,
    ] {
        std::io::Write::write_all(&mut stdin, format!("{line}\n").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answers: Vec<(&str, &str)> = lines
        .iter()
        .filter_map(|v| Some((v["try"].as_str()?, v["answer"].as_str()?)))
        .collect();
    assert_eq!(
        answers,
        [
            ("f2f3", "moved"),
            ("e7e4", "illegal"),
            ("e7e5", "moved"),
            ("g2g4", "moved"),
            ("d8h4", "moved")
        ]
    );
    let last = lines.last().unwrap();
    assert_eq!(last["result"], "0-1", "{lines:?}");
    // Nobody has a board: nobody is guided, no link is opened.
    assert!(
        lines
            .iter()
            .all(|v| v.get("private").is_none() && v.get("link").is_none()),
        "{lines:?}"
    );
}

/// The journal heartbeat: killed (SIGKILL) once a heartbeat 2 s into White's first think is
/// on disk and started again 5 s later, the table charges White the thinking time up to
/// that heartbeat (the crash's last) and not the 5 s it was down.
#[test]
fn after_a_crash_the_thinking_time_counts_and_the_downtime_does_not() {
    let data = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let args = [
        "--rules",
        "berkeley",
        "--clock",
        "5+0",
        // Its clock runs from the opening, as a round's clocks do once started.
        "--clock-start",
        "at-once",
        "--no-speech",
        "--white",
        "/nonexistent/w",
        "--black",
        "/nonexistent/b",
    ];
    let mut first = table(&args, empty.path(), data.path()).spawn().unwrap();
    let _keypad = first.stdin.take().unwrap();
    let mut out = BufReader::new(first.stdout.take().unwrap());
    let clock = wait_for_line(&mut out, |v| v.get("clock").is_some());
    assert_eq!(clock["clock"]["white"], 300_000, "{clock}");
    assert_eq!(clock["clock"]["running"], "white", "{clock}");
    // Read beside the running table, as `kriegspiel export` would.
    let journal = data.path().join("kriegspiel/journal.sqlite");
    let deadline = Instant::now() + Duration::from_secs(20);
    let beat = loop {
        assert!(Instant::now() < deadline, "no heartbeat 2 s into the game");
        let j = kriegspiel_hall::Journal::open_read_only(&journal).unwrap();
        let game = j.games().unwrap()[0].id;
        match j.last_beat(game) {
            Some(b) if b.at >= 2000 => break b.at,
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    first.kill().unwrap();
    first.wait().unwrap();
    std::thread::sleep(Duration::from_secs(5));

    let mut again = table(&args, empty.path(), data.path()).spawn().unwrap();
    let mut keypad = again.stdin.take().unwrap();
    let mut out = BufReader::new(again.stdout.take().unwrap());
    let note = wait_for_line(&mut out, |v| v["note"] == "restarted");
    // With the note, where the clocks stand: the time up to the stop counted (once only
    // what the last move had left was said, at the table's opening).
    let resumed = wait_for_line(&mut out, |_| true);
    let left = resumed["clock"]["white"].as_u64();
    let shown = 300_000 - left.unwrap_or_else(|| panic!("no clock with the note: {resumed}"));
    assert!(shown >= beat, "the heartbeat at {beat} ms, said: {resumed}");
    let text = note["text"].as_str().unwrap();
    let down: u64 = text
        .strip_prefix("The console restarted after ")
        .and_then(|t| t.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{note}"));
    assert!((4..=15).contains(&down), "{note}");
    assert!(
        text.ends_with("that time did not count on the clocks."),
        "{note}"
    );
    std::io::Write::write_all(&mut keypad, b"{\"arbiter\":\"pause\"}\n").unwrap();
    let paused = wait_for_line(&mut out, |v| {
        v.get("clock").is_some() && v["clock"]["running"].is_null()
    });
    again.kill().unwrap();
    again.wait().unwrap();
    let used = 300_000 - paused["clock"]["white"].as_u64().unwrap();
    // At least the time up to the heartbeat seen on disk (without heartbeats: only the
    // moment from the restart to the pause); well under the 5 s of downtime on top.
    assert!(
        used >= beat && used < beat + 4_000,
        "White used {used} ms, the last heartbeat at {beat} ms: {paused}"
    );
    assert_eq!(paused["clock"]["black"], 300_000, "{paused}");
    // Paused when it stopped, it comes back paused, and the arbiter is told how to resume.
    let mut third = table(&args, empty.path(), data.path()).spawn().unwrap();
    let _keypad = third.stdin.take().unwrap();
    let err = BufReader::new(third.stderr.take().unwrap());
    // Never said: the table is stopped after 20 s, which ends its standard error.
    let pid = third.id().to_string();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let found = done.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        if !found.load(std::sync::atomic::Ordering::Acquire) {
            let _ = Command::new("kill").arg(pid).status();
        }
    });
    let said = err
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("paused"))
        .unwrap_or_default();
    done.store(true, std::sync::atomic::Ordering::Release);
    third.kill().unwrap();
    third.wait().unwrap();
    assert!(
        said.ends_with(
            "the game is paused, as it was when the console stopped: resume it with {\"table\":1,\"arbiter\":\"resume\"}"
        ),
        "{said}"
    );
}

/// A clocked table with no board plugged in: no clock runs until the arbiter starts them,
/// then the side to move's does, and both players hear it.
#[test]
fn the_clocks_wait_for_the_arbiter_to_start_them() {
    use kriegspiel_tests::console::Console;
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(
        &dir.path().join("j.sqlite"),
        "cincinnati",
        &["--clock", "1+0"],
        true,
    );
    let waiting = table.expect("the clocks standing", |v| v.get("clock").is_some());
    assert_eq!(
        waiting["clock"]["running"],
        serde_json::Value::Null,
        "{waiting}"
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    table.command(r#"{"arbiter":"start"}"#);
    let said = table.expect("the clocks started", |v| v["public"] == "clocks-started");
    assert_eq!(said["text"], "The clocks are started. White to move.");
    assert_eq!(said["heard_by"], "both");
    let running = table.expect("White's clock running", |v| v.get("clock").is_some());
    assert_eq!(running["clock"]["running"], "white");
    // Nothing ran before the start.
    assert_eq!(running["clock"]["white"], 60_000, "{running}");
    table.command(r#"{"arbiter":"start"}"#);
    let refused = table.expect("a second start refused", |v| v["note"] == "refused");
    assert!(
        refused["text"]
            .as_str()
            .unwrap()
            .contains("started already"),
        "{refused}"
    );
}

/// Restarted with a setting forgotten, the table resumes its unfinished game with the
/// settings it was started with and says what it ignored; asked for another game (other
/// rules) it refuses, naming --new-game; --new-game starts afresh.
#[test]
fn a_restart_with_a_changed_setting_resumes_the_game_and_says_so() {
    use kriegspiel_tests::console::Console;
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let mut first = Console::start(
        &journal,
        "cincinnati",
        &["--clock", "25+10", "--clock-start", "at-once"],
        true,
    );
    first.command(r#"{"color":"white","try":"e2e4"}"#);
    first.expect("e2e4 stands", |v| {
        v["try"] == "e2e4" && v["answer"] == "moved"
    });
    first.child.0.kill().unwrap();
    first.child.0.wait().unwrap();

    // Without --clock: game 1 goes on, with its clock.
    let mut again = Console::start(&journal, "cincinnati", &[], true);
    let opened = &again.seen[0];
    assert_eq!(opened["game"], 1, "{opened}");
    assert!(opened["resumed_events"].as_u64().unwrap() >= 1, "{opened}");
    let ignored = opened["ignored"].to_string();
    assert!(ignored.contains("time_control"), "{opened}");
    let stands = again.expect("where the game stands", |v| v["resumed"] == true);
    assert_eq!(stands["to_move"], "black", "{stands}");
    assert!(stands["fen"]
        .as_str()
        .unwrap()
        .starts_with("rnbqkbnr/pppppppp/8/8/4P3/"));
    let clock = again.expect("the game's clock", |v| v.get("clock").is_some());
    assert!(
        clock["clock"]["black"].as_u64().unwrap() > 1_400_000,
        "{clock}"
    );
    // The last verdict may never have been said before the stop: it is said again, marked,
    // and a player coming back hears it too.
    let repeated = again.seen.iter().find(|v| v["repeat"] == true).unwrap();
    assert_eq!(repeated["try"], "e2e4", "{repeated}");
    let mut black = kriegspiel_tests::console::Terminal::open(&again, "black");
    black.expect("Said to you last: White has moved.");
    black.say("repeat");
    black.expect("White has moved.");
    again.child.0.kill().unwrap();
    again.child.0.wait().unwrap();

    // Other rules: another game; refused, and nothing is started.
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "wild16", "--no-speech", "--journal"])
        .arg(&journal)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unfinished game 1") && err.contains("--new-game") && err.contains("rules"),
        "{err}"
    );
    assert!(
        err.contains("kriegspiel table --resume 1 takes it up again after a --new-game"),
        "{err}"
    );

    // --new-game: game 2, afresh.
    let mut fresh = Console::start(&journal, "wild16", &["--new-game"], true);
    assert_eq!(fresh.seen[0]["game"], 2, "{:?}", fresh.seen);
    assert!(fresh.seen[0].get("resumed_events").is_none());
    assert_eq!(fresh.seen[0]["set_aside"], 1, "{:?}", fresh.seen);
    fresh.child.0.kill().unwrap();
    fresh.child.0.wait().unwrap();

    // The game left behind is taken up again by its number, as it was.
    let mut back = Console::start(&journal, "wild16", &["--resume", "1"], true);
    let opened = &back.seen[0];
    assert_eq!(opened["game"], 1, "{opened}");
    assert!(opened["ignored"].to_string().contains("rules"), "{opened}");
    back.command(r#"{"color":"black","try":"e7e5"}"#);
    back.expect("e7e5 stands", |v| {
        v["try"] == "e7e5" && v["answer"] == "moved"
    });
    back.child.0.kill().unwrap();
    back.child.0.wait().unwrap();
    let none = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--no-speech", "--resume", "9", "--journal"])
        .arg(&journal)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("no game 9 (its games: 1, 2)"), "{err}");
    // One game by its number, whatever the tables are named.
    let export = |args: &[&str]| {
        Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .arg("export")
            .args(args)
            .arg("--journal")
            .arg(&journal)
            .output()
            .unwrap()
    };
    let one = export(&["--game", "1"]);
    let pgn = String::from_utf8_lossy(&one.stdout);
    assert_eq!(pgn.matches("[Event ").count(), 1, "{pgn}");
    let missing = export(&["--game", "9"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no game matches game 9"),
        "{missing:?}"
    );
    // A hall refused on a journal it made leaves no journal behind.
    let fresh_journal = dir.path().join("never.sqlite");
    let refused = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--no-speech", "--resume", "9", "--journal"])
        .arg(&fresh_journal)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let mut name = fresh_journal.as_os_str().to_owned();
        name.push(suffix);
        assert!(!std::path::Path::new(&name).exists(), "{name:?} was left");
    }
}

/// Two consoles on one journal: the second is refused at start, naming the journal and the
/// first console, and writes nothing; an export reads beside the first.
#[test]
fn a_second_console_on_the_same_journal_is_refused() {
    use kriegspiel_tests::console::Console;
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("same.sqlite");
    let mut first = Console::start(&journal, "cincinnati", &[], true);
    let first_pid = first.child.0.id();
    first.command(r#"{"color":"white","try":"e2e4"}"#);
    first.expect("e2e4 stands", |v| {
        v["try"] == "e2e4" && v["answer"] == "moved"
    });
    let before = std::fs::read(&journal).unwrap();
    let second = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--no-speech", "--journal"])
        .arg(&journal)
        .arg("--player-socket")
        .arg(dir.path().join("second.sock"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("is in use by another console") && err.contains(&format!("pid {first_pid}")),
        "{err}"
    );
    assert!(
        second.stdout.is_empty(),
        "the second console said something"
    );
    // The first plays on, its game whole.
    first.command(r#"{"color":"black","try":"e7e5"}"#);
    first.expect("e7e5 stands", |v| {
        v["try"] == "e7e5" && v["answer"] == "moved"
    });
    assert!(std::fs::read(&journal).unwrap().len() >= before.len());
    let export = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["export", "--journal"])
        .arg(&journal)
        .output()
        .unwrap();
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let pgn = String::from_utf8_lossy(&export.stdout);
    assert!(pgn.contains("1. e4") && pgn.contains(" e5"), "{pgn}");
}

/// After a clean stop (SIGTERM) nothing is said again at the restart; after a crash
/// (SIGKILL) the last verdict is, marked as repeated.
#[test]
fn only_a_crash_makes_the_restart_say_the_last_words_again() {
    use kriegspiel_tests::console::Console;
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let mut table = Console::start(&journal, "cincinnati", &[], true);
    table.command(r#"{"color":"white","try":"e2e4"}"#);
    table.expect("e2e4 stands", |v| {
        v["try"] == "e2e4" && v["answer"] == "moved"
    });
    let pid = table.child.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    assert_eq!(table.child.0.wait().unwrap().code(), Some(143));

    let mut again = Console::start(&journal, "cincinnati", &[], true);
    again.expect("the restart noted", |v| v["note"] == "restarted");
    again.command(r#"{"color":"black","try":"e7e5"}"#);
    again.expect("e7e5 stands", |v| {
        v["try"] == "e7e5" && v["answer"] == "moved"
    });
    assert!(
        !again.seen.iter().any(|v| v["repeat"] == true),
        "said again after a clean stop: {:?}",
        again.seen
    );
    again.child.0.kill().unwrap();
    again.child.0.wait().unwrap();

    let third = Console::start(&journal, "cincinnati", &[], true);
    let mut third = third;
    third.expect("the restart noted", |v| v["note"] == "restarted");
    let repeated = third.seen.iter().find(|v| v["repeat"] == true).cloned();
    assert_eq!(repeated.map(|v| v["try"].clone()), Some("e7e5".into()));
}

/// A console started while its broker is down says so once, plainly, and waits for it:
/// not once per broker client (boards, seats, the round's summaries), and never in the MQTT
/// client's own words.
#[test]
fn a_broker_down_at_start_is_said_once_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let port = kriegspiel_tests::mosquitto::free_port().unwrap();
    let url = format!("mqtt://127.0.0.1:{port}");
    let journal = dir.path().join("t.sqlite");
    let mut child = table(
        &[
            "--white",
            "board:7",
            "--black",
            "board:8",
            "--broker",
            &url,
            "--no-speech",
            "--journal",
            journal.to_str().unwrap(),
        ],
        Path::new("/usr/bin:/bin"),
        dir.path(),
    )
    .spawn()
    .unwrap();
    // Every client has tried the broker several times by then.
    std::thread::sleep(Duration::from_secs(4));
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let said: Vec<&str> = all
        .lines()
        .filter(|l| l.contains("nothing answers") || l.contains("unreachable"))
        .collect();
    assert_eq!(said.len(), 1, "{all}");
    assert!(
        said[0].contains(&format!(
            "broker {url} unreachable (nothing answers at the broker's address)"
        )),
        "{all}"
    );
    assert!(
        !all.contains("Mqtt state") && !all.contains("I/O:"),
        "{all}"
    );
}

/// `kriegspiel table ... | head -1`: once nobody reads its lines the table stops, says why,
/// and does not exit as a success, which a supervisor would take for the game's end.
#[test]
fn a_table_whose_output_is_closed_says_so_and_fails() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let mut child = table(
        &["--no-speech", "--journal", journal.to_str().unwrap()],
        dir.path(),
        dir.path(),
    )
    .spawn()
    .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("\"opened\""), "{first}");
    drop(out);
    let mut keys = child.stdin.take().unwrap();
    for line in [
        r#"{"color":"white","try":"e2e4"}"#,
        r#"{"color":"black","try":"e7e5"}"#,
    ] {
        let _ = writeln!(keys, "{line}");
    }
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(1));
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        err.contains("standard output was closed: nobody reads the table's lines; stopping"),
        "{err}"
    );
}

/// The arbiter's terminal closes (or the reader of its pipe dies): standard output and error
/// are gone, and a signal still stops the table cleanly, its journal free for the next start.
/// (A print that failed in the signal's thread used to end that thread before it asked the
/// stop: the table ran on unseen, holding its journal, deaf to every signal but SIGKILL.)
#[test]
fn a_table_whose_terminal_is_gone_still_stops_on_a_signal() {
    use std::io::BufRead;
    for (signal, code) in [("-HUP", 129), ("-INT", 130)] {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("j.sqlite");
        let mut table = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["table", "--no-speech", "--journal"])
            .arg(&journal)
            .arg("wild16")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = std::io::BufReader::new(table.stderr.take().unwrap());
        let mut line = String::new();
        while !line.contains("seat codes") {
            line.clear();
            assert!(err.read_line(&mut line).unwrap() > 0, "{signal}: no start");
        }
        // Nobody reads its standard error any more (its lines on standard output wait
        // unread in the pipe: a closed one would stop it by itself, said, status 1).
        drop(err);
        let _unread = table.stdout.take();
        std::thread::sleep(Duration::from_millis(300));
        let pid = table.id().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = table.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                table.kill().unwrap();
                panic!("{signal}: the table did not stop");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(status.code(), Some(code), "{signal}");
        let j = kriegspiel_hall::Journal::open_read_only(&journal).unwrap();
        let game = j.games().unwrap()[0].id;
        assert!(
            j.last_beat(game).is_some(),
            "{signal}: no clean stop journaled"
        );
    }
}

/// A speech setting refused after the journal was opened (a rate out of range, a device
/// that is not there) leaves no journal of its own behind: nothing began.
#[test]
fn a_speech_setting_refused_leaves_no_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("opt.sqlite");
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--rate", "10", "--journal"])
        .arg(&journal)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("rate"),
        "{out:?}"
    );
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let mut name = journal.as_os_str().to_owned();
        name.push(suffix);
        assert!(!std::path::Path::new(&name).exists(), "{name:?} was left");
    }
}
