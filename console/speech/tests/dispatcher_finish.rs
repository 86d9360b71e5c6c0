//! A program that ends right after its last announcement (a hall whose games are over) must
//! not end before speech-dispatcher has said it: the room speaker's `finish` waits for the
//! end of every utterance it handed over, not for a moment when nothing is speaking (there
//! is one between any two utterances). Its own test binary: `SPEECHD_ADDRESS` is the
//! process's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::Dispatcher;
use kriegspiel_referee::Lang;
use kriegspiel_speech::dispatcher::TtsSpeaker;
use kriegspiel_speech::speaker::VoiceSettings;
use kriegspiel_speech::Speaker;

#[test]
fn finish_returns_once_every_queued_utterance_is_spoken() {
    let dir = tempfile::tempdir().unwrap();
    let speechd = Dispatcher::start(&dir.path().join("speechd"));
    std::env::set_var("SPEECHD_ADDRESS", &speechd.address);
    let mut room = TtsSpeaker::start(Lang::En, VoiceSettings::default(), None).unwrap();
    let texts = [
        "White tries e2 e4. The move stands.",
        "Black tries d7 d5. Illegal.",
        "Black tries d7 d6. The move stands.",
        "White captures on d6. Check on the file.",
        "Black resigns. White wins.",
    ];
    for text in texts {
        room.say(text);
    }
    // A loaded machine: speech-dispatcher answers late, after the texts were handed over.
    speechd.signal("-STOP");
    let slow = std::thread::spawn({
        let pid = speechd.pid().to_owned();
        move || {
            std::thread::sleep(Duration::from_secs(2));
            let _ = std::process::Command::new("kill")
                .args(["-CONT", &pid])
                .status();
        }
    });
    let asked = Instant::now();
    room.finish(Duration::from_secs(60));
    let waited = asked.elapsed();
    slow.join().unwrap();
    let at_finish = speechd.size();
    speechd.wait_quiet(Duration::from_secs(2), Duration::from_secs(60));
    let at_end = speechd.size();
    let (samples, rms) = common::measure(&speechd.wav);
    eprintln!(
        "finish waited {waited:?}; recording {at_finish} bytes then, {at_end} bytes at the end ({samples} samples, RMS {rms:.3})"
    );
    assert!(rms > 0.01, "the recording is silent (RMS {rms})");
    assert!(waited < Duration::from_secs(60), "finish hit its limit");
    // What came after finish returned is at most the last utterance's tail in the device's
    // buffer, not whole utterances.
    assert!(
        at_finish as f64 >= at_end as f64 * 0.95,
        "finish returned with {at_finish} of {at_end} bytes recorded: words were still queued"
    );
}
