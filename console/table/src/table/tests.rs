//! The table's own unit tests.

use kriegspiel_referee::{Error as RefereeError, GameConfig};
use shakmaty::{Color, Role, Square};

use super::Table;
use crate::{Error, Event, Input, Output, TableConfig};

fn table() -> Table {
    Table::new(TableConfig::default(), 0).unwrap().0
}

fn verdicts(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Verdict { tried, .. } => Some(tried.to_uci()),
            _ => None,
        })
        .collect()
}

/// The restart note speaks of clocks only when the game has them, and says whether the
/// time down counted on them (a networked table's boards kept what was played meanwhile).
#[test]
fn a_restart_is_noted_with_the_time_the_console_was_down() {
    for (time_control, counted, says) in [
        (
            "25+10",
            false,
            "The console restarted after 66 s down; that time did not count on the clocks.",
        ),
        (
            "25+10",
            true,
            "The console restarted after 66 s down; the boards kept what was played meanwhile, and that time counted on the clocks as it was played.",
        ),
        ("none", false, "The console restarted after 66 s down."),
        ("none", true, "The console restarted after 66 s down."),
    ] {
        let config = TableConfig {
            time_control: time_control.parse().unwrap(),
            ..TableConfig::default()
        };
        let mut t = Table::new(config, 0).unwrap().0;
        let out = t.apply(Event::new(
            10,
            Input::Restarted {
                down_ms: 66_400,
                counted,
            },
        ));
        let notes: Vec<String> = out
            .iter()
            .filter_map(|o| match o {
                Output::Note { note } => Some(note.text(kriegspiel_referee::Lang::En)),
                _ => None,
            })
            .collect();
        assert_eq!(notes, [says]);
    }
}

#[test]
fn timings_out_of_range_are_refused() {
    for (settle_ms, guide_ms, want) in [
        (99, 3000, Error::SettleOutOfRange(99)),
        (1501, 3000, Error::SettleOutOfRange(1501)),
        (300, 0, Error::GuideOutOfRange(0)),
    ] {
        let config = TableConfig {
            settle_ms,
            guide_ms,
            ..TableConfig::default()
        };
        assert_eq!(Table::new(config, 0).unwrap_err(), want);
    }
    for settle_ms in [100, 1500] {
        let config = TableConfig {
            settle_ms,
            ..TableConfig::default()
        };
        assert!(Table::new(config, 0).is_ok());
    }
}

#[test]
fn a_bad_game_is_the_referees_error() {
    let config = TableConfig::new(GameConfig {
        fen: Some("not a fen".to_owned()),
        ..GameConfig::default()
    });
    assert!(matches!(
        Table::new(config, 0),
        Err(Error::Referee(RefereeError::BadFen(_)))
    ));
}

#[test]
fn the_verdict_waits_for_the_settle_window_and_no_longer() {
    let mut t = table();
    assert!(t
        .apply(Event::lift(100, Color::White, Square::E2))
        .is_empty());
    assert_eq!(t.touched(Color::White), Some(Square::E2));
    assert!(t
        .apply(Event::place(200, Color::White, Square::E4))
        .is_empty());
    assert_eq!(t.next_deadline(), Some(500));
    assert!(t.apply(Event::tick(499)).is_empty());
    assert_eq!(verdicts(&t.apply(Event::tick(500))), ["e2e4"]);
    assert_eq!(t.referee().turn(), Color::Black);
    assert!(t.in_sync(Color::White) && t.in_sync(Color::Black));
    assert_eq!(t.touched(Color::White), None);
}

#[test]
fn a_late_event_first_fires_the_timer_that_was_due() {
    let mut t = table();
    t.apply(Event::lift(100, Color::White, Square::E2));
    t.apply(Event::place(200, Color::White, Square::E4));
    // No tick was delivered at 500: Black's lift at 900 still comes after White's verdict.
    let out = t.apply(Event::lift(900, Color::Black, Square::E7));
    assert_eq!(verdicts(&out), ["e2e4"]);
    assert_eq!(t.touched(Color::Black), Some(Square::E7));
}

#[test]
fn events_from_the_past_are_taken_as_now() {
    let mut t = table();
    t.apply(Event::tick(1000));
    t.apply(Event::lift(500, Color::White, Square::E2));
    t.apply(Event::place(400, Color::White, Square::E4));
    assert_eq!(t.now(), 1000);
    assert_eq!(t.next_deadline(), Some(1300));
}

#[test]
fn the_promotion_choice_lasts_until_a_promotion_is_played() {
    let config = TableConfig::new(GameConfig {
        fen: Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1".to_owned()),
        ..GameConfig::default()
    });
    let (mut t, _) = Table::new(config, 0).unwrap();
    t.apply(Event::new(
        10,
        Input::Promote {
            color: Color::White,
            role: Role::Bishop,
        },
    ));
    assert_eq!(t.promotion_choice(Color::White), Some(Role::Bishop));
    t.apply(Event::lift(100, Color::White, Square::E1));
    t.apply(Event::place(200, Color::White, Square::D1));
    assert_eq!(verdicts(&t.apply(Event::tick(500))), ["e1d1"]);
    assert_eq!(t.promotion_choice(Color::White), Some(Role::Bishop));
}

