//! The journal on a real SQLite file: what is written reads back; damage of every kind is
//! found, named, and stops the reading only where it is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::sql;

use std::path::Path;

use kriegspiel_hall::{pgn, Journal, JournalError, Stamp, TableSetup};
use kriegspiel_table::shakmaty::{Color, Square};
use kriegspiel_table::{ArbiterAction, BoardInput, Event, Input};

fn events() -> Vec<Event> {
    vec![
        Event::new(
            0,
            Input::Board {
                color: Color::White,
                input: BoardInput::Connected { board_id: Some(1) },
            },
        ),
        Event::new(
            1000,
            Input::Board {
                color: Color::White,
                input: BoardInput::Lift(Square::E2),
            },
        ),
        Event::new(
            1100,
            Input::Board {
                color: Color::White,
                input: BoardInput::Place(Square::E4),
            },
        ),
        Event::new(1400, Input::Tick),
        Event::new(2000, Input::Arbiter(ArbiterAction::Pause)),
        Event::new(
            2500,
            Input::Arbiter(ArbiterAction::Adjudicate {
                result: kriegspiel_referee::GameResult::Draw,
                reason: "both agreed".to_owned(),
            }),
        ),
    ]
}

fn written(path: &Path) -> i64 {
    let mut j = Journal::open(path).unwrap();
    let setup = TableSetup {
        rules: "berkeley".to_owned(),
        time_control: "5+3".to_owned(),
        ..TableSetup::default()
    };
    let game = j.new_game("table 1", &setup, 1_796_083_200_000).unwrap();
    for (i, e) in events().iter().enumerate() {
        let board_ms = matches!(e.input, Input::Board { .. }).then_some(7 + i as u32);
        let stamp = Stamp {
            wall_ms: 1_796_083_200_000 + e.at as i64,
            board_ms,
            board_seq: None,
            net: None,
        };
        j.append(game, i as i64 + 1, e, stamp).unwrap();
    }
    game
}

#[test]
fn what_is_written_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path);
    // Reopened, as after a restart; and read-only beside a writer.
    for j in [
        Journal::open(&path).unwrap(),
        Journal::open_read_only(&path).unwrap(),
    ] {
        let games = j.games().unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].name, "table 1");
        assert_eq!(games[0].setup.time_control, "5+3");
        let read = j.events(game);
        assert!(read.damage.is_none());
        let got: Vec<Event> = read.events.iter().map(|e| e.event.clone()).collect();
        assert_eq!(got, events());
        assert_eq!(read.events[1].stamp.board_ms, Some(8));
        assert_eq!(read.events[3].stamp.board_ms, None);
        assert_eq!(j.event_count(game).unwrap(), 6);
    }
}

#[test]
fn a_changed_row_is_named_and_the_events_before_it_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path);
    sql(
        &path,
        "UPDATE events SET line = '1100 white place e5' WHERE seq = 3",
    );
    let j = Journal::open_read_only(&path).unwrap();
    let read = j.events(game);
    assert_eq!(read.events.len(), 2);
    let damage = read.damage.unwrap().to_string();
    assert_eq!(
        damage,
        format!("journal damaged at game {game}, event 3: the event does not match its checksum")
    );
    // The export still holds what came before, and says where the journal ends.
    let g = &j.games().unwrap()[0];
    let text = pgn::pgn(
        g,
        &read.events,
        Some(&JournalError::Damaged {
            game,
            seq: 3,
            what: "x".into(),
        }),
    )
    .unwrap();
    assert!(text.contains("[Result \"*\"]"), "{text}");
    assert!(text.contains("The journal ends here"), "{text}");
}

#[test]
fn a_missing_row_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path);
    sql(&path, "DELETE FROM events WHERE seq = 4");
    let read = Journal::open(&path).unwrap().events(game);
    assert_eq!(read.events.len(), 3);
    assert!(read
        .damage
        .unwrap()
        .to_string()
        .ends_with("event 4: event 4 is missing (found 5)"));
}

#[test]
fn a_damaged_game_row_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    written(&path);
    sql(&path, "UPDATE games SET name = 'table 2'");
    let e = Journal::open(&path)
        .unwrap()
        .games()
        .unwrap_err()
        .to_string();
    assert!(e.contains("set-up does not match its checksum"), "{e}");
}

