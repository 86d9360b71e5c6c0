//! The speakers a table's options ask for, and the warnings when nobody would hear.

use std::path::{Path, PathBuf};

use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;

use crate::dispatcher::TtsSpeaker;
use crate::speaker::{CommandSpeaker, Sink, Speaker, SpeechError, SpeechLog, VoiceSettings};

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
    /// Refuses impossible settings.
    pub fn check(&self) -> Result<(), SpeechError> {
        if let Some(r) = self.voice.rate {
            if !crate::speaker::RATE_RANGE.contains(&r) {
                return Err(SpeechError::Option(format!(
                    "--rate {r}: from 80 to 450 words per minute"
                )));
            }
        }
        if let Some(v) = self.voice.volume {
            if v > 200 {
                return Err(SpeechError::Option(format!(
                    "--volume {v}: from 0 to 200 per cent of normal"
                )));
            }
        }
        if self.public_to != PublicTo::Room
            && self.white_device.is_none()
            && self.black_device.is_none()
        {
            return Err(SpeechError::Option(
                "--public-to headsets/both needs --white-audio or --black-audio".to_owned(),
            ));
        }
        Ok(())
    }
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
/// error for each output that cannot speak and when the machine has no audio output.
pub fn build(program: &str, lang: Lang, options: &AudioOptions) -> Result<Speakers, SpeechError> {
    options.check()?;
    let mut speakers = Speakers {
        public_to: options.public_to,
        ..Speakers::default()
    };
    if options.off {
        return Ok(speakers);
    }
    if let Some(dir) = &options.wav {
        speakers.room = Some(Box::new(CommandSpeaker::recording_with(
            lang,
            dir,
            options.voice.clone(),
        )?));
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
    for (color, device) in [
        (Color::White, &options.white_device),
        (Color::Black, &options.black_device),
    ] {
        let label = if color == Color::White {
            "white"
        } else {
            "black"
        };
        let speaker = match device {
            Some(d) => Some(Box::new(CommandSpeaker::device(
                lang,
                Sink::parse(d),
                options.voice.clone(),
                log(options, label),
            )?) as Box<dyn Speaker + Send>),
            None => {
                eprintln!(
                    "{program}: {label} has no headset (--{label}-audio DEVICE): his private messages reach only the text channels"
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
        Some(d) => Some(Box::new(CommandSpeaker::device(
            lang,
            Sink::parse(d),
            options.voice.clone(),
            log(options, "public"),
        )?)),
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
