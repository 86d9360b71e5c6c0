//! `kriegspiel hall` speaks every table, each word to the right ear: the real program with
//! a round file of two tables (Wild 16, strict touch-move; table 1 in English, table 2 in
//! French), each on two simulated boards (`kriegspiel-board simulate` behind socat
//! cables), playing the speech crate's scenario (touch-move reminders and guidance for both
//! players, a refused try each heard by the mover alone, a promotion choice, a question out
//! of turn, a resignation).
//!
//! - ALSA: each player's headset is an ALSA `type file` PCM of a test `.asoundrc`, the room
//!   is a private headless speech-dispatcher whose ALSA default is a file. Each table's
//!   speech log equals the test's own routing of the same scenario; each headset's file
//!   holds exactly its player's words (sample for sample against espeak-ng, up to aplay's
//!   last period) and is non-silent per sox; the room's recording holds the public words
//!   of both tables and no private ones.
//! - PulseAudio: a private PulseAudio server with a null sink per output; table 1's room
//!   and every headset are `pulse:SINK`s recorded from their monitors with parec; table 2's
//!   room is a speech-dispatcher that hangs (stopped) once the hall has opened, and no
//!   table waits for it.
//!
//! Needs espeak-ng, sox, alsa-utils, socat, speech-dispatcher, pulseaudio and
//! pulseaudio-utils (tests/system-packages.sh installs them); nothing is skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kriegspiel_referee::Lang;
use kriegspiel_speech::speaker::espeak_voice;
use kriegspiel_speech::Speakers;
use serde_json::Value;

mod common;
use common::Guard;

#[path = "../../speech/tests/common/mod.rs"]
mod speech;
use speech::{logged, samples, Dispatcher, Expected};

/// The speech crate's scenario: times in ms from the boards' start.
use speech::SCENARIO;

/// The most silence aplay adds when it ends (one ALSA period at 22050 Hz).
const PADDING: u64 = 11025;

/// The two tables: name, language.
const TABLES: [(&str, Lang, &str); 2] = [("1", Lang::En, "en"), ("2", Lang::Fr, "fr")];

/// One test at a time: each plays 30 s of real time and measures audio.
static SERIAL: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The board program, built once (tests/run.sh builds it before the tests).
fn board_program() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(root())
        .args([
            "build",
            "--quiet",
            "-p",
            "kriegspiel-board",
            "--bin",
            "kriegspiel-board",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    target.join("debug/kriegspiel-board")
}

/// A socat cable: (guard, the board's end, the console's end).
fn cable(dir: &Path, name: &str) -> (Guard, PathBuf, PathBuf) {
    kriegspiel_tests::process::socat_cable(dir, name).unwrap()
}

/// One board's script (`occupied ...` then `MS lift|place SQ`) from the scenario.
fn board_script(color: &str) -> String {
    let ranks = if color == "white" {
        ["1", "2"]
    } else {
        ["7", "8"]
    };
    let mut out = String::from("occupied");
    for rank in ranks {
        for file in 'a'..='h' {
            out.push_str(&format!(" {file}{rank}"));
        }
    }
    out.push('\n');
    for line in SCENARIO.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [at, c, action @ ("lift" | "place"), square] = w[..] {
            if c == color {
                out.push_str(&format!("{at} {action} {square}\n"));
            }
        }
    }
    // Stay connected until the game is over (the program ends after its last event).
    let corner = if color == "white" { "a1" } else { "a8" };
    out.push_str(&format!("120000 lift {corner}\n120100 place {corner}\n"));
    out
}

/// The scenario's keypad lines for `table`: (ms, JSON line).
fn keypad(table: usize) -> Vec<(u64, String)> {
    SCENARIO
        .lines()
        .filter_map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let (at, color) = (w.first()?.parse().ok()?, *w.get(1)?);
            let what = match w.get(2..)? {
                ["promote", piece] => format!("\"promote\":\"{piece}\""),
                ["ask", q] => format!("\"ask\":\"{q}\""),
                ["resign"] => "\"resign\":true".to_owned(),
                _ => return None,
            };
            Some((
                at,
                format!("{{\"table\":{table},\"color\":\"{color}\",{what}}}"),
            ))
        })
        .collect()
}

