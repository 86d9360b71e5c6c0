//! The hall under load, its journal and its restarts. Prints the figures of
//! docs/PERFORMANCE.md, "The hall". Parts (all by default; name some after `--` to run only
//! those, e.g. `cargo bench -p kriegspiel-tests --bench hall -- journal resume`):
//!
//! - `tables`: 16 tables in one hall process, their 32 boards simulated in a child process
//!   (the real board logic of `kriegspiel-board-core` behind scripted magnets, as in
//!   `kriegspiel_hall::sim`) whose frames cross one pseudo-terminal per board; the hall opens
//!   the other ends as `BoardSource::Serial`. The seven built-in games, repeated to fill 16
//!   tables, staggered by 137 ms, in real time; the keypad commands (promotion choices,
//!   questions) are sent by a thread at their script times. Release → verdict latency: from
//!   the script time of the place that completed the try to the moment a subscriber
//!   receives the `HallEvent::Output` carrying the verdict (both processes read the same
//!   wall clock). Also CPU and memory of the hall process, and every table checked against
//!   its script (verdicts in order, final position). `human` runs the human pace (one
//!   round, about 5 minutes); the default is a brisker pace with the same 300 ms settle
//!   window, two rounds of about 107 s; `rounds=N` sets the rounds.
//! - `journal`: 10,000 `Journal::append` calls on a file on disk (WAL, synchronous=FULL).
//!
//! Journals go to target/tmp (the workspace's disk); `KRIEGSPIEL_BENCH_SCRATCH=/dev/shm`
//! puts them in memory instead, to tell the disk's share from the hall's.
//! - `resume`: a journal holding an unfinished game of 200+ plies, then
//!   `kriegspiel_hall::start` → the resumed table's first `HallEvent::View`.
//! - `demo`: `target/release/kriegspiel demo --fast --no-speech --journal FILE`, wall time
//!   and journaled events.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kriegspiel_boardlink::{LinkEvent, ResyncReason};
use kriegspiel_hall::{
    sim, start, BoardSource, HallCommand, HallEvent, Journal, TableClock, TableSetup, TimeMode,
};
use kriegspiel_referee::shakmaty::{Bitboard, CastlingMode, Color, Position, Role, Square};
use kriegspiel_referee::{GameConfig, Referee, Try, Verdict};
use kriegspiel_table::{BoardInput, Event, Input, Output, PrivateMessage, Table};
use kriegspiel_tests::games::{self, Action, BuiltGame, GameDef, Timing};
use kriegspiel_tests::host::{cpu_seconds, fs_type, load, quantile, scratch_dir};
use kriegspiel_tests::process::ChildGuard;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::broadcast::error::RecvError;

/// The demo's human pace (`kriegspiel demo` without `--fast`).
const HUMAN: Timing = Timing::HUMAN;

/// Brisker hands, the same settle window: more verdicts per minute.
const BRISK: Timing = Timing {
    start_ms: 2500,
    step_ms: 60,
    settle_ms: 300,
    after_verdict_ms: 250,
    react_ms: 400,
    command_ms: 400,
};

const TABLES: usize = 16;
const STAGGER_MS: u64 = 137;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--boards-child") {
        boards_child(pace(&args[1]), args[2].parse().unwrap());
        return;
    }
    let wanted: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let part = |p: &str| {
        wanted.is_empty()
            || wanted.contains(&p)
            || (p == "tables"
                && wanted
                    .iter()
                    .any(|a| *a == "human" || a.starts_with("rounds=")))
    };
    println!(
        "machine: {} cores; profile: {}; load average {}",
        std::thread::available_parallelism().map_or(0, usize::from),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "optimised (bench)"
        },
        load()
    );
    if part("tables") {
        let (name, rounds) = if wanted.contains(&"human") {
            ("human", 1)
        } else {
            ("brisk", 2)
        };
        // `rounds=N` overrides.
        let rounds = wanted
            .iter()
            .find_map(|a| a.strip_prefix("rounds=")?.parse().ok())
            .unwrap_or(rounds);
        tables(name, rounds);
    }
    if part("journal") {
        journal_cost(10_000);
    }
    if part("resume") {
        resume(200);
    }
    if part("demo") {
        demo();
    }
}

fn pace(name: &str) -> Timing {
    match name {
        "human" => HUMAN,
        _ => BRISK,
    }
}

