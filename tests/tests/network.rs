//! Boards on the network: `kriegspiel-board simulate --broker` boards play whole games into
//! `kriegspiel table --white board:ID --black board:ID` through a private mosquitto, and
//! the table's answers must be exactly the referee's, whatever happens to the broker, the
//! console or a board.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use kriegspiel_table::kriegspiel_referee::shakmaty::{Color, Square};
use kriegspiel_tests::games::{self, Action, BuiltGame, Timing};
use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::mosquitto::{CuttableProxy, Mosquitto};
use kriegspiel_tests::process::{play_table_with, table_in, Boards, Cabling, TableRun};
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

/// The broker, and each board's way to it (White's, Black's: proxies that can cut them off).
struct Room {
    broker: Mosquitto,
    boards: [CuttableProxy; 2],
}

impl Room {
    fn proxy(&self, color: Color) -> &CuttableProxy {
        &self.boards[usize::from(color == Color::Black)]
    }
}

fn play(
    name: &str,
    timing: Timing,
    restart_after: Option<usize>,
    mut during: impl FnMut(usize, &Value, &mut Room, &mut Boards),
) -> (BuiltGame, TableRun) {
    // One game at a time: four programs and a broker each, on a 2-core machine, and the
    // scripted hands do not wait for a loaded machine.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let game = games::load(name, timing).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let url = broker.url();
    let boards = [(); 2].map(|()| CuttableProxy::start(broker.port).unwrap());
    let boards_urls = boards.each_ref().map(CuttableProxy::url);
    let mut room = Room { broker, boards };
    let mut answers = 0;
    let run = play_table_with(
        Cabling::Broker {
            url: &url,
            boards_urls: Some(boards_urls.each_ref().map(String::as_str)),
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
        |v, boards| {
            if v.get("answer").is_some() {
                answers += 1;
            }
            during(answers, v, &mut room, boards);
        },
    )
    .unwrap_or_else(|e| {
        // A stalled game: whether the broker came back, and whom it took or refused.
        let log = room.broker.log_text();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        panic!("{name}: {e}; the broker's last log lines (newest first): {tail:?}")
    });
    (game, run)
}

#[test]
fn a_whole_game_through_the_broker_gives_the_referees_verdicts() {
    let (game, run) = play("cincinnati", SLACK, None, |_, _, _, _| {});
    check("cincinnati", &game, &run);
}

/// Each board's last word to the arbiter once the game is over (none if it never had one
/// after connecting): after a fault the boards came back from, it must not be "disconnected".
fn last_link_events(run: &TableRun) -> [Option<String>; 2] {
    [Color::White, Color::Black].map(|c| {
        run.lines
            .iter()
            .rev()
            .find(|v| v["link"] == c.to_string().as_str())
            .and_then(|v| v["event"].as_str().map(str::to_owned))
    })
}

/// Berkeley's game with `fault` done to the room once, right after answer `at`.
fn berkeley_with_fault(at: usize, mut fault: impl FnMut(&mut Room)) -> TableRun {
    let mut done = false;
    let (game, run) = play("berkeley", SLACK, None, |answers, _, room, _| {
        if answers == at && !done {
            done = true;
            fault(room);
        }
    });
    check("berkeley", &game, &run);
    run
}

/// The broker is killed (SIGKILL: everything it held is gone) in the middle of the game and
/// comes back 2 s later: the boards send again what was not acknowledged.
#[test]
fn a_broker_killed_mid_game_loses_nothing() {
    let run = berkeley_with_fault(12, |room| {
        room.broker.kill();
        std::thread::sleep(Duration::from_secs(2));
        room.broker.restart().unwrap();
    });
    assert!(
        last_link_events(&run)
            .iter()
            .all(|e| e.as_deref() != Some("disconnected")),
        "a board still said gone after the broker came back: {:?}",
        last_link_events(&run)
    );
}

/// The broker stalls for 3 s mid-game (SIGSTOP: every connection open, nothing moving), as
/// an overloaded room server or a Wi-Fi hiccup would: the play held up meanwhile comes in
/// at once, and is judged with the spacing the men moved with, not as lifts and places all
/// in one instant.
#[test]
fn a_broker_stalled_for_3_s_judges_the_held_up_play_as_it_happened() {
    berkeley_with_fault(10, |room| {
        room.broker.stall(Duration::from_secs(3)).unwrap()
    });
}

/// Both boards are cut off from the broker for 5 s in the middle of the game (their
/// connections closed, new ones refused), as by a pulled cable or a dead switch: they keep
/// what they sense and send it once they are back; the table waits for them. Each is said
/// gone at once: the second's word was held back for the first board's frames (up to the
/// table's 10 s hold for a board that may come back with what it kept), though the word
/// changes nothing in the game.
#[test]
fn boards_cut_off_for_5_s_lose_nothing() {
    let mut cut_at: Option<std::time::Instant> = None;
    let mut said_gone: Vec<(String, Duration)> = Vec::new();
    let (game, run) = play("berkeley", SLACK, None, |answers, v, room, _| {
        if answers >= 12 && cut_at.is_none() {
            // A second apart, as two cables pulled one after the other, and both back 5 s
            // after the first was pulled.
            let [white, black] = room.boards.clone();
            white.cut();
            cut_at = Some(std::time::Instant::now());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(1));
                black.cut();
                std::thread::sleep(Duration::from_secs(4));
                white.restore();
                black.restore();
            });
        }
        // The first word of each board's loss (a frame the broker still delivered after
        // its last will brings it back for a moment, and its silence says it gone again).
        if let Some(at) = cut_at.filter(|_| v["event"] == "disconnected") {
            let board = v["link"].as_str().unwrap_or_default().to_owned();
            if !said_gone.iter().any(|(b, _)| *b == board) {
                said_gone.push((board, at.elapsed()));
            }
        }
    });
    check("berkeley", &game, &run);
    let mut boards: Vec<&str> = said_gone.iter().map(|(b, _)| b.as_str()).collect();
    boards.sort_unstable();
    assert_eq!(boards, ["black", "white"], "{said_gone:?}");
    // The broker says each gone at once (its last will); the hold for a lagging board is 10 s.
    assert!(
        said_gone
            .iter()
            .all(|(_, after)| *after < Duration::from_secs(5)),
        "{said_gone:?}"
    );
    // Said gone while cut off, and back once they were.
    assert_eq!(
        last_link_events(&run),
        [
            Some("reconnected".to_owned()),
            Some("reconnected".to_owned())
        ]
    );
}

