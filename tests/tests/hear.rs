//! `kriegspiel hear` through the binary, on speech synthesised with flite: a try, chatter
//! rejected, a WAV at another rate converted, a missing file and a bad FEN named; `--reply`
//! (as while a read-back waits): "cancel" and a new try heard, chatter neither a try nor a
//! "confirm"; a command heard too faintly to act on at once marked `read_back`; the room
//! adaptation heard by default, the plain model with `--plain-model`; the second ear
//! (Moonshine) asked about answers, left out with `--no-moonshine`, its absence said; a word
//! it writes otherwise ("conference") no answer; a recording turned down 40 dB raised and
//! heard; chatter the second ear could hardly write no try (recordings in tests/speech/).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use kriegspiel_tests::link_util::cargo_bin;
use serde_json::Value;

/// The voice crate's test synthesis (flite, espeak-ng), resampled alike.
#[path = "../../console/voice/tests/support/flite.rs"]
mod synth;

fn say(text: &str, wav: &Path) {
    say_as("slt", text, wav);
}

fn say_as(voice: &str, text: &str, wav: &Path) {
    let status = Command::new("flite")
        .args(["-voice", voice, "-t", text, "-o"])
        .arg(wav)
        .status()
        .expect("flite is installed by tests/system-packages.sh");
    assert!(status.success());
}

/// `speech` (a file in `dir`) at 16 kHz, changed by the sox `effects`, with sox's pink noise
/// (volume 0.06) under it, written to `out` in `dir`.
fn in_pink_noise(dir: &Path, speech: &str, effects: &[&str], out: &str) {
    let sox = |args: &[&str]| {
        let ok = Command::new("sox")
            .arg("-R")
            .args(args)
            .current_dir(dir)
            .status()
            .expect("sox is installed by tests/system-packages.sh")
            .success();
        assert!(ok, "sox {args:?}");
    };
    sox(&[speech, "-r", "16000", "-c", "1", "-b", "16", "voice.wav"]);
    let mut shift = vec!["voice.wav", "shifted.wav"];
    shift.extend(effects);
    sox(&shift);
    sox(&[
        "-n",
        "-r",
        "16000",
        "-c",
        "1",
        "-b",
        "16",
        "noise.wav",
        "synth",
        "4",
        "pinknoise",
        "vol",
        "0.06",
    ]);
    let seconds = Command::new("soxi")
        .args(["-D", "shifted.wav"])
        .current_dir(dir)
        .output()
        .unwrap();
    let seconds = String::from_utf8_lossy(&seconds.stdout).trim().to_owned();
    sox(&["-m", "shifted.wav", "noise.wav", out, "trim", "0", &seconds]);
}

