use super::*;
use crate::lines::Lines;
use kriegspiel_boardlink::{DisconnectReason, LinkEvent};
use kriegspiel_games::Timing;
use kriegspiel_hall::{HallCommand, SeatChange, SeatNotice, TimeMode};
use kriegspiel_link::FaultCode;
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::RuleSet;
use kriegspiel_table::PrivateMessage;
use serde_json::Value;

/// The readable lines as the demo wrote them before they were typed: read back from the
/// JSON line of the event. Kept to check that the typed lines say the same.
fn describe(v: &Value) -> Option<String> {
    let text = v["text"].as_str().unwrap_or_default();
    let color = v["color"].as_str().unwrap_or("");
    if let Some(answer) = v["answer"].as_str() {
        let audience = if v["heard_by"] == "mover" {
            format!(
                "  (to {} only)",
                if color.is_empty() { "the mover" } else { color }
            )
        } else {
            String::new()
        };
        return Some(match (answer, v["try"].as_str(), v["ask"].as_str()) {
            ("new", _, _) => format!("REFEREE      {text}"),
            (_, Some(t), _) => format!("{color:<5} tries {t:<6} {text}{audience}"),
            (_, _, Some(q)) => format!("{color:<5} asks {q:<7} {text}"),
            _ => format!("REFEREE      {text}"),
        });
    }
    if let Some(c) = v["private"].as_str() {
        return Some(format!("  (to {c} only: {text})"));
    }
    if v.get("public").is_some() {
        return Some(format!("TABLE        {text}"));
    }
    if v.get("note").is_some() || v.get("arbiter").is_some() {
        return Some(format!("  [arbiter: {text}]"));
    }
    if let Some(c) = v["link"].as_str() {
        return Some(format!(
            "  [{c} board {}]",
            v["event"].as_str().unwrap_or("")
        ));
    }
    if let Some(name) = v["opened"].as_str() {
        return Some(match v["resumed_events"].as_u64() {
            Some(n) => format!("  [table {name}: resuming the unfinished game after {n} events]"),
            None => format!("  [table {name}: a new game]"),
        });
    }
    if let Some(clock) = v.get("clock") {
        let ms = |c: &str| clock[c].as_u64().map(kriegspiel_table::clock::hms);
        return Some(format!(
            "  [clocks: white {}, black {}]",
            ms("white").unwrap_or_default(),
            ms("black").unwrap_or_default()
        ));
    }
    if let Some(fen) = v["final_fen"].as_str() {
        return Some(format!(
            "RESULT       {}\nFINAL POSITION {fen}",
            v["result"].as_str().unwrap_or("*")
        ));
    }
    v.get("error").map(|e| format!("ERROR        {e}"))
}

/// Reads `events` both ways and checks they agree; the lines read.
fn compare(events: &[HallEvent]) -> Vec<String> {
    let mut lines = Lines::new(false);
    let mut readable = Readable::new();
    let mut said = Vec::new();
    for e in events {
        let old = lines.line(e).and_then(|v| describe(&v));
        let new = readable.line(e);
        assert_eq!(new, old, "{e:?}");
        said.extend(new);
    }
    said
}

/// Every event of a whole demo game at `rules` in `lang`, on simulated time.
fn demo_game(rules: RuleSet, lang: &str) -> Vec<HallEvent> {
    let dir = tempfile::tempdir().unwrap();
    let journal = kriegspiel_hall::Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let game = kriegspiel_games::builtin(rules.id(), Timing::HUMAN).unwrap();
    let mut spec = game.table_spec(&format!("demo-{}", rules.id()), &Timing::HUMAN);
    lang.clone_into(&mut spec.setup.lang);
    let hall =
        kriegspiel_hall::start(journal, vec![spec], TimeMode::Simulated, Vec::new()).unwrap();
    let mut events = hall.events;
    let mut all = Vec::new();
    while let Ok(e) = events.blocking_recv() {
        let last = matches!(e, HallEvent::Ended { .. } | HallEvent::Failed { .. });
        all.push(e);
        if last {
            break;
        }
    }
    let _ = hall.handle.send(HallCommand::Shutdown);
    let _ = hall.thread.join();
    all
}

