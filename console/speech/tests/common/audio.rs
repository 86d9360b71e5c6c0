//! What the speech tests measure: the speech log, espeak-ng's own audio for a text, a
//! recording per sox, and ALSA `type file` PCMs of a test `.asoundrc`. Shared by the
//! speech crate's tests and bench; std only, so that other crates' tests can take it by
//! `#[path]` as they take `dispatcher.rs`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The lines of the speech log with this label, in order.
pub fn logged(log: &Path, label: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(l, _)| *l == label)
        .map(|(_, t)| t.to_owned())
        .collect()
}

/// espeak-ng's audio for `text` with this voice: 16-bit mono samples, the WAV header
/// skipped.
pub fn espeak(voice: &str, text: &str) -> Vec<i16> {
    let out = Command::new("espeak-ng")
        .args(["-v", voice, "--stdout", "--", text])
        .output()
        .expect("espeak-ng (tests/system-packages.sh installs it)");
    assert!(
        out.status.success(),
        "espeak-ng failed for '{text}' (voice {voice})"
    );
    samples(&out.stdout[44.min(out.stdout.len())..])
}

/// Little-endian 16-bit samples.
pub fn samples(raw: &[u8]) -> Vec<i16> {
    raw.chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// Samples espeak-ng makes for `text` with this voice (16-bit mono).
pub fn espeak_samples(voice: &str, text: &str) -> u64 {
    espeak(voice, text).len() as u64
}

/// Samples espeak-ng makes for all of `texts`.
pub fn espeak_total(voice: &str, texts: &[String]) -> u64 {
    texts.iter().map(|t| espeak_samples(voice, t)).sum()
}

/// RMS amplitude of `samples`, full scale 1.
pub fn rms(samples: &[i16]) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|&x| {
            let x = f64::from(x) / 32768.0;
            x * x
        })
        .sum();
    (sum / samples.len().max(1) as f64).sqrt()
}

/// Samples and RMS amplitude of a WAV file whose header may hold no length.
pub fn measure(wav: &Path) -> (u64, f64) {
    let out = Command::new("sox")
        .arg("--ignore-length")
        .arg(wav)
        .args(["-n", "stat"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    (field("Samples read") as u64, field("RMS     amplitude"))
}

/// An ALSA configuration whose PCMs `names` each write a WAV file `DIR/NAME.wav`.
pub fn asoundrc(dir: &Path, names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            format!(
                "pcm.{n} {{ type file; slave.pcm \"null\"; file \"{}\"; format \"wav\" }}\n",
                dir.join(format!("{n}.wav")).display()
            )
        })
        .collect()
}

/// A home folder `DIR/home` whose `.asoundrc` holds the PCMs `names` ([`asoundrc`], files
/// in `dir`), for `HOME` of the programs that open them (aplay).
pub fn alsa_home(dir: &Path, names: &[&str]) -> PathBuf {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".asoundrc"), asoundrc(dir, names)).unwrap();
    home
}
