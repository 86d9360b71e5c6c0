//! Properties over random games, for every rule set: what must hold whatever the position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_referee::jsonl::{report_value, verdict_value, Defaults, Session};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, File, Move, Position, Rank, Role, Square,
};
use kriegspiel_referee::{
    CheckKind, GameConfig, Options, Referee, RefusalKind, RuleSet, Try, Verdict, Wording,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A random game of up to `plies` plies, as the list of positions before each move.
fn random_game(seed: u64, plies: usize) -> Vec<(Chess, Move)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.gen_range(0..moves.len())];
        out.push((pos.clone(), m));
        pos = pos.play(m).unwrap();
    }
    out
}

fn referee_at(rules: RuleSet, pos: &Chess) -> Referee {
    Referee::from_position(rules, Options::default(), pos.clone())
}

/// An independent oracle for check kinds: walk the board square by square.
fn brute_force_checks(pos: &Chess) -> Vec<CheckKind> {
    let us = pos.turn();
    let board = pos.board();
    let king = board.king_of(us).unwrap();
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    let at = |f: i32, r: i32| -> Option<Square> {
        ((0..8).contains(&f) && (0..8).contains(&r))
            .then(|| Square::from_coords(File::new(f as u32), Rank::new(r as u32)))
    };
    let diag_len = |df: i32, dr: i32| -> i32 {
        // squares on the whole line through the king in direction (df, dr)
        let mut n = 1;
        for s in [1, -1] {
            let (mut f, mut r) = (kf + s * df, kr + s * dr);
            while at(f, r).is_some() {
                n += 1;
                f += s * df;
                r += s * dr;
            }
        }
        n
    };
    let mut kinds = Vec::new();
    for (df, dr) in [
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ] {
        let (mut f, mut r) = (kf + df, kr + dr);
        let mut step = 1;
        while let Some(sq) = at(f, r) {
            if let Some(piece) = board.piece_at(sq) {
                if piece.color != us {
                    let diagonal = df != 0 && dr != 0;
                    let pawn_attacks = piece.role == Role::Pawn
                        && step == 1
                        && diagonal
                        && dr == if us == Color::White { 1 } else { -1 };
                    let slides = match piece.role {
                        Role::Queen => true,
                        Role::Rook => !diagonal,
                        Role::Bishop => diagonal,
                        Role::King | Role::Pawn | Role::Knight => false,
                    };
                    if slides || pawn_attacks {
                        kinds.push(if df == 0 {
                            CheckKind::File
                        } else if dr == 0 {
                            CheckKind::Rank
                        } else if diag_len(df, dr) > diag_len(df, -dr) {
                            CheckKind::Long
                        } else {
                            CheckKind::Short
                        });
                    }
                }
                break;
            }
            f += df;
            r += dr;
            step += 1;
        }
    }
    for (df, dr) in [
        (1, 2),
        (2, 1),
        (-1, 2),
        (-2, 1),
        (1, -2),
        (2, -1),
        (-1, -2),
        (-2, -1),
    ] {
        if let Some(sq) = at(kf + df, kr + dr) {
            if board
                .piece_at(sq)
                .is_some_and(|p| p.color != us && p.role == Role::Knight)
            {
                kinds.push(CheckKind::Knight);
            }
        }
    }
    kinds.sort();
    kinds
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Every legal move is accepted as a try, in every rule set; the report's checks agree
    /// with the brute-force oracle; a refused try changes nothing.
    #[test]
    fn legal_tries_stand_and_checks_agree(seed in any::<u64>()) {
        let game = random_game(seed, 120);
        for rules in RuleSet::ALL.into_iter().filter(|r| *r != RuleSet::Russian) {
            let mut referee = referee_at(rules, &game[0].0);
            for (pos, m) in &game {
                prop_assert_eq!(fen_of(referee.position()), fen_of(pos));
                // every legal move would stand
                for other in pos.legal_moves() {
                    let mut probe = referee.clone();
                    let verdict = probe.try_move(Try::from_move(&other).unwrap()).unwrap();
                    prop_assert!(matches!(verdict, Verdict::Moved(_)), "{:?} refused in {}", other, fen_of(pos));
                }
                // a random non-move changes nothing
                let before = fen_of(referee.position());
                let bogus = Try::new(m.to(), m.from().unwrap_or(m.to()));
                if !pos.legal_moves().iter().any(|l| Try::from_move(l).unwrap() == bogus) {
                    let v = referee.try_move(bogus).unwrap();
                    prop_assert!(matches!(v, Verdict::Refused(_)));
                    prop_assert_eq!(fen_of(referee.position()), before);
                }
                let Verdict::Moved(report) = referee.try_move(Try::from_move(m).unwrap()).unwrap() else {
                    return Err(TestCaseError::fail("legal move refused"));
                };
                let after = pos.clone().play(*m).unwrap();
                let kinds: Vec<CheckKind> = report.checks.iter().collect();
                prop_assert_eq!(kinds, brute_force_checks(&after), "checks in {}", fen_of(&after));
                if report.end.is_some() {
                    break;
                }
            }
        }
    }

    /// No en-passant leak: a pawn's diagonal try onto the e.p. square gets the same answer
    /// whether or not the opponent just double-stepped, unless the capture is legal.
    #[test]
    fn no_en_passant_leak(seed in any::<u64>()) {
        let game = random_game(seed, 80);
        for (pos, m) in &game {
            let after = pos.clone().play(*m).unwrap();
            let Some(ep) = after.maybe_ep_square() else { continue };
            let with_ep = Fen::from_position(&after, EnPassantMode::Always).to_string();
            let mut parts: Vec<&str> = with_ep.split(' ').collect();
            parts[3] = "-";
            let without = parts.join(" ");
            let without: Chess = without.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
            for rules in RuleSet::ALL.into_iter().filter(|r| *r != RuleSet::Russian) {
                let a = referee_at(rules, &after);
                let b = referee_at(rules, &without);
                // A legal e.p. capture is announced like any other; the property is about
                // positions where none is legal.
                if !after.en_passant_moves().is_empty() {
                    continue;
                }
                prop_assert_eq!(a.last_report().pawn_tries, b.last_report().pawn_tries);
                for from in after.our(Role::Pawn) {
                    let t = Try::new(from, ep);
                    if kriegspiel_referee::shakmaty::attacks::pawn_attacks(after.turn(), from).contains(ep) {
                        let (mut a, mut b) = (a.clone(), b.clone());
                        let va = a.try_move(t).unwrap();
                        let vb = b.try_move(t).unwrap();
                        prop_assert_eq!(va, vb, "{} in {} vs {}", t.to_uci(), fen_of(&after), fen_of(&without));
                    }
                }
            }
        }
    }

    /// Castling and promotion answers carry nothing that reveals them: the same fields as a
    /// quiet move, no capture unless one happened, no promotion flag outside RAND, no words.
    #[test]
    fn castling_and_promotion_are_silent(seed in any::<u64>()) {
        let game = random_game(seed, 160);
        for (pos, _) in &game {
            for m in pos.legal_moves().iter().filter(|m| m.is_castle() || m.is_promotion()) {
                for rules in RuleSet::ALL.into_iter().filter(|r| *r != RuleSet::Russian) {
                    let mut r = referee_at(rules, pos);
                    let Verdict::Moved(report) = r.try_move(Try::from_move(m).unwrap()).unwrap() else {
                        return Err(TestCaseError::fail("legal move refused"));
                    };
                    let v = report_value(&Wording::new(rules, Options::default(), kriegspiel_referee::Lang::En), &report);
                    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
                    prop_assert_eq!(keys, vec!["answer", "capture", "checks", "end", "heard_by", "pawn_tries", "promotion", "text", "to_move"]);
                    prop_assert_eq!(report.capture.is_some(), m.is_capture());
                    // "Check by a knight" is a check kind, not the promoted piece.
                    let text = v["text"].as_str().unwrap().to_lowercase().replace("check by a knight", "");
                    prop_assert!(!text.contains("castl"));
                    for word in ["queen", "rook", "bishop", "knight"] {
                        prop_assert!(!text.contains(word), "{} says {}", rules, text);
                    }
                    if rules == RuleSet::Rand {
                        prop_assert_eq!(report.promotion, Some(m.is_promotion()));
                    } else {
                        prop_assert_eq!(report.promotion, None);
                        prop_assert!(!text.contains("promot"));
                    }
                }
            }
        }
    }

    /// Tries that cannot be legal on the own board are impossible wherever the rule set has
    /// "impossible"; the repeat of a refused try never becomes legal.
    #[test]
    fn own_men_block_and_repeats_stay_refused(seed in any::<u64>(), picks in proptest::collection::vec((0u32..64, 0u32..64), 24)) {
        let game = random_game(seed, 60);
        let Some((pos, _)) = game.last() else { return Ok(()) };
        for rules in [RuleSet::Cincinnati, RuleSet::Traditional, RuleSet::Rand, RuleSet::Berkeley] {
            let mut referee = referee_at(rules, pos);
            for &(from, to) in &picks {
                let t = Try::new(Square::new(from), Square::new(to));
                if pos.legal_moves().iter().any(|m| Try::from_move(m).unwrap() == t) {
                    continue;
                }
                let v = referee.try_move(t).unwrap();
                let Verdict::Refused(refusal) = v else {
                    return Err(TestCaseError::fail("a non-move stood"));
                };
                let onto_own = pos.us().contains(t.to) || !pos.us().contains(t.from);
                if onto_own {
                    prop_assert_eq!(refusal.kind, RefusalKind::Impossible);
                }
                let again = referee.try_move(t).unwrap();
                prop_assert!(matches!(again, Verdict::Refused(_)));
                if matches!(rules, RuleSet::Cincinnati | RuleSet::Berkeley) {
                    prop_assert_eq!(again, Verdict::Refused(kriegspiel_referee::Refusal { kind: RefusalKind::Impossible, ..refusal }));
                } else {
                    prop_assert_eq!(again, v);
                }
            }
        }
    }

    /// The JSONL reader never panics and an error answer never changes the game.
    #[test]
    fn jsonl_bad_lines_change_nothing(lines in proptest::collection::vec(line_strategy(), 1..40)) {
        let mut session = Session::new(Defaults::default()).unwrap();
        for line in &lines {
            let before = fen_of(session.referee().position());
            let report_before = *session.referee().last_report();
            let answer = session.handle_line(line);
            prop_assert!(answer.is_object());
            if answer.get("error").is_some() {
                prop_assert!(answer["error"]["code"].is_string());
                prop_assert_eq!(fen_of(session.referee().position()), before);
                prop_assert_eq!(*session.referee().last_report(), report_before);
            }
        }
    }
}