/// The console is killed (SIGKILL) mid-game and started again on its journal 2 s later: the
/// boards kept what it had not acknowledged, the journal what it had, and the game goes on
/// with every verdict as if nothing had happened.
#[test]
fn a_console_killed_mid_game_resumes_with_nothing_lost_or_doubled() {
    let (game, run) = play("berkeley", SLACK, Some(12), |_, _, _, _| {});
    check("berkeley", &game, &run);
    let resumed = run.with_key("resumed");
    assert_eq!(resumed.len(), 1, "one resume: {resumed:?}");
    // The boards kept what was played while the console was down, timed as played: that
    // time counted, and the journal and the arbiter's note say so.
    let restarts: Vec<String> = journal(&run)
        .prepare("SELECT line FROM events WHERE line LIKE '% restarted %'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        restarts.len() == 1 && restarts[0].ends_with(" counted"),
        "{restarts:?}"
    );
    // The restarted console says each board there once it hears it, as the first did.
    let opened = run
        .lines
        .iter()
        .rposition(|v| v.get("opened").is_some())
        .unwrap();
    for color in ["white", "black"] {
        assert!(
            run.lines[opened..]
                .iter()
                .any(|v| v["link"] == color && v["event"] == "connected"),
            "the restarted console never said {color}'s board there"
        );
    }
    // The restarted console's first acknowledgements are its own, not another console's.
    let shared: Vec<_> = run
        .lines
        .iter()
        .filter(|v| v["broker"] == "shared")
        .collect();
    assert!(shared.is_empty(), "a false alarm: {shared:?}");
    // The console compacted each board's stored frames (every 32 here) before and after
    // its restart: the resume above replayed a journal with frames missing on purpose.
    for (board, rows, made) in inbox_rows(&run) {
        assert!(
            rows * 2 < made,
            "board {board}: {rows} frames of {made} kept"
        );
    }
}

