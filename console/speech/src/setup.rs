//! The speakers a table's options ask for, and the warnings when nobody would hear.

use std::path::{Path, PathBuf};

use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;

use kriegspiel_hall::TableNo;

use crate::dispatcher::TtsSpeaker;
use crate::speaker::{on_path, CommandSpeaker, Engine, Sink, Speaker, SpeechLog, VoiceSettings};

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
    fn devices(&self) -> [(AudioKey, &Option<String>); 3] {
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

/// What is asked once for all the tables that start together (a hall's, or the one of
/// `kriegspiel table`): whether speech-dispatcher answers, and whether the machine has an
/// audio output at all. Each table's speakers are built from it ([`build_checked`]), so
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
                    crate::SpeechError::Folder(format!("{}: it is a file", dir.display()))
                        .to_string(),
                ));
            }
        }
        Ok(Checked((*options).clone()))
    };
    tables.iter().map(|o| check(o)).collect()
}

/// Who speaks a table's public announcements, for the start's summary ([`summary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Room {
    /// The table speaks nothing (`no_speech`).
    Off,
    /// Recorded into WAV files (`speech_wav`).
    Recorded,
    /// In the players' headsets only (`public_to = "headsets"`).
    HeadsetsOnly,
    /// A named device.
    Device(String),
    /// speech-dispatcher, with this voice.
    Dispatcher(String),
    /// The program (espeak-ng, else spd-say) on the default output; why not
    /// speech-dispatcher when this table's own connection failed.
    Program {
        program: &'static str,
        why: Option<String>,
    },
    /// Nobody: no program could be started.
    Unheard(String),
}

/// What one table's speakers are, for the start's summary ([`summary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub room: Room,
    /// Each player has a headset.
    pub white_headset: bool,
    pub black_headset: bool,
    /// Every output is the default one (no device named, nothing recorded): nobody hears
    /// it on a machine without audio output.
    pub default_output: bool,
}

/// The speakers of a table whose devices were checked ([`check_devices`]), given what was
/// probed once for all tables: speech-dispatcher is tried only if the probe found it
/// answering (or did not ask). Prints nothing: what each table got is in the [`Report`],
/// for one [`summary`] line for all tables.
pub fn build_checked(
    lang: Lang,
    checked: &Checked,
    probe: &Probe,
) -> Result<(Speakers, Report), AudioError> {
    let options = checked.options();
    let mut speakers = Speakers {
        public_to: options.public_to,
        ..Speakers::default()
    };
    let mut report = Report {
        room: Room::Off,
        white_headset: options.white_device.is_some(),
        black_headset: options.black_device.is_some(),
        default_output: options.wav.is_none() && options.devices().iter().all(|(_, d)| d.is_none()),
    };
    if options.off {
        return Ok((speakers, report));
    }
    if let Some(dir) = &options.wav {
        speakers.room = Some(Box::new(
            CommandSpeaker::recording_with(lang, dir, options.voice.clone())
                .map_err(|e| AudioError::new(AudioKey::SpeechWav, e.to_string()))?,
        ));
        report.room = Room::Recorded;
    }
    let device =
        |key: AudioKey, name: &str, label: &str| -> Result<Box<dyn Speaker + Send>, AudioError> {
            let sink = Sink::parse_checked(name).map_err(|why| AudioError::new(key, why))?;
            let speaker =
                CommandSpeaker::device(lang, sink, options.voice.clone(), log(options, label))
                    .map_err(|e| AudioError::new(key, e.to_string()))?;
            Ok(Box::new(speaker))
        };
    if let Some(d) = &options.white_device {
        speakers.white = Some(device(AudioKey::WhiteAudio, d, "white")?);
    }
    if let Some(d) = &options.black_device {
        speakers.black = Some(device(AudioKey::BlackAudio, d, "black")?);
    }
    if options.wav.is_some() {
        return Ok((speakers, report));
    }
    if options.public_to == PublicTo::Headsets {
        report.room = Room::HeadsetsOnly;
        return Ok((speakers, report));
    }
    (speakers.room, report.room) = match &options.public_device {
        Some(d) => (
            Some(device(AudioKey::PublicAudio, d, "public")?),
            Room::Device(Sink::parse(d).to_string()),
        ),
        None => room_speaker(lang, options, probe),
    };
    Ok((speakers, report))
}

/// The speakers `options` ask for, for one table started alone: its devices checked
/// ([`check_devices`]), speech-dispatcher probed ([`probe`]), then one line on standard
/// error (prefixed by `program`) saying who speaks and who hears nothing ([`summary`]).
pub fn build(program: &str, lang: Lang, options: &AudioOptions) -> Result<Speakers, AudioError> {
    let checked = check_devices(options)?;
    let probed = probe(options.wants_dispatcher());
    let (speakers, report) = build_checked(lang, &checked, &probed)?;
    if let Some(line) = summary(&probed, &[(1, report)], false) {
        eprintln!("{program}: speech: {line}");
    }
    Ok(speakers)
}

