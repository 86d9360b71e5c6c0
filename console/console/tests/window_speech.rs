//! The window speaks as `kriegspiel hall` and `kriegspiel table` do, with their speakers and
//! subscriber: the real `kriegspiel-console` under its own Xvfb, each table's public
//! announcements recorded by espeak-ng (`--speech-wav`, the `speech_wav` key of a round
//! file) and compared with what the table said, in order. Needs Xvfb and espeak-ng
//! (tests/system-packages.sh installs them); nothing is skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{xvfb, Killed};
use kriegspiel_games::Timing;

fn console() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kriegspiel-console"))
}

/// A recording's transcript (file, tab, words): the files and their words.
fn transcript(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("transcript.tsv")).unwrap_or_default();
    text.lines()
        .map(|l| {
            let (file, words) = l.split_once('\t').unwrap();
            (file.to_owned(), words.to_owned())
        })
        .collect()
}

/// The words of a recording, each of the first `complete` files checked to hold sound (a
/// line is written before its file, so the last one may be cut short by the window's end).
fn words(dir: &Path, complete: usize) -> Vec<String> {
    let lines = transcript(dir);
    for (file, words) in lines.iter().take(complete) {
        let size = std::fs::metadata(dir.join(file)).map_or(0, |m| m.len());
        assert!(size > 4000, "{file} ({words}): {size} bytes");
    }
    lines.into_iter().map(|(_, w)| w).collect()
}

/// Runs the window with `args` until `done` holds (or 60 s), then closes it.
fn run_until(display: &str, args: &[&str], done: impl Fn() -> bool) {
    let child = console()
        .args(args)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut window = Killed(child);
    let start = Instant::now();
    while !done() && start.elapsed() < Duration::from_secs(60) {
        if let Ok(Some(status)) = window.0.try_wait() {
            panic!("the window ended early ({status})");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(window);
}

/// The public words of the demo game of `rules`, in order, as its table says them.
fn demo_public_words(rules: &str) -> Vec<String> {
    kriegspiel_games::builtin(rules, Timing::HUMAN)
        .unwrap()
        .expected
        .iter()
        .filter(|a| a["heard_by"] == "both")
        .map(|a| a["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_window_speaks_each_table_as_its_options_or_round_file_say() {
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();

    // The demo's first table speaks by the command line's options; the others are quiet.
    let wavs = dir.path().join("demo-wavs");
    run_until(
        &display,
        &[
            "--demo",
            "cincinnati",
            "--tables",
            "2",
            "--speech-wav",
            wavs.to_str().unwrap(),
            "--journal",
            &path("demo.sqlite"),
        ],
        || transcript(&wavs).len() >= 5,
    );
    let heard = words(&wavs, 4);
    let said = demo_public_words("cincinnati");
    assert!(heard.len() >= 5, "{heard:?}");
    assert_eq!(
        heard[..],
        said[..heard.len()],
        "one utterance per public announcement, in order"
    );

    // A round file: each table by its own audio keys, in its own language; --no-speech
    // silences them all.
    let round = dir.path().join("round.toml");
    let (en, fr) = (dir.path().join("en"), dir.path().join("fr"));
    std::fs::write(
        &round,
        format!(
            "[[table]]\nname = \"1\"\nspeech_wav = \"{}\"\n\n[[table]]\nname = \"2\"\nlang = \"fr\"\nrules = \"wild16\"\nspeech_wav = \"{}\"\n\n[[table]]\nname = \"3\"\nno_speech = true\n",
            en.display(),
            fr.display()
        ),
    )
    .unwrap();
    run_until(
        &display,
        &[
            "--config",
            round.to_str().unwrap(),
            "--journal",
            &path("round.sqlite"),
        ],
        || {
            // Each table says one thing at its start; give espeak-ng time to finish it.
            let said = |d: &Path| {
                transcript(d).first().is_some_and(|(f, _)| {
                    std::fs::metadata(d.join(f)).is_ok_and(|m| m.len() > 4000)
                })
            };
            said(&en) && said(&fr) && {
                std::thread::sleep(Duration::from_secs(2));
                true
            }
        },
    );
    assert_eq!(words(&en, 1), ["New game, Cincinnati. White to move."]);
    assert_eq!(
        words(&fr, 1),
        ["Nouvelle partie, ICC Wild 16. Trait aux blancs."]
    );

    let (en2, fr2) = (dir.path().join("en2"), dir.path().join("fr2"));
    std::fs::write(
        &round,
        format!(
            "[[table]]\nname = \"1\"\nspeech_wav = \"{}\"\n\n[[table]]\nname = \"2\"\nspeech_wav = \"{}\"\n",
            en2.display(),
            fr2.display()
        ),
    )
    .unwrap();
    let start = Instant::now();
    run_until(
        &display,
        &[
            "--config",
            round.to_str().unwrap(),
            "--journal",
            &path("quiet.sqlite"),
            "--no-speech",
        ],
        || start.elapsed() > Duration::from_secs(6),
    );
    assert!(transcript(&en2).is_empty() && transcript(&fr2).is_empty());
    assert!(
        !en2.exists() && !fr2.exists(),
        "nothing recorded with --no-speech"
    );
}

/// What the window program says when it refuses `args` as a usage error (status 2).
fn refused(args: &[&str]) -> String {
    let out: Output = console().args(args).env_remove("DISPLAY").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_round_file_s_tables_are_not_changed_by_one_table_options() {
    let err = refused(&["--config", "round.toml", "--clock", "5+0"]);
    assert!(
        err.contains("with --config the round file describes every table; --clock belongs in its [[table]] entries"),
        "{err}"
    );
}

#[test]
fn without_a_display_the_window_says_so_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let out: Output = console()
        .args(["--demo", "--no-speech", "--journal"])
        .arg(dir.path().join("j.sqlite"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"),
        "{err}"
    );
    assert!(!err.contains(".rs:"), "{err}");
    // Checked first: no game was journaled (no journal was even made).
    assert!(!dir.path().join("j.sqlite").exists(), "{err}");

    // A display no X server serves is said as plainly, before anything starts.
    let out: Output = console()
        .args(["--demo", "--no-speech", "--journal"])
        .arg(dir.path().join("j.sqlite"))
        .env("DISPLAY", ":987654")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the display :987654 cannot be reached (no X server's socket"),
        "{err}"
    );
    assert!(!dir.path().join("j.sqlite").exists(), "{err}");
    // A table the console does not have is refused before anything starts.
    let err = refused(&["--tables", "2", "--open", "3"]);
    assert!(
        err.contains("--open 3: this console's tables are 1 to 2"),
        "{err}"
    );
}

#[test]
fn a_round_file_s_tables_speak_by_its_keys_not_by_options() {
    let err = refused(&["--config", "round.toml", "--public-audio", "default"]);
    assert!(
        err.contains("with --config the round file's audio keys say how each table speaks"),
        "{err}"
    );
}
