//! The speakers a table's options ask for, and the warnings when nobody would hear.

use std::path::{Path, PathBuf};

use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;

use crate::dispatcher::TtsSpeaker;
use crate::speaker::{CommandSpeaker, Sink, Speaker, SpeechLog, VoiceSettings};

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

/// The longest device name taken.
pub const MAX_DEVICE_NAME: usize = 200;

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
            if !crate::speaker::RATE_RANGE.contains(&r) {
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
}

/// At most 80 characters of a name, for messages.
fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    out.escape_debug().to_string()
}

/// The outputs of one table.
#[derive(Default)]
pub struct Speakers {
    pub room: Option<Box<dyn Speaker + Send>>,
    pub white: Option<Box<dyn Speaker + Send>>,
    pub black: Option<Box<dyn Speaker + Send>>,
    pub public_to: PublicTo,
}

impl std::fmt::Debug for Speakers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Speakers")
            .field("room", &self.room.is_some())
            .field("white", &self.white.is_some())
            .field("black", &self.black.is_some())
            .field("public_to", &self.public_to)
            .finish()
    }
}

impl Speakers {
    pub fn is_silent(&self) -> bool {
        self.room.is_none() && self.white.is_none() && self.black.is_none()
    }

    pub fn player(&mut self, c: Color) -> Option<&mut Box<dyn Speaker + Send>> {
        match c {
            Color::White => self.white.as_mut(),
            Color::Black => self.black.as_mut(),
        }
    }
}

/// Whether this machine has any audio output: a sound card, or a PulseAudio/PipeWire
/// server. `None` when there is; else the reason, for the warning.
pub fn no_audio_output() -> Option<String> {
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    let has_card = cards.lines().any(|l| {
        let l = l.trim_start();
        l.chars().next().is_some_and(|c| c.is_ascii_digit())
    });
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let server = std::env::var_os("PULSE_SERVER").is_some()
        || runtime
            .as_deref()
            .is_some_and(|r| r.join("pulse/native").exists() || r.join("pipewire-0").exists());
    (!has_card && !server).then(|| {
        "no sound card (/proc/asound/cards) and no PulseAudio or PipeWire server: unless an ALSA configuration sends it elsewhere, NOBODY HEARS THE ANNOUNCEMENTS; the text channels (JSON lines) still carry everything".to_owned()
    })
}

fn log(options: &AudioOptions, label: &str) -> Option<SpeechLog> {
    options.log.as_ref().map(|path| SpeechLog {
        path: path.clone(),
        label: label.to_owned(),
    })
}

/// The speakers `options` ask for, with a warning line (prefixed by `program`) on standard
/// error for each output that cannot speak and when the machine has no audio output. Each
/// named device is opened once first (an ALSA PCM by aplay, a PulseAudio sink looked up
/// with pactl), so that a device that does not exist is refused now, by its setting.
pub fn build(program: &str, lang: Lang, options: &AudioOptions) -> Result<Speakers, AudioError> {
    options.check()?;
    let mut speakers = Speakers {
        public_to: options.public_to,
        ..Speakers::default()
    };
    if options.off {
        return Ok(speakers);
    }
    if let Some(dir) = &options.wav {
        speakers.room = Some(Box::new(
            CommandSpeaker::recording_with(lang, dir, options.voice.clone())
                .map_err(|e| AudioError::new(AudioKey::SpeechWav, e.to_string()))?,
        ));
    }
    let named = [
        &options.public_device,
        &options.white_device,
        &options.black_device,
    ]
    .iter()
    .any(|d| d.is_some());
    if options.wav.is_none() && !named {
        if let Some(why) = no_audio_output() {
            eprintln!("{program}: warning: {why}");
        }
    }
    let device =
        |key: AudioKey, name: &str, label: &str| -> Result<Box<dyn Speaker + Send>, AudioError> {
            let sink = Sink::parse_checked(name).map_err(|why| AudioError::new(key, why))?;
            sink.probe().map_err(|why| AudioError::new(key, why))?;
            let speaker =
                CommandSpeaker::device(lang, sink, options.voice.clone(), log(options, label))
                    .map_err(|e| AudioError::new(key, e.to_string()))?;
            Ok(Box::new(speaker))
        };
    for (color, key, name) in [
        (Color::White, AudioKey::WhiteAudio, &options.white_device),
        (Color::Black, AudioKey::BlackAudio, &options.black_device),
    ] {
        let label = if color == Color::White {
            "white"
        } else {
            "black"
        };
        let speaker = match name {
            Some(d) => Some(device(key, d, label)?),
            None => {
                eprintln!(
                    "{program}: {label} has no headset ({}): his private messages reach only the text channels",
                    key.flag()
                );
                None
            }
        };
        match color {
            Color::White => speakers.white = speaker,
            Color::Black => speakers.black = speaker,
        }
    }
    if options.wav.is_some() || options.public_to == PublicTo::Headsets {
        return Ok(speakers);
    }
    speakers.room = match &options.public_device {
        Some(d) => Some(device(AudioKey::PublicAudio, d, "public")?),
        None => room_speaker(program, lang, options),
    };
    Ok(speakers)
}

/// The room speaker on the default output: speech-dispatcher, else the espeak-ng program.
fn room_speaker(
    program: &str,
    lang: Lang,
    options: &AudioOptions,
) -> Option<Box<dyn Speaker + Send>> {
    if !options.no_dispatcher {
        match TtsSpeaker::start(lang, options.voice.clone(), log(options, "public")) {
            Ok(s) => {
                eprintln!(
                    "{program}: speaking through speech-dispatcher, voice {}",
                    s.voice
                );
                return Some(Box::new(s));
            }
            Err(e) => eprintln!("{program}: {e}; speaking with the espeak-ng program instead"),
        }
    }
    match CommandSpeaker::start_with(lang, options.voice.clone(), log(options, "public")) {
        Ok(s) => Some(Box::new(s)),
        Err(e) => {
            eprintln!("{program}: warning: {e}");
            None
        }
    }
}

/// For `--speech-wav`: the folder.
pub fn wav_dir(options: &AudioOptions) -> Option<&Path> {
    options.wav.as_deref()
}
