//! The room speaker through speech-dispatcher: a private, headless speech-dispatcher whose
//! ALSA default is a file (tests/tools/start-speechd.sh) speaks a Wild 16 game played
//! through the hall. The recording holds every public announcement and none of the
//! private words (those go to the players' own file PCMs); then the latency from `say` on
//! an idle speaker to the first audio in the recording is measured.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;
use kriegspiel_speech::dispatcher::TtsSpeaker;
use kriegspiel_speech::setup::build;
use kriegspiel_speech::speaker::{espeak_voice, Speaker, VoiceSettings};
use kriegspiel_speech::AudioOptions;

/// A private speech-dispatcher; killed (by its pid) when dropped.
struct Dispatcher {
    pid: String,
    wav: PathBuf,
}

impl Dispatcher {
    fn start(dir: &Path) -> Dispatcher {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/start-speechd.sh");
        let out = Command::new("bash").arg(script).arg(dir).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let var = |name: &str| {
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("no {name} in {text}"))
                .to_owned()
        };
        // The tts client (libspeechd) finds the server here. Only this binary's tests use it.
        std::env::set_var("SPEECHD_ADDRESS", var("SPEECHD_ADDRESS"));
        Dispatcher {
            pid: var("SPEECHD_PID"),
            wav: PathBuf::from(var("SPEECHD_WAV")),
        }
    }

    fn size(&self) -> u64 {
        std::fs::metadata(&self.wav).map(|m| m.len()).unwrap_or(0)
    }

    /// Waits until the recording has not grown for `quiet`.
    fn wait_quiet(&self, quiet: Duration, limit: Duration) {
        let start = Instant::now();
        let (mut last, mut since) = (self.size(), Instant::now());
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
            let now = self.size();
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= quiet {
                return;
            }
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.pid).status();
    }
}

#[test]
fn speech_dispatcher_speaks_every_public_word_and_no_private_one() {
    let dir = tempfile::tempdir().unwrap();
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".asoundrc"),
        common::asoundrc(dir.path(), &["white", "black"]),
    )
    .unwrap();
    std::env::set_var("HOME", &home);
    let log = dir.path().join("sent.tsv");
    let options = AudioOptions {
        white_device: Some("white".into()),
        black_device: Some("black".into()),
        log: Some(log.clone()),
        ..AudioOptions::default()
    };
    let speakers = build("test", Lang::En, &options).unwrap();
    let expected = common::play(&dir.path().join("j.sqlite"), speakers, "en");
    speechd.wait_quiet(Duration::from_secs(2), Duration::from_secs(60));
    assert_eq!(common::logged(&log, "public"), expected.public);
    let voice = espeak_voice(Lang::En);
    let total = |texts: &[String]| -> f64 {
        texts
            .iter()
            .map(|t| common::espeak_samples(voice, t))
            .sum::<u64>() as f64
    };
    let (public, white, black) = (
        total(&expected.public),
        total(&expected.white),
        total(&expected.black),
    );
    let (recorded, rms) = common::measure(&speechd.wav);
    let ratio = recorded as f64 / public;
    eprintln!(
        "speech-dispatcher recorded {recorded} samples for {} public utterances ({public} samples with espeak-ng): ratio {ratio:.3}; private: white {white}, black {black}",
        expected.public.len()
    );
    assert!(rms > 0.01, "the recording is silent (RMS {rms})");
    // speech-dispatcher's espeak-ng module speaks a little slower than the program and pads
    // each utterance; every public announcement is there, and no private one.
    assert!(
        (0.98..1.2).contains(&ratio),
        "ratio {ratio}: public words missing or extra"
    );
    assert!(
        (recorded as f64) < (public + white.min(black)) * 0.98,
        "the recording is as long as public and private words together"
    );

    // Latency: `say` on an idle speaker to the first audio written into the recording.
    let mut room = TtsSpeaker::start(Lang::En, VoiceSettings::default(), None).unwrap();
    let mut latencies = Vec::new();
    for _ in 0..10 {
        speechd.wait_quiet(Duration::from_millis(700), Duration::from_secs(20));
        let before = speechd.size();
        let t = Instant::now();
        room.say("Black's move. Pawn tries on ee 4, dee 5.");
        while speechd.size() == before && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_micros(500));
        }
        latencies.push(t.elapsed());
    }
    latencies.sort();
    eprintln!("speech-dispatcher say -> first audio: {latencies:?}");
    let median = latencies[latencies.len() / 2];
    assert!(median < Duration::from_millis(150), "median {median:?}");
    room.finish(Duration::from_millis(100));
}
