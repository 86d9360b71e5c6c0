#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Property tests: random legal games played as physical lifts and places (with slides,
//! bounces, swaps, removals and rook follow-ups) give exactly the intended tries, each
//! verdict exactly settle_ms after the last change, and the game's final position; random
//! event sequences never panic and replay to the same table.

use kriegspiel_table::kriegspiel_referee::{GameConfig, Question, Try, Verdict};
use kriegspiel_table::shakmaty::fen::Fen;
use kriegspiel_table::shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, Move, Position, Role, Square,
};
use kriegspiel_table::{
    BoardInput, Event, Input, Millis, Output, PrivateMessage, Table, TableConfig, TouchMove,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const STARTS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // castling on both sides for both players, captures at once
    "r3k2r/pp1p1ppp/8/2p1p3/3P1P2/8/PP2P1PP/R3K2R w KQkq - 0 1",
    // promotions (with and without capture) and en passant soon
    "1n2k1n1/PPP3PP/8/8/3p4/8/ppp1P1pp/1N2K1N1 w - - 0 1",
    // a middlegame with many captures
    "r1bqk2r/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQK2R w KQkq - 0 1",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Quiet,
    Capture,
    EnPassant,
    Castle,
    Promotion,
}

fn kind(m: &Move) -> Kind {
    match m {
        Move::Castle { .. } => Kind::Castle,
        Move::EnPassant { .. } => Kind::EnPassant,
        Move::Normal {
            promotion: Some(_), ..
        } => Kind::Promotion,
        Move::Normal {
            capture: Some(_), ..
        } => Kind::Capture,
        _ => Kind::Quiet,
    }
}

/// Feeds events to the table, delivering a Tick at every deadline on the way (as the
/// console's clock does), and returns every output with its time.
struct Driver {
    table: Table,
    log: Vec<(Millis, Output)>,
    events: Vec<Event>,
}

impl Driver {
    fn new(config: TableConfig) -> Driver {
        let (table, outputs) = Table::new(config, 0).unwrap();
        Driver {
            table,
            log: outputs.into_iter().map(|o| (0, o)).collect(),
            events: Vec::new(),
        }
    }

    fn send(&mut self, event: Event) -> Vec<(Millis, Output)> {
        let mut got = Vec::new();
        while let Some(due) = self.table.next_deadline().filter(|d| *d < event.at) {
            self.events.push(Event::tick(due));
            got.extend(
                self.table
                    .apply(Event::tick(due))
                    .into_iter()
                    .map(|o| (due, o)),
            );
        }
        self.events.push(event.clone());
        let at = event.at;
        got.extend(self.table.apply(event).into_iter().map(|o| (at, o)));
        self.log.extend(got.iter().cloned());
        got
    }
}

fn board(color: Color, input: BoardInput) -> Input {
    Input::Board { color, input }
}

