//! Speakers: one output device each, with its own queue and thread, so that `say` returns
//! at once and never holds a table back.
//!
//! By job: the [`Speaker`] trait and its queue limit (here), a voice's settings
//! (`settings`), the text-to-speech programs and their arguments (`engine`), the devices a
//! voice is played into (`sink`), WAV recording (`wav`), finding and running helper programs
//! (`programs`), the speech log (`log`), the speaker of an external program
//! ([`CommandSpeaker`], `command`) and its background thread (`worker`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

mod command;
mod engine;
mod error;
mod log;
mod programs;
mod settings;
mod sink;
mod wav;
mod worker;

pub use command::CommandSpeaker;
pub use engine::{espeak_voice, Engine};
pub use error::SpeechError;
pub use log::SpeechLog;
pub use programs::{find_program, on_path, PROBE_LIMIT};
pub use settings::{dispatcher_rate, dispatcher_volume, VoiceSettings, NORMAL_RATE, RATE_RANGE};
pub use sink::{Sink, MAX_DEVICE_NAME};
pub use worker::Latencies;

/// Something that speaks.
pub trait Speaker {
    /// Queues `text`; returns at once.
    fn say(&mut self, text: &str);
    /// Waits (at most `limit`) for the queued texts to be spoken, e.g. the last announcement
    /// of a game before the program exits.
    fn finish(&mut self, limit: Duration);
    /// Takes no more texts (what is queued is still spoken); returns at once. Lets several
    /// outputs drain together before each is waited for with [`Speaker::finish`].
    fn close(&mut self) {}
}

/// Remembers every text, for tests.
#[derive(Debug, Clone, Default)]
pub struct RecordingSpeaker {
    spoken: Arc<Mutex<Vec<String>>>,
}

impl RecordingSpeaker {
    pub fn new() -> RecordingSpeaker {
        RecordingSpeaker::default()
    }

    /// What was said so far, in order.
    pub fn spoken(&self) -> Vec<String> {
        self.spoken
            .lock()
            .map(|v| v.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }
}

impl Speaker for RecordingSpeaker {
    fn say(&mut self, text: &str) {
        match self.spoken.lock() {
            Ok(mut v) => v.push(text.to_owned()),
            Err(poisoned) => poisoned.into_inner().push(text.to_owned()),
        }
    }

    fn finish(&mut self, _limit: Duration) {}
}

/// The most utterances waiting for one output; more are dropped (a hung device or
/// speech-dispatcher never makes a table wait, nor the program's memory grow).
pub const QUEUE_LIMIT: usize = 256;

/// Says on standard error that an output's queue was full (the first time, then every
/// hundredth time).
pub fn queue_full(dropped: &mut u64) {
    if *dropped % 100 == 1 {
        eprintln!(
            "kriegspiel: speech: an output is not keeping up ({QUEUE_LIMIT} utterances waiting): {dropped} utterance(s) dropped"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_speaker_keeps_order() {
        let mut s = RecordingSpeaker::new();
        let seen = s.clone();
        s.say("White has moved.");
        s.say("No.");
        assert_eq!(seen.spoken(), ["White has moved.", "No."]);
    }
}
