//! `kriegspiel-board dgt-emulate`: the emulated board in real time behind a pseudo-terminal
//! of its own, which PATH links to, so that an unplug can be real: the pseudo-terminal
//! goes away (the PC's next read fails) and the link with it; a replug makes a new one.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use super::model::{Board, Config, Mode, Note};
use super::script::{letter_of, Action, DgtScript};

/// How the emulator runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The link to (re)create to the pseudo-terminal.
    pub port: PathBuf,
    pub config: Config,
    /// Stop this long after the last scripted event (default: serve until killed).
    pub exit_after_ms: Option<u32>,
    /// Script time 0 at this wall-clock moment (default: the start of the run), so that
    /// boards started one after another play one scripted game together. The board itself
    /// is plugged in and answers from the start.
    pub start_at: Option<std::time::SystemTime>,
}

/// Why the emulator stopped.
#[derive(Debug)]
pub enum RunError {
    /// PATH exists and is no symbolic link: it is not ours to replace.
    PortTaken(PathBuf),
    /// PATH links to something still there: another emulator's pseudo-terminal, or a link
    /// that is not an emulator's at all.
    LinkTaken {
        path: PathBuf,
        target: PathBuf,
    },
    Pty(String),
    Link {
        path: PathBuf,
        source: io::Error,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::PortTaken(path) => write!(
                f,
                "{} exists and is not a symbolic link (the emulator makes --port a link to its own pseudo-terminal)",
                path.display()
            ),
            RunError::LinkTaken { path, target } => write!(
                f,
                "{} links to {}, which is there (another emulator's pseudo-terminal, or no emulator's link at all): give another --port, or remove the link if it is yours",
                path.display(),
                target.display()
            ),
            RunError::Pty(e) => write!(f, "cannot make a pseudo-terminal: {e}"),
            RunError::Link { path, source } => {
                write!(f, "cannot link {} to the pseudo-terminal: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for RunError {}

/// The cable: a pseudo-terminal pair, PATH linking to its PC end.
struct Cable {
    master: TTYPort,
    /// Held so that the PC closing and reopening its port never hangs the line up.
    _slave: TTYPort,
    device: String,
}

fn plug(port: &Path) -> Result<Cable, RunError> {
    check_port(port)?;
    let (mut master, slave) = TTYPort::pair().map_err(|e| RunError::Pty(e.to_string()))?;
    master
        .set_timeout(Duration::from_millis(2))
        .map_err(|e| RunError::Pty(e.to_string()))?;
    let device = slave
        .name()
        .ok_or_else(|| RunError::Pty("the pseudo-terminal has no name".into()))?;
    let tmp = port.with_extension("dgt-new");
    let link_err = |source| RunError::Link {
        path: port.to_path_buf(),
        source,
    };
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(&device, &tmp).map_err(link_err)?;
    std::fs::rename(&tmp, port).map_err(link_err)?;
    Ok(Cable {
        master,
        _slave: slave,
        device,
    })
}

fn unplug(port: &Path, cable: Option<Cable>) {
    // The link first, so that nobody opens a pseudo-terminal number about to be reused;
    // only while it is still this cable's (another program may have taken the name).
    if let Some(c) = &cable {
        if std::fs::read_link(port).is_ok_and(|target| target == Path::new(&c.device)) {
            let _ = std::fs::remove_file(port);
        }
    }
    drop(cable);
}

/// Whether the link at `port` may be replaced: none is there, or it names a pseudo-terminal
/// that is gone (an emulator killed before it could remove its link).
fn check_port(port: &Path) -> Result<(), RunError> {
    let Ok(meta) = std::fs::symlink_metadata(port) else {
        return Ok(());
    };
    if !meta.file_type().is_symlink() {
        return Err(RunError::PortTaken(port.to_path_buf()));
    }
    let target = std::fs::read_link(port).unwrap_or_default();
    if target.starts_with("/dev/pts") && !target.exists() {
        return Ok(());
    }
    Err(RunError::LinkTaken {
        path: port.to_path_buf(),
        target,
    })
}

/// The most written at once: a pseudo-terminal says it may be written when a little room
/// is free, and a larger write would wait, past the deadline, for a reader that never comes.
const CHUNK: usize = 64;

/// Writes all of `bytes`, waiting at most a second for a reader that is slow.
fn send(master: &mut TTYPort, bytes: &[u8]) {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut rest = bytes;
    while !rest.is_empty() && Instant::now() < deadline {
        match master.write(&rest[..rest.len().min(CHUNK)]) {
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Full (nobody reading) or timed out: a board's UART keeps sending regardless.
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    let _ = master.flush();
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Bus => "bus",
        Mode::Idle => "idle",
        Mode::Update => "update",
        Mode::UpdateBoard => "update_board",
        Mode::UpdateNice => "update_nice",
    }
}

/// The instant of script time 0: `start_at` on the wall clock, else `start`.
fn script_origin(start: Instant, start_at: Option<std::time::SystemTime>) -> Instant {
    start_at.map_or(start, |at| {
        match at.duration_since(std::time::SystemTime::now()) {
            Ok(ahead) => start + ahead,
            Err(past) => start.checked_sub(past.duration()).unwrap_or(start),
        }
    })
}

/// Plays `script` on an emulated board behind PATH; `say` gets a line for each scripted
/// event, each field update and dump sent, each mode change and each input overflow.
pub fn run(
    script: &DgtScript,
    options: &Options,
    mut say: impl FnMut(String),
) -> Result<(), RunError> {
    let port = options.port.as_path();
    let start = Instant::now();
    let now_ms = || u32::try_from(start.elapsed().as_millis()).unwrap_or(u32::MAX);
    let origin = script_origin(start, options.start_at);
    // Script time: none before its origin.
    let script_ms = || {
        Instant::now()
            .checked_duration_since(origin)
            .map(|d| u32::try_from(d.as_millis()).unwrap_or(u32::MAX))
    };
    let mut board = Board::new(options.config.clone(), &script.initial, 0);
    let mut cable = Some(plug(port)?);
    if let Some(c) = &cable {
        say(format!(
            "board {} (firmware {}.{:02}) on {} as {}",
            board
                .config()
                .long_serial
                .as_deref()
                .unwrap_or(&board.config().serial),
            board.config().version.0,
            board.config().version.1,
            c.device,
            port.display()
        ));
    }
    let last_ms = script.events.last().map_or(0, |e| e.at_ms);
    let mut next = 0;
    let mut buf = [0u8; 64];
    loop {
        let now = now_ms();
        let script_now = script_ms();
        while let Some(event) = script
            .events
            .get(next)
            .filter(|e| script_now.is_some_and(|t| e.at_ms <= t))
        {
            next += 1;
            say(format!(
                "{} at {} ms",
                event.action,
                script_now.unwrap_or_default()
            ));
            match &event.action {
                Action::Lift(sq) => {
                    board.lift(*sq);
                }
                Action::Place(sq, code) => board.place(*sq, *code),
                Action::Flicker(sq, scans) => board.flicker(*sq, *scans),
                Action::Garbage(n) => board.garbage(*n),
                Action::Truncated => board.truncated(),
                Action::Eeprom => board.eeprom(),
                Action::Silence(ms) => board.silence(now.saturating_add(*ms)),
                Action::Unplug => unplug(port, cable.take()),
                Action::Replug(serial) => {
                    board.power_up(now, serial.clone());
                    let c = plug(port)?;
                    say(format!("board {} on {}", board.config().serial, c.device));
                    cable = Some(c);
                }
            }
        }
        if next == script.events.len() {
            if let Some(after) = options.exit_after_ms {
                if script_now.is_some_and(|t| t >= last_ms.saturating_add(after)) {
                    unplug(port, cable.take());
                    return Ok(());
                }
            }
        }
        match cable.as_mut() {
            Some(c) => match c.master.read(&mut buf) {
                Ok(n) => board.receive(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => std::thread::sleep(Duration::from_millis(2)),
            },
            None => std::thread::sleep(Duration::from_millis(2)),
        }
        // A USB board draws its power from the cable: unplugged, it does nothing.
        if cable.is_some() {
            board.tick(now_ms());
        }
        let out = board.take_output();
        if let Some(c) = cable.as_mut() {
            if !out.is_empty() {
                send(&mut c.master, &out);
            }
        }
        let at = now_ms();
        for note in board.take_notes() {
            let line = match note {
                Note::Update { field, code } => {
                    let square = board
                        .square(field)
                        .map_or_else(|| format!("field {field}"), |s| s.to_string());
                    format!("update {square} {} at {at} ms", letter_of(code))
                }
                Note::Dump => format!("dump at {at} ms"),
                Note::Mode(mode) => format!("mode {} at {at} ms", mode_name(mode)),
                Note::Overflow(n) => format!("input overflow: {n} bytes lost at {at} ms"),
            };
            say(line);
        }
    }
}
