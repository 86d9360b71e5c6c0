//! Wording in three languages for every rule set, and the Russian set-up rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_referee::shakmaty::{Color, Position, Square};
use kriegspiel_referee::{
    Announcement, Audience, Error, GameConfig, Lang, Notation, Options, Question, Referee, RuleSet,
    SetupError, Try, TrySquares, Verdict, Wording,
};

fn play(
    rules: RuleSet,
    options: Options,
    fen: Option<&str>,
    tries: &[&str],
) -> (Referee, Vec<Announcement>) {
    let mut r = Referee::new(&GameConfig {
        rules,
        options,
        fen: fen.map(str::to_owned),
    })
    .unwrap();
    let mut said = vec![Announcement::Report(*r.last_report())];
    for t in tries {
        let a = match *t {
            "any" => Announcement::Reply(r.ask(Question::Any).unwrap()),
            "rebuffs" => Announcement::Reply(r.ask(Question::Rebuffs).unwrap()),
            uci => r.try_move(Try::from_uci(uci).unwrap()).unwrap().into(),
        };
        said.push(a);
    }
    (r, said)
}

fn texts(
    rules: RuleSet,
    options: Options,
    fen: Option<&str>,
    tries: &[&str],
    lang: Lang,
) -> Vec<String> {
    let (_, said) = play(rules, options, fen, tries);
    let w = Wording::new(rules, options, lang);
    said.iter().map(|a| w.text(a)).collect()
}

/// A game touching every kind of announcement: refusals, captures, checks, pawn tries.
const GAME: &[&str] = &[
    "e2e4", "d7d5", "e1e3", "e4d5", "d8d5", "any", "rebuffs", "g1f3", "d5e4", "f1e2", "e4e2",
];

#[test]
fn every_rule_set_speaks_every_language_differently() {
    for rules in RuleSet::ALL.into_iter().filter(|r| *r != RuleSet::Russian) {
        let en = texts(rules, Options::default(), None, GAME, Lang::En);
        let fr = texts(rules, Options::default(), None, GAME, Lang::Fr);
        let ru = texts(rules, Options::default(), None, GAME, Lang::Ru);
        for i in 0..en.len() {
            assert!(
                !en[i].is_empty() && !fr[i].is_empty() && !ru[i].is_empty(),
                "{rules} #{i}"
            );
            assert_ne!(en[i], ru[i], "{rules} #{i}: {}", en[i]);
            assert!(
                ru[i]
                    .chars()
                    .any(|c| ('а'..='я').contains(&c) || ('А'..='Я').contains(&c)),
                "{rules} #{i}: {}",
                ru[i]
            );
        }
    }
}

#[test]
fn english_wording_follows_the_rules_table() {
    let t = texts(
        RuleSet::Cincinnati,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e1e3", "e4d5"],
        Lang::En,
    );
    assert_eq!(t[1], "White has moved.");
    assert_eq!(t[2], "Black has moved. Pawn capture.");
    assert_eq!(t[3], "Nonsense.");
    assert_eq!(t[4], "White has moved. Pawn captured on d5.");
    let t = texts(
        RuleSet::Traditional,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e1e3", "e4d5"],
        Lang::En,
    );
    assert_eq!(t[2], "Black has moved. Pawn tries on d5.");
    assert_eq!(t[3], "Hell no.");
    assert_eq!(t[4], "White has moved. Pawn gone, d5.");
    let t = texts(
        RuleSet::Wild16,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e4d5"],
        Lang::En,
    );
    assert_eq!(t[2], "White's move. 1 pawn try.");
    assert_eq!(t[3], "Black's move. Pawn at d5 captured.");
    let t = texts(
        RuleSet::Berkeley,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e4d5"],
        Lang::En,
    );
    assert_eq!(t[3], "Yes. Capture at d5.");
    let t = texts(
        RuleSet::Rand,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e4d5", "rebuffs"],
        Lang::En,
    );
    assert_eq!(t[2], "White. Pawn tries on d5.");
    assert_eq!(t[3], "Black. Pawn captured on d5.");
    assert_eq!(t[4], "White had 0 rebuffs.");
    let t = texts(
        RuleSet::BerkeleyAny,
        Options::default(),
        None,
        &["e2e4", "d7d5", "any"],
        Lang::En,
    );
    assert_eq!(t[3], "Has pawn captures.");
}

