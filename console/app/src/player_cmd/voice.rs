//! `kriegspiel player --voice`: the player's terminal with his voice as well as his keys.
//!
//! Push-to-talk on the Enter key, the one key a screen-reader user always finds: an empty
//! line starts listening, the next empty line stops it (or 15 s pass). What he said is
//! recognised with the grammar of his own board (sent by the console as `#own-board FEN`,
//! his men alone), and goes through a [`VoiceChannel`]: a try is read back to him alone
//! ("knight g1 to f3?") and sent to the console only when he then says "confirm"; "cancel"
//! drops it. Typed lines still go to the console as in the plain terminal.
//!
//! With `--speak`, everything he would read is also spoken with espeak-ng, and listening
//! never overlaps that speech: Enter waits until the console has finished speaking, and what
//! the console has to say while he is talking waits until he stops. Without it, the lines
//! are spoken elsewhere (his screen reader, or the console's speech in his headset): Enter
//! waits about as long as the last line takes to say (60 ms a character).

use std::collections::VecDeque;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use bounded_lines::LineReader;
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Question;
use kriegspiel_table::Input;
use kriegspiel_voice::grammar::read_own_board;
use kriegspiel_voice::{wav, Microphone, Outcome, Recognizer, Recording, VoiceChannel};

use crate::players::{CLOSED, OWN_BOARD};

const PROGRAM: &str = "kriegspiel player";

/// The longest utterance: listening stops by itself after this.
pub const MAX_UTTERANCE: Duration = Duration::from_secs(15);
/// The longest wait for the terminal's own speech before listening.
const MAX_SPEECH_MS: u64 = 30_000;
/// The largest WAV file `--mic-wav` reads (about 17 minutes of 16 kHz speech).
const MAX_WAV_BYTES: u64 = 32 << 20;

/// Where his words come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// An ALSA capture device (`arecord -D DEVICE`).
    Mic(String),
    /// One WAV file per push-to-talk, in order.
    Files(Vec<PathBuf>),
}

/// How the terminal speaks to him (`--speak`).
#[derive(Debug, Clone)]
pub struct SpeakTo {
    pub device: String,
    pub voice: String,
}

enum Event {
    Key(String),
    Console(String),
    OwnBoard(String),
    /// The console closed the table on purpose.
    Closed,
    Hangup,
}

/// The words of the terminal itself, in English (the language of the spoken commands).
fn typed_line(input: &Input) -> Option<String> {
    Some(match input {
        Input::Play { tried, .. } => tried.to_uci(),
        Input::Ask {
            question: Question::Any,
            ..
        } => "any".to_owned(),
        Input::Ask {
            question: Question::Rebuffs,
            ..
        } => "rebuffs".to_owned(),
        Input::Promote { role, .. } => format!("promote {}", role.char()),
        Input::Resign { .. } => "resign".to_owned(),
        Input::Draw { .. } => "draw".to_owned(),
        _ => return None,
    })
}

/// The speaking half: one line at a time, never while he is being listened to.
#[derive(Debug, Default)]
struct SpeechState {
    queue: VecDeque<String>,
    speaking: bool,
    listening: bool,
    closed: bool,
}

struct Speaker {
    state: Arc<(Mutex<SpeechState>, Condvar)>,
}

impl Speaker {
    fn start(to: SpeakTo, muted_until: Arc<AtomicU64>, t0: Instant) -> Speaker {
        let speaker = Speaker {
            state: Arc::new((Mutex::new(SpeechState::default()), Condvar::new())),
        };
        let state = speaker.state.clone();
        std::thread::spawn(move || {
            let (lock, cv) = &*state;
            let mut warned = false;
            loop {
                let text = {
                    let Ok(mut st) = lock.lock() else {
                        return;
                    };
                    while !st.closed && (st.listening || st.queue.is_empty()) {
                        st = match cv.wait(st) {
                            Ok(st) => st,
                            Err(_) => return,
                        };
                    }
                    if st.closed {
                        return;
                    }
                    let Some(text) = st.queue.pop_front() else {
                        continue;
                    };
                    st.speaking = true;
                    text
                };
                if let Err(e) = speak(&to, &text, &muted_until, t0) {
                    if !warned {
                        eprintln!("{PROGRAM}: cannot speak: {e}");
                        warned = true;
                    }
                }
                if let Ok(mut st) = lock.lock() {
                    st.speaking = false;
                }
                cv.notify_all();
            }
        });
        speaker
    }

