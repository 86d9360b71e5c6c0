//! `kriegspiel demo` and `console/run.sh` as a user runs them, and the crash test: the fast
//! demo killed with SIGKILL at 100+ random moments (writes to the journal included) and
//! restarted each time ends with the same PGN and the same answers as an uninterrupted run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::pgn_check;
use rand::{Rng, SeedableRng};
use serde_json::Value;

fn kriegspiel(args: &[&str]) -> Command {
    let mut c = Command::new(cargo_bin("kriegspiel", "kriegspiel"));
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn export(journal: &Path, format: &str) -> String {
    let out = kriegspiel(&[
        "export",
        "--journal",
        journal.to_str().unwrap(),
        "--format",
        format,
    ])
    .output()
    .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    stdout
}

/// The answers (verdicts, replies, public announcements) of an event log, in order.
fn answers(log: &str) -> Vec<Value> {
    log.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|v| v["outputs"].as_array().cloned().unwrap_or_default())
        .filter(|o| o.get("answer").is_some() || o.get("public").is_some())
        .collect()
}

#[test]
fn the_fast_demo_takes_the_table_options_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let j = journal.to_str().unwrap();
    let out = kriegspiel(&[
        "demo",
        "--fast",
        "--no-speech",
        "--journal",
        j,
        "rand",
        "--lang",
        "fr",
    ])
    .output()
    .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("Nouvelle partie"), "{stdout}");
    assert!(stdout.contains("RESULT"), "{stdout}");
    assert!(stdout.contains("FINAL POSITION"), "{stdout}");
    assert!(stderr.contains(&format!("journal {j}")), "{stderr}");
    // The same with --rules and JSON lines: the last line is the result.
    let out = kriegspiel(&[
        "demo",
        "--journal",
        j,
        "--json",
        "--fast",
        "--rules",
        "wild16",
        "--touch-move",
        "warn",
        "--settle-ms",
        "400",
    ])
    .output()
    .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["result"], "1-0", "{stdout}");
    // JSON lines only: jq reads it whole; the header went to standard error.
    for l in stdout.lines() {
        assert!(serde_json::from_str::<Value>(l).is_ok(), "not JSON: {l}");
    }
    assert!(stderr.contains("Demo: "), "{stderr}");
    // Both games are in the journal.
    assert_eq!(
        pgn_check::read_all(&export(&journal, "pgn")).unwrap().len(),
        2
    );

    for (bad, says) in [
        (
            &["demo", "--fast", "chess"][..],
            "known: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian",
        ),
        (
            &["demo", "--fast", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
            "--fen and --option do not apply",
        ),
        (&["demo", "--fast", "--settle-ms", "5"], "--settle-ms"),
        (&["demo", "--fast", "--lang", "de"], "--lang"),
        (
            &["demo", "--fast", "rand", "--rules", "wild16"],
            "two rule sets",
        ),
    ] {
        let mut args = bad.to_vec();
        args.extend(["--journal", j, "--no-speech"]);
        let out = kriegspiel(&args).output().unwrap();
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(stderr.contains(says), "{bad:?}: {stderr}");
    }
}

/// `kriegspiel demo | head -2`: a reader that goes away ends the demo quietly, with no
/// panic, as it ends every other command.
#[test]
fn a_closed_pipe_ends_the_demo_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec!["demo", "--fast", "--no-speech", "--journal"];
        args.push(journal.to_str().unwrap());
        args.push("--new-game");
        args.extend_from_slice(extra);
        let mut child = kriegspiel(&args).spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        drop(out);
        let done = child.wait_with_output().unwrap();
        let (_, stderr) = text(&done);
        assert!(!stderr.contains("panicked"), "{extra:?}: {stderr}");
        assert!(
            done.status.success(),
            "{extra:?}: {:?} {stderr}",
            done.status
        );
    }
}

