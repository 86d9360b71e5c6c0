//! The speaker of an external program: espeak-ng (or spd-say) on the default output,
//! espeak-ng piped into a device's player, or espeak-ng into WAV files; `say` queues, a
//! thread of its own speaks ([`super::worker`]).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;

use super::engine::Engine;
use super::error::SpeechError;
use super::log::SpeechLog;
use super::programs::{find_program, on_path};
use super::settings::VoiceSettings;
use super::sink::Sink;
use super::worker::{Latencies, Mode, Worker};
use super::{queue_full, wav, Speaker, QUEUE_LIMIT};

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
        wav::prepare(dir)?;
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
        let worker = Worker::new(engine, program, lang, voice, mode, Arc::clone(&latencies));
        let thread = std::thread::spawn(move || worker.serve(texts, log.as_ref(), &done_tx));
        CommandSpeaker {
            queue: Some(queue),
            dropped: 0,
            thread: Some(thread),
            done,
            latencies,
        }
    }
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
    use std::io::Write;

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
}
