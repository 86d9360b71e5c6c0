//! A player's headset, as the terminals speak on it (`--speak`): espeak-ng through aplay.
//! Shared by the player's voice terminal and the enrolment.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use kriegspiel_voice::wav;

/// The longest utterance: listening stops by itself after this.
pub const MAX_UTTERANCE: Duration = Duration::from_secs(15);

/// How the terminal speaks to him (`--speak`).
#[derive(Debug, Clone)]
pub struct SpeakTo {
    pub device: String,
    pub voice: String,
}

/// `--speak` and where and how: the terminal's own speech on his headset (the voice
/// terminal's lines, the enrolment's phrases).
#[derive(Debug, Clone, clap::Args)]
pub struct SpeakArgs {
    /// Also speak with espeak-ng, through aplay on --speak-device: the voice terminal says
    /// every line (listening waits until it has finished, and nothing is spoken while he is
    /// heard); the enrolment says each phrase.
    #[arg(long)]
    speak: bool,
    /// The ALSA playback device for --speak (his headset).
    #[arg(
        long,
        value_name = "DEVICE",
        default_value = "default",
        requires = "speak"
    )]
    speak_device: String,
    /// The espeak-ng voice for --speak (the table's language: en, fr, ru).
    #[arg(long, value_name = "VOICE", default_value = "en", requires = "speak")]
    speak_voice: String,
}

impl SpeakArgs {
    /// Where to speak, if --speak was given.
    pub fn to(&self) -> Option<SpeakTo> {
        self.speak.then(|| SpeakTo {
            device: self.speak_device.clone(),
            voice: self.speak_voice.clone(),
        })
    }
}

/// Synthesises `text` (espeak-ng), tells `before` its length in ms, plays it (aplay) and
/// returns when it has been played.
pub fn say(to: &SpeakTo, text: &str, before: impl FnOnce(u64)) -> Result<(), String> {
    let out = Command::new("espeak-ng")
        .args(["-v", &to.voice, "--stdout"])
        .arg(text)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("espeak-ng: {e}"))?;
    if !out.status.success() {
        return Err(format!("espeak-ng failed on voice {}", to.voice));
    }
    let (fmt, data) = wav::parse_wav(&out.stdout).map_err(|e| format!("espeak-ng: {e}"))?;
    let bytes_per_ms =
        (u64::from(fmt.rate) * u64::from(fmt.channels) * u64::from(fmt.bits / 8) / 1000).max(1);
    before(data.len() as u64 / bytes_per_ms);
    let mut aplay = Command::new("aplay")
        .args(["-q", "-D", &to.device, "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("aplay (install alsa-utils): {e}"))?;
    if let Some(mut stdin) = aplay.stdin.take() {
        let _ = stdin.write_all(&out.stdout);
    }
    let status = aplay.wait().map_err(|e| format!("aplay: {e}"))?;
    if !status.success() {
        return Err(format!("aplay could not play on {}", to.device));
    }
    Ok(())
}
