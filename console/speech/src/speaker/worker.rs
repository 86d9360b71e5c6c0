//! A command speaker's thread: runs the program for each text, into the default output,
//! a WAV file, or a device's long-running player (espeak-ng's audio, header stripped).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kriegspiel_referee::Lang;

use super::engine::{Engine, Out};
use super::log::SpeechLog;
use super::settings::VoiceSettings;
use super::sink::{open_player, Sink};
use super::wav;

/// For each utterance that found its speaker idle: when `say` queued it, and when its first
/// audio was handed to the device.
pub type Latencies = Arc<Mutex<Vec<(Instant, Instant)>>>;

/// What a command speaker does with its texts.
#[derive(Debug, Clone)]
pub(super) enum Mode {
    /// Speaks them on the default output.
    Play,
    /// Plays them into a device.
    Device(Sink),
    /// Records them into WAV files in this folder.
    Record(PathBuf),
}

/// What the thread holds.
pub(super) struct Worker {
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
    pub(super) fn new(
        engine: Engine,
        program: PathBuf,
        lang: Lang,
        voice: VoiceSettings,
        mode: Mode,
        latencies: Latencies,
    ) -> Worker {
        Worker {
            engine,
            program,
            lang,
            voice,
            mode,
            player: None,
            failed: false,
            latencies,
        }
    }

    /// The thread's life: speaks each queued text in turn (logging it first) until the
    /// queue closes, then lets the device's player end and says so on `done`. After a
    /// program that cannot run, texts are taken and dropped.
    pub(super) fn serve(
        mut self,
        texts: Receiver<(Instant, String)>,
        log: Option<&SpeechLog>,
        done: &Sender<()>,
    ) {
        let mut busy_until = Instant::now();
        for (i, (queued, text)) in texts.into_iter().enumerate() {
            if self.failed {
                continue;
            }
            if let Some(log) = log {
                log.write(&text);
            }
            let idle = queued >= busy_until;
            self.speak(i, queued, idle, &text);
            busy_until = Instant::now();
        }
        self.close();
        let _ = done.send(());
    }

    fn speak(&mut self, i: usize, queued: Instant, idle: bool, text: &str) {
        match self.mode.clone() {
            Mode::Play => self.run(text, None),
            Mode::Record(dir) => {
                let wav = wav::file(&dir, i);
                if let Err(e) = wav::append_transcript(&dir, &wav, text) {
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
