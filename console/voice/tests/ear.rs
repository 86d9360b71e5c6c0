//! The read-back answers' second ear (Moonshine base-en, `kriegspiel_voice::ear`), on speech
//! synthesised at test time: with it, "confirm", "cancel", "yes" and "no" said in pink noise
//! 15 dB under the speech are heard more often than by PocketSphinx alone (never as the other
//! answer), and a new try or chatter is never taken for an answer. In a free turn it chooses
//! among a try's alternatives and takes some tries PocketSphinx rejected, but no chatter. The
//! model is installed by tests/run.sh (console/voice/fetch-moonshine.sh); without it these
//! tests fail, naming the script.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/flite.rs"]
mod flite;
#[path = "support/room.rs"]
mod room;

use flite::{espeak, espeak_shifted, say, say_shifted};
use kriegspiel_moonshine::Moonshine;
use kriegspiel_voice::{
    ear, Adaptation, AnswerEar, Command, Heard, Model, Recognition, Recognizer,
};
use shakmaty::{Chess, Color};

fn ear() -> AnswerEar {
    AnswerEar::open(&AnswerEar::default_dir()).unwrap_or_else(|e| panic!("{e}"))
}

/// Two recognisers for White at the start: PocketSphinx alone, and with the second ear.
fn alone_and_with_the_ear() -> (Recognizer, Recognizer) {
    let mut plain = Recognizer::new(&Model::default()).unwrap();
    let mut eared = Recognizer::new(&Model::default()).unwrap();
    eared.set_ear(ear());
    for r in [&mut plain, &mut eared] {
        r.set_turn(&Chess::default(), Color::White).unwrap();
    }
    (plain, eared)
}

/// `clean` as said, and in `noise` 15 dB under it: the two levels most of these tests hear.
fn clean_and_noisy(clean: Vec<i16>, noise: &[f64]) -> [(&'static str, Vec<i16>); 2] {
    let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
    [("clean", clean), ("15 dB", noisy)]
}

/// `samples` heard by `r`, printed with what the ear made of a try.
fn heard_printed(r: &mut Recognizer, said: &str, samples: &[i16]) -> Recognition {
    let rec = r.hear(samples).unwrap();
    println!("{said}: {} {:?}", rec.heard.id(), rec.try_ear);
    rec
}

const ANSWERS: [(&str, Command); 4] = [
    ("confirm", Command::Confirm),
    ("cancel", Command::Cancel),
    ("yes", Command::Confirm),
    ("no", Command::Cancel),
];

/// flite's voices shifted in pitch (cents) and tempo, further from the model's training.
const SHIFTED: [(&str, &str); 5] = [
    ("slt", "pitch -250 tempo 0.88"),
    ("rms", "pitch 250 tempo 1.12"),
    ("awb", "pitch 250 tempo 0.88"),
    ("kal16", "pitch -250 tempo 1.12"),
    ("kal", "pitch 250 tempo 1.12"),
];

/// White's first tries, said with letter names (b, d, e and g sound alike).
const LETTER_TRIES: [(&str, &str); 8] = [
    ("e two to e four", "e2e4"),
    ("d two to d four", "d2d4"),
    ("b two to b three", "b2b3"),
    ("g two to g four", "g2g4"),
    ("b one to c three", "b1c3"),
    ("g one to f three", "g1f3"),
    ("c two to c four", "c2c4"),
    ("e two to e three", "e2e3"),
];

const NOT_ANSWERS: [&str; 5] = [
    "knight golf one to foxtrot three",
    "where is the bathroom",
    "banana",
    "concert",
    "offer draw",
];

/// Clean speech: the ear alone takes most answers, never the other one, and none of the rest.
#[test]
fn the_ear_hears_answers_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let mut ear = ear();
    let mut taken = 0;
    for voice in ["slt", "rms"] {
        for (text, want) in ANSWERS {
            let heard = ear
                .hear(&say(voice, text, dir.path(), "utterance"))
                .unwrap();
            println!("{voice} '{text}': {heard:?}");
            assert!(
                heard.answer.is_none() || heard.answer == Some(want),
                "{voice} '{text}': {heard:?}"
            );
            assert_eq!(
                heard.meaning, want,
                "its best answer: {voice} '{text}': {heard:?}"
            );
            taken += usize::from(heard.answer.is_some());
        }
        for text in NOT_ANSWERS {
            let heard = ear
                .hear(&say(voice, text, dir.path(), "utterance"))
                .unwrap();
            assert_eq!(heard.answer, None, "{voice} '{text}': {heard:?}");
        }
    }
    assert!(taken >= 6, "answers the ear was sure of: {taken} of 8");
    // Nothing to hear is an error, not an answer.
    assert!(ear.hear(&[]).is_err());
}

