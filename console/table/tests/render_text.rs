#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `render::text` gives exactly the words of an output's JSON line, so that no front end
//! has to render JSON to read its `"text"` back. Random games under every rule set and
//! language reach every kind of output: reports, refusals, replies, private and arbiter
//! messages, public messages, notes and repeats.

use kriegspiel_referee::shakmaty::{Color, Position, Role, Square};
use kriegspiel_referee::{GameConfig, Lang, Question, RuleSet, Try};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{ArbiterAction, Event, Input, Output, Table, TableConfig};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn table(rules: RuleSet, lang: Lang) -> (Table, Vec<Output>) {
    let mut config = TableConfig::new(GameConfig {
        rules,
        options: Default::default(),
        fen: None,
    });
    config.lang = lang;
    config.without_board = kriegspiel_referee::shakmaty::ByColor {
        white: true,
        black: true,
    };
    Table::new(config, 0).unwrap()
}

/// Plays a random game and hands back every output it caused.
fn random_game(rules: RuleSet, lang: Lang, seed: u64) -> (Table, Vec<Output>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut t, mut all) = table(rules, lang);
    let mut at = 0;
    let mut apply = |t: &mut Table, input: Input, all: &mut Vec<Output>| {
        at += 100;
        all.extend(t.apply(Event::new(at, input)));
    };
    for _ in 0..60 {
        if t.referee().end().is_some() {
            break;
        }
        let color = t.referee().turn();
        for _ in 0..rng.gen_range(0..4) {
            let from = Square::new(rng.gen_range(0..64));
            let to = Square::new(rng.gen_range(0..64));
            apply(
                &mut t,
                Input::Play {
                    color,
                    tried: Try::new(from, to),
                },
                &mut all,
            );
        }
        if rng.gen_bool(0.3) {
            let question = Question::ALL[rng.gen_range(0..2)];
            apply(&mut t, Input::Ask { color, question }, &mut all);
        }
        if rng.gen_bool(0.1) {
            apply(
                &mut t,
                Input::Promote {
                    color,
                    role: Role::Knight,
                },
                &mut all,
            );
        }
        if rng.gen_bool(0.05) {
            apply(&mut t, Input::Arbiter(ArbiterAction::Repeat), &mut all);
        }
        let legal = t.referee().position().legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = &legal[rng.gen_range(0..legal.len())];
        let (Some(from), to) = (m.from(), m.to()) else {
            break;
        };
        let tried = Try {
            from,
            to,
            promotion: m.promotion(),
        };
        apply(&mut t, Input::Play { color, tried }, &mut all);
    }
    for input in [
        Input::Arbiter(ArbiterAction::Pause),
        Input::Arbiter(ArbiterAction::Resume),
        Input::Arbiter(ArbiterAction::TakeBack),
        Input::Arbiter(ArbiterAction::Repeat),
        Input::Draw {
            color: Color::White,
        },
        Input::Resign {
            color: Color::Black,
        },
        Input::Play {
            color: Color::White,
            tried: Try::new(Square::E2, Square::E4),
        },
    ] {
        apply(&mut t, input, &mut all);
    }
    (t, all)
}

#[test]
fn text_is_the_json_lines_text_for_every_output() {
    let mut kinds = std::collections::HashSet::new();
    for rules in RuleSet::ALL {
        for lang in [Lang::En, Lang::Fr, Lang::Ru] {
            for seed in 0..3 {
                let (t, outputs) = random_game(rules, lang, seed);
                let w = t.wording();
                for o in &outputs {
                    let json = render::json(&w, lang, o);
                    let expected = json.get("text").and_then(|v| v.as_str()).map(str::to_owned);
                    assert_eq!(render::text(&w, lang, o), expected, "{o:?} as {json}");
                    kinds.insert(std::mem::discriminant(o));
                }
            }
        }
    }
    // Started, Verdict, Reply, Private or Arbiter, Public, Note, Clock or Repeated.
    assert!(
        kinds.len() >= 6,
        "only {} kinds of output reached",
        kinds.len()
    );
}

#[test]
fn a_hearer_hears_what_is_meant_for_him() {
    assert!(Hearer::Both.hears(Color::White) && Hearer::Both.hears(Color::Black));
    assert!(Hearer::Player(Color::Black).hears(Color::Black));
    assert!(!Hearer::Player(Color::Black).hears(Color::White));
}
