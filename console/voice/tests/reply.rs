//! A read-back's answers through `Recognizer::hear_reply`, on speech synthesised at test time
//! (flite `slt` and `rms`, resampled with sox): "confirm" and "cancel" are heard, a new try
//! said while a read-back waits is heard as that try (never as "confirm"), and chatter is
//! never a try nor a "confirm". The figures on held-out voices and in room noise are the
//! bench's (`cargo bench -p kriegspiel-voice --bench heldout`, docs/VOICE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command as Process;

use kriegspiel_voice::{wav, Command, Heard, Model, Recognizer};
use shakmaty::{Chess, Color, Square};

fn say(voice: &str, text: &str, dir: &Path, name: &str) -> Vec<i16> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    let ok = Process::new("flite")
        .args(["-voice", voice, "-t", text, "-o"])
        .arg(&raw)
        .status()
        .expect("flite")
        .success();
    assert!(ok, "flite {voice} {text}");
    let ok = Process::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(&out)
        .status()
        .expect("sox")
        .success();
    assert!(ok, "sox");
    wav::read_wav(&out).unwrap()
}

#[test]
fn answers_tries_and_chatter_while_a_read_back_waits() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Recognizer::new(&Model::default()).unwrap();
    r.set_turn(&Chess::default(), Color::White).unwrap();
    for voice in ["slt", "rms"] {
        for (text, want) in [("confirm", Command::Confirm), ("cancel", Command::Cancel)] {
            let rec = r.hear_reply(&say(voice, text, dir.path(), text)).unwrap();
            assert_eq!(rec.heard, Heard::Command(want), "{voice} '{text}': {rec:?}");
            assert!(rec.answer_ratio.is_some(), "heard by the answer grammar");
        }
        let rec = r
            .hear_reply(&say(voice, "golf one to foxtrot three", dir.path(), "try"))
            .unwrap();
        assert_eq!(
            rec.heard,
            Heard::Try(kriegspiel_referee::Try::new(Square::G1, Square::F3)),
            "{voice}: {rec:?}"
        );
        for chatter in [
            "the weather is nice today",
            "banana",
            "could you pass the salt please",
        ] {
            let rec = r
                .hear_reply(&say(voice, chatter, dir.path(), "chatter"))
                .unwrap();
            assert!(
                !matches!(rec.heard, Heard::Try(_) | Heard::Command(Command::Confirm)),
                "{voice} '{chatter}': {rec:?}"
            );
        }
    }
}

/// Without a turn there is nothing to hear with.
#[test]
fn no_reply_without_a_turn() {
    let mut r = Recognizer::new(&Model::default()).unwrap();
    assert!(r.hear_reply(&[0i16; 1600]).is_err());
}