/// Lines a driver might send: garbage, near-JSON, and real commands with odd values.
fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..60),
        "[a-z{}\":, 0-9\\[\\]]{0,40}".prop_map(String::into_bytes),
        (
            prop_oneof![Just("try"), Just("ask"), Just("new"), Just("TRY"), Just("")],
            "[a-i][0-9][a-i][0-9][qrbnk]?",
            prop_oneof![Just("any"), Just("rebuffs"), Just("none")],
            prop_oneof![Just("rand"), Just("berkeley-any"), Just("russian"), Just("nope"), Just("wild16")],
        )
            .prop_map(|(cmd, mv, what, rules)| {
                format!(r#"{{"cmd":"{cmd}","move":"{mv}","what":"{what}","rules":"{rules}","options":{{"ladder":1}}}}"#)
                    .into_bytes()
            }),
        "[a-h][1-8][a-h][1-8]".prop_map(|m| format!(r#"{{"cmd":"try","move":"{m}"}}"#).into_bytes()),
    ]
}

#[test]
fn verdict_values_follow_the_protocol_shape() {
    let mut referee = Referee::new(&GameConfig {
        rules: RuleSet::Wild16,
        ..GameConfig::default()
    })
    .unwrap();
    let w = Wording::new(
        RuleSet::Wild16,
        Options::default(),
        kriegspiel_referee::Lang::En,
    );
    let v = verdict_value(
        &w,
        &referee.try_move(Try::from_uci("e2e5").unwrap()).unwrap(),
    );
    assert_eq!(v["answer"], "illegal");
    assert_eq!(v["heard_by"], "mover");
    assert_eq!(v["text"], "Illegal move.");
}