/// The speakers of tables started together ([`build_all`]).
#[derive(Debug)]
pub struct Built {
    /// The speaking tables' speakers, in the tables' order.
    pub speakers: Vec<(TableNo, Speakers)>,
    /// The one line for them all ([`summary`]).
    pub summary: Option<String>,
}

/// Every table's speakers, in the tables' order, from one probe for them all: `probe` is
/// called once, when the first table needs it (a hall starts it on a thread before its
/// journal and joins it here). Returns the speaking tables' speakers and the summary line
/// ([`summary`]); an error names the table.
pub fn build_all(
    tables: &[(TableNo, Lang, Checked)],
    probe: impl FnOnce() -> Probe,
) -> Result<Built, (TableNo, AudioError)> {
    let probed = probe();
    let mut speakers = Vec::new();
    let mut reports = Vec::new();
    for (table, lang, checked) in tables {
        let (s, report) = build_checked(*lang, checked, &probed).map_err(|e| (*table, e))?;
        if !s.is_silent() {
            speakers.push((*table, s));
        }
        reports.push((*table, report));
    }
    Ok(Built {
        speakers,
        summary: summary(&probed, &reports, true),
    })
}

/// The room speaker on the default output: speech-dispatcher (unless refused, or probed and
/// not answering), else the espeak-ng program (else spd-say).
fn room_speaker(
    lang: Lang,
    options: &AudioOptions,
    probe: &Probe,
) -> (Option<Box<dyn Speaker + Send>>, Room) {
    let mut why = None;
    if !options.no_dispatcher && !matches!(probe.dispatcher, Some(Err(_))) {
        match TtsSpeaker::start(lang, options.voice.clone(), log(options, "public")) {
            Ok(s) => {
                let voice = s.voice.clone();
                return (Some(Box::new(s)), Room::Dispatcher(voice));
            }
            Err(e) => why = Some(e),
        }
    }
    let program = [Engine::EspeakNg, Engine::SpdSay]
        .into_iter()
        .find(|e| on_path(e.program()).is_some())
        .map_or("espeak-ng", Engine::program);
    match CommandSpeaker::start_with(lang, options.voice.clone(), log(options, "public")) {
        Ok(s) => (Some(Box::new(s)), Room::Program { program, why }),
        Err(e) => (None, Room::Unheard(e.to_string())),
    }
}

