//! Spoken tries and commands, in English, offline: PocketSphinx (Debian's 0.8+5prealpha
//! library through a small binding in [`ffi`]) with a grammar rebuilt every turn from the
//! tries possible on the player's own board, a phone-loop likelihood ratio that rejects
//! speech that is neither a try nor a command, and [`VoiceChannel`], the pure state machine
//! that turns what was heard into hall inputs (a try only after "confirm").
//! See docs/VOICE.md.

mod ffi;
pub mod floor;
pub mod grammar;
pub mod words;

pub use ffi::FfiError;
pub use floor::{with_noise_floor, DEFAULT_NOISE_FLOOR};
pub use grammar::{Command, Heard, TurnGrammar};
pub use words::FileNames;
pub mod recognizer;
pub mod wav;

pub use recognizer::{Adaptation, Model, Recognition, Recognizer, VoiceError, Weighed};
pub mod channel;
pub mod ear;
pub mod enrol;
pub mod level;
pub mod mic;
pub mod transform;

pub use channel::{Outcome, Pending, VoiceChannel};
pub use ear::{AnswerEar, EarChoice, EarHeard, Sureness};
pub use enrol::{enrol, EnrolError, Enrolment};
pub use mic::{Microphone, Recording};
