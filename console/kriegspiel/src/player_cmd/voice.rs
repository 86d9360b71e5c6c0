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

mod keys;
mod speaker;

use std::io::Write;
use std::ops::ControlFlow;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bounded_lines::LineReader;
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Question;
use kriegspiel_table::Input;
use kriegspiel_voice::grammar::read_own_board;
use kriegspiel_voice::{wav, Microphone, Outcome, Recognizer, Recording, VoiceChannel};

use kriegspiel_frontend::players::{CLOSED, OWN_BOARD};
use speaker::Speaker;

pub use crate::headset::{SpeakTo, MAX_UTTERANCE};

const PROGRAM: &str = "kriegspiel player";

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

enum Event {
    Key(String),
    /// A line of his keys too long to be one: dropped.
    KeyTooLong,
    /// His keys ended (Ctrl-D, or the end of a script).
    KeysEnded,
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

/// About how long a line takes to be spoken by a screen reader or the console (15 to 17
/// characters a second, as 180 words a minute), and a moment to start.
fn reading_ms(line: &str) -> u64 {
    300 + 60 * line.chars().count() as u64
}

fn ms_since(t0: Instant) -> u64 {
    u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX)
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
    stream: super::Heard,
    to_console: UnixStream,
    color: Color,
    recognizer: Recognizer,
    source: Source,
    speak: Option<SpeakTo>,
) -> ExitCode {
    let t0 = Instant::now();
    let muted_until = Arc::new(AtomicU64::new(0));
    let screen = Screen {
        speaker: speak.map(|to| Speaker::start(to, muted_until.clone(), t0)),
    };
    let (tx, events) = mpsc::channel::<Event>();
    // His terminal is put back as it was when this ends.
    let keys = keys::Keys::on_terminal();
    read_keys(tx.clone(), keys.on_a_terminal());
    read_console(stream, tx);
    let files = match &source {
        Source::Files(f) => f.clone().into_iter(),
        Source::Mic(_) => Vec::new().into_iter(),
    };
    let mut terminal = Terminal {
        t0,
        muted_until,
        screen,
        to_console,
        color,
        recognizer,
        channel: VoiceChannel::new(color),
        source,
        files,
        capture: None,
        closed: false,
        keys_ended: false,
        voice_help_due: false,
        have_board: false,
        hints_left: keys::HINTS,
        keys,
    };
    if let Source::Mic(device) = &terminal.source {
        if let Err(e) = Microphone::new(device).check() {
            terminal.screen.show(
                &format!("No microphone: {e}. Typed commands and keys still work; Enter tries the microphone again."),
                true,
            );
        }
    }
    loop {
        let event = match events.recv_timeout(terminal.wait()) {
            Ok(e) => Some(e),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return ExitCode::SUCCESS,
        };
        if let ControlFlow::Break(code) = terminal.handle(event) {
            return code;
        }
        let waiting = terminal.channel.pending().is_some();
        terminal.keys.waiting(waiting);
    }
}

/// His keys, a line at a time, as events.
fn read_keys(tx: mpsc::Sender<Event>, terminal: bool) {
    std::thread::spawn(move || {
        let mut keys = keys::KeyLines::new(std::io::stdin(), terminal);
        while let Some(line) = keys.next_line() {
            let event = match line {
                keys::KeyLine::Line(l) => Event::Key(l),
                keys::KeyLine::TooLong => Event::KeyTooLong,
            };
            if tx.send(event).is_err() {
                return;
            }
        }
        let _ = tx.send(Event::KeysEnded);
    });
}

/// The console's lines as events, until it hangs up.
fn read_console(stream: super::Heard, tx: mpsc::Sender<Event>) {
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
}

/// The voice terminal between two events.
struct Terminal {
    t0: Instant,
    muted_until: Arc<AtomicU64>,
    screen: Screen,
    to_console: UnixStream,
    color: Color,
    recognizer: Recognizer,
    channel: VoiceChannel,
    source: Source,
    /// The recordings not heard yet (`--mic-wav`).
    files: std::vec::IntoIter<PathBuf>,
    /// The capture in progress, and when it began (ms since t0).
    capture: Option<(Capture, u64)>,
    /// The console closed the table on purpose.
    closed: bool,
    /// His keys ended: the console was told, and answers what it still has.
    keys_ended: bool,
    /// He asked for help: the voice's words follow the console's answer.
    voice_help_due: bool,
    /// The console has sent his board: his words can be recognised.
    have_board: bool,
    /// Read-backs still to be followed by how to answer them by key.
    hints_left: u8,
    keys: keys::Keys,
}

impl Terminal {
    /// How long to wait for the next event: a capture ends by itself at the longest.
    fn wait(&self) -> Duration {
        match &self.capture {
            Some((_, began)) => Duration::from_millis(
                (began + MAX_UTTERANCE.as_millis() as u64).saturating_sub(ms_since(self.t0)),
            ),
            None => Duration::from_secs(3600),
        }
    }

