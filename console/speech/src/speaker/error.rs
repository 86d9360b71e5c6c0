//! Why a speaker could not be started.

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
