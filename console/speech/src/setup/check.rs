//! What is asked once at start: whether speech-dispatcher answers, whether the machine
//! has an audio output, and whether each named device opens.

use std::path::PathBuf;

use crate::speaker::{Sink, SpeechError};

use super::options::{AudioError, AudioKey, AudioOptions};

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

/// What is asked once for all the tables that start together (a hall's, or the one of
/// `kriegspiel table`): whether speech-dispatcher answers, and whether the machine has an
/// audio output at all. Each table's speakers are built from it ([`super::build_checked`]), so
/// an absent or hung speech-dispatcher costs one try, however many tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Probe {
    /// `None`: not asked (no room speaks through it); else whether it answers, and why not.
    pub dispatcher: Option<Result<(), String>>,
    /// Why nobody would hear the default output ([`no_audio_output`]).
    pub no_audio: Option<String>,
}

/// Probes once: speech-dispatcher when `dispatcher` (some table's room would speak through
/// it: [`AudioOptions::wants_dispatcher`]; at most [`crate::dispatcher::CONNECT_LIMIT`]),
/// and the machine's audio outputs.
pub fn probe(dispatcher: bool) -> Probe {
    Probe {
        dispatcher: dispatcher.then(|| crate::dispatcher::probe().map(|_| ())),
        no_audio: no_audio_output(),
    }
}

/// A table's audio options whose settings are checked and whose named devices were each
/// opened once ([`check_devices`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked(AudioOptions);

impl Checked {
    pub fn options(&self) -> &AudioOptions {
        &self.0
    }
}

/// Checks the settings ([`AudioOptions::check`]) and opens each named device once (an ALSA
/// PCM by aplay, a PulseAudio sink looked up with pactl; the devices at once, a thread
/// each), so that a device that does not exist is refused now, by its setting. Done
/// whether or not the table speaks (`no_speech`, `--no-speech`): a round file or a command
/// line naming a missing device is wrong either way. A recording folder that is a file is
/// refused too.
pub fn check_devices(options: &AudioOptions) -> Result<Checked, AudioError> {
    check_all(&[options])
        .pop()
        .unwrap_or_else(|| Err(AudioError::new(AudioKey::PublicAudio, "nothing checked")))
}

/// [`check_devices`] for several tables at once, in their order: each device named by any
/// table is opened once (a room speaker several tables share, once for them all), the
/// devices at once, a thread each.
pub fn check_all(tables: &[&AudioOptions]) -> Vec<Result<Checked, AudioError>> {
    let mut sinks: Vec<Sink> = Vec::new();
    for options in tables {
        for (_, device) in options.devices() {
            if let Some(sink) = device.as_deref().and_then(|d| Sink::parse_checked(d).ok()) {
                if !sinks.contains(&sink) {
                    sinks.push(sink);
                }
            }
        }
    }
    let probed: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sinks
            .iter()
            .map(|sink| scope.spawn(move || sink.probe()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the device check failed".to_owned()))
            })
            .collect()
    });
    let check = |options: &AudioOptions| -> Result<Checked, AudioError> {
        options.check()?;
        for (key, device) in options.devices() {
            let Some(device) = device.as_deref() else {
                continue;
            };
            let sink = Sink::parse_checked(device).map_err(|why| AudioError::new(key, why))?;
            let result = sinks
                .iter()
                .position(|s| *s == sink)
                .and_then(|i| probed.get(i))
                .cloned()
                .unwrap_or_else(|| Err(format!("{sink} was not checked")));
            result.map_err(|why| AudioError::new(key, why))?;
        }
        if let Some(dir) = &options.wav {
            if dir.exists() && !dir.is_dir() {
                return Err(AudioError::new(
                    AudioKey::SpeechWav,
                    SpeechError::Folder(format!("{}: it is a file", dir.display())).to_string(),
                ));
            }
        }
        Ok(Checked((*options).clone()))
    };
    tables.iter().map(|o| check(o)).collect()
}
