//! The room speaker through speech-dispatcher: a private, headless speech-dispatcher whose
//! ALSA default is a file (tests/tools/start-speechd.sh) speaks a Wild 16 game played
//! through the hall. The recording holds every public announcement and none of the
//! private words (those go to the players' own file PCMs). The latency from `say` to the
//! first audio is measured by `benches/latency.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::Dispatcher;
use kriegspiel_referee::Lang;
use kriegspiel_speech::setup::build;
use kriegspiel_speech::speaker::espeak_voice;
use kriegspiel_speech::AudioOptions;

#[test]
fn speech_dispatcher_speaks_every_public_word_and_no_private_one() {
    let dir = tempfile::tempdir().unwrap();
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    // The tts client (libspeechd) finds the server here. Only this binary's tests use it.
    std::env::set_var("SPEECHD_ADDRESS", &speechd.address);
    let home = common::alsa_home(dir.path(), &["white", "black"]);
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
    let total = |texts: &[String]| common::espeak_total(voice, texts) as f64;
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
}