/// The run's journal, read-only.
fn journal(run: &TableRun) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(run.journal(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
}

/// Each board's stored frames of its latest epoch, and how many it made in that epoch.
fn inbox_rows(run: &TableRun) -> Vec<(u32, i64, i64)> {
    let conn = journal(run);
    let mut stmt = conn
        .prepare(
            "SELECT board, COUNT(*), MAX(seq) + 1 FROM board_inbox
             WHERE (board, epoch) IN (SELECT board, MAX(epoch) FROM board_inbox GROUP BY board)
             GROUP BY board ORDER BY board",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Whether `v` is the table's verdict on `color`'s try `uci` (`moved`, `illegal`, ...).
fn is_verdict(v: &Value, color: &str, uci: &str, answer: &str) -> bool {
    v["answer"] == answer && v["color"] == color && v["try"] == uci && v.get("repeat").is_none()
}

/// The lifts and places the table took from `color`'s board, in the order it took them,
/// as its journal keeps them (`1200 white lift e2`).
fn journaled_moves(run: &TableRun, color: Color) -> Vec<(Action, Square)> {
    let conn = journal(run);
    let mut stmt = conn
        .prepare("SELECT line FROM events ORDER BY game, seq")
        .unwrap();
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let color = color.to_string();
    lines
        .iter()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let action = match words[..] {
                [_, c, "lift", _] if c == color => Action::Lift,
                [_, c, "place", _] if c == color => Action::Place,
                _ => return None,
            };
            Some((action, words[3].parse().unwrap()))
        })
        .collect()
}

/// `color`'s scripted lifts and places: every one its board makes in the game.
fn scripted_moves(game: &BuiltGame, color: Color) -> Vec<(Action, Square)> {
    game.script(color)
        .actions
        .iter()
        .map(|&(_, action, square)| (action, square))
        .collect()
}

/// How many epochs (boots) of each board the journal's inbox holds, by board id.
fn inbox_epochs(run: &TableRun) -> Vec<(u32, u32)> {
    let conn = journal(run);
    let mut stmt = conn
        .prepare(
            "SELECT board, COUNT(DISTINCT epoch) FROM board_inbox GROUP BY board ORDER BY board",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Black's board loses its power (SIGKILL: the outbox in its memory is gone) right after
/// the verdict on its own move, and boots again at once with its men where they stand: a
/// new epoch, its own hello and snapshot, which the console resyncs from. Every lift and
/// place it had made was already stored by the console (the verdict came from them), so
/// nothing is lost: the journal holds each of its moves once, in the script's order, and
/// two epochs of that board.
#[test]
fn a_board_rebooted_mid_game_loses_nothing_and_is_followed_in_its_new_epoch() {
    let mut rebooted = None;
    let (game, run) = play("berkeley", SLACK, None, |_, v, _, boards| {
        // Black's e7e6, after two refused tries: White moves next.
        if rebooted.is_none() && is_verdict(v, "black", "e7e6", "moved") {
            let made = boards.kill(Color::Black);
            boards.start_again(Color::Black).unwrap();
            rebooted = Some(made);
        }
    });
    check("berkeley", &game, &run);
    let made = rebooted.expect("Black's board was rebooted");
    let black = scripted_moves(&game, Color::Black);
    assert!(
        0 < made && made < black.len(),
        "rebooted after {made} moves"
    );
    for color in [Color::White, Color::Black] {
        assert_eq!(
            journaled_moves(&run, color),
            scripted_moves(&game, color),
            "{color}'s lifts and places, as the journal took them"
        );
    }
    assert_eq!(inbox_epochs(&run), [(1, 1), (2, 2)], "epochs by board");
}

/// Leaves on the broker, retained, an ack of board `id`'s `epoch`: what the console said to
/// an earlier boot of the board.
fn keep_ack(url: &str, id: u32, epoch: u64) {
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let topic = kriegspiel_net::BoardTopics::new(id).ack;
    for _ in 0..10 {
        let options = rumqttc::MqttOptions::new("earlier-boot", "127.0.0.1", port);
        let (client, mut connection) = rumqttc::Client::new(options, 10);
        let ack = kriegspiel_net::Ack { epoch, next: 0 }.encode_with(1);
        client
            .publish(topic.clone(), rumqttc::QoS::AtLeastOnce, true, ack)
            .unwrap();
        for event in connection.iter() {
            if let rumqttc::Event::Incoming(rumqttc::Packet::PubAck(_)) = event.unwrap() {
                break;
            }
        }
        client.disconnect().unwrap();
        if retained_ack(port, &topic).is_some_and(|a| a.epoch == epoch) {
            return;
        }
        // The console's ack of the board's last frames came after ours: once more.
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the broker never kept the earlier boot's ack");
}

/// The ack the broker keeps on `topic` (one is there: it comes right after subscribing).
fn retained_ack(port: u16, topic: &str) -> Option<kriegspiel_net::Ack> {
    let options = rumqttc::MqttOptions::new("ack-reader", "127.0.0.1", port);
    let (client, mut connection) = rumqttc::Client::new(options, 10);
    client.subscribe(topic, rumqttc::QoS::AtLeastOnce).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    let mut ack = None;
    while std::time::Instant::now() < deadline {
        match connection.recv_timeout(Duration::from_millis(100)) {
            Ok(Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p)))) => {
                ack = kriegspiel_net::Ack::decode_with(&p.payload)
                    .ok()
                    .map(|(a, _)| a);
                break;
            }
            Ok(Ok(_)) | Err(_) => {}
            Ok(Err(e)) => panic!("reading the retained ack: {e}"),
        }
    }
    let _ = client.disconnect();
    ack
}

/// A Raspberry Pi has no battery clock: Black's board reboots into a time earlier than its
/// last boot's, so its new epoch is lower than the one the console last followed (here:
/// the console's retained ack is of an epoch a day ahead). The board must not take that
/// ack for another board with its id: it moves to an epoch past it, the console resyncs
/// from it, and the game goes on with the referee's verdicts, nothing lost.
#[test]
fn a_board_rebooted_into_an_earlier_time_moves_past_its_last_epoch() {
    let ahead = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 86_400_000;
    let mut rebooted = false;
    let (game, run) = play("berkeley", SLACK, None, |_, v, room, boards| {
        if !rebooted && is_verdict(v, "black", "e7e6", "moved") {
            boards.kill(Color::Black);
            // The console acks at most every 250 ms (and looks every 50 ms): its ack of the
            // board's last frames may still be due, and would replace the earlier boot's.
            // Black moves next after White's move, well after this.
            std::thread::sleep(Duration::from_millis(350));
            keep_ack(&room.broker.url(), 2, ahead);
            boards.start_again(Color::Black).unwrap();
            rebooted = true;
        }
    });
    assert!(rebooted, "Black's board was rebooted");
    check("berkeley", &game, &run);
    for color in [Color::White, Color::Black] {
        assert_eq!(
            journaled_moves(&run, color),
            scripted_moves(&game, color),
            "{color}'s lifts and places, as the journal took them"
        );
    }
    let conn = journal(&run);
    let last: u64 = conn
        .query_row(
            "SELECT MAX(epoch) FROM board_inbox WHERE board = 2",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap() as u64;
    assert!(
        last > ahead,
        "Black's board's last epoch {last} is past {ahead}"
    );
}

/// The same table started twice: a second console, on a journal of its own, is refused
/// before it begins a game (the broker says the table's console is online). A round file
/// that gives the same two boards to another table of another console is not caught so:
/// that console takes them mid-game, each console's acknowledgements reach the other, the
/// first tells its arbiter plainly that a board is taken by another console, and its game
/// goes on with the referee's verdicts.
#[test]
fn a_board_taken_by_a_second_console_is_said_to_the_arbiter() {
    let built = games::load("berkeley", SLACK).unwrap();
    let second_dir = tempfile::tempdir().unwrap();
    let round = second_dir.path().join("round.toml");
    std::fs::write(
        &round,
        "[[table]]\nname = \"elsewhere\"\nconsole = \"other\"\n\n\
         [[table]]\nname = \"same boards\"\nrules = \"berkeley\"\n\
         white = \"board:1\"\nblack = \"board:2\"\nconsole = \"second\"\n",
    )
    .unwrap();
    let mut twice: Option<std::process::Child> = None;
    let mut second: Option<kriegspiel_tests::process::ChildGuard> = None;
    let mut told = Vec::new();
    let (game, run) = play("berkeley", SLACK, None, |answers, v, room, _| {
        if answers == 6 && twice.is_none() {
            let child = std::process::Command::new(cargo_bin("kriegspiel", "kriegspiel"))
                .args([
                    "table", "--white", "board:1", "--black", "board:2", "--broker",
                ])
                .arg(room.broker.url())
                .args(built.table_args())
                .arg("--journal")
                .arg(second_dir.path().join("twice.sqlite"))
                .arg("--no-speech")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            twice = Some(child);
        }
        if answers == 8 && second.is_none() {
            let child = std::process::Command::new(cargo_bin("kriegspiel", "kriegspiel"))
                .args(["hall", "--console", "second", "--broker"])
                .arg(room.broker.url())
                .arg("--config")
                .arg(&round)
                .arg("--journal")
                .arg(second_dir.path().join("second.sqlite"))
                .arg("--no-speech")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            second = Some(kriegspiel_tests::process::ChildGuard(child));
        }
        if v["broker"] == "shared" {
            told.push(v["message"].as_str().unwrap_or_default().to_owned());
            // Told: the arbiter stops the second console.
            second.take();
        }
    });
    // Refused at once; one still running after 20 s is stopped, and fails below.
    let mut twice = twice.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while twice.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = twice.kill();
    let twice = twice.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&twice.stderr);
    assert_eq!(twice.status.code(), Some(1), "{said}");
    assert!(
        said.contains("console 'main' already runs on this round's broker"),
        "{said}"
    );
    assert!(
        told.first()
            .is_some_and(|m| m.contains("also taken by another console")),
        "the arbiter was told: {told:?}"
    );
    check("berkeley", &game, &run);
}

/// White's board is cut off from the broker right after the verdict on its castling, moves
/// the rook a1–d1 meanwhile (those frames wait in its outbox, never delivered), then loses
/// its power and boots again with its men where they stand: the rook's frames are gone
/// with it. The console resyncs from the new epoch's snapshot, which shows the rook on d1
/// as the official position has it, and the game goes on with the referee's verdicts. The
/// journal holds every other lift and place once, in order, none of the lost ones, and two
/// epochs of White's board.
#[test]
fn a_board_rebooted_with_undelivered_events_is_resynced_from_its_snapshot() {
    let built = games::load("berkeley", SLACK).unwrap();
    let white = scripted_moves(&built, Color::White);
    // The rook's moves after the castling e1c1: from its lift on a1 to its place on d1.
    let rook = white
        .iter()
        .position(|&m| m == (Action::Lift, Square::A1))
        .unwrap();
    let rook_done = rook
        + 1
        + white[rook..]
            .iter()
            .position(|&m| m == (Action::Place, Square::D1))
            .unwrap();
    let mut rebooted = None;
    let (game, run) = play("berkeley", SLACK, None, |_, v, room, boards| {
        if rebooted.is_none() && is_verdict(v, "white", "e1c1", "moved") {
            room.proxy(Color::White).cut();
            let cut_at = boards.reported(Color::White);
            let carried = boards.wait_reported(Color::White, rook_done, Duration::from_secs(10));
            let made = boards.kill(Color::White);
            room.proxy(Color::White).restore();
            boards.start_again(Color::White).unwrap();
            assert!(carried, "the rook was not moved: {made} moves made");
            rebooted = Some((cut_at, made));
        }
    });
    check("berkeley", &game, &run);
    let (cut_at, made) = rebooted.expect("White's board was rebooted");
    assert_eq!(made, rook_done, "killed right after the rook's move");
    assert_eq!(
        journaled_moves(&run, Color::Black),
        scripted_moves(&game, Color::Black)
    );
    // White's journaled moves: the script but for the moves the killed program made while
    // cut off, which never reached the console.
    let taken = journaled_moves(&run, Color::White);
    let lost = white.len().checked_sub(taken.len()).unwrap();
    let kept = made - lost;
    assert!(
        lost > 0 && kept >= rook,
        "lost {lost} moves (cut after {cut_at}, killed after {made}); taken {taken:?}"
    );
    assert_eq!(taken[..kept], white[..kept], "before the loss");
    assert_eq!(taken[kept..], white[made..], "after the reboot");
    assert_eq!(inbox_epochs(&run), [(1, 2), (2, 1)], "epochs by board");
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
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("refused this console"), "{refused}");
    // What to do, for a round file's console as for a named user.
    assert!(
        message.contains("run `kriegspiel broker-config` for this round again")
            && message.contains("check the [broker] user name and password file"),
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

/// A board that stops with everything acknowledged leaves "stopped" on the broker for any
/// window that looks later, never its last will's "offline": the broker reads its goodbye
/// before the board's program ends (a socket closed with an unread acknowledgement in it
/// sends a reset, which can overtake the goodbye; it did so for consoles under load).
#[test]
fn a_board_stopped_cleanly_is_kept_as_stopped_not_offline() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let script = dir.path().join("opening.txt");
    std::fs::write(&script, "occupied white\n100 lift e2\n200 place e4\n").unwrap();
    acknowledge_every_event(broker.port);
    for id in 10..13 {
        let out = std::process::Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
            .arg("simulate")
            .arg("--script")
            .arg(&script)
            .args(["--broker", &broker.url(), "--board-id", &id.to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let topic = kriegspiel_net::BoardTopics::new(id).status;
        assert_eq!(
            retained(broker.port, &topic).as_deref(),
            Some("stopped"),
            "board {id}; the broker's log: {}",
            broker.log_text()
        );
    }
}

/// A board program stopped by SIGTERM (`systemctl stop`, `kill`) in the middle of its game
/// says "stopped" on the broker, as a board that ended: killed by the signal's default
/// action it left its last will's "offline", and the arbiter heard a board lost.
#[test]
fn a_board_stopped_by_sigterm_says_stopped_not_offline() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let script = dir.path().join("long.txt");
    std::fs::write(
        &script,
        "occupied white\n100 lift e2\n200 place e4\n600000 lift d2\n",
    )
    .unwrap();
    acknowledge_every_event(broker.port);
    let board = std::process::Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
        .arg("simulate")
        .arg("--script")
        .arg(&script)
        .args(["--broker", &broker.url(), "--board-id", "21"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let topic = kriegspiel_net::BoardTopics::new(21).status;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !retained(broker.port, &topic).is_some_and(|s| s.starts_with("online")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the board never came online"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Its lift and place sent and held.
    std::thread::sleep(Duration::from_secs(1));
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &board.id().to_string()])
        .status()
        .unwrap()
        .success());
    let out = board.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("kriegspiel-board: SIGTERM: stopped"),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("lift e2"),
        "{out:?}"
    );
    assert_eq!(
        retained(broker.port, &topic).as_deref(),
        Some("stopped"),
        "the broker's log: {}",
        broker.log_text()
    );
}

/// The console's part, without a console: every board's events held, and acknowledged
/// (retained, as a console does).
fn acknowledge_every_event(port: u16) {
    let console = rumqttc::MqttOptions::new("console", "127.0.0.1", port);
    let (client, mut connection) = rumqttc::Client::new(console, 64);
    client
        .subscribe("kriegspiel/board/+/events", rumqttc::QoS::AtLeastOnce)
        .unwrap();
    let acker = client.clone();
    std::thread::spawn(move || {
        for event in connection.iter() {
            if let Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p))) = event {
                let (Some(id), Ok(e)) = (
                    p.topic.split('/').nth(2).and_then(|id| id.parse().ok()),
                    kriegspiel_net::Envelope::decode(&p.payload),
                ) else {
                    continue;
                };
                let ack = kriegspiel_net::Ack {
                    epoch: e.epoch,
                    next: e.seq + 1,
                };
                let topic = kriegspiel_net::BoardTopics::new(id).ack;
                let _ =
                    acker.try_publish(topic, rumqttc::QoS::AtLeastOnce, true, ack.encode_with(1));
            }
        }
    });
}

