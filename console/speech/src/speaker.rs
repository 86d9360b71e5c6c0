//! Speakers: one output device each, with its own queue and thread, so that `say` returns
//! at once and never holds a table back.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;

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

/// How a voice speaks: its name (else the table's language decides), its rate in words per
/// minute and its volume in percent of normal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VoiceSettings {
    pub voice: Option<String>,
    pub rate: Option<u32>,
    pub volume: Option<u32>,
}

/// The normal rate of espeak-ng, in words per minute.
pub const NORMAL_RATE: u32 = 175;
/// The rates a table may ask for.
pub const RATE_RANGE: std::ops::RangeInclusive<u32> = 80..=450;

/// The espeak-ng voice of a language.
pub const fn espeak_voice(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en-gb",
        Lang::Fr => "fr",
        Lang::Ru => "ru",
    }
}

/// The text-to-speech programs the console knows, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    EspeakNg,
    SpdSay,
}

impl Engine {
    pub const fn program(self) -> &'static str {
        match self {
            Engine::EspeakNg => "espeak-ng",
            Engine::SpdSay => "spd-say",
        }
    }

    /// The arguments that speak `text` with a voice of the table's language, into the WAV
    /// file `wav` when one is given (espeak-ng only).
    pub fn args(self, lang: Lang, text: &str, wav: Option<&Path>) -> Vec<String> {
        self.args_with(lang, &VoiceSettings::default(), text, wav.map(Out::File))
    }

    fn args_with(self, lang: Lang, v: &VoiceSettings, text: &str, out: Option<Out>) -> Vec<String> {
        match self {
            Engine::EspeakNg => {
                let voice = v.voice.as_deref().unwrap_or(espeak_voice(lang));
                let mut args: Vec<String> = vec!["-v".into(), voice.into()];
                if let Some(rate) = v.rate {
                    args.extend(["-s".into(), rate.to_string()]);
                }
                if let Some(volume) = v.volume {
                    args.extend(["-a".into(), volume.to_string()]);
                }
                match out {
                    Some(Out::File(wav)) => {
                        args.push("-w".into());
                        args.push(wav.to_string_lossy().into_owned());
                    }
                    Some(Out::Stdout) => args.push("--stdout".into()),
                    None => {}
                }
                args.push("--".into());
                args.push(text.into());
                args
            }
            Engine::SpdSay => {
                let language = match lang {
                    Lang::En => "en",
                    Lang::Fr => "fr",
                    Lang::Ru => "ru",
                };
                // -w: wait until spoken, so utterances never overlap.
                let mut args: Vec<String> = vec!["-w".into(), "-l".into(), language.into()];
                if let Some(rate) = v.rate {
                    args.extend(["-r".into(), dispatcher_rate(rate).to_string()]);
                }
                if let Some(volume) = v.volume {
                    args.extend(["-i".into(), dispatcher_volume(volume).to_string()]);
                }
                args.extend(["--".into(), text.into()]);
                args
            }
        }
    }
}

enum Out<'a> {
    File(&'a Path),
    Stdout,
}

/// A rate in words per minute as speech-dispatcher's -100..100 (0: espeak-ng's normal 175).
pub fn dispatcher_rate(wpm: u32) -> i32 {
    let wpm = i64::from(wpm.clamp(*RATE_RANGE.start(), *RATE_RANGE.end()));
    let normal = i64::from(NORMAL_RATE);
    let r = if wpm <= normal {
        (wpm - normal) * 100 / (normal - i64::from(*RATE_RANGE.start()))
    } else {
        (wpm - normal) * 100 / (i64::from(*RATE_RANGE.end()) - normal)
    };
    i32::try_from(r).unwrap_or(0)
}

/// A volume in percent of normal (0..=200) as speech-dispatcher's -100..100 (100: normal).
pub fn dispatcher_volume(percent: u32) -> i32 {
    let p = i32::try_from(percent.min(100)).unwrap_or(100);
    2 * p - 100
}

/// Where a speaker's sound goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// The program's own default output.
    Default,
    /// An ALSA PCM by name (`aplay -D NAME`), e.g. `plughw:1,0` or a PCM of ~/.asoundrc.
    Alsa(String),
    /// A PulseAudio or PipeWire sink by name (`paplay --device NAME`).
    Pulse(String),
}

