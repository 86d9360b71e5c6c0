//! Boards on the network (issue 19): N tables in one hall, their 2N boards in this process,
//! all through a private mosquitto. Prints the figures of docs/PERFORMANCE.md, "Boards on
//! the network".
//!
//! Each board is the real board logic of `kriegspiel-board-core` (debounce of 5 scans at
//! 1 kHz while a man moves, snapshots every 450 ms, heartbeats) behind simulated magnets,
//! writing its frames into its own `kriegspiel_net::BoardTransport` (its own MQTT
//! connection and outbox, as a board on the room's network has; the connections share one
//! runtime, see `--board-threads`). One thread drives
//! every board: it scans a board at 1 kHz for a few milliseconds after one of its men
//! moved, every 10 ms otherwise. The boards lift a man of their own and put it back on its
//! square, in turn, at a total rate (each board half a second later than the one before),
//! so every board's occupancy stays what its table expects. The hall (one console,
//! `TimeMode::Real`, the journal on disk) takes them as `BoardSource::Network`.
//!
//! Measured for every lift and place, from the moment the board wrote its frame (the
//! envelope's `sent_ms` is taken in the same call):
//! - → its frame in the journal's `board_inbox` (stored by the intake, before the ack);
//! - → its row in the journal's `events` table (the table's commit of the board input);
//! - → the `HallEvent::Link` a subscriber receives (published when the table takes the
//!   report in, before its commit);
//! - → the table's next `HallEvent::View` (published after the commit and the table's apply).
//!
//! The journal is read beside the hall through a read-only SQLite connection polled every
//! 2 ms (so journal figures are late by up to 2 ms, 1 ms on average). Then one of the
//! issue's faults strikes while the boards go on (`--fault`): the broker SIGKILLed and
//! started again 2 s later (the default), the boards cut off for 5 s, or the console
//! SIGKILLed and started again 2 s later; the recovery is the time from the fault's end
//! until every lift and place made during it is in the journal. At the end every lift and
//! place made is looked up in the journal: lost (never journaled) and doubled (journaled
//! twice) must both be 0.
//!
//! Settings, after `--` or in the environment:
//! - `--tables N` (`KRIEGSPIEL_BENCH_TABLES`, default 200): 2N boards;
//! - `--rate R` (`KRIEGSPIEL_BENCH_RATE`, default 800): lifts and places per second, all
//!   boards together;
//! - `--seconds S` (`KRIEGSPIEL_BENCH_SECONDS`, default 60): the steady phase;
//! - `--after S` (default 20): events go on this long after the broker's restart;
//! - `--fault F` (`KRIEGSPIEL_BENCH_FAULT`): `broker` (the default), `boards` (every board
//!   reaches the broker through a proxy in this process, which closes their connections
//!   and refuses new ones for 5 s), `console` (the hall runs in a child process, this same
//!   program, which is SIGKILLed and started again on its journal; its published events
//!   are not timed then, only the journal), `none`; `--no-outage` is `--fault none`;
//! - `--tap`: a second MQTT subscriber (QoS 0) on every board's events topic, to time the
//!   broker's share of the path (it adds its own load to the broker);
//! - `--broker-nagle`: mosquitto without `set_tcp_nodelay true` (its default: Nagle's
//!   algorithm on the broker's sockets);
//! - `--board-threads N` (`KRIEGSPIEL_BENCH_BOARD_THREADS`, default 1): the boards'
//!   connections share a runtime of N threads (`BoardTransport::start_on`); 0 gives each
//!   board its own thread (`BoardTransport::start`), as on its own Raspberry Pi, which on
//!   this machine puts 400 threads beside the hall's;
//! - `--quick`: 20 tables, 80 events/s, 15 s, 8 s after (a check in under a minute).
//!
//! `cargo bench -p kriegspiel-tests --bench network --offline -- --quick`
//!
//! The broker is configured as `kriegspiel broker-config` writes it for a round
//! (`set_tcp_nodelay true`, `max_inflight_messages 20`, 64 KiB packets, 100,000 queued
//! messages), but without persistence or users. The journal goes to target/tmp (the
//! workspace's disk, never a tmpfs); `KRIEGSPIEL_BENCH_SCRATCH=/dev/shm` puts it in memory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kriegspiel_board_core::{Board, BoardConfig, FrameWriter, Occupancy, Scanner};
use kriegspiel_boardlink::{DisconnectReason, LinkEvent};
use kriegspiel_hall::{
    BoardSource, BrokerNotice, Hall, HallCommand, HallEvent, Journal, NetworkSpec, Resume,
    TableSetup, TableSpec, TimeMode,
};
use kriegspiel_link::{BoardMsg, Decoder};
use kriegspiel_net::{BoardTransport, Broker, BrokerUrl, TransportConfig, TransportError};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_tests::host::{cpu_seconds, fs_type, load, quantile, scratch_dir, CLK_TCK};
use kriegspiel_tests::mosquitto::Mosquitto;
use rusqlite::{params, Connection, OpenFlags};
use tokio::sync::broadcast::error::RecvError;

/// How often the journal is read beside the hall.
const POLL: Duration = Duration::from_millis(2);
/// A board scans at 1 kHz this long after one of its men moved (the debounce's 5 scans and
/// two more), every `IDLE_SCAN_MS` otherwise (its snapshots and heartbeats are due then).
const BUSY_MS: u64 = 7;
const IDLE_SCAN_MS: u64 = 10;
/// The first events of the steady phase are left out (connections settling).
const SETTLE: Duration = Duration::from_secs(2);
/// The broker or the console stays down this long.
const OUTAGE: Duration = Duration::from_secs(2);
/// The boards stay cut off this long.
const CUT: Duration = Duration::from_secs(5);
/// The goal of issue 19 for board → journal.
const GOAL_P99_MS: f64 = 15.0;

// ---------------------------------------------------------------------------------------
// Settings

#[derive(Debug, Clone, Copy)]
struct Settings {
    tables: usize,
    rate: f64,
    seconds: u64,
    after: u64,
    fault: Fault,
    /// A second subscriber on the boards' event topics, beside the hall's: the broker's
    /// share of the path.
    tap: bool,
    /// mosquitto with its default `set_tcp_nodelay false` (Nagle's algorithm on its
    /// sockets) instead of the round's `set_tcp_nodelay true`.
    broker_nagle: bool,
    /// Threads of the runtime every board's connection runs on; 0: each board on a thread of
    /// its own, as on its own Raspberry Pi.
    board_threads: usize,
}

fn setting<T: std::str::FromStr>(args: &[String], flag: &str, env: &str, default: T) -> T {
    let from_args = args
        .iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{flag} {v}: not understood"))
        });
    from_args
        .or_else(|| std::env::var(env).ok().and_then(|v| v.parse().ok()))
        .unwrap_or(default)
}

/// What strikes after the steady phase, the boards going on meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    /// The broker SIGKILLed, started again [`OUTAGE`] later.
    Broker,
    /// Every board's connection closed and new ones refused for [`CUT`].
    Boards,
    /// The console (the hall's process) SIGKILLed, started again [`OUTAGE`] later.
    Console,
}

impl std::str::FromStr for Fault {
    type Err = ();
    fn from_str(s: &str) -> Result<Fault, ()> {
        match s {
            "none" => Ok(Fault::None),
            "broker" => Ok(Fault::Broker),
            "boards" => Ok(Fault::Boards),
            "console" => Ok(Fault::Console),
            _ => Err(()),
        }
    }
}

impl Fault {
    fn lasts(self) -> Duration {
        match self {
            Fault::None => Duration::ZERO,
            Fault::Broker | Fault::Console => OUTAGE,
            Fault::Boards => CUT,
        }
    }

    /// What happened, and what ended it.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Fault::None => ("nothing", "nothing"),
            Fault::Broker => ("the broker SIGKILLed", "restarted"),
            Fault::Boards => ("the boards cut off", "back"),
            Fault::Console => ("the console SIGKILLed", "restarted on its journal"),
        }
    }
}