/// A host that simulates many boards runs their connections on one runtime of its own
/// (`BoardTransport::start_on`): each board's frames reach the console's side and are
/// acknowledged, and each board, stopped, says so.
#[test]
fn boards_sharing_one_thread_each_deliver_their_frames() {
    use kriegspiel_board_core::FrameWriter;
    use kriegspiel_net::{BoardTransport, Broker, TransportConfig};
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    acknowledge_every_event(broker.port);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let url: kriegspiel_net::BrokerUrl = broker.url().parse().unwrap();
    let boards: Vec<_> = (20..26)
        .map(|id| {
            let config = TransportConfig::new(id, Broker::plain(url.clone()));
            BoardTransport::start_on(config, runtime.handle()).unwrap()
        })
        .collect();
    for (writer, _, _) in &boards {
        let mut writer = writer.clone();
        for n in 0..50u8 {
            writer.write_all(&[n; 12]).unwrap();
        }
    }
    for (id, (_, _, transport)) in (20..).zip(&boards) {
        assert_eq!(
            transport.flush(Duration::from_secs(20)),
            Ok(()),
            "board {id}: frames never acknowledged"
        );
        assert!(transport.is_connected(), "board {id}");
    }
    drop(boards);
    for id in 20..26 {
        let topic = kriegspiel_net::BoardTopics::new(id).status;
        assert_eq!(
            retained(broker.port, &topic).as_deref(),
            Some("stopped"),
            "board {id}"
        );
    }
}

