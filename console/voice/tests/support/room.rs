//! A room's noise under synthetic speech, for the voice tests and the held-out bench (which
//! takes this file in with `#[path]`): sox's pink noise, and any noise mixed `snr` dB under
//! the speech's power (measured on its loud 20 ms frames, so that pauses do not count), with
//! 300 ms of the room before and after, as a push-to-talk hears it.

use std::path::Path;
use std::process::Command;

use kriegspiel_voice::wav;

/// The mean power of `x`.
pub fn power(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>() / x.len().max(1) as f64
}

/// sox's pink noise, `seconds` long at 16 kHz (`-R`: the same every run).
pub fn pink(dir: &Path, seconds: u32) -> Vec<f64> {
    let pink = dir.join("pink.wav");
    let ok = Command::new("sox")
        .args(["-R", "-n", "-r", "16000", "-c", "1", "-b", "16"])
        .arg(&pink)
        .args(["synth", &seconds.to_string(), "pinknoise", "vol", "0.3"])
        .status()
        .expect("sox (tests/system-packages.sh installs it)")
        .success();
    assert!(ok, "sox could not make pink noise");
    wav::read_wav(&pink)
        .unwrap()
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

/// `speech` in the room whose `i`-th sample is `noise(i)`, the room `snr` dB under the
/// speech, 300 ms of it before and after.
pub fn mix(speech: &[i16], snr: f64, noise: impl Fn(usize) -> f64) -> Vec<i16> {
    let pad = 4800;
    let s: Vec<f64> = speech.iter().map(|&v| f64::from(v)).collect();
    let frames: Vec<f64> = s.chunks(320).map(power).collect();
    let loudest = frames.iter().copied().fold(0.0, f64::max);
    let active: Vec<f64> = frames
        .into_iter()
        .filter(|p| *p > loudest / 1000.0)
        .collect();
    let p_speech = active.iter().sum::<f64>() / active.len().max(1) as f64;
    let n = s.len() + 2 * pad;
    let room: Vec<f64> = (0..n).map(noise).collect();
    let gain = (p_speech / 10f64.powf(snr / 10.0) / power(&room)).sqrt();
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
