//! The table's public speaker: announcements heard by both players, spoken aloud.
//!
//! Speaking never blocks the table: [`CommandSpeaker`] hands each text to a background
//! thread that runs `espeak-ng` (or `spd-say`) one utterance after another. Tests use the
//! [`RecordingSpeaker`], which only remembers what it was asked to say.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
#[cfg(test)]
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;

/// Something that speaks public announcements.
pub trait Speaker {
    /// Queues `text`; returns at once.
    fn say(&mut self, text: &str);
    /// Waits (at most `limit`) for the queued texts to be spoken, e.g. the last announcement
    /// of a game before the program exits.
    fn finish(&mut self, limit: Duration);
}

/// Remembers every text, for tests.
#[cfg(test)]
#[derive(Debug, Clone, Default)]
pub struct RecordingSpeaker {
    spoken: Arc<Mutex<Vec<String>>>,
}

#[cfg(test)]
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

#[cfg(test)]
impl Speaker for RecordingSpeaker {
    fn say(&mut self, text: &str) {
        match self.spoken.lock() {
            Ok(mut v) => v.push(text.to_owned()),
            Err(poisoned) => poisoned.into_inner().push(text.to_owned()),
        }
    }

    fn finish(&mut self, _limit: Duration) {}
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
        match self {
            Engine::EspeakNg => {
                let voice = match lang {
                    Lang::En => "en-gb",
                    Lang::Fr => "fr",
                    Lang::Ru => "ru",
                };
                let mut args: Vec<String> = vec!["-v".into(), voice.into()];
                if let Some(wav) = wav {
                    args.push("-w".into());
                    args.push(wav.to_string_lossy().into_owned());
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
                vec![
                    "-w".into(),
                    "-l".into(),
                    language.into(),
                    "--".into(),
                    text.into(),
                ]
            }
        }
    }
}

/// Why no speaker could be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechError {
    /// Neither program is on the PATH.
    NoProgram,
    /// Recording to WAV files needs espeak-ng.
    NoEspeak,
    /// The recording folder cannot be made or written.
    Folder(String),
}

impl std::fmt::Display for SpeechError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpeechError::NoProgram => f.write_str(
                "no text-to-speech program found (install espeak-ng, or speech-dispatcher for spd-say); announcements are not spoken",
            ),
            SpeechError::NoEspeak => f.write_str(
                "--speech-wav needs espeak-ng on the PATH (apt-get install espeak-ng)",
            ),
            SpeechError::Folder(why) => write!(f, "--speech-wav: {why}"),
        }
    }
}

/// Looks for `program` in the directories of `path` (a PATH value).
pub fn find_program(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Speaks through an external program on a background thread.
#[derive(Debug)]
pub struct CommandSpeaker {
    queue: Option<Sender<String>>,
    thread: Option<JoinHandle<()>>,
    done: Receiver<()>,
}

impl CommandSpeaker {
    /// Finds espeak-ng (else spd-say) on the PATH.
    pub fn start(lang: Lang) -> Result<CommandSpeaker, SpeechError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        [Engine::EspeakNg, Engine::SpdSay]
            .into_iter()
            .find_map(|e| find_program(e.program(), &path).map(|p| (e, p)))
            .map(|(engine, program)| CommandSpeaker::with_program(engine, program, lang))
            .ok_or(SpeechError::NoProgram)
    }

    /// Records each text into `dir/NNNN.wav` with espeak-ng, listing them in
    /// `dir/transcript.tsv` (file, tab, text).
    pub fn recording(lang: Lang, dir: &Path) -> Result<CommandSpeaker, SpeechError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let program =
            find_program(Engine::EspeakNg.program(), &path).ok_or(SpeechError::NoEspeak)?;
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("transcript.tsv"), ""))
            .map_err(|e| SpeechError::Folder(format!("{}: {e}", dir.display())))?;
        Ok(CommandSpeaker::spawn(
            Engine::EspeakNg,
            program,
            lang,
            Some(dir.to_path_buf()),
        ))
    }

    /// Speaks with `program`, called like `engine`.
    pub fn with_program(engine: Engine, program: PathBuf, lang: Lang) -> CommandSpeaker {
        CommandSpeaker::spawn(engine, program, lang, None)
    }

    fn spawn(
        engine: Engine,
        program: PathBuf,
        lang: Lang,
        wav_dir: Option<PathBuf>,
    ) -> CommandSpeaker {
        let (queue, texts) = mpsc::channel::<String>();
        let (done_tx, done) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut failed = false;
            for (i, text) in texts.into_iter().enumerate() {
                if failed {
                    continue;
                }
                let wav = wav_dir
                    .as_ref()
                    .map(|d| d.join(format!("{:04}.wav", i + 1)));
                if let (Some(dir), Some(wav)) = (&wav_dir, &wav) {
                    if let Err(e) = append_transcript(dir, wav, &text) {
                        eprintln!("kriegspiel table: speech: {e}");
                    }
                }
                let status = Command::new(&program)
                    .args(engine.args(lang, &text, wav.as_deref()))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                if let Err(e) = status {
                    eprintln!(
                        "kriegspiel table: speech: cannot run {}: {e}; announcements are no longer spoken",
                        program.display()
                    );
                    failed = true;
                }
            }
            let _ = done_tx.send(());
        });
        CommandSpeaker {
            queue: Some(queue),
            thread: Some(thread),
            done,
        }
    }
}

/// One line of the recording's transcript: the file name, a tab, the text.
fn append_transcript(dir: &Path, wav: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
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
            // Fails only if the thread is gone; then there is nothing left to speak with.
            let _ = q.send(text.to_owned());
        }
    }

    fn finish(&mut self, limit: Duration) {
        // Closing the queue lets the thread end after the last text.
        self.queue = None;
        let deadline = Instant::now() + limit;
        let left = deadline.saturating_duration_since(Instant::now());
        if self.done.recv_timeout(left).is_ok() {
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
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn recording_speaker_keeps_order() {
        let mut s = RecordingSpeaker::new();
        let seen = s.clone();
        s.say("White has moved.");
        s.say("No.");
        assert_eq!(seen.spoken(), ["White has moved.", "No."]);
    }

    #[test]
    fn voices_follow_the_language() {
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
    }

    #[test]
    fn program_runs_in_background_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("said.txt");
        let prog = dir.path().join("espeak-ng");
        let mut f = std::fs::File::create(&prog).unwrap();
        // Slow on purpose: `say` must return at once anyway.
        writeln!(
            f,
            "#!/bin/sh\nsleep 0.2\necho \"$*\" >> '{}'",
            log.display()
        )
        .unwrap();
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
        assert!(t.elapsed() < Duration::from_millis(150));
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
