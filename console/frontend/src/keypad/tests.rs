use super::*;

#[test]
fn keypad_and_arbiter_commands() {
    let ok = |l: &str| match parse_command(l).unwrap() {
        (table, Command::Input(i)) => (table, i),
        (_, Command::Release(c)) => panic!("a release of {c}"),
        (_, Command::StartAll) => panic!("a start of every table"),
    };
    assert_eq!(
        ok(r#"{"color":"white","promote":"n"}"#),
        (
            1,
            Input::Promote {
                color: Color::White,
                role: Role::Knight
            }
        )
    );
    assert_eq!(
        ok(r#"{"table":2,"color":"black","ask":"rebuffs"}"#),
        (
            2,
            Input::Ask {
                color: Color::Black,
                question: Question::Rebuffs
            }
        )
    );
    assert_eq!(
        ok(r#"{"color":"black","resign":true}"#).1,
        Input::Resign {
            color: Color::Black
        }
    );
    assert_eq!(
        ok(r#"{"color":"white","try":"e7e8n"}"#).1,
        Input::Play {
            color: Color::White,
            tried: kriegspiel_referee::Try::from_uci("e7e8n").unwrap()
        }
    );
    assert_eq!(
        ok(r#"{"color":"white","draw":true}"#).1,
        Input::Draw {
            color: Color::White
        }
    );
    assert_eq!(
        ok(r#"{"arbiter":"pause"}"#).1,
        Input::Arbiter(kriegspiel_table::ArbiterAction::Pause)
    );
    assert!(matches!(
        ok(r#"{"table":3,"arbiter":"adjudicate 1-0 White's flag"}"#),
        (
            3,
            Input::Arbiter(kriegspiel_table::ArbiterAction::Adjudicate { .. })
        )
    ));
    for bad in [
        "nonsense",
        "[1]",
        r#"{"promote":"n"}"#,
        r#"{"color":"red","ask":"any"}"#,
        r#"{"color":"white","promote":"k"}"#,
        r#"{"color":"white","ask":"why"}"#,
        r#"{"color":"white"}"#,
        r#"{"color":"white","ask":"any","promote":"q"}"#,
        r#"{"color":"white","ask":"any","x":1}"#,
        r#"{"color":"white","promote":"n","promote":"q"}"#,
        r#"{"color":"white","resign":false}"#,
        r#"{"table":0,"color":"white","resign":true}"#,
        r#"{"arbiter":"dance"}"#,
        r#"{"color":"white","try":"e2-e4"}"#,
        r#"{"color":"white","try":5}"#,
        r#"{"arbiter":"pause","color":"white"}"#,
    ] {
        assert!(parse_command(bad).is_err(), "{bad}");
    }
    let long = format!(r#"{{"color":"{}","ask":"any"}}"#, "x".repeat(10_000));
    assert!(parse_command(&long).unwrap_err().len() < 200);
    assert_eq!(
        parse_command(r#"{"table":2,"arbiter":"release black"}"#).unwrap(),
        (2, Command::Release(Color::Black))
    );
    assert!(parse_command(r#"{"arbiter":"release everyone"}"#).is_err());
    assert_eq!(
        parse_command(r#"{"arbiter":"start all"}"#).unwrap().1,
        Command::StartAll
    );
    assert_eq!(
        ok(r#"{"table":2,"arbiter":"start"}"#),
        (
            2,
            Input::Arbiter(kriegspiel_table::ArbiterAction::StartClocks)
        )
    );
}

/// An arbiter's action the journal could not keep is refused with its reason, before
/// it reaches a table (a 5,000-character FEN once stopped one).
#[test]
fn an_action_too_long_to_journal_is_refused_on_reading() {
    let fen = format!("{}/8/8/8/8/8/8/8 w - - 0 1", "8".repeat(5000));
    let line = format!(r#"{{"arbiter":"fen {fen}"}}"#);
    let e = parse_command(&line).unwrap_err();
    assert!(e.contains("at most 4096"), "{e}");
    assert!(e.len() < 200, "{e}");
}

#[test]
fn a_void_without_its_reason_is_refused_and_one_with_it_taken() {
    for bare in [
        r#"{"arbiter":"void"}"#,
        r#"{"table":2,"arbiter":"void   "}"#,
    ] {
        let e = parse_command(bare).unwrap_err();
        assert!(e.contains("void needs its reason"), "{e}");
    }
    assert!(matches!(
        parse_command(r#"{"arbiter":"void players swapped colours"}"#),
        Ok((
            1,
            Command::Input(Input::Arbiter(kriegspiel_table::ArbiterAction::Void { .. }))
        ))
    ));
}
