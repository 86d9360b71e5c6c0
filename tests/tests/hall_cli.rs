//! `kriegspiel hall --config` and `kriegspiel export` as the README shows them: a round of
//! two tables without boards, decided from standard input, journaled and exported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::pgn_check;
use serde_json::Value;

const ROUND: &str = r#"event = "Club night, round 1"

[[table]]
name = "1"
rules = "cincinnati"
time_control = "25+10"
white_player = "Ann"
black_player = "Bob"
no_speech_dispatcher = true
speech_log = "SPEECH_LOG"

[[table]]
name = "2"
rules = "wild16"
lang = "fr"
"#;

#[test]
fn a_round_of_two_tables_decided_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    let speech_log = dir.path().join("speech.log");
    let round_text = ROUND.replace("SPEECH_LOG", speech_log.to_str().unwrap());
    std::fs::write(&round, &round_text).unwrap();
    let journal = dir.path().join("round.sqlite");
    let mut hall = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hall", "--config"])
        .arg(&round)
        .arg("--journal")
        .arg(&journal)
        // Silent: this test reads the JSON lines; the hall's speech has tests of its own.
        .arg("--no-speech")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = hall.stdin.take().unwrap();
    for line in [
        r#"{"table":1,"arbiter":"adjudicate 1-0 Black did not come"}"#,
        r#"{"table":3,"color":"white","resign":true}"#,
        r#"{"table":2,"color":"white","draw":true}"#,
        r#"{"table":2,"color":"black","draw":true}"#,
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = hall.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no table 3 (this console's: 1, 2)"),
        "{stderr}"
    );
    // --no-speech outweighs the round file: table 1's adjudication was logged by no speaker.
    assert!(!speech_log.exists(), "{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every line names its table.
    assert!(
        lines.iter().all(|v| v["table"] == 1 || v["table"] == 2),
        "{lines:?}"
    );
    let finals: Vec<(Value, Value)> = lines
        .iter()
        .filter(|v| v.get("final_fen").is_some())
        .map(|v| (v["table"].clone(), v["result"].clone()))
        .collect();
    assert_eq!(finals.len(), 2);
    assert!(finals.contains(&(1.into(), "1-0".into())));
    assert!(finals.contains(&(2.into(), "1/2-1/2".into())));
    let french = lines
        .iter()
        .find(|v| v["public"] == "draw-offered")
        .unwrap();
    assert_eq!(french["text"], "Les Blancs proposent la nulle.");

    let export = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["export", "--journal"])
        .arg(&journal)
        .output()
        .unwrap();
    assert!(export.status.success());
    let games = pgn_check::read_all(&String::from_utf8_lossy(&export.stdout)).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("White"), Some("Ann"));
    assert_eq!(games[0].tag("Event"), Some("Club night, round 1"));
    assert_eq!(games[0].tag("TimeControl"), Some("1500+10"));
    assert_eq!(games[0].tag("Termination"), Some("adjudication"));
    assert_eq!(games[0].outcome.as_deref(), Some("1-0"));
    assert!(games[0]
        .comments
        .contains(&"Arbiter: adjudicate 1-0 Black did not come".to_owned()));
    assert_eq!(games[1].outcome.as_deref(), Some("1/2-1/2"));

    // One table by name, and the event log.
    let one = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["export", "--table", "2", "--format", "jsonl", "--journal"])
        .arg(&journal)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&one.stdout);
    assert!(log.lines().all(|l| l.contains("\"table\":\"2\"")), "{log}");
    assert_eq!(log.lines().count(), 3, "{log}");

    // An output that cannot be written is named; a file that is no journal is refused
    // without advice to run the command that refused it.
    let unwritable = dir.path().join("no-such-folder").join("round.pgn");
    let failed = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["export", "--journal"])
        .arg(&journal)
        .arg("--output")
        .arg(&unwritable)
        .output()
        .unwrap();
    // A folder that is not there is named (status 2, as a mistyped option), not the
    // temporary file written beside the output.
    assert_eq!(failed.status.code(), Some(2));
    let e = String::from_utf8_lossy(&failed.stderr);
    assert!(
        e.contains(&format!(
            "the folder {} does not exist",
            unwritable.parent().unwrap().display()
        )) && !e.contains(".part"),
        "{e}"
    );
    // The journal itself, under its name or another, is never written over; a link
    // planted at the output is replaced, not followed; an old export others could read
    // is replaced by a private one.
    let export_to = |output: &Path| {
        Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["export", "--journal"])
            .arg(&journal)
            .arg("--output")
            .arg(output)
            .output()
            .unwrap()
    };
    let before = std::fs::read(&journal).unwrap();
    let again = dir.path().join("again.sqlite");
    std::fs::hard_link(&journal, &again).unwrap();
    // Its lock file too: the next console would be refused under a wrong name.
    let mut lock = journal.clone().into_os_string();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    assert!(lock.exists(), "the hall left no lock file to try");
    for output in [journal.clone(), again.clone(), lock] {
        let refused = export_to(&output);
        assert_eq!(refused.status.code(), Some(2));
        let e = String::from_utf8_lossy(&refused.stderr);
        assert!(
            e.contains("(the file being read)") || e.contains("is the file being read"),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&journal).unwrap(), before);
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "the arbiter's notes").unwrap();
    let planted = dir.path().join("planted.pgn");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    assert!(export_to(&planted).status.success());
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the arbiter's notes"
    );
    assert!(pgn_check::read_all(&std::fs::read_to_string(&planted).unwrap()).is_ok());
    let old = dir.path().join("old.pgn");
    std::fs::write(&old, "old").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(export_to(&old).status.success());
    assert_eq!(
        std::fs::metadata(&old).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let failed = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["export", "--journal"])
        .arg(&round)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&failed.stderr);
    assert!(e.contains("is not a Kriegspiel journal"), "{e}");
    assert!(!e.contains("reads what it can"), "{e}");
    // A program that plays on it is refused with the way out.
    let refused = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--no-speech", "--journal"])
        .arg(&round)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let e = String::from_utf8_lossy(&refused.stderr);
    assert!(
        e.contains(&format!(
            "`kriegspiel export --journal {}` reads what it can of a damaged journal",
            round.display()
        )),
        "{e}"
    );

    // A round file with a mistake names the file, the table and the field.
    std::fs::write(&round, round_text.replace("\"25+10\"", "\"25 minutes\"")).unwrap();
    let bad = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hall", "--config"])
        .arg(&round)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("round.toml: table 1 ('1'): time_control: bad time control '25 minutes'"),
        "{e}"
    );
}