/// `kriegspiel hear ARGS FILES`, which must succeed: its JSON lines.
fn hear_lines(args: &[&str], files: &[std::path::PathBuf]) -> Vec<Value> {
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .arg("hear")
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn hear_answers_one_line_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    say("golf one to foxtrot three", &p("try.wav"));
    say("the weather is lovely today", &p("chatter.wav"));
    say("any", &p("any.wav"));
    let status = Command::new("sox")
        .arg(p("try.wav"))
        .args(["-r", "44100", "-c", "2"])
        .arg(p("try44.wav"))
        .status()
        .expect("sox is installed by tests/system-packages.sh");
    assert!(status.success());
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .arg("hear")
        .args(
            [
                "try.wav",
                "chatter.wav",
                "any.wav",
                "try44.wav",
                "missing.wav",
            ]
            .map(p),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a file could not be read");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["try"], "g1f3", "{lines:?}");
    assert_eq!(lines[1]["rejected"], true, "{lines:?}");
    assert_eq!(lines[2]["command"], "any", "{lines:?}");
    assert_eq!(
        lines[3]["try"], "g1f3",
        "converted from 44.1 kHz stereo: {lines:?}"
    );
    assert!(
        lines[4]["error"].as_str().unwrap().contains("No such file"),
        "{lines:?}"
    );

    // A pipe is refused at once (it would be waited on for ever), and the files after it
    // are heard; a file named like an option of sox's is converted as the file it is.
    let fifo = p("pipe.wav");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let dash = dir.path().join("-d");
    std::fs::copy(p("try44.wav"), &dash).unwrap();
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .current_dir(dir.path())
        .args(["hear", "--no-moonshine", "--", "pipe.wav", "-d", "try.wav"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the pipe could not be read");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["error"], "not a file (a pipe, a device or a folder): give a WAV file",
        "{lines:?}"
    );
    assert_eq!(lines[1]["try"], "g1f3", "{lines:?}");
    assert_eq!(lines[2]["try"], "g1f3", "{lines:?}");

    // Black to move: his knight on g8.
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args([
            "hear",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ])
        .arg(p("try.wav"))
        .output()
        .unwrap();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        line["rejected"], true,
        "white's knight move is no try of Black's: {line}"
    );

    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hear", "--fen", "not a fen"])
        .arg(p("try.wav"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --fen 'not a fen'"));

    // While a read-back waits.
    say("cancel", &p("cancel.wav"));
    let lines = hear_lines(
        &["--reply", "--verbose"],
        &["cancel.wav", "try.wav", "chatter.wav"].map(p),
    );
    assert_eq!(lines[0]["command"], "cancel", "{lines:?}");
    assert!(lines[0]["answer_ratio"].is_i64(), "{lines:?}");
    assert_eq!(
        lines[1]["try"], "g1f3",
        "a new try replaces the pending one: {lines:?}"
    );
    assert!(
        lines[2].get("try").is_none() && lines[2]["command"] != "confirm",
        "{lines:?}"
    );
}

/// flite's `rms` says "any" so that the phone loop scores it close to the grammar (`kal16`'s,
/// until the noise floor of issue 21's fourteenth round, was heard at once since): under the
/// commands' threshold, over the floor under which a command is rejected (with the room's
/// model, `hear`'s default, as with the plain one). The player hears
/// "any?" and his "confirm" (or Space) asks; `hear` marks it `read_back`. While a read-back
/// waits (`--reply`) it is rejected: a faint word never replaces what waits. The louder `slt`
/// "any" is heard at once either way, and chatter is neither. (PocketSphinx alone: the second
/// ear, sure of "any", takes it at once in a free turn.)
#[test]
fn a_faint_command_is_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    say_as("rms", "any", &p("faint.wav"));
    say("any", &p("any.wav"));
    say("the weather is lovely today", &p("chatter.wav"));
    let files = ["faint.wav", "any.wav", "chatter.wav"].map(p);
    let eared = hear_lines(&[], &files);
    assert_eq!(eared[0]["command"], "any", "{eared:?}");
    assert!(eared[0].get("read_back").is_none(), "{eared:?}");
    assert_eq!(eared[2]["rejected"], true, "{eared:?}");
    for reply in [false, true] {
        let args: &[&str] = if reply {
            &["--reply", "--no-moonshine"]
        } else {
            &["--no-moonshine"]
        };
        let lines = hear_lines(args, &files);
        if reply {
            assert_eq!(lines[0]["rejected"], true, "{lines:?}");
        } else {
            assert_eq!(lines[0]["command"], "any", "{lines:?}");
            assert_eq!(lines[0]["read_back"], true, "{lines:?}");
        }
        assert_eq!(lines[1]["command"], "any", "{lines:?}");
        assert!(lines[1].get("read_back").is_none(), "{lines:?}");
        assert_eq!(lines[2]["rejected"], true, "{lines:?}");
    }
}

/// Without an enrolment, `hear` hears with the model adapted to a club's room; `--plain-model`
/// with the model as installed. In pink noise, "resign" by a voice pitched down and sped up
/// (flite `rms`; `slt` pitched up and slowed until the noise floor of issue 21's fourteenth
/// round) is lost by the plain model and read back by the room's; `--plain-model` with an enrolment
/// is refused (his enrolment was made against the plain model and replaces the room's).
/// (PocketSphinx alone: the second ear would take it at once.)
#[test]
fn the_room_adaptation_is_the_default_and_plain_model_turns_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    say_as("rms", "resign", &p("raw.wav"));
    in_pink_noise(
        dir.path(),
        "raw.wav",
        &["pitch", "-250", "tempo", "1.12"],
        "resign.wav",
    );
    let room = hear_lines(&["--no-moonshine"], &[p("resign.wav")]);
    assert_eq!(room[0]["command"], "resign", "{room:?}");
    assert_eq!(room[0]["read_back"], true, "{room:?}");
    let plain = hear_lines(&["--plain-model", "--no-moonshine"], &[p("resign.wav")]);
    assert_eq!(plain[0]["rejected"], true, "{plain:?}");

    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hear", "--plain-model", "--enrolment"])
        .arg(p("player.mllr"))
        .arg(p("resign.wav"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'--plain-model' cannot be used with '--enrolment"),
        "{stderr}"
    );
}

/// While a read-back waits, a short utterance PocketSphinx does not take as an answer is put to
/// the second ear (Moonshine): `--verbose` shows what it made of it; what is too long to be an
/// answer is not put to it. `--no-moonshine` leaves it out; a missing model is said on
/// stderr, naming the script that installs it, and `hear` goes on with PocketSphinx alone.
#[test]
fn the_second_ear_is_asked_about_answers_and_its_absence_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    say("banana", &p("banana.wav"));
    say("where is the bathroom", &p("sentence.wav"));
    let files = [p("banana.wav"), p("sentence.wav")];
    let lines = hear_lines(&["--reply", "--verbose"], &files);
    let ear = &lines[0]["moonshine"];
    assert!(ear["margin"].is_f64() && ear["doubt"].is_f64(), "{lines:?}");
    assert_eq!(lines[0]["rejected"], true, "{lines:?}");
    assert!(
        lines[1].get("moonshine").is_none(),
        "too long to be an answer: {lines:?}"
    );
    assert!(
        lines[1]["command"] != "confirm" && lines[1].get("try").is_none(),
        "{lines:?}"
    );

    let lines = hear_lines(&["--reply", "--verbose", "--no-moonshine"], &files[..1]);
    assert!(lines[0].get("moonshine").is_none(), "{lines:?}");

    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["hear", "--reply", "--verbose"])
        .arg(p("banana.wav"))
        .env("KRIEGSPIEL_MOONSHINE", dir.path().join("nowhere"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Moonshine's model is not installed")
            && stderr.contains("fetch-moonshine.sh")
            && stderr.contains("answers, commands and tries are heard by PocketSphinx alone"),
        "{stderr}"
    );
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(line.get("moonshine").is_none(), "{line}");
    assert_eq!(line["rejected"], true, "{line}");
}

/// A try heard in a free turn is put to the second ear with its alternatives (PocketSphinx's
/// next best tries): `--verbose` shows what the ear made of them; `--no-moonshine` leaves it
/// out. Chatter stays rejected.
#[test]
fn the_second_ear_chooses_among_a_tries_alternatives() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    say_as("slt", "b two to b three", &p("try.wav"));
    say("where is the bathroom", &p("sentence.wav"));
    let files = [p("try.wav"), p("sentence.wav")];
    let lines = hear_lines(&["--verbose"], &files);
    let choice = &lines[0]["moonshine_try"];
    assert!(
        choice["lead"].is_f64() && choice["margin"].is_f64() && choice["taken"].is_boolean(),
        "{lines:?}"
    );
    // Heard as said: the judges do not disagree (`torn` would have meant no try).
    assert_eq!(choice["torn"], false, "{lines:?}");
    assert_eq!(lines[0]["try"], "b2b3", "{lines:?}");
    assert!(lines[1].get("try").is_none(), "{lines:?}");
    let lines = hear_lines(&["--verbose", "--no-moonshine"], &files[..1]);
    assert!(lines[0].get("moonshine_try").is_none(), "{lines:?}");
}