/// In pink noise 15 dB under the speech, the recogniser with the ear hears more answers than
/// without it (and never fewer), and takes no try, chatter or other command for "confirm".
#[test]
fn with_the_ear_more_answers_are_heard_in_room_noise() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 20);
    let (mut plain, mut eared) = alone_and_with_the_ear();
    let (mut alone, mut with) = (0, 0);
    for voice in ["slt", "rms", "awb", "kal16"] {
        for (text, want) in ANSWERS {
            let noisy = room::mix(&say(voice, text, dir.path(), "utterance"), 15.0, |i| {
                noise[i % noise.len()]
            });
            let a = plain.hear_reply(&noisy).unwrap();
            let b = eared.hear_reply(&noisy).unwrap();
            println!(
                "{voice} '{text}': alone {:?}, with the ear {:?} {:?}",
                a.heard, b.heard, b.ear
            );
            // Never the other answer (PocketSphinx may hear another command, as without the ear).
            let other = if want == Command::Confirm {
                Command::Cancel
            } else {
                Command::Confirm
            };
            for rec in [&a, &b] {
                assert_ne!(
                    rec.heard,
                    Heard::Command(other),
                    "{voice} '{text}': {rec:?}"
                );
            }
            alone += usize::from(a.heard == Heard::Command(want));
            with += usize::from(b.heard == Heard::Command(want));
        }
        for text in NOT_ANSWERS {
            let noisy = room::mix(&say(voice, text, dir.path(), "utterance"), 15.0, |i| {
                noise[i % noise.len()]
            });
            let rec = eared.hear_reply(&noisy).unwrap();
            assert!(
                !matches!(
                    rec.heard,
                    Heard::Command(Command::Confirm | Command::Cancel)
                ),
                "{voice} '{text}': {rec:?}"
            );
        }
    }
    println!("answers heard at 15 dB: {alone} of 16 alone, {with} with the ear");
    // 5 alone and 12 with the ear when this was written.
    assert!(
        with >= alone + 4,
        "with the ear {with} of 16, alone {alone}"
    );
}

/// Tries said with letter names (b, d, e and g sound alike): with the ear choosing among
/// PocketSphinx's alternatives, and taking some PocketSphinx rejected, more are heard right and
/// fewer as another try, clean and in pink noise 15 and 10 dB under the speech; whatever the ear
/// chooses is one of the turn's tries, and a try PocketSphinx heard is never dropped.
#[test]
fn with_the_ear_more_letter_tries_are_heard_right() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 20);
    let (mut plain, mut eared) = alone_and_with_the_ear();
    let (mut alone, mut with, mut alone_wrong, mut with_wrong, mut asked) = (0, 0, 0, 0, 0);
    let (mut rescued, mut rescued_right, mut torn) = (0, 0, 0);
    for voice in ["slt", "rms", "awb", "kal16"] {
        for (text, want) in LETTER_TRIES {
            let clean = say(voice, text, dir.path(), "utterance");
            let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
            let noisier = room::mix(&clean, 10.0, |i| noise[i % noise.len()]);
            for (level, samples) in [("clean", &clean), ("15 dB", &noisy), ("10 dB", &noisier)] {
                let a = plain.hear(samples).unwrap();
                let b = eared.hear(samples).unwrap();
                println!(
                    "{voice} {level} '{text}': alone {}, with the ear {} {:?}",
                    a.heard.id(),
                    b.heard.id(),
                    b.try_ear
                );
                assert_eq!(a.try_ear, None);
                asked += usize::from(b.try_ear.is_some());
                // The ear drops a try only when torn between two others; it adds one only as
                // a rescue of its own.
                let (by_a, by_b) = (
                    matches!(a.heard, Heard::Try(_)),
                    matches!(b.heard, Heard::Try(_)),
                );
                let is_torn = b.try_ear.as_ref().is_some_and(|e| e.torn);
                torn += usize::from(is_torn);
                assert!(by_b || !by_a || is_torn, "{voice} {level} '{text}'");
                let took = b.try_ear.as_ref().is_some_and(|e| e.rescued);
                assert_eq!(by_b && !by_a, took, "{voice} {level} '{text}': {b:?}");
                rescued += usize::from(took);
                rescued_right += usize::from(took && b.heard.id() == want);
                alone += usize::from(a.heard.id() == want);
                with += usize::from(b.heard.id() == want);
                alone_wrong +=
                    usize::from(matches!(a.heard, Heard::Try(_)) && a.heard.id() != want);
                with_wrong += usize::from(matches!(b.heard, Heard::Try(_)) && b.heard.id() != want);
            }
        }
    }
    println!(
        "letter tries right: {alone} of 96 alone ({alone_wrong} another try), {with} with the ear ({with_wrong}); the ear asked {asked} times, took {rescued} PocketSphinx rejected ({rescued_right} right), was torn {torn} times"
    );
    // 51 alone (17 another try), 65 with the ear (10), 7 taken although PocketSphinx rejected
    // them (6 right, all at 10 dB) when this was written; in the eighteenth round 50 (18),
    // 64 (9), 6 (5 right), the ear torn once; in the twentieth 50 (18), 63 (8), 6 (5 right),
    // torn 3 times; in the twenty-first (letters the ear cannot tell apart) 63 (7), torn 4;
    // in the twenty-third (the tries a try's letters sound like) 62 (7), torn 5.
    assert!(asked > 0);
    assert!(
        rescued_right > rescued - rescued_right,
        "the ear took {rescued} tries PocketSphinx rejected, {rescued_right} right"
    );
    assert!(
        with >= alone + 8,
        "with the ear {with} of 96, alone {alone}"
    );
    assert!(
        with_wrong + 4 <= alone_wrong,
        "another try: with the ear {with_wrong}, alone {alone_wrong}"
    );
}

