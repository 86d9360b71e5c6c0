//! Rulings of the hardening issue: no en-passant leak under strict Cincinnati, FENs of other
//! variants refused, the rebuff count before the opponent has moved, bounded memory in
//! Berkeley games, and the question and rule-set ids.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_referee::shakmaty::{Chess, Color, Position, Square};
use kriegspiel_referee::{
    own_board_targets, Announcement, Error, GameConfig, Lang, Options, Question, Referee,
    RefusalKind, Reply, RuleSet, Try, Verdict, Wording,
};

fn referee(rules: RuleSet, options: Options, fen: &str) -> Referee {
    Referee::new(&GameConfig {
        rules,
        options,
        fen: Some(fen.to_owned()),
    })
    .unwrap()
}

fn strict() -> Options {
    Options {
        strict: true,
        ..Options::default()
    }
}

fn kind(v: Verdict) -> Option<RefusalKind> {
    match v {
        Verdict::Moved(_) => None,
        Verdict::Refused(r) => Some(r.kind),
    }
}

fn try_uci(r: &mut Referee, uci: &str) -> Verdict {
    r.try_move(Try::from_uci(uci).unwrap()).unwrap()
}

/// docs/RULES.md §3.5: from the same position, `e5d6` answers the same whether or not Black
/// has just double-stepped (the e.p. capture would expose the king to the rook on e8).
#[test]
fn strict_cincinnati_en_passant_shaped_try_does_not_depend_on_the_double_step() {
    for options in [Options::default(), strict()] {
        let mut with = referee(
            RuleSet::Cincinnati,
            options,
            "k3r3/8/8/3pP3/2P1K3/8/8/8 w - d6 0 2",
        );
        let mut without = referee(
            RuleSet::Cincinnati,
            options,
            "k3r3/8/8/3pP3/2P1K3/8/8/8 w - - 0 2",
        );
        assert_eq!(kind(try_uci(&mut with, "e5d6")), Some(RefusalKind::Illegal));
        assert_eq!(
            kind(try_uci(&mut without, "e5d6")),
            Some(RefusalKind::Illegal)
        );
        // A try off the check line is still impossible under strict, illegal otherwise.
        let off_line = if options.strict {
            RefusalKind::Impossible
        } else {
            RefusalKind::Illegal
        };
        assert_eq!(kind(try_uci(&mut with, "c4c5")), Some(off_line));
        assert_eq!(kind(try_uci(&mut without, "c4c5")), Some(off_line));
    }
}

/// In play: after `d7d5+` (a pawn's double step) and after `f7d5+` (a bishop, the same
/// announcement) the try `e5d6` gets the same answer, in every rule set.
#[test]
fn in_play_the_pawn_and_the_bishop_check_are_answered_alike() {
    let fen = "k3r3/3p1b2/8/4P3/2P1K3/8/8/8 b - - 0 1";
    for rules in RuleSet::ALL.into_iter().filter(|r| *r != RuleSet::Russian) {
        let mut option_sets = vec![Options::default()];
        if rules == RuleSet::Cincinnati {
            option_sets.push(strict());
        }
        for options in option_sets {
            let mut pawn = referee(rules, options, fen);
            let mut bishop = referee(rules, options, fen);
            let Verdict::Moved(rp) = try_uci(&mut pawn, "d7d5") else {
                panic!("d7d5 refused")
            };
            let Verdict::Moved(rb) = try_uci(&mut bishop, "f7d5") else {
                panic!("f7d5 refused")
            };
            // The same announcement...
            let w = Wording::new(rules, options, Lang::En);
            assert_eq!(
                w.text(&Announcement::Report(rp)),
                w.text(&Announcement::Report(rb))
            );
            // ...and the same answers to every try White could make.
            for from in pawn.position().us() {
                for to in Square::ALL {
                    let t = Try::new(from, to);
                    let a = pawn.clone().try_move(t).unwrap();
                    let b = bishop.clone().try_move(t).unwrap();
                    if let (Verdict::Refused(_), Verdict::Refused(_)) = (a, b) {
                        assert_eq!(a, b, "{rules} {options:?}: {}", t.to_uci());
                    }
                }
            }
            let e5d6 = kind(try_uci(&mut pawn, "e5d6"));
            assert_eq!(e5d6, kind(try_uci(&mut bishop, "e5d6")), "{rules}");
            if rules == RuleSet::Cincinnati {
                assert_eq!(e5d6, Some(RefusalKind::Illegal));
            }
        }
    }
}