/// A try PocketSphinx rejects (its ratio against the phone loop too low in room noise) is
/// taken when the second ear is sure of it among PocketSphinx's alternatives and would nearly
/// have written it: `--verbose` says `rescued`; `--no-moonshine` rejects it.
#[test]
fn the_second_ear_takes_a_try_pocketsphinx_rejected() {
    let dir = tempfile::tempdir().unwrap();
    say_as("awb", "e two to e four", &dir.path().join("raw.wav"));
    in_pink_noise(dir.path(), "raw.wav", &[], "try.wav");
    let file = [dir.path().join("try.wav")];
    let lines = hear_lines(&["--verbose"], &file);
    assert_eq!(lines[0]["try"], "e2e4", "{lines:?}");
    assert_eq!(lines[0]["moonshine_try"]["rescued"], true, "{lines:?}");
    assert!(lines[0]["moonshine_try"]["doubt"].is_f64(), "{lines:?}");
    // What was weighed: each try with its PocketSphinx path score and the ear's score.
    let weighed = lines[0]["alternatives"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!weighed.is_empty(), "{lines:?}");
    assert!(
        weighed
            .iter()
            .all(|w| w["try"].is_string() && w["sphinx"].is_i64() && w["moonshine"].is_f64()),
        "{lines:?}"
    );
    assert!(weighed.iter().any(|w| w["try"] == "e2e4"), "{lines:?}");
    let lines = hear_lines(&["--no-moonshine"], &file);
    assert_eq!(lines[0]["rejected"], true, "{lines:?}");
}

