//! How `kriegspiel hall` starts its speech: speech-dispatcher is asked once for the whole
//! hall (absent or hung, it costs one try, not one per table) and one line says what every
//! table got; the round file's audio devices are checked whatever the speech options
//! (`--no-speech`, `no_speech`). The real program, keypad-only tables (no boards), a
//! private HOME with a test `.asoundrc`, a private speech-dispatcher
//! (`tests/tools/start-speechd.sh`) for the hung case.
//!
//! Needs espeak-ng, alsa-utils, speech-dispatcher and pulseaudio-utils
//! (tests/system-packages.sh installs them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::Guard;

#[path = "../../speech/tests/common/dispatcher.rs"]
mod dispatcher;
use dispatcher::Dispatcher;

/// A private HOME whose `.asoundrc` has one PCM, `headset` (a file).
fn home(dir: &Path) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".asoundrc"),
        format!(
            "pcm.headset {{ type file; slave.pcm \"null\"; file \"{}\"; format \"wav\" }}\n",
            dir.join("headset.wav").display()
        ),
    )
    .unwrap();
    home.display().to_string()
}

/// `n` keypad-only tables, with `audio` keys each.
fn round(n: usize, audio: &str) -> String {
    (1..=n)
        .map(|t| format!("[[table]]\nname = \"{t}\"\n{audio}\n"))
        .collect()
}

/// What a hall that started printed.
struct Started {
    /// From the start of the program to its last table's `opened` line.
    opened: Duration,
    stderr: String,
}

/// Runs `kriegspiel hall` on `round` with `args` and `env` until its `tables` tables have
/// opened, then resigns every game and waits for the hall's end.
fn start_hall(
    dir: &Path,
    round: &str,
    tables: usize,
    args: &[&str],
    env: &[(&str, String)],
) -> Started {
    let file = dir.join("round.toml");
    std::fs::write(&file, round).unwrap();
    let begun = Instant::now();
    let common::Running {
        mut hall,
        lines,
        stderr,
    } = common::hall(
        &file,
        &dir.join("round.sqlite"),
        args,
        env.iter().map(|(k, v)| (k, v)),
    );
    let limit = Instant::now() + Duration::from_secs(60);
    let mut opened = 0;
    while opened < tables {
        match lines.recv_timeout(limit.saturating_duration_since(Instant::now())) {
            Ok(l) => {
                let v: serde_json::Value = serde_json::from_str(&l).unwrap();
                opened += usize::from(v.get("opened").is_some());
            }
            Err(_) => {
                drop(hall);
                panic!(
                    "the hall did not open its tables: {}",
                    stderr.join().unwrap()
                );
            }
        }
    }
    let opened = begun.elapsed();
    let mut stdin = hall.0.stdin.take().unwrap();
    for t in 1..=tables {
        writeln!(
            stdin,
            "{{\"table\":{t},\"color\":\"white\",\"resign\":true}}"
        )
        .unwrap();
    }
    stdin.flush().unwrap();
    while lines
        .recv_timeout(limit.saturating_duration_since(Instant::now()))
        .is_ok()
    {}
    let status = hall.0.wait().unwrap();
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{stderr}");
    Started { opened, stderr }
}