impl Settings {
    fn parse() -> Settings {
        // `cargo bench` adds `--bench`.
        let args: Vec<String> = std::env::args().skip(1).collect();
        let quick = args.iter().any(|a| a == "--quick");
        let (tables, rate, seconds, after) = if quick {
            (20, 80.0, 15, 8)
        } else {
            (200, 800.0, 60, 20)
        };
        Settings {
            tables: setting(&args, "--tables", "KRIEGSPIEL_BENCH_TABLES", tables),
            rate: setting(&args, "--rate", "KRIEGSPIEL_BENCH_RATE", rate),
            seconds: setting(&args, "--seconds", "KRIEGSPIEL_BENCH_SECONDS", seconds),
            after: setting(&args, "--after", "KRIEGSPIEL_BENCH_AFTER", after),
            fault: if args.iter().any(|a| a == "--no-outage") {
                Fault::None
            } else {
                setting(&args, "--fault", "KRIEGSPIEL_BENCH_FAULT", Fault::Broker)
            },
            tap: args.iter().any(|a| a == "--tap"),
            broker_nagle: args.iter().any(|a| a == "--broker-nagle"),
            board_threads: setting(
                &args,
                "--board-threads",
                "KRIEGSPIEL_BENCH_BOARD_THREADS",
                1,
            ),
        }
    }

    fn boards(&self) -> usize {
        self.tables * 2
    }
}

// ---------------------------------------------------------------------------------------
// Time and the machine

static T0: OnceLock<Instant> = OnceLock::new();

/// Microseconds since the bench started: every thread stamps on this clock.
fn now_us() -> u64 {
    u64::try_from(T0.get_or_init(Instant::now).elapsed().as_micros()).unwrap()
}

fn wall_ms() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// CPU seconds of this process's threads, summed by thread name, and how many there are.
fn cpu_by_thread() -> BTreeMap<String, (f64, usize)> {
    let mut out: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for t in tasks.flatten() {
        let dir = t.path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let e = out.entry(comm.trim().to_owned()).or_default();
        e.0 += cpu_seconds(&dir.join("stat"));
        e.1 += 1;
    }
    out
}

/// CPU seconds the whole machine has been busy (every core, /proc/stat), and of those the
/// seconds its virtual cores waited for the host's ("steal": another machine on the host ran).
fn machine_busy_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(cpu) = stat.lines().find(|l| l.starts_with("cpu ")) else {
        return (0.0, 0.0);
    };
    let f: Vec<f64> = cpu
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    let busy: f64 = [0, 1, 2, 5, 6, 7].iter().filter_map(|i| f.get(*i)).sum();
    (busy / CLK_TCK, f.get(7).copied().unwrap_or(0.0) / CLK_TCK)
}

/// The machine's count of connections dropped because a listening socket's queue was full
/// (TcpExt ListenOverflows in /proc/net/netstat).
fn listen_overflows() -> u64 {
    let text = std::fs::read_to_string("/proc/net/netstat").unwrap_or_default();
    let mut lines = text.lines().filter(|l| l.starts_with("TcpExt:"));
    let (Some(names), Some(values)) = (lines.next(), lines.next()) else {
        return 0;
    };
    names
        .split_whitespace()
        .zip(values.split_whitespace())
        .find(|(n, _)| *n == "ListenOverflows")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// The pid of the mosquitto started with `conf`.
fn mosquitto_pid(conf: &Path) -> Option<u32> {
    let conf = conf.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|p| {
        let pid: u32 = p.file_name().to_str()?.parse().ok()?;
        let cmd = std::fs::read(p.path().join("cmdline")).ok()?;
        let cmd = String::from_utf8_lossy(&cmd);
        (cmd.starts_with("mosquitto") && cmd.contains(&conf)).then_some(pid)
    })
}

fn vm_hwm_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

// ---------------------------------------------------------------------------------------
// The boards

