//! Decoding time per utterance and the recogniser's memory (docs/PERFORMANCE.md, Voice):
//! `cargo bench -p kriegspiel-voice --bench decode` (release profile). Synthesises 40
//! utterances with flite (tries in the three file-name styles, commands, chatter), then
//! decodes each of them `ROUNDS` times on one thread, one recogniser, and prints the median,
//! p95 and max per utterance by kind, the real-time factor, the time to rebuild a turn's
//! grammar, and the resident memory before and after the recognisers are made.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kriegspiel_voice::{wav, Model, Recognizer};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

const ROUNDS: usize = 5;
const FEN: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

const SAID: [(&str, &str); 20] = [
    ("try", "golf one to hotel three"),
    ("try", "knight foxtrot three to golf five"),
    ("try", "castle kingside"),
    ("try", "bishop charlie four to bravo five"),
    ("try", "delta two to delta four"),
    ("try", "gustav two to gustav four"),
    ("try", "queen david one to eva two"),
    ("try", "hotel one to foxtrot one"),
    ("try", "b two to b four"),
    ("try", "a two to a three"),
    ("command", "confirm"),
    ("command", "cancel"),
    ("command", "any"),
    ("command", "my men"),
    ("command", "offer draw"),
    ("chatter", "the weather is nice today"),
    ("chatter", "could you pass the salt please"),
    ("chatter", "forty two"),
    ("chatter", "banana"),
    ("chatter", "echo two to echo seven"),
];
const VOICES: [&str; 2] = ["slt", "rms"];

fn vm(field: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .map(|l| l.trim_start_matches(field).trim().to_owned())
        .unwrap_or_default()
}

fn synthesise(voice: &str, text: &str, out: &Path) {
    let raw = out.with_extension("raw.wav");
    let ok = Command::new("flite")
        .args(["-voice", voice, "-t", text, "-o"])
        .arg(&raw)
        .stderr(Stdio::null())
        .status()
        .expect("flite (tests/system-packages.sh installs it)")
        .success();
    assert!(ok, "flite {voice} '{text}'");
    let ok = Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(out)
        .status()
        .expect("sox")
        .success();
    assert!(ok, "sox");
}

fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    let n = times.len();
    if n == 0 {
        return "-".into();
    }
    format!(
        "median {:>6.1} ms  p95 {:>6.1} ms  max {:>6.1} ms  (n = {n})",
        times[n / 2].as_secs_f64() * 1e3,
        times[(n * 95 / 100).min(n - 1)].as_secs_f64() * 1e3,
        times[n - 1].as_secs_f64() * 1e3
    )
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let mut clips = Vec::new();
    for (i, (kind, text)) in SAID.iter().enumerate() {
        for voice in VOICES {
            let path = dir.path().join(format!("{i}-{voice}.wav"));
            synthesise(voice, text, &path);
            clips.push((*kind, wav::read_wav(&path).unwrap()));
        }
    }
    let pos: Chess = FEN
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();

    let rss_before = vm("VmRSS:");
    let t = Instant::now();
    let mut r = Recognizer::new(&Model::default()).unwrap();
    let load = t.elapsed();
    let rss_one = vm("VmRSS:");
    let second = Recognizer::new(&Model::default()).unwrap();
    let rss_two = vm("VmRSS:");
    drop(second);

    let mut rebuild = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        r.set_turn(&pos, Color::White).unwrap();
        rebuild.push(t.elapsed());
    }

    let mut by_kind: Vec<(&str, Vec<Duration>)> = vec![
        ("try", Vec::new()),
        ("command", Vec::new()),
        ("chatter", Vec::new()),
    ];
    let mut audio = Duration::ZERO;
    let mut busy = Duration::ZERO;
    for _ in 0..ROUNDS {
        for (kind, samples) in &clips {
            let rec = r.hear(samples).unwrap();
            audio += Duration::from_millis(samples.len() as u64 / 16);
            busy += rec.took;
            if let Some((_, v)) = by_kind.iter_mut().find(|(k, _)| k == kind) {
                v.push(rec.took);
            }
        }
    }
    let all: Vec<Duration> = by_kind.iter().flat_map(|(_, v)| v.clone()).collect();
    let mean_audio = audio.as_secs_f64() / all.len().max(1) as f64;
    println!("decode per utterance, one thread, {ROUNDS} rounds of {} clips (mean {mean_audio:.2} s of audio):", clips.len());
    for (kind, v) in by_kind {
        println!("  {kind:8} {}", summary(v));
    }
    println!("  {:8} {}", "all", summary(all));
    println!(
        "real-time factor {:.3}",
        busy.as_secs_f64() / audio.as_secs_f64().max(1e-9)
    );
    println!("turn grammar rebuilt (set_turn): {}", summary(rebuild));
    println!("recogniser made in {:.0} ms", load.as_secs_f64() * 1e3);
    println!(
        "resident memory: {rss_before} before, {rss_one} with one recogniser, {rss_two} with two; peak {}",
        vm("VmHWM:")
    );
}