/// A demo given a journal another console writes is refused as the table and the hall
/// refuse it: the holder named, status 1 (a journal in use is no mistyped option), nothing
/// played.
#[test]
fn a_demo_on_a_journal_in_use_is_refused_like_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let lock = std::fs::File::create(dir.path().join("j.sqlite.lock")).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(dir.path().join("j.sqlite.lock"), "kriegspiel, pid 4321\n").unwrap();
    for command in ["demo", "table"] {
        let out = kriegspiel(&[
            command,
            "--no-speech",
            "--journal",
            journal.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        assert!(
            stderr.contains("is in use by another console (kriegspiel, pid 4321)"),
            "{command}: {stderr}"
        );
        assert!(!stdout.contains("tries"), "{command} played: {stdout}");
    }
    assert!(!journal.exists());
}

/// The journal a demo run names on standard error ("... journal PATH (this run's own; ...").
fn own_journal(stderr_line: &str) -> Option<std::path::PathBuf> {
    let rest = stderr_line.strip_prefix("kriegspiel demo: journal ")?;
    let (path, why) = rest.split_once(" (")?;
    why.starts_with("this run's own").then(|| path.into())
}

/// Without `--journal` each demo run journals into a new private folder of its own: two
/// demos run at once, neither resumes the other's game, and the club's journal (in the
/// user's data folder) is never made or touched.
#[test]
fn each_demo_run_without_a_journal_has_its_own() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let data = dir.path().join("data");
    std::fs::create_dir(&tmp).unwrap();
    let demo = |fast: bool| {
        let mut args = vec!["demo", "--no-speech"];
        if fast {
            args.push("--fast");
        }
        let mut c = kriegspiel(&args);
        c.env("TMPDIR", &tmp)
            .env("XDG_DATA_HOME", &data)
            .env("HOME", dir.path());
        c
    };
    // Refused for its speech options: no folder of its own is left behind.
    let refused = demo(true)
        .args(["--white-audio", "hw:99,0"])
        .output()
        .unwrap();
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--white-audio"), "{stderr}");
    // (The audio library may leave a folder of its own there.)
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("kriegspiel-demo"))
        .collect();
    assert!(left.is_empty(), "{left:?} {stderr}");
    // A demo at a human pace, left playing while another starts.
    let mut slow = demo(false).spawn().unwrap();
    let mut errors = BufReader::new(slow.stderr.take().unwrap());
    let mut line = String::new();
    errors.read_line(&mut line).unwrap();
    let slow_journal = own_journal(line.trim_end()).unwrap_or_else(|| panic!("{line}"));
    let out = demo(true).output().unwrap();
    slow.kill().unwrap();
    slow.wait().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("RESULT       1-0"), "{stdout}");
    let fast_journal = stderr
        .lines()
        .find_map(own_journal)
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_ne!(slow_journal, fast_journal);
    for journal in [&slow_journal, &fast_journal] {
        let folder = journal.parent().unwrap();
        assert_eq!(
            folder.parent(),
            Some(tmp.as_path()),
            "{}",
            journal.display()
        );
        let mode = std::fs::metadata(folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    }
    // The fast run's journal holds its own game, whole, and nothing of the other's.
    let games = pgn_check::read_all(&export(&fast_journal, "pgn")).unwrap();
    assert_eq!(games.len(), 1);
    assert!(game_over(&fast_journal));
    assert!(!data.exists(), "the club's journal folder was made");
    // The next run starts afresh: the slow run's unfinished game is not resumed.
    let out = demo(true).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let next = stderr.lines().find_map(own_journal).unwrap();
    assert!(next != slow_journal && next != fast_journal, "{stderr}");
    assert!(!stdout.contains("resuming"), "{stdout}");
}

#[test]
fn run_sh_help_prints_usage_without_building() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let start = Instant::now();
    let out = Command::new("bash")
        .arg(root.join("console/run.sh"))
        .arg("rand")
        .arg("--help")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("Usage: bash console/run.sh [RULES] [OPTIONS...]"),
        "{stdout}"
    );
    for id in [
        "cincinnati",
        "wild16",
        "traditional",
        "rand",
        "berkeley",
        "berkeley-any",
        "russian",
    ] {
        assert!(stdout.contains(id), "{id}: {stdout}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "--help must not build"
    );
}

/// Counts the events journaled for the demo's game, with one reader kept open.
struct Watch<'a> {
    path: &'a Path,
    reader: Option<kriegspiel_hall::Journal>,
}

impl Watch<'_> {
    /// Events journaled so far (0 before the journal and its game exist).
    fn journaled(&mut self) -> u64 {
        if self.reader.is_none() && self.path.exists() {
            self.reader = kriegspiel_hall::Journal::open_read_only(self.path).ok();
        }
        // The demo's game is the journal's first.
        self.reader
            .as_ref()
            .and_then(|j| j.event_count(1).ok())
            .unwrap_or(0)
    }
}

/// Whether the journal's first game is over, replayed through a table.
fn game_over(path: &Path) -> bool {
    let j = kriegspiel_hall::Journal::open_read_only(path).unwrap();
    let games = j.games().unwrap();
    let Some(g) = games.first() else {
        return false;
    };
    let (mut table, _) = kriegspiel_table::Table::new(g.setup.config().unwrap(), 0).unwrap();
    for e in j.events(g.id).events {
        table.apply(e.event);
    }
    table.is_over()
}