fn color_of(board: usize) -> Color {
    if board.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

/// Board index (0, 1, … = table 1 White, table 1 Black, …) → its id on the broker.
fn board_id(board: usize) -> u32 {
    u32::try_from(board + 1).unwrap()
}

/// The magnets under one board, set by the driver.
#[derive(Debug)]
struct Magnets(Rc<Cell<u64>>);

impl Scanner for Magnets {
    type Error = Infallible;
    fn scan(&mut self) -> Result<Occupancy, Infallible> {
        Ok(Occupancy(self.0.get()))
    }
}

/// One lift or place as the board wrote it.
#[derive(Debug, Clone, Copy)]
struct Sent {
    /// Its number in the board's outbox (the envelope's `seq`).
    oseq: u64,
    /// The link frame's own number (the journal's `board_seq`).
    lseq: u16,
    place: bool,
    square: u8,
    board_ms: u32,
    at_us: u64,
}

/// What one board wrote.
#[derive(Debug, Default, Clone)]
struct Log {
    /// Frames handed to the transport (the next outbox number).
    frames: u64,
    /// Frames the transport refused (it stopped).
    refused: u64,
    events: Vec<Sent>,
    /// Frames by kind: hello, snapshot, lift/place, heartbeat, fault.
    kinds: [u64; 5],
}

/// The board's frame writer: the transport's, noting what goes through it.
struct Probe {
    inner: kriegspiel_net::TransportWriter,
    decoder: Decoder<BoardMsg>,
    log: Rc<RefCell<Log>>,
    made: Arc<AtomicU64>,
}

impl FrameWriter for Probe {
    type Error = TransportError;

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        let at_us = now_us();
        let mut frame = None;
        self.decoder.feed(bytes, |f| frame = f.ok());
        let result = self.inner.write_all(bytes);
        let mut log = self.log.borrow_mut();
        if result.is_err() {
            log.refused += 1;
            return result;
        }
        let oseq = log.frames;
        log.frames += 1;
        if let Some(frame) = frame {
            let (kind, event) = match frame.body {
                BoardMsg::Hello { .. } => (0, None),
                BoardMsg::Snapshot { .. } => (1, None),
                BoardMsg::Lift { square, board_ms } => (2, Some((false, square, board_ms))),
                BoardMsg::Place { square, board_ms } => (2, Some((true, square, board_ms))),
                BoardMsg::Heartbeat { .. } => (3, None),
                BoardMsg::Fault { .. } => (4, None),
            };
            log.kinds[kind] += 1;
            if let Some((place, square, board_ms)) = event {
                log.events.push(Sent {
                    oseq,
                    lseq: frame.seq,
                    place,
                    square,
                    board_ms,
                    at_us,
                });
                self.made.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

/// One simulated board and its script's state.
struct Sim {
    board: Board<Magnets, Probe>,
    magnets: Rc<Cell<u64>>,
    incoming: Receiver<Vec<u8>>,
    log: Rc<RefCell<Log>>,
    next_scan_ms: u64,
    last_scan_ms: u64,
    busy_until_ms: u64,
    /// The man in the air, if any.
    lifted: Option<u8>,
    turn: usize,
    /// Its own men's squares (White a1–h2, Black a7–h8).
    men: [u8; 16],
    errors: u64,
}

impl Sim {
    /// A man is lifted, or the one in the air is put back on its square.
    fn act(&mut self, now_ms: u64) {
        match self.lifted.take() {
            None => {
                let square = self.men[self.turn % self.men.len()];
                self.turn += 1;
                self.magnets.set(self.magnets.get() & !(1u64 << square));
                self.lifted = Some(square);
            }
            Some(square) => self.magnets.set(self.magnets.get() | (1u64 << square)),
        }
        self.busy_until_ms = now_ms + BUSY_MS;
        self.next_scan_ms = now_ms;
    }

    fn scan(&mut self, now_ms: u64) {
        while let Ok(bytes) = self.incoming.try_recv() {
            if self.board.receive(&bytes, board_ms(now_ms)).is_err() {
                self.errors += 1;
            }
        }
        // While a man moves, the scans a board at 1 kHz made since the last one (a late
        // wake-up must not slow the debounce down).
        if now_ms < self.busy_until_ms + 1 {
            let from = (self.last_scan_ms + 1).max(now_ms.saturating_sub(BUSY_MS));
            for t in from..now_ms {
                if self.board.tick(board_ms(t)).is_err() {
                    self.errors += 1;
                }
            }
        }
        if self.board.tick(board_ms(now_ms)).is_err() {
            self.errors += 1;
        }
        self.last_scan_ms = now_ms;
        self.next_scan_ms = now_ms
            + if now_ms < self.busy_until_ms {
                1
            } else {
                IDLE_SCAN_MS
            };
    }
}

fn board_ms(ms: u64) -> u32 {
    (ms & u64::from(u32::MAX)) as u32
}

/// When the driver makes events: from `from_us` (u64::MAX: not yet) to `until_us`; `stop`
/// ends it.
#[derive(Debug)]
struct Control {
    from_us: AtomicU64,
    until_us: AtomicU64,
    stop: AtomicBool,
    /// Lifts and places written so far.
    made: Arc<AtomicU64>,
}

type BoardEnd = (usize, kriegspiel_net::TransportWriter, Receiver<Vec<u8>>);

/// Drives every board on this thread until stopped; gives back what each wrote.
fn drive(ends: Vec<BoardEnd>, rate: f64, control: &Control) -> (Vec<Log>, u64) {
    let now_ms = now_us() / 1000;
    let mut sims: Vec<Sim> = ends
        .into_iter()
        .map(|(b, writer, incoming)| {
            let base: u8 = if color_of(b) == Color::White { 0 } else { 48 };
            let men: [u8; 16] = std::array::from_fn(|i| base + u8::try_from(i).unwrap());
            let occupancy = men.iter().fold(0u64, |o, s| o | (1u64 << s));
            let magnets = Rc::new(Cell::new(occupancy));
            let log = Rc::new(RefCell::new(Log::default()));
            let probe = Probe {
                inner: writer,
                decoder: Decoder::new(),
                log: log.clone(),
                made: control.made.clone(),
            };
            let config = BoardConfig {
                board_id: board_id(b),
                ..BoardConfig::default()
            };
            Sim {
                board: Board::new(Magnets(magnets.clone()), probe, config),
                magnets,
                incoming,
                log,
                // Spread over the idle period.
                next_scan_ms: now_ms + (b as u64 % IDLE_SCAN_MS),
                last_scan_ms: now_ms,
                busy_until_ms: 0,
                lifted: None,
                turn: 0,
                men,
                errors: 0,
            }
        })
        .collect();
    let period_us = 1e6 / rate;
    let boards = sims.len() as u64;
    let mut slot: u64 = 0;
    while !control.stop.load(Ordering::Relaxed) {
        let now = now_us();
        let now_ms = now / 1000;
        let from = control.from_us.load(Ordering::Relaxed);
        let until = control.until_us.load(Ordering::Relaxed);
        let slot_at = |k: u64| from.saturating_add((k as f64 * period_us) as u64);
        if from != u64::MAX {
            while slot_at(slot) <= now {
                let at = slot_at(slot);
                let sim = &mut sims[usize::try_from(slot % boards).unwrap()];
                // After the end, only the men still in the air are put back.
                if at < until || sim.lifted.is_some() {
                    sim.act(now_ms);
                }
                slot += 1;
            }
        }
        let mut next_ms = u64::MAX;
        for sim in &mut sims {
            if sim.next_scan_ms <= now_ms {
                sim.scan(now_ms);
            }
            next_ms = next_ms.min(sim.next_scan_ms);
        }
        let mut wake = next_ms.saturating_mul(1000);
        if from != u64::MAX {
            wake = wake.min(slot_at(slot));
        }
        let now = now_us();
        if wake > now {
            thread::sleep(Duration::from_micros((wake - now).min(10_000)));
        }
    }
    let errors = sims.iter().map(|s| s.errors).sum();
    let logs = sims.iter().map(|s| s.log.borrow().clone()).collect();
    (logs, errors)
}

// ---------------------------------------------------------------------------------------
// The hall's published events

/// A lift or place as the subscriber saw the table take it.
#[derive(Debug, Clone, Copy)]
struct LinkSeen {
    board: usize,
    place: bool,
    square: u8,
    board_ms: u32,
    at_us: u64,
    /// The table's next `View`: published after the event's commit and the table's apply.
    view_us: Option<u64>,
}

#[derive(Debug, Default)]
struct Seen {
    links: Vec<LinkSeen>,
    /// Link events other than connecting, lifts, places and snapshots, by kind.
    trouble: BTreeMap<String, u64>,
    broker: Vec<(u64, String)>,
    lagged: u64,
    events: u64,
}

/// What the subscriber tells the bench while it runs.
#[derive(Debug)]
struct Watch {
    connected: Vec<AtomicBool>,
    count: AtomicUsize,
    reached: AtomicBool,
}

impl Watch {
    fn new(boards: usize) -> Watch {
        Watch {
            connected: (0..boards).map(|_| AtomicBool::new(false)).collect(),
            count: AtomicUsize::new(0),
            reached: AtomicBool::new(false),
        }
    }

    /// Board `board` was greeted by its table; true the first time.
    fn greeted(&self, board: usize) -> bool {
        let first = !self.connected[board].swap(true, Ordering::Relaxed);
        if first {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        first
    }
}

fn board_of(table: usize, color: Color) -> usize {
    (table - 1) * 2 + usize::from(color == Color::Black)
}

/// Follows the hall's events; with `echo` (in the hall's child process) what the bench waits
/// for is also said on stdout: `reached`, `connected BOARD`, `notice TEXT`.
fn follow(
    mut events: kriegspiel_hall::broadcast::Receiver<HallEvent>,
    tables: usize,
    watch: &Watch,
    echo: bool,
) -> Seen {
    let mut seen = Seen::default();
    // Per table: the lift or place whose View comes next.
    let mut pending: Vec<Option<usize>> = vec![None; tables + 1];
    loop {
        let e = match events.blocking_recv() {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                seen.lagged += n;
                pending.iter_mut().for_each(|p| *p = None);
                continue;
            }
            Err(RecvError::Closed) => break,
        };
        let at_us = now_us();
        seen.events += 1;
        match e {
            HallEvent::Link {
                table,
                color,
                event,
                ..
            } => {
                let board = board_of(table, color);
                pending[table] = None;
                match event {
                    LinkEvent::Lift { square, board_ms }
                    | LinkEvent::Place { square, board_ms } => {
                        pending[table] = Some(seen.links.len());
                        seen.links.push(LinkSeen {
                            board,
                            place: matches!(event, LinkEvent::Place { .. }),
                            square,
                            board_ms,
                            at_us,
                            view_us: None,
                        });
                    }
                    LinkEvent::Connected { .. } => {
                        if watch.greeted(board) && echo {
                            println!("connected {board}");
                        }
                    }
                    LinkEvent::Snapshot { .. }
                    | LinkEvent::Resync {
                        reason: kriegspiel_boardlink::ResyncReason::Connected,
                        ..
                    } => {}
                    other => {
                        let kind = match &other {
                            LinkEvent::Resync { reason, .. } => format!("resync {}", reason.name()),
                            LinkEvent::Disconnected { reason } => match reason {
                                DisconnectReason::Unheard { .. } => "unheard".to_owned(),
                                DisconnectReason::Stopped => "stopped".to_owned(),
                                r => format!("disconnected {}", r.name()),
                            },
                            LinkEvent::Fault { code, .. } => format!("fault {code:?}"),
                            e => format!("{e:?}").chars().take(30).collect(),
                        };
                        *seen.trouble.entry(kind).or_default() += 1;
                    }
                }
            }
            HallEvent::View(v) => {
                if let Some(i) = pending.get_mut(v.table).and_then(Option::take) {
                    seen.links[i].view_us = Some(at_us);
                }
            }
            HallEvent::Broker(notice) => {
                if echo {
                    println!("notice {notice}");
                }
                if matches!(notice, BrokerNotice::Reached { .. }) {
                    watch.reached.store(true, Ordering::Relaxed);
                    if echo {
                        println!("reached");
                    }
                }
                seen.broker.push((at_us, notice.to_string()));
            }
            HallEvent::Failed { table, error } => {
                seen.broker
                    .push((at_us, format!("table {table} failed: {error}")));
            }
            _ => {}
        }
    }
    seen
}

// ---------------------------------------------------------------------------------------
// The hall: in this process, or in a child that can be SIGKILLed

/// Set in a child run of this program, which then only runs the hall: `TABLES URL JOURNAL`.
const CHILD: &str = "KRIEGSPIEL_BENCH_HALL_CHILD";

/// The round: every table's two boards on the broker, each table's last game resumed from
/// the journal (a new one in a new journal).
fn open_hall(tables: usize, url: &BrokerUrl, journal: &Path) -> Hall {
    let specs = (0..tables)
        .map(|i| TableSpec {
            name: format!("net-{i:04}"),
            setup: TableSetup {
                // A man lifted and put back commits to nothing.
                touch_move: "off".to_owned(),
                ..TableSetup::default()
            },
            white: BoardSource::Network(board_id(2 * i)),
            black: BoardSource::Network(board_id(2 * i + 1)),
            scripted: Vec::new(),
            resume: Resume::Last,
        })
        .collect();
    let mut hall = Hall::open(Journal::open(journal).unwrap(), specs, TimeMode::Real).unwrap();
    hall.use_broker(NetworkSpec {
        broker: Broker::plain(url.clone()),
        console: "bench".to_owned(),
    });
    hall
}

/// The child's whole life: the hall on its journal until it is killed.
fn hall_child(spec: &str) {
    let mut words = spec.splitn(3, ' ');
    let tables: usize = words.next().unwrap().parse().unwrap();
    let url: BrokerUrl = words.next().unwrap().parse().unwrap();
    let journal = PathBuf::from(words.next().unwrap());
    let hall = open_hall(tables, &url, &journal);
    let events = hall.subscribe();
    let _running = hall.start(Vec::new()).unwrap();
    follow(events, tables, &Watch::new(tables * 2), true);
}

/// Set to a folder: the journal as the killed console left it is copied there, to time or
/// profile a restart on it alone (the child mode with a broker that is not there).
const KEEP_JOURNAL: &str = "KRIEGSPIEL_BENCH_KEEP_JOURNAL";

fn keep_journal(journal: &Path) {
    let Ok(dir) = std::env::var(KEEP_JOURNAL) else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", journal.display()));
        if from.exists() {
            std::fs::copy(&from, Path::new(&dir).join(from.file_name().unwrap())).unwrap();
        }
    }
    println!("  (the journal as the console left it is copied to {dir})");
}

/// The hall in a child process; what it says goes into `watch` and `notices`.
struct ChildHall(std::process::Child);

type Notices = Arc<std::sync::Mutex<Vec<(u64, String)>>>;

impl ChildHall {
    fn start(
        tables: usize,
        url: &BrokerUrl,
        journal: &Path,
        watch: &Arc<Watch>,
        notices: &Notices,
    ) -> ChildHall {
        use std::io::BufRead;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .env(CHILD, format!("{tables} {url} {}", journal.display()))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (watch, notices) = (watch.clone(), notices.clone());
        thread::Builder::new()
            .name("child-hall".into())
            .spawn(move || {
                for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                    if line == "reached" {
                        watch.reached.store(true, Ordering::Relaxed);
                    } else if let Some(board) = line.strip_prefix("connected ") {
                        watch.greeted(board.parse().unwrap());
                    } else if let Some(notice) = line.strip_prefix("notice ") {
                        notices.lock().unwrap().push((now_us(), notice.to_owned()));
                    }
                }
            })
            .unwrap();
        ChildHall(child)
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A bench that fails leaves no hall running behind it.
impl Drop for ChildHall {
    fn drop(&mut self) {
        self.kill();
    }
}

enum HallRun {
    Here {
        running: kriegspiel_hall::RunningHall,
        subscriber: thread::JoinHandle<Seen>,
    },
    Child(ChildHall),
}

// ---------------------------------------------------------------------------------------
// The boards' cable: a proxy between them and the broker that can cut them all off

/// Forwards the boards' connections to the broker on a thread of its own; cut, it closes
/// them all and refuses new ones, as a dead switch would.
struct Cable {
    port: u16,
    cut: Arc<tokio::sync::watch::Sender<bool>>,
    _runtime: tokio::runtime::Runtime,
}

impl Cable {
    fn start(upstream: u16) -> Cable {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cable")
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(tokio::sync::watch::channel(false).0);
        let state = cut.clone();
        runtime.spawn(async move {
            loop {
                let Ok((mut board, _)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    continue;
                };
                if *state.borrow() {
                    continue; // refused: closed at once
                }
                let mut cut = state.subscribe();
                tokio::spawn(async move {
                    let Ok(mut broker) =
                        tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                    else {
                        return;
                    };
                    let _ = board.set_nodelay(true);
                    let _ = broker.set_nodelay(true);
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut board, &mut broker) => {}
                        _ = cut.wait_for(|cut| *cut) => {}
                    }
                });
            }
        });
        Cable {
            port,
            cut,
            _runtime: runtime,
        }
    }

    fn url(&self) -> BrokerUrl {
        format!("mqtt://127.0.0.1:{}", self.port).parse().unwrap()
    }

    fn set_cut(&self, cut: bool) {
        self.cut.send_replace(cut);
    }
}

// ---------------------------------------------------------------------------------------
// The journal, read beside the hall

/// A board input's row as first seen in the journal.
#[derive(Debug, Clone, Copy)]
struct RowSeen {
    game: i64,
    white: bool,
    /// 0 lift, 1 place, 2 snapshot, 3 other.
    kind: u8,
    board_seq: u16,
    at_us: u64,
}

#[derive(Debug, Default)]
struct Polled {
    rows: Vec<RowSeen>,
    /// (board id, seq, first seen)
    inbox: Vec<(u32, u64, u64)>,
    polls: u64,
}

fn read_only(path: &Path) -> Connection {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

/// The words of an event line after its time: its color and what the board did.
fn line_kind(line: &str) -> Option<(bool, u8, Option<&str>)> {
    let mut w = line.split_whitespace().skip(1);
    let white = match w.next()? {
        "white" => true,
        "black" => false,
        _ => return None,
    };
    let kind = match w.next()? {
        "lift" => 0,
        "place" => 1,
        "snapshot" => 2,
        _ => 3,
    };
    Some((white, kind, w.next()))
}

fn poll_journal(path: &Path, stop: &AtomicBool, journaled: &AtomicU64) -> Polled {
    let conn = read_only(path);
    let mut events = conn
        .prepare(
            "SELECT rowid, game, line, board_seq FROM events
             WHERE rowid > ?1 AND board_seq IS NOT NULL",
        )
        .unwrap();
    let mut inbox = conn
        .prepare("SELECT rowid, board, seq FROM board_inbox WHERE rowid > ?1")
        .unwrap();
    let mut polled = Polled::default();
    let (mut last_event, mut last_inbox) = (0i64, 0i64);
    loop {
        let done = stop.load(Ordering::Relaxed);
        let at_us = now_us();
        let mut rows = events.query(params![last_event]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let rowid: i64 = r.get(0).unwrap();
            last_event = last_event.max(rowid);
            let line: String = r.get(2).unwrap();
            let Some((white, kind, _)) = line_kind(&line) else {
                continue;
            };
            if kind <= 1 {
                journaled.fetch_add(1, Ordering::Relaxed);
            }
            polled.rows.push(RowSeen {
                game: r.get(1).unwrap(),
                white,
                kind,
                board_seq: r.get(3).unwrap(),
                at_us,
            });
        }
        let mut rows = inbox.query(params![last_inbox]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let rowid: i64 = r.get(0).unwrap();
            last_inbox = last_inbox.max(rowid);
            let seq: i64 = r.get(2).unwrap();
            polled
                .inbox
                .push((r.get(1).unwrap(), u64::try_from(seq).unwrap(), at_us));
        }
        polled.polls += 1;
        if done {
            return polled;
        }
        thread::sleep(POLL);
    }
}

// ---------------------------------------------------------------------------------------
// The tap: when each envelope came out of the broker

type Tapped = Arc<std::sync::Mutex<Vec<(u32, u64, u64)>>>;

fn tap(url: &BrokerUrl, stop: Arc<AtomicBool>) -> Tapped {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let seen: Tapped = Arc::default();
    let mut options = MqttOptions::new("bench-tap", url.host.clone(), url.port);
    options.set_max_packet_size(kriegspiel_net::MAX_PACKET, kriegspiel_net::MAX_PACKET);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(options, 64);
    let out = seen.clone();
    thread::Builder::new()
        .name("tap".into())
        .spawn(move || {
            for event in connection.iter() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                match event {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = client.try_subscribe("kriegspiel/board/+/events", QoS::AtMostOnce);
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let at_us = now_us();
                        let board = kriegspiel_net::BoardTopics::parse(&p.topic).map(|(b, _)| b);
                        if let (Some(board), Ok(e)) =
                            (board, kriegspiel_net::Envelope::decode(&p.payload))
                        {
                            out.lock().unwrap().push((board, e.seq, at_us));
                        }
                    }
                    Ok(_) => {}
                    Err(_) => thread::sleep(Duration::from_millis(200)),
                }
            }
        })
        .unwrap();
    seen
}

// ---------------------------------------------------------------------------------------
// Figures

fn row(label: &str, values: &mut [f64], goal: Option<f64>) -> String {
    values.sort_by(f64::total_cmp);
    let over = goal.map_or_else(String::new, |g| {
        format!(
            " | {} over {g} ms, {} over 1 s",
            values.iter().filter(|v| **v > g).count(),
            values.iter().filter(|v| **v > 1000.0).count()
        )
    });
    format!(
        "| {label} | {} | {:.1} | {:.1} | **{:.1}** | {:.1}{over} |",
        values.len(),
        quantile(values, 0.5),
        quantile(values, 0.9),
        quantile(values, 0.99),
        quantile(values, 1.0),
    )
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// Latencies of the lifts and places made in `[from, to)`, on every path.
#[derive(Debug, Default)]
struct Paths {
    tap: Vec<f64>,
    inbox: Vec<f64>,
    journal: Vec<f64>,
    link: Vec<f64>,
    view: Vec<f64>,
    made: usize,
}

/// Where each lift or place was first seen: inbox, journal, link, view (µs since T0).
#[derive(Debug, Default, Clone, Copy)]
struct Arrivals {
    tap: Option<u64>,
    inbox: Option<u64>,
    journal: Option<u64>,
    link: Option<u64>,
    view: Option<u64>,
}

fn paths(events: &[(usize, Sent, Arrivals)], from: u64, to: u64) -> Paths {
    let mut p = Paths::default();
    for (_, s, a) in events
        .iter()
        .filter(|(_, s, _)| s.at_us >= from && s.at_us < to)
    {
        p.made += 1;
        let lat = |t: Option<u64>| t.map(|t| ms(t.saturating_sub(s.at_us)));
        p.tap.extend(lat(a.tap));
        p.inbox.extend(lat(a.inbox));
        p.journal.extend(lat(a.journal));
        p.link.extend(lat(a.link));
        p.view.extend(lat(a.view));
    }
    p
}

fn print_paths(title: &str, p: &mut Paths) {
    println!("\n{title}: {} lifts and places made", p.made);
    println!("| path (ms from the board's frame) | n | p50 | p90 | p99 | max |");
    println!("|---|---|---|---|---|---|");
    if !p.tap.is_empty() {
        println!(
            "{}",
            row("→ out of the broker (the tap, QoS 0)", &mut p.tap, None)
        );
    }
    println!(
        "{}",
        row(
            "→ `board_inbox` (stored, then acknowledged)",
            &mut p.inbox,
            None
        )
    );
    println!(
        "{}",
        row(
            "→ `events` row (the table's commit)",
            &mut p.journal,
            Some(GOAL_P99_MS)
        )
    );
    // Not timed when the hall runs in a child process.
    if !p.link.is_empty() {
        println!(
            "{}",
            row(
                "→ `HallEvent::Link` (table takes it in, before its commit)",
                &mut p.link,
                None
            )
        );
        println!(
            "{}",
            row(
                "→ the table's next `HallEvent::View` (after commit and apply)",
                &mut p.view,
                None
            )
        );
    }
}

// ---------------------------------------------------------------------------------------

fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    done()
}

fn sleep_until_us(at: u64) {
    let now = now_us();
    if at > now {
        thread::sleep(Duration::from_micros(at - now));
    }
}

#[allow(clippy::too_many_lines)]
fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        hall_child(&spec);
        return;
    }
    let s = Settings::parse();
    let _ = now_us();
    println!(
        "machine: {} cores; profile: {}; load average {}",
        thread::available_parallelism().map_or(0, usize::from),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "optimised (bench)"
        },
        load()
    );
    let dir = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap();
    println!(
        "== boards on the network: {} tables, {} boards ({}), {} lifts and places a second in all; steady {} s{}; journal in {} ({})",
        s.tables,
        s.boards(),
        match s.board_threads {
            0 => "a thread each".to_owned(),
            n => format!("their connections on {n} thread(s)"),
        },
        s.rate,
        s.seconds,
        match s.fault {
            Fault::None => String::new(),
            f => format!(
                ", then {} and {} {} s later, {} s more",
                f.words().0,
                f.words().1,
                f.lasts().as_secs(),
                s.after
            ),
        },
        dir.path().display(),
        fs_type(dir.path())
    );
    // What `kriegspiel broker-config` writes for a round, but for persistence and the
    // users: no message kept on disk (a SIGKILL loses everything the broker held), anyone
    // may connect.
    let extra = format!(
        "max_inflight_messages 20\nmax_packet_size {}\n{}",
        kriegspiel_net::MAX_PACKET,
        if s.broker_nagle {
            ""
        } else {
            "set_tcp_nodelay true\n"
        }
    );
    let mut broker = Mosquitto::start(dir.path(), &extra).unwrap();
    let conf = dir.path().join("mosquitto.conf");
    let url: BrokerUrl = broker.url().parse().unwrap();

    // The hall.
    let journal_path = dir.path().join("hall.sqlite");
    let t = Instant::now();
    let watch = Arc::new(Watch::new(s.boards()));
    let notices: Notices = Arc::default();
    let mut hall_run = if s.fault == Fault::Console {
        HallRun::Child(ChildHall::start(
            s.tables,
            &url,
            &journal_path,
            &watch,
            &notices,
        ))
    } else {
        let hall = open_hall(s.tables, &url, &journal_path);
        let subscriber = {
            let events = hall.subscribe();
            let watch = watch.clone();
            let tables = s.tables;
            thread::Builder::new()
                .name("subscriber".into())
                .spawn(move || follow(events, tables, &watch, false))
                .unwrap()
        };
        let running = hall.start(Vec::new()).unwrap();
        HallRun::Here {
            running,
            subscriber,
        }
    };
    let hall_pid = match &hall_run {
        HallRun::Child(c) => Some(c.0.id()),
        HallRun::Here { .. } => None,
    };
    assert!(
        wait_for(Duration::from_secs(20), || watch
            .reached
            .load(Ordering::Relaxed)),
        "the hall did not reach the broker"
    );
    let hall_ms = t.elapsed().as_secs_f64() * 1e3;

    let tap_stop = Arc::new(AtomicBool::new(false));
    let tapped = s.tap.then(|| tap(&url, tap_stop.clone()));
    let poll_stop = Arc::new(AtomicBool::new(false));
    let journaled = Arc::new(AtomicU64::new(0));
    let poller = {
        let (stop, journaled, path) = (poll_stop.clone(), journaled.clone(), journal_path.clone());
        thread::Builder::new()
            .name("journal-poll".into())
            .spawn(move || poll_journal(&path, &stop, &journaled))
            .unwrap()
    };

    // The boards: each its own connection, then one thread drives them all.
    let t = Instant::now();
    let mut transports = Vec::with_capacity(s.boards());
    let mut ends = Vec::with_capacity(s.boards());
    let board_runtime = (s.board_threads > 0).then(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(s.board_threads)
            .thread_name("mqtt")
            .enable_all()
            .build()
            .unwrap()
    });
    let cable = (s.fault == Fault::Boards).then(|| Cable::start(url.port));
    let boards_url = cable.as_ref().map_or_else(|| url.clone(), Cable::url);
    for b in 0..s.boards() {
        let config = TransportConfig::new(board_id(b), Broker::plain(boards_url.clone()));
        let (writer, incoming, transport) = match &board_runtime {
            Some(rt) => BoardTransport::start_on(config, rt.handle()),
            None => BoardTransport::start(config),
        }
        .unwrap();
        transports.push(transport);
        ends.push((b, writer, incoming));
    }
    let control = Arc::new(Control {
        from_us: AtomicU64::new(u64::MAX),
        until_us: AtomicU64::new(u64::MAX),
        stop: AtomicBool::new(false),
        made: Arc::new(AtomicU64::new(0)),
    });
    let driver = {
        let control = control.clone();
        let rate = s.rate;
        thread::Builder::new()
            .name("boards".into())
            .spawn(move || drive(ends, rate, &control))
            .unwrap()
    };
    let all_connected = wait_for(Duration::from_secs(60), || {
        watch.count.load(Ordering::Relaxed) == s.boards()
            && transports.iter().all(BoardTransport::is_connected)
    });
    println!(
        "  hall open and on the broker in {hall_ms:.0} ms; {} of {} boards connected and greeted by their tables in {:.1} s{}",
        watch.count.load(Ordering::Relaxed),
        s.boards(),
        t.elapsed().as_secs_f64(),
        if all_connected { "" } else { " (TIMED OUT)" }
    );
    thread::sleep(Duration::from_secs(1));

    // The steady phase.
    let e0 = now_us() + 10_000;
    control.from_us.store(e0, Ordering::Relaxed);
    let steady_from = e0 + u64::try_from(SETTLE.as_micros()).unwrap();
    sleep_until_us(steady_from);
    let cpu0 = cpu_by_thread();
    let (machine0, steal0) = machine_busy_seconds();
    let broker_cpu0 = mosquitto_pid(&conf).map_or(0.0, |p| {
        cpu_seconds(&PathBuf::from(format!("/proc/{p}/stat")))
    });
    let hall_cpu0 = hall_pid.map_or(0.0, |p| {
        cpu_seconds(&PathBuf::from(format!("/proc/{p}/stat")))
    });
    let wall0 = wall_ms();
    let load0 = load();
    let steady_to = steady_from + s.seconds * 1_000_000;
    sleep_until_us(steady_to);
    let cpu1 = cpu_by_thread();
    let (machine1, steal1) = machine_busy_seconds();
    let broker_cpu1 = mosquitto_pid(&conf).map_or(0.0, |p| {
        cpu_seconds(&PathBuf::from(format!("/proc/{p}/stat")))
    });
    let hall_cpu1 = hall_pid.map_or(0.0, |p| {
        cpu_seconds(&PathBuf::from(format!("/proc/{p}/stat")))
    });
    let wall1 = wall_ms();
    let load1 = load();
    let hwm_steady = vm_hwm_mib();

    // The fault.
    let overflows0 = listen_overflows();
    let (killed_us, restarted_us) = if s.fault == Fault::None {
        (steady_to, steady_to)
    } else {
        // A second between: the steady phase's last events are in before the fault.
        sleep_until_us(steady_to + 1_000_000);
        let killed = now_us();
        match (&mut hall_run, &cable) {
            (HallRun::Child(c), _) => {
                c.kill();
                keep_journal(&journal_path);
            }
            (_, Some(cable)) => cable.set_cut(true),
            _ => broker.kill(),
        }
        sleep_until_us(killed + u64::try_from(s.fault.lasts().as_micros()).unwrap());
        let restarted = now_us();
        match (&mut hall_run, &cable) {
            (HallRun::Child(c), _) => {
                *c = ChildHall::start(s.tables, &url, &journal_path, &watch, &notices);
            }
            (_, Some(cable)) => cable.set_cut(false),
            _ => {
                // Restarted when it is started again; it listens within milliseconds, but
                // the first connection may wait for the boards' flood of connections.
                broker.restart().unwrap();
                println!(
                    "  (the restarted broker took a connection after {:.3} s)",
                    (now_us() - restarted) as f64 / 1e6
                );
            }
        }
        sleep_until_us(restarted + s.after * 1_000_000);
        (killed, restarted)
    };
    let events_end = now_us();
    let overflows = listen_overflows() - overflows0;
    control.until_us.store(events_end, Ordering::Relaxed);

    // Everything made into the journal (the men still in the air are put back first).
    let drained = wait_for(Duration::from_secs(60), || {
        now_us() > events_end + 1_500_000
            && journaled.load(Ordering::Relaxed) >= control.made.load(Ordering::Relaxed)
    });
    let drained_us = now_us();
    let unacknowledged: usize = transports.iter().map(BoardTransport::unacknowledged).sum();
    control.stop.store(true, Ordering::Relaxed);
    let (logs, board_errors) = driver.join().unwrap();
    let seen = match hall_run {
        HallRun::Here {
            running,
            subscriber,
        } => {
            running.handle.send(HallCommand::Shutdown).unwrap();
            running.join();
            subscriber.join().unwrap()
        }
        HallRun::Child(mut c) => {
            // Everything is in the journal already.
            c.kill();
            Seen {
                broker: notices.lock().unwrap().clone(),
                ..Seen::default()
            }
        }
    };
    poll_stop.store(true, Ordering::Relaxed);
    let polled = poller.join().unwrap();
    // Each transport waits 50 ms as it stops: many at once.
    let mut batches: Vec<Vec<BoardTransport>> = (0..32).map(|_| Vec::new()).collect();
    for (i, t) in transports.into_iter().enumerate() {
        batches[i % 32].push(t);
    }
    thread::scope(|sc| {
        for b in batches {
            sc.spawn(move || drop(b));
        }
    });
    drop(broker);

    // ---- What was made, and where each lift and place was seen.
    let conn = read_only(&journal_path);
    let games: HashMap<i64, usize> = {
        let mut stmt = conn.prepare("SELECT id, name FROM games").unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .unwrap();
        rows.map(|r| r.unwrap())
            .map(|(id, name)| (id, name["net-".len()..].parse::<usize>().unwrap()))
            .collect()
    };
    let mut by_lseq: HashMap<(usize, u16), usize> = HashMap::new();
    let mut by_oseq: HashMap<(u32, u64), usize> = HashMap::new();
    let mut by_link: HashMap<(usize, bool, u8, u32), usize> = HashMap::new();
    let mut events: Vec<(usize, Sent, Arrivals)> = Vec::new();
    for (b, log) in logs.iter().enumerate() {
        for sent in &log.events {
            let i = events.len();
            by_lseq.insert((b, sent.lseq), i);
            by_oseq.insert((board_id(b), sent.oseq), i);
            by_link.insert((b, sent.place, sent.square, sent.board_ms), i);
            events.push((b, *sent, Arrivals::default()));
        }
    }
    let board_of_row = |r: &RowSeen| games.get(&r.game).map(|t| t * 2 + usize::from(!r.white));
    for r in polled.rows.iter().filter(|r| r.kind <= 1) {
        if let Some(&i) = board_of_row(r).and_then(|b| by_lseq.get(&(b, r.board_seq))) {
            events[i].2.journal.get_or_insert(r.at_us);
        }
    }
    for (board, seq, at_us) in &polled.inbox {
        if let Some(&i) = by_oseq.get(&(*board, *seq)) {
            events[i].2.inbox.get_or_insert(*at_us);
        }
    }
    if let Some(tapped) = &tapped {
        tap_stop.store(true, Ordering::Relaxed);
        for (board, seq, at_us) in tapped.lock().unwrap().iter() {
            if let Some(&i) = by_oseq.get(&(*board, *seq)) {
                events[i].2.tap.get_or_insert(*at_us);
            }
        }
    }
    for l in &seen.links {
        if let Some(&i) = by_link.get(&(l.board, l.place, l.square, l.board_ms)) {
            events[i].2.link.get_or_insert(l.at_us);
            if let Some(v) = l.view_us {
                events[i].2.view.get_or_insert(v);
            }
        }
    }

    // ---- The steady phase.
    let seconds = ms(steady_to - steady_from) / 1000.0;
    let mut steady = paths(&events, steady_from, steady_to);
    let frames: u64 = logs.iter().map(|l| l.frames).sum();
    let mut kinds = [0u64; 5];
    for l in &logs {
        for (k, n) in l.kinds.iter().enumerate() {
            kinds[k] += n;
        }
    }
    let journaled_steady = polled
        .rows
        .iter()
        .filter(|r| r.kind <= 1 && r.at_us >= steady_from && r.at_us < steady_to)
        .count();
    let inbox_steady = polled
        .inbox
        .iter()
        .filter(|r| r.2 >= steady_from && r.2 < steady_to)
        .count();
    // Journal rows of the steady phase by kind (by when each row was written).
    let mut row_kinds: BTreeMap<&str, u64> = BTreeMap::new();
    {
        let mut stmt = conn
            .prepare("SELECT line FROM events WHERE wall_ms >= ?1 AND wall_ms < ?2")
            .unwrap();
        let mut rows = stmt.query(params![wall0, wall1]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let line: String = r.get(0).unwrap();
            let kind = match line_kind(&line) {
                Some((_, 0 | 1, _)) => "lifts/places",
                Some((_, 2, _)) => "snapshots",
                Some(_) => "other board inputs",
                None if line.split_whitespace().nth(1) == Some("tick") => "ticks",
                None => "other",
            };
            *row_kinds.entry(kind).or_default() += 1;
        }
    }
    println!("\n-- steady phase: {seconds:.0} s (load average {load0} → {load1})");
    println!(
        "  events made: {} = **{:.1} lifts and places/s** (target {}); journaled in the phase: {:.1}/s; frames of every kind over the whole run: {} (hello {}, snapshot {}, lift/place {}, heartbeat {}, fault {})",
        steady.made,
        steady.made as f64 / seconds,
        s.rate,
        journaled_steady as f64 / seconds,
        frames,
        kinds[0],
        kinds[1],
        kinds[2],
        kinds[3],
        kinds[4]
    );
    println!(
        "  board_inbox: {:.0} frames/s stored; events rows: {}",
        inbox_steady as f64 / seconds,
        row_kinds
            .iter()
            .map(|(k, n)| format!("{k} {:.0}/s", *n as f64 / (wall1 - wall0) as f64 * 1000.0))
            .collect::<Vec<_>>()
            .join(", ")
    );
    print_paths("steady phase", &mut steady);
    let worst = events
        .iter()
        .filter(|(_, s, _)| s.at_us >= steady_from && s.at_us < steady_to)
        .max_by_key(|(_, s, a)| a.journal.map_or(u64::MAX, |j| j - s.at_us));
    if let Some((b, sent, a)) = worst {
        let at = |t: Option<u64>| {
            t.map_or_else(
                || "-".to_owned(),
                |t| format!("{:.1}", ms(t.saturating_sub(sent.at_us))),
            )
        };
        println!(
            "  the latest: board {} (table {}), outbox seq {}, made at {:.3} s: tap {} ms, inbox {} ms, link {} ms, journal {} ms",
            board_id(*b),
            b / 2 + 1,
            sent.oseq,
            ms(sent.at_us) / 1000.0,
            at(a.tap),
            at(a.inbox),
            at(a.link),
            at(a.journal)
        );
    }
    let p99 = quantile(&steady.journal, 0.99);
    for (at, notice) in seen.broker.iter().filter(|(at, _)| *at < killed_us) {
        println!("  hall at {:.3} s: {notice}", ms(*at) / 1000.0);
    }

    // CPU in the steady phase.
    let mut groups: BTreeMap<String, f64> = BTreeMap::new();
    for (name, (after, _)) in &cpu1 {
        let before = cpu0.get(name).map_or(0.0, |c| c.0);
        let group = match name.as_str() {
            "mqtt" => "boards' MQTT connections".to_owned(),
            "boards" => "board logic (driver thread)".to_owned(),
            "cable" => "the boards' cable (a proxy)".to_owned(),
            "hall" => "hall (tables, links, broker client)".to_owned(),
            "journal" => "journal writer".to_owned(),
            "board-intake" => "board intake (inbox)".to_owned(),
            "journal-poll" | "subscriber" => "bench's journal poll + subscriber".to_owned(),
            _ => "other".to_owned(),
        };
        *groups.entry(group).or_default() += after - before;
    }
    let total: f64 = groups.values().sum();
    println!(
        "\n  CPU in the steady phase, % of one core: this process {:.0} % ({}); {}mosquitto {:.0} %; the whole machine {:.0} % of 200 %, so other programs {:.0} % (of which the host's steal {:.1} %)",
        100.0 * total / seconds,
        groups
            .iter()
            .map(|(g, c)| format!("{g} {:.1}", 100.0 * c / seconds))
            .collect::<Vec<_>>()
            .join(", "),
        hall_pid.map_or_else(String::new, |_| format!(
            "the hall's process {:.0} %; ",
            100.0 * (hall_cpu1 - hall_cpu0) / seconds
        )),
        100.0 * (broker_cpu1 - broker_cpu0) / seconds,
        100.0 * (machine1 - machine0) / seconds,
        100.0
            * ((machine1 - machine0)
                - total
                - (broker_cpu1 - broker_cpu0)
                - (hall_cpu1 - hall_cpu0))
            / seconds,
        100.0 * (steal1 - steal0) / seconds
    );
    println!(
        "  memory: VmHWM {hwm_steady:.0} MiB after the steady phase; threads: {}",
        cpu1.iter()
            .map(|(name, (_, n))| format!("{name} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // ---- The outage.
    let mut recovery_line = String::new();
    if s.fault != Fault::None {
        let (what, end) = s.fault.words();
        let outage: Vec<&(usize, Sent, Arrivals)> = events
            .iter()
            .filter(|(_, s, _)| s.at_us >= killed_us && s.at_us <= restarted_us)
            .collect();
        let all_in = |f: fn(&Arrivals) -> Option<u64>| -> Option<u64> {
            outage
                .iter()
                .map(|(_, _, a)| f(a))
                .collect::<Option<Vec<u64>>>()
                .map(|v| v.into_iter().max().unwrap_or(restarted_us))
        };
        let say = |t: Option<u64>| {
            t.map_or_else(
                || "NOT ALL".to_owned(),
                |t| format!("{:.2} s", (t as f64 - restarted_us as f64) / 1e6),
            )
        };
        let journal_all = all_in(|a| a.journal);
        let inbox_all = all_in(|a| a.inbox);
        // (An event made as the fault struck may have gone through before it.)
        let first_back = events
            .iter()
            .filter(|(_, s, _)| s.at_us >= killed_us)
            .filter_map(|(_, _, a)| a.inbox)
            .filter(|at| *at >= restarted_us)
            .min();
        println!(
            "\n-- {what} at {:.3} s, {end} {:.3} s later ({:.2} s into the run)",
            ms(killed_us) / 1000.0,
            ms(restarted_us - killed_us) / 1000.0,
            ms(restarted_us) / 1000.0
        );
        println!(
            "  {} lifts and places made during the outage; after its end the first reached the inbox in {}, all were in the inbox in {} and **all in the journal in {}** (from its start: {})",
            outage.len(),
            say(first_back),
            say(inbox_all),
            say(journal_all),
            journal_all.map_or_else(|| "-".to_owned(), |t| format!("{:.2} s", (t - killed_us) as f64 / 1e6))
        );
        // When the outage's events reached the inbox, and when each board's first frame
        // after the restart did.
        let bins = |times: &mut dyn Iterator<Item = u64>| {
            let mut n = [0usize; 13];
            for t in times {
                let after = t.saturating_sub(restarted_us) / 250_000;
                n[usize::try_from(after).unwrap_or(12).min(12)] += 1;
            }
            n.iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(i, c)| {
                    if i == 12 {
                        format!("later {c}")
                    } else {
                        format!("{:.2}–{:.2} s {c}", i as f64 / 4.0, (i + 1) as f64 / 4.0)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "  outage events into the inbox, by time after its end: {}",
            bins(&mut outage.iter().filter_map(|(_, _, a)| a.inbox))
        );
        let mut first_after: HashMap<u32, u64> = HashMap::new();
        for (board, _, at) in polled.inbox.iter().filter(|r| r.2 >= restarted_us) {
            first_after.entry(*board).or_insert(*at);
        }
        println!(
            "  each board's first frame into the inbox after the outage's end: {}",
            bins(&mut first_after.values().copied())
        );
        println!(
            "  connections refused by a full listen queue on this machine meanwhile (TcpExt ListenOverflows): {overflows}"
        );
        for (at, notice) in seen.broker.iter().filter(|(at, _)| *at >= killed_us) {
            println!(
                "  hall at {:+.3} s from the outage's end: {notice}",
                (*at as f64 - restarted_us as f64) / 1e6
            );
        }
        let second = 1_000_000;
        let mut during = paths(&events, killed_us, restarted_us + 1);
        print_paths("made during the outage", &mut during);
        let mut soon = paths(&events, restarted_us + 1, restarted_us + 5 * second);
        print_paths("made in the 5 s after the outage's end", &mut soon);
        let mut later = paths(&events, restarted_us + 5 * second, events_end);
        print_paths(
            "made from 5 s after the outage's end to the end",
            &mut later,
        );
        recovery_line = format!(
            "recovery ({what}: {end} → every outage event in the journal) {}",
            say(journal_all)
        );
    }

    // ---- Lost and doubled, from the journal itself.
    let mut count: HashMap<(usize, u16), u32> = HashMap::new();
    let mut mismatched = 0u64;
    let mut unknown = 0u64;
    let mut out_of_order = 0u64;
    let mut last_seen: HashMap<usize, u16> = HashMap::new();
    {
        let mut stmt = conn
            .prepare(
                "SELECT game, line, board_seq FROM events
                 WHERE board_seq IS NOT NULL ORDER BY rowid",
            )
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let game: i64 = r.get(0).unwrap();
            let line: String = r.get(1).unwrap();
            let seq: u16 = r.get(2).unwrap();
            let Some((white, kind @ (0 | 1), square)) = line_kind(&line) else {
                continue;
            };
            let b = games[&game] * 2 + usize::from(!white);
            *count.entry((b, seq)).or_default() += 1;
            match by_lseq.get(&(b, seq)) {
                Some(&i) => {
                    let sent = events[i].1;
                    let name = kriegspiel_link::square_name(sent.square);
                    if (kind == 1) != sent.place || square.map(str::as_bytes) != Some(&name[..]) {
                        mismatched += 1;
                    }
                }
                None => unknown += 1,
            }
            if last_seen.insert(b, seq).is_some_and(|prev| prev >= seq) {
                out_of_order += 1;
            }
        }
    }
    let lost = events
        .iter()
        .filter(|(b, s, _)| !count.contains_key(&(*b, s.lseq)))
        .count();
    let doubled: u64 = count
        .values()
        .map(|n| u64::from(n.saturating_sub(1)))
        .sum::<u64>()
        + unknown;
    let mut epochs: HashMap<u32, (u64, u64, u64)> = HashMap::new();
    {
        let mut stmt = conn
            .prepare("SELECT board, COUNT(DISTINCT epoch), COUNT(*), MAX(seq) FROM board_inbox GROUP BY board")
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let (board, e, n, max): (u32, i64, i64, i64) = (
                r.get(0).unwrap(),
                r.get(1).unwrap(),
                r.get(2).unwrap(),
                r.get(3).unwrap(),
            );
            epochs.insert(board, (e as u64, n as u64, max as u64));
        }
    }
    let more_epochs = epochs.values().filter(|(e, _, _)| *e > 1).count();
    let stored: u64 = epochs.values().map(|(_, n, _)| n).sum();
    let holes: u64 = epochs.values().map(|(_, n, max)| max + 1 - n).sum();
    let refused: u64 = logs.iter().map(|l| l.refused).sum();
    println!(
        "\n-- every lift and place made ({}), looked up in the journal: **lost {lost}, doubled {doubled}** (of which {unknown} not made by any board); {mismatched} with another square or kind; {out_of_order} out of the board's order",
        events.len()
    );
    println!(
        "  board_inbox: {stored} frames stored of {frames} written ({unacknowledged} not yet acknowledged when the boards stopped), {holes} holes in the numbering, {more_epochs} boards with more than one epoch; {refused} frames refused by a transport, {board_errors} board errors",
    );
    let size = |suffix: &str| {
        let mut p = journal_path.clone().into_os_string();
        p.push(suffix);
        std::fs::metadata(p).map_or(0, |m| m.len()) as f64 / (1024.0 * 1024.0)
    };
    let run_s = (drained_us - e0) as f64 / 1e6;
    println!(
        "  journal file {:.1} MiB (WAL {:.1} MiB) after {run_s:.0} s of events: {:.0} MiB an hour at this rate; board_inbox keeps every frame (heartbeats and snapshots too): {stored} rows",
        size(""),
        size("-wal"),
        (size("") + size("-wal")) / run_s * 3600.0
    );
    println!(
        "  {} drained into the journal {:.2} s after the events stopped",
        if drained {
            "everything"
        } else {
            "NOT everything"
        },
        (drained_us - events_end) as f64 / 1e6
    );
    println!(
        "  subscriber: {} hall events, {} lost (lagged); link events besides connecting, lifts, places and snapshots: {:?}",
        seen.events, seen.lagged, seen.trouble
    );

    println!(
        "\n== goals: p99 board → journal ≤ {GOAL_P99_MS} ms at {} events/s: {} (p99 {p99:.1} ms at {:.0} events/s); {}; lost {lost}, doubled {doubled}",
        s.rate,
        if p99 <= GOAL_P99_MS { "met" } else { "NOT met" },
        steady.made as f64 / seconds,
        if s.fault == Fault::None { "no outage run".to_owned() } else { recovery_line },
    );
}