/// Chatter and commands said in a free turn, clean and in pink noise 15 dB under the speech,
/// are never taken for a try by the ear, although PocketSphinx's grammar forces many onto one
/// before rejecting them (what the ear could take).
#[test]
fn the_ear_takes_no_chatter_for_a_try() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 21);
    let (_, mut eared) = alone_and_with_the_ear();
    const CHATTER: [&str; 8] = [
        "where is the bathroom",
        "banana",
        "concert",
        "I forgot my glasses",
        "seventy one",
        "offer draw",
        "castle",
        "pencil",
    ];
    let mut asked = 0;
    for voice in ["slt", "rms", "awb", "kal16"] {
        for text in CHATTER {
            let clean = say(voice, text, dir.path(), "utterance");
            for (level, samples) in &clean_and_noisy(clean, &noise) {
                let rec = heard_printed(&mut eared, &format!("{voice} {level} '{text}'"), samples);
                asked += usize::from(rec.try_ear.is_some());
                assert!(
                    !matches!(rec.heard, Heard::Try(_)),
                    "{voice} {level} '{text}': {rec:?}"
                );
            }
        }
    }
    println!("the ear was asked about {asked} of 64");
    assert!(
        asked > 0,
        "the grammar forced no chatter onto a try: nothing was tested"
    );
}

/// A free turn's commands said in pink noise 15 dB under the speech: with the ear, more are
/// taken at once (PocketSphinx rejects or would read back short words it heard rightly), none
/// as another command; and chatter, clean and in the same noise, is heard as without the ear.
#[test]
fn with_the_ear_more_commands_are_heard_in_room_noise() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 22);
    let (mut plain, mut eared) = alone_and_with_the_ear();
    let (mut alone, mut with, mut asked) = (0, 0, 0);
    for voice in ["slt", "rms", "awb", "kal16"] {
        for want in Command::ALL {
            let text = want.words();
            let noisy = room::mix(&say(voice, text, dir.path(), "utterance"), 15.0, |i| {
                noise[i % noise.len()]
            });
            let a = plain.hear(&noisy).unwrap();
            let b = eared.hear(&noisy).unwrap();
            println!(
                "{voice} '{text}': alone {}, with the ear {} {:?}",
                a.heard.id(),
                b.heard.id(),
                b.ear
            );
            asked += usize::from(b.ear.is_some());
            if a.heard != b.heard {
                // Only what PocketSphinx doubted, and only as the command it chose.
                assert!(
                    matches!(a.heard, Heard::Rejected | Heard::Unsure(_)),
                    "{voice} '{text}': {a:?} {b:?}"
                );
                assert_eq!(b.heard, Heard::Command(want), "{voice} '{text}': {b:?}");
                // "Confirm" and "cancel" only as sure as a read-back's answers.
                assert!(
                    !matches!(want, Command::Confirm | Command::Cancel)
                        || b.ear.is_some_and(|e| e.doubt <= ear::FREE_ANSWER_DOUBT),
                    "{voice} '{text}': {b:?}"
                );
            }
            alone += usize::from(a.heard == Heard::Command(want));
            with += usize::from(b.heard == Heard::Command(want));
        }
        for text in [
            "where is the bathroom",
            "banana",
            "concert",
            "happy",
            "nice move",
            "conference",
            "pencil",
        ] {
            let clean = say(voice, text, dir.path(), "utterance");
            let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
            for samples in [&clean, &noisy] {
                let (a, b) = (plain.hear(samples).unwrap(), eared.hear(samples).unwrap());
                assert_eq!(a.heard, b.heard, "{voice} '{text}': {b:?}");
            }
        }
    }
    println!(
        "commands taken at 15 dB: {alone} of 48 alone, {with} with the ear (asked {asked} times)"
    );
    assert!(asked > 0);
    // 23 alone, 35 with the ear when this was written; 37 in the eighteenth round.
    assert!(
        with >= alone + 8,
        "with the ear {with} of 48, alone {alone}"
    );
}

/// Words that sound like an answer ("conform", "pencil"), said while a read-back waits by
/// four voices, clean and in pink noise 15 dB under the speech: the ear takes none of them,
/// each heard as by PocketSphinx alone or dropped by the ear's veto (docs/VOICE.md, eleventh
/// round: "confirm" taken on both judges' fair certainty took "conform" and "conference").
#[test]
fn the_ear_takes_no_near_neighbour_for_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 23);
    let (mut plain, mut eared) = alone_and_with_the_ear();
    for voice in ["slt", "rms", "awb", "kal16"] {
        for text in [
            "conference",
            "conform",
            "comfort",
            "concern",
            "confess",
            "pencil",
            "council",
            "yesterday",
            "nobody",
        ] {
            let clean = say(voice, text, dir.path(), "utterance");
            let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
            for samples in [&clean, &noisy] {
                let (a, b) = (
                    plain.hear_reply(samples).unwrap(),
                    eared.hear_reply(samples).unwrap(),
                );
                assert!(
                    b.heard == a.heard || b.heard == Heard::Rejected,
                    "{voice} '{text}': {a:?} {b:?}"
                );
            }
        }
    }
}

