//! Real speech: a short game through two simulated boards and `kriegspiel table
//! --speech-wav`, with espeak-ng synthesising every public announcement into WAV files that
//! sox then measures. Needs espeak-ng and sox (tests/run.sh installs them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use kriegspiel_tests::games::{self, GameDef, Timing};
use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::process::play_table;
use serde_json::json;

fn sox_number(args: &[&str], wav: &Path, label: &str) -> f64 {
    let out = Command::new(args[0])
        .args(&args[1..])
        .arg(wav)
        .args(if args[0] == "sox" {
            &["-n", "stat"][..]
        } else {
            &[][..]
        })
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e}): install sox", args[0]));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no '{label}' in {}'s output: {text}", args[0]));
    line[label.len()..]
        .trim_start_matches([' ', ':'])
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// Plays a short game with recorded speech; returns the transcript lines and the folder.
fn spoken_game(
    lang: &str,
    plies: serde_json::Value,
) -> (Vec<(String, String)>, Vec<String>, tempfile::TempDir) {
    let def: GameDef = serde_json::from_value(json!({
        "name": format!("speech {lang}"),
        "rules": "cincinnati",
        "lang": lang,
        "plies": plies,
    }))
    .unwrap();
    let timing = Timing::default();
    let game = games::build(def, timing).unwrap();
    let wavs = tempfile::tempdir().unwrap();
    let args = [
        "--settle-ms".to_owned(),
        timing.settle_ms.to_string(),
        "--speech-wav".to_owned(),
        wavs.path().display().to_string(),
    ];
    let run = play_table(
        &game,
        &cargo_bin("kriegspiel", "kriegspiel"),
        &cargo_bin("kriegspiel-board", "kriegspiel-board"),
        &args,
        None,
        Duration::from_millis(game.duration_ms + 20_000),
        |_| {},
    )
    .unwrap();
    assert!(run.status.success(), "{:?}", run.stderr);
    let heard_by_both: Vec<String> = run
        .answers()
        .iter()
        .filter(|a| a["heard_by"] == "both")
        .map(|a| a["text"].as_str().unwrap().to_owned())
        .collect();
    let transcript = std::fs::read_to_string(wavs.path().join("transcript.tsv")).unwrap();
    let lines = transcript
        .lines()
        .map(|l| {
            let (file, text) = l.split_once('\t').unwrap();
            (file.to_owned(), text.to_owned())
        })
        .collect();
    (lines, heard_by_both, wavs)
}

#[test]
fn every_public_announcement_is_synthesised_into_a_wav_file() {
    // Fool's mate with one refused try, in French.
    let (transcript, public, dir) = spoken_game(
        "fr",
        json!([["f2f3"], ["e7e5"], ["e1e3?", "g2g4"], ["d8h4"]]),
    );
    let texts: Vec<&str> = transcript.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        texts, public,
        "one utterance per public announcement, in order"
    );
    assert_eq!(texts.len(), 6);
    assert!(texts[3].contains("Absurde"), "{texts:?}");
    assert!(texts[5].contains("Échec et mat"), "{texts:?}");
    for (i, (file, text)) in transcript.iter().enumerate() {
        assert_eq!(file, &format!("{:04}.wav", i + 1));
        let wav = dir.path().join(file);
        let seconds = sox_number(&["soxi", "-D"], &wav, "");
        let rms = sox_number(&["sox"], &wav, "RMS     amplitude");
        // About a tenth of a second per character is speech; silence or a stub is not.
        assert!(
            seconds > 0.04 * text.chars().count() as f64,
            "{file} ({text}): {seconds} s"
        );
        assert!(rms > 0.01, "{file} ({text}): RMS {rms}");
    }
}

#[test]
fn a_russian_voice_hears_files_by_their_cyrillic_names() {
    // Scholar's mate: the capture on f7 is said «эф 7» to the voice, written f7 on screen.
    let plies = json!([
        ["e2e4"],
        ["e7e5"],
        ["f1c4"],
        ["b8c6"],
        ["d1h5"],
        ["g8f6"],
        ["h5f7"]
    ]);
    let (transcript, public, _dir) = spoken_game("ru", plies);
    assert_eq!(
        public[7],
        "Белые сделали ход. Взята пешка на поле f7. Шах по малой диагонали. Мат. Белые выиграли."
    );
    assert_eq!(
        transcript[7].1,
        "Белые сделали ход. Взята пешка на поле эф 7. Шах по малой диагонали. Мат. Белые выиграли."
    );
}