    fn say(&self, text: &str) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.queue.push_back(text.to_owned());
        }
        cv.notify_all();
    }

    /// Holds the speech and waits until the line being spoken is finished: until its player
    /// has returned and its length has passed (`muted_until`; a device that does not play in
    /// real time returns at once).
    fn hold(&self, muted_until: &AtomicU64, t0: Instant) {
        let (lock, cv) = &*self.state;
        {
            let Ok(mut st) = lock.lock() else {
                return;
            };
            st.listening = true;
            while st.speaking {
                st = match cv.wait(st) {
                    Ok(st) => st,
                    Err(_) => return,
                };
            }
        }
        let left = muted_until
            .load(Ordering::Relaxed)
            .saturating_sub(ms_since(t0));
        std::thread::sleep(Duration::from_millis(left.min(MAX_SPEECH_MS)));
    }

    fn release(&self) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.listening = false;
        }
        cv.notify_all();
    }
}

impl Drop for Speaker {
    fn drop(&mut self) {
        let (lock, cv) = &*self.state;
        if let Ok(mut st) = lock.lock() {
            st.closed = true;
        }
        cv.notify_all();
    }
}

/// About how long a line takes to be spoken by a screen reader or the console (15 to 17
/// characters a second, as 180 words a minute), and a moment to start.
fn reading_ms(line: &str) -> u64 {
    300 + 60 * line.chars().count() as u64
}