#[test]
fn french_and_russian_use_the_traditional_terms() {
    let t = texts(
        RuleSet::Traditional,
        Options::default(),
        None,
        &["e2e4", "d7d5", "e1e3", "e4d5"],
        Lang::Fr,
    );
    assert_eq!(t[3], "Jamais de la vie.");
    assert_eq!(t[4], "Les blancs ont joué. Pion parti, d5.");
    let t = texts(
        RuleSet::Cincinnati,
        Options::default(),
        Some("4k3/8/8/8/8/8/8/4K2R w - - 0 1"),
        &["h1h8"],
        Lang::Fr,
    );
    assert_eq!(t[1], "Les blancs ont joué. Échec sur la rangée.");
    let russian = Some("rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PNP1P2/P1P1PNPP/RBBQK2R w - - 0 1");
    let t = texts(
        RuleSet::Russian,
        Options::default(),
        russian,
        &["d3d4", "e6e5", "d4e5", "any"],
        Lang::Ru,
    );
    assert_eq!(t[1], "Белые сделали ход.");
    assert_eq!(t[3], "Белые сделали ход. Белые бьют на поле e5.");
    assert_eq!(t[4], "Нет.");
    let t = texts(
        RuleSet::Russian,
        Options::default(),
        russian,
        &["e1g1"],
        Lang::Ru,
    );
    assert_eq!(t[1], "Ход невозможен.");
    let t = texts(
        RuleSet::Russian,
        Options::default(),
        Some("rnb1kbnr/pp1pppp1/1qp4p/8/8/1P1PKP2/P1P1PNPP/RBBQ1N1R w - - 0 1"),
        &[],
        Lang::Ru,
    );
    assert!(t[0].contains("Шах по большой диагонали."), "{}", t[0]);
}

#[test]
fn rand_descriptive_notation_is_relative_to_the_listener() {
    let options = Options {
        notation: Notation::Descriptive,
        ..Options::default()
    };
    let t = texts(
        RuleSet::Rand,
        options,
        None,
        &["e2e4", "d7d5", "e4d5"],
        Lang::En,
    );
    // White hears his pawn tries on "queen five"; the capture on d5 is said to White as mover.
    assert_eq!(t[2], "White. Pawn tries on queen five.");
    assert_eq!(t[3], "Black. Pawn captured on queen five.");
    let t = texts(
        RuleSet::Rand,
        options,
        None,
        &["e2e4", "d7d5", "g1f3", "d5e4"],
        Lang::En,
    );
    // Black's pawn tries on e4 are named from Black's side: king five.
    assert_eq!(t[3], "Black. Pawn tries on king five.");
    assert_eq!(t[4], "White. Pawn captured on king five.");
    let w = Wording::new(RuleSet::Rand, options, Lang::En);
    assert_eq!(w.square(Square::F8, Color::White), "king's bishop eight");
    assert_eq!(w.square(Square::F8, Color::Black), "king's bishop one");
    let source = Options {
        try_squares: TrySquares::Source,
        ..Options::default()
    };
    let t = texts(RuleSet::Rand, source, None, &["e2e4", "d7d5"], Lang::En);
    assert_eq!(t[2], "White. Pawn tries from e4.");
}

#[test]
fn audiences_follow_the_rule_sets() {
    let (_, said) = play(RuleSet::Wild16, Options::default(), None, &["e2e5"]);
    assert_eq!(said[1].audience(), Audience::Mover(Color::White));
    let (_, said) = play(
        RuleSet::Cincinnati,
        Options::default(),
        None,
        &["e2e5", "e2e4"],
    );
    assert_eq!(said[1].audience(), Audience::Both);
    assert_eq!(said[2].audience(), Audience::Both);
}

fn russian(fen: &str) -> Result<Referee, Error> {
    Referee::new(&GameConfig {
        rules: RuleSet::Russian,
        options: Options::default(),
        fen: Some(fen.to_owned()),
    })
}

#[test]
fn russian_set_up_errors_name_the_rule_and_squares() {
    let cases: &[(&str, SetupError, &str)] = &[
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PPP1P2/P1P1NNPP/RBBQK2R w - - 0 1",
            SetupError::PawnFile {
                color: Color::White,
                squares: [Square::C2, Square::C3],
            },
            "c2 and c3",
        ),
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PNP1P2/P1P1PNPP/RB1QKB1R w - - 0 1",
            SetupError::BishopColours {
                color: Color::White,
                squares: [Square::B1, Square::F1],
            },
            "b1 and f1",
        ),
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/4P3/1PNP1P2/P1P2NPP/RBBQK2R w - - 0 1",
            SetupError::PawnRank {
                color: Color::White,
                square: Square::E4,
            },
            "e4",
        ),
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/2N5/1P1P1P2/P1P1PNPP/RBBQK2R w - - 0 1",
            SetupError::PieceRank {
                color: Color::White,
                square: Square::C4,
            },
            "c4",
        ),
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1P1P1P2/P1P1PNPP/RBBQK2R w - - 0 1",
            SetupError::WrongMen {
                color: Color::White,
                role: kriegspiel_referee::shakmaty::Role::Knight,
                expected: 2,
                found: 1,
            },
            "Knight",
        ),
        (
            "rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PNP1P2/P1P1PNPP/RBBQK2R b - - 0 1",
            SetupError::BlackToMove,
            "White moves first",
        ),
        (
            "rnbq1bnr/pppppppp/7k/8/8/3P4/PPP1PPPP/RNBQKBNR w - - 0 1",
            SetupError::Incompatible,
            "both players set up again",
        ),
    ];
    for (fen, expected, words) in cases {
        match russian(fen) {
            Err(Error::BadSetup(e)) => {
                assert_eq!(&e, expected, "{fen}");
                assert!(e.to_string().contains(words), "{e}");
            }
            other => panic!("{fen}: {other:?}"),
        }
    }
}