#[test]
fn the_same_events_rebuild_the_same_table() {
    let events = [
        Event::lift(100, Color::White, Square::E2),
        Event::place(200, Color::White, Square::E4),
        Event::tick(500),
        Event::lift(600, Color::Black, Square::D7),
        Event::place(700, Color::Black, Square::D5),
        Event::tick(1000),
        Event::lift(1100, Color::White, Square::E4),
        Event::place(1200, Color::White, Square::D5),
        Event::tick(1500),
        Event::lift(1600, Color::Black, Square::B8),
        Event::tick(9000),
    ];
    let run = || {
        let mut t = table();
        let out: Vec<Output> = events.iter().flat_map(|e| t.apply(e.clone())).collect();
        (format!("{t:?}"), out)
    };
    let (state, out) = run();
    assert_eq!(run(), (state, out.clone()));
    assert_eq!(verdicts(&out), ["e2e4", "d7d5", "e4d5"]);
}

/// A snapshot that shows what the table knows is news when it shows a mix-up of boards
/// not yet said, or puts one right: `changes_nothing` must not leave it out.
#[test]
fn a_snapshot_that_shows_or_clears_a_mixup_is_news() {
    use crate::{BoardInput, PublicMessage, TouchMove};
    use shakmaty::Bitboard;
    let config = TableConfig {
        touch_move: TouchMove::Off,
        ..TableConfig::new(GameConfig {
            fen: Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1".to_owned()),
            ..GameConfig::default()
        })
    };
    let mut t = Table::new(config, 0).unwrap().0;
    let board = |input| Input::Board {
        color: Color::White,
        input,
    };
    let snapshot = |sq: Square| board(BoardInput::Snapshot(Bitboard::from(sq)));
    for color in Color::ALL {
        t.apply(Event::new(
            0,
            Input::Board {
                color,
                input: BoardInput::Connected { board_id: None },
            },
        ));
        let men = t.official(color);
        t.apply(Event::new(
            0,
            Input::Board {
                color,
                input: BoardInput::Snapshot(men),
            },
        ));
    }
    assert!(t.changes_nothing(&Event::new(50, snapshot(Square::E1))));
    // White's board comes to show Black's men, a lift and a place at a time.
    t.apply(Event::new(100, board(BoardInput::Lift(Square::E1))));
    t.apply(Event::new(200, board(BoardInput::Place(Square::E8))));
    t.apply(Event::tick(2_000));
    let swapped = Event::new(2_100, snapshot(Square::E8));
    assert!(!t.changes_nothing(&swapped));
    let said = t.apply(swapped);
    assert!(
        said.iter().any(|o| matches!(
            o,
            Output::Public {
                message: PublicMessage::BoardsSwapped
            }
        )),
        "{said:?}"
    );
    // Said once: the same snapshot again is no news.
    assert!(t.changes_nothing(&Event::new(2_200, snapshot(Square::E8))));
    // Put right by a lift and a place: the snapshot of his own men clears the mix-up.
    t.apply(Event::new(2_300, board(BoardInput::Lift(Square::E8))));
    t.apply(Event::new(2_400, board(BoardInput::Place(Square::E1))));
    t.apply(Event::tick(4_000));
    let right = Event::new(4_100, snapshot(Square::E1));
    assert!(!t.changes_nothing(&right));
    t.apply(right);
    assert!(t.changes_nothing(&Event::new(4_200, snapshot(Square::E1))));
}

/// Clocks that wait for the boards start at the first board report after both boards show
/// the position, though that report shows nothing new (here after an arbiter's correction).
#[test]
fn a_snapshot_that_starts_the_waiting_clocks_is_news() {
    use crate::{ArbiterAction, BoardInput, ClockStart, PublicMessage};
    let config = TableConfig {
        time_control: "5+0".parse().unwrap(),
        clock_start: ClockStart::Boards,
        ..TableConfig::default()
    };
    let mut t = Table::new(config, 0).unwrap().0;
    let no_e2 = t.official(Color::White).without(Square::E2);
    for color in Color::ALL {
        t.apply(Event::new(
            0,
            Input::Board {
                color,
                input: BoardInput::Connected { board_id: None },
            },
        ));
        let men = if color == Color::White {
            no_e2
        } else {
            t.official(color)
        };
        t.apply(Event::new(
            0,
            Input::Board {
                color,
                input: BoardInput::Snapshot(men),
            },
        ));
    }
    assert!(t.clocks_waiting());
    t.apply(Event::new(
        100,
        Input::Arbiter(ArbiterAction::Remove { square: Square::E2 }),
    ));
    assert!(t.clocks_waiting());
    let again = Event::new(
        200,
        Input::Board {
            color: Color::White,
            input: BoardInput::Snapshot(no_e2),
        },
    );
    assert!(!t.changes_nothing(&again));
    let said = t.apply(again);
    assert!(
        said.iter().any(|o| matches!(
            o,
            Output::Public {
                message: PublicMessage::ClocksStarted(_)
            }
        )),
        "{said:?}"
    );
}