fn unix_ns() -> i128 {
    i128::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    )
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// Part 1: 16 tables over pseudo-terminals

/// One table of the round: its game and how late its scripts start.
#[derive(Debug, Clone)]
struct Planned {
    name: &'static str,
    game: BuiltGame,
    offset_ms: u64,
}

fn plan(timing: Timing, tables: usize) -> Vec<Planned> {
    let built: Vec<(&'static str, BuiltGame)> = games::BUILTIN
        .iter()
        .map(|(name, _)| (*name, games::builtin(name, timing).unwrap()))
        .collect();
    (0..tables)
        .map(|i| {
            let (name, game) = &built[i % built.len()];
            Planned {
                name,
                game: game.clone(),
                offset_ms: i as u64 * STAGGER_MS,
            }
        })
        .collect()
}

fn color_index(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn shifted(p: &Planned, color: Color) -> sim::SimScript {
    let mut s = p.game.script(color).sim_script();
    for a in &mut s.actions {
        a.at += p.offset_ms;
    }
    s
}

/// The child process: 2 × `tables` simulated boards, each behind the master end of a pty
/// pair. Prints `PTY TABLE COLOR PATH` lines and `READY`; on `GO UNIX_NS` starts every
/// board's script at that wall time and prints `STARTED UNIX_NS`; ends when its standard
/// input closes.
fn boards_child(timing: Timing, tables: usize) {
    let plan = plan(timing, tables);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let mut ends = Vec::new();
        for (i, _) in plan.iter().enumerate() {
            for color in Color::ALL {
                let (master, slave) = tokio_serial::SerialStream::pair().unwrap();
                let path = tokio_serial::SerialPort::name(&slave).unwrap();
                println!("PTY {i} {} {path}", color_index(color));
                ends.push((i, color, master, slave));
            }
        }
        println!("READY");
        std::io::stdout().flush().unwrap();
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).unwrap();
        let origin: i128 = line
            .trim()
            .strip_prefix("GO ")
            .and_then(|n| n.parse().ok())
            .expect("GO UNIX_NS");
        let wait = origin - unix_ns();
        if wait > 0 {
            std::thread::sleep(Duration::from_nanos(u64::try_from(wait).unwrap()));
        }
        // Script time 0 of every board is now.
        let clock = TableClock::starting_at(0);
        println!("STARTED {}", unix_ns());
        std::io::stdout().flush().unwrap();
        let mut slaves = Vec::new();
        for (i, color, mut master, slave) in ends {
            let script = Arc::new(shifted(&plan[i], color));
            let mut board = sim::connect(script, games::SIM_BOARD_IDS[color], clock);
            tokio::spawn(async move {
                let _ = tokio::io::copy_bidirectional(&mut board, &mut master).await;
            });
            // Held open so that the master never sees a hang-up.
            slaves.push(slave);
        }
        let _ = tokio::task::spawn_blocking(|| {
            let mut s = String::new();
            while std::io::stdin().read_line(&mut s).is_ok_and(|n| n > 0) {
                s.clear();
            }
        })
        .await;
        drop(slaves);
    });
}

/// What the subscriber saw, stamped with the wall clock when it received it.
#[derive(Debug, Default)]
struct Seen {
    /// (table index, color, square the man was placed on, the try in UCI, wall ns)
    verdicts: Vec<(usize, Color, Square, String, i128)>,
    /// Places as the console's link delivered them: (table index, color, square, wall ns).
    places: Vec<(usize, Color, Square, i128)>,
    ended: Vec<(usize, String)>,
    /// Guidance and reminders (a board out of step with its script), besides promotion prompts.
    privates: Vec<(usize, String, i128)>,
    /// Link events other than lifts, places, snapshots and the first connection.
    link_trouble: Vec<(usize, Color, String, i128)>,
    failed: Vec<String>,
    lagged: u64,
    events: u64,
}

