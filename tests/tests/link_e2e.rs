#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The board link end to end: the real board program (`kriegspiel-board simulate`) -> pty ->
//! relay (optionally injecting faults and unplugging the cable) -> pty -> the console's
//! `BoardLink`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kriegspiel_boardlink::{BoardLink, DisconnectReason, LinkConfig, LinkEvent, Report};
use kriegspiel_tests::link_util::{cargo_bin, check_reports, Script};
use kriegspiel_tests::process::ChildGuard;
use kriegspiel_tests::relay::{FaultPlan, Relay};
use tokio::time::Instant;

/// Reports collected in the background, for waiting on conditions.
#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<Report>>>);

impl Collected {
    fn start(mut rx: tokio::sync::mpsc::Receiver<Report>) -> Collected {
        let collected = Collected::default();
        let sink = Arc::clone(&collected.0);
        tokio::spawn(async move {
            while let Some(report) = rx.recv().await {
                sink.lock().unwrap().push(report);
            }
        });
        collected
    }

    fn snapshot(&self) -> Vec<Report> {
        self.0.lock().unwrap().clone()
    }

    fn count(&self, pred: impl Fn(&LinkEvent) -> bool) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|r| pred(&r.event))
            .count()
    }

    async fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&[Report]) -> bool) {
        let deadline = Instant::now() + timeout;
        loop {
            if pred(&self.0.lock().unwrap()) {
                return;
            }
            if Instant::now() > deadline {
                let reports = self.snapshot();
                let tail: Vec<_> = reports.iter().rev().take(8).collect();
                panic!("timed out waiting for {what}; last reports (newest first): {tail:#?}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The board program scans every millisecond and reports changes seen in one scan in square order,
/// so these tests run one at a time to keep its scans on time on a 2-core machine.
/// An async mutex: the guard is held across the test's awaits, and a failed test (a panic
/// while holding it) does not poison it for the others.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    let guard = SERIAL.lock().await;
    // Build (or find) the board program now, before any test opens a link: a build while a
    // link waits for its board would look like a silent cable.
    cargo_bin("kriegspiel-board", "kriegspiel-board");
    guard
}

fn moves_delivered(reports: &[Report]) -> usize {
    reports
        .iter()
        .filter(|r| matches!(r.event, LinkEvent::Lift { .. } | LinkEvent::Place { .. }))
        .count()
}

fn is_connected(event: &LinkEvent) -> bool {
    matches!(event, LinkEvent::Connected { .. })
}

/// Ended (killed) when dropped, however the test ends.
struct BoardProgram(ChildGuard);

impl BoardProgram {
    fn start(dir: &Path, script: &Script, port: &Path) -> BoardProgram {
        let script_path = dir.join("script.txt");
        std::fs::write(&script_path, script.to_text()).unwrap();
        let child = Command::new(cargo_bin("kriegspiel-board", "kriegspiel-board"))
            .arg("simulate")
            .arg("--script")
            .arg(&script_path)
            .arg("--port")
            .arg(port)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start kriegspiel-board");
        BoardProgram(ChildGuard(child))
    }

    /// Waits for the program to end by itself (it does after its last move).
    async fn finish(mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.0 .0.try_wait().unwrap() {
                assert!(status.success(), "kriegspiel-board failed: {status}");
                return;
            }
            assert!(Instant::now() < deadline, "kriegspiel-board did not finish");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_moves_arrive_complete_and_in_order() {
    let _serial = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let script = Script::random(260, 1, 300, 8, 4).with_tail(300);
    assert!(script.moves.len() >= 520);
    let relay = Relay::start(dir.path(), None).unwrap();
    let (link, rx) = BoardLink::spawn(&relay.console_path, LinkConfig::default());
    let collected = Collected::start(rx);
    let board = BoardProgram::start(dir.path(), &script, &relay.board_path);

    collected
        .wait_for("every scripted move", Duration::from_secs(20), |r| {
            moves_delivered(r) == script.moves.len()
        })
        .await;
    board.finish().await;

    let reports = collected.snapshot();
    let checked = check_reports(&script, &reports).unwrap();
    assert_eq!(checked.delivered, script.moves.len());
    let moves: Vec<(bool, u8)> = reports
        .iter()
        .filter_map(|r| match r.event {
            LinkEvent::Lift { square, .. } => Some((false, square)),
            LinkEvent::Place { square, .. } => Some((true, square)),
            _ => None,
        })
        .collect();
    let expected: Vec<(bool, u8)> = script.moves.iter().map(|m| (m.place, m.square)).collect();
    assert_eq!(moves, expected);
    // A clean line: one resync (the first snapshot), no losses, nothing counted as bad.
    let health = link.health();
    assert_eq!(checked.resyncs, 1, "{health:?}");
    assert_eq!(
        (
            health.bad_frames(),
            health.gaps,
            health.duplicates,
            health.mismatches,
            health.disconnects
        ),
        (0, 0, 0, 0, 0)
    );
    let relay_stats = relay.stats();
    assert_eq!(
        relay_stats.forwarded,
        relay_stats.frames_from_board - relay_stats.lost_before_first_contact
    );
    assert_eq!(
        health.frames, relay_stats.forwarded,
        "every forwarded frame was accepted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_and_ten_unplugs_are_detected_counted_and_repaired() {
    let _serial = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    // ~13 s of moves (the ten unplug cycles take ~7 s, more when a hang-up is only noticed
    // by the 1.5 s silence rule), then, after the faults are switched off, a last move pair
    // 3 s later whose frames, and the snapshots before them, reveal any loss at the end.
    let main = Script::random(260, 2, 400, 24, 8);
    let last_main_ms = main.moves.last().unwrap().at_ms;
    let script = main.with_tail(3000);
    let faults = FaultPlan {
        corrupt: 0.10,
        drop: 0.02,
        duplicate: 0.02,
        seed: 7,
    };
    let relay = Relay::start(dir.path(), Some(faults)).unwrap();
    let (link, rx) = BoardLink::spawn(&relay.console_path, LinkConfig::default());
    let collected = Collected::start(rx);
    let board = BoardProgram::start(dir.path(), &script, &relay.board_path);
    let started = Instant::now();
    collected
        .wait_for("the first connection", Duration::from_secs(10), |r| {
            r.iter().any(|r| is_connected(&r.event))
        })
        .await;
    // A serial board's stream has a progress, as a networked board's has: a table waits
    // for bytes not read yet.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let progress = link.progress().unwrap();
    assert!(
        progress.through.is_some() && !progress.stopped,
        "{progress:?}"
    );

    // Counted from before each unplug: a hang-up the reader misses is caught by the 1.5 s
    // silence rule instead, which may take a little longer on a loaded machine.
    let disconnects = |r: &[Report]| {
        r.iter()
            .filter(|r| matches!(r.event, LinkEvent::Disconnected { .. }))
            .count()
    };
    let connects = |r: &[Report]| r.iter().filter(|r| is_connected(&r.event)).count();
    for _cycle in 0..10 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (gone, back) = {
            let r = collected.snapshot();
            (disconnects(&r), connects(&r))
        };
        relay.unplug(Duration::from_millis(30)).await;
        collected
            .wait_for("the unplug to be noticed", Duration::from_secs(5), |r| {
                disconnects(r) > gone
            })
            .await;
        tokio::time::sleep(Duration::from_millis(60)).await;
        // The port is gone with whatever it held: nothing is on its way, no table waits.
        assert!(link.progress().unwrap().stopped);
        relay.replug();
        collected
            .wait_for("the reconnection", Duration::from_secs(5), |r| {
                connects(r) > back
            })
            .await;
        assert!(!link.progress().unwrap().stopped);
    }
    let fault_window = Duration::from_millis(u64::from(last_main_ms) + 100);
    tokio::time::sleep_until(started + fault_window).await;
    relay.set_faults(None);
    assert!(
        started.elapsed() < Duration::from_millis(u64::from(last_main_ms) + 2000),
        "the unplug cycles ran into the clean tail of the script; the machine is too slow for this test's timeline"
    );

    collected
        .wait_for("the final scripted moves", Duration::from_secs(15), |r| {
            let checked = check_reports(&script, r);
            checked.is_ok()
        })
        .await;
    board.finish().await;

    let reports = collected.snapshot();
    let checked = check_reports(&script, &reports).unwrap();
    let health = link.health();
    let stats = relay.stats();
    eprintln!("relay: {stats:?}\nlink: {health:?}\nchecked: {checked:?}");
    let byte_rate = stats.corrupted_bytes as f64 / stats.forwarded_bytes as f64;
    assert!(
        (0.004..0.02).contains(&byte_rate),
        "corrupted byte rate {byte_rate}"
    );
    assert!(
        stats.corrupted > 10 && stats.dropped > 0 && stats.duplicated > 0,
        "{stats:?}"
    );

    // Every injected fault is accounted for by the link's counters.
    assert_eq!(
        health.bad_frames(),
        stats.corrupted,
        "each damaged frame is one bad frame"
    );
    assert_eq!(health.duplicates, stats.duplicated);
    assert_eq!(
        health.missed_frames,
        stats.dropped + stats.corrupted + stats.lost_unplugged
    );
    let disconnects: Vec<_> = reports
        .iter()
        .filter_map(|r| match &r.event {
            LinkEvent::Disconnected { reason } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        (health.disconnects, health.reconnects, stats.unplugs),
        (10, 10, 10),
        "{disconnects:?}"
    );
    // A pulled cable is normally seen at once as end of file / I/O error; the 1.5 s silence
    // rule is the backstop when the pty hang-up is not signalled to the reader, which
    // happens now and then (more often on a loaded machine; cause not yet found). Every
    // unplug is detected either way (the counts above); most must be seen at once.
    let hangups = disconnects
        .iter()
        .filter(|r| matches!(r, DisconnectReason::Io { .. } | DisconnectReason::Closed))
        .count();
    assert!(hangups >= 6, "{disconnects:?}");
    assert_eq!(
        health.mismatches, 0,
        "losses are found by sequence numbers, not by luck"
    );
    // Losses were repaired by resyncs, and moves still arrived live between the faults
    // (the cable is out for roughly half of the run).
    assert!(checked.resyncs >= 11, "{checked:?}");
    assert!(checked.delivered > script.moves.len() / 10, "{checked:?}");
    assert_eq!(
        collected.count(|e| matches!(e, LinkEvent::Resync { .. })),
        checked.resyncs
    );
    assert_eq!(health.resyncs as usize, checked.resyncs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_cable_is_declared_unplugged_and_recovered() {
    let _serial = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let script = Script::random(20, 3, 300, 40, 10).with_tail(4500);
    let relay = Relay::start(dir.path(), None).unwrap();
    let (link, rx) = BoardLink::spawn(&relay.console_path, LinkConfig::default());
    let collected = Collected::start(rx);
    let board = BoardProgram::start(dir.path(), &script, &relay.board_path);
    collected
        .wait_for(
            "the scripted moves before the silence",
            Duration::from_secs(10),
            |r| moves_delivered(r) == 40,
        )
        .await;

    // A slow start on a loaded machine may already have cost one silence: count from here.
    let silences = |r: &[Report]| {
        r.iter()
            .filter(|r| {
                matches!(
                    r.event,
                    LinkEvent::Disconnected {
                        reason: DisconnectReason::Silence { .. }
                    }
                )
            })
            .count()
    };
    let before = silences(&collected.snapshot());
    relay.set_silent(true);
    let silent_at = Instant::now();
    collected
        .wait_for("the silence to be noticed", Duration::from_secs(5), |r| {
            silences(r) > before
        })
        .await;
    let noticed = silent_at.elapsed();
    assert!(
        noticed >= Duration::from_millis(1000),
        "declared gone after only {noticed:?}"
    );
    // The exact 1.5 s rule is unit-tested with a passed-in clock; here: about 1.5 s after the last frame
    // plus a scheduling margin.
    assert!(
        noticed < Duration::from_millis(3500),
        "declared gone only after {noticed:?}"
    );
    // One disconnect for the whole silence, not one every 1.5 s while it lasts.
    assert_eq!(silences(&collected.snapshot()) - before, 1);
    relay.set_silent(false);

    collected
        .wait_for(
            "every scripted move or its resync",
            Duration::from_secs(10),
            |r| check_reports(&script, r).is_ok(),
        )
        .await;
    board.finish().await;
    let health = link.health();
    let reports = collected.snapshot();
    let disconnect_events = reports
        .iter()
        .filter(|r| matches!(r.event, LinkEvent::Disconnected { .. }))
        .count();
    assert_eq!(health.disconnects as usize, disconnect_events);
    assert!(disconnect_events > before);
    assert!(collected.count(is_connected) >= 2);
}

/// A console held up reads a serial board's bytes late, all at once: the table must not
/// judge a try whose settle window ended while the board's next lift and place (made within
/// the window) waited unread. Here the relay holds White's frames back for 1.15 s after he
/// puts his pawn on e4; meanwhile he took it up again and put it on e3: the try is e2e3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_waits_for_a_serial_boards_bytes_read_late() {
    use kriegspiel_tests::link_util::Move;
    use std::io::BufRead;
    let _serial = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let (white_dir, black_dir) = (dir.path().join("white"), dir.path().join("black"));
    std::fs::create_dir(&white_dir).unwrap();
    std::fs::create_dir(&black_dir).unwrap();
    let white = Relay::start(&white_dir, None).unwrap();
    let black = Relay::start(&black_dir, None).unwrap();
    let (e2, e3, e4) = (12, 20, 28);
    // Held past the settle window (800 ms), within the link's silence timeout (1.5 s).
    white.delay_after_place(e4, Duration::from_millis(1150));
    let table = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "--settle-ms", "800", "--no-speech", "--journal"])
        .arg(dir.path().join("journal.sqlite"))
        .arg("--white")
        .arg(&white.console_path)
        .arg("--black")
        .arg(&black.console_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut table = ChildGuard(table);
    let (tx, lines) = std::sync::mpsc::channel();
    let out = std::io::BufReader::new(table.0.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let at = |at_ms, place, square| Move {
        at_ms,
        place,
        square,
    };
    // Each board program exits after its last move: the last, far off, keeps it on.
    let white_script = Script {
        initial: 0xFFFF,
        moves: vec![
            at(3000, false, e2),
            at(3100, true, e4),
            at(3500, false, e4),
            at(3600, true, e3),
            at(60_000, false, 0),
            at(60_100, true, 0),
        ],
    };
    let black_script = Script {
        initial: 0xFFFF << 48,
        moves: vec![at(60_000, false, 63), at(60_100, true, 63)],
    };
    let _white_board = BoardProgram::start(&white_dir, &white_script, &white.board_path);
    let _black_board = BoardProgram::start(&black_dir, &black_script, &black.board_path);
    let mut seen = Vec::new();
    let verdict = loop {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no verdict; lines: {seen:#?}"));
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        if value.get("try").is_some() {
            break value;
        }
        seen.push(value);
    };
    assert_eq!(verdict["color"], "white", "{verdict}");
    assert_eq!(verdict["try"], "e2e3", "{verdict}; before: {seen:#?}");
    // Late, not gone: the link never took White's board for silent.
    assert!(
        !seen.iter().any(|l| l["event"] == "disconnected"),
        "{seen:#?}"
    );
}