impl Sink {
    /// `pulse:NAME` is a PulseAudio/PipeWire sink; `alsa:NAME` or any other NAME an ALSA PCM.
    pub fn parse(device: &str) -> Sink {
        if let Some(n) = device.strip_prefix("pulse:") {
            Sink::Pulse(n.to_owned())
        } else {
            Sink::Alsa(device.strip_prefix("alsa:").unwrap_or(device).to_owned())
        }
    }

    /// The player program and its arguments for raw 16-bit mono PCM at `rate` on stdin.
    fn player(&self, rate: u32) -> Option<(&'static str, Vec<String>)> {
        match self {
            Sink::Default => None,
            Sink::Alsa(d) => Some((
                "aplay",
                vec![
                    "-q".into(),
                    "-D".into(),
                    d.clone(),
                    "-t".into(),
                    "raw".into(),
                    "-f".into(),
                    "S16_LE".into(),
                    "-c".into(),
                    "1".into(),
                    "-r".into(),
                    rate.to_string(),
                ],
            )),
            // A short target latency: with pacat's default (about 2 s of buffer), a short
            // utterance waits in the buffer for the next one, and words written after an
            // underrun are partly skipped (measured on a null sink's monitor).
            Sink::Pulse(d) => Some((
                "pacat",
                vec![
                    "--playback".into(),
                    format!("--device={d}"),
                    "--latency-msec=50".into(),
                    "--format=s16le".into(),
                    "--channels=1".into(),
                    format!("--rate={rate}"),
                ],
            )),
        }
    }

    /// As [`Sink::parse`], refusing names no device has: empty, over
    /// [`crate::setup::MAX_DEVICE_NAME`] characters, with spaces or control characters, or
    /// a bare `pulse:` / `alsa:`.
    pub fn parse_checked(device: &str) -> Result<Sink, String> {
        if device.is_empty() {
            return Err(
                "an empty device name (an ALSA PCM such as plughw:1,0, or pulse:SINK)".into(),
            );
        }
        if device.chars().count() > crate::setup::MAX_DEVICE_NAME {
            return Err(format!(
                "a device name of more than {} characters",
                crate::setup::MAX_DEVICE_NAME
            ));
        }
        if device.chars().any(|c| c.is_whitespace() || c.is_control()) {
            let shown: String = device.chars().take(80).collect();
            return Err(format!(
                "bad device name '{}': no spaces or control characters",
                shown.escape_debug()
            ));
        }
        match Sink::parse(device) {
            Sink::Pulse(n) if n.is_empty() => Err("pulse: needs a sink name (pulse:SINK)".into()),
            Sink::Alsa(n) if n.is_empty() => Err("alsa: needs a PCM name (alsa:PCM)".into()),
            sink => Ok(sink),
        }
    }

    /// Checks that the device is there: an ALSA PCM is opened once by aplay (playing
    /// nothing); a PulseAudio/PipeWire sink must be in `pactl list short sinks`. Waits at
    /// most [`PROBE_LIMIT`].
    pub fn probe(&self) -> Result<(), String> {
        let missing = |program: &'static str| SpeechError::Missing {
            program,
            sink: self.to_string(),
        };
        match self {
            Sink::Default => Ok(()),
            Sink::Alsa(d) => {
                on_path("aplay").ok_or_else(|| missing("aplay").to_string())?;
                let mut cmd = Command::new("aplay");
                cmd.args([
                    "-q", "-D", d, "-t", "raw", "-f", "S16_LE", "-c", "1", "-r", "22050",
                ])
                .arg("/dev/null");
                let (ok, err) = run_limited(cmd, "aplay")?;
                if ok {
                    return Ok(());
                }
                let unknown = err.lines().any(|l| l.contains("Unknown PCM"));
                let last = err
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| match l.split_once(": audio open error: ") {
                        Some((_, why)) => format!("audio open error: {why}"),
                        None => l.trim().to_owned(),
                    })
                    .unwrap_or_default();
                Err(format!(
                    "{self} cannot be opened ({}{last}); `aplay -L` lists the PCMs",
                    if unknown { "unknown PCM; " } else { "" },
                ))
            }
            Sink::Pulse(d) => {
                on_path("pacat").ok_or_else(|| missing("pacat").to_string())?;
                on_path("pactl").ok_or_else(|| missing("pactl").to_string())?;
                let mut cmd = Command::new("pactl");
                cmd.args(["list", "short", "sinks"]);
                let out = limited_output(cmd, "pactl")?;
                if !out.status.success() {
                    // One line: pactl says why on several.
                    let why = String::from_utf8_lossy(&out.stderr);
                    let why: Vec<&str> = why
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .collect();
                    return Err(format!(
                        "{self}: no PulseAudio or PipeWire server answers ({})",
                        why.join("; ")
                    ));
                }
                let listed = String::from_utf8_lossy(&out.stdout);
                let names: Vec<&str> = listed
                    .lines()
                    .filter_map(|l| l.split('\t').nth(1))
                    .collect();
                if names.contains(&d.as_str()) {
                    Ok(())
                } else {
                    let mut shown: Vec<&str> = names.iter().copied().take(20).collect();
                    if names.len() > 20 {
                        shown.push("...");
                    }
                    Err(format!(
                        "{self} does not exist (the server's sinks: {})",
                        if shown.is_empty() {
                            "none".to_owned()
                        } else {
                            shown.join(", ")
                        }
                    ))
                }
            }
        }
    }

    /// The program this sink needs on the PATH, if any.
    pub fn program(&self) -> Option<&'static str> {
        self.player(22050).map(|(p, _)| p)
    }
}

