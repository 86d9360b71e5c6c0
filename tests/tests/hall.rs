//! The hall end to end: whole games on simulated boards (the real board logic and the real
//! link, in simulated time), journaled to a real SQLite file, resumed after a stop, and
//! exported as PGN that an independent reader replays to the game's final position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use kriegspiel_hall::{fen, pgn, start, HallCommand, HallEvent, Journal, TimeMode};
use kriegspiel_table::{render, Output, Table};
use kriegspiel_tests::games::{self, BuiltGame, Timing};
use kriegspiel_tests::pgn_check;
use serde_json::Value;
use tokio::sync::broadcast::error::TryRecvError;

/// What one run of a hall published for its single table.
#[derive(Debug, Default)]
struct Seen {
    /// Rendered outputs, in order.
    outputs: Vec<Value>,
    /// The answer lines (started, verdicts, replies): what `kriegspiel table` prints.
    answers: Vec<Value>,
    resumed_events: usize,
    ended: Option<(Option<String>, String)>,
    /// The boards' snapshots that reached the table (periodic ones most of them).
    snapshots: usize,
}

/// Runs the game's table until it ends.
fn run(game: &BuiltGame, journal: &Path) -> Seen {
    let spec = game.table_spec("demo", &Timing::default());
    let running = start(
        Journal::open(journal).unwrap(),
        vec![spec],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    let mut events = running.events;
    let mut seen = Seen::default();
    let mut wording = None;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        assert!(std::time::Instant::now() < deadline, "the game did not end");
        let e = match events.try_recv() {
            Ok(e) => e,
            Err(TryRecvError::Empty) => {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            Err(e) => panic!("hall events: {e}"),
        };
        match e {
            HallEvent::Opened {
                resumed_events,
                wording: w,
                lang,
                ..
            } => {
                seen.resumed_events = resumed_events;
                wording = Some((w, lang));
            }
            HallEvent::Output { output, .. } => {
                let (w, lang) = wording.unwrap();
                let v = render::json(&w, lang, &output);
                if matches!(
                    output,
                    Output::Started { .. } | Output::Verdict { .. } | Output::Reply { .. }
                ) {
                    seen.answers.push(v.clone());
                }
                seen.outputs.push(v);
            }
            HallEvent::Ended {
                result, position, ..
            } => {
                seen.ended = Some((result.map(|r| r.pgn().to_owned()), fen(&position)));
                break;
            }
            HallEvent::Failed { error, .. } => panic!("table failed: {error}"),
            HallEvent::OpenFailed { error, .. } => panic!("open failed: {error}"),
            HallEvent::Link {
                event: kriegspiel_boardlink::LinkEvent::Snapshot { .. },
                ..
            } => seen.snapshots += 1,
            HallEvent::Link { .. }
            | HallEvent::View(_)
            | HallEvent::Seat(_)
            | HallEvent::Broker(_) => {}
        }
    }
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    seen
}

fn export(journal: &Path) -> (String, Vec<Value>) {
    let j = Journal::open(journal).unwrap();
    let games = j.games().unwrap();
    let last = games.last().unwrap();
    let read = j.events(last.id);
    assert!(read.damage.is_none(), "{:?}", read.damage);
    let pgn = pgn::pgn(last, &read.events, None).unwrap();
    let log = pgn::event_log(last, &read.events).unwrap();
    let log = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (pgn, log)
}

#[test]
fn every_rule_set_plays_a_whole_game_through_the_hall_and_exports_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, _) in games::BUILTIN {
        let game = games::builtin(name, Timing::default()).unwrap();
        let journal = dir.path().join(format!("{name}.sqlite"));
        let seen = run(&game, &journal);
        let (result, fen) = seen.ended.clone().expect("ended");
        assert_eq!(fen, game.final_fen, "{name}");
        // The hall's answers are exactly the ones the definition computed with the referee.
        assert_eq!(seen.answers, game.expected, "{name}");

        let (pgn_text, log) = export(&journal);
        let read =
            pgn_check::read_all(&pgn_text).unwrap_or_else(|e| panic!("{name}: {e}\n{pgn_text}"));
        assert_eq!(read.len(), 1, "{name}");
        let g = &read[0];
        assert_eq!(g.final_fen, game.final_fen, "{name}: {pgn_text}");
        assert_eq!(g.tag("KriegspielRules"), Some(name));
        assert_eq!(g.tag("Result"), Some(result.as_deref().unwrap_or("*")));
        assert_eq!(g.outcome.as_deref(), Some(result.as_deref().unwrap_or("*")));
        assert!(
            g.tag("Variant").is_none(),
            "common readers refuse unknown variants"
        );
        assert_eq!(g.tag("Termination"), Some("normal"));
        // Every refused try is a comment.
        let refused = game
            .expected
            .iter()
            .filter(|v| v.get("try").is_some())
            .filter(|v| matches!(v["answer"].as_str(), Some("illegal" | "impossible")))
            .count();
        let tries = g
            .comments
            .iter()
            .filter(|c| c.starts_with("white tries ") || c.starts_with("black tries "))
            .count();
        assert_eq!(tries, refused, "{name}: {pgn_text}");

        // Replaying the journal gives the same outputs, byte for byte.
        let replayed: Vec<Value> = log
            .iter()
            .flat_map(|l| l["outputs"].as_array().unwrap().clone())
            .collect();
        assert_eq!(replayed, seen.outputs, "{name}");
    }
}

