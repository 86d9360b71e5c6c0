//! A timed game's clocks start when the arbiter starts them, or when both boards are
//! there and in sync: a table opened with nobody at it loses no one any time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_referee::{GameConfig, Try};
use kriegspiel_table::shakmaty::{Board, ByColor, Color};
use kriegspiel_table::{
    ArbiterAction, ArbiterNote, BoardInput, ClockStart, Event, Input, Output, PublicMessage, Table,
    TableConfig, Termination, TimeControl,
};

fn table(start: ClockStart, without_board: bool) -> Table {
    let mut config = TableConfig::new(GameConfig::default());
    config.time_control = "1+5".parse::<TimeControl>().unwrap();
    config.clock_start = start;
    config.without_board = ByColor::new_with(|_| without_board);
    let (t, out) = Table::new(config, 0).unwrap();
    if start != ClockStart::AtOnce {
        assert!(
            out.contains(&Output::Clock {
                remaining: ByColor::new_with(|_| 60_000),
                running: None
            }),
            "{out:?}"
        );
    }
    t
}

fn started(out: &[Output], color: Color) -> bool {
    out.contains(&Output::Public {
        message: PublicMessage::ClocksStarted(color),
    })
}

fn flag_fell(out: &[Output]) -> bool {
    out.iter().any(|o| {
        matches!(o, Output::Public { message: PublicMessage::GameEnded(end) }
            if matches!(end.termination, Termination::TimeForfeit(_)))
    })
}

fn start(t: &mut Table, at: u64) -> Vec<Output> {
    t.apply(Event::new(at, Input::Arbiter(ArbiterAction::StartClocks)))
}

fn refused(out: &[Output]) -> Option<String> {
    out.iter().find_map(|o| match o {
        Output::Note {
            note: ArbiterNote::Refused { reason, .. },
        } => Some(reason.clone()),
        _ => None,
    })
}

#[test]
fn the_clocks_wait_for_the_arbiter() {
    let mut t = table(ClockStart::Arbiter, true);
    assert!(t.clocks_waiting());
    // Ten minutes with nobody at the table: no flag falls, no time runs.
    let out = t.apply(Event::new(600_000, Input::Tick));
    assert!(!flag_fell(&out), "{out:?}");
    assert_eq!(t.next_deadline(), None);
    assert_eq!(t.clocks(), Some((ByColor::new_with(|_| 60_000), None)));
    let out = start(&mut t, 600_000);
    assert!(started(&out, Color::White), "{out:?}");
    assert!(!t.clocks_waiting());
    assert_eq!(t.clocks().unwrap().1, Some(Color::White));
    // A second start is refused: they run.
    let again = refused(&start(&mut t, 600_001)).unwrap();
    assert!(again.contains("started already"), "{again}");
    // From the start, White's minute runs out.
    let out = t.apply(Event::new(660_001, Input::Tick));
    assert!(flag_fell(&out), "{out:?}");
}

#[test]
fn a_move_before_the_start_costs_and_earns_no_time() {
    let mut t = table(ClockStart::Arbiter, true);
    let out = t.apply(Event::new(
        5_000,
        Input::Play {
            color: Color::White,
            tried: Try::from_uci("e2e4").unwrap(),
        },
    ));
    assert!(out.iter().any(|o| matches!(o, Output::Verdict { .. })));
    assert_eq!(t.clocks(), Some((ByColor::new_with(|_| 60_000), None)));
    let out = start(&mut t, 10_000);
    assert!(started(&out, Color::Black), "{out:?}");
    assert_eq!(t.clocks().unwrap().1, Some(Color::Black));
}

#[test]
fn the_clocks_start_when_both_boards_are_there_and_in_sync() {
    let mut t = table(ClockStart::Boards, false);
    let board = Board::default();
    let snapshot = |c: Color| BoardInput::Snapshot(board.by_color(c));
    let input = |color, input| Input::Board { color, input };
    let out = t.apply(Event::new(
        1_000,
        input(Color::White, BoardInput::Connected { board_id: Some(1) }),
    ));
    assert!(!started(&out, Color::White));
    let out = t.apply(Event::new(
        1_001,
        input(Color::White, snapshot(Color::White)),
    ));
    assert!(
        !started(&out, Color::White),
        "Black's board is not there yet"
    );
    // Black's board shows a man too many: not in sync, no start.
    let wrong = BoardInput::Snapshot(board.by_color(Color::Black) | board.by_color(Color::White));
    let out = t.apply(Event::new(2_000, input(Color::Black, wrong)));
    assert!(!started(&out, Color::White), "{out:?}");
    assert!(t.clocks_waiting());
    let out = t.apply(Event::new(
        3_000,
        input(Color::Black, snapshot(Color::Black)),
    ));
    assert!(started(&out, Color::White), "{out:?}");
    assert_eq!(
        t.clocks().unwrap(),
        (ByColor::new_with(|_| 60_000), Some(Color::White))
    );
}

#[test]
fn starting_clocks_that_do_not_exist_or_after_the_end_is_refused() {
    let mut t = Table::new(TableConfig::new(GameConfig::default()), 0)
        .unwrap()
        .0;
    assert!(!t.clocks_waiting());
    assert!(refused(&start(&mut t, 1)).unwrap().contains("no clocks"));
    let mut t = table(ClockStart::Arbiter, true);
    t.apply(Event::new(
        1,
        Input::Resign {
            color: Color::White,
        },
    ));
    assert!(refused(&start(&mut t, 2)).unwrap().contains("over"));
}

#[test]
fn at_once_runs_from_the_opening_as_before() {
    let mut t = table(ClockStart::AtOnce, true);
    assert!(!t.clocks_waiting());
    let out = t.apply(Event::new(60_001, Input::Tick));
    assert!(flag_fell(&out), "{out:?}");
}

/// `start all` reaches every table of a hall: a waiting one starts, one without clocks or
/// already running lets it pass without a word (no refusal for what was not asked of it).
#[test]
fn start_all_starts_what_waits_and_passes_the_rest_quietly() {
    let all =
        |t: &mut Table, at: u64| t.apply(Event::new(at, Input::Arbiter(ArbiterAction::StartAll)));
    let mut waiting = table(ClockStart::Arbiter, true);
    assert!(started(&all(&mut waiting, 10), Color::White));
    assert_eq!(all(&mut waiting, 20), Vec::new(), "already running");
    let mut untimed = Table::new(TableConfig::new(GameConfig::default()), 0)
        .unwrap()
        .0;
    assert_eq!(all(&mut untimed, 10), Vec::new(), "no clocks");
    // Journaled as its words, and read back.
    let line = kriegspiel_table::arbiter_words::render_action(&ArbiterAction::StartAll);
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        kriegspiel_table::arbiter_words::parse_action(&words),
        Ok(ArbiterAction::StartAll)
    );
}