    fn send(&mut self, line: &str) -> bool {
        writeln!(self.to_console, "{line}").is_ok()
    }

    /// One event (`None`: the longest utterance has passed); `Break`: the terminal ends.
    fn handle(&mut self, event: Option<Event>) -> ControlFlow<ExitCode> {
        let typed = matches!(&event, Some(Event::Key(l)) if !l.trim().is_empty());
        // Enter, a typed line or the time limit ends the capture in progress.
        if matches!(event, None | Some(Event::Key(_))) {
            if let Some((cap, began)) = self.capture.take() {
                let samples = cap.samples();
                if let Some(s) = &self.screen.speaker {
                    s.release();
                }
                if !typed {
                    return self.heard(began, samples);
                }
            }
        }
        match event {
            None => ControlFlow::Continue(()),
            Some(Event::Key(line)) => self.key(&line),
            Some(Event::Console(line)) => self.console_line(&line),
            Some(Event::OwnBoard(fen)) => self.own_board(&fen),
            Some(Event::KeyTooLong) => {
                self.screen.show(super::TOO_LONG, true);
                ControlFlow::Continue(())
            }
            Some(Event::KeysEnded) => {
                // As the plain terminal: the console answers what it still has, then hangs up.
                // No key can end a capture or answer a read-back any more: both are dropped.
                self.capture = None;
                self.channel.clear();
                self.keys_ended = true;
                let _ = self.to_console.shutdown(std::net::Shutdown::Write);
                ControlFlow::Continue(())
            }
            Some(Event::Closed) => {
                self.closed = true;
                ControlFlow::Continue(())
            }
            Some(Event::Hangup) if self.closed => ControlFlow::Break(ExitCode::SUCCESS),
            Some(Event::Hangup) if self.keys_ended => {
                self.screen.show(super::KEYS_ENDED, true);
                ControlFlow::Break(ExitCode::SUCCESS)
            }
            Some(Event::Hangup) => {
                self.screen.show(super::LOST, true);
                ControlFlow::Break(ExitCode::FAILURE)
            }
        }
    }

    /// What he said in the capture that ended, through the recogniser and the channel.
    fn heard(&mut self, began: u64, samples: Result<Vec<i16>, String>) -> ControlFlow<ExitCode> {
        let said = match samples {
            Err(e) => format!("Cannot listen: {e}"),
            Ok(samples) => {
                self.channel.muted(self.muted_until.load(Ordering::Relaxed));
                let to_console = &mut self.to_console;
                let mut send = |line: &str| writeln!(to_console, "{line}").is_ok();
                hear(
                    &mut self.recognizer,
                    &mut self.channel,
                    began,
                    &samples,
                    &mut send,
                )
            }
        };
        // The first read-backs say how to answer them by key too.
        let said = if self.channel.pending().is_some() && self.hints_left > 0 {
            self.hints_left -= 1;
            format!("{said} {}", keys::HINT)
        } else {
            said
        };
        if !said.is_empty() && !self.screen.show(&said, true) {
            return ControlFlow::Break(ExitCode::SUCCESS);
        }
        ControlFlow::Continue(())
    }

    /// A line he typed goes to the console; Escape cancels what waits for "confirm" and
    /// Enter confirms it; otherwise Enter on an empty line starts listening.
    fn key(&mut self, line: &str) -> ControlFlow<ExitCode> {
        let line = match self.keys.line(line, self.channel.pending().is_some()) {
            keys::Keyed::Cancel => {
                let outcome = self.channel.cancel();
                return self.keyed(outcome);
            }
            keys::Keyed::Confirm => {
                let outcome = self.channel.confirm();
                return self.keyed(outcome);
            }
            keys::Keyed::Part => return ControlFlow::Continue(()),
            keys::Keyed::Line(line) => line,
        };
        let line = line.trim();
        if !line.is_empty() {
            if !self.send(line) {
                return ControlFlow::Break(ExitCode::SUCCESS);
            }
            // The console says the typed commands; the voice's own words and keys follow
            // them, with its answer.
            self.voice_help_due |= matches!(line, "help" | "?");
            return ControlFlow::Continue(());
        }
        if !self.have_board {
            self.screen
                .show("Not ready: the console has not sent your board yet.", true);
            return ControlFlow::Continue(());
        }
        self.listen();
        ControlFlow::Continue(())
    }

    /// What a key did to the read-back, said to him as the spoken command's outcome is.
    fn keyed(&mut self, outcome: Outcome) -> ControlFlow<ExitCode> {
        let to_console = &mut self.to_console;
        let mut send = |line: &str| writeln!(to_console, "{line}").is_ok();
        let said = outcome_words(outcome, &mut send);
        if !said.is_empty() && !self.screen.show(&said, true) {
            return ControlFlow::Break(ExitCode::SUCCESS);
        }
        ControlFlow::Continue(())
    }