fn subscribe(
    mut events: tokio::sync::broadcast::Receiver<HallEvent>,
    tables: usize,
    done: std::sync::mpsc::Sender<()>,
) -> Seen {
    let mut seen = Seen::default();
    loop {
        let e = match events.blocking_recv() {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                seen.lagged += n;
                continue;
            }
            Err(RecvError::Closed) => break,
        };
        let now = unix_ns();
        seen.events += 1;
        match e {
            HallEvent::Output {
                table,
                output: Output::Verdict { color, tried, .. },
                ..
            } => seen
                .verdicts
                .push((table - 1, color, tried.to, tried.to_uci(), now)),
            HallEvent::Output {
                table,
                output: Output::Private { message, .. },
                ..
            } if !matches!(message, PrivateMessage::PromotionChoice(_)) => {
                seen.privates.push((table - 1, format!("{message:?}"), now));
            }
            HallEvent::Link {
                table,
                color,
                event:
                    event @ (LinkEvent::Disconnected { .. }
                    | LinkEvent::Resync { .. }
                    | LinkEvent::Fault { .. }
                    | LinkEvent::OpenFailed { .. }
                    | LinkEvent::VersionMismatch { .. }),
                ..
            } if !matches!(
                event,
                LinkEvent::Resync {
                    reason: ResyncReason::Connected,
                    ..
                }
            ) =>
            {
                seen.link_trouble
                    .push((table - 1, color, format!("{event:?}"), now));
            }
            HallEvent::Link {
                table,
                color,
                event: LinkEvent::Place { square, .. },
                ..
            } if square < 64 => {
                seen.places
                    .push((table - 1, color, Square::new(u32::from(square)), now));
            }
            HallEvent::Ended {
                table, position, ..
            } => {
                seen.ended
                    .push((table - 1, kriegspiel_hall::fen(&position)));
                if seen.ended.len() == tables {
                    let _ = done.send(());
                }
            }
            HallEvent::Failed { table, error } => seen.failed.push(format!("{table}: {error}")),
            _ => {}
        }
    }
    seen
}

/// The stat file of this process's thread named `name`.
fn thread_stat(name: &str) -> Option<PathBuf> {
    std::fs::read_dir("/proc/self/task").ok()?.find_map(|t| {
        let dir = t.ok()?.path();
        let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
        (comm.trim() == name).then(|| dir.join("stat"))
    })
}

/// VmHWM and VmRSS of this process, in MiB.
fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (kb("VmHWM:"), kb("VmRSS:"))
}

fn describe(label: &str, values: &mut [f64]) {
    values.sort_by(f64::total_cmp);
    println!(
        "  {label}: n {}, min {:.1}, median {:.1}, p99 {:.1}, max {:.1} ms",
        values.len(),
        quantile(values, 0.0),
        quantile(values, 0.5),
        quantile(values, 0.99),
        quantile(values, 1.0)
    );
}

/// Everything a round measured.
#[derive(Debug, Default)]
struct Round {
    /// Script place → subscriber receives the verdict.
    release_to_verdict: Vec<f64>,
    /// Script place → the console's link delivers the place.
    release_to_link: Vec<f64>,
    /// The console's link delivers the place → subscriber receives the verdict.
    link_to_verdict: Vec<f64>,
    unmatched: usize,
    seconds: f64,
    cpu: f64,
    hall_cpu: f64,
    boards_cpu: f64,
    hwm: f64,
    rss: f64,
    journal_events: u64,
    journal_bytes: u64,
}

fn tables(pace_name: &str, rounds: usize) {
    let timing = pace(pace_name);
    let planned = plan(timing, TABLES);
    println!(
        "\n== {TABLES} tables, {} boards over pseudo-terminals, {pace_name} pace {timing:?}",
        TABLES * 2
    );
    for (name, _) in games::BUILTIN {
        let p = planned.iter().find(|p| p.name == name).unwrap();
        println!(
            "  {name}: {} plies, {} tries, {:.0} s",
            p.game.def.plies.len(),
            tries(&p.game),
            p.game.duration_ms as f64 / 1000.0
        );
    }
    let mut all = Round::default();
    for round in 1..=rounds {
        let r = tables_round(pace_name, timing, round);
        all.release_to_verdict.extend(r.release_to_verdict);
        all.release_to_link.extend(r.release_to_link);
        all.link_to_verdict.extend(r.link_to_verdict);
        all.unmatched += r.unmatched;
        all.seconds += r.seconds;
        all.cpu += r.cpu;
    }
    println!(
        "all rounds: {:.0} s, hall process CPU {:.1} % of one core, {} verdicts not matched to a place",
        all.seconds,
        100.0 * all.cpu / all.seconds,
        all.unmatched
    );
    describe("release -> verdict", &mut all.release_to_verdict);
    describe("release -> link place", &mut all.release_to_link);
    describe("link place -> verdict", &mut all.link_to_verdict);
    let over = |limit: f64| {
        all.release_to_verdict
            .iter()
            .filter(|v| **v > limit)
            .count()
    };
    println!(
        "  verdicts later than settle + 10 ms after the release: {} of {}; later than settle + 20 ms: {}",
        over(timing.settle_ms as f64 + 10.0),
        all.release_to_verdict.len(),
        over(timing.settle_ms as f64 + 20.0)
    );
    let late_link = all
        .link_to_verdict
        .iter()
        .filter(|v| **v > timing.settle_ms as f64 + 10.0)
        .count();
    println!(
        "  verdicts later than settle + 10 ms after the console's place: {late_link} of {}",
        all.link_to_verdict.len()
    );
}