/// Chatter PocketSphinx's answer grammar takes for an answer while a read-back waits, which
/// Moonshine is far from writing as one ("conference" by flite `rms`: "confirm" to
/// PocketSphinx, a doubt of 13.6 to the ear), is dropped: the read-back still waits. Answers
/// PocketSphinx takes, clean and in pink noise 15 dB, are kept.
#[test]
fn the_ear_drops_chatter_pocketsphinx_took_for_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 29);
    let recogniser = |ear: AnswerEar| {
        let mut r = Recognizer::new(&Model::default()).unwrap();
        r.set_ear(ear);
        r.set_turn(&Chess::default(), Color::White).unwrap();
        r
    };
    // Without the veto, nor the ear's own word (fifteenth round), which drops it too.
    let mut without = recogniser(
        ear()
            .with_answer_veto(f32::MAX)
            .with_other_word_doubt(f32::MAX),
    );
    let mut with = recogniser(ear());
    let chatter = say("rms", "conference", dir.path(), "u");
    let (a, b) = (
        without.hear_reply(&chatter).unwrap(),
        with.hear_reply(&chatter).unwrap(),
    );
    println!("'conference': without the veto {a:?}\nwith it {b:?}");
    assert_eq!(a.heard, Heard::Command(Command::Confirm), "{a:?}");
    assert_eq!(b.heard, Heard::Rejected, "{b:?}");
    assert!(b.ear.as_ref().is_some_and(|e| e.far), "{b:?}");
    let mut kept = 0;
    for voice in ["slt", "rms", "awb", "kal16"] {
        for (text, want) in ANSWERS {
            let clean = say(voice, text, dir.path(), "u");
            let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
            for samples in [&clean, &noisy] {
                let (a, b) = (
                    without.hear_reply(samples).unwrap(),
                    with.hear_reply(samples).unwrap(),
                );
                if a.heard == Heard::Command(want) {
                    assert_eq!(b.heard, a.heard, "{voice} '{text}': {b:?}");
                    kept += 1;
                }
            }
        }
    }
    assert!(kept >= 16, "answers heard: {kept} of 32");
}

/// PocketSphinx alone and with the ear, hearing with the room's model as `kriegspiel hear`
/// does.
fn in_the_room() -> (Recognizer, Recognizer) {
    let room = || {
        let mut r = Recognizer::adapted(&Model::default(), Adaptation::Room).unwrap();
        r.set_turn(&Chess::default(), Color::White).unwrap();
        r
    };
    let (plain, mut eared) = (room(), room());
    eared.set_ear(ear());
    (plain, eared)
}

/// espeak-ng's "conference", said while a read-back waits, is "confirm" to PocketSphinx (it
/// would play the try) and, to Moonshine, a word it would write itself: dropped, the read-back
/// still waits; "confused" in a free turn likewise. The answers these voices say are kept
/// (docs/VOICE.md, fifteenth round).
#[test]
fn a_word_the_ear_writes_otherwise_is_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut plain, mut eared) = in_the_room();
    for voice in ["en+f2", "en-gb-x-rp+m3"] {
        let chatter = espeak(voice, "conference", dir.path(), "u");
        let (a, b) = (
            plain.hear_reply(&chatter).unwrap(),
            eared.hear_reply(&chatter).unwrap(),
        );
        println!("{voice} 'conference': alone {a:?}\nwith the ear {b:?}");
        assert_eq!(a.heard, Heard::Command(Command::Confirm), "{voice}: {a:?}");
        assert_eq!(b.heard, Heard::Rejected, "{voice}: {b:?}");
        assert!(b.ear.is_some_and(|e| e.other), "{voice}: {b:?}");
    }
    let confused = espeak("en+f2", "confused", dir.path(), "u");
    let (a, b) = (
        plain.hear(&confused).unwrap(),
        eared.hear(&confused).unwrap(),
    );
    assert_eq!(a.heard, Heard::Command(Command::Confirm), "{a:?}");
    assert_eq!(b.heard, Heard::Rejected, "{b:?}");
    let mut kept = 0;
    for voice in ["en-us", "en+f2", "en-gb-x-rp+m3", "en-us+f3"] {
        for (text, want) in ANSWERS {
            let samples = espeak(voice, text, dir.path(), "u");
            let (a, b) = (
                plain.hear_reply(&samples).unwrap(),
                eared.hear_reply(&samples).unwrap(),
            );
            if a.heard == Heard::Command(want) {
                assert_eq!(b.heard, a.heard, "{voice} '{text}': {b:?}");
                kept += 1;
            }
        }
    }
    assert!(kept >= 12, "answers heard: {kept} of 16");
}

/// "Confirm" in espeak-ng's Caribbean English is "cancel" to PocketSphinx, in a read-back and
/// in a free turn, and "Confirm." to Moonshine beyond doubt: neither is taken, and the
/// read-back still waits ("cancel" for "confirm" would drop the try; the other way round,
/// play it).
#[test]
fn an_answer_the_judges_hear_otherwise_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let (mut plain, mut eared) = in_the_room();
    let samples = espeak("en-029+f4", "confirm", dir.path(), "u");
    for reply in [true, false] {
        let hear = |r: &mut Recognizer| {
            if reply {
                r.hear_reply(&samples).unwrap()
            } else {
                r.hear(&samples).unwrap()
            }
        };
        let (a, b) = (hear(&mut plain), hear(&mut eared));
        println!("read-back {reply}: alone {a:?}\nwith the ear {b:?}");
        assert_eq!(a.heard, Heard::Command(Command::Cancel), "{a:?}");
        assert_eq!(b.heard, Heard::Rejected, "{b:?}");
        assert!(
            b.ear
                .is_some_and(|e| e.best.eq_ignore_ascii_case("confirm")),
            "{b:?}"
        );
    }
}