/// The message the broker keeps on `topic`, if any.
fn retained(port: u16, topic: &str) -> Option<String> {
    let options = rumqttc::MqttOptions::new("late-window", "127.0.0.1", port);
    let (client, mut connection) = rumqttc::Client::new(options, 10);
    client.subscribe(topic, rumqttc::QoS::AtLeastOnce).unwrap();
    let mut deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        match connection.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p)))) if p.retain => {
                return Some(String::from_utf8_lossy(&p.payload).into_owned());
            }
            // Retained messages come right behind the subscription's acknowledgement.
            Ok(Ok(rumqttc::Event::Incoming(rumqttc::Packet::SubAck(_)))) => {
                deadline = std::time::Instant::now() + Duration::from_secs(1);
            }
            _ => {}
        }
    }
    None
}

/// Mosquitto gives a connected client's id to whoever connects with it, even under another
/// login, and closes the first connection. A spectator who guesses the console's id (its
/// name and process id, as it once was) connects with it again and again: the console stays
/// on the broker, because its id ends in a suffix nobody can guess.
#[test]
fn a_client_guessing_the_consoles_id_cannot_knock_it_off_the_broker() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let url = broker.url();
    let args = ["--white", "board:7", "--no-speech", "--broker", &url].map(std::ffi::OsStr::new);
    let (table, _keys, rx) = table_in(dir.path(), &args).unwrap();
    // What the console says of the broker for `until`, or until it says `stop`.
    let broker_said = |rx: &std::sync::mpsc::Receiver<String>, until: Duration, stop: &str| {
        let end = std::time::Instant::now() + until;
        let mut said = Vec::new();
        while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
            let Ok(line) = rx.recv_timeout(left) else {
                break;
            };
            let v: Value = serde_json::from_str(&line).unwrap();
            if let Some(b) = v["broker"].as_str() {
                said.push(b.to_owned());
                if b == stop {
                    break;
                }
            }
        }
        said
    };
    let first = broker_said(&rx, Duration::from_secs(20), "reached");
    assert!(first.iter().any(|b| b == "reached"), "{first:?}");
    let guessed = format!("kriegspiel-console-main-{}", table.0.id());
    let port: u16 = broker.url().rsplit(':').next().unwrap().parse().unwrap();
    for _ in 0..5 {
        let options = rumqttc::MqttOptions::new(guessed.clone(), "127.0.0.1", port);
        let (client, mut connection) = rumqttc::Client::new(options, 4);
        for event in connection.iter().take(3) {
            if matches!(
                event,
                Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))) | Err(_)
            ) {
                break;
            }
        }
        let _ = client.disconnect();
        std::thread::sleep(Duration::from_millis(200));
    }
    let after = broker_said(&rx, Duration::from_secs(3), "down");
    drop(table);
    assert!(
        !after.iter().any(|b| b == "down"),
        "the console was knocked off: {after:?}"
    );
    let log = broker.log_text();
    // The console's own id: the guessed one and a suffix of 16 hexadecimal digits.
    let suffixed = log
        .lines()
        .filter_map(|l| l.split(" as ").nth(1)?.split(' ').next())
        .filter_map(|id| id.strip_prefix(&format!("{guessed}-")))
        .any(|suffix| suffix.len() == 16 && suffix.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(suffixed, "no console's id with a suffix in the log:\n{log}");
}