/// The tries of the script in order, in UCI (as `Try::to_uci` writes them).
fn expected_tries(game: &BuiltGame) -> Vec<String> {
    game.expected
        .iter()
        .filter_map(|v| v.get("try").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

fn tries(game: &BuiltGame) -> usize {
    game.expected
        .iter()
        .filter(|v| v.get("try").is_some())
        .count()
}

fn tables_round(pace_name: &str, timing: Timing, round: usize) -> Round {
    let planned = plan(timing, TABLES);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--boards-child", pace_name, &TABLES.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let child_pid = child.id();
    let mut child_in = child.stdin.take().unwrap();
    let mut child_out = BufReader::new(child.stdout.take().unwrap()).lines();
    let child = ChildGuard(child);
    let mut ports = vec![[PathBuf::new(), PathBuf::new()]; TABLES];
    for line in child_out.by_ref() {
        let line = line.unwrap();
        if line == "READY" {
            break;
        }
        let f: Vec<&str> = line.splitn(4, ' ').collect();
        assert_eq!(f[0], "PTY", "{line}");
        ports[f[1].parse::<usize>().unwrap()][f[2].parse::<usize>().unwrap()] = f[3].into();
    }

    let dir = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap();
    let journal_path = dir.path().join("hall.sqlite");
    let specs = planned
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut spec = p
                .game
                .table_spec(&format!("t{:02}-{}", i + 1, p.name), &timing);
            spec.white = BoardSource::Serial(ports[i][0].clone());
            spec.black = BoardSource::Serial(ports[i][1].clone());
            // Sent from the keypad thread below, at wall times.
            spec.scripted.clear();
            spec.resume = kriegspiel_hall::Resume::New;
            spec
        })
        .collect();
    let cpu0 = cpu_seconds(Path::new("/proc/self/stat"));
    let boards_cpu0 = cpu_seconds(&PathBuf::from(format!("/proc/{child_pid}/stat")));
    let t0 = Instant::now();
    let running = start(
        Journal::open(&journal_path).unwrap(),
        specs,
        TimeMode::Real,
        Vec::new(),
    )
    .unwrap();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let events = running.events;
    let subscriber = std::thread::spawn(move || subscribe(events, TABLES, done_tx));

    // The boards start in 300 ms (the hall has opened its ports by then).
    writeln!(child_in, "GO {}", unix_ns() + 300_000_000).unwrap();
    let origin: i128 = child_out
        .next()
        .unwrap()
        .unwrap()
        .strip_prefix("STARTED ")
        .unwrap()
        .parse()
        .unwrap();
    let wall = |p: &Planned, at: u64| origin + i128::from(at + p.offset_ms) * 1_000_000;

    // The players' keypads.
    let mut commands: Vec<(i128, usize, Input)> = planned
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            p.game
                .commands
                .iter()
                .map(move |c| (wall(p, c.at_ms), i + 1, c.input.clone()))
        })
        .collect();
    commands.sort_by_key(|c| c.0);
    let keypad = {
        let handle = running.handle.clone();
        std::thread::spawn(move || {
            for (at, table, input) in commands {
                let wait = at - unix_ns();
                if wait > 0 {
                    std::thread::sleep(Duration::from_nanos(u64::try_from(wait).unwrap()));
                }
                if handle.input(table, input).is_err() {
                    return;
                }
            }
        })
    };

    let longest = planned
        .iter()
        .map(|p| p.game.duration_ms + p.offset_ms)
        .max()
        .unwrap();
    let limit = Duration::from_millis(longest + 30_000);
    let finished = done_rx.recv_timeout(limit).is_ok();
    let seconds = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(Path::new("/proc/self/stat")) - cpu0;
    let hall_cpu = thread_stat("hall").map_or(f64::NAN, |p| cpu_seconds(&p));
    let boards_cpu = cpu_seconds(&PathBuf::from(format!("/proc/{child_pid}/stat"))) - boards_cpu0;
    let (hwm, rss) = memory_mib();
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
    keypad.join().unwrap();
    drop(running.handle);
    let seen = subscriber.join().unwrap();
    drop(child_in);
    drop(child);

    let journal = Journal::open(&journal_path).unwrap();
    let journal_events: u64 = journal
        .games()
        .unwrap()
        .iter()
        .map(|g| journal.event_count(g.id).unwrap())
        .sum();
    // What the journal holds, by kind of input.
    let mut kinds = std::collections::BTreeMap::<&str, u64>::new();
    for g in journal.games().unwrap() {
        for e in journal.events(g.id).events {
            let kind = match e.event.input {
                Input::Board { input, .. } => match input {
                    BoardInput::Lift(_) | BoardInput::Place(_) => "lift/place",
                    BoardInput::Snapshot(_) => "snapshot",
                    _ => "connect",
                },
                Input::Tick => "tick",
                _ => "keypad/other",
            };
            *kinds.entry(kind).or_default() += 1;
        }
    }
    drop(journal);
    let journal_bytes = std::fs::metadata(&journal_path).map_or(0, |m| m.len());

    // Each verdict against the script's place of that try: the last place of that man on
    // that square at least 250 ms before the verdict (the verdict cannot come sooner than
    // the settle window after it).
    let mut r = Round {
        seconds,
        cpu,
        hall_cpu,
        boards_cpu,
        hwm,
        rss,
        journal_events,
        journal_bytes,
        ..Round::default()
    };
    let bound = |v: i128| v - 250_000_000;
    // Only verdicts on tries of the script count (a table out of step with its boards says
    // so below).
    let mut on_script = [0; TABLES];
    let mut off_script = 0;
    for (t, color, sq, uci, at) in &seen.verdicts {
        let (t, color, sq, at) = (*t, *color, *sq, *at);
        let p = &planned[t];
        let expected = expected_tries(&p.game);
        if expected.get(on_script[t]) != Some(uci) {
            off_script += 1;
            continue;
        }
        on_script[t] += 1;
        let release = p
            .game
            .script(color)
            .actions
            .iter()
            .filter(|(_, a, s)| *a == Action::Place && *s == sq)
            .map(|(ms, _, _)| wall(p, *ms))
            .filter(|w| *w <= bound(at))
            .max();
        let link = seen
            .places
            .iter()
            .filter(|(lt, lc, ls, w)| *lt == t && *lc == color && *ls == sq && *w <= bound(at))
            .map(|x| x.3)
            .max();
        match release {
            Some(release) => {
                r.release_to_verdict.push((at - release) as f64 / 1e6);
                if let Some(link) = link {
                    r.release_to_link.push((link - release) as f64 / 1e6);
                    r.link_to_verdict.push((at - link) as f64 / 1e6);
                }
            }
            None => r.unmatched += 1,
        }
    }

    let expected_verdicts: usize = planned.iter().map(|p| tries(&p.game)).sum();
    let right_ends = seen
        .ended
        .iter()
        .filter(|(t, fen)| *fen == planned[*t].game.final_fen)
        .count();
    println!(
        "round {round}: {} s (load average at the end {}), {} of {TABLES} games ended on their final position{}; {} verdicts (expected {expected_verdicts}), {} unmatched; {} hall events, {} lost by the subscriber",
        seconds.round(),
        load(),
        right_ends,
        if finished { "" } else { " (TIMED OUT)" },
        seen.verdicts.len(),
        r.unmatched,
        seen.events,
        seen.lagged
    );
    if !seen.failed.is_empty() {
        println!("  tables failed: {:?}", seen.failed);
    }
    let since = |w: i128| format!("{:.3} s", (w - origin) as f64 / 1e9);
    println!(
        "  {off_script} verdicts off the script, {} private messages (guidance, reminders), {} link events besides connecting, lifts, places and snapshots",
        seen.privates.len(),
        seen.link_trouble.len()
    );
    for (t, p) in planned.iter().enumerate() {
        let expected = expected_tries(&p.game);
        let got: Vec<&(usize, Color, Square, String, i128)> =
            seen.verdicts.iter().filter(|v| v.0 == t).collect();
        let Some(k) = (0..expected.len().max(got.len()))
            .find(|&k| expected.get(k) != got.get(k).map(|v| &v.3))
        else {
            continue;
        };
        println!(
            "  table {} ({}): verdict {k} was {:?} at {}, the script's try is {:?}; last verdict at {}",
            t + 1,
            p.name,
            got.get(k).map(|v| &v.3),
            got.get(k).map_or_else(|| "-".to_owned(), |v| since(v.4)),
            expected.get(k),
            got.last().map_or_else(|| "-".to_owned(), |v| since(v.4)),
        );
        for (_, m, w) in seen.privates.iter().filter(|x| x.0 == t).take(4) {
            println!("    private at {}: {m}", since(*w));
        }
        for (_, c, m, w) in seen.link_trouble.iter().filter(|x| x.0 == t).take(4) {
            println!("    link {c:?} at {}: {m}", since(*w));
        }
    }
    for (t, c, m, w) in seen.link_trouble.iter().take(8) {
        println!(
            "  link trouble: table {} {c:?} at {}: {m}",
            t + 1,
            since(*w)
        );
    }
    println!(
        "  hall process CPU {:.1} s = {:.1} % of one core (the hall thread {:.1} s = {:.1} %); boards process {:.1} %",
        r.cpu,
        100.0 * r.cpu / seconds,
        r.hall_cpu,
        100.0 * r.hall_cpu / seconds,
        100.0 * r.boards_cpu / seconds
    );
    println!(
        "  hall process memory: VmHWM {:.1} MiB, VmRSS {:.1} MiB at the end",
        r.hwm, r.rss
    );
    println!(
        "  journal: {} events = {:.0} events/s, {:.1} MiB",
        r.journal_events,
        r.journal_events as f64 / seconds,
        r.journal_bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  journal by kind: {}",
        kinds
            .iter()
            .map(|(k, n)| format!("{k} {n} ({:.0}/s)", *n as f64 / seconds))
            .collect::<Vec<_>>()
            .join(", ")
    );
    describe("release -> verdict", &mut r.release_to_verdict.clone());
    describe("release -> link place", &mut r.release_to_link.clone());
    describe("link place -> verdict", &mut r.link_to_verdict.clone());
    r
}

