//! Boards on the network: `kriegspiel-board simulate --broker` boards play whole games into
//! `kriegspiel table --white board:ID --black board:ID` through a private mosquitto, and
//! the table's answers must be exactly the referee's, whatever happens to the broker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use kriegspiel_tests::games::{self, BuiltGame, Timing};
use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::mosquitto::{CuttableProxy, Mosquitto};
use kriegspiel_tests::process::{play_table_via, Cabling, TableRun};
use serde_json::Value;

/// The games' quick pace with more room after each verdict: a promotion choice or a
/// question typed after a verdict reaches the console before the next hand moves, even on a
/// loaded machine with a broker and four programs between them.
const SLACK: Timing = Timing {
    start_ms: 1200,
    step_ms: 20,
    settle_ms: 100,
    after_verdict_ms: 200,
    react_ms: 300,
    command_ms: 300,
};

fn check(name: &str, game: &BuiltGame, run: &TableRun) {
    assert!(
        run.status.success(),
        "{name}: table exited with {}",
        run.status
    );
    let answers: Vec<&Value> = run
        .answers()
        .into_iter()
        .filter(|a| a.get("repeat").is_none())
        .collect();
    for (i, (printed, expected)) in answers.iter().zip(&game.expected).enumerate() {
        assert_eq!(
            *printed, expected,
            "{name}: answer {i} differs (left: printed, right: expected); stderr {:?}",
            run.stderr
        );
    }
    assert_eq!(
        answers.len(),
        game.expected.len(),
        "{name}: answers missing or extra"
    );
    let finals: Vec<&Value> = run.with_key("final_fen");
    assert_eq!(finals.len(), 1, "{name}: one end");
    assert_eq!(
        finals[0]["final_fen"], game.final_fen,
        "{name}: final position"
    );
}

/// The broker, and the boards' way to it (a proxy that can cut them off).
struct Room {
    broker: Mosquitto,
    boards: CuttableProxy,
}

fn play(
    name: &str,
    timing: Timing,
    restart_after: Option<usize>,
    mut during: impl FnMut(usize, &Value, &mut Room),
) -> (BuiltGame, TableRun) {
    // One game at a time: four programs and a broker each, on a 2-core machine, and the
    // scripted hands do not wait for a loaded machine.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let game = games::load(name, timing).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let url = broker.url();
    let boards = CuttableProxy::start(broker.port).unwrap();
    let boards_url = boards.url();
    let mut room = Room { broker, boards };
    let mut answers = 0;
    let run = play_table_via(
        Cabling::Broker {
            url: &url,
            boards_url: Some(&boards_url),
            restart_after,
        },
        &game,
        &cargo_bin("kriegspiel", "kriegspiel"),
        &cargo_bin("kriegspiel-board", "kriegspiel-board"),
        &[
            "--settle-ms".to_owned(),
            timing.settle_ms.to_string(),
            "--no-speech".to_owned(),
        ],
        None,
        Duration::from_millis(game.duration_ms + 60_000),
        |v| {
            if v.get("answer").is_some() {
                answers += 1;
            }
            during(answers, v, &mut room);
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    (game, run)
}

#[test]
fn a_whole_game_through_the_broker_gives_the_referees_verdicts() {
    let (game, run) = play("cincinnati", SLACK, None, |_, _, _| {});
    check("cincinnati", &game, &run);
}

/// The broker is killed (SIGKILL: everything it held is gone) in the middle of the game and
/// comes back 2 s later: the boards send again what was not acknowledged.
#[test]
fn a_broker_killed_mid_game_loses_nothing() {
    let mut killed = false;
    let (game, run) = play("berkeley", SLACK, None, |answers, _, room| {
        if answers == 12 && !killed {
            killed = true;
            room.broker.kill();
            std::thread::sleep(Duration::from_secs(2));
            room.broker.restart().unwrap();
        }
    });
    check("berkeley", &game, &run);
}

/// Both boards are cut off from the broker for 5 s in the middle of the game (their
/// connections closed, new ones refused), as by a pulled cable or a dead switch: they keep
/// what they sense and send it once they are back; the table waits for them.
#[test]
fn boards_cut_off_for_5_s_lose_nothing() {
    let mut cut = false;
    let (game, run) = play("berkeley", SLACK, None, |answers, _, room| {
        if answers == 12 && !cut {
            cut = true;
            room.boards.cut_for(Duration::from_secs(5));
        }
    });
    check("berkeley", &game, &run);
}

/// The console is killed (SIGKILL) mid-game and started again on its journal 2 s later: the
/// boards kept what it had not acknowledged, the journal what it had, and the game goes on
/// with every verdict as if nothing had happened.
#[test]
fn a_console_killed_mid_game_resumes_with_nothing_lost_or_doubled() {
    let (game, run) = play("berkeley", SLACK, Some(12), |_, _, _| {});
    check("berkeley", &game, &run);
    let resumed = run.with_key("resumed");
    assert_eq!(resumed.len(), 1, "one resume: {resumed:?}");
}

/// A broker that wants passwords: `board-7` with the password `right`.
fn guarded_broker(dir: &std::path::Path) -> Mosquitto {
    let passwd = dir.join("passwd");
    std::fs::write(&passwd, "").unwrap();
    let made = std::process::Command::new("mosquitto_passwd")
        .args(["-b"])
        .arg(&passwd)
        .args(["board-7", "right"])
        .status()
        .unwrap();
    assert!(made.success());
    Mosquitto::start(
        dir,
        &format!("allow_anonymous false\npassword_file {}", passwd.display()),
    )
    .unwrap()
}

/// Wrong credentials are a clear refusal naming the board, never a silent retry loop.
#[test]
fn a_board_with_a_wrong_password_is_refused_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let broker = guarded_broker(dir.path());
    let script = dir.path().join("s.script");
    std::fs::write(&script, "occupied white\n100 lift e2\n200 place e4\n").unwrap();
    let wrong = dir.path().join("wrong");
    std::fs::write(&wrong, "password = \"wrong\"\n").unwrap();
    let out = std::process::Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
        .args([
            "simulate",
            "--quiet",
            "--board-id",
            "7",
            "--username",
            "board-7",
        ])
        .arg("--script")
        .arg(&script)
        .arg("--broker")
        .arg(broker.url())
        .arg("--password-file")
        .arg(&wrong)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .contains("the broker refused board 7: not authorised (a wrong user name or password"),
        "{stderr}"
    );
}

/// A console whose broker refuses it says so once, as a line for scripts, and keeps its
/// table running (the keypad still plays).
#[test]
fn a_console_refused_by_the_broker_says_so_and_plays_on() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let broker = guarded_broker(dir.path());
    let mut table = std::process::Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args([
            "table",
            "--white",
            "board:7",
            "--no-speech",
            "--username",
            "console-x",
        ])
        .arg("--broker")
        .arg(broker.url())
        .arg("--journal")
        .arg(dir.path().join("j.sqlite"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = table.stdin.take().unwrap();
    let mut lines = BufReader::new(table.stdout.take().unwrap()).lines();
    let mut refused = None;
    for line in lines.by_ref() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["broker"] == "refused" {
            refused = Some(v);
            break;
        }
    }
    let refused = refused.expect("a refusal line");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("refused this console"),
        "{refused}"
    );
    writeln!(stdin, r#"{{"color":"black","resign":true}}"#).unwrap();
    drop(stdin);
    let rest: Vec<Value> = lines
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(
        rest.iter().any(|v| v.get("final_fen").is_some()),
        "the table played on: {rest:?}"
    );
    let _ = table.wait();
}