/// Answers said in pink noise 15 and 10 dB under the speech that Moonshine, writing freely,
/// would write as nothing at all (it hears no speech there): its wish to write nothing is no
/// doubt between the answers, so the ear still takes many of them, and never as the other
/// answer (docs/VOICE.md, sixteenth round).
#[test]
fn an_answer_the_ear_would_write_as_nothing_is_still_heard() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 20);
    let mut ear = ear();
    let mut model = Moonshine::open(&AnswerEar::default_dir(), 1).unwrap();
    let (mut silent, mut taken) = (0, 0);
    for (n, (voice, shift)) in SHIFTED.into_iter().enumerate() {
        for (k, (text, want)) in ANSWERS.into_iter().enumerate() {
            let clean = say_shifted(voice, text, shift, dir.path(), "utterance");
            for snr in [15.0, 10.0] {
                let at = 7919 * (4 * n + k);
                let noisy = room::mix(&clean, snr, |i| noise[(i + at) % noise.len()]);
                let encoded = model.encode(&noisy).unwrap();
                let written = model.transcribe(&encoded, 1).unwrap();
                let heard = ear.hear(&noisy).unwrap();
                println!(
                    "{voice} '{text}' {snr} dB: Moonshine writes {written:?}; the ear {heard:?}"
                );
                assert!(
                    heard.answer.is_none_or(|a| a == want),
                    "{voice} '{text}': {heard:?}"
                );
                if written.text.is_empty() {
                    silent += 1;
                    taken += usize::from(heard.answer == Some(want));
                }
            }
        }
    }
    println!("{taken} of the {silent} answers Moonshine would write as nothing taken");
    // 4 of 8 when this was written; 2 of 8 while the wish to write nothing counted as doubt.
    assert!(silent >= 6 && taken >= 4, "{taken} of {silent}");
}

/// Answers and their near neighbours that the ear doubts a little (over
/// [`ear::DEFAULT_DOUBT`], within [`ear::WRITTEN_DOUBT`], leading the next answer by
/// [`ear::DEFAULT_MARGIN`]), by four voices, clean and in pink noise 15 dB under the speech:
/// Moonshine, asked to write what it heard, decides. An answer it writes itself ("Confirmed.")
/// is taken; a neighbour it writes as itself ("Conform,") or as an answer with more to come
/// ("Yes," for "yesterday") is not (docs/VOICE.md, seventeenth round).
#[test]
fn a_doubted_answer_is_taken_when_moonshine_writes_it_itself() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 23);
    let mut ear = ear();
    let mut model = Moonshine::open(&AnswerEar::default_dir(), 1).unwrap();
    let (mut answers, mut taken, mut neighbours) = (0, 0, 0);
    let said = ANSWERS.into_iter().map(|(text, want)| (text, Some(want)));
    let chatter = ["conform", "council", "yesterday", "nobody", "pencil"].map(|t| (t, None));
    for voice in ["slt", "rms", "awb", "kal16"] {
        for (text, want) in said.clone().chain(chatter) {
            let clean = say(voice, text, dir.path(), "utterance");
            for (level, samples) in &clean_and_noisy(clean, &noise) {
                let heard = ear.hear(samples).unwrap();
                assert!(
                    heard.answer.is_none() || heard.answer == want,
                    "{voice} '{text}' {level}: {heard:?}"
                );
                let doubted = heard.doubt > ear::DEFAULT_DOUBT
                    && heard.doubt <= ear::WRITTEN_DOUBT
                    && heard.margin >= ear::DEFAULT_MARGIN;
                if !doubted {
                    continue;
                }
                let encoded = model.encode(samples).unwrap();
                let written = model.transcribe(&encoded, 1).unwrap();
                println!("{voice} '{text}' {level}: Moonshine writes {written:?}; {heard:?}");
                if want.is_some() {
                    answers += 1;
                    taken += usize::from(heard.answer.is_some());
                } else {
                    neighbours += 1;
                }
            }
        }
    }
    println!("{taken} of {answers} doubted answers taken; {neighbours} doubted neighbours");
    // When this was written: 2 of 3 answers ("confirm" by awb and rms, written "Confirmed."),
    // and 4 neighbours ("conform" twice, "council", "yesterday"), every one taken by the
    // doubt alone.
    assert!(taken >= 2, "{taken} of {answers}");
    assert!(
        neighbours >= 3,
        "{neighbours} neighbours in the doubt written words decide"
    );
}