/// How many of the game's first events bring the table to its `n`th verdict: a journal cut
/// there is what a crash right after that verdict leaves (the next hand moves later).
fn events_through_verdict(journal: &Path, n: usize) -> usize {
    let j = Journal::open_read_only(journal).unwrap();
    let g = j.games().unwrap().pop().unwrap();
    let (mut table, _) = Table::new(g.setup.config().unwrap(), 0).unwrap();
    let mut verdicts = 0;
    for (i, e) in j.events(g.id).events.iter().enumerate() {
        let out = table.apply(e.event.clone());
        verdicts += out
            .iter()
            .filter(|o| matches!(o, Output::Verdict { .. }))
            .count();
        if verdicts >= n {
            return i + 1;
        }
    }
    panic!("the game has fewer than {n} verdicts");
}

/// A copy of `from`'s game holding only its first `keep` events, as a crash leaves it.
fn cut_journal(from: &Path, to: &Path, keep: usize) {
    let src = Journal::open_read_only(from).unwrap();
    let g = src.games().unwrap().pop().unwrap();
    let events = src.events(g.id).events;
    let mut dst = Journal::open(to).unwrap();
    let game = dst.new_game(&g.name, &g.setup, g.started_wall_ms).unwrap();
    for e in &events[..keep] {
        dst.append(game, e.seq, &e.event, e.stamp).unwrap();
    }
}

/// Stopped right after its 15th, then its 40th verdict (the journal cut there, as a crash
/// leaves it; stopping a running hall would cut at a moment that depends on the machine),
/// the game resumes where it stood: the same verdicts from there, none lost or doubled, the
/// same end and the same PGN.
#[test]
fn a_stopped_hall_resumes_the_game_where_it_stood() {
    let dir = tempfile::tempdir().unwrap();
    let game = games::builtin("cincinnati", Timing::default()).unwrap();
    let whole = dir.path().join("whole.sqlite");
    let uninterrupted = run(&game, &whole);
    let tries = |a: &[Value]| -> Vec<(String, String)> {
        a.iter()
            .filter(|v| v.get("try").is_some())
            .map(|v| (v["try"].to_string(), v["answer"].to_string()))
            .collect()
    };
    let all = tries(&uninterrupted.answers);
    for stop in [15, 40] {
        let journal = dir.path().join(format!("stopped-{stop}.sqlite"));
        let keep = events_through_verdict(&whole, stop);
        cut_journal(&whole, &journal, keep);
        let rest = run(&game, &journal);
        assert_eq!(rest.resumed_events, keep);
        assert_eq!(
            rest.ended, uninterrupted.ended,
            "stopped after verdict {stop}"
        );
        assert_eq!(
            tries(&rest.answers),
            all[stop..],
            "stopped after verdict {stop}"
        );
        // The verdict the journal ends with may never have been said (a crash between its
        // commit and its publication): it is said again, marked, before anything new.
        let first_said = rest
            .outputs
            .iter()
            .find(|v| v.get("text").is_some())
            .unwrap();
        assert_eq!(first_said["repeat"], true, "{first_said}");
        assert_eq!(
            (
                first_said["try"].to_string(),
                first_said["answer"].to_string()
            ),
            all[stop - 1],
            "stopped after verdict {stop}"
        );
        let (pgn_whole, _) = export(&whole);
        let (pgn_resumed, _) = export(&journal);
        let moves = |p: &str| pgn_check::read_all(p).unwrap()[0].sans.clone();
        assert_eq!(moves(&pgn_resumed), moves(&pgn_whole));
    }
}