fn ms_since(t0: Instant) -> u64 {
    u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Synthesises `text` (espeak-ng), marks the channel muted for its length, plays it (aplay).
fn speak(to: &SpeakTo, text: &str, muted_until: &AtomicU64, t0: Instant) -> Result<(), String> {
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
    let length = data.len() as u64 / bytes_per_ms;
    muted_until.fetch_max(ms_since(t0) + length + 100, Ordering::Relaxed);
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

/// A push-to-talk in progress.
enum Capture {
    Mic(Recording),
    File(PathBuf),
}

impl Capture {
    fn samples(self) -> Result<Vec<i16>, String> {
        match self {
            Capture::Mic(r) => r.stop().map_err(|e| e.to_string()),
            Capture::File(path) => {
                let size = std::fs::metadata(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .len();
                if size > MAX_WAV_BYTES {
                    return Err(format!(
                        "{}: {size} bytes, more than the {MAX_WAV_BYTES} a recording may have",
                        path.display()
                    ));
                }
                wav::read_wav(&path).map_err(|e| format!("{}: {e}", path.display()))
            }
        }
    }
}

/// What he reads (and, with `--speak`, hears).
struct Screen {
    speaker: Option<Speaker>,
}

impl Screen {
    /// Prints a line; `spoken`: also say it.
    fn show(&self, line: &str, spoken: bool) -> bool {
        let mut out = std::io::stdout().lock();
        let ok = writeln!(out, "{line}").and_then(|()| out.flush()).is_ok();
        if spoken {
            if let Some(s) = &self.speaker {
                s.say(line);
            }
        }
        ok
    }
}

/// Runs the voice terminal on a connected socket (the handshake is sent).
pub fn run(
    stream: UnixStream,
    mut to_console: UnixStream,
    color: Color,
    mut recognizer: Recognizer,
    source: Source,
    speak: Option<SpeakTo>,
) -> ExitCode {
    let t0 = Instant::now();
    let muted_until = Arc::new(AtomicU64::new(0));
    let screen = Screen {
        speaker: speak.map(|to| Speaker::start(to, muted_until.clone(), t0)),
    };
    let (tx, events) = mpsc::channel::<Event>();
    let keys_tx = tx.clone();
    std::thread::spawn(move || {
        let mut keys = LineReader::with_limit(std::io::stdin(), 1024);
        while let Ok(Some(line)) = keys.next_line() {
            let Ok(line) = line else {
                continue;
            };
            if keys_tx.send(Event::Key(line.to_owned())).is_err() {
                return;
            }
        }
    });
    std::thread::spawn(move || {
        let mut heard = LineReader::new(stream);
        loop {
            let event = match heard.next_line() {
                Ok(Some(Ok(CLOSED))) => Event::Closed,
                Ok(Some(Ok(l))) => match l.strip_prefix(OWN_BOARD) {
                    Some(fen) => Event::OwnBoard(fen.to_owned()),
                    None => Event::Console(l.to_owned()),
                },
                Ok(Some(Err(e))) => Event::Console(format!("({e})")),
                Ok(None) | Err(_) => Event::Hangup,
            };
            let end = matches!(event, Event::Hangup);
            if tx.send(event).is_err() || end {
                return;
            }
        }
    });

    let mut channel = VoiceChannel::new(color);
    let mut closed = false;
    let mut have_board = false;
    let mut files = match &source {
        Source::Files(f) => f.clone().into_iter(),
        Source::Mic(_) => Vec::new().into_iter(),
    };
    // The capture in progress, and when it began (ms since t0).
    let mut capture: Option<(Capture, u64)> = None;
    let mut send = |line: &str| writeln!(to_console, "{line}").is_ok();
    loop {
        let wait = match &capture {
            Some((_, began)) => Duration::from_millis(
                (began + MAX_UTTERANCE.as_millis() as u64).saturating_sub(ms_since(t0)),
            ),
            None => Duration::from_secs(3600),
        };
        let event = match events.recv_timeout(wait) {
            Ok(e) => Some(e),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return ExitCode::SUCCESS,
        };
        let stop_listening = match &event {
            None => capture.is_some(),
            Some(Event::Key(l)) => capture.is_some() || !l.trim().is_empty(),
            _ => false,
        };
        if stop_listening {
            if let Some((cap, began)) = capture.take() {
                let samples = cap.samples();
                if let Some(s) = &screen.speaker {
                    s.release();
                }
                let typed = matches!(&event, Some(Event::Key(l)) if !l.trim().is_empty());
                if !typed {
                    let said = match samples {
                        Err(e) => format!("Cannot listen: {e}"),
                        Ok(samples) => {
                            channel.muted(muted_until.load(Ordering::Relaxed));
                            hear(&mut recognizer, &mut channel, began, &samples, &mut send)
                        }
                    };
                    if !said.is_empty() && !screen.show(&said, true) {
                        return ExitCode::SUCCESS;
                    }
                    continue;
                }
            }
        }
        match event {
            None => {}
            Some(Event::Key(line)) => {
                let line = line.trim();
                if !line.is_empty() {
                    if !send(line) {
                        return ExitCode::SUCCESS;
                    }
                    continue;
                }
                if !have_board {
                    screen.show("Not ready: the console has not sent your board yet.", true);
                    continue;
                }
                // Enter: listen (after the console has finished speaking).
                match &screen.speaker {
                    Some(s) => s.hold(&muted_until, t0),
                    None => {
                        let left = muted_until
                            .load(Ordering::Relaxed)
                            .saturating_sub(ms_since(t0));
                        std::thread::sleep(Duration::from_millis(left.min(MAX_SPEECH_MS)));
                    }
                }
                let began = ms_since(t0);
                let started = match &source {
                    Source::Mic(device) => Microphone::new(device)
                        .start()
                        .map(Capture::Mic)
                        .map_err(|e| e.to_string()),
                    Source::Files(_) => files
                        .next()
                        .map(Capture::File)
                        .ok_or_else(|| "no more recordings (--mic-wav)".to_owned()),
                };
                match started {
                    Ok(c) => {
                        capture = Some((c, began));
                        screen.show("(listening; Enter to stop)", false);
                    }
                    Err(e) => {
                        if let Some(s) = &screen.speaker {
                            s.release();
                        }
                        screen.show(&format!("Cannot listen: {e}"), true);
                    }
                }
            }
            Some(Event::Console(line)) => {
                if screen.speaker.is_none() {
                    // His screen reader (or the console's speech in his headset) says it
                    // now; the terminal cannot know for how long: about this long.
                    muted_until.fetch_max(ms_since(t0) + reading_ms(&line), Ordering::Relaxed);
                }
                if !screen.show(&line, true) {
                    return ExitCode::SUCCESS;
                }
                if line.starts_with("error: ") {
                    return ExitCode::FAILURE;
                }
            }
            Some(Event::OwnBoard(fen)) => match read_own_board(&fen)
                .ok_or_else(|| "the console sent a board that cannot be read".to_owned())
                .and_then(|(board, castles)| {
                    recognizer
                        .set_own_board(&board, &castles, color)
                        .map_err(|e| e.to_string())
                }) {
                Ok(()) => {
                    // His men changed: a try still waiting was heard with the old grammar.
                    channel.clear();
                    have_board = true;
                }
                Err(e) => {
                    eprintln!("{PROGRAM}: {e}");
                    return ExitCode::FAILURE;
                }
            },
            Some(Event::Closed) => closed = true,
            Some(Event::Hangup) if closed => return ExitCode::SUCCESS,
            Some(Event::Hangup) => {
                screen.show(super::LOST, true);
                return ExitCode::FAILURE;
            }
        }
    }
}

/// One utterance through the recogniser and the channel; returns what to tell him.
fn hear(
    recognizer: &mut Recognizer,
    channel: &mut VoiceChannel,
    began: u64,
    samples: &[i16],
    send: &mut impl FnMut(&str) -> bool,
) -> String {
    let rec = match recognizer.hear(samples) {
        Ok(r) => r,
        Err(e) => return format!("Cannot listen: {e}"),
    };
    let Some(grammar) = recognizer.grammar() else {
        return "Not ready: the console has not sent your board yet.".to_owned();
    };
    match channel.heard(began, grammar, rec.heard) {
        Outcome::Echo(s) => s,
        Outcome::Submit(input) => match typed_line(&input) {
            Some(line) if send(&line) => String::new(),
            Some(_) => "The console hung up.".to_owned(),
            None => String::new(),
        },
        Outcome::Repeat => {
            send("repeat");
            String::new()
        }
        Outcome::MyMen => {
            send("my men");
            String::new()
        }
        Outcome::Cancelled => "Cancelled.".to_owned(),
        Outcome::NothingPending => "Nothing to confirm.".to_owned(),
        Outcome::NotUnderstood => "Not understood; say it again.".to_owned(),
        Outcome::Ignored => "Not heard: the console was speaking.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_referee::shakmaty::Role;
    use kriegspiel_referee::Try;

    #[test]
    fn inputs_become_the_lines_a_player_would_type() {
        let c = Color::White;
        let t = |s: &str| Try::from_uci(s).unwrap();
        assert_eq!(
            typed_line(&Input::Play {
                color: c,
                tried: t("e7e8n")
            })
            .as_deref(),
            Some("e7e8n")
        );
        assert_eq!(
            typed_line(&Input::Promote {
                color: c,
                role: Role::Knight
            })
            .as_deref(),
            Some("promote n")
        );
        assert_eq!(
            typed_line(&Input::Ask {
                color: c,
                question: Question::Rebuffs
            })
            .as_deref(),
            Some("rebuffs")
        );
        assert_eq!(
            typed_line(&Input::Draw { color: c }).as_deref(),
            Some("draw")
        );
    }
}