/// The exception covers only the en-passant shape: a pawn on its fifth rank whose victim
/// square is diagonally in front of the king on the announced diagonal.
#[test]
fn the_exception_is_only_the_en_passant_shape() {
    let strict_kind = |fen: &str, uci: &str| {
        let mut r = referee(RuleSet::Cincinnati, strict(), fen);
        assert!(r.position().is_check(), "{fen}");
        assert!(
            r.last_report().pawn_tries == kriegspiel_referee::PawnTries::Exists(true),
            "{fen}: a pawn capture is announced, so the check rule decides"
        );
        kind(try_uci(&mut r, uci))
    };
    // Black, checked by the white pawn on d4: c4d3 (victim d4, in front of Black's king on
    // the announced diagonal) may answer the check.
    assert_eq!(
        strict_kind("8/8/8/2p1k3/2pP4/8/8/4K3 b - - 0 1", "c4d3"),
        Some(RefusalKind::Illegal)
    );
    // The same shape from the sixth rank is no en-passant capture: it ignores the check.
    assert_eq!(
        strict_kind("k7/2b5/1P2P3/4K3/8/8/8/8 w - - 0 1", "e6d7"),
        Some(RefusalKind::Impossible)
    );
    // A file check is never answered by a pawn-capture attempt off the file, whatever its
    // shape.
    assert_eq!(
        strict_kind("k2r4/4P3/8/1P6/3K4/8/8/8 w - - 0 1", "b5c6"),
        Some(RefusalKind::Impossible)
    );
    // A victim square behind the pawn's side of the king (not where a pawn could check
    // from) does not count either: the king on d4, checked on the diagonal from f6.
    assert_eq!(
        strict_kind("k7/8/5b2/1P4P1/3K4/8/8/8 w - - 0 1", "b5c6"),
        Some(RefusalKind::Impossible)
    );
}

/// The own-board generator is the one the referee's "impossible" uses.
#[test]
fn own_board_targets_match_the_referee() {
    let fen = "r3k2r/pppq1ppp/2n5/3pp3/1b6/2NP1N2/PPPBQPPP/R3K2R w KQkq - 0 1";
    let pos: Chess = referee(RuleSet::Berkeley, Options::default(), fen)
        .position()
        .clone();
    for from in pos.us() {
        let targets = own_board_targets(&pos, Color::White, from);
        for to in Square::ALL {
            let t = Try::new(from, to);
            let mut r = referee(RuleSet::Berkeley, Options::default(), fen);
            let v = r.try_move(t).unwrap();
            if targets.contains(to) {
                assert_ne!(kind(v), Some(RefusalKind::Impossible), "{}", t.to_uci());
            } else {
                assert_eq!(kind(v), Some(RefusalKind::Impossible), "{}", t.to_uci());
            }
        }
    }
}