// ---------------------------------------------------------------------------------------
// Part 2: the journal's cost per event

fn journal_cost(n: usize) {
    let dir = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap();
    println!(
        "\n== journal: {n} appends to {} ({}), load average {}",
        dir.path().display(),
        fs_type(dir.path()),
        load()
    );
    // The disk's own cost of a durable write, for comparison: appending (the file grows, so
    // the file system commits its metadata too) and overwriting in place (as SQLite does
    // with its WAL once a checkpoint has reset it).
    let mut f = std::fs::File::create(dir.path().join("raw")).unwrap();
    let raw: u32 = 500;
    let t = Instant::now();
    for _ in 0..raw {
        f.write_all(&[0u8; 64]).unwrap();
        f.sync_data().unwrap();
    }
    let grow_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(raw);
    let t = Instant::now();
    for k in 0..raw {
        std::os::unix::fs::FileExt::write_all_at(&f, &[1u8; 64], u64::from(k % 8) * 64).unwrap();
        f.sync_data().unwrap();
    }
    let overwrite_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(raw);
    println!(
        "  this disk: write 64 B + fdatasync {grow_us:.0} µs when the file grows, {overwrite_us:.0} µs in place"
    );

    let mut journal = Journal::open(&dir.path().join("journal.sqlite")).unwrap();
    let game = journal
        .new_game("bench", &TableSetup::default(), 0)
        .unwrap();
    let mut each = Vec::with_capacity(n);
    let t = Instant::now();
    for k in 0..n {
        // What a table journals: lifts, places, snapshots and ticks.
        let (input, board_ms) = match k % 4 {
            0 => (
                Input::Board {
                    color: Color::White,
                    input: BoardInput::Lift(Square::E2),
                },
                Some(k as u32 * 10),
            ),
            1 => (
                Input::Board {
                    color: Color::White,
                    input: BoardInput::Place(Square::E4),
                },
                Some(k as u32 * 10),
            ),
            2 => (
                Input::Board {
                    color: Color::Black,
                    input: BoardInput::Snapshot(Bitboard(0xFFFF_0000_0000_0000)),
                },
                Some(k as u32 * 10),
            ),
            _ => (Input::Tick, None),
        };
        let event = Event::new(k as u64 * 10, input);
        let one = Instant::now();
        journal
            .append(
                game,
                k as i64 + 1,
                &event,
                kriegspiel_hall::Stamp {
                    wall_ms: 1_700_000_000_000,
                    board_ms,
                    board_seq: None,
                    net: None,
                },
            )
            .unwrap();
        each.push(one.elapsed().as_secs_f64() * 1e6);
    }
    let total = t.elapsed().as_secs_f64();
    each.sort_by(f64::total_cmp);
    println!(
        "  {:.0} µs per event (median {:.0}, p99 {:.0}, max {:.0} µs), {:.0} events/s, {} events read back",
        total * 1e6 / n as f64,
        quantile(&each, 0.5),
        quantile(&each, 0.99),
        quantile(&each, 1.0),
        n as f64 / total,
        journal.event_count(game).unwrap()
    );
}

