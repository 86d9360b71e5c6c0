//! A table's audio settings: what they are called (round file and command line), their
//! values, and the checks that need no device.

use std::path::PathBuf;

use crate::speaker::{Sink, VoiceSettings, MAX_DEVICE_NAME, RATE_RANGE};

/// Where public announcements go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PublicTo {
    /// The room speaker only (default).
    #[default]
    Room,
    /// Each player's headset only.
    Headsets,
    /// Both.
    Both,
}

impl std::str::FromStr for PublicTo {
    type Err = String;
    fn from_str(s: &str) -> Result<PublicTo, String> {
        match s {
            "room" => Ok(PublicTo::Room),
            "headsets" => Ok(PublicTo::Headsets),
            "both" => Ok(PublicTo::Both),
            _ => Err(format!(
                "unknown public output '{s}' (room, headsets, both)"
            )),
        }
    }
}

/// One audio setting of a table, by its round-file key (`white_audio`); [`AudioKey::flag`]
/// is the same setting on the command line (`--white-audio`). One list, so that
/// `kriegspiel table`, `demo` and the round file of `kriegspiel hall` take the same settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AudioKey {
    NoSpeech,
    SpeechWav,
    PublicAudio,
    WhiteAudio,
    BlackAudio,
    PublicTo,
    Voice,
    Rate,
    Volume,
    SpeechLog,
    NoSpeechDispatcher,
}

impl AudioKey {
    pub const ALL: [AudioKey; 11] = [
        AudioKey::NoSpeech,
        AudioKey::SpeechWav,
        AudioKey::PublicAudio,
        AudioKey::WhiteAudio,
        AudioKey::BlackAudio,
        AudioKey::PublicTo,
        AudioKey::Voice,
        AudioKey::Rate,
        AudioKey::Volume,
        AudioKey::SpeechLog,
        AudioKey::NoSpeechDispatcher,
    ];

    /// The round file's key.
    pub const fn key(self) -> &'static str {
        match self {
            AudioKey::NoSpeech => "no_speech",
            AudioKey::SpeechWav => "speech_wav",
            AudioKey::PublicAudio => "public_audio",
            AudioKey::WhiteAudio => "white_audio",
            AudioKey::BlackAudio => "black_audio",
            AudioKey::PublicTo => "public_to",
            AudioKey::Voice => "voice",
            AudioKey::Rate => "rate",
            AudioKey::Volume => "volume",
            AudioKey::SpeechLog => "speech_log",
            AudioKey::NoSpeechDispatcher => "no_speech_dispatcher",
        }
    }

    /// The command line's option.
    pub fn flag(self) -> String {
        format!("--{}", self.key().replace('_', "-"))
    }

    /// The key of a round file, if it is an audio key.
    pub fn from_key(key: &str) -> Option<AudioKey> {
        AudioKey::ALL.into_iter().find(|k| k.key() == key)
    }
}

/// A bad audio setting: which one, and why. Displayed as the command line names it
/// (`--white-audio: ...`); a round file names it by [`AudioKey::key`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioError {
    pub key: AudioKey,
    pub message: String,
}

impl AudioError {
    pub fn new(key: AudioKey, message: impl Into<String>) -> AudioError {
        AudioError {
            key,
            message: message.into(),
        }
    }

    /// As a round file names it: `white_audio: ...`.
    pub fn in_round_file(&self) -> String {
        format!("{}: {}", self.key.key(), self.message)
    }
}

impl std::fmt::Display for AudioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key.flag(), self.message)
    }
}

impl std::error::Error for AudioError {}

/// A table's audio options (command line or round file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AudioOptions {
    /// Do not speak at all.
    pub off: bool,
    /// Record public announcements into DIR/NNNN.wav instead of playing them.
    pub wav: Option<PathBuf>,
    /// The room speaker's device; none: speech-dispatcher, else espeak-ng's default output.
    pub public_device: Option<String>,
    /// Each player's headset device.
    pub white_device: Option<String>,
    pub black_device: Option<String>,
    pub public_to: PublicTo,
    pub voice: VoiceSettings,
    /// Append "OUTPUT<tab>TEXT" for each utterance sent (public, white, black).
    pub log: Option<PathBuf>,
    /// Never use speech-dispatcher (the espeak-ng program for the room).
    pub no_dispatcher: bool,
}