/// Plays one random legal game physically and checks every try. Returns the kinds of try
/// seen (each with its verdict time checked).
fn play_random_game(seed: u64, start: &str, settle_ms: u32, plies: usize) -> Vec<Kind> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos: Chess = start
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut config = TableConfig::new(GameConfig {
        fen: Some(start.to_owned()),
        ..GameConfig::default()
    });
    config.settle_ms = settle_ms;
    config.touch_move = TouchMove::Strict;
    let mut d = Driver::new(config);
    let settle = Millis::from(settle_ms);
    let gap = |rng: &mut StdRng| rng.gen_range(1..settle);
    let mut t: Millis = 1000;
    let mut kinds = Vec::new();
    for _ in 0..plies {
        if d.table.is_over() {
            break;
        }
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.gen_range(0..legal.len())];
        let color = pos.turn();
        let own = pos.board().by_color(color);
        let mut seq: Vec<Input> = Vec::new();
        let mut promotion = None;
        if let Move::Normal {
            promotion: Some(role),
            ..
        } = m
        {
            if role != Role::Queen || rng.gen_bool(0.5) {
                promotion = Some(role);
                seq.push(Input::Promote { color, role });
            }
        }
        let tried = match m {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => {
                seq.push(board(color, BoardInput::Lift(from)));
                // slides over empty squares of his own board
                for _ in 0..rng.gen_range(0..3) {
                    let x = Square::new(rng.gen_range(0..64));
                    if own.contains(x) || x == to || x == from {
                        continue;
                    }
                    seq.push(board(color, BoardInput::Place(x)));
                    seq.push(board(color, BoardInput::Lift(x)));
                }
                seq.push(board(color, BoardInput::Place(to)));
                // a chattering switch, or the promotion swap on the last rank
                for _ in 0..rng.gen_range(0..3) {
                    seq.push(board(color, BoardInput::Lift(to)));
                    seq.push(board(color, BoardInput::Place(to)));
                }
                Try {
                    from,
                    to,
                    promotion,
                }
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook.file() > king.file());
                let (king_to, rook_to) = (side.king_to(color), side.rook_to(color));
                if rng.gen_bool(0.5) {
                    seq.push(board(color, BoardInput::Lift(rook)));
                    seq.push(board(color, BoardInput::Place(rook_to)));
                }
                seq.push(board(color, BoardInput::Lift(king)));
                seq.push(board(color, BoardInput::Place(king_to)));
                Try::new(king, king_to)
            }
            Move::Put { .. } => unreachable!("no drops in chess"),
        };
        let mut last_change = t;
        for input in seq {
            t += gap(&mut rng);
            if matches!(input, Input::Board { .. }) {
                last_change = t;
            }
            let got = d.send(Event::new(t, input));
            assert!(
                got.iter()
                    .all(|(_, o)| !matches!(o, Output::Verdict { .. })),
                "seed {seed}: verdict before the try was complete: {got:?}"
            );
        }
        let due = d.table.next_deadline();
        assert_eq!(due, Some(last_change + settle), "seed {seed}: {m:?}");
        let verdict_at = last_change + settle;
        let got = d.send(Event::tick(verdict_at));
        let verdicts: Vec<_> = got
            .iter()
            .filter_map(|(at, o)| match o {
                Output::Verdict {
                    color: c,
                    tried: tr,
                    verdict,
                } => Some((*at, *c, *tr, *verdict)),
                _ => None,
            })
            .collect();
        assert_eq!(verdicts.len(), 1, "seed {seed}: {m:?} gave {got:?}");
        let (at, c, tr, verdict) = verdicts[0];
        assert_eq!((at, c, tr), (verdict_at, color, tried), "seed {seed}");
        assert!(
            matches!(verdict, Verdict::Moved(_)),
            "seed {seed}: legal {m:?} refused"
        );
        kinds.push(kind(&m));
        t = verdict_at;
        // the rook follows a king-first castling; the victim removes his captured man
        if let Move::Castle { king: _, rook } = m {
            let side = CastlingSide::from_king_side(rook.file() > m.from().unwrap().file());
            if d.table.occupancy(color).contains(rook) {
                t += gap(&mut rng);
                d.send(Event::lift(t, color, rook));
                t += gap(&mut rng);
                d.send(Event::place(t, color, side.rook_to(color)));
            }
        }
        let captured = match m {
            Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
            Move::Normal {
                capture: Some(_),
                to,
                ..
            } => Some(to),
            _ => None,
        };
        if let Some(sq) = captured {
            t += gap(&mut rng);
            d.send(Event::lift(t, !color, sq));
        }
        pos.play_unchecked(m);
        assert_eq!(d.table.referee().position().board(), pos.board());
        for c in Color::ALL {
            assert!(d.table.in_sync(c), "seed {seed}: {c:?} board out of sync");
        }
        t += gap(&mut rng);
    }
    assert_eq!(d.table.referee().position().board(), pos.board());
    assert_eq!(d.table.referee().turn(), pos.turn());
    // A game played by the book needs no guidance or reminder: the only private messages
    // confirm promotion choices.
    let unexpected: Vec<_> = d
        .log
        .iter()
        .filter(|(_, o)| match o {
            Output::Private {
                message: PrivateMessage::PromotionChoice(_),
                ..
            } => false,
            Output::Private { .. }
            | Output::Arbiter { .. }
            | Output::Public { .. }
            | Output::Repeated { .. }
            | Output::Note { .. } => true,
            Output::Started { .. }
            | Output::Verdict { .. }
            | Output::Reply { .. }
            | Output::Clock { .. } => false,
        })
        .collect();
    assert!(unexpected.is_empty(), "seed {seed}: {unexpected:?}");
    // Replaying the same events (ticks included) rebuilds the same table and outputs.
    let mut again = Driver::new(d.table.config().clone());
    let mut outputs = Vec::new();
    for e in &d.events {
        outputs.extend(again.table.apply(e.clone()).into_iter().map(|o| (e.at, o)));
    }
    let mut first: Vec<_> = d.log.clone();
    first.drain(..1);
    assert_eq!(outputs, first, "seed {seed}: replay differs");
    assert_eq!(format!("{:?}", again.table), format!("{:?}", d.table));
    kinds
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_games_give_exactly_the_intended_tries(
        seed in any::<u64>(),
        start in 0..STARTS.len(),
        settle_ms in 100u32..=1500,
        plies in 20usize..=60,
    ) {
        play_random_game(seed, STARTS[start], settle_ms, plies);
    }
}

