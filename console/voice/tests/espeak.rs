//! espeak-ng's voices, a synthesiser the thresholds were never chosen on: its clips are a
//! third digital silence and start speaking at their first sample, which PocketSphinx heard
//! badly until the recogniser gave every utterance a noise floor (docs/VOICE.md, fourteenth
//! round); and a sentence it says is never taken for one short command.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/flite.rs"]
mod flite;

use flite::espeak;
use kriegspiel_voice::{Adaptation, Command, Heard, Model, Recognizer};
use shakmaty::{Chess, Color};

const VOICES: [&str; 4] = ["en-us", "en-us+f3", "en+f2", "en-gb-x-rp+m3"];

fn recognizer(floor: i16) -> Recognizer {
    // As `kriegspiel hear` hears (the room's model), PocketSphinx alone.
    let mut r = Recognizer::adapted(&Model::default(), Adaptation::Room).unwrap();
    r.set_noise_floor(floor);
    r.set_turn(&Chess::default(), Color::White).unwrap();
    r
}

/// Every command said once by each voice, clean: a free turn's commands by `hear`, the answers
/// while a read-back waits; how many were heard as said.
fn commands_heard(floor: i16, clips: &[(Command, Vec<i16>)]) -> usize {
    let mut r = recognizer(floor);
    clips
        .iter()
        .filter(|(command, samples)| {
            let heard = match command {
                Command::Confirm | Command::Cancel => r.hear_reply(samples),
                _ => r.hear(samples),
            };
            heard.unwrap().heard == Heard::Command(*command)
        })
        .count()
}

#[test]
fn with_the_noise_floor_espeak_commands_are_heard() {
    let dir = tempfile::tempdir().unwrap();
    let mut clips = Vec::new();
    for (v, voice) in VOICES.iter().enumerate() {
        for (k, command) in Command::ALL.iter().enumerate() {
            let samples = espeak(voice, command.words(), dir.path(), &format!("c{v}-{k}"));
            clips.push((*command, samples));
        }
    }
    let with = commands_heard(kriegspiel_voice::DEFAULT_NOISE_FLOOR, &clips);
    let without = commands_heard(0, &clips);
    println!("espeak-ng commands heard: {with} of 48 with the floor, {without} without");
    assert!(with >= 44, "with the floor: {with} of 48");
    assert!(without + 4 <= with, "without {without}, with {with}");
}

#[test]
fn a_sentence_is_no_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = recognizer(kriegspiel_voice::DEFAULT_NOISE_FLOOR);
    for (v, voice) in VOICES.iter().enumerate() {
        for (k, text) in [
            "can I have some water",
            "is anyone there",
            "could you repeat that please",
        ]
        .iter()
        .enumerate()
        {
            let samples = espeak(voice, text, dir.path(), &format!("s{v}-{k}"));
            for rec in [r.hear(&samples).unwrap(), r.hear_reply(&samples).unwrap()] {
                assert!(
                    !matches!(rec.heard, Heard::Command(_)),
                    "{voice} '{text}' heard as {:?}: {rec:?}",
                    rec.heard,
                );
            }
        }
    }
}
