//! The shipped games build, cover every feature, and replay; bad definitions are refused.

use std::collections::BTreeMap;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Chess, Color, Position};
use kriegspiel_referee::RuleSet;
use serde_json::json;

use crate::*;

fn def(rules: &str, fen: Option<&str>, plies: &[&[&str]]) -> GameDef {
    GameDef {
        name: "t".into(),
        rules: rules.into(),
        options: BTreeMap::new(),
        fen: fen.map(str::to_owned),
        lang: None,
        plies: plies
            .iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect(),
    }
}

#[test]
fn every_definition_ships_with_the_program() {
    let shipped: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
    assert_eq!(all_names().unwrap(), shipped);
    for (name, _) in BUILTIN {
        let game = builtin(name, Timing::default()).unwrap();
        assert_eq!(game.rules.id(), name);
        // Keypad commands come before the ply's first switch change.
        for c in &game.commands {
            assert!(c.at_ms >= Timing::default().start_ms, "{name}: {c:?}");
        }
    }
    assert!(builtin("chess", Timing::default())
        .unwrap_err()
        .to_string()
        .contains("known: berkeley, berkeley-any, cincinnati"));
}

#[test]
fn every_game_builds_and_covers_every_feature() {
    let names = all_names().unwrap();
    for rules in RuleSet::ALL {
        assert!(names.iter().any(|n| n == rules.id()), "no game for {rules}");
    }
    for name in names {
        let g = load(&name, Timing::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = g.coverage;
        assert!(
            g.def.plies.len() >= 60,
            "{name}: {} plies",
            g.def.plies.len()
        );
        if g.rules != RuleSet::Russian {
            assert!(c.castlings >= 1, "{name}: no castling");
        }
        assert!(
            c.promotions_chosen >= 1,
            "{name}: no promotion to a chosen piece"
        );
        assert!(
            c.promotions_default >= 1,
            "{name}: no promotion without a choice"
        );
        assert!(c.en_passant >= 1, "{name}: no en passant");
        assert!(c.captures >= 4, "{name}: {c:?}");
        assert!(c.checks >= 3, "{name}: {c:?}");
        assert!(c.illegal >= 2, "{name}: {c:?}");
        if g.rules.distinguishes_impossible() {
            assert!(c.impossible >= 2, "{name}: {c:?}");
        }
        if g.rules.has_any_question() || g.rules == RuleSet::Rand {
            assert!(c.questions >= 2, "{name}: {c:?}");
        }
        assert!(g.expected.last().unwrap()["end"]["reason"].is_string());
    }
}

#[test]
fn scripts_replay_to_the_final_position() {
    let g = load("cincinnati", Timing::default()).unwrap();
    let pos: Chess = g
        .final_fen
        .parse::<Fen>()
        .unwrap()
        .into_position(kriegspiel_referee::shakmaty::CastlingMode::Standard)
        .unwrap();
    for color in [Color::White, Color::Black] {
        let s = g.script(color);
        let mut occ = s.initial;
        for (_, a, sq) in &s.actions {
            match a {
                Action::Lift => occ.discard(*sq),
                Action::Place => occ.add(*sq),
            }
        }
        let mine = pos.board().by_color(color);
        // The loser of the last ply may still owe the removal of a captured man.
        assert!((occ ^ mine).count() <= 1, "{color:?}");
        assert!(s.actions.windows(2).all(|w| w[0].0 < w[1].0));
    }
    let text = g.white.render();
    assert!(text.starts_with("occupied a1 b1 c1 d1 e1 f1 g1 h1 a2"));
    assert!(text.lines().nth(1).unwrap().ends_with("lift e2") || text.lines().count() > 2);
}

#[test]
fn expected_answers_come_from_the_referee() {
    // Fool's mate with a refused try and a refused promotion-less detail.
    let g = build(
        def(
            "cincinnati",
            None,
            &[&["f2f3"], &["e7e5"], &["c1b3?", "g2g4"], &["d8h4"]],
        ),
        Timing::default(),
    )
    .unwrap();
    let answers: Vec<&str> = g
        .expected
        .iter()
        .map(|v| v["answer"].as_str().unwrap())
        .collect();
    assert_eq!(
        answers,
        ["new", "moved", "moved", "impossible", "moved", "moved"]
    );
    assert_eq!(g.expected[3]["try"], "c1b3");
    assert_eq!(g.expected[3]["color"], "white");
    assert_eq!(g.expected[5]["end"]["reason"], "checkmate");
    assert_eq!(g.expected[5]["checks"], json!(["short"]));
    // The refused bishop goes back to c1 before the g-pawn moves.
    let w: Vec<_> = g
        .white
        .actions
        .iter()
        .map(|(_, a, s)| (*a, s.to_string()))
        .collect();
    let refused_at = w
        .iter()
        .position(|x| x == &(Action::Place, "b3".to_owned()))
        .unwrap();
    assert_eq!(w[refused_at + 1], (Action::Lift, "b3".to_owned()));
    assert_eq!(w[refused_at + 2], (Action::Place, "c1".to_owned()));
    assert_eq!(
        g.final_fen,
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );
}

#[test]
fn bad_definitions_are_refused_with_the_ply() {
    let t = Timing::default();
    let e = build(def("cincinnati", None, &[&["e2e5"]]), t).unwrap_err();
    assert_eq!(e.ply, Some(0));
    assert!(e.message.contains("refused"), "{e}");
    let e = build(def("cincinnati", None, &[&["e2e4?"]]), t).unwrap_err();
    assert!(e.message.contains("must end with a legal try"), "{e}");
    let e = build(def("cincinnati", None, &[&["e2e3?", "e2e4"]]), t).unwrap_err();
    assert!(e.message.contains("legal but marked"), "{e}");
    let e = build(def("cincinnati", None, &[&["e3e4"]]), t).unwrap_err();
    assert!(e.message.contains("no man"), "{e}");
    let e = build(def("cincinnati", None, &[&["e1e2?"]]), t).unwrap_err();
    assert!(e.message.contains("legal try"), "{e}");
    let e = build(def("cincinnati", None, &[&["d1e1?", "e2e4"]]), t).unwrap_err();
    assert!(e.message.contains("occupied square e1"), "{e}");
    let e = build(def("cincinnati", None, &[&["e2e4"]]), t).unwrap_err();
    assert!(e.message.contains("does not end"), "{e}");
    let e = build(def("nope", None, &[&["e2e4"]]), t).unwrap_err();
    assert_eq!(e.ply, None);
    let e = build(def("cincinnati", None, &[&["a7a8q"]]), t).unwrap_err();
    assert!(e.message.contains("promote:X"), "{e}");
}

#[test]
fn castling_promotion_and_en_passant_handling() {
    // White castles (rook after the verdict), takes en passant (Black removes d5),
    // promotes to a chosen knight (pawn swapped after the verdict) and mates on f8.
    let g = build(
        def(
            "cincinnati",
            Some("k7/pp1p2P1/8/4P3/8/8/8/4K2R w K - 0 1"),
            &[
                &["e1g1"],
                &["d7d5"],
                &["e5d6"],
                &["a8b8"],
                &["promote:n", "g7g8"],
                &["b8a8"],
                &["f1f8"],
            ],
        ),
        Timing::default(),
    );
    let g = match g {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let w: Vec<_> = g
        .white
        .actions
        .iter()
        .map(|(_, a, s)| (*a, s.to_string()))
        .collect();
    let pos = |a: Action, s: &str| w.iter().position(|x| x == &(a, s.to_owned())).unwrap();
    assert!(pos(Action::Place, "g1") < pos(Action::Lift, "h1"));
    let rook_placed = w
        .iter()
        .rposition(|x| *x == (Action::Place, "f1".to_owned()))
        .unwrap();
    assert!(pos(Action::Lift, "h1") < rook_placed);
    let b: Vec<_> = g
        .black
        .actions
        .iter()
        .map(|(_, a, s)| (*a, s.to_string()))
        .collect();
    // d5 is lifted twice: the double step, then the removal after e.p.
    assert_eq!(
        b.iter()
            .filter(|x| **x == (Action::Lift, "d5".to_owned()))
            .count(),
        1
    );
    assert_eq!(g.coverage.en_passant, 1);
    assert_eq!(g.coverage.castlings, 1);
    assert_eq!(g.coverage.promotions_chosen, 1);
    assert_eq!(g.commands.len(), 1);
    assert_eq!(g.commands[0].line, json!({"color":"white","promote":"n"}));
    assert_eq!(g.commands[0].after_answers, 5);
    assert_eq!(g.final_fen, "k4RN1/pp6/3P4/8/8/8/8/6K1 b - - 2 4");
}
