//! A player's voice enrolment through the binaries, on speech synthesised at test time:
//! `kriegspiel enrol` takes the twenty phrases (as `--mic-wav` recordings) and writes his
//! transform, which `kriegspiel hear --enrolment` and `kriegspiel player --voice --enrolment`
//! use; an enrolment is never replaced unasked, and a file that is not one, a missing one and
//! a silent recording are said plainly before anything else happens. (What the transform
//! gains in noise is the voice crate's test and bench.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::voices::{run, synthesise};
use kriegspiel_voice::enrol::PHRASES;
use serde_json::Value;

fn kriegspiel(args: &[&str], files: &[PathBuf]) -> Output {
    Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(args)
        .args(files)
        .output()
        .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn mic_wavs(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .flat_map(|f| ["--mic-wav".to_owned(), f.display().to_string()])
        .collect()
}

fn enrol(out: &Path, files: &[PathBuf], more: &[&str]) -> Output {
    let mut args = vec![
        "enrol".to_owned(),
        "--out".to_owned(),
        out.display().to_string(),
    ];
    args.extend(more.iter().map(|s| (*s).to_owned()));
    args.extend(mic_wavs(files));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    kriegspiel(&args, &[])
}

#[test]
fn a_player_enrols_and_his_terminal_and_hear_use_it() {
    let dir = tempfile::tempdir().unwrap();
    let phrases: Vec<PathBuf> = PHRASES
        .iter()
        .enumerate()
        .map(|(n, text)| {
            let wav = dir.path().join(format!("phrase{n:02}.wav"));
            synthesise("flite:rms", text, &wav);
            wav
        })
        .collect();
    let file = dir.path().join("rms.enrolment");

    let out = enrol(&file, &phrases, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("Enrolled: ") && said(&out).contains("(20 of 20 phrases used)"),
        "{}",
        said(&out)
    );
    let written = std::fs::read(&file).unwrap();
    assert!(!written.is_empty());
    // His alone, whatever the umask.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A link planted at --out is replaced, never written through; a device or one of the
    // recordings as --out is refused before any work.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "the arbiter's notes").unwrap();
    let planted = dir.path().join("planted.enrolment");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let out = enrol(&planted, &phrases[..12], &["--replace"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the arbiter's notes"
    );
    assert!(!std::fs::symlink_metadata(&planted).unwrap().is_symlink());
    let out = enrol(Path::new("/dev/null"), &phrases[..12], &["--replace"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("is not a file (a device?)"),
        "{}",
        said(&out)
    );
    let out = enrol(&phrases[3], &phrases[..12], &["--replace"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("is the recording"), "{}", said(&out));

    // Never replaced unasked: another player's file stays as it was.
    let out = enrol(&file, &phrases[..12], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("--replace"), "{}", said(&out));
    assert_eq!(std::fs::read(&file).unwrap(), written);

    // Too few recordings, and a silent one, are refused before any work.
    let out = enrol(&dir.path().join("few"), &phrases[..3], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("give 10 to 20"), "{}", said(&out));
    let silence = dir.path().join("silence.wav");
    run(Command::new("sox")
        .args(["-n", "-r", "16000", "-c", "1", "-b", "16"])
        .arg(&silence)
        .args(["trim", "0", "1"]));
    let mut with_silence = phrases.clone();
    with_silence[4] = silence.clone();
    let out = enrol(&dir.path().join("silent"), &with_silence, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("no speech in it (phrase 5"),
        "{}",
        said(&out)
    );
    assert!(!dir.path().join("silent").exists());

    // The same voice, heard with its enrolment.
    let confirm = dir.path().join("confirm.wav");
    let try_ = dir.path().join("try.wav");
    synthesise("flite:rms", "confirm", &confirm);
    synthesise("flite:rms", "golf one to foxtrot three", &try_);
    let out = kriegspiel(
        &["hear", "--enrolment", file.to_str().unwrap()],
        &[confirm.clone(), try_.clone()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["command"], "confirm", "{lines:?}");
    assert_eq!(lines[1]["try"], "g1f3", "{lines:?}");

    // A file that is not an enrolment, and one that is not there, are said as such; the
    // player's terminal says so before it looks for a console.
    let junk = dir.path().join("junk.enrolment");
    std::fs::write(&junk, [0xbf, 0xd3, 0x89, 0xa7, 0x00, 0x17]).unwrap();
    let out = kriegspiel(
        &["hear", "--enrolment", junk.to_str().unwrap()],
        std::slice::from_ref(&confirm),
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("it is not a voice enrolment (make one with kriegspiel enrol)"),
        "{}",
        said(&out)
    );
    let nowhere = dir.path().join("no-console.sock");
    let out = kriegspiel(
        &[
            "player",
            "--table",
            "1",
            "--color",
            "white",
            "--code",
            "1234",
            "--socket",
            nowhere.to_str().unwrap(),
            "--voice",
            "--enrolment",
            dir.path().join("missing").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("voice transform is missing"),
        "{}",
        said(&out)
    );
    assert!(!said(&out).contains("no console answers"), "{}", said(&out));
    // His enrolment replaces the room adaptation; the plain model is a choice of --voice.
    let out = kriegspiel(
        &[
            "player",
            "--color",
            "white",
            "--voice",
            "--plain-model",
            "--enrolment",
            "x",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("cannot be used with"), "{}", said(&out));
    let out = kriegspiel(&["player", "--color", "white", "--plain-model"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("--voice"), "{}", said(&out));
    // The second ear is the voice terminal's (and `hear`'s, with or without `--reply`).
    let out = kriegspiel(&["player", "--color", "white", "--no-moonshine"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("--voice"), "{}", said(&out));
    // The terminal's speech is the voice terminal's.
    let out = kriegspiel(&["player", "--color", "white", "--speak"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("give --voice too"), "{}", said(&out));
}

/// At the table: each phrase asked, push-to-talk on Enter; nothing heard is asked again;
/// `q` stops and writes nothing.
#[test]
fn the_enrolment_asks_each_phrase_and_stops_on_q_without_writing() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("anna.voice");
    let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["enrol", "--mic", "null", "--out"])
        .arg(&file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Enter, Enter at once (nothing said), then q.
    child.stdin.take().unwrap().write_all(b"\n\nq\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let expected = [
        "Voice enrolment: 20 short phrases.",
        "Phrase 1 of 20: confirm cancel confirm.",
        "Listening...",
        "Nothing heard. Again:",
        "Phrase 1 of 20: confirm cancel confirm.",
        "Stopped: nothing written.",
    ];
    let mut at = 0;
    for line in expected {
        let found = text[at..]
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} not in order in:\n{text}"));
        at += found + line.len();
    }
    assert!(!file.exists());
}