#[test]
fn the_journal_replays_into_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let game = games::builtin("rand", Timing::default()).unwrap();
    let journal = dir.path().join("j.sqlite");
    let seen = run(&game, &journal);
    let j = Journal::open(&journal).unwrap();
    let g = j.games().unwrap().pop().unwrap();
    let events = j.events(g.id).events;
    // Every lift and place keeps the board's own time and frame number, both increasing.
    for color in [
        kriegspiel_table::shakmaty::Color::White,
        kriegspiel_table::shakmaty::Color::Black,
    ] {
        let stamps: Vec<(u32, u16)> = events
            .iter()
            .filter(|e| {
                matches!(
                    e.event.input,
                    kriegspiel_table::Input::Board {
                        color: c,
                        input: kriegspiel_table::BoardInput::Lift(_)
                            | kriegspiel_table::BoardInput::Place(_),
                    } if c == color
                )
            })
            .map(|e| (e.stamp.board_ms.unwrap(), e.stamp.board_seq.unwrap()))
            .collect();
        assert!(stamps.len() > 50);
        assert!(
            stamps
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1),
            "{stamps:?}"
        );
    }
    let replay = || {
        let (mut t, _) = Table::new(g.setup.config().unwrap(), 0).unwrap();
        let out: Vec<Output> = events
            .iter()
            .flat_map(|e| t.apply(e.event.clone()))
            .collect();
        (format!("{t:?}"), out)
    };
    assert_eq!(replay(), replay());
    let (_, out) = replay();
    assert!(out.iter().any(|o| matches!(o, Output::Verdict { .. })));
    // The boards' periodic snapshots that showed the table nothing new are not journaled;
    // every snapshot journaled was news to the table then.
    let (mut t, _) = Table::new(g.setup.config().unwrap(), 0).unwrap();
    let mut journaled = 0;
    for e in &events {
        if let kriegspiel_table::Input::Board {
            input: kriegspiel_table::BoardInput::Snapshot(_),
            ..
        } = e.event.input
        {
            journaled += 1;
            assert!(
                !t.changes_nothing(&e.event),
                "journaled, yet no news: {e:?}"
            );
        }
        t.apply(e.event.clone());
    }
    assert!(
        seen.snapshots > 100 && journaled * 10 < seen.snapshots,
        "{journaled} of {} snapshots journaled",
        seen.snapshots
    );
}