impl AudioOptions {
    /// Refuses impossible settings, naming the setting: rates and volumes out of range,
    /// malformed device names, and any device that would let private words reach another
    /// ear (both players on one headset, a headset that is also the room speaker).
    pub fn check(&self) -> Result<(), AudioError> {
        if let Some(r) = self.voice.rate {
            if !RATE_RANGE.contains(&r) {
                return Err(AudioError::new(
                    AudioKey::Rate,
                    format!("{r}: from 80 to 450 words per minute"),
                ));
            }
        }
        if let Some(v) = self.voice.volume {
            if v > 200 {
                return Err(AudioError::new(
                    AudioKey::Volume,
                    format!("{v}: from 0 to 200 per cent of normal"),
                ));
            }
        }
        if let Some(v) = &self.voice.voice {
            if v.is_empty() || v.len() > MAX_DEVICE_NAME || v.chars().any(char::is_control) {
                return Err(AudioError::new(
                    AudioKey::Voice,
                    format!("bad voice name '{}'", excerpt(v)),
                ));
            }
        }
        let devices = [
            (AudioKey::PublicAudio, &self.public_device),
            (AudioKey::WhiteAudio, &self.white_device),
            (AudioKey::BlackAudio, &self.black_device),
        ];
        let mut sinks: Vec<(AudioKey, Sink)> = Vec::new();
        for (key, device) in devices {
            if let Some(d) = device {
                let sink = Sink::parse_checked(d).map_err(|why| AudioError::new(key, why))?;
                if let Some((other, _)) = sinks.iter().find(|(_, s)| *s == sink) {
                    return Err(AudioError::new(
                        key,
                        format!(
                            "{sink} is also {}: private words would reach another ear; each headset needs a device of its own",
                            other.key()
                        ),
                    ));
                }
                sinks.push((key, sink));
            }
        }
        if self.public_to != PublicTo::Room
            && self.white_device.is_none()
            && self.black_device.is_none()
        {
            return Err(AudioError::new(
                AudioKey::PublicTo,
                "headsets/both needs white_audio (--white-audio) or black_audio (--black-audio)",
            ));
        }
        Ok(())
    }

    /// Whether this table's room speaks through speech-dispatcher (when it answers): it
    /// speaks, records nothing, has a room, names no room device and does not refuse
    /// speech-dispatcher.
    pub fn wants_dispatcher(&self) -> bool {
        !self.off
            && self.wav.is_none()
            && self.public_to != PublicTo::Headsets
            && self.public_device.is_none()
            && !self.no_dispatcher
    }

    /// The named devices, by their setting.
    pub(super) fn devices(&self) -> [(AudioKey, &Option<String>); 3] {
        [
            (AudioKey::PublicAudio, &self.public_device),
            (AudioKey::WhiteAudio, &self.white_device),
            (AudioKey::BlackAudio, &self.black_device),
        ]
    }
}

/// At most 80 characters of a name, for messages.
fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    out.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_room_on_the_default_output_asks_speech_dispatcher() {
        let room = AudioOptions::default();
        assert!(room.wants_dispatcher());
        for other in [
            AudioOptions {
                off: true,
                ..AudioOptions::default()
            },
            AudioOptions {
                no_dispatcher: true,
                ..AudioOptions::default()
            },
            AudioOptions {
                public_device: Some("plughw:0,0".into()),
                ..AudioOptions::default()
            },
            AudioOptions {
                wav: Some("rec".into()),
                ..AudioOptions::default()
            },
            AudioOptions {
                public_to: PublicTo::Headsets,
                white_device: Some("w".into()),
                ..AudioOptions::default()
            },
        ] {
            assert!(!other.wants_dispatcher(), "{other:?}");
        }
    }
}