/// A command PocketSphinx rejects in room noise (its words right, its score too low) is taken
/// when the second ear is sure of the same command: `--verbose` shows it agreeing;
/// `--no-moonshine` rejects it.
#[test]
fn the_second_ear_takes_a_command_pocketsphinx_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for word in ["any", "rook"] {
        say_as("rms", word, &dir.path().join("raw.wav"));
        let out = format!("{word}.wav");
        in_pink_noise(dir.path(), "raw.wav", &[], &out);
        files.push(dir.path().join(out));
    }
    let lines = hear_lines(&["--verbose"], &files);
    for (line, word) in lines.iter().zip(["any", "rook"]) {
        assert_eq!(line["command"], word, "{lines:?}");
        assert_eq!(line["read_back"], Value::Null, "{lines:?}");
        assert_eq!(line["moonshine"]["best"], word, "{lines:?}");
        assert_eq!(line["moonshine"]["agrees"], true, "{lines:?}");
        // Sure by its own limits, not only because Moonshine writes the word.
        assert_eq!(line["moonshine"]["written"], false, "{lines:?}");
    }
    let lines = hear_lines(&["--no-moonshine"], &files);
    for line in &lines {
        assert_eq!(line["rejected"], true, "{lines:?}");
    }
}

/// While a read-back waits, espeak-ng's "conference" is "confirm" to PocketSphinx, which would
/// play the try; Moonshine would write it as another word ("Conference."), so it is rejected
/// and `--verbose` says `other_word`. With `--no-moonshine`, PocketSphinx's "confirm" stands.
#[test]
fn a_word_the_second_ear_writes_otherwise_is_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    // At 16 kHz: `hear` would resample it with sox's random dither, a different clip each run.
    synth::espeak("en+f2", "conference", dir.path(), "conference");
    let files = [dir.path().join("conference.wav")];
    let lines = hear_lines(&["--reply", "--verbose"], &files);
    assert_eq!(lines[0]["rejected"], true, "{lines:?}");
    assert_eq!(lines[0]["moonshine"]["other_word"], true, "{lines:?}");
    let lines = hear_lines(&["--reply", "--no-moonshine"], &files);
    assert_eq!(lines[0]["command"], "confirm", "{lines:?}");
}

