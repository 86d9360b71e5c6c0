#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Runs every `tests/traces/*.trace` of the repository through a table and compares the
//! outputs with the expectations written in the file (docs/TRACE-FORMAT.md).

use std::path::PathBuf;

use kriegspiel_table::trace::Trace;

fn trace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/traces")
}

#[test]
fn every_trace_file_plays_as_written() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(trace_dir())
        .expect("tests/traces exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let outcome = Trace::parse(&text).and_then(|t| {
            assert!(
                !t.expected().is_empty(),
                "{name}: a trace must expect something"
            );
            t.check()
        });
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(mismatch)) => failures.push(format!("{name}: {mismatch}")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} traces failed:\n\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
    assert!(paths.len() >= 40, "only {} trace files", paths.len());
}

#[test]
fn a_wrong_expectation_is_reported_with_a_diff() {
    let text = "rules cincinnati\n\
                => 0 started {\"answer\":\"new\"}\n\
                100 white lift e2\n\
                200 white place e4\n\
                => 501 verdict white e2e4 {\"answer\":\"moved\"}\n";
    let mismatch = Trace::parse(text).unwrap().check().unwrap().unwrap_err();
    assert_eq!(mismatch.first, 1);
    let shown = mismatch.to_string();
    assert!(shown.contains("- => 501 verdict white e2e4"), "{shown}");
    assert!(shown.contains("+ => 500 verdict white e2e4"), "{shown}");
}

#[test]
fn bad_trace_lines_name_their_line() {
    for (text, line, words) in [
        ("rules nonsense\n", 1, "unknown rule set"),
        ("rules rand\n\n100 white jump e2\n", 3, "unknown event"),
        ("100 white lift e9\n", 1, "not a square"),
        ("200 tick\n100 tick\n", 2, "backwards"),
        ("100 tick\nsettle 300\n", 2, "header"),
        ("=> x started\n", 1, "not a time"),
        ("=> 0 said hello\n", 1, "started, verdict"),
        (
            "rules rand\noption strict=true\n",
            2,
            "belongs to the cincinnati",
        ),
    ] {
        match Trace::parse(text) {
            Err(kriegspiel_table::Error::Trace { line: l, message }) => {
                assert_eq!(l, line, "{text:?}: {message}");
                assert!(message.contains(words), "{text:?}: {message}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    assert!(matches!(
        Trace::parse("settle 2000\n"),
        Err(kriegspiel_table::Error::SettleOutOfRange(2000))
    ));
}

#[test]
fn event_lines_render_and_parse_back() {
    use kriegspiel_table::event_text::{parse_event, render_event};
    for line in [
        "0 tick",
        "1200 white lift e2",
        "1500 black place e5",
        "2000 black promote n",
        "2100 white ask any",
        "2200 white ask rebuffs",
        "2300 black snapshot a7 b7 e8",
        "2400 white snapshot -",
        "2500 white connect",
        "2600 black disconnect",
        "2700 restarted 66400",
        "2800 restarted 12000 counted",
    ] {
        let event = parse_event(line).unwrap();
        assert_eq!(render_event(&event), line);
    }
    for bad in [
        "2900 restarted",
        "2900 restarted 5 uncounted",
        "2900 restarted 5 counted x",
    ] {
        assert!(parse_event(bad).is_err(), "{bad}");
    }
}