    /// Enter: listen (after the console has finished speaking).
    fn listen(&mut self) {
        match &self.screen.speaker {
            Some(s) => s.hold(&self.muted_until, self.t0),
            None => {
                let left = self
                    .muted_until
                    .load(Ordering::Relaxed)
                    .saturating_sub(ms_since(self.t0));
                std::thread::sleep(Duration::from_millis(left.min(MAX_SPEECH_MS)));
            }
        }
        let began = ms_since(self.t0);
        let started = match &self.source {
            Source::Mic(device) => Microphone::new(device)
                .start()
                .map(Capture::Mic)
                .map_err(|e| e.to_string()),
            Source::Files(_) => self
                .files
                .next()
                .map(Capture::File)
                .ok_or_else(|| "no more recordings (--mic-wav)".to_owned()),
        };
        match started {
            Ok(c) => {
                self.capture = Some((c, began));
                self.screen.show("(listening; Enter to stop)", false);
            }
            Err(e) => {
                if let Some(s) = &self.screen.speaker {
                    s.release();
                }
                self.screen.show(&format!("Cannot listen: {e}"), true);
            }
        }
    }

    /// A line from the console: shown (and said); an error ends the terminal.
    fn console_line(&mut self, line: &str) -> ControlFlow<ExitCode> {
        if self.screen.speaker.is_none() {
            // His screen reader (or the console's speech in his headset) says it
            // now; the terminal cannot know for how long: about this long.
            self.muted_until
                .fetch_max(ms_since(self.t0) + reading_ms(line), Ordering::Relaxed);
        }
        if !self.screen.show(line, true) {
            return ControlFlow::Break(ExitCode::SUCCESS);
        }
        if std::mem::take(&mut self.voice_help_due) && !self.screen.show(keys::VOICE_HELP, true) {
            return ControlFlow::Break(ExitCode::SUCCESS);
        }
        if super::ends_the_terminal(line) {
            return ControlFlow::Break(ExitCode::FAILURE);
        }
        ControlFlow::Continue(())
    }

    /// His own board from the console: the grammar his words are heard with.
    fn own_board(&mut self, fen: &str) -> ControlFlow<ExitCode> {
        let color = self.color;
        let recognizer = &mut self.recognizer;
        match read_own_board(fen)
            .ok_or_else(|| "the console sent a board that cannot be read".to_owned())
            .and_then(|(board, castles)| {
                recognizer
                    .set_own_board(&board, &castles, color)
                    .map_err(|e| e.to_string())
            }) {
            Ok(()) => {
                // His men changed: a try still waiting was heard with the old grammar.
                self.channel.clear();
                self.have_board = true;
                ControlFlow::Continue(())
            }
            Err(e) => {
                eprintln!("{PROGRAM}: {e}");
                ControlFlow::Break(ExitCode::FAILURE)
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
    // While a read-back waits, its own small grammar (confirm, cancel, yes, no) is tried
    // first; a new try still replaces the pending one (docs/VOICE.md).
    let heard = if channel.pending().is_some() {
        recognizer.hear_reply(samples)
    } else {
        recognizer.hear(samples)
    };
    let rec = match heard {
        Ok(r) => r,
        Err(e) => return format!("Cannot listen: {e}"),
    };
    let Some(grammar) = recognizer.grammar() else {
        return "Not ready: the console has not sent your board yet.".to_owned();
    };
    heard_words(
        channel.heard(began, grammar, rec.heard),
        rec.raised_db,
        send,
    )
}

/// [`outcome_words`], but that a player not understood whose speech had to be raised far
/// ([`FAINT_DB`]) is told why: he cannot see a level meter.
fn heard_words(outcome: Outcome, raised_db: f32, send: &mut impl FnMut(&str) -> bool) -> String {
    match outcome {
        Outcome::NotUnderstood if raised_db >= FAINT_DB => {
            "Not understood, and you sound faint: speak up, or raise the microphone's level."
                .to_owned()
        }
        outcome => outcome_words(outcome, send),
    }
}

/// How far an utterance must have been raised ([`kriegspiel_voice::level`]) for a player
/// not understood to be told he sounds faint: its peak under about −30 dBFS.
const FAINT_DB: f32 = 12.0;

/// What the terminal does with the channel's outcome (a line to the console), and the
/// words it says to him.
fn outcome_words(outcome: Outcome, send: &mut impl FnMut(&str) -> bool) -> String {
    match outcome {
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
    fn a_player_not_understood_is_told_when_he_sounds_faint() {
        let mut send = |_: &str| true;
        let faint = heard_words(Outcome::NotUnderstood, 20.0, &mut send);
        assert!(faint.contains("you sound faint"), "{faint}");
        let loud = heard_words(Outcome::NotUnderstood, 6.0, &mut send);
        assert_eq!(loud, "Not understood; say it again.");
        // Only a failure is explained: what was understood is said as ever.
        let echo = heard_words(Outcome::Echo("Knight g1 to f3?".into()), 30.0, &mut send);
        assert_eq!(echo, "Knight g1 to f3?");
    }

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