/// Tries said with letter names by three of espeak-ng's voices in pink noise 15 dB under the
/// speech. Where the ear prefers another try to PocketSphinx's by [`ear::TORN_MARGIN`] but not
/// enough to take it (by less than [`ear::DEFAULT_TRY_MARGIN`], or with a third as close), no
/// try is taken: the player is asked again rather than read back a try he did not say
/// (docs/VOICE.md, eighteenth and twentieth rounds).
#[test]
fn a_torn_ear_takes_no_try() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 22);
    let (_, mut eared) = in_the_room();
    let (mut torn, mut ear_right, mut sphinx_right, mut taken) = (0, 0, 0, 0);
    for voice in ["en-us+f3", "en+f2", "en-gb-x-gbclan+m7"] {
        for (text, want) in LETTER_TRIES {
            let clean = espeak(voice, text, dir.path(), "utterance");
            let noisy = room::mix(&clean, 15.0, |i| noise[i % noise.len()]);
            let rec = eared.hear(&noisy).unwrap();
            let Some(choice) = rec.try_ear.as_ref() else {
                continue;
            };
            let named = |k: usize| rec.alternatives.get(k).map(|w| w.candidate.to_uci());
            println!("{voice} '{text}': {} {choice:?}", rec.heard.id());
            taken += usize::from(choice.taken);
            assert!(!(choice.taken && choice.torn), "{rec:?}");
            // Torn by the judges' disagreement, not only because the ear could not tell
            // PocketSphinx's try from another (the next test's rule).
            if choice.torn && choice.best != 0 && choice.lead >= ear::TORN_MARGIN {
                torn += 1;
                assert_eq!(rec.heard, Heard::Rejected, "{voice} '{text}': {rec:?}");
                assert!(
                    choice.lead < ear::DEFAULT_TRY_MARGIN
                        || choice.margin < ear::TORN_MARGIN
                        || choice.doubt > ear::TRY_VETO
                );
                ear_right += usize::from(named(choice.best).as_deref() == Some(want));
                sphinx_right += usize::from(named(0).as_deref() == Some(want));
            }
        }
    }
    println!("the ear torn {torn} times (its best right {ear_right}, PocketSphinx's {sphinx_right}); took {taken}");
    // When this was written: torn 5 times, the ear's best right once, PocketSphinx's once;
    // the ear took another try in place of PocketSphinx's 4 times. With a lead of 4 to take
    // one (twentieth round): torn 7 times, right once each; took 2.
    assert!(torn >= 2, "torn {torn} times: nothing was tested");
    assert!(
        ear_right * 2 <= torn && sphinx_right * 2 <= torn,
        "of {torn} torn, the ear's best right {ear_right}, PocketSphinx's {sphinx_right}"
    );
    assert!(taken > 0);
}

/// Tries said with letter names by other voices of espeak-ng, clean and in pink noise 15 dB
/// under the speech. PocketSphinx's try is taken only when the ear scores it at least
/// [`ear::LETTERS_LEAD`] above every other alternative; under that the judges err far more
/// often, so no try is taken (docs/VOICE.md, twenty-first round): the tries this asks again
/// were wrong at least twice as often as the tries taken.
#[test]
fn letters_the_ear_cannot_tell_apart_are_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 23);
    let (_, mut eared) = in_the_room();
    let (mut asked_again, mut were_wrong, mut taken, mut taken_wrong) = (0, 0, 0, 0);
    for voice in ["en-us-nyc", "en-us+m2", "en-gb+f5", "en-gb-x-rp+klatt4"] {
        for (text, want) in LETTER_TRIES {
            let clean = espeak(voice, text, dir.path(), "utterance");
            for (level, samples) in &clean_and_noisy(clean, &noise) {
                let rec = heard_printed(&mut eared, &format!("{voice} {level} '{text}'"), samples);
                if let Heard::Try(t) = rec.heard {
                    taken += 1;
                    taken_wrong += usize::from(t.to_uci() != want);
                }
                let Some(choice) = rec.try_ear.as_ref() else {
                    continue;
                };
                if matches!(rec.heard, Heard::Try(_)) && !choice.taken && !choice.rescued {
                    assert!(
                        choice.first_lead() >= ear::LETTERS_LEAD,
                        "{voice} {level} '{text}': {rec:?}"
                    );
                }
                let disagree = choice.best != 0 && choice.lead >= ear::TORN_MARGIN;
                if choice.torn && !disagree {
                    assert_eq!(rec.heard, Heard::Rejected, "{voice} {level} '{text}'");
                    assert!(choice.first_lead() < ear::LETTERS_LEAD);
                    asked_again += 1;
                    let first = rec.alternatives.first().map(|w| w.candidate.to_uci());
                    were_wrong += usize::from(first.as_deref() != Some(want));
                }
            }
        }
    }
    println!("asked again {asked_again} times ({were_wrong} PocketSphinx's try wrong); took {taken} tries, {taken_wrong} wrong");
    // When this was written: asked again 9 times (3 wrong); took 51 tries, 6 wrong. With the
    // tries a try's letters sound like weighed too (twenty-third round): asked again 13 times
    // (5 wrong); took 46 tries, 3 wrong.
    assert!(
        asked_again >= 2,
        "asked again {asked_again} times: nothing was tested"
    );
    assert!(
        were_wrong * taken >= 2 * taken_wrong * asked_again,
        "asked again {asked_again} ({were_wrong} wrong), taken {taken} ({taken_wrong} wrong)"
    );
    assert!(
        taken_wrong * 5 <= taken,
        "{taken_wrong} of {taken} tries taken were wrong"
    );
}