impl std::fmt::Display for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sink::Default => f.write_str("the default output"),
            Sink::Alsa(d) => write!(f, "ALSA device '{d}'"),
            Sink::Pulse(d) => write!(f, "PulseAudio sink '{d}'"),
        }
    }
}

/// The longest a device check ([`Sink::probe`]) waits for aplay or pactl.
pub const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// Runs `cmd` (stdin and stdout closed) for at most [`PROBE_LIMIT`]: whether it succeeded,
/// and its standard error.
fn run_limited(mut cmd: Command, name: &str) -> Result<(bool, String), String> {
    cmd.stdout(Stdio::null());
    let out = limited_output(cmd, name)?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// `cmd`'s output, killing it after [`PROBE_LIMIT`]. At most 64 KiB of each stream is kept.
fn limited_output(mut cmd: Command, name: &str) -> Result<std::process::Output, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let _ = r.take(64 * 1024).read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = read(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = read(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + PROBE_LIMIT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{name} did not answer within {} s",
                    PROBE_LIMIT.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for {name}: {e}")),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Why no speaker could be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechError {
    /// Neither program is on the PATH.
    NoProgram,
    /// Recording to WAV files, or speaking into a named device, needs espeak-ng.
    NoEspeak,
    /// A program a device needs is missing.
    Missing { program: &'static str, sink: String },
    /// The recording folder cannot be made or written.
    Folder(String),
    /// A bad option.
    Option(String),
}

impl std::fmt::Display for SpeechError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpeechError::NoProgram => f.write_str(
                "no text-to-speech program found (install espeak-ng, or speech-dispatcher for spd-say); announcements are not spoken",
            ),
            SpeechError::NoEspeak => f.write_str(
                "--speech-wav and audio devices need espeak-ng on the PATH (apt-get install espeak-ng)",
            ),
            SpeechError::Missing { program, sink } => write!(
                f,
                "{sink} needs {program} on the PATH (apt-get install {})",
                if *program == "aplay" { "alsa-utils" } else { "pulseaudio-utils" }
            ),
            SpeechError::Folder(why) => write!(f, "cannot record into the folder {why}"),
            SpeechError::Option(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SpeechError {}

/// Looks for `program` in the directories of `path` (a PATH value).
pub fn find_program(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// Looks for `program` on the PATH.
pub fn on_path(program: &str) -> Option<PathBuf> {
    find_program(program, &std::env::var_os("PATH").unwrap_or_default())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
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

/// Appends "LABEL<tab>TEXT" lines: what was sent to each output, for tests and the arbiter.
#[derive(Debug, Clone)]
pub struct SpeechLog {
    pub path: PathBuf,
    pub label: String,
}

impl SpeechLog {
    pub fn write(&self, text: &str) {
        let line = format!("{}\t{}\n", self.label, text.replace(['\t', '\n'], " "));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("kriegspiel: speech log {}: {e}", self.path.display());
        }
    }
}

/// For each utterance that found its speaker idle: when `say` queued it, and when its first
/// audio was handed to the device.
pub type Latencies = Arc<Mutex<Vec<(Instant, Instant)>>>;

/// Speaks through an external program on a background thread: espeak-ng (or spd-say) on
/// the default output, espeak-ng piped into a device's player, or espeak-ng into WAV files.
#[derive(Debug)]
pub struct CommandSpeaker {
    queue: Option<SyncSender<(Instant, String)>>,
    dropped: u64,
    thread: Option<JoinHandle<()>>,
    done: Receiver<()>,
    latencies: Latencies,
}

#[derive(Debug, Clone)]
enum Mode {
    Play,
    Device(Sink),
    Record(PathBuf),
}

impl CommandSpeaker {
    /// Finds espeak-ng (else spd-say) on the PATH.
    pub fn start(lang: Lang) -> Result<CommandSpeaker, SpeechError> {
        CommandSpeaker::start_with(lang, VoiceSettings::default(), None)
    }

    /// As [`CommandSpeaker::start`], with a voice's settings and a log of what is said.
    pub fn start_with(
        lang: Lang,
        voice: VoiceSettings,
        log: Option<SpeechLog>,
    ) -> Result<CommandSpeaker, SpeechError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        [Engine::EspeakNg, Engine::SpdSay]
            .into_iter()
            .find_map(|e| find_program(e.program(), &path).map(|p| (e, p)))
            .map(|(engine, program)| {
                CommandSpeaker::spawn(engine, program, lang, voice, Mode::Play, log)
            })
            .ok_or(SpeechError::NoProgram)
    }

    /// Speaks into one device (a player's headset, or a named room speaker): espeak-ng's
    /// audio piped into `aplay -D` or `pacat --device`, one long-running player per device.
    pub fn device(
        lang: Lang,
        sink: Sink,
        voice: VoiceSettings,
        log: Option<SpeechLog>,
    ) -> Result<CommandSpeaker, SpeechError> {
        let program = on_path(Engine::EspeakNg.program()).ok_or(SpeechError::NoEspeak)?;
        if let Some(player) = sink.program() {
            if on_path(player).is_none() {
                return Err(SpeechError::Missing {
                    program: player,
                    sink: sink.to_string(),
                });
            }
        }
        Ok(CommandSpeaker::spawn(
            Engine::EspeakNg,
            program,
            lang,
            voice,
            Mode::Device(sink),
            log,
        ))
    }

    /// Records each text into `dir/NNNN.wav` with espeak-ng, listing them in
    /// `dir/transcript.tsv` (file, tab, text).
    pub fn recording(lang: Lang, dir: &Path) -> Result<CommandSpeaker, SpeechError> {
        CommandSpeaker::recording_with(lang, dir, VoiceSettings::default())
    }

    /// As [`CommandSpeaker::recording`], with a voice's settings.
    pub fn recording_with(
        lang: Lang,
        dir: &Path,
        voice: VoiceSettings,
    ) -> Result<CommandSpeaker, SpeechError> {
        let program = on_path(Engine::EspeakNg.program()).ok_or(SpeechError::NoEspeak)?;
        if dir.exists() && !dir.is_dir() {
            return Err(SpeechError::Folder(format!(
                "{}: it is a file",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("transcript.tsv"), ""))
            .map_err(|e| SpeechError::Folder(format!("{}: {e}", dir.display())))?;
        Ok(CommandSpeaker::spawn(
            Engine::EspeakNg,
            program,
            lang,
            voice,
            Mode::Record(dir.to_path_buf()),
            None,
        ))
    }

    /// Speaks with `program`, called like `engine`.
    pub fn with_program(engine: Engine, program: PathBuf, lang: Lang) -> CommandSpeaker {
        CommandSpeaker::spawn(
            engine,
            program,
            lang,
            VoiceSettings::default(),
            Mode::Play,
            None,
        )
    }

    /// Latencies from `say` to the first audio byte handed to the device (device speakers
    /// only, utterances that found the speaker idle).
    pub fn latencies(&self) -> Latencies {
        Arc::clone(&self.latencies)
    }

    fn spawn(
        engine: Engine,
        program: PathBuf,
        lang: Lang,
        voice: VoiceSettings,
        mode: Mode,
        log: Option<SpeechLog>,
    ) -> CommandSpeaker {
        let (queue, texts) = mpsc::sync_channel::<(Instant, String)>(QUEUE_LIMIT);
        let (done_tx, done) = mpsc::channel();
        let latencies: Latencies = Arc::default();
        let measured = Arc::clone(&latencies);
        let thread = std::thread::spawn(move || {
            let mut worker = Worker {
                engine,
                program,
                lang,
                voice,
                mode,
                player: None,
                failed: false,
                latencies: measured,
            };
            let mut busy_until = Instant::now();
            for (i, (queued, text)) in texts.into_iter().enumerate() {
                if worker.failed {
                    continue;
                }
                if let Some(log) = &log {
                    log.write(&text);
                }
                let idle = queued >= busy_until;
                worker.speak(i, queued, idle, &text);
                busy_until = Instant::now();
            }
            worker.close();
            let _ = done_tx.send(());
        });
        CommandSpeaker {
            queue: Some(queue),
            dropped: 0,
            thread: Some(thread),
            done,
            latencies,
        }
    }
}

struct Worker {
    engine: Engine,
    program: PathBuf,
    lang: Lang,
    voice: VoiceSettings,
    mode: Mode,
    /// The device's long-running player and its input.
    player: Option<(Child, ChildStdin)>,
    failed: bool,
    latencies: Latencies,
}

impl Worker {
    fn speak(&mut self, i: usize, queued: Instant, idle: bool, text: &str) {
        match self.mode.clone() {
            Mode::Play => self.run(text, None),
            Mode::Record(dir) => {
                let wav = dir.join(format!("{:04}.wav", i + 1));
                if let Err(e) = append_transcript(&dir, &wav, text) {
                    eprintln!("kriegspiel: speech: {e}");
                }
                self.run(text, Some(Out::File(&wav)));
            }
            Mode::Device(sink) => {
                if let Err(e) = self.play_into(&sink, queued, idle, text) {
                    eprintln!("kriegspiel: speech into {sink}: {e}");
                    if let Some((mut child, stdin)) = self.player.take() {
                        drop(stdin);
                        let _ = child.kill();
                        let _ = child.wait();
                    }
                }
            }
        }
    }

    fn run(&mut self, text: &str, out: Option<Out>) {
        let status = Command::new(&self.program)
            .args(self.engine.args_with(self.lang, &self.voice, text, out))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Err(e) = status {
            eprintln!(
                "kriegspiel: speech: cannot run {}: {e}; announcements are no longer spoken",
                self.program.display()
            );
            self.failed = true;
        }
    }

    /// espeak-ng's WAV on its standard output, header stripped, into the device's player.
    fn play_into(
        &mut self,
        sink: &Sink,
        queued: Instant,
        idle: bool,
        text: &str,
    ) -> Result<(), String> {
        let mut synth = Command::new(&self.program)
            .args(
                self.engine
                    .args_with(self.lang, &self.voice, text, Some(Out::Stdout)),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.program.display()))?;
        let mut audio = synth.stdout.take().ok_or("espeak-ng gave no output")?;
        let mut buf = vec![0u8; 8192];
        let mut header = Vec::with_capacity(64);
        let mut first = true;
        let result = loop {
            let n = match audio.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => n,
                Err(e) => break Err(format!("reading espeak-ng: {e}")),
            };
            let mut chunk = &buf[..n];
            if first {
                // The WAV header: 44 bytes from espeak-ng; the rate is at offset 24.
                header.extend_from_slice(chunk);
                if header.len() < 44 {
                    continue;
                }
                let rate = u32::from_le_bytes([header[24], header[25], header[26], header[27]]);
                if &header[..4] != b"RIFF" || &header[36..40] != b"data" {
                    break Err("espeak-ng's output is not the expected WAV".to_owned());
                }
                if self.player.is_none() {
                    self.player = Some(open_player(sink, rate)?);
                }
                let body = header.split_off(44);
                if idle {
                    if let Ok(mut l) = self.latencies.lock() {
                        l.push((queued, Instant::now()));
                    }
                }
                first = false;
                if let Some((_, stdin)) = &mut self.player {
                    stdin
                        .write_all(&body)
                        .map_err(|e| format!("the player stopped: {e}"))?;
                }
                chunk = &[];
            }
            if let Some((_, stdin)) = &mut self.player {
                if let Err(e) = stdin.write_all(chunk) {
                    break Err(format!("the player stopped: {e}"));
                }
            }
        };
        let _ = synth.wait();
        if let Some((_, stdin)) = &mut self.player {
            let _ = stdin.flush();
        }
        result
    }

    fn close(&mut self) {
        if let Some((mut child, stdin)) = self.player.take() {
            // Closing its input lets the player play what it has and end.
            drop(stdin);
            let _ = child.wait();
        }
    }
}

fn open_player(sink: &Sink, rate: u32) -> Result<(Child, ChildStdin), String> {
    let (program, args) = sink
        .player(rate)
        .ok_or("the default output has no player")?;
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let stdin = child.stdin.take().ok_or("the player has no input")?;
    Ok((child, stdin))
}

/// One line of the recording's transcript: the file name, a tab, the text.
fn append_transcript(dir: &Path, wav: &Path, text: &str) -> std::io::Result<()> {
    let name = wav
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("transcript.tsv"))?;
    writeln!(f, "{name}\t{}", text.replace(['\t', '\n'], " "))
}

impl Speaker for CommandSpeaker {
    fn say(&mut self, text: &str) {
        if let Some(q) = &self.queue {
            // Never waits: a device that stopped playing fills the queue, and then the
            // newest words are dropped (and counted) rather than the table held back.
            // Disconnected: the thread is gone; there is nothing left to speak with.
            if let Err(TrySendError::Full(_)) = q.try_send((Instant::now(), text.to_owned())) {
                self.dropped += 1;
                queue_full(&mut self.dropped);
            }
        }
    }

    fn close(&mut self) {
        self.queue = None;
    }

    fn finish(&mut self, limit: Duration) {
        // Closing the queue lets the thread end after the last text.
        self.queue = None;
        if self.done.recv_timeout(limit).is_ok() {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for CommandSpeaker {
    fn drop(&mut self) {
        // Never wait here: an unfinished utterance must not hold the program.
        self.queue = None;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_no_recording_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("speech");
        std::fs::write(&file, "").unwrap();
        let e = CommandSpeaker::recording(Lang::En, &file)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "cannot record into the folder {}: it is a file",
                file.display()
            )
        );
    }

    #[test]
    fn recording_speaker_keeps_order() {
        let mut s = RecordingSpeaker::new();
        let seen = s.clone();
        s.say("White has moved.");
        s.say("No.");
        assert_eq!(seen.spoken(), ["White has moved.", "No."]);
    }

    #[test]
    fn voices_follow_the_language_and_the_settings() {
        assert_eq!(
            Engine::EspeakNg.args(Lang::Fr, "Non.", None),
            ["-v", "fr", "--", "Non."]
        );
        assert_eq!(Engine::EspeakNg.args(Lang::En, "x", None)[1], "en-gb");
        assert_eq!(Engine::EspeakNg.args(Lang::Ru, "x", None)[1], "ru");
        assert_eq!(
            Engine::EspeakNg.args(Lang::En, "x", Some(Path::new("/r/0001.wav"))),
            ["-v", "en-gb", "-w", "/r/0001.wav", "--", "x"]
        );
        assert_eq!(
            Engine::SpdSay.args(Lang::Ru, "x", None),
            ["-w", "-l", "ru", "--", "x"]
        );
        let v = VoiceSettings {
            voice: Some("en-us".into()),
            rate: Some(200),
            volume: Some(50),
        };
        assert_eq!(
            Engine::EspeakNg.args_with(Lang::En, &v, "x", Some(Out::Stdout)),
            ["-v", "en-us", "-s", "200", "-a", "50", "--stdout", "--", "x"]
        );
        assert_eq!(dispatcher_rate(175), 0);
        assert_eq!(dispatcher_rate(80), -100);
        assert_eq!(dispatcher_rate(450), 100);
        assert_eq!(dispatcher_volume(100), 100);
        assert_eq!(dispatcher_volume(0), -100);
        assert_eq!(Sink::parse("pulse:headset"), Sink::Pulse("headset".into()));
        assert_eq!(Sink::parse("alsa:white"), Sink::Alsa("white".into()));
        assert_eq!(Sink::parse("plughw:1,0"), Sink::Alsa("plughw:1,0".into()));
    }

    #[test]
    fn program_runs_in_background_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("said.txt");
        let prog = dir.path().join("espeak-ng");
        let mut f = std::fs::File::create(&prog).unwrap();
        // Slow on purpose: `say` must return at once anyway.
        writeln!(f, "#!/bin/sh\nsleep 1\necho \"$*\" >> '{}'", log.display()).unwrap();
        drop(f);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            find_program("espeak-ng", dir.path().as_os_str()),
            Some(prog.clone())
        );
        let mut s = CommandSpeaker::with_program(Engine::EspeakNg, prog, Lang::En);
        let t = Instant::now();
        s.say("White has moved.");
        s.say("Nonsense.");
        // Speaking them in turn takes 2 s; queueing them, microseconds.
        assert!(t.elapsed() < Duration::from_millis(500));
        s.finish(Duration::from_secs(10));
        let said = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            said,
            "-v en-gb -- White has moved.\n-v en-gb -- Nonsense.\n"
        );
    }

    #[test]
    fn missing_program_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_program("espeak-ng", dir.path().as_os_str()), None);
        assert!(SpeechError::NoProgram.to_string().contains("espeak-ng"));
    }
}