/// What the hall printed and how long it took.
struct HallRun {
    lines: Vec<Value>,
    stderr: String,
    /// From the last game's end (its final line) to the hall's exit: the last words.
    last_words: Duration,
}

/// Runs `kriegspiel hall` on `round` (its `{DIR}` replaced by `dir`) with `env`, both
/// tables on simulated boards; `opened` runs once both tables have opened, before the
/// boards start.
fn run_hall(dir: &Path, round: &str, env: &[(String, String)], opened: impl FnOnce()) -> HallRun {
    let mut cables = Vec::new();
    for t in 1..=2 {
        for color in ["white", "black"] {
            cables.push((t, color, cable(dir, &format!("t{t}-{color}"))));
        }
    }
    let round_file = dir.join("round.toml");
    std::fs::write(
        &round_file,
        round.replace("{DIR}", &dir.display().to_string()),
    )
    .unwrap();
    let common::Running {
        mut hall,
        lines,
        stderr,
    } = common::hall(
        &round_file,
        &dir.join("round.sqlite"),
        &[],
        env.iter().map(|(k, v)| (k, v)),
    );
    let mut printed = Vec::new();
    let limit = Instant::now() + Duration::from_secs(30);
    while printed
        .iter()
        .filter(|v: &&Value| v.get("opened").is_some())
        .count()
        < 2
    {
        let left = limit.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(l) => printed.push(serde_json::from_str(&l).unwrap()),
            Err(_) => {
                drop(hall);
                panic!(
                    "the hall did not open both tables: {}",
                    stderr.join().unwrap()
                );
            }
        }
    }
    opened();
    let program = board_program();
    // The four boards and the keypad count the scenario from one moment (a second from now):
    // a board program slow to start on a loaded machine must not let a keypad line (Black's
    // resignation) overtake the board move before it.
    let start = Instant::now() + Duration::from_secs(1);
    let start_at = (SystemTime::now() + Duration::from_secs(1))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
        .to_string();
    let mut boards = Vec::new();
    for (t, color, (_, board_end, _)) in &cables {
        let script = dir.join(format!("t{t}-{color}.script"));
        std::fs::write(&script, board_script(color)).unwrap();
        let id = if *color == "white" { "1" } else { "2" };
        boards.push(Guard(
            Command::new(&program)
                .args(["simulate", "--quiet", "--board-id", id])
                .args(["--start-at", &start_at, "--script"])
                .arg(&script)
                .arg("--port")
                .arg(board_end)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ));
    }
    let mut stdin = hall.0.stdin.take().unwrap();
    let mut commands: Vec<(u64, String)> = keypad(1).into_iter().chain(keypad(2)).collect();
    commands.sort();
    std::thread::spawn(move || {
        for (at, line) in commands {
            let when = start + Duration::from_millis(at);
            std::thread::sleep(when.saturating_duration_since(Instant::now()));
            if writeln!(stdin, "{line}")
                .and_then(|()| stdin.flush())
                .is_err()
            {
                return;
            }
        }
        // Keep standard input open until the hall ends.
        std::thread::sleep(Duration::from_secs(120));
    });
    let limit = start + Duration::from_secs(90);
    let mut ended = Instant::now();
    loop {
        let left = limit.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(l) => {
                let v: Value = serde_json::from_str(&l).unwrap();
                if v.get("final_fen").is_some() {
                    ended = Instant::now();
                }
                printed.push(v);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                drop(hall);
                panic!(
                    "the hall did not end within 90 s; last lines {:?}; stderr: {}",
                    &printed[printed.len().saturating_sub(5)..],
                    stderr.join().unwrap()
                );
            }
        }
    }
    let status = hall.0.wait().unwrap();
    let last_words = ended.elapsed();
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{stderr}");
    drop(boards);
    HallRun {
        lines: printed,
        stderr,
        last_words,
    }
}