/// A try PocketSphinx hears as another with no path naming the one said: espeak-ng's
/// `en-gb-x-rp+klatt4` says "a two to a three", heard as "f two to f three". The ear now also
/// weighs the tries a try's letters sound like (docs/VOICE.md, twenty-third round): the try
/// said is among those it weighed, and it is taken, or nothing is; never another try.
#[test]
fn the_ear_weighs_the_tries_a_tries_letters_sound_like() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 25);
    let (mut plain, mut eared) = in_the_room();
    let clean = espeak(
        "en-gb-x-rp+klatt4",
        "a two to a three",
        dir.path(),
        "utterance",
    );
    let (mut alone_wrong, mut right) = (0, 0);
    for (level, samples) in &clean_and_noisy(clean, &noise) {
        let alone = plain.hear(samples).unwrap();
        let rec = heard_printed(&mut eared, &format!("klatt4 {level}"), samples);
        println!(
            "  alone: {}; weighed {:?}",
            alone.heard.id(),
            rec.alternatives
        );
        alone_wrong += usize::from(matches!(alone.heard, Heard::Try(t) if t.to_uci() != "a2a3"));
        if matches!(rec.heard, Heard::Rejected) {
            continue;
        }
        assert_eq!(rec.heard.id(), "a2a3", "{level}: {rec:?}");
        right += 1;
        assert!(
            rec.alternatives
                .iter()
                .any(|w| w.candidate.to_uci() == "a2a3"),
            "{level}: {rec:?}"
        );
    }
    // When this was written: PocketSphinx alone heard "f2f3" both times; with the ear, "a2a3".
    assert!(
        alone_wrong >= 1,
        "PocketSphinx alone heard it right: nothing was tested"
    );
    assert!(right >= 1, "the ear took the try said at no level");
}

/// A try in letters the ear prefers to PocketSphinx's, but by little over a third: espeak-ng's
/// `en-gb-x-gbcwmd+f1` pitched up 80 cents says "rook a one to d one" (either rook may go to
/// b1 to e1), and the ear, sure it is not PocketSphinx's "a one to b one", hesitated between
/// "a one to e one" and the try said. The ear's own try in letters is held to the lead over
/// every other that PocketSphinx's is (docs/VOICE.md, twenty-fourth round): asked again,
/// never another try.
#[test]
fn the_ears_own_try_in_letters_must_lead_every_other() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 26);
    let (_, mut eared) = in_the_room();
    let position: Chess = "r4rk1/pp3ppp/2n1b3/3p4/3P4/2PB1N2/P4PPP/R4RK1 w - - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    eared.set_turn(&position, Color::White).unwrap();
    let clean = espeak_shifted(
        "en-gb-x-gbcwmd+f1",
        "rook a one to d one",
        "pitch 80",
        dir.path(),
        "utterance",
    );
    let mut close = 0;
    for (level, samples) in &clean_and_noisy(clean, &noise) {
        let rec = heard_printed(&mut eared, &format!("gbcwmd {level}"), samples);
        if let Heard::Try(t) = rec.heard {
            assert_eq!(t.to_uci(), "a1d1", "{level}: {rec:?}");
        }
        // The case this is about: the ear preferred another try to PocketSphinx's, well
        // enough to replace it, but led the next by less than LETTERS_LEAD.
        close += usize::from(rec.try_ear.as_ref().is_some_and(|c| {
            c.best != 0 && c.lead >= ear::DEFAULT_TRY_MARGIN && c.margin < ear::LETTERS_LEAD
        }));
    }
    assert!(
        close >= 1,
        "the ear was never close between two tries: nothing was tested"
    );
}

/// "Confirm" and "cancel" said in a free turn by the shifted voices, and their near neighbours,
/// clean and in pink noise 15 dB under the speech. Nothing waits for either there, and chatter
/// comes close ("conform", "pencil"): the ear takes one PocketSphinx doubted only when sure of
/// it as of a read-back's answer and Moonshine writes it itself (docs/VOICE.md, eighteenth
/// round). Chatter is never taken for either where PocketSphinx alone did not.
#[test]
fn a_free_turns_confirm_moonshine_writes_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 24);
    let (mut plain, mut eared) = in_the_room();
    let said = [
        ("confirm", Some(Command::Confirm)),
        ("cancel", Some(Command::Cancel)),
    ];
    let chatter = [
        "conform",
        "conference",
        "concert",
        "pencil",
        "council",
        "castle",
        "cancer",
    ]
    .map(|t| (t, None));
    let mut taken = 0;
    for (voice, shift) in SHIFTED {
        for (text, want) in said.into_iter().chain(chatter) {
            let clean = say_shifted(voice, text, shift, dir.path(), "utterance");
            for (level, samples) in &clean_and_noisy(clean, &noise) {
                let (a, b) = (plain.hear(samples).unwrap(), eared.hear(samples).unwrap());
                if a.heard == b.heard {
                    continue;
                }
                println!("{voice} '{text}' {level}: alone {a:?}\nwith the ear {b:?}");
                if !matches!(b.heard, Heard::Command(Command::Confirm | Command::Cancel)) {
                    continue;
                }
                let ear = b.ear.unwrap();
                assert_eq!(Some(ear.meaning), want, "{voice} '{text}' {level}");
                assert!(matches!(a.heard, Heard::Rejected | Heard::Unsure(_)));
                assert!(ear.doubt <= ear::FREE_ANSWER_DOUBT && ear.agrees, "{ear:?}");
                taken += 1;
            }
        }
    }
    println!("{taken} taken with the ear that PocketSphinx alone doubted");
    // When this was written: 1 ("confirm" by kal, clean); "conform" by kal, doubted 2.0 and
    // written "Confirm", was taken while the limit was 5.
    assert!(taken >= 1);
}

