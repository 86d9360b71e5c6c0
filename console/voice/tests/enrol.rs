//! Per-player enrolment (`kriegspiel_voice::enrol`) on speech synthesised at test time: a
//! held-out-like voice (flite `kal16`, pitched down 250 cents and sped up 12 % by sox) says the
//! 20 enrolment phrases in a room of pink noise 15 dB under its speech; SphinxTrain computes
//! its MLLR transform; the recogniser with that transform hears the 12 commands and the
//! read-back's "confirm" and "cancel", said by the same voice in the same room, better than
//! without it, and still never takes chatter for a try or "confirm". The figures on the
//! held-out set are the bench's (`HELDOUT_ENROL`, docs/VOICE.md). The room adaptation, what
//! a player without an enrolment hears with, is checked on the same voice and room.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command as Process;

#[path = "support/room.rs"]
mod room;

use kriegspiel_voice::enrol::{enrol, Tools, PHRASES};
use kriegspiel_voice::{wav, Adaptation, Command, Heard, Model, Recognizer};
use shakmaty::{Chess, Color};

const VOICE: &str = "kal16";
const EFFECTS: [&str; 4] = ["pitch", "-250", "tempo", "1.12"];
const SNR: f64 = 15.0;

fn say(text: &str, dir: &Path, name: &str) -> Vec<i16> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    let ok = Process::new("flite")
        .args(["-voice", VOICE, "-t", text, "-o"])
        .arg(&raw)
        .status()
        .expect("flite")
        .success();
    assert!(ok, "flite {text}");
    let ok = Process::new("sox")
        .arg("-R")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(&out)
        .args(EFFECTS)
        .status()
        .expect("sox")
        .success();
    assert!(ok, "sox");
    wav::read_wav(&out).unwrap()
}

/// `speech` in the room, `SNR` dB under it; `offset` picks where in the noise.
fn in_room(speech: &[i16], noise: &[f64], offset: usize) -> Vec<i16> {
    room::mix(speech, SNR, |i| noise[(offset * 7919 + i) % noise.len()])
}

/// Commands heard right in a free turn, "confirm"/"cancel" heard right while a read-back
/// waits, and chatter taken for a try or "confirm" (either way).
fn hear(
    r: &mut Recognizer,
    commands: &[(Command, Vec<i16>)],
    chatter: &[Vec<i16>],
) -> (usize, usize, usize) {
    r.set_turn(&Chess::default(), Color::White).unwrap();
    let mut right = 0;
    let mut answers = 0;
    for (c, audio) in commands {
        right += usize::from(r.hear(audio).unwrap().heard == Heard::Command(*c));
        if matches!(c, Command::Confirm | Command::Cancel) {
            answers += usize::from(r.hear_reply(audio).unwrap().heard == Heard::Command(*c));
        }
    }
    let mut bad = 0;
    for audio in chatter {
        for heard in [
            r.hear(audio).unwrap().heard,
            r.hear_reply(audio).unwrap().heard,
        ] {
            bad += usize::from(matches!(
                heard,
                Heard::Try(_) | Heard::Command(Command::Confirm)
            ));
        }
    }
    (right, answers, bad)
}