// ---------------------------------------------------------------------------------------
// Part 3: resuming a long game

/// A random legal game of Cincinnati that ends by itself after `min_plies` or more
/// (queens for promotions: a board cannot show another piece without a keypad choice).
fn long_game(min_plies: usize) -> (GameDef, u64) {
    for seed in 1.. {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut referee = Referee::new(&GameConfig::default()).unwrap();
        let mut plies = Vec::new();
        while referee.end().is_none() && plies.len() < 600 {
            let moves: Vec<_> = referee
                .position()
                .legal_moves()
                .into_iter()
                .filter(|m| m.promotion().is_none_or(|r| r == Role::Queen))
                .collect();
            let m = &moves[rng.gen_range(0..moves.len())];
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            let squares = &uci[..4];
            let verdict = referee.try_move(Try::from_uci(squares).unwrap()).unwrap();
            assert!(matches!(verdict, Verdict::Moved(_)), "{squares}");
            plies.push(vec![squares.to_owned()]);
        }
        if referee.end().is_some() && plies.len() >= min_plies {
            let def = GameDef {
                name: format!("random game {seed}"),
                rules: "cincinnati".to_owned(),
                options: Default::default(),
                fen: None,
                lang: None,
                plies,
            };
            return (def, seed);
        }
    }
    unreachable!()
}

