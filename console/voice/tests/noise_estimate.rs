//! PocketSphinx's noise removal carries its estimate of the room from one utterance to the
//! next. The recogniser lets the front end hear each utterance before the searches that count
//! (`Recognizer::set_warm`, docs/VOICE.md, ninth round), so that a try is heard the same
//! whether it is the first utterance of the evening, follows one in another noise, or is
//! heard again: without it, the first hearing's ratio against the phone loop fell by
//! hundreds, and tries in noise were rejected that a second hearing took.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/flite.rs"]
mod flite;
#[path = "support/room.rs"]
mod room;

use flite::say;
use kriegspiel_voice::{Model, Recognizer};
use shakmaty::{Chess, Color};

/// How far apart the ratios of a fresh recogniser's hearing and a second hearing of the same
/// utterance are, at most, over a few tries in pink noise 15 dB under the speech; with the
/// front end warmed or not.
fn largest_gap(warm: bool) -> i32 {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 20);
    let mut gap = 0;
    for (voice, text) in [
        ("slt", "d two to d four"),
        ("rms", "e two to e four"),
        ("awb", "g one to f three"),
        ("kal16", "c two to c four"),
    ] {
        let noisy = room::mix(&say(voice, text, dir.path(), "try"), 15.0, |i| {
            noise[i % noise.len()]
        });
        let mut r = Recognizer::new(&Model::default()).unwrap();
        r.set_warm(warm);
        r.set_turn(&Chess::default(), Color::White).unwrap();
        let first = r.hear(&noisy).unwrap();
        let again = r.hear(&noisy).unwrap();
        println!(
            "warm {warm}: {voice} '{text}': first {} ({}), again {} ({})",
            first.ratio,
            first.heard.id(),
            again.ratio,
            again.heard.id()
        );
        if first.ratio != i32::MIN && again.ratio != i32::MIN {
            gap = gap.max((first.ratio - again.ratio).abs());
        }
    }
    gap
}

#[test]
fn an_utterance_is_heard_alike_first_and_again() {
    let warmed = largest_gap(true);
    let cold = largest_gap(false);
    println!("largest gap: {warmed} warmed, {cold} not");
    assert!(
        cold >= 150,
        "without warming the gap was {cold}: the test shows nothing"
    );
    assert!(
        warmed <= 60,
        "warmed, a first hearing still differs by {warmed}"
    );
}