#[test]
fn an_enrolled_voice_is_heard_better_in_room_noise() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 30);
    let mut phrases: Vec<(PathBuf, String)> = Vec::new();
    for (k, text) in PHRASES.iter().enumerate() {
        let audio = in_room(&say(text, dir.path(), "phrase"), &noise, 1000 + k);
        let path = dir.path().join(format!("phrase{k}.wav"));
        std::fs::write(&path, wav::wav_bytes(&audio)).unwrap();
        phrases.push((path, (*text).to_owned()));
    }
    let transform = dir.path().join("player.mllr");
    let model = Model::default();
    let e = enrol(&model, &Tools::default(), &phrases, &transform).unwrap();
    println!("{e:?}");
    assert_eq!((e.phrases, e.aligned), (20, 20));
    assert!(e.frames > 20 * 100, "{e:?}");
    // One regression class, three feature streams of 13 coefficients.
    let text = std::fs::read_to_string(&transform).unwrap();
    let head: Vec<&str> = text.split_whitespace().take(3).collect();
    assert_eq!(head, ["1", "3", "13"]);

    // A recording that cannot be the words given ("no" for a long phrase) is left out.
    let short = dir.path().join("short.wav");
    std::fs::write(&short, wav::wav_bytes(&say("no", dir.path(), "short"))).unwrap();
    let mut more = phrases.clone();
    more.push((
        short,
        "bishop charlie one takes hotel six castle kingside castle queenside".into(),
    ));
    let other = dir.path().join("other.mllr");
    let e = enrol(&model, &Tools::default(), &more, &other).unwrap();
    assert_eq!((e.phrases, e.aligned), (21, 20), "{e:?}");

    let commands: Vec<(Command, Vec<i16>)> = Command::ALL
        .iter()
        .enumerate()
        .map(|(k, c)| (*c, in_room(&say(c.words(), dir.path(), "c"), &noise, k)))
        .collect();
    let chatter: Vec<Vec<i16>> = [
        "where is the bathroom",
        "banana",
        "conference",
        "thirty three",
    ]
    .iter()
    .enumerate()
    .map(|(k, t)| in_room(&say(t, dir.path(), "chatter"), &noise, 100 + k))
    .collect();
    let plain = hear(&mut Recognizer::new(&model).unwrap(), &commands, &chatter);
    let adapted = hear(
        &mut Recognizer::adapted(&model, Adaptation::Player(&transform)).unwrap(),
        &commands,
        &chatter,
    );
    println!(
        "{VOICE} {EFFECTS:?} at {SNR} dB: commands {} -> {} of 12, confirm/cancel in a read-back {} -> {} of 2, chatter as try/confirm {} -> {} of {}",
        plain.0, adapted.0, plain.1, adapted.1, plain.2, adapted.2, 2 * chatter.len()
    );
    assert!(adapted.0 > plain.0, "commands: {plain:?} -> {adapted:?}");
    assert!(adapted.1 >= plain.1, "answers: {plain:?} -> {adapted:?}");
    assert_eq!(adapted.2, 0, "chatter taken for a try or confirm");
}

#[test]
fn a_missing_transform_is_an_error() {
    let e = Recognizer::adapted(
        &Model::default(),
        Adaptation::Player(Path::new("/nonexistent/x.mllr")),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the player's voice transform is missing (/nonexistent/x.mllr)"
    );
}

/// The room adaptation ([`Adaptation::Room`]) was computed from `kal16` among others, but
/// neither pitched down nor sped up, and in other stretches of noise: the commands this
/// voice says in room noise are heard better with it than with the plain model, the
/// read-back's answers no worse, and chatter is still never a try or "confirm".
#[test]
fn the_room_adaptation_hears_a_shifted_voice_better_in_room_noise() {
    let dir = tempfile::tempdir().unwrap();
    let noise = room::pink(dir.path(), 30);
    // Each command twice, in two stretches of the noise.
    let commands: Vec<(Command, Vec<i16>)> = Command::ALL
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            let speech = say(c.words(), dir.path(), "c");
            [200 + k, 250 + k].map(|at| (*c, in_room(&speech, &noise, at)))
        })
        .collect();
    let chatter: Vec<Vec<i16>> = ["is it my turn", "lemon", "counsel", "forty two"]
        .iter()
        .enumerate()
        .map(|(k, t)| in_room(&say(t, dir.path(), "chatter"), &noise, 300 + k))
        .collect();
    let model = Model::default();
    let plain = hear(
        &mut Recognizer::adapted(&model, Adaptation::Plain).unwrap(),
        &commands,
        &chatter,
    );
    let room = hear(
        &mut Recognizer::adapted(&model, Adaptation::Room).unwrap(),
        &commands,
        &chatter,
    );
    println!(
        "{VOICE} {EFFECTS:?} at {SNR} dB: commands {} -> {} of 24, confirm/cancel in a read-back {} -> {} of 4, chatter as try/confirm {} -> {}",
        plain.0, room.0, plain.1, room.1, plain.2, room.2
    );
    assert!(room.0 > plain.0, "commands: {plain:?} -> {room:?}");
    assert!(room.1 >= plain.1, "answers: {plain:?} -> {room:?}");
    assert_eq!(room.2, 0, "chatter taken for a try or confirm");
}

/// The room adaptation fits the installed model, as a player's enrolment must.
#[test]
fn the_room_adaptation_fits_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.mllr");
    std::fs::write(&path, kriegspiel_voice::recognizer::ROOM_TRANSFORM).unwrap();
    kriegspiel_voice::transform::check(&Model::default().acoustic, &path).unwrap();
}