fn resume(plies: usize) {
    let (def, seed) = long_game(plies + 60);
    let total_plies = def.plies.len();
    let game = games::build(def, HUMAN).unwrap();
    let dir = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap();
    let base = dir.path().join("long.sqlite");
    let spec = game.table_spec("long", &HUMAN);

    // Play it in simulated time up to `plies` moves, then stop the hall.
    let running = start(
        Journal::open(&base).unwrap(),
        vec![spec.clone()],
        TimeMode::Simulated,
        Vec::new(),
    )
    .unwrap();
    let mut events = running.events;
    let mut moved = 0;
    while moved < plies {
        match events.blocking_recv() {
            Ok(HallEvent::Output {
                output:
                    Output::Verdict {
                        verdict: Verdict::Moved(_),
                        ..
                    },
                ..
            }) => moved += 1,
            Ok(HallEvent::Ended { .. }) => panic!("the game ended before {plies} plies"),
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => panic!("the hall stopped"),
        }
    }
    running.handle.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();

    // What the journal holds: replay it.
    let journal = Journal::open(&base).unwrap();
    let g = journal.games().unwrap().pop().unwrap();
    let stored = journal.events(g.id);
    assert!(stored.damage.is_none());
    let (mut table, _) = Table::new(g.setup.config().unwrap(), 0).unwrap();
    let t = Instant::now();
    let played = stored
        .events
        .iter()
        .flat_map(|e| table.apply(e.event.clone()))
        .filter(|o| {
            matches!(
                o,
                Output::Verdict {
                    verdict: Verdict::Moved(_),
                    ..
                }
            )
        })
        .count();
    let replay_ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(!table.is_over());
    drop(journal);
    println!(
        "\n== resume: a random Cincinnati game (seed {seed}, {total_plies} plies) at the human pace in simulated time, stopped after {played} plies = {} journaled events; replaying them into a table alone: {replay_ms:.1} ms",
        stored.events.len()
    );

    let mut open_ms = Vec::new();
    let mut view_ms = Vec::new();
    let mut total_ms = Vec::new();
    for k in 0..10 {
        let copy = dir.path().join(format!("resume-{k}.sqlite"));
        std::fs::copy(&base, &copy).unwrap();
        let t0 = Instant::now();
        let journal = Journal::open(&copy).unwrap();
        let t1 = Instant::now();
        let running = start(journal, vec![spec.clone()], TimeMode::Real, Vec::new()).unwrap();
        let mut events = running.events;
        let mut resumed = None;
        loop {
            match events.blocking_recv().unwrap() {
                HallEvent::Opened { resumed_events, .. } => resumed = Some(resumed_events),
                HallEvent::View(v) if v.table == 1 => break,
                _ => {}
            }
        }
        let t2 = Instant::now();
        assert_eq!(resumed, Some(stored.events.len()));
        running.handle.send(HallCommand::Shutdown).unwrap();
        running.thread.join().unwrap();
        open_ms.push((t1 - t0).as_secs_f64() * 1e3);
        view_ms.push((t2 - t1).as_secs_f64() * 1e3);
        total_ms.push((t2 - t0).as_secs_f64() * 1e3);
    }
    println!("  10 restarts, each on a fresh copy of the journal:");
    describe("Journal::open", &mut open_ms);
    describe("start() -> first View of the resumed table", &mut view_ms);
    describe("both", &mut total_ms);

    // For comparison: a new game on the same journal set-up.
    let mut new_ms = Vec::new();
    for k in 0..10 {
        let path = dir.path().join(format!("new-{k}.sqlite"));
        let journal = Journal::open(&path).unwrap();
        let t0 = Instant::now();
        let running = start(journal, vec![spec.clone()], TimeMode::Real, Vec::new()).unwrap();
        let mut events = running.events;
        while !matches!(events.blocking_recv().unwrap(), HallEvent::View(_)) {}
        new_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        running.handle.send(HallCommand::Shutdown).unwrap();
        running.thread.join().unwrap();
    }
    describe("start() -> first View, a new game (no replay)", &mut new_ms);
}

