//! `kriegspiel enrol --out FILE`: a player's voice enrolment, made at the table before the
//! round. He says twenty short phrases (push-to-talk on Enter, as in play); SphinxTrain fits
//! the recogniser's acoustic model to his voice, his microphone and the room's noise, and the
//! result goes to FILE, which `kriegspiel player --voice --enrolment FILE` uses. Everything
//! that can stop it (the file, the tools, the model) is checked before he says a word.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use kriegspiel_hall::private_file::{same_file, write_private, Existing};
use kriegspiel_voice::enrol::{Tools, PHRASES};
use kriegspiel_voice::{wav, Microphone, Model};

use crate::headset::{say, SpeakArgs, SpeakTo, MAX_UTTERANCE};

const PROGRAM: &str = "kriegspiel enrol";
/// Fewer phrases than this fit the transform to the few words said, not to the voice.
pub const MIN_PHRASES: usize = 10;
/// A recording shorter than this, or never louder than [`QUIET`], is taken for nothing said.
const MIN_SPEECH: Duration = Duration::from_millis(300);
const QUIET: i16 = 300;
/// Tries of one phrase before it is skipped.
const TRIES: usize = 3;
/// The longest line read from his keys.
const MAX_KEY_LINE: usize = 256;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the enrolment goes (one file per player); give it to `kriegspiel player
    /// --voice --enrolment FILE`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Replace the enrolment already at --out (it is never replaced otherwise).
    #[arg(long)]
    replace: bool,
    /// The microphone: an ALSA capture device as `arecord -L` lists it, the one he plays
    /// with (e.g. plughw:CARD=Headset,DEV=0).
    #[arg(long, value_name = "DEVICE", default_value = "default")]
    mic: String,
    /// Instead of the microphone, the phrases' recordings, in the order they are asked (at
    /// least 10 of the 20; to enrol from earlier recordings, and for tests). Repeat the
    /// option for each file.
    #[arg(long = "mic-wav", value_name = "FILE", conflicts_with = "speak")]
    mic_wav: Vec<PathBuf>,
    #[command(flatten)]
    speak: SpeakArgs,
}

pub fn run(args: Args) -> ExitCode {
    enrol(&args).unwrap_or_else(|code| code)
}

fn usage(e: &str) -> ExitCode {
    eprintln!("{PROGRAM}: {e}");
    ExitCode::from(2)
}

/// A failure once the work has begun (status 1): nothing the command line could mend.
fn failed(e: &str) -> ExitCode {
    eprintln!("{PROGRAM}: {e}");
    ExitCode::FAILURE
}

