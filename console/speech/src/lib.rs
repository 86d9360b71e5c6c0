//! Everything the console says aloud.
//!
//! [`route::hear`] decides, for each table output, who hears it (the public room, white's
//! or black's own channel) and its spoken words ([`words`]: squares and men as words in each
//! language). Speakers ([`speaker`]) each own one output device with one queue and one
//! thread, so that speech never holds a table back: speech-dispatcher through the `tts`
//! crate ([`dispatcher`]), the espeak-ng program (on the default output, or piped into
//! `aplay -D DEVICE` / `paplay --device` for a player's headset), or WAV recording.
//! [`subscriber::spawn`] feeds them from a hall subscription; [`setup`] builds them from
//! the command line's options and warns when nobody can hear anything.

pub mod dispatcher;
pub mod route;
pub mod setup;
pub mod speaker;
pub mod subscriber;
pub mod words;

pub use kriegspiel_table::render::Hearer;
pub use route::{hear, Positions, Utterance};
pub use setup::{AudioError, AudioKey, AudioOptions, PublicTo, Speakers};
pub use speaker::{CommandSpeaker, Engine, RecordingSpeaker, Sink, Speaker, SpeechError};