/// A quiet microphone: a try and "any" in pink noise, turned down 40 dB by sox, are heard as
/// at their own level, each raised before it is heard (`raised_db` in `--verbose`); at their
/// own level nothing is raised.
#[test]
fn a_quiet_recording_is_raised_and_heard() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let mut files = Vec::new();
    for (text, name) in [("knight golf one to foxtrot three", "try"), ("any", "any")] {
        say(text, &p("said.wav"));
        let loud = format!("{name}.wav");
        in_pink_noise(dir.path(), "said.wav", &[], &loud);
        let quiet = format!("{name}-quiet.wav");
        let ok = Command::new("sox")
            .args([&loud, &quiet, "vol", "0.01"])
            .current_dir(dir.path())
            .status()
            .expect("sox is installed by tests/system-packages.sh")
            .success();
        assert!(ok);
        files.extend([p(&loud), p(&quiet)]);
    }
    let lines = hear_lines(&["--verbose"], &files);
    assert_eq!(lines[0]["try"], "g1f3", "{lines:?}");
    assert_eq!(lines[1]["try"], "g1f3", "{lines:?}");
    assert_eq!(lines[2]["command"], "any", "{lines:?}");
    assert_eq!(lines[3]["command"], "any", "{lines:?}");
    for (i, line) in lines.iter().enumerate() {
        let raised = line["raised_db"].as_f64().unwrap();
        if i % 2 == 0 {
            assert_eq!(raised, 0.0, "{line}");
        } else {
            assert!(raised > 25.0, "{line}");
        }
    }
}

/// Chatter in café noise (the held-out bench's espeak-ng voices, recorded in tests/speech/)
/// that PocketSphinx forces onto a try of White's men, and the second ear onto another it
/// could hardly write (a doubt over `ear::TRY_VETO`): no try (`"torn":true`). PocketSphinx
/// alone takes it for d1e2.
#[test]
fn chatter_the_second_ear_could_hardly_write_is_no_try() {
    let speech = Path::new(env!("CARGO_MANIFEST_DIR")).join("speech");
    let files = [
        speech.join("is-anyone-there.wav"),
        speech.join("eighty-seven.wav"),
    ];
    let fen = "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3";
    let lines = hear_lines(&["--verbose", "--fen", fen], &files);
    for line in &lines {
        assert_eq!(line["rejected"], true, "{line}");
        let choice = &line["moonshine_try"];
        assert_eq!(choice["torn"], true, "{line}");
        assert!(
            choice["doubt"].as_f64().unwrap() > f64::from(kriegspiel_voice::ear::TRY_VETO),
            "{line}"
        );
    }
    for line in hear_lines(&["--no-moonshine", "--fen", fen], &files) {
        assert_eq!(line["try"], "d1e2", "{line}");
    }
}

/// A recording too short to hold a word (a stray click of push-to-talk) is rejected plainly:
/// no line of the speech runtime's own on the player's terminal, and no score is a sentinel.
#[test]
fn a_recording_too_short_for_a_word_is_rejected_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("click.wav");
    let status = Command::new("sox")
        .args(["-n", "-r", "16000", "-b", "16", "-c", "1"])
        .arg(&wav)
        .args(["synth", "0.01", "sine", "440"])
        .status()
        .unwrap();
    assert!(status.success());
    for flags in [&["--verbose"][..], &["--verbose", "--reply"]] {
        let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .arg("hear")
            .args(flags)
            .arg(&wav)
            .output()
            .unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("onnxruntime"), "{stderr}");
        let line: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(line["rejected"], true, "{line}");
        assert!(
            !line.to_string().contains("-2147483648"),
            "a sentinel shown as a score: {line}"
        );
    }
}