#[test]
fn a_file_cut_short_is_read_up_to_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = Journal::open(&path).unwrap();
    let game = j.new_game("t", &TableSetup::default(), 0).unwrap();
    // Enough events for many pages.
    let all: Vec<Event> = (0..3000u64)
        .map(|i| {
            Event::new(
                i,
                Input::Board {
                    color: Color::White,
                    input: BoardInput::Lift(Square::E2),
                },
            )
        })
        .collect();
    for (i, e) in all.iter().enumerate() {
        j.append(game, i as i64 + 1, e, Stamp::default()).unwrap();
    }
    drop(j);
    sql(&path, "PRAGMA wal_checkpoint(TRUNCATE);");
    let bytes = std::fs::read(&path).unwrap();
    // The hall refuses it, naming the damage (the programs that play add the way out:
    // `kriegspiel export`; tests/tests/hall_cli.rs).
    let cut = dir.path().join("cut.sqlite");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = Journal::open(&cut).unwrap_err().to_string();
    assert!(
        e.contains("is damaged (database disk image is malformed)"),
        "{e}"
    );
    // Reading gets every event before the cut, in order, and says where it stopped.
    let mut previous = 0;
    // (Cut shorter, the file may end before the first page of events: then none reads.)
    for keep in [bytes.len() * 3 / 4, bytes.len() / 2, bytes.len() / 3] {
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let j = Journal::open_read_only(&cut).unwrap();
        assert_eq!(j.games().unwrap().len(), 1);
        let read = j.events(game);
        let n = read.events.len();
        assert!(n > 0 && n < all.len(), "{keep}: {n}");
        assert!(
            previous == 0 || n < previous,
            "a shorter file reads fewer events"
        );
        previous = n;
        let got: Vec<Event> = read.events.into_iter().map(|e| e.event).collect();
        assert_eq!(got, all[..n]);
        let damage = read.damage.unwrap().to_string();
        assert!(
            damage.contains(&format!("event {}: SQLite cannot read further", n + 1)),
            "{damage}"
        );
    }
}

#[test]
fn other_files_and_other_schemas_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "this is not a database, just some words of a text file\n".repeat(100),
    )
    .unwrap();
    let e = Journal::open(&text).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{} is not a Kriegspiel journal", text.display())),
        "{e}"
    );

    let other = dir.path().join("other.sqlite");
    sql(&other, "CREATE TABLE t (x INTEGER);");
    let e = Journal::open(&other).unwrap_err().to_string();
    assert!(e.contains("is not a Kriegspiel journal"), "{e}");

    let newer = dir.path().join("newer.sqlite");
    written(&newer);
    sql(&newer, "UPDATE meta SET value = '99' WHERE key = 'schema'");
    let e = Journal::open(&newer).unwrap_err().to_string();
    assert!(
        e.contains("has journal schema 99; this program reads schema 1"),
        "{e}"
    );

    let e = Journal::open_read_only(&dir.path().join("absent.sqlite"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot open the journal"), "{e}");
}

#[test]
fn an_overlong_event_is_refused_before_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = Journal::open(&path).unwrap();
    let game = j.new_game("t", &TableSetup::default(), 0).unwrap();
    let fen = "x".repeat(10_000);
    let e = j
        .append(
            game,
            1,
            &Event::new(0, Input::Arbiter(ArbiterAction::SetPosition { fen })),
            Stamp::default(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("a line of"), "{e}");
    assert_eq!(j.event_count(game).unwrap(), 0);
}

#[test]
fn the_last_heartbeat_of_each_game_is_kept() {
    use kriegspiel_hall::Beat;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path);
    let mut j = Journal::open(&path).unwrap();
    let other = j.new_game("table 2", &TableSetup::default(), 0).unwrap();
    assert_eq!(j.last_beat(game), None);
    let beat = |game, at| Beat {
        game,
        at,
        wall_ms: 1_796_083_200_000 + at as i64,
    };
    j.beat(&[beat(game, 3000), beat(other, 400)]).unwrap();
    j.beat(&[beat(game, 4000)]).unwrap();
    drop(j);
    let j = Journal::open_read_only(&path).unwrap();
    assert_eq!(j.last_beat(game), Some(beat(game, 4000)));
    assert_eq!(j.last_beat(other), Some(beat(other, 400)));
    // The events are untouched by it.
    assert_eq!(j.event_count(game).unwrap(), 6);
}

#[test]
fn a_journal_from_before_heartbeats_reads_without_them_and_gains_them_when_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let game = written(&path);
    sql(&path, "DROP TABLE beats;");
    let j = Journal::open_read_only(&path).unwrap();
    assert_eq!(j.last_beat(game), None);
    assert_eq!(j.events(game).events.len(), 6);
    drop(j);
    let mut j = Journal::open(&path).unwrap();
    j.beat(&[kriegspiel_hall::Beat {
        game,
        at: 5000,
        wall_ms: 0,
    }])
    .unwrap();
    assert_eq!(j.last_beat(game).map(|b| b.at), Some(5000));
}