/// `kriegspiel ARGS`, which must refuse to start (exit 2, within 30 s): its message.
fn refused(args: &[&str], env: &[(&str, String)]) -> String {
    let mut child = Guard(
        Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut pipe = child.0.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let limit = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= limit {
            drop(child);
            panic!(
                "{args:?} started instead of refusing: {}",
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    stderr
}

/// The lines of `stderr` that speak of speech.
fn speech_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            ["speech", "espeak", "headset", "NOBODY", "audio"]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect()
}

#[test]
fn a_hall_without_speech_dispatcher_asks_once_and_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("HOME", home(dir.path())),
        // Nothing listens there (and libspeechd starts no server for it).
        (
            "SPEECHD_ADDRESS",
            format!("unix_socket:{}", dir.path().join("absent.sock").display()),
        ),
    ];
    let run = start_hall(dir.path(), &round(4, ""), 4, &[], &env);
    let lines = speech_lines(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    let line = lines[0];
    assert!(line.starts_with("kriegspiel hall: speech: "), "{line}");
    assert_eq!(
        line.matches("speech-dispatcher not answering").count(),
        1,
        "{line}"
    );
    for says in [
        "public announcements by espeak-ng on the default output at tables 1–4",
        "no headsets at tables 1–4 (white_audio, black_audio): private messages reach only the text channels",
    ] {
        assert!(line.contains(says), "{line}");
    }
    assert!(line.matches("NOBODY HEARS").count() <= 1, "{line}");
}

#[test]
fn a_hung_speech_dispatcher_costs_the_hall_one_wait() {
    let dir = tempfile::tempdir().unwrap();
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    speechd.signal("-STOP");
    let env = [
        ("HOME", home(dir.path())),
        ("SPEECHD_ADDRESS", speechd.address.clone()),
    ];
    let run = start_hall(dir.path(), &round(4, ""), 4, &[], &env);
    speechd.signal("-CONT");
    // One wait of 15 s for the whole hall, where a wait per table would be 60 s (the margin
    // is for a loaded machine).
    assert!(
        run.opened < Duration::from_secs(25),
        "the hall took {:?} to open four tables",
        run.opened
    );
    let lines = speech_lines(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].contains("speech-dispatcher not answering (speech-dispatcher did not answer within 15 s); public announcements by espeak-ng on the default output at tables 1–4"),
        "{}",
        lines[0]
    );
}

#[test]
fn silenced_tables_still_have_their_devices_checked() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("HOME", home(dir.path()))];
    let file = dir.path().join("round.toml");
    let file_arg = file.display().to_string();
    let journal = dir.path().join("refused.sqlite").display().to_string();
    let hall = ["hall", "--config", &file_arg, "--journal", &journal];
    let cannot_open = "ALSA device 'hedset' cannot be opened (unknown PCM; audio open error: No such file or directory)";

    // --no-speech silences every table; the file's missing device is refused all the same.
    std::fs::write(
        &file,
        round(2, "white_audio = \"headset\"").replace(
            "name = \"2\"\nwhite_audio = \"headset\"",
            "name = \"2\"\nwhite_audio = \"hedset\"",
        ),
    )
    .unwrap();
    let e = refused(&[&hall[..], &["--no-speech"]].concat(), &env);
    assert!(
        e.contains(&format!(
            "{file_arg}: table 2 ('2'): white_audio: {cannot_open}"
        )),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // So does a table's own no_speech.
    std::fs::write(
        &file,
        "[[table]]\nname = \"1\"\nno_speech = true\nblack_audio = \"alsa:hedset\"\n",
    )
    .unwrap();
    let e = refused(&hall, &env);
    assert!(
        e.contains(&format!(
            "{file_arg}: table 1 ('1'): black_audio: {cannot_open}"
        )),
        "{e}"
    );
    // A PulseAudio sink with no server to ask: one line.
    std::fs::write(
        &file,
        "[[table]]\nname = \"1\"\nno_speech = true\nwhite_audio = \"pulse:headset\"\n",
    )
    .unwrap();
    let no_server = [
        env[0].clone(),
        (
            "PULSE_SERVER",
            format!("unix:{}", dir.path().join("no-pulse").display()),
        ),
    ];
    let e = refused(&hall, &no_server);
    assert!(
        e.contains("table 1 ('1'): white_audio: PulseAudio sink 'headset': no PulseAudio or PipeWire server answers ("),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // `kriegspiel table --no-speech` checks its devices too.
    let e = refused(
        &[
            "table",
            "wild16",
            "--no-speech",
            "--white-audio",
            "hedset",
            "--journal",
            &journal,
        ],
        &env,
    );
    assert!(e.contains(&format!("--white-audio: {cannot_open}")), "{e}");

    // A device that is there is taken, and the silent hall says nothing of speech.
    let run = start_hall(
        dir.path(),
        &round(2, "white_audio = \"headset\"")
            .replace("name = \"2\"\nwhite_audio = \"headset\"", "name = \"2\""),
        2,
        &["--no-speech"],
        &env,
    );
    assert_eq!(
        speech_lines(&run.stderr),
        Vec::<&str>::new(),
        "{}",
        run.stderr
    );
}