#[test]
fn russian_ignores_castling_rights_and_white_may_start_in_check() {
    let mut r = russian("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
    assert!(r.position().castles().is_empty());
    let v = r.try_move(Try::from_uci("e1g1").unwrap()).unwrap();
    assert!(matches!(v, Verdict::Refused(_)));
    let r = russian("rnb1kbnr/pp1pppp1/1qp4p/8/8/1P1PKP2/P1P1PNPP/RBBQ1N1R w - - 0 1").unwrap();
    assert_eq!(r.last_report().checks.len(), 1);
}

#[test]
fn options_are_checked_against_their_rule_set() {
    let mut o = Options::default();
    assert!(matches!(
        o.set_pair(RuleSet::Cincinnati, "ladder=true"),
        Err(Error::BadOption(_))
    ));
    assert!(matches!(
        o.set_pair(RuleSet::Rand, "ladder=yes"),
        Err(Error::BadOption(_))
    ));
    assert!(matches!(
        o.set_pair(RuleSet::Rand, "colour=blue"),
        Err(Error::BadOption(_))
    ));
    assert!(matches!(
        o.set_pair(RuleSet::Rand, "notation"),
        Err(Error::BadOption(_))
    ));
    assert_eq!(
        o,
        Options::default(),
        "a failed option leaves the options unchanged"
    );
    o.set_pair(RuleSet::Rand, "rand-try-squares=source")
        .unwrap();
    o.set_pair(RuleSet::Rand, "notation=descriptive").unwrap();
    o.set_pair(RuleSet::Rand, "ladder=true").unwrap();
    assert!(o.ladder && o.try_squares == TrySquares::Source && o.notation == Notation::Descriptive);
    let mut c = Options::default();
    c.set_pair(RuleSet::Cincinnati, "strict=true").unwrap();
    assert!(c.strict);
}

#[test]
fn a_fen_clock_of_100_is_already_over_except_in_berkeley() {
    for (rules, over) in [(RuleSet::Cincinnati, true), (RuleSet::Berkeley, false)] {
        let r = Referee::new(&GameConfig {
            rules,
            options: Options::default(),
            fen: Some("k7/8/8/8/8/8/8/K6R w - - 100 80".to_owned()),
        })
        .unwrap();
        assert_eq!(r.end().is_some(), over, "{rules}");
    }
}

#[test]
fn russian_speech_names_files_by_cyrillic_letters() {
    let russian = Some("rnbqkbnr/pp1p1pp1/2p1p2p/8/8/1PNP1P2/P1P1PNPP/RBBQK2R w - - 0 1");
    let (_, said) = play(
        RuleSet::Russian,
        Options::default(),
        russian,
        &["d3d4", "e6e5", "d4e5"],
    );
    let ru = Wording::new(RuleSet::Russian, Options::default(), Lang::Ru);
    assert_eq!(
        ru.text(&said[3]),
        "Белые сделали ход. Белые бьют на поле e5."
    );
    assert_eq!(
        ru.speech(&said[3]),
        "Белые сделали ход. Белые бьют на поле е 5."
    );
    let en = Wording::new(RuleSet::Russian, Options::default(), Lang::En);
    assert_eq!(en.speech(&said[3]), en.text(&said[3]));
    let (_, said) = play(
        RuleSet::Traditional,
        Options::default(),
        None,
        &["e2e4", "d7d5", "g2g4", "h7h5"],
    );
    let ru = Wording::new(RuleSet::Traditional, Options::default(), Lang::Ru);
    assert_eq!(
        ru.speech(&said[4]),
        "Чёрные сделали ход. Взятия пешкой на полях дэ 5, аш 5."
    );
}
