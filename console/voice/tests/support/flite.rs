//! Speech synthesised at test time: flite's (or espeak-ng's) `voice` saying `text`, resampled
//! by sox to the recogniser's 16 kHz mono 16-bit, in `dir` under `name`.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

pub fn say(voice: &str, text: &str, dir: &Path, name: &str) -> Vec<i16> {
    say_shifted(voice, text, "", dir, name)
}

/// The same, shifted by sox's `effects` ("pitch -250 tempo 0.88"): a voice further from
/// flite's own.
pub fn say_shifted(voice: &str, text: &str, effects: &str, dir: &Path, name: &str) -> Vec<i16> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let ok = Command::new("flite")
        .args(["-voice", voice, "-t", text, "-o"])
        .arg(&raw)
        .status()
        .expect("flite")
        .success();
    assert!(ok, "flite {voice} {text}");
    resampled_with(&raw, effects, dir, name)
}

/// espeak-ng's `voice` (`en-us+f3`, ...) saying `text`.
pub fn espeak(voice: &str, text: &str, dir: &Path, name: &str) -> Vec<i16> {
    espeak_shifted(voice, text, "", dir, name)
}

/// The same, shifted by sox's `effects`.
pub fn espeak_shifted(voice: &str, text: &str, effects: &str, dir: &Path, name: &str) -> Vec<i16> {
    let raw = dir.join(format!("{name}.raw.wav"));
    let ok = Command::new("espeak-ng")
        .args(["-v", voice, "-w"])
        .arg(&raw)
        .arg(text)
        .status()
        .expect("espeak-ng")
        .success();
    assert!(ok, "espeak-ng {voice} {text}");
    resampled_with(&raw, effects, dir, name)
}

fn resampled_with(raw: &Path, effects: &str, dir: &Path, name: &str) -> Vec<i16> {
    let out = dir.join(format!("{name}.wav"));
    // -R: sox's dither is random otherwise, and espeak-ng's digital silence comes out of the
    // resampler as a different hiss every run.
    let ok = Command::new("sox")
        .arg("-R")
        .arg(raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(&out)
        .args(effects.split_whitespace())
        .status()
        .expect("sox")
        .success();
    assert!(ok, "sox");
    kriegspiel_voice::wav::read_wav(&out).unwrap()
}