/// The tables, as few words as may be: `table 3`, `tables 1–4`, `tables 1, 2, 4–6`.
pub fn table_list(tables: &[TableNo]) -> String {
    let mut sorted = tables.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(TableNo, TableNo)> = Vec::new();
    for t in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == t => *end = t,
            _ => runs.push((t, t)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else if a + 1 == b {
                format!("{a}, {b}")
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    match runs[..] {
        [(a, b)] if a == b => format!("table {a}"),
        _ => format!("tables {}", words.join(", ")),
    }
}

/// One line for all the tables that started together: why speech-dispatcher is not used
/// (once), who speaks each table's public announcements, the players without a headset,
/// and, on a machine without audio output, that nobody hears. `None` when no table speaks.
/// `hall`: name the tables and the round file's keys (else the command line's options).
pub fn summary(probe: &Probe, tables: &[(TableNo, Report)], hall: bool) -> Option<String> {
    let speaking: Vec<&(TableNo, Report)> =
        tables.iter().filter(|(_, r)| r.room != Room::Off).collect();
    if speaking.is_empty() {
        return None;
    }
    let at = |ts: &[TableNo]| {
        if hall {
            format!(" at {}", table_list(ts))
        } else {
            String::new()
        }
    };
    let named = |key: AudioKey| {
        if hall {
            key.key().to_owned()
        } else {
            key.flag()
        }
    };
    let mut clauses = Vec::new();
    if let Some(why) = &probe.no_audio {
        let unheard: Vec<TableNo> = speaking
            .iter()
            .filter(|(_, r)| r.default_output)
            .map(|(t, _)| *t)
            .collect();
        if !unheard.is_empty() {
            clauses.push(format!("warning{}: {why}", at(&unheard)));
        }
    }
    if let Some(Err(why)) = &probe.dispatcher {
        clauses.push(format!("speech-dispatcher not answering ({why})"));
    }
    // The rooms, grouped by who speaks them, in the tables' order.
    let mut rooms: Vec<(&Room, Vec<TableNo>)> = Vec::new();
    for (t, r) in &speaking {
        match rooms.iter_mut().find(|(room, _)| *room == &r.room) {
            Some((_, ts)) => ts.push(*t),
            None => rooms.push((&r.room, vec![*t])),
        }
    }
    for (room, ts) in rooms {
        let at = at(&ts);
        clauses.push(match room {
            Room::Off => continue,
            Room::Recorded => format!(
                "public announcements recorded ({}){at}",
                named(AudioKey::SpeechWav)
            ),
            Room::HeadsetsOnly => format!("public announcements in the headsets only{at}"),
            Room::Device(d) => format!("public announcements on {d}{at}"),
            Room::Dispatcher(voice) => {
                format!("public announcements through speech-dispatcher, voice {voice}{at}")
            }
            Room::Program { program, why } => format!(
                "public announcements by {program} on the default output{at}{}",
                why.as_ref().map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            Room::Unheard(why) => {
                format!("warning: nobody speaks the public announcements{at}: {why}")
            }
        });
    }
    let mut headsets: Vec<(&str, Vec<TableNo>)> = Vec::new();
    for (t, r) in &speaking {
        let which = match (r.white_headset, r.black_headset) {
            (true, true) => continue,
            (false, false) => "no headsets",
            (false, true) => "white has no headset",
            (true, false) => "black has no headset",
        };
        match headsets.iter_mut().find(|(w, _)| *w == which) {
            Some((_, ts)) => ts.push(*t),
            None => headsets.push((which, vec![*t])),
        }
    }
    for (which, ts) in headsets {
        let keys = match which {
            "no headsets" => format!(
                "{}, {}",
                named(AudioKey::WhiteAudio),
                named(AudioKey::BlackAudio)
            ),
            "white has no headset" => named(AudioKey::WhiteAudio),
            _ => named(AudioKey::BlackAudio),
        };
        clauses.push(format!(
            "{which}{} ({keys}): private messages reach only the text channels",
            at(&ts)
        ));
    }
    Some(clauses.join("; "))
}

/// For `--speech-wav`: the folder.
pub fn wav_dir(options: &AudioOptions) -> Option<&Path> {
    options.wav.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(room: Room, white: bool, black: bool, default_output: bool) -> Report {
        Report {
            room,
            white_headset: white,
            black_headset: black,
            default_output,
        }
    }

    fn espeak() -> Room {
        Room::Program {
            program: "espeak-ng",
            why: None,
        }
    }

    #[test]
    fn tables_are_named_in_runs() {
        assert_eq!(table_list(&[3]), "table 3");
        assert_eq!(table_list(&[1, 2, 3, 4]), "tables 1–4");
        assert_eq!(table_list(&[5, 1, 3, 4, 7]), "tables 1, 3–5, 7");
        assert_eq!(table_list(&[2, 2]), "table 2");
        assert_eq!(table_list(&[6, 5, 1, 2, 4]), "tables 1, 2, 4–6");
    }

    #[test]
    fn one_line_says_once_what_every_table_shares() {
        let probe = Probe {
            dispatcher: Some(Err("cannot reach speech-dispatcher: refused".to_owned())),
            no_audio: None,
        };
        let tables: Vec<(TableNo, Report)> = (1..=4)
            .map(|t| (t, report(espeak(), false, false, true)))
            .collect();
        let line = summary(&probe, &tables, true).unwrap();
        assert_eq!(
            line,
            "speech-dispatcher not answering (cannot reach speech-dispatcher: refused); \
             public announcements by espeak-ng on the default output at tables 1–4; \
             no headsets at tables 1–4 (white_audio, black_audio): private messages reach only the text channels"
        );
        assert_eq!(line.matches("speech-dispatcher not answering").count(), 1);

        // Tables differ: each kind once, with its tables; a silent table is not named, the
        // machine's missing output only for the tables that use the default one.
        let probe = Probe {
            dispatcher: Some(Ok(())),
            no_audio: Some("no sound card".to_owned()),
        };
        let tables = [
            (
                1,
                report(Room::Dispatcher("en (en-GB)".into()), true, true, false),
            ),
            (2, report(Room::Off, false, false, true)),
            (
                3,
                report(Room::Dispatcher("en (en-GB)".into()), false, true, true),
            ),
            (
                4,
                report(
                    Room::Device("ALSA device 'room'".into()),
                    true,
                    false,
                    false,
                ),
            ),
            (
                5,
                report(
                    Room::Program {
                        program: "espeak-ng",
                        why: Some("speech-dispatcher has no voice for fr-FR".into()),
                    },
                    false,
                    false,
                    true,
                ),
            ),
        ];
        assert_eq!(
            summary(&probe, &tables, true).unwrap(),
            "warning at tables 3, 5: no sound card; \
             public announcements through speech-dispatcher, voice en (en-GB) at tables 1, 3; \
             public announcements on ALSA device 'room' at table 4; \
             public announcements by espeak-ng on the default output at table 5 (speech-dispatcher has no voice for fr-FR); \
             white has no headset at table 3 (white_audio): private messages reach only the text channels; \
             black has no headset at table 4 (black_audio): private messages reach only the text channels; \
             no headsets at table 5 (white_audio, black_audio): private messages reach only the text channels"
        );

        // One table alone: the command line's options, no table numbers; nothing when silent.
        let one = [(1, report(espeak(), true, false, false))];
        assert_eq!(
            summary(&Probe::default(), &one, false).unwrap(),
            "public announcements by espeak-ng on the default output; \
             black has no headset (--black-audio): private messages reach only the text channels"
        );
        let silent = [(1, report(Room::Off, false, false, true))];
        assert_eq!(summary(&probe, &silent, false), None);
    }

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