/// "Yes" in flite's `awb` voice, said while a read-back waits, is "knight" to PocketSphinx's
/// turn grammar. Where its answer grammar and the ear, sure by the ear's own limits, agree on
/// the answer, the answer is taken (docs/VOICE.md, eighteenth round). Commands said there
/// ("knight", "bishop", which the ear hears as "no" and "yes") are heard as by PocketSphinx
/// alone.
#[test]
fn an_answer_the_turn_grammar_took_for_a_command_is_heard() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 22);
    let (mut plain, mut eared) = in_the_room();
    let words = [
        ("yes", Some(Command::Confirm)),
        ("no", Some(Command::Cancel)),
        ("knight", None),
        ("bishop", None),
        ("rook", None),
        ("queen", None),
    ];
    let mut taken = 0;
    for shift in ["", "pitch 200", "tempo 0.9", "pitch 150 tempo 1.1"] {
        for (text, want) in words {
            let clean = say_shifted("awb", text, shift, dir.path(), "utterance");
            let noisy = room::mix(&clean, 20.0, |i| noise[i % noise.len()]);
            for (level, samples) in [("clean", &clean), ("20 dB", &noisy)] {
                let (a, b) = (
                    plain.hear_reply(samples).unwrap(),
                    eared.hear_reply(samples).unwrap(),
                );
                let Heard::Command(other) = a.heard else {
                    continue;
                };
                if matches!(other, Command::Confirm | Command::Cancel) || a.heard == b.heard {
                    continue;
                }
                println!("awb {shift} '{text}' {level}: alone {a:?}\nwith the ear {b:?}");
                assert_eq!(b.heard, Heard::Command(want.unwrap()), "{b:?}");
                assert!(b.ear.is_some_and(|e| e.agrees && !e.written), "{b:?}");
                taken += 1;
            }
        }
    }
    // When this was written: 3 ("yes" by awb with pitch 200 at 20 dB, with tempo 0.9 clean,
    // as it is at 20 dB).
    assert!(taken >= 2, "{taken} answers taken from another command");
}

/// "Yellow", said while a read-back waits, is "yes" to PocketSphinx's answer grammar in some
/// voices and noise, and only barely "yes" to the ear: dropped, the read-back still waits,
/// where an ear without the rule let it play the try. Every "yes" such an ear took from these
/// voices is still taken (docs/VOICE.md, twenty-second round).
#[test]
fn a_yes_the_ear_doubts_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 29);
    let recogniser = |ear: AnswerEar| {
        let mut r = Recognizer::adapted(&Model::default(), Adaptation::Room).unwrap();
        r.set_ear(ear);
        r.set_turn(&Chess::default(), Color::White).unwrap();
        r
    };
    let always = ear::Sureness {
        margin: f32::MIN,
        doubt: f32::MAX,
    };
    let mut loose = recogniser(ear().with_yes(always));
    let mut with = recogniser(ear());
    let (mut yellow, mut kept, mut yeses) = (0, 0, 0);
    for (voice, effects) in YES_VOICES {
        for text in ["yellow", "yes"] {
            let clean = espeak_shifted(voice, text, effects, dir.path(), "u");
            for snr in [None, Some(20.0), Some(15.0)] {
                let samples = match snr {
                    Some(snr) => room::mix(&clean, snr, |i| noise[i % noise.len()]),
                    None => clean.clone(),
                };
                let (a, b) = (
                    loose.hear_reply(&samples).unwrap(),
                    with.hear_reply(&samples).unwrap(),
                );
                println!(
                    "{voice} {effects} '{text}' {snr:?}: {} {} {:?}",
                    a.heard.id(),
                    b.heard.id(),
                    b.ear
                );
                let confirm = Heard::Command(Command::Confirm);
                if text == "yellow" {
                    assert_ne!(b.heard, confirm, "{voice} {effects} {snr:?}: {b:?}");
                    yellow += usize::from(a.heard == confirm);
                } else if a.heard == confirm {
                    yeses += 1;
                    kept += usize::from(b.heard == confirm);
                }
            }
        }
    }
    println!("'yellow' taken without the rule {yellow}; 'yes' {kept} of {yeses} kept");
    assert!(yellow >= 1, "no 'yellow' taken even without the rule");
    assert_eq!(kept, yeses);
}

/// Voices of espeak-ng, shifted, among them the one that said "yellow" as "yes".
const YES_VOICES: [(&str, &str); 6] = [
    ("en-gb+f5", "pitch -80 tempo 1.05"),
    ("en-gb+f5", ""),
    ("en-us+m2", "tempo 0.95"),
    ("en-us-nyc", ""),
    ("en-gb-x-rp+m3", "pitch 100"),
    ("en-us+f3", "pitch -60"),
];
