//! A table's speakers, built from its checked options and the start's probe.

use std::path::Path;

use kriegspiel_hall::TableNo;
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;

use crate::dispatcher::TtsSpeaker;
use crate::speaker::{on_path, CommandSpeaker, Engine, Sink, Speaker, SpeechLog};

use super::check::{check_devices, probe, Checked, Probe};
use super::options::{AudioError, AudioKey, AudioOptions, PublicTo};
use super::summary::{summary, Report, Room};

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

fn log(options: &AudioOptions, label: &str) -> Option<SpeechLog> {
    options.log.as_ref().map(|path| SpeechLog {
        path: path.clone(),
        label: label.to_owned(),
    })
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

/// For `--speech-wav`: the folder.
pub fn wav_dir(options: &AudioOptions) -> Option<&Path> {
    options.wav.as_deref()
}
