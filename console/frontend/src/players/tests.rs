use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use super::handshake::{hello, Hello};
use super::limits::Bucket;
use super::typed::{man_on, my_men, typed, Typed};
use super::*;
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Role, Square};
use kriegspiel_referee::{Question, Try};
use kriegspiel_table::{Input, Output};

#[test]
fn typed_lines() {
    let w = Color::White;
    let t = |s: &str| Try::from_uci(s).unwrap();
    assert_eq!(
        typed("g1f3", w),
        Some(Typed::Try {
            tried: t("g1f3"),
            role: None
        })
    );
    assert_eq!(
        typed(" Ng1f3 ", w),
        Some(Typed::Try {
            tried: t("g1f3"),
            role: Some(Role::Knight)
        })
    );
    assert_eq!(
        typed("e7e8n", w),
        Some(Typed::Try {
            tried: t("e7e8n"),
            role: None
        })
    );
    assert_eq!(
        typed("Pe7e8q", w),
        Some(Typed::Try {
            tried: t("e7e8q"),
            role: Some(Role::Pawn)
        })
    );
    assert_eq!(
        typed("O-O", Color::Black),
        Some(Typed::Try {
            tried: t("e8g8"),
            role: Some(Role::King)
        })
    );
    assert_eq!(
        typed("0-0-0", w),
        Some(Typed::Try {
            tried: t("e1c1"),
            role: Some(Role::King)
        })
    );
    // Castling in words, as a player says it.
    for (line, color, uci) in [
        ("castle kingside", w, "e1g1"),
        ("Castles short", Color::Black, "e8g8"),
        ("castle queenside", w, "e1c1"),
        ("castle long", Color::Black, "e8c8"),
    ] {
        assert_eq!(
            typed(line, color),
            Some(Typed::Try {
                tried: t(uci),
                role: Some(Role::King)
            }),
            "{line}"
        );
    }
    for line in ["turn", "whose turn", "Whose move?"] {
        assert_eq!(typed(line, w), Some(Typed::Turn), "{line}");
    }
    assert_eq!(typed("My Men", w), Some(Typed::MyMen));
    assert_eq!(
        typed("promote knight", w),
        Some(Typed::Input(Input::Promote {
            color: w,
            role: Role::Knight
        }))
    );
    assert_eq!(
        typed("any", w),
        Some(Typed::Input(Input::Ask {
            color: w,
            question: Question::Any
        }))
    );
    for bad in [
        "",
        "g1",
        "xg1f3",
        "promote king",
        "e2e4 e7e5",
        "castle",
        "castle sideways",
        "Xe2e4",
    ] {
        assert_eq!(typed(bad, w), None, "{bad}");
    }
}

#[test]
fn my_men_lists_only_his_own() {
    let fen = "4k3/8/8/8/8/8/3P4/R3K2N w Q - 0 1";
    let board = &fen.parse::<Fen>().unwrap().into_setup().board;
    assert_eq!(
        my_men(board, Color::White, Lang::En),
        "king e1, rook a1, knight h1, pawn d2"
    );
    assert_eq!(my_men(board, Color::Black, Lang::Fr), "roi e8");
    assert_eq!(man_on(board, Color::White, Square::H1), Some(Role::Knight));
    assert_eq!(man_on(board, Color::Black, Square::H1), None);
}

#[test]
fn the_first_line_names_table_colour_code_and_voice() {
    let h = |table, color, code: Option<&str>, voice| Hello {
        table,
        color,
        code: code.map(str::to_owned),
        voice,
    };
    assert_eq!(
        hello("1 white 123456"),
        Some(h(1, Color::White, Some("123456"), false))
    );
    assert_eq!(
        hello("2 black 654321 voice"),
        Some(h(2, Color::Black, Some("654321"), true))
    );
    assert_eq!(hello("1 white"), Some(h(1, Color::White, None, false)));
    assert_eq!(hello("1 white voice"), Some(h(1, Color::White, None, true)));
    for bad in [
        "",
        "1",
        "x white 1",
        "1 green 1",
        "1 white 1 2 3",
        "1 white 1 loud",
    ] {
        assert_eq!(hello(bad), None, "{bad}");
    }
}

