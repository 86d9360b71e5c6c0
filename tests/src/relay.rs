//! A fault-injecting relay between a board's pty and the console's pty: it forwards whole
//! frames (split at `0x00`) from the board to the console, damaging, dropping or
//! duplicating some of them, and can unplug and replug the console's cable, or hold the
//! board's frames back for a while as a console held up would read them. It counts every
//! fault it injects so that a test can compare with the console's health counters.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::pty::Pty;
use kriegspiel_link::{BoardMsg, SquareIndex};

/// Per-frame fault probabilities (board -> console only; the console's frames pass intact).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultPlan {
    /// Damage one byte of the frame (never the terminator, never into `0x00`), so that each
    /// damaged frame arrives as exactly one bad frame.
    pub corrupt: f64,
    pub drop: f64,
    /// Send the frame twice in a row.
    pub duplicate: f64,
    pub seed: u64,
}

/// What the relay did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    /// Complete frames read from the board.
    pub frames_from_board: u64,
    /// Frames written to the console intact (a duplicate counts once more).
    pub forwarded: u64,
    pub corrupted: u64,
    /// Bytes damaged (one per corrupted frame) and bytes forwarded, for the error rate.
    pub corrupted_bytes: u64,
    pub forwarded_bytes: u64,
    pub dropped: u64,
    pub duplicated: u64,
    /// Frames thrown away while the console's cable was out, after the console had been
    /// connected once (these show up as a sequence gap after reconnecting).
    pub lost_unplugged: u64,
    /// Frames thrown away before the console's first contact (the console never knew them).
    pub lost_before_first_contact: u64,
    pub unplugs: u64,
    /// Bytes from the console to the board.
    pub console_bytes: u64,
}

enum Command {
    /// Stop forwarding to the console (frames are counted as lost).
    Stop,
    /// Pull the console's cable: close its pty and remove its path.
    Unplug,
    /// New pty at the console's path; forwarding resumes once the console writes.
    Replug,
    /// Forward nothing in either direction, with the cable left in.
    Silence(bool),
    Faults(Option<FaultPlan>),
    /// Once a frame placing a man on this square is forwarded, hold the board's next
    /// frames back this long, then forward them at once.
    DelayAfterPlace(SquareIndex, Duration),
}

/// A running relay; dropping it stops the relay and closes both ptys.
#[derive(Debug)]
pub struct Relay {
    /// Give this path to the board program.
    pub board_path: PathBuf,
    /// Give this path to the console (a symlink that moves on each replug).
    pub console_path: PathBuf,
    stats: Arc<Mutex<RelayStats>>,
    commands: mpsc::UnboundedSender<Command>,
    task: JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.console_path);
    }
}

impl Relay {
    /// Starts a relay whose console-side path is `dir/console` (needs a tokio runtime).
    pub fn start(dir: &Path, faults: Option<FaultPlan>) -> io::Result<Relay> {
        let board = Pty::open()?;
        let console_path = dir.join("console");
        let console = Pty::open_linked(&console_path)?;
        let stats = Arc::new(Mutex::new(RelayStats::default()));
        let (tx, rx) = mpsc::unbounded_channel();
        let board_path = board.path.clone();
        let worker = Worker {
            board,
            console: Some(console),
            console_path: console_path.clone(),
            forwarding: Forwarding::AwaitConsole,
            ever_contacted: false,
            silent: false,
            faults,
            rng: StdRng::seed_from_u64(faults.map_or(0, |f| f.seed)),
            stats: Arc::clone(&stats),
            delay_after: None,
            delayed: Vec::new(),
            release_at: None,
        };
        let task = tokio::spawn(worker.run(rx));
        Ok(Relay {
            board_path,
            console_path,
            stats,
            commands: tx,
            task,
        })
    }

    pub fn stats(&self) -> RelayStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    fn command(&self, command: Command) {
        // The worker only ends when the relay is dropped.
        let _ = self.commands.send(command);
    }

    /// Pulls the console's cable; frames already written get `drain` to be read first.
    pub async fn unplug(&self, drain: Duration) {
        self.command(Command::Stop);
        tokio::time::sleep(drain).await;
        self.command(Command::Unplug);
    }

    pub fn replug(&self) {
        self.command(Command::Replug);
    }

    /// Cuts both directions without closing anything: only the console's silence timeout
    /// can notice.
    pub fn set_silent(&self, silent: bool) {
        self.command(Command::Silence(silent));
    }

    pub fn set_faults(&self, faults: Option<FaultPlan>) {
        self.command(Command::Faults(faults));
    }