#[test]
fn every_demo_game_reads_as_its_json_lines_did() {
    let langs = ["en", "fr", "ru"];
    let games: Vec<_> = RuleSet::ALL
        .into_iter()
        .enumerate()
        .map(|(i, rules)| std::thread::spawn(move || (rules, demo_game(rules, langs[i % 3]))))
        .collect();
    for game in games {
        let (rules, events) = game.join().unwrap();
        let said = compare(&events);
        assert!(said.len() > 20, "{rules:?}: {said:?}");
        assert!(said.iter().any(|l| l.contains(" tries ")), "{rules:?}");
        assert!(said.last().unwrap().starts_with("RESULT"), "{rules:?}");
        if rules == RuleSet::Wild16 {
            assert!(said.iter().any(|l| l.ends_with(" only)")), "{said:?}");
        }
    }
}

/// What no demo game shows: links lost and found, messages for one player or the
/// arbiter, clocks, a repeat, a resumed game, errors; and an output before its table opened.
#[test]
fn the_rarer_events_read_as_their_json_lines_did() {
    use kriegspiel_table::game::{ArbiterNote, PublicMessage};
    let w = Wording::new(
        RuleSet::Rand,
        kriegspiel_referee::Options::default(),
        Lang::En,
    );
    let link = |color, event| HallEvent::Link {
        table: 1,
        color,
        event,
        health: kriegspiel_boardlink::Health::default(),
    };
    let output = |output| HallEvent::Output {
        table: 1,
        at: 0,
        output,
    };
    let connected = || LinkEvent::Connected {
        protocol: 1,
        firmware: [0, 1, 0],
        board_id: 7,
    };
    let opened = |resumed_events| HallEvent::Opened {
        table: 1,
        name: "7".to_owned(),
        game: 3,
        resumed_events,
        wording: w,
        lang: Lang::En,
        seats: ByColor::new_with(|_| "123456".to_owned()),
        heard: ByColor::default(),
        ignored: vec!["rules".to_owned()],
        set_aside: None,
        follows: None,
    };
    let clock = Output::Clock {
        remaining: ByColor {
            white: 61_000,
            black: 3_723_000,
        },
        running: Some(Color::Black),
    };
    let events = vec![
        output(Output::Public {
            message: PublicMessage::Paused,
        }),
        opened(0),
        opened(12),
        link(Color::White, connected()),
        link(
            Color::White,
            LinkEvent::Disconnected {
                reason: DisconnectReason::Closed,
            },
        ),
        link(Color::White, connected()),
        link(Color::Black, connected()),
        link(
            Color::Black,
            LinkEvent::OpenFailed {
                error: "no such file".to_owned(),
            },
        ),
        link(
            Color::Black,
            LinkEvent::VersionMismatch {
                local: 2,
                remote: 1,
            },
        ),
        link(
            Color::Black,
            LinkEvent::Fault {
                code: FaultCode::ScanError,
                board_ms: 5,
            },
        ),
        link(
            Color::Black,
            LinkEvent::Snapshot {
                occupancy: 0,
                board_ms: 6,
            },
        ),
        output(Output::Private {
            color: Color::White,
            message: PrivateMessage::NotYourTurn,
        }),
        output(Output::Arbiter {
            color: Color::Black,
            message: PrivateMessage::MustMoveTouched(kriegspiel_referee::shakmaty::Square::G8),
        }),
        output(Output::Note {
            note: ArbiterNote::Refused {
                action: "put",
                reason: "no".to_owned(),
            },
        }),
        output(Output::Public {
            message: PublicMessage::Resumed,
        }),
        output(clock.clone()),
        output(Output::Repeated {
            output: Box::new(clock),
        }),
        output(Output::Repeated {
            output: Box::new(Output::Public {
                message: PublicMessage::DrawOffered(Color::White),
            }),
        }),
        HallEvent::Seat(SeatNotice {
            table: 1,
            color: Color::White,
            change: SeatChange::Taken { voice: true },
        }),
        HallEvent::Failed {
            table: 1,
            error: "disk \"full\"".to_owned(),
        },
        HallEvent::OpenFailed {
            name: "2".to_owned(),
            error: "locked".to_owned(),
        },
    ];
    let said = compare(&events);
    assert_eq!(said.len(), events.len() - 3, "{said:#?}");
}
