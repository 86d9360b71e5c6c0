//! The protocol's unit tests: reading lines, error answers, the written form.

#![allow(clippy::unwrap_used)]

use serde_json::Value;

use super::{Defaults, Session};

fn answer(session: &mut Session, line: &str) -> Value {
    session.answer(line).to_value()
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn a_key_given_twice_is_bad_json_at_any_depth() {
    let mut s = Session::new(Defaults::default()).unwrap();
    for line in [
        r#"{"cmd":"try","move":"e2e4","move":"d2d4"}"#,
        r#"{"cmd":"try","cmd":"try","move":"e2e4"}"#,
        r#"{"cmd":"try","move":"e2e4","x":1,"x":2}"#,
        r#"{"cmd":"try","move":"e2e4","x":{"a":1,"a":2}}"#,
        r#"{"cmd":"new","rules":"rand","options":{"ladder":true,"ladder":false}}"#,
        r#"{"cmd":"try","move":"e2e4","x":[{"a":1,"a":1}]}"#,
        r#"{"cmd":"try","mo\u0076e":"e2e4","move":"d2d4"}"#,
    ] {
        let v = answer(&mut s, line);
        assert_eq!(code(&v), "bad-json", "{line}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.starts_with("duplicate key '"), "{msg}");
    }
    // Nothing was played.
    assert_eq!(s.referee().position(), &shakmaty::Chess::default());
    let v = answer(&mut s, r#"{"cmd":"try","move":"e2e4","x":{"a":1,"b":1}}"#);
    assert_eq!(v["answer"], "moved");
}

#[test]
fn not_an_object_and_not_json_are_bad_json() {
    let mut s = Session::new(Defaults::default()).unwrap();
    for (line, starts) in [
        ("[1,2]", "a command must be a JSON object"),
        ("\"try\"", "a command must be a JSON object"),
        ("42", "a command must be a JSON object"),
        ("null", "a command must be a JSON object"),
        ("{\"cmd\":", "not JSON: "),
        ("{\"cmd\":\"try\"} x", "not JSON: trailing characters"),
        ("   ", "empty line"),
    ] {
        let v = answer(&mut s, line);
        assert_eq!(code(&v), "bad-json", "{line}");
        assert!(
            v["error"]["message"].as_str().unwrap().starts_with(starts),
            "{line}: {v}"
        );
    }
}

#[test]
fn messages_quote_at_most_eighty_characters_of_the_input() {
    let mut s = Session::new(Defaults::default()).unwrap();
    let long = "x".repeat(10_000);
    let lines = [
        format!(r#"{{"cmd":"{long}"}}"#),
        format!(r#"{{"cmd":"try","move":"{long}"}}"#),
        format!(r#"{{"cmd":"ask","what":"{long}"}}"#),
        format!(r#"{{"cmd":"new","rules":"{long}"}}"#),
        format!(r#"{{"cmd":"new","rules":["{long}"]}}"#),
        format!(r#"{{"cmd":"new","lang":"{long}"}}"#),
        format!(r#"{{"cmd":"new","lang":["{long}"]}}"#),
        format!(r#"{{"cmd":"new","fen":"{long}"}}"#),
        format!(r#"{{"cmd":"new","fen":["{long}"]}}"#),
        format!(r#"{{"cmd":"new","options":"{long}"}}"#),
        format!(r#"{{"cmd":"new","options":{{"{long}":true}}}}"#),
        format!(r#"{{"cmd":"new","rules":"rand","options":{{"ladder":"{long}"}}}}"#),
        format!(r#"{{"cmd":"new","rules":"rand","options":{{"ladder":["{long}"]}}}}"#),
        format!(r#"{{"cmd":"try","{long}":1,"{long}":2}}"#),
    ];
    for line in &lines {
        let v = answer(&mut s, line);
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.len() < 300 && msg.contains('…'),
            "{}: {msg}",
            v["error"]["code"]
        );
    }
}

#[test]
fn unusable_input_lines_get_their_codes() {
    let mut s = Session::new(Defaults::default()).unwrap();
    let v = s
        .answer_input(Err(bounded_lines::LineError::TooLong {
            len: 200_000_000,
            limit: bounded_lines::MAX_LINE,
        }))
        .to_value();
    assert_eq!(code(&v), "line-too-long");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("200000000"));
    let v = s
        .answer_input(Err(bounded_lines::LineError::NotUtf8 { valid_up_to: 3 }))
        .to_value();
    assert_eq!(code(&v), "bad-json");
    assert_eq!(code(&s.handle_line(b"{\"cmd\":\xff}")), "bad-json");
}

#[test]
fn answers_are_written_as_before_keys_sorted() {
    let mut s = Session::new(Defaults::default()).unwrap();
    let mut out = Vec::new();
    s.answer(r#"{"cmd":"try","move":"e2e4"}"#)
        .write_line(&mut out)
        .unwrap();
    s.answer(r#"{"cmd":"try","move":"e2e5"}"#)
        .write_line(&mut out)
        .unwrap();
    s.answer(r#"{"cmd":"nope"}"#).write_line(&mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        concat!(
            r#"{"answer":"moved","capture":null,"checks":[],"end":null,"heard_by":"both","pawn_tries":false,"promotion":null,"text":"White has moved.","to_move":"black"}"#,
            "\n",
            r#"{"answer":"impossible","heard_by":"both","text":"Nonsense.","to_move":"black"}"#,
            "\n",
            r#"{"error":{"code":"unknown-command","message":"unknown command 'nope' (new, try, ask)"}}"#,
            "\n",
        )
    );
}
