//! Speech lives in the `kriegspiel-speech` crate (console/speech): who hears each output,
//! its spoken words, and the speakers. Re-exported here for the subcommands.

pub use kriegspiel_speech::setup;
pub use kriegspiel_speech::{AudioError, AudioKey, AudioOptions, PublicTo, Speakers};