/// A terminal that does not read is cut off once its queue and the socket's buffer are
/// full, the arbiter is told, and its seat is free: nothing is held without end.
#[test]
fn a_terminal_that_does_not_read_is_cut_off_and_the_arbiter_told() {
    use kriegspiel_hall::{BoardSource, HallCommand, HallEvent, TableSetup, TableSpec, TimeMode};
    use kriegspiel_table::PrivateMessage;
    let dir = tempfile::tempdir().unwrap();
    let journal = kriegspiel_hall::Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let spec = TableSpec {
        name: "t".to_owned(),
        setup: TableSetup {
            white_without_board: true,
            black_without_board: true,
            ..TableSetup::default()
        },
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::New,
    };
    let hall = kriegspiel_hall::Hall::open(journal, vec![spec], TimeMode::Real).unwrap();
    let socket = dir.path().join("p.sock");
    let players = Players::open(&socket, hall.handle()).unwrap();
    let hall = hall.start(vec![players.subscriber()]).unwrap();
    let mut events = hall.events;
    let codes = loop {
        if let HallEvent::Opened { seats, .. } = events.blocking_recv().unwrap() {
            break seats;
        }
    };
    let mut s = UnixStream::connect(&socket).unwrap();
    writeln!(s, "1 white {}", codes.white).unwrap();
    let mut first = [0u8; 9];
    s.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"Connected");
    // Never read again.
    let not_your_turn = HallEvent::Output {
        table: 1,
        at: 0,
        output: Output::Private {
            color: Color::White,
            message: PrivateMessage::NotYourTurn,
        },
    };
    let mut sent = 0;
    while !players.seated().is_empty() && sent < 1_000_000 {
        players.observe(&not_your_turn);
        sent += 1;
    }
    assert!(
        players.seated().is_empty(),
        "still seated after {sent} messages"
    );
    let cut = loop {
        if let HallEvent::Seat(n) = events.blocking_recv().unwrap() {
            if matches!(n.change, SeatChange::CutOff { .. }) {
                break n;
            }
        }
    };
    assert_eq!((cut.table, cut.color), (1, Color::White));
    // His seat is free: he may come back.
    let mut again = UnixStream::connect(&socket).unwrap();
    writeln!(again, "1 white {}", codes.white).unwrap();
    let mut first = [0u8; 9];
    again.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"Connected");
    hall.handle.send(HallCommand::Shutdown).unwrap();
}

#[test]
fn a_bucket_allows_a_burst_then_a_steady_rate() {
    let t0 = Instant::now();
    let mut b = Bucket::new(3.0, 2.0, t0);
    assert!((0..3).all(|_| b.take(t0)));
    assert!(!b.take(t0));
    // Half a second gives one more at 2 a second.
    let later = t0 + Duration::from_millis(500);
    assert!(b.take(later));
    assert!(!b.take(later));
    // A long pause gives no more than the burst.
    let much_later = later + Duration::from_secs(60);
    assert_eq!((0..10).filter(|_| b.take(much_later)).count(), 3);
}

/// Help names only the questions the table's rules have: "any" answered "Illegal move"
/// where the rule set has no such question baffles a player who cannot see why.
#[test]
fn help_names_the_questions_of_the_tables_rules_only() {
    use super::words::{say, Said};
    use kriegspiel_referee::RuleSet;
    let help = |rules| say(Lang::En, Said::Help(Some(rules)));
    let wild16 = help(RuleSet::Wild16);
    assert!(
        !wild16.contains("any (") && !wild16.contains("rebuffs"),
        "{wild16}"
    );
    let berkeley = help(RuleSet::BerkeleyAny);
    assert!(
        berkeley.contains("any (are there pawn captures?)"),
        "{berkeley}"
    );
    assert!(!berkeley.contains("rebuffs"), "{berkeley}");
    let rand = help(RuleSet::Rand);
    assert!(
        rand.contains("rebuffs (") && !rand.contains("any ("),
        "{rand}"
    );
    for text in [&wild16, &berkeley, &rand] {
        for words in [
            "castle kingside",
            "draw (offer a draw, or accept the one offered)",
            "turn (whose move it is)",
            "resign (at once)",
        ] {
            assert!(text.contains(words), "{words}: {text}");
        }
    }
    for lang in [Lang::Fr, Lang::Ru] {
        let text = say(lang, Said::Help(Some(RuleSet::Wild16)));
        assert!(
            !text.contains("any (") && text.contains("castle kingside"),
            "{text}"
        );
    }
}