    /// Once the board's frame placing a man on `square` is forwarded, its next frames are
    /// held back for `hold` and then reach the console at once, as the bytes of a port
    /// reach a console that was held up: each made in time, all read late.
    pub fn delay_after_place(&self, square: SquareIndex, hold: Duration) {
        self.command(Command::DelayAfterPlace(square, hold));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forwarding {
    /// Cable in but the console has not written since (re)plugging: frames would sit in the
    /// pty until the console opens it and flushes its input, so they count as lost here.
    AwaitConsole,
    On,
    Off,
}

struct Worker {
    board: Pty,
    console: Option<Pty>,
    console_path: PathBuf,
    forwarding: Forwarding,
    ever_contacted: bool,
    silent: bool,
    faults: Option<FaultPlan>,
    rng: StdRng,
    stats: Arc<Mutex<RelayStats>>,
    /// A place to wait for, then how long to hold the frames after it.
    delay_after: Option<(SquareIndex, Duration)>,
    /// Frames held back, and when they go.
    delayed: Vec<u8>,
    release_at: Option<tokio::time::Instant>,
}

fn count(stats: &Mutex<RelayStats>, f: impl FnOnce(&mut RelayStats)) {
    if let Ok(mut stats) = stats.lock() {
        f(&mut stats);
    }
}

async fn read_console(console: &mut Option<Pty>, buf: &mut [u8]) -> io::Result<usize> {
    match console {
        Some(pty) => pty.master.read(buf).await,
        None => std::future::pending().await,
    }
}

impl Worker {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut from_board = [0u8; 1024];
        let mut from_console = [0u8; 1024];
        let mut frame = Vec::with_capacity(64);
        loop {
            tokio::select! {
                read = self.board.master.read(&mut from_board) => {
                    let n = match read {
                        Ok(n) if n > 0 => n,
                        // The board's slave end is held open here, so this only happens on
                        // a broken pty: back off instead of spinning.
                        Ok(_) | Err(_) => {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                            continue;
                        }
                    };
                    for &byte in &from_board[..n] {
                        frame.push(byte);
                        if byte == 0 {
                            self.board_frame(&frame).await;
                            frame.clear();
                        }
                    }
                }
                read = read_console(&mut self.console, &mut from_console) => {
                    match read {
                        Ok(n) if n > 0 => {
                            if !self.silent {
                                count(&self.stats, |s| s.console_bytes += n as u64);
                                if self.forwarding == Forwarding::AwaitConsole {
                                    self.forwarding = Forwarding::On;
                                    self.ever_contacted = true;
                                }
                                let _ = self.board.master.write_all(&from_console[..n]).await;
                            }
                        }
                        Ok(_) | Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                    }
                }
                command = commands.recv() => match command {
                    None => return,
                    Some(Command::Stop) => self.forwarding = Forwarding::Off,
                    Some(Command::Unplug) => {
                        self.forwarding = Forwarding::Off;
                        self.console = None;
                        let _ = std::fs::remove_file(&self.console_path);
                        count(&self.stats, |s| s.unplugs += 1);
                    }
                    Some(Command::Replug) => {
                        // If a new pty cannot be made the cable stays out, which the test sees.
                        if let Ok(pty) = Pty::open_linked(&self.console_path) {
                            self.console = Some(pty);
                            self.forwarding = Forwarding::AwaitConsole;
                        }
                    }
                    Some(Command::Silence(silent)) => {
                        self.silent = silent;
                        if !silent && self.forwarding == Forwarding::On {
                            self.forwarding = Forwarding::AwaitConsole;
                        }
                    }
                    Some(Command::Faults(faults)) => self.faults = faults,
                    Some(Command::DelayAfterPlace(square, hold)) => {
                        self.delay_after = Some((square, hold));
                    }
                },
                () = until(self.release_at) => self.release().await,
            }
        }
    }

    async fn board_frame(&mut self, frame: &[u8]) {
        count(&self.stats, |s| s.frames_from_board += 1);
        if self.console.is_none() || self.forwarding != Forwarding::On || self.silent {
            let counted = self.ever_contacted;
            count(&self.stats, |s| {
                if counted {
                    s.lost_unplugged += 1
                } else {
                    s.lost_before_first_contact += 1
                }
            });
            return;
        }
        let roll: f64 = self.rng.gen();
        let plan = self.faults.unwrap_or(FaultPlan {
            corrupt: 0.0,
            drop: 0.0,
            duplicate: 0.0,
            seed: 0,
        });
        let mut out = frame.to_vec();
        let mut copies = 1;
        if roll < plan.drop {
            count(&self.stats, |s| s.dropped += 1);
            return;
        } else if roll < plan.drop + plan.duplicate {
            copies = 2;
            count(&self.stats, |s| s.duplicated += 1);
        } else if roll < plan.drop + plan.duplicate + plan.corrupt && out.len() > 1 {
            let at = self.rng.gen_range(0..out.len() - 1);
            let original = out[at];
            let mut damaged = original;
            while damaged == original || damaged == 0 {
                damaged = self.rng.gen();
            }
            out[at] = damaged;
            count(&self.stats, |s| {
                s.corrupted += 1;
                s.corrupted_bytes += 1;
            });
        }
        if self.release_at.is_some() {
            for _ in 0..copies {
                self.delayed.extend_from_slice(&out);
            }
            return;
        }
        if let Some((square, hold)) = self.delay_after {
            if places_on(&out, square) {
                self.delay_after = None;
                self.release_at = Some(tokio::time::Instant::now() + hold);
            }
        }
        let Some(console) = self.console.as_mut() else {
            return;
        };
        for _ in 0..copies {
            if console.master.write_all(&out).await.is_ok() {
                let len = out.len() as u64;
                count(&self.stats, |s| {
                    s.forwarded += 1;
                    s.forwarded_bytes += len;
                });
            }
        }
    }
}

/// Whether a frame from the board places a man on `square`.
fn places_on(frame: &[u8], square: SquareIndex) -> bool {
    let mut found = false;
    kriegspiel_link::Decoder::<BoardMsg>::new().feed(frame, |f| {
        found |= matches!(f, Ok(f) if matches!(f.body, BoardMsg::Place { square: s, .. } if s == square));
    });
    found
}

/// Ready at `at`; never without one.
async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Worker {
    /// The frames held back reach the console at once.
    async fn release(&mut self) {
        self.release_at = None;
        let frames = std::mem::take(&mut self.delayed);
        if let Some(console) = self.console.as_mut() {
            if console.master.write_all(&frames).await.is_ok() {
                let count_frames = frames.iter().filter(|b| **b == 0).count() as u64;
                count(&self.stats, |s| {
                    s.forwarded += count_frames;
                    s.forwarded_bytes += frames.len() as u64;
                });
            }
        }
    }
}