#[test]
fn every_kind_of_try_comes_exactly_settle_ms_after_the_last_change() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40u64 {
        for (i, start) in STARTS.iter().enumerate() {
            let settle = [100, 300, 777, 1500][(seed as usize + i) % 4];
            seen.extend(play_random_game(seed * 7 + i as u64, start, settle, 40));
        }
    }
    for k in [
        Kind::Quiet,
        Kind::Capture,
        Kind::EnPassant,
        Kind::Castle,
        Kind::Promotion,
    ] {
        assert!(seen.contains(&k), "no {k:?} try in the sample");
    }
}

fn any_square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn any_color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn any_input() -> impl Strategy<Value = Input> {
    let board_input = prop_oneof![
        4 => any_square().prop_map(BoardInput::Lift),
        4 => any_square().prop_map(BoardInput::Place),
        1 => any::<u64>().prop_map(|b| BoardInput::Snapshot(Bitboard(b))),
        1 => Just(BoardInput::Connected { board_id: None }),
        1 => Just(BoardInput::Disconnected),
    ];
    let role = prop_oneof![
        Just(Role::Pawn),
        Just(Role::Knight),
        Just(Role::Bishop),
        Just(Role::Rook),
        Just(Role::Queen),
        Just(Role::King)
    ];
    prop_oneof![
        12 => (any_color(), board_input).prop_map(|(color, input)| Input::Board { color, input }),
        2 => Just(Input::Tick),
        1 => (any_color(), role).prop_map(|(color, role)| Input::Promote { color, role }),
        1 => (any_color(), prop_oneof![Just(Question::Any), Just(Question::Rebuffs)])
            .prop_map(|(color, question)| Input::Ask { color, question }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_event_sequences_never_panic_and_replay_identically(
        steps in proptest::collection::vec((0u64..2000, any_input()), 0..200),
        touch in prop_oneof![Just(TouchMove::Strict), Just(TouchMove::Warn), Just(TouchMove::Off)],
        rules in 0usize..7,
    ) {
        let config = TableConfig {
            touch_move: touch,
            game: GameConfig {
                rules: kriegspiel_table::kriegspiel_referee::RuleSet::ALL[rules],
                ..GameConfig::default()
            },
            ..TableConfig::default()
        };
        let (mut table, _) = Table::new(config.clone(), 0).unwrap();
        let mut at: Millis = 0;
        let mut events = Vec::new();
        let mut outputs = Vec::new();
        for (dt, input) in steps {
            // time mostly moves on, sometimes a stale timestamp arrives
            at = if dt > 1900 { at.saturating_sub(dt - 1900) } else { at + dt };
            let e = Event::new(at, input);
            events.push(e.clone());
            outputs.extend(table.apply(e));
            if let Some(due) = table.next_deadline() {
                prop_assert!(due >= table.now(), "a deadline in the past: {due} < {}", table.now());
            }
        }
        let (mut again, _) = Table::new(config, 0).unwrap();
        let mut replayed = Vec::new();
        for e in &events {
            replayed.extend(again.apply(e.clone()));
        }
        prop_assert_eq!(replayed, outputs);
        prop_assert_eq!(format!("{again:?}"), format!("{table:?}"));
    }
}

/// The table's state as `Debug` shows it, but for its clock of the latest time seen.
fn state_but_now(table: &Table) -> String {
    let state = format!("{table:?}");
    let start = state.find(", now: ").expect("Table's Debug shows `now`");
    let end = start + state[start + 2..].find(", ").expect("a field after `now`") + 2;
    format!("{}{}", &state[..start], &state[end..])
}

/// The snapshot a player's board sends every 450 ms: what it shows, which is what the
/// table believes it shows unless a report was lost.
fn echo(table: &Table, color: Color) -> Input {
    Input::Board {
        color,
        input: BoardInput::Snapshot(table.occupancy(color)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// What `changes_nothing` lets a console leave out of its journal changes nothing: the
    /// event says nothing and leaves the table as it was, and a table that never saw such
    /// events says and ends exactly as one that took them all.
    #[test]
    fn a_snapshot_that_changes_nothing_can_be_left_out(
        steps in proptest::collection::vec((0u64..1500, any_input(), 0u8..4), 0..200),
        touch in prop_oneof![Just(TouchMove::Strict), Just(TouchMove::Warn), Just(TouchMove::Off)],
        boards in prop_oneof![Just((false, false)), Just((true, false)), Just((false, true))],
        clocks in any::<bool>(),
    ) {
        let mut config = TableConfig {
            touch_move: touch,
            ..TableConfig::default()
        };
        config.without_board = kriegspiel_table::shakmaty::ByColor { white: boards.0, black: boards.1 };
        if clocks {
            config.time_control = kriegspiel_table::TimeControl::Fischer { base_ms: 60_000, increment_ms: 0 };
            config.clock_start = kriegspiel_table::ClockStart::Boards;
        }
        let (mut all, _) = Table::new(config.clone(), 0).unwrap();
        let (mut kept, _) = Table::new(config, 0).unwrap();
        let (mut said_all, mut said_kept) = (Vec::new(), Vec::new());
        let mut at: Millis = 0;
        for (dt, input, echoes) in steps {
            at += dt;
            // Most steps come with the boards' periodic snapshots, as on a real evening.
            let mut inputs = Vec::new();
            for color in Color::ALL.into_iter().take(usize::from(echoes)) {
                inputs.push(echo(&all, color));
            }
            inputs.push(input);
            for input in inputs {
                let e = Event::new(at, input);
                if all.changes_nothing(&e) {
                    let before = state_but_now(&all);
                    let out = all.apply(e.clone());
                    prop_assert!(out.is_empty(), "{e:?} said {out:?}");
                    prop_assert_eq!(state_but_now(&all), before, "{:?} changed the table", e);
                } else {
                    said_all.extend(all.apply(e.clone()));
                }
                if !kept.changes_nothing(&e) {
                    said_kept.extend(kept.apply(e));
                }
            }
        }
        // Both at one time again: whatever was due is said by both.
        let end = Event::tick(at + 60_000);
        said_all.extend(all.apply(end.clone()));
        said_kept.extend(kept.apply(end));
        prop_assert_eq!(said_kept, said_all);
        prop_assert_eq!(format!("{kept:?}"), format!("{all:?}"));
    }
}

/// A game played on boards that send their periodic snapshots: most of them are left out.
#[test]
fn most_periodic_snapshots_of_a_game_change_nothing() {
    let (mut table, _) = Table::new(TableConfig::default(), 0).unwrap();
    let mut at: Millis = 0;
    let (mut echoes, mut left_out) = (0, 0);
    let mut echo_all = |table: &mut Table, at: Millis| {
        for color in Color::ALL {
            let e = Event::new(at, echo(table, color));
            echoes += 1;
            if table.changes_nothing(&e) {
                left_out += 1;
            } else {
                table.apply(e);
            }
        }
    };
    // Boards connect and show their men; then 1. e4 e5 2. Nf3, with snapshots between.
    for color in Color::ALL {
        table.apply(Event::new(
            at,
            board(color, BoardInput::Connected { board_id: None }),
        ));
        let men = table.official(color);
        table.apply(Event::new(at, board(color, BoardInput::Snapshot(men))));
    }
    for (color, from, to) in [
        (Color::White, Square::E2, Square::E4),
        (Color::Black, Square::E7, Square::E5),
        (Color::White, Square::G1, Square::F3),
    ] {
        for _ in 0..20 {
            at += 450;
            echo_all(&mut table, at);
        }
        at += 100;
        table.apply(Event::lift(at, color, from));
        at += 100;
        table.apply(Event::place(at, color, to));
        echo_all(&mut table, at + 1);
        at += 2_000;
        table.apply(Event::tick(at));
    }
    assert_eq!(
        table.referee().position().board().to_string(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
    );
    assert_eq!(echoes, 126);
    // Those sent while a try stood waiting for its verdict are not left out (a timer is due).
    assert!(left_out >= 120, "{left_out} of {echoes} left out");
}