/// A flood of junk on a board's topic (faulty firmware, or the board's login misused) is
/// dropped and said a few times, at each power of two, never once a message: lines that
/// many once crowded the tables' own events out of the queue every follower reads, and
/// closed every player's terminal. The table plays on.
#[test]
fn a_flood_of_junk_on_a_boards_topic_is_said_a_few_times_and_the_table_plays_on() {
    use std::io::Write;
    const JUNK: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let broker = Mosquitto::start(dir.path(), "").unwrap();
    let url = broker.url();
    let args = ["--white", "board:7", "--no-speech", "--broker", &url].map(std::ffi::OsStr::new);
    let (mut table, mut stdin, lines) = table_in(dir.path(), &args).unwrap();
    for line in lines.iter() {
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["broker"] == "reached" {
            break;
        }
    }
    let port: u16 = broker.url().rsplit(':').next().unwrap().parse().unwrap();
    let options = rumqttc::MqttOptions::new("junk", "127.0.0.1", port);
    let (client, mut connection) = rumqttc::Client::new(options, 64);
    let driver =
        std::thread::spawn(move || for _ in connection.iter().take_while(Result::is_ok) {});
    let topic = kriegspiel_net::BoardTopics::new(7).events;
    for k in 0..JUNK {
        let qos = if k + 1 == JUNK {
            rumqttc::QoS::AtLeastOnce
        } else {
            rumqttc::QoS::AtMostOnce
        };
        client
            .publish(&topic, qos, false, b"junk".to_vec())
            .unwrap();
    }
    std::thread::sleep(Duration::from_secs(3));
    let _ = client.disconnect();
    let _ = driver.join();
    writeln!(stdin, r#"{{"color":"black","resign":true}}"#).unwrap();
    drop(stdin);
    let rest: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect();
    let _ = table.0.wait();
    let said: Vec<&str> = rest
        .iter()
        .filter(|v| v["broker"] == "malformed")
        .filter_map(|v| v["message"].as_str())
        .collect();
    assert!(
        (2..=15).contains(&said.len()),
        "{} lines: {:?}",
        said.len(),
        &said[..said.len().min(3)]
    );
    assert!(
        said[0].starts_with("board 7 sent a message that is not a link envelope ("),
        "{}",
        said[0]
    );
    assert!(
        said[1].starts_with("board 7 sent 2 messages so far"),
        "{}",
        said[1]
    );
    assert!(
        rest.iter().any(|v| v.get("final_fen").is_some()),
        "the table played on"
    );
}