// ---------------------------------------------------------------------------------------
// Part 4: the fast demo

fn demo() {
    let root = kriegspiel_tests::link_util::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let built = Command::new(cargo)
        .current_dir(&root)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "kriegspiel",
            "--bin",
            "kriegspiel",
        ])
        .status()
        .is_ok_and(|s| s.success());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let bin = target.join("release").join("kriegspiel");
    if !built {
        println!("\n== demo: cannot build {} (skipped)", bin.display());
        return;
    }
    println!(
        "\n== demo: {} demo [RULES] --fast --no-speech --journal FILE",
        bin.display()
    );
    let dir = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))).unwrap();
    let runs = 5;
    for (rules, _) in games::BUILTIN {
        let mut ms = Vec::new();
        let mut events = 0;
        for k in 0..runs {
            let journal = dir.path().join(format!("demo-{rules}-{k}.sqlite"));
            let t = Instant::now();
            let status = Command::new(&bin)
                .args(["demo", rules, "--fast", "--no-speech", "--journal"])
                .arg(&journal)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            match status {
                Ok(s) if s.success() => {}
                other => {
                    println!("  {rules}: the demo failed ({other:?}); skipped");
                    return;
                }
            }
            let j = Journal::open(&journal).unwrap();
            events = j
                .games()
                .unwrap()
                .iter()
                .map(|g| j.event_count(g.id).unwrap())
                .sum::<u64>();
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "  {rules}: {events} journaled events; wall median {:.0} ms (min {:.0}, max {:.0}) over {runs} runs = {:.0} µs per event",
            quantile(&ms, 0.5),
            quantile(&ms, 0.0),
            quantile(&ms, 1.0),
            quantile(&ms, 0.5) * 1e3 / events as f64
        );
    }
}