/// Both games ended with Black's resignation, and each table's JSON lines carry the
/// private messages the test expects for it (the written form, so only their number).
fn check_games(run: &HallRun, expected: &[Expected]) {
    for (i, exp) in expected.iter().enumerate() {
        let table = i + 1;
        let of_table: Vec<&Value> = run.lines.iter().filter(|v| v["table"] == table).collect();
        let result = of_table.iter().find(|v| v.get("final_fen").is_some());
        assert_eq!(
            result.map(|v| v["result"].clone()),
            Some("1-0".into()),
            "table {table}: {of_table:?}\n{}",
            run.stderr
        );
        for (color, words) in [("white", &exp.white), ("black", &exp.black)] {
            let private: Vec<&&Value> = of_table
                .iter()
                .filter(|v| {
                    v["private"] == color || (v["heard_by"] == "mover" && v["color"] == color)
                })
                .collect();
            assert_eq!(
                private.len(),
                words.len(),
                "table {table}: {color}'s private lines {private:?} and the words routed to him {words:?}"
            );
        }
    }
}

/// espeak-ng's audio for `text` in `lang`'s voice.
fn espeak(lang: Lang, text: &str) -> Vec<i16> {
    speech::espeak(espeak_voice(lang), text)
}

fn espeak_total(lang: Lang, texts: &[String]) -> u64 {
    speech::espeak_total(espeak_voice(lang), texts)
}

/// `(samples, RMS amplitude)` of a recording per sox; `raw`: headerless 16-bit mono 22050 Hz.
fn sox_stat(file: &Path, raw: bool) -> (u64, f64) {
    let mut cmd = Command::new("sox");
    if raw {
        cmd.args([
            "-t", "raw", "-r", "22050", "-e", "signed", "-b", "16", "-c", "1",
        ]);
    } else {
        cmd.arg("--ignore-length");
    }
    let out = cmd
        .arg(file)
        .args(["-n", "stat"])
        .output()
        .expect("sox (apt-get install sox)");
    let text = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in sox's output for {}: {text}", file.display()))
    };
    (field("Samples read") as u64, field("RMS     amplitude"))
}

/// Voiced time: the 10 ms windows whose RMS is above -36 dBFS. The same measure of the
/// recording and of espeak-ng's own audio tells whether a sink heard the words it should.
fn voiced_windows(s: &[i16]) -> u64 {
    s.chunks(220)
        .filter(|w| {
            let sum: f64 = w.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            (sum / w.len() as f64).sqrt() > 520.0
        })
        .count() as u64
}

