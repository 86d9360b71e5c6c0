//! Where a speaker's sound goes: the default output, an ALSA PCM or a PulseAudio/PipeWire
//! sink; device names checked, devices probed, and each device's long-running player.

use std::process::{Child, ChildStdin, Command, Stdio};

use super::error::SpeechError;
use super::programs::{limited_output, on_path, run_limited};

/// The longest device name taken.
pub const MAX_DEVICE_NAME: usize = 200;

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

    /// As [`Sink::parse`], refusing names no device has: empty, over [`MAX_DEVICE_NAME`]
    /// characters, with spaces or control characters, or a bare `pulse:` / `alsa:`.
    pub fn parse_checked(device: &str) -> Result<Sink, String> {
        if device.is_empty() {
            return Err(
                "an empty device name (an ALSA PCM such as plughw:1,0, or pulse:SINK)".into(),
            );
        }
        if device.chars().count() > MAX_DEVICE_NAME {
            return Err(format!(
                "a device name of more than {MAX_DEVICE_NAME} characters"
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
    /// most [`super::PROBE_LIMIT`].
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

/// Starts the device's player, reading raw 16-bit mono PCM at `rate` on its input.
pub(super) fn open_player(sink: &Sink, rate: u32) -> Result<(Child, ChildStdin), String> {
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