fn enrol(args: &Args) -> Result<ExitCode, ExitCode> {
    check_out(&args.out, args.replace, &args.mic_wav).map_err(|e| usage(&e))?;
    if !args.mic_wav.is_empty() && !(MIN_PHRASES..=PHRASES.len()).contains(&args.mic_wav.len()) {
        return Err(usage(&format!(
            "{} recordings given: give {MIN_PHRASES} to {} (one per phrase, in order)",
            args.mic_wav.len(),
            PHRASES.len()
        )));
    }
    let tools = Tools::default();
    tools.check().map_err(|e| usage(&e.to_string()))?;
    let model = Model::default();
    // The model and PocketSphinx, before he says a word.
    kriegspiel_voice::Recognizer::new(&model).map_err(|e| usage(&e.to_string()))?;
    let dir = tempfile::Builder::new()
        .prefix("kriegspiel-enrol-")
        .tempdir()
        .map_err(|e| usage(&format!("cannot make a temporary folder: {e}")))?;
    let said = if args.mic_wav.is_empty() {
        let speak = args.speak.to();
        match record(&args.mic, speak.as_ref(), dir.path())? {
            Some(said) => said,
            None => {
                println!("Stopped: nothing written.");
                return Ok(ExitCode::FAILURE);
            }
        }
    } else {
        from_files(&args.mic_wav)?
    };
    if said.len() < MIN_PHRASES {
        eprintln!(
            "{PROGRAM}: {} phrases heard, {MIN_PHRASES} are needed: nothing written; enrol again",
            said.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    println!("Fitting the recogniser to your voice...");
    let part = dir.path().join("enrolment");
    match kriegspiel_voice::enrol(&model, &tools, &said, &part) {
        Ok(e) if e.aligned < MIN_PHRASES => {
            eprintln!(
                "{PROGRAM}: only {} of {} recordings matched their phrase's words: nothing written; enrol again, saying each phrase as shown",
                e.aligned, e.phrases
            );
            Ok(ExitCode::FAILURE)
        }
        Ok(e) => {
            // Written whole or not at all, his alone, never through a link planted at
            // --out, and never onto a recording it was made from.
            let existing = if args.replace {
                Existing::Replace
            } else {
                Existing::Refuse
            };
            let sources: Vec<&Path> = args.mic_wav.iter().map(PathBuf::as_path).collect();
            std::fs::read(&part)
                .map_err(|err| failed(&format!("cannot read the enrolment made: {err}")))
                .and_then(|bytes| {
                    write_private(&args.out, &bytes, existing, &sources)
                        .map_err(|err| failed(&format!("{err}; nothing written")))
                })?;
            println!(
                "Enrolled: {} ({} of {} phrases used). Play with: kriegspiel player --voice --enrolment {}",
                args.out.display(),
                e.aligned,
                e.phrases,
                args.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}; nothing written");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Refuses an --out that would replace an enrolment unasked, or that cannot be written.
fn check_out(out: &Path, replace: bool, recordings: &[PathBuf]) -> Result<(), String> {
    if out.is_dir() {
        return Err(format!("--out {} is a folder: give a file", out.display()));
    }
    let there = std::fs::symlink_metadata(out);
    if there.is_ok() && !replace {
        return Err(format!(
            "{} exists (another player's enrolment?): give another --out, or --replace to replace it",
            out.display()
        ));
    }
    if there.is_ok_and(|m| !m.is_file() && !m.is_symlink()) {
        return Err(format!(
            "--out {} is not a file (a device?): give a file",
            out.display()
        ));
    }
    if let Some(wav) = recordings.iter().find(|wav| same_file(out, wav)) {
        return Err(format!(
            "--out {} is the recording {}: give another file",
            out.display(),
            wav.display()
        ));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!(
            "--out {}: there is no folder {}",
            out.display(),
            parent.display()
        ));
    }
    Ok(())
}

/// Whether a recording holds speech: long enough, and louder than a silent microphone.
fn heard_something(samples: &[i16]) -> bool {
    let long = samples.len() as u64 * 1000 / 16_000 >= MIN_SPEECH.as_millis() as u64;
    long && samples
        .iter()
        .any(|s| s.unsigned_abs() > QUIET.unsigned_abs())
}

fn keep(dir: &Path, n: usize, samples: &[i16]) -> Result<PathBuf, ExitCode> {
    let path = dir.join(format!("phrase-{n:02}.wav"));
    std::fs::write(&path, wav::wav_bytes(samples))
        .map_err(|e| failed(&format!("cannot keep a recording: {e}")))?;
    Ok(path)
}

/// The recordings given, each the next phrase's (the enrolment reads them where they are).
fn from_files(files: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, ExitCode> {
    let mut said = Vec::new();
    for (n, (file, phrase)) in files.iter().zip(PHRASES).enumerate() {
        let samples =
            wav::read_wav(file).map_err(|e| usage(&format!("{}: {e}", file.display())))?;
        if !heard_something(&samples) {
            return Err(usage(&format!(
                "{}: no speech in it (phrase {}, \"{phrase}\")",
                file.display(),
                n + 1
            )));
        }
        said.push((file.clone(), phrase.to_owned()));
    }
    Ok(said)
}

/// His keys, a line at a time, from a thread of their own (a recording stops on Enter or
/// by itself).
fn key_lines() -> Receiver<Option<String>> {
    let (tx, rx) = mpsc::sync_channel(4);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lines = bounded_lines::LineReader::with_limit(stdin.lock(), MAX_KEY_LINE);
        loop {
            let line = match lines.next_line() {
                Ok(Some(Ok(l))) => Some(l.to_owned()),
                // A line too long is a key held down: as good as Enter.
                Ok(Some(Err(_))) => Some(String::new()),
                Ok(None) | Err(_) => None,
            };
            let end = line.is_none();
            if tx.send(line).is_err() || end {
                return;
            }
        }
    });
    rx
}

fn tell(text: &str, speak: Option<&SpeakTo>) {
    println!("{text}");
    let _ = std::io::stdout().flush();
    if let Some(to) = speak {
        if let Err(e) = say(to, text, |_| {}) {
            eprintln!("{PROGRAM}: cannot speak: {e}");
        }
    }
}

/// The twenty phrases from the microphone; `None`: he stopped (q, or his keys closed).
fn record(
    mic: &str,
    speak: Option<&SpeakTo>,
    dir: &Path,
) -> Result<Option<Vec<(PathBuf, String)>>, ExitCode> {
    let keys = key_lines();
    let mic = Microphone::new(mic);
    tell(
        &format!(
            "Voice enrolment: {} short phrases. For each, press Enter, say it as you would at the table, and press Enter. q and Enter stops without saving.",
            PHRASES.len()
        ),
        speak,
    );
    let mut said = Vec::new();
    for (n, phrase) in PHRASES.iter().enumerate() {
        for attempt in 1..=TRIES {
            tell(
                &format!("Phrase {} of {}: {phrase}.", n + 1, PHRASES.len()),
                speak,
            );
            match keys.recv() {
                Ok(Some(l)) if l.trim() == "q" => return Ok(None),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return Ok(None),
            }
            let recording = mic.start().map_err(|e| usage(&e.to_string()))?;
            println!("Listening...");
            // Enter, or the longest utterance, ends it; q or his keys closing stops all.
            let stop = match keys.recv_timeout(MAX_UTTERANCE) {
                Ok(Some(l)) => l.trim() == "q",
                Err(RecvTimeoutError::Timeout) => false,
                Ok(None) | Err(RecvTimeoutError::Disconnected) => true,
            };
            let samples = recording.stop().map_err(|e| usage(&e.to_string()))?;
            if stop {
                return Ok(None);
            }
            if heard_something(&samples) {
                said.push((keep(dir, n + 1, &samples)?, (*phrase).to_owned()));
                break;
            }
            if attempt == TRIES {
                tell("Nothing heard again: that phrase is skipped.", speak);
            } else {
                tell("Nothing heard. Again:", speak);
            }
        }
    }
    Ok(Some(said))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn an_enrolment_is_never_replaced_unasked() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("anna.mllr");
        assert!(check_out(&out, false, &[]).is_ok());
        std::fs::write(&out, "kept").unwrap();
        let e = check_out(&out, false, &[]).unwrap_err();
        assert!(e.contains("--replace"), "{e}");
        assert!(check_out(&out, true, &[]).is_ok());
        let e = check_out(dir.path(), true, &[]).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        let e = check_out(&dir.path().join("no/such.mllr"), false, &[]).unwrap_err();
        assert!(e.contains("there is no folder"), "{e}");
    }

    #[test]
    fn silence_and_a_click_are_nothing_said() {
        assert!(!heard_something(&[0; 16_000]));
        assert!(!heard_something(&[5_000; 3_000]));
        let mut speech = vec![0i16; 16_000];
        speech[8_000] = 2_000;
        assert!(heard_something(&speech));
    }
}