/// `kriegspiel hall` on a round file that it must refuse at start: its message.
fn refused(dir: &Path, round: &str, env: &[(String, String)]) -> String {
    let file = dir.join("bad-round.toml");
    std::fs::write(&file, round).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .arg("hall")
        .arg("--config")
        .arg(&file)
        .arg("--journal")
        .arg(dir.join("bad.sqlite"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn round_table(name: &str, lang: &str, audio: &str) -> String {
    format!(
        r#"
[[table]]
name = "{name}"
rules = "wild16"
lang = "{lang}"
touch_move = "strict"
white = "{{DIR}}/t{name}-white-console"
black = "{{DIR}}/t{name}-black-console"
white_board_id = 1
black_board_id = 2
speech_log = "{{DIR}}/t{name}.tsv"
{audio}
"#
    )
}

fn oracle(dir: &Path) -> Vec<Expected> {
    TABLES
        .iter()
        .map(|(name, _, code)| {
            // The test's own routing: the scenario played through an in-process hall in
            // simulated time, every output routed by `hear`.
            let journal = dir.join(format!("oracle-{name}.sqlite"));
            let out = speech::play(&journal, Speakers::default(), code);
            assert!(
                out.white.len() >= 8 && out.black.len() >= 8 && out.public.len() >= 5,
                "{out:?}"
            );
            out
        })
        .collect()
}

/// Each table's speech log holds exactly what the test's routing sends to each output, and
/// nothing of the other table's.
fn check_logs(dir: &Path, expected: &[Expected], tables: &[usize], labels: &[&str]) {
    for &i in tables {
        let name = TABLES[i].0;
        let log = dir.join(format!("t{name}.tsv"));
        for label in labels {
            assert_eq!(
                logged(&log, label),
                expected[i].of(label),
                "table {name}: {label}"
            );
        }
        let other = &expected[1 - i];
        for text in other.white.iter().chain(&other.black) {
            assert!(
                !std::fs::read_to_string(&log)
                    .unwrap()
                    .contains(text.as_str()),
                "table {name}'s log holds the other table's '{text}'"
            );
        }
    }
    for exp in expected {
        for private in exp.white.iter().chain(&exp.black) {
            assert!(!exp.public.contains(private), "'{private}' in public");
        }
    }
}

#[test]
fn every_table_of_a_hall_speaks_to_its_own_alsa_headsets_and_room() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let expected = oracle(dir.path());
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let pcms = ["t1white", "t1black", "t2white", "t2black"];
    let asoundrc: String = pcms
        .iter()
        .map(|n| {
            format!(
                "pcm.{n} {{ type file; slave.pcm \"null\"; file \"{}\"; format \"wav\" }}\n",
                dir.path().join(format!("{n}.wav")).display()
            )
        })
        .collect();
    std::fs::write(home.join(".asoundrc"), asoundrc).unwrap();
    let round = format!(
        "event = \"Speech round\"\n{}{}",
        round_table(
            "1",
            "en",
            "white_audio = \"t1white\"\nblack_audio = \"alsa:t1black\""
        ),
        round_table(
            "2",
            "fr",
            "white_audio = \"t2white\"\nblack_audio = \"t2black\""
        )
    );
    let env = [
        ("HOME".to_owned(), home.display().to_string()),
        ("SPEECHD_ADDRESS".to_owned(), speechd.address.clone()),
    ];
    // A device that is not there is refused at start, by table and key.
    let e = refused(
        dir.path(),
        "[[table]]\nname = \"1\"\n[[table]]\nname = \"2\"\nblack_audio = \"t2blak\"\n",
        &env,
    );
    assert!(
        e.contains("bad-round.toml: table 2 ('2'): black_audio: ALSA device 't2blak' cannot be opened (unknown PCM; audio open error: No such file or directory)"),
        "{e}"
    );
    let run = run_hall(dir.path(), &round, &env, || {});
    assert!(
        run.stderr
            .contains("public announcements through speech-dispatcher, voice"),
        "{}",
        run.stderr
    );
    check_games(&run, &expected);
    check_logs(
        dir.path(),
        &expected,
        &[0, 1],
        &["public", "white", "black"],
    );

    // Each headset's file: exactly its player's words, non-silent.
    for (i, (name, lang, _)) in TABLES.iter().enumerate() {
        for (color, words) in [("white", &expected[i].white), ("black", &expected[i].black)] {
            let wav = dir.path().join(format!("t{name}{color}.wav"));
            let (samples, rms) = sox_stat(&wav, false);
            let want = espeak_total(*lang, words);
            assert!(
                (want..=want + PADDING).contains(&samples),
                "table {name} {color}: {samples} samples, not the {want} of his {} utterances",
                words.len()
            );
            assert!(rms > 0.01, "table {name} {color}: silent (RMS {rms})");
        }
    }
    // The measure tells the tables and the players apart: any word of another ear would
    // have shown.
    let lens: Vec<u64> = expected
        .iter()
        .zip(TABLES)
        .flat_map(|(e, (_, lang, _))| {
            [
                espeak_total(lang, &e.white),
                espeak_total(lang, &e.black),
                espeak_total(lang, &e.public),
            ]
        })
        .collect();
    for (a, x) in lens.iter().enumerate() {
        for y in &lens[a + 1..] {
            assert!(x.abs_diff(*y) > PADDING, "{lens:?}");
        }
    }

    // The room: speech-dispatcher spoke both tables' public words, and no private ones.
    speechd.wait_quiet(Duration::from_secs(2), Duration::from_secs(60));
    let public: u64 = expected
        .iter()
        .zip(TABLES)
        .map(|(e, (_, lang, _))| espeak_total(lang, &e.public))
        .sum();
    let private_min = expected
        .iter()
        .zip(TABLES)
        .flat_map(|(e, (_, lang, _))| [espeak_total(lang, &e.white), espeak_total(lang, &e.black)])
        .min()
        .unwrap();
    let (recorded, rms) = sox_stat(&speechd.wav, false);
    let ratio = recorded as f64 / public as f64;
    eprintln!(
        "speech-dispatcher recorded {recorded} samples for the public words of both tables ({public} with espeak-ng): ratio {ratio:.3}; the smallest private share {private_min}"
    );
    assert!(rms > 0.01, "the room's recording is silent (RMS {rms})");
    assert!(
        (0.95..1.25).contains(&ratio),
        "ratio {ratio}: public words missing or extra"
    );
    assert!(
        (recorded as f64) < (public + private_min) as f64 * 0.98,
        "the room's recording is as long as public and private words together"
    );
}

/// A parec recording of a sink's monitor, raw 16-bit mono 22050 Hz.
struct Recorder {
    child: Guard,
    file: PathBuf,
}

#[test]
fn headsets_on_pulseaudio_sinks_and_a_hung_speech_dispatcher() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let expected = oracle(dir.path());
    let sinks = ["t1_room", "t1_white", "t1_black", "t2_white", "t2_black"];
    let mut args = vec![dir.path().join("pulse").into_os_string()];
    args.extend(sinks.iter().map(Into::into));
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let var = speech::dispatcher::start_script("start-pulseaudio.sh", &args);
    struct Pulse(String);
    impl Drop for Pulse {
        fn drop(&mut self) {
            let _ = Command::new("kill").arg(&self.0).status();
        }
    }
    let _pulse = Pulse(var("PULSE_PID"));
    let pulse_env = [
        ("PULSE_SERVER".to_owned(), var("PULSE_SERVER")),
        ("PULSE_CLIENTCONFIG".to_owned(), var("PULSE_CLIENTCONFIG")),
    ];
    let recorders: Vec<Recorder> = sinks
        .iter()
        .map(|s| {
            let file = dir.path().join(format!("{s}.raw"));
            let child = Command::new("parec")
                .arg(format!("--device={s}.monitor"))
                .args(["--raw", "--format=s16le", "--channels=1", "--rate=22050"])
                .envs(pulse_env.iter().map(|(k, v)| (k, v)))
                .stdout(std::fs::File::create(&file).unwrap())
                .spawn()
                .expect("parec (apt-get install pulseaudio-utils)");
            Recorder {
                child: Guard(child),
                file,
            }
        })
        .collect();
    // parec records from when its stream is up: wait for all five, and a second more.
    let start = Instant::now();
    loop {
        let listed = Command::new("pactl")
            .args(["list", "short", "source-outputs"])
            .envs(pulse_env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        if String::from_utf8_lossy(&listed.stdout).lines().count() >= sinks.len() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "parec did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(1));

    // Table 2's room speaker is a speech-dispatcher that hangs as soon as the tables open.
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    let round = format!(
        "{}{}",
        round_table(
            "1",
            "en",
            "public_audio = \"pulse:t1_room\"\nwhite_audio = \"pulse:t1_white\"\nblack_audio = \"pulse:t1_black\""
        ),
        round_table(
            "2",
            "fr",
            "white_audio = \"pulse:t2_white\"\nblack_audio = \"pulse:t2_black\""
        )
    );
    let mut env = pulse_env.to_vec();
    env.push(("SPEECHD_ADDRESS".to_owned(), speechd.address.clone()));
    let e = refused(
        dir.path(),
        "[[table]]\nname = \"1\"\nwhite_audio = \"pulse:t1_whit\"\n",
        &env,
    );
    assert!(
        e.contains("bad-round.toml: table 1 ('1'): white_audio: PulseAudio sink 't1_whit' does not exist (the server's sinks: t1_room, t1_white, t1_black, t2_white, t2_black)"),
        "{e}"
    );
    let run = run_hall(dir.path(), &round, &env, || speechd.signal("-STOP"));
    check_games(&run, &expected);
    // After the games the hall gives its speakers 10 s for their last words, where waiting
    // for the hung room speaker would never end (the margin is for a loaded machine).
    assert!(
        run.last_words < Duration::from_secs(10 + 5),
        "the hall took {:?} after the last game ended",
        run.last_words
    );
    std::thread::sleep(Duration::from_secs(1));
    // Table 1: every output; table 2: the headsets (its room's log stops where the
    // dispatcher hung).
    check_logs(dir.path(), &expected, &[0], &["public", "white", "black"]);
    let t2 = dir.path().join("t2.tsv");
    assert_eq!(logged(&t2, "white"), expected[1].white);
    assert_eq!(logged(&t2, "black"), expected[1].black);

    let energy = |s: &[i16]| s.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>();
    // Which table and output each sink is.
    let output = |sink: &str| -> (usize, &'static str) {
        let (table, label) = sink.split_once('_').unwrap();
        let label = match label {
            "room" => "public",
            "white" => "white",
            _ => "black",
        };
        (usize::from(table == "t2"), label)
    };
    for (rec, sink) in recorders.into_iter().zip(sinks) {
        let _ = Command::new("kill")
            .args(["-INT", &rec.child.0.id().to_string()])
            .status();
        drop(rec.child);
        let (i, label) = output(sink);
        let lang = TABLES[i].1;
        let want: Vec<i16> = expected[i]
            .of(label)
            .iter()
            .flat_map(|t| espeak(lang, t))
            .collect();
        let got = samples(&std::fs::read(&rec.file).unwrap());
        let (n, rms) = sox_stat(&rec.file, true);
        assert_eq!(n, got.len() as u64);
        let (voiced, want_voiced) = (voiced_windows(&got), voiced_windows(&want));
        let ratio = energy(&got) / energy(&want);
        eprintln!(
            "{sink}: {voiced} voiced 10 ms windows, espeak-ng's words for it {want_voiced}; energy ratio {ratio:.3}; RMS {rms}"
        );
        assert!(rms > 0.003, "{sink} is silent (RMS {rms})");
        // What reached the sink is its own words: as many voiced windows and as much
        // energy as espeak-ng's audio for them (PulseAudio resamples to 44.1 kHz stereo
        // and back: a little is lost).
        let tolerance = want_voiced / 50 + 10;
        assert!(
            voiced.abs_diff(want_voiced) <= tolerance,
            "{sink}: {voiced} voiced windows, its words have {want_voiced}"
        );
        assert!(
            (0.97..1.02).contains(&ratio),
            "{sink}: energy {ratio} of its words'"
        );
        // And any single word of another ear would have shown: every utterance of every
        // other output (of both tables) is above one of the two tolerances.
        for other in sinks.iter().filter(|o| **o != sink) {
            let (j, other_label) = output(other);
            for text in expected[j].of(other_label) {
                if expected[i].of(label).contains(text) {
                    continue; // the same words (a public announcement on both)
                }
                let u = espeak(TABLES[j].1, text);
                assert!(
                    voiced_windows(&u) > tolerance || energy(&u) / energy(&want) > 0.03,
                    "{sink}: '{text}' of {other} would not show"
                );
            }
        }
    }
    speechd.signal("-CONT");
}