/// FENs of other variants are refused, not silently read as chess.
#[test]
fn variant_fens_are_bad_fen() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qq w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ~KBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ~KBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +0+0",
    ] {
        for rules in RuleSet::ALL {
            let err = Referee::new(&GameConfig {
                rules,
                options: Options::default(),
                fen: Some(fen.to_owned()),
            })
            .expect_err(fen);
            assert!(matches!(err, Error::BadFen(_)), "{rules} {fen}: {err}");
            assert_eq!(err.code(), "bad-fen");
        }
    }
    let err = Referee::new(&GameConfig {
        fen: Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1".into()),
        ..GameConfig::default()
    })
    .unwrap_err();
    assert!(err.to_string().contains("Crazyhouse pockets"), "{err}");
    // A plain FEN still reads.
    referee(
        RuleSet::Cincinnati,
        Options::default(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
}

/// RAND: before the opponent has made a move there is no rebuff count to give.
#[test]
fn rebuffs_before_the_opponent_has_moved() {
    let mut r = Referee::new(&GameConfig {
        rules: RuleSet::Rand,
        ..GameConfig::default()
    })
    .unwrap();
    let w = Wording::new(RuleSet::Rand, Options::default(), Lang::En);
    let reply = r.ask(Question::Rebuffs).unwrap();
    assert!(matches!(reply, Reply::Rebuffs { count: None, .. }));
    let text = w.text(&Announcement::Reply(reply));
    assert_eq!(text, "Black has not moved yet.");
    assert!(!text.contains('0'));
    for lang in [Lang::Fr, Lang::Ru] {
        let t =
            Wording::new(RuleSet::Rand, Options::default(), lang).text(&Announcement::Reply(reply));
        assert!(!t.contains('0') && !t.is_empty(), "{t}");
    }
    // Refused tries by White, then White moves: Black may now ask, and hears the count.
    try_uci(&mut r, "e2e5");
    try_uci(&mut r, "e2e5");
    assert!(matches!(try_uci(&mut r, "e2e4"), Verdict::Moved(_)));
    let reply = r.ask(Question::Rebuffs).unwrap();
    assert!(matches!(reply, Reply::Rebuffs { count: Some(2), .. }));
    assert_eq!(w.text(&Announcement::Reply(reply)), "White had 2 rebuffs.");
    // A first move without rebuffs is a count of 0, no longer "not moved".
    assert!(matches!(try_uci(&mut r, "e7e5"), Verdict::Moved(_)));
    let reply = r.ask(Question::Rebuffs).unwrap();
    assert!(matches!(reply, Reply::Rebuffs { count: Some(0), .. }));
    assert_eq!(w.text(&Announcement::Reply(reply)), "Black had 0 rebuffs.");
    // From a FEN with Black to move, White has not moved in this game either.
    let mut r = referee(
        RuleSet::Rand,
        Options::default(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    );
    let reply = r.ask(Question::Rebuffs).unwrap();
    assert!(matches!(reply, Reply::Rebuffs { count: None, .. }));
    assert_eq!(
        w.text(&Announcement::Reply(reply)),
        "White has not moved yet."
    );
}

/// Berkeley has no repetition rule: the referee keeps no position history however long the
/// game lasts. Other rule sets keep only the positions since the last capture or pawn move.
#[test]
fn berkeley_keeps_no_position_history() {
    // Two kings and a rook each: never dead material, and Berkeley has no fifty-move rule.
    let fen = "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let shuffle = ["a1a2", "a8a7", "a2a1", "a7a8"];
    let plies: usize = 1_000_000;
    for rules in [RuleSet::Berkeley, RuleSet::BerkeleyAny] {
        let mut r = referee(rules, Options::default(), fen);
        assert_eq!(r.remembered_positions(), 0);
        for (i, uci) in shuffle.iter().cycle().take(plies).enumerate() {
            let t = Try::from_uci(uci).unwrap();
            let Verdict::Moved(report) = r.try_move(t).unwrap() else {
                panic!("{rules}: ply {i} {uci} refused");
            };
            assert!(report.end.is_none(), "{rules}: ply {i} ended the game");
            assert_eq!(r.remembered_positions(), 0, "{rules}: ply {i}");
        }
    }
    // Elsewhere the history is cut at every capture or pawn move, and the repetition rule
    // still ends the game on the third occurrence.
    let mut r = referee(RuleSet::Cincinnati, Options::default(), fen);
    assert_eq!(r.remembered_positions(), 1);
    let mut ended = None;
    for (i, uci) in shuffle.iter().cycle().take(20).enumerate() {
        if let Verdict::Moved(report) = try_uci(&mut r, uci) {
            if report.end.is_some() {
                ended = Some(i + 1);
                break;
            }
        }
        assert_eq!(r.remembered_positions(), i + 2);
    }
    assert_eq!(ended, Some(8), "the start position's third occurrence");
    let mut r = referee(
        RuleSet::Cincinnati,
        Options::default(),
        "r3k3/p7/8/8/8/8/P7/R3K3 w - - 0 1",
    );
    try_uci(&mut r, "e1e2");
    try_uci(&mut r, "e8e7");
    assert_eq!(r.remembered_positions(), 3);
    try_uci(&mut r, "a2a3");
    assert_eq!(
        r.remembered_positions(),
        1,
        "a pawn move: earlier positions cannot recur"
    );
}

/// The ids other crates name questions and rule sets by, both ways.
#[test]
fn question_and_rule_set_ids_round_trip() {
    for q in Question::ALL {
        assert_eq!(q.to_string().parse::<Question>().unwrap(), q);
    }
    assert_eq!(Question::Any.to_string(), "any");
    assert_eq!(Question::Rebuffs.to_string(), "rebuffs");
    let e = "anything".parse::<Question>().unwrap_err();
    assert_eq!(e.to_string(), "unknown question 'anything' (any, rebuffs)");
    let long = "q".repeat(1000);
    assert!(long.parse::<Question>().unwrap_err().to_string().len() < 200);
    for rules in RuleSet::ALL {
        assert_eq!(rules.to_string().parse::<RuleSet>().unwrap(), rules);
    }
    assert_eq!(RuleSet::BerkeleyAny.to_string(), "berkeley-any");
    assert!(matches!(
        "chess".parse::<RuleSet>(),
        Err(Error::UnknownRules(_))
    ));
    // shakmaty's Color names the sides as the protocol does.
    assert_eq!(Color::White.to_string(), "white");
    assert_eq!(Color::Black.to_string(), "black");
    assert_eq!("black".parse::<Color>().ok(), Some(Color::Black));
}