/// A hall of one table names its table in every line too, as the README says.
#[test]
fn a_hall_of_one_table_tags_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    std::fs::write(&round, "[[table]]\nname = \"solo\"\n").unwrap();
    let mut hall = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hall", "--no-speech", "--config"])
        .arg(&round)
        .arg("--journal")
        .arg(dir.path().join("j.sqlite"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = hall.stdin.take().unwrap();
    writeln!(stdin, r#"{{"color":"white","resign":true}}"#).unwrap();
    drop(stdin);
    let out = hall.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 3, "{stdout}");
    assert!(lines.iter().all(|v| v["table"] == 1), "{stdout}");
}

#[test]
fn export_refuses_what_is_not_there() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(args)
            .output()
            .unwrap()
    };
    let absent = dir.path().join("absent.sqlite");
    let out = run(&["export", "--journal", absent.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no journal at"));
    assert!(!absent.exists(), "export never creates a journal");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a journal at all, only words\n".repeat(200)).unwrap();
    let out = run(&["export", "--journal", text.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a Kriegspiel journal"));
    let out = run(&[
        "export",
        "--journal",
        text.to_str().unwrap(),
        "--format",
        "xml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown format 'xml' (pgn, jsonl)"));
}

/// `kriegspiel hall --new-game` starts every table afresh; without it the unfinished game
/// goes on.
#[test]
fn a_hall_resumes_its_unfinished_games_unless_told_new_game() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    std::fs::write(&round, "[[table]]\nname = \"solo\"\n").unwrap();
    let journal = dir.path().join("j.sqlite");
    let run = |extra: &[&str], line: &str| {
        let mut hall = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["hall", "--no-speech", "--config"])
            .arg(&round)
            .arg("--journal")
            .arg(&journal)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = hall.stdin.take().unwrap();
        writeln!(stdin, "{line}").unwrap();
        drop(stdin);
        let mut out = std::io::BufReader::new(hall.stdout.take().unwrap());
        let mut first = String::new();
        std::io::BufRead::read_line(&mut out, &mut first).unwrap();
        let mut rest = String::new();
        // The move's verdict, then the hall is stopped (its game unfinished).
        while !rest.contains("\"e2e4\"") && !rest.contains("\"e7e5\"") {
            rest.clear();
            assert!(std::io::BufRead::read_line(&mut out, &mut rest).unwrap() > 0);
        }
        hall.kill().unwrap();
        hall.wait().unwrap();
        serde_json::from_str::<Value>(&first).unwrap()
    };
    let first = run(&[], r#"{"color":"white","try":"e2e4"}"#);
    assert_eq!(first["game"], 1);
    let again = run(&[], r#"{"color":"black","try":"e7e5"}"#);
    assert_eq!(again["game"], 1, "{again}");
    assert!(again["resumed_events"].as_u64().unwrap() >= 1);
    assert!(again.get("set_aside").is_none(), "{again}");
    let fresh = run(&["--new-game"], r#"{"color":"white","try":"e2e4"}"#);
    assert_eq!(fresh["game"], 2, "{fresh}");
    // The unfinished game it was begun beside is named, to be taken up again.
    assert_eq!(fresh["set_aside"], 1, "{fresh}");
}

#[test]
fn a_console_running_part_of_a_round_keeps_the_rounds_table_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    std::fs::write(
        &round,
        "[[table]]\nname = \"1\"\nrules = \"wild16\"\n\n\
         [[table]]\nname = \"2\"\nrules = \"wild16\"\nconsole = \"east\"\n\n\
         [[table]]\nname = \"3\"\nrules = \"wild16\"\nconsole = \"east\"\n",
    )
    .unwrap();
    let mut hall = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hall", "--no-speech", "--console", "east", "--config"])
        .arg(&round)
        .arg("--journal")
        .arg(dir.path().join("east.sqlite"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = hall.stdin.take().unwrap();
    for line in [
        r#"{"table":1,"arbiter":"adjudicate 1-0 not this console's"}"#,
        r#"{"table":2,"arbiter":"adjudicate 1-0 Black did not come"}"#,
        r#"{"table":3,"color":"white","resign":true}"#,
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = hall.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no table 1 (this console's: 2, 3)"),
        "{stderr}"
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every line names its table by its number in the round.
    assert!(
        lines.iter().all(|v| v["table"] == 2 || v["table"] == 3),
        "{lines:?}"
    );
    let finals: Vec<(Value, Value)> = lines
        .iter()
        .filter(|v| v.get("final_fen").is_some())
        .map(|v| (v["table"].clone(), v["result"].clone()))
        .collect();
    assert_eq!(finals.len(), 2, "{lines:?}");
    assert!(finals.contains(&(2.into(), "1-0".into())));
    assert!(finals.contains(&(3.into(), "0-1".into())));
}

/// A hall started again after its table's game ended opens the next game there, and says
/// which finished game it follows (a restart gave new seat codes and a new game without a
/// word, as if the game had been lost).
#[test]
fn a_hall_restarted_after_a_game_ended_says_the_new_game_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    std::fs::write(&round, "[[table]]\nname = \"solo\"\n").unwrap();
    let journal = dir.path().join("j.sqlite");
    let hall = || {
        Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["hall", "--no-speech", "--config"])
            .arg(&round)
            .arg("--journal")
            .arg(&journal)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The game ends: the hall ends with it.
    let mut first = hall();
    let mut stdin = first.stdin.take().unwrap();
    writeln!(stdin, r#"{{"arbiter":"adjudicate 1-0 a test"}}"#).unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    drop(stdin);
    // Started again: the next game, which says it follows game 1.
    let mut again = hall();
    let mut line = String::new();
    let mut reader = std::io::BufReader::new(again.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut reader, &mut line).unwrap();
    again.kill().unwrap();
    let out = again.wait_with_output().unwrap();
    let opened: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (opened["game"].clone(), opened["follows"].clone()),
        (2.into(), 1.into()),
        "{opened}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("table 'solo': its game 1 is over; a new game 2 begins"),
        "{err}"
    );
}

/// A table dropped from the round file keeps its unfinished game in the journal, and the
/// next start says so (it was left without a word).
#[test]
fn a_table_dropped_from_the_round_file_is_said_to_have_left_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let round = dir.path().join("round.toml");
    let journal = dir.path().join("j.sqlite");
    let hall = || {
        Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["hall", "--no-speech", "--config"])
            .arg(&round)
            .arg("--journal")
            .arg(&journal)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Two tables, each game unfinished when the hall is stopped.
    std::fs::write(&round, "[[table]]\nname = \"1\"\n[[table]]\nname = \"2\"\n").unwrap();
    let mut first = hall();
    let mut reader = std::io::BufReader::new(first.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("\"opened\":\"2\"") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut reader, &mut line).unwrap() > 0);
    }
    first.kill().unwrap();
    first.wait().unwrap();
    // Table 2 dropped: its game is named, with the command that writes it.
    std::fs::write(&round, "[[table]]\nname = \"1\"\n").unwrap();
    let mut again = hall();
    let mut reader = std::io::BufReader::new(again.stdout.take().unwrap());
    line.clear();
    std::io::BufRead::read_line(&mut reader, &mut line).unwrap();
    again.kill().unwrap();
    let out = again.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "the journal also holds table '2''s unfinished game 2, which this start does not open"
        ) && err.contains("--game 2 writes it"),
        "{err}"
    );
    assert!(!err.contains("table '1''s unfinished"), "{err}");
}
