//! A read-back's answers through `Recognizer::hear_reply`, on speech synthesised at test time
//! (flite `slt` and `rms`, resampled with sox): "confirm" and "cancel" are heard, a new try
//! said while a read-back waits is heard as that try (never as "confirm"), and chatter is
//! never a try nor a "confirm". The figures on held-out voices and in room noise are the
//! bench's (`cargo bench -p kriegspiel-voice --bench heldout`, docs/VOICE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

#[path = "support/flite.rs"]
mod flite;
#[path = "support/room.rs"]
mod room;

use flite::say;
use kriegspiel_voice::{Command, Heard, Model, Recognizer};
use shakmaty::{Chess, Color, Square};

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

/// Another command said while a read-back waits is never taken for "confirm" (which would
/// play the try read back): the turn's grammar must not hear another command in it.
#[test]
fn other_commands_while_a_read_back_waits_are_not_confirm() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Recognizer::new(&Model::default()).unwrap();
    r.set_turn(&Chess::default(), Color::White).unwrap();
    for voice in ["slt", "rms", "awb", "kal16"] {
        for text in ["rebuffs", "queen", "bishop", "offer draw", "any", "my men"] {
            let rec = r.hear_reply(&say(voice, text, dir.path(), "cmd")).unwrap();
            assert_ne!(
                rec.heard,
                Heard::Command(Command::Confirm),
                "{voice} '{text}': {rec:?}"
            );
        }
    }
}

/// `speech` with sox's pink noise `snr` dB under it (the test's room, the same every run).
fn in_room(speech: &[i16], snr: f64, dir: &Path) -> Vec<i16> {
    let noise = room::pink(dir, 4);
    room::mix(speech, snr, |i| noise[i % noise.len()])
}

/// In pink noise 20 dB under the speech: most answers are still heard, and a new try or
/// chatter is never taken for "confirm". (The bar is modest; the bench has the figures.)
#[test]
fn answers_in_room_noise() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Recognizer::new(&Model::default()).unwrap();
    r.set_turn(&Chess::default(), Color::White).unwrap();
    let mut heard = 0;
    for voice in ["slt", "rms", "awb"] {
        for (text, want) in [("confirm", Command::Confirm), ("cancel", Command::Cancel)] {
            let noisy = in_room(&say(voice, text, dir.path(), text), 20.0, dir.path());
            let rec = r.hear_reply(&noisy).unwrap();
            println!(
                "{voice} '{text}' at 20 dB: {:?} {:?}",
                rec.heard, rec.answer_ratio
            );
            assert!(
                matches!(rec.heard, Heard::Command(c) if c == want) || rec.heard == Heard::Rejected,
                "{voice} '{text}': {rec:?}"
            );
            heard += usize::from(rec.heard == Heard::Command(want));
        }
        for text in [
            "knight golf one to foxtrot three",
            "where is the bathroom",
            "banana",
        ] {
            let noisy = in_room(&say(voice, text, dir.path(), "other"), 20.0, dir.path());
            let rec = r.hear_reply(&noisy).unwrap();
            assert_ne!(
                rec.heard,
                Heard::Command(Command::Confirm),
                "{voice} '{text}': {rec:?}"
            );
        }
    }
    assert!(heard >= 4, "answers heard at 20 dB: {heard} of 6");
}

/// Without a turn there is nothing to hear with.
#[test]
fn no_reply_without_a_turn() {
    let mut r = Recognizer::new(&Model::default()).unwrap();
    assert!(r.hear_reply(&[0i16; 1600]).is_err());
}
