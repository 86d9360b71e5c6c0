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

/// Found by the property below in CI (seed 1098998422930817782): Black's pawn on g2 takes on
/// f1, said without a piece. That is the queen's promotion, a move in every rule set, not a
/// non-move to refuse.
#[test]
fn a_promotion_try_without_its_piece_is_the_queens() {
    let game = random_game(1098998422930817782, 60);
    let (pos, _) = game.last().unwrap();
    let t = Try::new(Square::G2, Square::F1);
    assert!(pos
        .legal_moves()
        .iter()
        .any(|m| m.from() == Some(t.from) && m.to() == t.to));
    for rules in [
        RuleSet::Cincinnati,
        RuleSet::Traditional,
        RuleSet::Rand,
        RuleSet::Berkeley,
    ] {
        let mut referee = referee_at(rules, pos);
        let Verdict::Moved(report) = referee.try_move(t).unwrap() else {
            panic!("{rules:?}: g2f1 refused");
        };
        assert_eq!(
            report.played.unwrap().promotion,
            Some(Role::Queen),
            "{rules:?}"
        );
    }
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
                // A try names no promotion piece: onto the last rank it is a queen's, a move.
                if pos.legal_moves().iter().any(|m| {
                    let legal = Try::from_move(m).unwrap();
                    (legal.from, legal.to) == (t.from, t.to)
                }) {
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

proptest! {
    // Most cases are effective (a legal position, the e.p. capture illegal); each checks
    // every try of the side to move under every rule set and option.
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    /// No en-passant leak under any rule set and option (docs/RULES.md §3.5): in positions
    /// where the opponent's pawn has just double-stepped beside one of ours and the
    /// en-passant capture itself is illegal, every try gets the same answer with and
    /// without the e.p. right. The positions are built around the leak: often the pawn
    /// gives check, often the capturing pawn is pinned on its file.
    #[test]
    fn en_passant_right_never_changes_an_answer(
        ep_file in 0u32..8,
        towards_h in any::<bool>(),
        king_at in 0u32..4,
        king_square in 0u32..64,
        pinner in proptest::option::weighted(0.85, (5u32..8, any::<bool>())),
        extra in proptest::collection::vec((0u32..64, 0usize..10), 0..6),
        enemy_king in 0u32..64,
        defender in any::<bool>(),
        black in any::<bool>(),
    ) {
        let shape = EpShape { ep_file, towards_h, king_at, king_square, pinner, defender, black };
        let Some((with, without)) = ep_pair(shape, &extra, enemy_king) else {
            return Ok(());
        };
        if !with.en_passant_moves().is_empty() {
            return Ok(());
        }
        for (rules, options) in all_rule_sets_and_options() {
            let a = Referee::from_position(rules, options, with.clone());
            let b = Referee::from_position(rules, options, without.clone());
            prop_assert_eq!(a.last_report(), b.last_report());
            if a.end().is_some() {
                continue;
            }
            for from in with.us() {
                for to in Square::ALL {
                    let t = Try::new(from, to);
                    let va = a.clone().try_move(t).unwrap();
                    let vb = b.clone().try_move(t).unwrap();
                    prop_assert_eq!(va, vb, "{} {:?}: {} in {} vs {}", rules, options, t.to_uci(), fen_of(&with), fen_of(&without));
                }
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

/// Every rule set with every option that could change a refusal.
fn all_rule_sets_and_options() -> Vec<(RuleSet, Options)> {
    let mut out = Vec::new();
    for rules in RuleSet::ALL {
        out.push((rules, Options::default()));
    }
    out.push((
        RuleSet::Cincinnati,
        Options {
            strict: true,
            ..Options::default()
        },
    ));
    out.push((
        RuleSet::Rand,
        Options {
            try_squares: kriegspiel_referee::TrySquares::Source,
            ..Options::default()
        },
    ));
    out.push((
        RuleSet::Rand,
        Options {
            ladder: true,
            ..Options::default()
        },
    ));
    out
}

/// How [`ep_pair`] builds its position.
#[derive(Debug, Clone, Copy)]
struct EpShape {
    /// The file of the pawn that has just double-stepped.
    ep_file: u32,
    /// Whether the capturing pawn stands towards the h-file of it (else the a-file).
    towards_h: bool,
    /// 0, 1: the king behind the capturing pawn (checked by the pawn); 2: on the other
    /// square the pawn checks; 3: on `king_square`.
    king_at: u32,
    king_square: u32,
    /// A rook (false) or queen (true) on the capturing pawn's file, on this rank (0-based).
    pinner: Option<(u32, bool)>,
    /// A second pawn that could take the double-stepped one (so a pawn capture is announced).
    defender: bool,
    /// Mirror the position: Black to move.
    black: bool,
}

/// A position (White to move, mirrored for Black) where a black pawn has just
/// double-stepped beside a white pawn on the fifth rank, with and without the e.p. right;
/// `None` when the pieces do not make a legal position.
fn ep_pair(shape: EpShape, extra: &[(u32, usize)], enemy_king: u32) -> Option<(Chess, Chess)> {
    let EpShape {
        ep_file,
        towards_h,
        king_at,
        king_square,
        pinner,
        defender,
        black,
    } = shape;
    use kriegspiel_referee::shakmaty::{Board, Piece, Setup};
    let sq = |f: i32, r: i32| -> Option<Square> {
        ((0..8).contains(&f) && (0..8).contains(&r))
            .then(|| Square::from_coords(File::new(f as u32), Rank::new(r as u32)))
    };
    let f = ep_file as i32;
    let ours = if towards_h { f - 1 } else { f + 1 };
    let our_pawn = sq(ours, 4)?;
    let their_pawn = sq(f, 4)?;
    let ep = sq(f, 5)?;
    let origin = sq(f, 6)?;
    let mut board = Board::empty();
    board.set_piece_at(
        their_pawn,
        Piece {
            color: Color::Black,
            role: Role::Pawn,
        },
    );
    board.set_piece_at(
        our_pawn,
        Piece {
            color: Color::White,
            role: Role::Pawn,
        },
    );
    // The king: checked by the pawn from either side, or anywhere.
    let king = match king_at {
        0 | 1 => sq(ours, 3)?,
        2 => sq(2 * f - ours, 3)?,
        _ => Square::new(king_square),
    };
    if board.piece_at(king).is_some() || king == ep || king == origin {
        return None;
    }
    board.set_piece_at(
        king,
        Piece {
            color: Color::White,
            role: Role::King,
        },
    );
    if let Some((rank, queen)) = pinner {
        let s = sq(ours, rank as i32)?;
        if s != ep && s != origin && board.piece_at(s).is_none() {
            let role = if queen { Role::Queen } else { Role::Rook };
            board.set_piece_at(
                s,
                Piece {
                    color: Color::Black,
                    role,
                },
            );
        }
    }
    if defender {
        if let Some(s) = sq(2 * f - ours, 3).filter(|s| board.piece_at(*s).is_none()) {
            board.set_piece_at(
                s,
                Piece {
                    color: Color::White,
                    role: Role::Pawn,
                },
            );
        }
    }
    let enemy_king = Square::new(enemy_king);
    if board.piece_at(enemy_king).is_some() || enemy_king == ep || enemy_king == origin {
        return None;
    }
    board.set_piece_at(
        enemy_king,
        Piece {
            color: Color::Black,
            role: Role::King,
        },
    );
    const MEN: [(Color, Role); 10] = [
        (Color::White, Role::Pawn),
        (Color::White, Role::Knight),
        (Color::White, Role::Bishop),
        (Color::White, Role::Rook),
        (Color::White, Role::Queen),
        (Color::Black, Role::Pawn),
        (Color::Black, Role::Knight),
        (Color::Black, Role::Bishop),
        (Color::Black, Role::Rook),
        (Color::Black, Role::Queen),
    ];
    for &(s, man) in extra {
        let s = Square::new(s);
        let (color, role) = MEN[man];
        let back_rank = s.rank() == Rank::First || s.rank() == Rank::Eighth;
        if board.piece_at(s).is_some()
            || s == ep
            || s == origin
            || (role == Role::Pawn && back_rank)
        {
            continue;
        }
        board.set_piece_at(s, Piece { color, role });
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = Color::White;
    setup.ep_square = Some(ep);
    setup.fullmoves = std::num::NonZeroU32::MIN.saturating_add(1);
    if black {
        setup.mirror();
    }
    let with: Chess = setup.clone().position(CastlingMode::Standard).ok()?;
    setup.ep_square = None;
    let without: Chess = setup.position(CastlingMode::Standard).ok()?;
    Some((with, without))
}
