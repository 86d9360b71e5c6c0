//! Per-player enrolment (`kriegspiel_voice::enrol`) on speech synthesised at test time: a
//! held-out-like voice (flite `kal16`, pitched down 250 cents and sped up 12 % by sox) says the
//! 20 enrolment phrases in a room of pink noise 15 dB under its speech; SphinxTrain computes
//! its MLLR transform; the recogniser with that transform hears the 12 commands and the
//! read-back's "confirm" and "cancel", said by the same voice in the same room, better than
//! without it, and still never takes chatter for a try or "confirm". The figures on the
//! held-out set are the bench's (`HELDOUT_ENROL`, docs/VOICE.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use kriegspiel_voice::enrol::{enrol, Tools, PHRASES};
use kriegspiel_voice::{wav, Command, Heard, Model, Recognizer};
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

/// sox's pink noise (`-R`: the same every run), 30 s.
fn pink(dir: &Path) -> Vec<f64> {
    let pink = dir.join("pink.wav");
    let ok = Process::new("sox")
        .args(["-R", "-n", "-r", "16000", "-c", "1", "-b", "16"])
        .arg(&pink)
        .args(["synth", "30", "pinknoise", "vol", "0.3"])
        .status()
        .expect("sox")
        .success();
    assert!(ok);
    wav::read_wav(&pink)
        .unwrap()
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

/// `speech` with the room's noise `SNR` dB under its power (its loud 20 ms frames), 300 ms of
/// room before and after; `offset` picks where in the noise.
fn in_room(speech: &[i16], noise: &[f64], offset: usize) -> Vec<i16> {
    let power = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64;
    let s: Vec<f64> = speech.iter().map(|&v| f64::from(v)).collect();
    let frames: Vec<f64> = s.chunks(320).map(power).collect();
    let loudest = frames.iter().copied().fold(0.0, f64::max);
    let active: Vec<f64> = frames
        .into_iter()
        .filter(|p| *p > loudest / 1000.0)
        .collect();
    let p_speech = active.iter().sum::<f64>() / active.len().max(1) as f64;
    let pad = 4800;
    let n = s.len() + 2 * pad;
    let room: Vec<f64> = (0..n)
        .map(|i| noise[(offset * 7919 + i) % noise.len()])
        .collect();
    let gain = (p_speech / 10f64.powf(SNR / 10.0) / power(&room)).sqrt();
    (0..n)
        .map(|i| {
            let v = if (pad..pad + s.len()).contains(&i) {
                s[i - pad]
            } else {
                0.0
            };
            (v + gain * room[i]).round().clamp(-32768.0, 32767.0) as i16
        })
        .collect()
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
    let noise = pink(dir.path());
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
        &mut Recognizer::with_transform(&model, Some(&transform)).unwrap(),
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
    let e = Recognizer::with_transform(&Model::default(), Some(Path::new("/nonexistent/x.mllr")))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the player's voice transform is missing (/nonexistent/x.mllr)"
    );
}