#[test]
fn a_demo_killed_at_random_moments_ends_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.sqlite");
    let out = kriegspiel(&[
        "demo",
        "--fast",
        "--no-speech",
        "--journal",
        whole.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out).1);

    let journal = dir.path().join("crashed.sqlite");
    let j = journal.to_str().unwrap();
    let seed: u64 = rand::random();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut kills = 0;
    let mut runs = 0;
    // How far the game had got at each kill.
    let mut progress = std::collections::BTreeSet::new();
    let mut watch = Watch {
        path: &journal,
        reader: None,
    };
    let finished = loop {
        assert!(runs < 2000, "seed {seed}: the game never finished");
        runs += 1;
        let mut child = kriegspiel(&["demo", "--fast", "--no-speech", "--journal", j])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Each life ends a random number of journaled events later (then a random moment
        // more, to land in a write too), so the kills spread over the whole game. The game
        // journals about 470 events: at most 4 per life (with up to 12, one seed gave only 93
        // kills, under the bars below).
        let target = watch.journaled() + rng.gen_range(1..=4);
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none()
            && watch.journaled() < target
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_micros(300));
        }
        std::thread::sleep(Duration::from_micros(rng.gen_range(0..3000)));
        match child.try_wait().unwrap() {
            Some(status) => {
                assert!(status.success(), "seed {seed}: run {runs} failed: {status}");
                break kills;
            }
            None => {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                kills += 1;
                progress.insert(watch.journaled());
                // Killed after the last move but before it said goodbye: the game is over
                // (a new run would start the next demo game).
                if game_over(&journal) {
                    break kills;
                }
            }
        }
    };
    assert!(
        finished >= 100,
        "seed {seed}: only {finished} kills before the end"
    );
    assert!(
        progress.len() >= 100,
        "seed {seed}: kills at {} points of the game only",
        progress.len()
    );
    eprintln!(
        "seed {seed}: {finished} kills in {runs} runs, at {} points of the game",
        progress.len()
    );
    let pgn_whole = export(&whole, "pgn");
    let pgn_crashed = export(&journal, "pgn");
    assert_eq!(pgn_crashed, pgn_whole, "seed {seed}");
    let games = pgn_check::read_all(&pgn_crashed).unwrap();
    assert_eq!(games.len(), 1, "seed {seed}: one game, resumed each time");
    assert_eq!(
        answers(&export(&journal, "jsonl")),
        answers(&export(&whole, "jsonl")),
        "seed {seed}: every answer once, in order"
    );
}

/// The processes whose command line names `path` (the network demo's folder: its broker's
/// configuration, its boards' scripts, its console's journal).
fn processes_naming(path: &Path) -> Vec<String> {
    let needle = path.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(&needle) {
            found.push(format!("{}: {cmdline}", name.to_string_lossy()));
        }
    }
    found
}

/// `bash console/run.sh rand --network --fast --json` as a user runs it without a display:
/// a private mosquitto, two `kriegspiel-board simulate --broker` boards and the text demo on
/// board:1 and board:2, to the end of the game, with the referee's every answer (the demo's
/// keypad commands included: a question, a promotion); then nothing of it is left running,
/// and its temporary folder is gone.
#[test]
fn run_sh_network_plays_the_demo_through_a_private_broker_and_leaves_nothing() {
    use std::io::Read;
    use std::os::unix::process::CommandExt;

    let kriegspiel = cargo_bin("kriegspiel", "kriegspiel");
    let board = cargo_bin("kriegspiel-board", "kriegspiel-board");
    let bin = kriegspiel.parent().unwrap();
    assert_eq!(board.parent(), Some(bin));
    // The answers are the referee's, whatever the pace (--fast on the network: the quick one).
    let game = kriegspiel_tests::games::builtin("rand", Default::default()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // mktemp makes the demo's folder in TMPDIR: here, a folder of the test's own.
    let tmp = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let mut child = Command::new("bash")
        .arg(root.join("console/run.sh"))
        .args(["rand", "--network", "--fast", "--json", "--no-speech"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("KRIEGSPIEL_WHITE")
        .env_remove("KRIEGSPIEL_BLACK")
        .env("KRIEGSPIEL_BIN", bin)
        .env("TMPDIR", tmp.path())
        // Its own process group: on a timeout the test stops it and all it started.
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let stdout = reader(Box::new(child.stdout.take().unwrap()));
    let stderr = reader(Box::new(child.stderr.take().unwrap()));
    let limit = Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            panic!(
                "run.sh --network did not end within {limit:?}; stderr: {}",
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let took = start.elapsed();
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("anonymous clients allowed"), "{stderr}");
    let folder = stderr
        .lines()
        .find_map(|l| l.strip_prefix("Demo folder: "))
        .and_then(|l| l.split(' ').next())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| panic!("no demo folder said: {stderr}"));
    assert!(folder.starts_with(tmp.path()), "{}", folder.display());

    // JSON lines only on standard output: the referee's every answer, in order, and the end.
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let answers: Vec<&Value> = lines
        .iter()
        .filter(|v| v.get("answer").is_some() && v.get("repeat").is_none())
        .collect();
    for (i, (printed, expected)) in answers.iter().zip(&game.expected).enumerate() {
        assert_eq!(*printed, expected, "answer {i} (left: printed); {stderr}");
    }
    assert_eq!(answers.len(), game.expected.len(), "{stderr}");
    let last = lines.last().unwrap();
    assert_eq!(last["final_fen"], game.final_fen.as_str(), "{stdout}");
    assert_eq!(last["result"], "1-0", "{stdout}");
    // Both boards came over the network.
    for color in ["white", "black"] {
        assert!(
            lines
                .iter()
                .any(|v| v["link"] == color && v["event"] == "connected"),
            "{color}: {stdout}"
        );
    }

    // Nothing left: no broker, no board program, no console; the folder is gone.
    assert_eq!(processes_naming(&folder), Vec::<String>::new());
    assert!(!folder.exists(), "{} is left", folder.display());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    eprintln!("run.sh --network: the game in {took:?}");
    assert!(took < Duration::from_secs(90), "took {took:?}");
}