#[test]
fn a_table_opened_at_run_time_gets_the_next_number_and_plays() {
    let dir = tempfile::tempdir().unwrap();
    let timing = Timing::default();
    let first = games::builtin("wild16", timing).unwrap();
    let second = games::builtin("berkeley", timing).unwrap();
    let running = start(
        Journal::open(&dir.path().join("j.sqlite")).unwrap(),
        vec![first.table_spec("one", &timing)],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    let mut events = running.events;
    running
        .handle
        .send(HallCommand::Open(Box::new(
            second.table_spec("two", &timing),
        )))
        .unwrap();
    // A bad set-up is refused by name, and the hall goes on.
    let mut bad = second.table_spec("three", &timing);
    bad.setup.time_control = "soon".to_owned();
    running
        .handle
        .send(HallCommand::Open(Box::new(bad)))
        .unwrap();
    // A second table named as one that runs would run its game twice: refused by name.
    running
        .handle
        .send(HallCommand::Open(Box::new(
            second.table_spec("one", &timing),
        )))
        .unwrap();
    let mut ended = std::collections::BTreeMap::new();
    let mut refused = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while ended.len() < 2 {
        assert!(std::time::Instant::now() < deadline);
        match events.try_recv() {
            Ok(HallEvent::Opened { table, name, .. }) => {
                assert_eq!(
                    (table, name.as_str()),
                    if table == 1 { (1, "one") } else { (2, "two") }
                );
            }
            Ok(HallEvent::Ended {
                table, position, ..
            }) => {
                ended.insert(table, fen(&position));
            }
            Ok(HallEvent::OpenFailed { name, error }) => refused.push((name, error)),
            Ok(_) | Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_micros(200)),
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(ended[&1], first.final_fen);
    assert_eq!(ended[&2], second.final_fen);
    assert_eq!(refused.len(), 2, "{refused:?}");
    let (name, error) = &refused[0];
    assert_eq!(name, "three");
    assert!(error.contains("time_control"), "{error}");
    assert_eq!(
        refused[1],
        (
            "one".to_owned(),
            "two tables are named 'one': a table takes up the unfinished game of its name, so each name may be used once (rename one)".to_owned()
        )
    );
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    // The same when a hall starts: refused before any table is opened.
    let path = dir.path().join("twice.sqlite");
    let Err(error) = start(
        Journal::open(&path).unwrap(),
        vec![
            first.table_spec("one", &timing),
            second.table_spec("one", &timing),
        ],
        TimeMode::Simulated,
        Vec::new(),
    ) else {
        panic!("two tables of one name were opened");
    };
    let error = error.to_string();
    assert!(error.starts_with("two tables are named 'one'"), "{error}");
    assert!(Journal::open(&path).unwrap().games().unwrap().is_empty());
    // "one" and "one " print alike everywhere: one name.
    let Err(error) = start(
        Journal::open(&path).unwrap(),
        vec![
            first.table_spec("one", &timing),
            second.table_spec("one ", &timing),
        ],
        TimeMode::Simulated,
        Vec::new(),
    ) else {
        panic!("two tables named alike were opened");
    };
    assert!(
        error.to_string().starts_with("two tables are named 'one'"),
        "{error}"
    );
    // A game named by its number goes on under its own table's name: the same clash.
    let game = Journal::open(&path)
        .unwrap()
        .new_game("one", &first.table_setup(&timing), 0)
        .unwrap();
    let mut by_number = second.table_spec("alias", &timing);
    by_number.resume = kriegspiel_hall::Resume::Game(game);
    let Err(error) = start(
        Journal::open(&path).unwrap(),
        vec![first.table_spec("one", &timing), by_number],
        TimeMode::Simulated,
        Vec::new(),
    ) else {
        panic!("a game named by its number beside its own table was opened");
    };
    assert!(
        error.to_string().starts_with("two tables are named 'one'"),
        "{error}"
    );
    assert_eq!(Journal::open(&path).unwrap().games().unwrap().len(), 1);
}

#[test]
fn clocks_and_arbiter_actions_reach_the_pgn() {
    use kriegspiel_table::{ArbiterAction, Input};
    let dir = tempfile::tempdir().unwrap();
    let timing = Timing::default();
    let game = games::builtin("berkeley", timing).unwrap();
    let mut spec = game.table_spec("clocked", &timing);
    spec.setup.time_control = "10+5".to_owned();
    // Paused before the first move (the clock stops), then the last words said again.
    spec.scripted.splice(
        0..0,
        [
            (100, Input::Arbiter(ArbiterAction::Pause)),
            (900, Input::Arbiter(ArbiterAction::Resume)),
            (1000, Input::Arbiter(ArbiterAction::Repeat)),
        ],
    );
    let journal = dir.path().join("j.sqlite");
    let running = start(
        Journal::open(&journal).unwrap(),
        vec![spec],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    let mut events = running.events;
    let mut clocks = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let fen = loop {
        assert!(std::time::Instant::now() < deadline);
        match events.try_recv() {
            Ok(HallEvent::Output {
                output: Output::Clock { remaining, running },
                ..
            }) => clocks.push((remaining, running)),
            Ok(HallEvent::Ended { position, .. }) => break fen(&position),
            Ok(_) | Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_micros(200)),
            Err(e) => panic!("{e}"),
        }
    };
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    assert_eq!(fen, game.final_fen);
    // Started running, stopped by the pause (800 ms never counted), running again.
    assert_eq!(clocks[0].0.white, 600_000);
    assert_eq!(clocks[1], (clocks[1].0, None), "paused");
    assert_eq!(clocks[1].0.white, 599_900);
    assert_eq!(clocks[2].0.white, 599_900, "resumed at the same time");
    assert!(clocks.last().unwrap().1.is_none(), "stopped at the end");

    let (pgn_text, _) = export(&journal);
    let g = &pgn_check::read_all(&pgn_text).unwrap()[0];
    assert_eq!(g.final_fen, game.final_fen);
    assert_eq!(g.tag("TimeControl"), Some("600+5"));
    let clk: Vec<&String> = g
        .comments
        .iter()
        .filter(|c| c.starts_with("[%clk "))
        .collect();
    assert_eq!(
        clk.len(),
        g.sans.len(),
        "a clock comment after every move: {pgn_text}"
    );
    assert!(
        clk.iter().all(|c| c.len() == "[%clk 0:09:59]".len()),
        "{clk:?}"
    );
    for said in [
        "Arbiter: pause",
        "The arbiter has paused the game.",
        "Arbiter: resume",
        "The game goes on.",
        "Arbiter: repeat",
    ] {
        assert!(g.comments.iter().any(|c| c == said), "{said}: {pgn_text}");
    }
}

/// The journal heartbeat in real time: it follows a table while its game is played, stops
/// when the game ends, and is written once more on a deliberate stop; simulated time has
/// none.
#[test]
fn the_journal_heartbeat_follows_playing_tables_only() {
    use kriegspiel_hall::{BoardSource, TableSetup, TableSpec};
    use kriegspiel_table::shakmaty::Color;
    use kriegspiel_table::Input;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let spec = |name: &str| TableSpec {
        name: name.to_owned(),
        setup: TableSetup {
            rules: "berkeley".to_owned(),
            time_control: "5+0".to_owned(),
            ..TableSetup::default()
        },
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::Last,
    };
    let running = start(
        Journal::open(&path).unwrap(),
        vec![spec("playing"), spec("resigned")],
        TimeMode::Real,
        Vec::new(),
    )
    .unwrap();
    let resign = Input::Resign {
        color: Color::White,
    };
    running.handle.input(2, resign).unwrap();
    let beat = |table: usize| {
        let j = Journal::open_read_only(&path).unwrap();
        let game = j.games().unwrap()[table - 1].id;
        j.last_beat(game)
    };
    // Waits (at most 20 s) for the playing table's heartbeat to reach `at` ms.
    let beat_past = |at| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            match beat(1) {
                Some(b) if b.at >= at => return b,
                _ => assert!(
                    std::time::Instant::now() < deadline,
                    "no heartbeat at {at} ms"
                ),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    beat_past(1000);
    let ended = beat(2);
    assert!(
        ended.is_none_or(|b| b.at < 1000),
        "the resigned table beat on: {ended:?}"
    );
    beat_past(2000);
    assert_eq!(beat(2), ended, "no heartbeat after the game ended");
    // Stopped between two heartbeats: the last one is written at the stop.
    std::thread::sleep(Duration::from_millis(400));
    let before = beat(1).unwrap();
    let stop_wall = wall_ms_now();
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    let last = beat(1).unwrap();
    assert!(
        last.at > before.at && last.wall_ms >= stop_wall,
        "{before:?} then {last:?} (stopped at {stop_wall})"
    );

    // Simulated time: a whole game, and no heartbeat.
    let game = games::builtin("rand", Timing::default()).unwrap();
    let simulated = dir.path().join("sim.sqlite");
    run(&game, &simulated);
    let j = Journal::open_read_only(&simulated).unwrap();
    let g = j.games().unwrap()[0].id;
    assert_eq!(j.last_beat(g), None);
}

/// A round file whose tables were put in another order would resume each game under the
/// other's number, which seat files and the arbiter's commands name: refused, saying so. In
/// their order again, both resume.
#[test]
fn tables_put_in_another_order_are_refused_not_renumbered() {
    use kriegspiel_hall::{BoardSource, Hall, TableSetup, TableSpec};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let spec = |name: &str, rules: &str| TableSpec {
        name: name.to_owned(),
        setup: TableSetup {
            rules: rules.to_owned(),
            ..TableSetup::default()
        },
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::Last,
    };
    let round = || vec![spec("first", "cincinnati"), spec("second", "wild16")];
    let running = start(
        Journal::open(&path).unwrap(),
        round(),
        TimeMode::Real,
        Vec::new(),
    )
    .unwrap();
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    let mut swapped = round();
    swapped.reverse();
    let Err(e) = Hall::open(Journal::open(&path).unwrap(), swapped, TimeMode::Real) else {
        panic!("reordered tables were taken up");
    };
    assert!(
        e.to_string().starts_with(
            "table 'second': cannot resume its game: its game 2 was begun as table 2, and the round file now makes it table 1"
        ),
        "{e}"
    );
    assert!(Hall::open(Journal::open(&path).unwrap(), round(), TimeMode::Real).is_ok());
    // A table renamed ("Alfa" for "Alpha") would begin a new game beside its unfinished one:
    // refused, naming both. Named again as it was, it resumes; a new game when asked.
    let renamed = || vec![spec("first", "cincinnati"), spec("sceond", "wild16")];
    let Err(e) = Hall::open(Journal::open(&path).unwrap(), renamed(), TimeMode::Real) else {
        panic!("a renamed table began a new game beside its unfinished one");
    };
    assert!(
        e.to_string().contains(
            "table 2's unfinished game 2 is the table 'second', and the round file now names table 2 'sceond'"
        ),
        "{e}"
    );
    assert_eq!(Journal::open(&path).unwrap().games().unwrap().len(), 2);
    let mut fresh = renamed();
    for s in &mut fresh {
        s.resume = kriegspiel_hall::Resume::New;
    }
    assert!(Hall::open(Journal::open(&path).unwrap(), fresh, TimeMode::Real).is_ok());
    // The arbiter chose: later starts under the new name take up its own game.
    assert!(Hall::open(Journal::open(&path).unwrap(), renamed(), TimeMode::Real).is_ok());
}

/// The wall clock as the journal stamps it (Unix milliseconds).
fn wall_ms_now() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(now.as_millis()).unwrap()
}

/// A table opened without a board for a player (the window's "New game…" with no port)
/// keeps his board: after a correction he is not out of sync for ever.
#[test]
fn a_player_with_no_board_source_is_never_out_of_sync() {
    use kriegspiel_hall::{BoardSource, TableSetup, TableSpec, TimeMode};
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let spec = TableSpec {
        name: "no boards".to_owned(),
        setup: TableSetup::default(),
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::New,
    };
    let running = kriegspiel_hall::start(journal, vec![spec], TimeMode::Real, Vec::new()).unwrap();
    let put = kriegspiel_table::ArbiterAction::Remove {
        square: kriegspiel_table::shakmaty::Square::D2,
    };
    running
        .handle
        .input(1, kriegspiel_table::Input::Arbiter(put))
        .unwrap();
    let mut events = running.events;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut corrected = false;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no view after the correction"
        );
        match events.try_recv() {
            Ok(HallEvent::Output { output, .. }) => {
                corrected |= matches!(
                    output,
                    Output::Public {
                        message: kriegspiel_table::PublicMessage::PositionCorrected
                    }
                );
            }
            Ok(HallEvent::View(v)) if corrected => {
                assert!(v.boards.white.in_sync && v.boards.black.in_sync, "{v:?}");
                break;
            }
            Ok(_) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    running.handle.send(HallCommand::Shutdown).unwrap();
}

/// An input the journal cannot keep, sent raw past `HallHandle::input`'s check, is refused
/// by its table with a note and never applied; the table plays on.
#[test]
fn a_table_refuses_an_input_it_cannot_journal_and_plays_on() {
    use kriegspiel_hall::{BoardSource, TableSetup, TableSpec, TimeMode};
    use kriegspiel_table::{ArbiterAction, ArbiterNote, Input};
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let spec = TableSpec {
        name: "raw".to_owned(),
        setup: TableSetup::default(),
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::New,
    };
    let running = kriegspiel_hall::start(journal, vec![spec], TimeMode::Real, Vec::new()).unwrap();
    let fen = format!("{}/8/8/8/8/8/8/8 w - - 0 1", "1".repeat(5000));
    let long = Input::Arbiter(ArbiterAction::SetPosition { fen });
    assert!(kriegspiel_hall::check_input(&long).is_err());
    running
        .handle
        .send(HallCommand::Input {
            table: 1,
            input: long,
        })
        .unwrap();
    running
        .handle
        .input(
            1,
            Input::Resign {
                color: kriegspiel_table::shakmaty::Color::White,
            },
        )
        .unwrap();
    let mut events = running.events;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut refused = false;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "the table did not play on"
        );
        match events.try_recv() {
            Ok(HallEvent::Output {
                output:
                    Output::Note {
                        note: ArbiterNote::Refused { reason, .. },
                    },
                ..
            }) => {
                assert!(reason.contains("at most 4096"), "{reason}");
                refused = true;
            }
            Ok(HallEvent::Failed { error, .. }) => panic!("the table stopped: {error}"),
            Ok(HallEvent::Ended { result, .. }) => {
                assert!(refused, "no refusal before the end");
                assert_eq!(result.map(|r| r.pgn()), Some("0-1"));
                break;
            }
            Ok(_) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    running.handle.send(HallCommand::Shutdown).unwrap();
}

/// A script's board snapshot is journaled even when it tells the table nothing new (a
/// resume counts the script's inputs done by their rows); only a board's own are left out.
#[test]
fn a_scripted_snapshot_is_journaled_even_when_it_is_no_news() {
    use kriegspiel_hall::{BoardSource, TableSetup, TableSpec, TimeMode};
    use kriegspiel_table::shakmaty::{Chess, Color, Position};
    use kriegspiel_table::{BoardInput, Input};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let start_men = |c: Color| Chess::default().board().by_color(c);
    let board = |color, input| Input::Board { color, input };
    let mut scripted = Vec::new();
    for (i, c) in Color::ALL.into_iter().enumerate() {
        let at = 10 * i as u64;
        scripted.push((at, board(c, BoardInput::Connected { board_id: None })));
        scripted.push((at + 1, board(c, BoardInput::Snapshot(start_men(c)))));
    }
    // The same men again: no news to the table.
    scripted.push((
        100,
        board(Color::White, BoardInput::Snapshot(start_men(Color::White))),
    ));
    scripted.push((
        200,
        Input::Resign {
            color: Color::White,
        },
    ));
    let spec = TableSpec {
        name: "scripted".to_owned(),
        setup: TableSetup::default(),
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: scripted.clone(),
        resume: kriegspiel_hall::Resume::New,
    };
    let running = start(
        Journal::open(&path).unwrap(),
        vec![spec],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    let mut events = running.events;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        assert!(std::time::Instant::now() < deadline, "the game did not end");
        match events.try_recv() {
            Ok(HallEvent::Ended { .. }) => break,
            Ok(HallEvent::Failed { error, .. }) => panic!("the table stopped: {error}"),
            Ok(_) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    let j = Journal::open_read_only(&path).unwrap();
    let g = j.games().unwrap().pop().unwrap();
    let journaled: Vec<Input> = j
        .events(g.id)
        .events
        .into_iter()
        .map(|e| e.event.input)
        .filter(|i| !matches!(i, Input::Tick))
        .collect();
    let wanted: Vec<Input> = scripted.into_iter().map(|(_, i)| i).collect();
    assert_eq!(journaled, wanted);
}

/// The verdicts a replay of `journal`'s last game gives: what a console killed now would
/// know it had judged.
fn verdicts_on_disk(journal: &Path) -> usize {
    let j = Journal::open_read_only(journal).unwrap();
    let Some(g) = j.games().unwrap().pop() else {
        return 0;
    };
    let (mut table, _) = Table::new(g.setup.config().unwrap(), 0).unwrap();
    j.events(g.id)
        .events
        .into_iter()
        .flat_map(|e| table.apply(e.event))
        .filter(|o| matches!(o, Output::Verdict { .. }))
        .count()
}

/// A verdict is said only once what caused it is on disk, also when a timer (a board's
/// settle) caused it: a console killed just after saying it replays it from the journal
/// and says it again marked as a repeat, instead of judging it afresh and saying it twice.
/// Another connection holds the journal's write lock in short windows; whatever the table
/// said by the end of a window must follow from what was committed before it.
#[test]
fn no_verdict_is_said_before_its_cause_is_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let game = games::builtin("rand", Timing::default()).unwrap();
    let journal = dir.path().join("j.sqlite");
    let opened = Journal::open(&journal).unwrap();
    // The windows begin before the table starts: in simulated time a table left alone for a
    // moment plays the whole game (a CI host once saw it end within 3 windows).
    let (give, take) = std::sync::mpsc::channel();
    let locking = std::thread::spawn({
        let journal = journal.clone();
        move || {
            let locker = rusqlite::Connection::open(&journal).unwrap();
            let mut events: Option<tokio::sync::broadcast::Receiver<HallEvent>> = None;
            let (mut said, mut windows, mut mid_game, mut ended) = (0, 0, 0, false);
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            while !ended {
                assert!(std::time::Instant::now() < deadline, "the game did not end");
                locker.execute_batch("BEGIN IMMEDIATE").unwrap();
                // Room for the table to run into the lock (or, wrongly, past it).
                std::thread::sleep(Duration::from_millis(5));
                if events.is_none() {
                    events = take.try_recv().ok();
                }
                while let Some(e) = events.as_mut() {
                    match e.try_recv() {
                        Ok(HallEvent::Output {
                            output: Output::Verdict { .. },
                            ..
                        }) => said += 1,
                        Ok(HallEvent::Ended { .. }) => ended = true,
                        Ok(HallEvent::Failed { error, .. }) => panic!("table failed: {error}"),
                        Ok(_) => {}
                        Err(TryRecvError::Empty) => break,
                        Err(e) => panic!("hall events: {e}"),
                    }
                }
                let on_disk = verdicts_on_disk(&journal);
                assert!(
                    said <= on_disk,
                    "{said} verdicts said, {on_disk} derivable from the journal (window {windows})"
                );
                locker.execute_batch("ROLLBACK").unwrap();
                windows += 1;
                if said > 0 && !ended {
                    mid_game += 1;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            (said, windows, mid_game)
        }
    });
    let running = start(
        opened,
        vec![game.table_spec("demo", &Timing::default())],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    // A locking thread that failed already is reported by its join below.
    let _ = give.send(running.events);
    let (said, windows, mid_game) = locking
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
    println!("{mid_game} of {windows} windows during the game, {said} verdicts said");
    assert!(said > 50, "a whole game's verdicts: {said}");
    // How many windows fall within the game depends on the machine's load; a few with
    // verdicts already said are what the check needs.
    assert!(
        mid_game >= 3,
        "the lock was taken during the game: {mid_game} of {windows} windows"
    );
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
}
