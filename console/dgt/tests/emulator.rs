//! The driver against `kriegspiel-board dgt-emulate` over a real pseudo-terminal: the
//! emulator is a program of its own, made from the protocol's description independently of
//! the driver, and it owns its pseudo-terminal so that an unplug is a real hang-up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use kriegspiel_dgt::{DgtBoard, DgtEvent, DgtHandle, DgtOptions, DgtPort, LostReason, Report};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// Builds the board program once per test process.
fn board_program() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let output = Command::new(cargo)
                .current_dir(workspace_root())
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "kriegspiel-board",
                    "--bin",
                    "kriegspiel-board",
                ])
                .output()
                .expect("cargo runs");
            assert!(
                output.status.success(),
                "building kriegspiel-board failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| workspace_root().join("target"), PathBuf::from);
            target.join("debug").join("kriegspiel-board")
        })
        .clone()
}

/// A running emulator, killed on drop; its output lines with the time they came.
struct Emulator {
    child: Child,
    lines: mpsc::Receiver<(Instant, String)>,
    seen: Vec<(Instant, String)>,
    port: PathBuf,
    _dir: tempfile::TempDir,
}

impl Emulator {
    fn start(script: &str, args: &[&str]) -> Emulator {
        let dir = tempfile::tempdir().unwrap();
        let script_path = dir.path().join("board.txt");
        std::fs::write(&script_path, script).unwrap();
        let port = dir.path().join("dgt");
        let mut child = Command::new(board_program())
            .arg("dgt-emulate")
            .arg("--script")
            .arg(&script_path)
            .arg("--port")
            .arg(&port)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        while !port.exists() {
            assert!(Instant::now() < deadline, "the emulator made no port");
            std::thread::sleep(Duration::from_millis(5));
        }
        Emulator {
            child,
            lines,
            seen: Vec::new(),
            port,
            _dir: dir,
        }
    }

    /// When the emulator said a line starting with `prefix`.
    fn said(&mut self, prefix: &str) -> Option<Instant> {
        self.seen.extend(self.lines.try_iter());
        self.seen
            .iter()
            .find(|(_, l)| l.starts_with(prefix))
            .map(|&(at, _)| at)
    }

    fn transcript(&mut self) -> String {
        self.seen.extend(self.lines.try_iter());
        self.seen
            .iter()
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reports of `for_` time, each with the moment it was received.
async fn collect(
    reports: &mut tokio::sync::mpsc::Receiver<Report>,
    for_: Duration,
) -> Vec<(Instant, Report)> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + for_;
    while let Ok(Some(report)) = tokio::time::timeout_at(deadline, reports.recv()).await {
        out.push((Instant::now(), report));
    }
    out
}

fn open(emulator: &Emulator) -> (DgtHandle, tokio::sync::mpsc::Receiver<Report>) {
    DgtBoard::open(DgtPort::Path(emulator.port.clone()), DgtOptions::default())
}

/// Each event in short: `connected 12345`, a position's FEN board, `lost closed`, ...
fn summary(reports: &[(Instant, Report)]) -> Vec<String> {
    reports
        .iter()
        .map(|(_, r)| match &r.event {
            DgtEvent::Connected(id) => format!("connected {}", id.key()),
            DgtEvent::Back(id) => format!("back {}", id.key()),
            DgtEvent::Position(p) => p.to_string(),
            DgtEvent::Lost(reason) => format!("lost {}", reason.name()),
            DgtEvent::Waiting(why) => format!("waiting: {why}"),
        })
        .collect()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
const E4_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
const E4_E5_NF3: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";

/// Moves made within one scan (225 ms apart from time 0), so the board reports each
/// move's two fields together, in field order: e4 (field 36) before e2 (52) clears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_move_gives_exactly_one_settled_position_though_its_updates_come_out_of_order() {
    let mut emulator = Emulator::start(
        "occupied start\n\
         1500 lift e2\n1550 place e4\n\
         2500 lift e7\n2550 place e5\n\
         3500 lift g1\n3550 place f3\n",
        &["--serial", "3000147740"],
    );
    let (handle, mut reports) = open(&emulator);
    let got = collect(&mut reports, Duration::from_millis(4600)).await;
    let transcript = emulator.transcript();
    assert_eq!(
        summary(&got),
        ["connected 3000147740", START, E4, E4_E5, E4_E5_NF3],
        "{transcript}"
    );
    // Paced commands never overflow the board's ten-byte input buffer.
    assert!(!transcript.contains("input overflow"), "{transcript}");
    assert!(transcript.contains("mode update_board"), "{transcript}");
    // The board did report the move's new square before its old one.
    let e4 = transcript.find("update e4 P").unwrap();
    let e2 = transcript.find("update e2 .").unwrap();
    assert!(e4 < e2, "{transcript}");
    let DgtEvent::Connected(id) = &got[0].1.event else {
        panic!()
    };
    assert_eq!((id.serial.as_str(), id.version), ("47740", (1, 2)));
    let counters = handle.counters();
    assert!(counters.field_updates >= 6, "{counters:?}");
    assert_eq!(counters.lost, 0);
    // The raw log holds the exchange, the handshake first.
    let raw = handle.raw_log();
    assert_eq!(raw[0].bytes, [0x40]);
    assert!(raw.iter().any(|e| e.bytes.starts_with(&[0x93, 0x00, 0x05])));
}

/// A man placed off-centre flickers for four scans: one position all the same. The board
/// here scans every 150 ms, so that jitter on a loaded machine cannot stretch a scan
/// beyond the 250 ms settle time (a real board's 225 ms leave 25 ms).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flickering_man_changes_nothing() {
    let mut emulator = Emulator::start(
        "occupied start\n1500 lift g1\n1520 place f3\n1700 flicker f3 4\n",
        &["--scan-ms", "150"],
    );
    let (_handle, mut reports) = open(&emulator);
    let got = collect(&mut reports, Duration::from_millis(3000)).await;
    let transcript = emulator.transcript();
    assert_eq!(
        summary(&got),
        [
            "connected 12345",
            START,
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
        ],
        "{transcript}"
    );
    assert!(
        transcript.matches("update f3 .").count() >= 2,
        "{transcript}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_a_truncated_frame_and_a_move_log_change_nothing() {
    let mut emulator = Emulator::start(
        "occupied start\n\
         1200 garbage 64\n1400 truncated\n1600 eeprom\n1800 garbage 16\n\
         2500 lift e2\n2550 place e4\n",
        &[],
    );
    let (handle, mut reports) = open(&emulator);
    let got = collect(&mut reports, Duration::from_millis(3500)).await;
    assert_eq!(
        summary(&got),
        ["connected 12345", START, E4],
        "{}",
        emulator.transcript()
    );
    let c = handle.counters();
    assert_eq!(c.ee_moves, 1, "{c:?}");
    assert!(c.truncated >= 1 && c.stray_bytes > 0, "{c:?}");
    assert_eq!(c.lost, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unplug_is_reported_within_two_seconds_and_a_replug_brings_the_board_back() {
    let mut emulator = Emulator::start(
        "occupied start\n\
         1500 lift e2\n1550 place e4\n\
         2500 unplug\n\
         2800 lift e7\n2850 place e5   # played while the cable is out\n\
         4000 replug\n\
         6000 unplug\n6500 replug 54321\n",
        &[],
    );
    let (_handle, mut reports) = open(&emulator);
    let got = collect(&mut reports, Duration::from_millis(9500)).await;
    let transcript = emulator.transcript();
    let events = summary(&got);
    let expected_start = ["connected 12345", START, E4, "lost closed"];
    assert_eq!(events[..4], expected_start, "{transcript}");
    // While unplugged the driver waits for the port; then the same board, the move made
    // meanwhile; then another board on the same cable.
    let rest: Vec<&String> = events[4..]
        .iter()
        .filter(|e| !e.starts_with("waiting"))
        .collect();
    assert_eq!(
        rest,
        ["back 12345", E4_E5, "lost closed", "back 54321", E4_E5],
        "{events:?}\n{transcript}"
    );
    for (unplug, nth) in [("unplug at", 0), ("unplug at", 1)] {
        let said: Vec<Instant> = emulator
            .seen
            .iter()
            .filter(|(_, l)| l.starts_with(unplug))
            .map(|&(at, _)| at)
            .collect();
        let lost: Vec<Instant> = got
            .iter()
            .filter(|(_, r)| matches!(r.event, DgtEvent::Lost(_)))
            .map(|&(at, _)| at)
            .collect();
        let delay = lost[nth].duration_since(said[nth]);
        assert!(delay < Duration::from_secs(2), "lost after {delay:?}");
    }
    assert!(emulator.said("replug 54321").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_board_is_lost_then_back_when_it_answers_again() {
    let mut emulator = Emulator::start("occupied start\n1500 silence 3500\n", &[]);
    let (_handle, mut reports) = open(&emulator);
    let got = collect(&mut reports, Duration::from_millis(7000)).await;
    let events = summary(&got);
    let transcript = emulator.transcript();
    let kept: Vec<&String> = events
        .iter()
        .filter(|e| !e.starts_with("waiting"))
        .collect();
    assert_eq!(
        kept,
        ["connected 12345", START, "lost silent", "back 12345", START],
        "{transcript}"
    );
    let lost = got
        .iter()
        .find(|(_, r)| matches!(r.event, DgtEvent::Lost(LostReason::Silent { .. })))
        .map(|&(at, _)| at)
        .unwrap();
    let silent = emulator.said("silence").unwrap();
    assert!(
        lost.duration_since(silent) < Duration::from_secs(3),
        "{transcript}"
    );
}

/// `dgt:auto`'s test of a port: a DGT board answers the version request, a silent port
/// (a pseudo-terminal with nothing behind it) does not, within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probe_tells_a_dgt_board_from_a_silent_port() {
    let emulator = Emulator::start("occupied start\n", &[]);
    let mut port = kriegspiel_dgt::open_port(&emulator.port).unwrap();
    assert!(kriegspiel_dgt::probe(&mut port).await);

    let (_master, slave) = tokio_serial::SerialStream::pair().unwrap();
    let path = PathBuf::from(tokio_serial::SerialPort::name(&slave).unwrap());
    let mut port = kriegspiel_dgt::open_port(&path).unwrap();
    let started = Instant::now();
    assert!(!kriegspiel_dgt::probe(&mut port).await);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_millis(1500),
        "{waited:?}"
    );
}

/// A board turned round (field 0 is h1), White's: the driver tells it from White's king
/// and rooks, reports squares the right way round, and remembers it by serial number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_board_is_oriented_from_its_owners_men_and_remembered() {
    let mut emulator = Emulator::start(
        "occupied white g6=n\n1500 lift e2\n1550 place e4\n",
        &["--rotated", "--serial", "24680"],
    );
    let orientations = kriegspiel_dgt::Orientations::default();
    let (_handle, mut reports) = DgtBoard::open(
        DgtPort::Path(emulator.port.clone()),
        DgtOptions {
            owner: Some(shakmaty::Color::White),
            orientations: orientations.clone(),
            ..DgtOptions::default()
        },
    );
    let got = collect(&mut reports, Duration::from_millis(2200)).await;
    assert_eq!(
        summary(&got),
        [
            "connected 24680",
            "8/8/6n1/8/8/8/PPPPPPPP/RNBQKBNR",
            "8/8/6n1/8/4P3/8/PPPP1PPP/RNBQKBNR"
        ],
        "{}",
        emulator.transcript()
    );
    let DgtEvent::Position(p) = &got[2].1.event else {
        panic!()
    };
    assert!(p.orientation_known());
    assert_eq!(
        orientations.get("24680"),
        Some(kriegspiel_dgt::Orientation::Rotated)
    );
}

/// A Bluetooth board (a long serial number, scans at half speed, 450 ms) driven with the
/// Bluetooth timing (500 ms settle). The move falls within one scan: one a scan apart would
/// leave only 50 ms for jitter, a margin this test does not rely on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bluetooth_board_at_half_speed_gives_one_position_per_move() {
    let mut emulator = Emulator::start(
        "occupied start\n1500 lift g1\n1600 place f3\n",
        &["--bluetooth", "--serial", "3000213579"],
    );
    let (_handle, mut reports) = DgtBoard::open(
        DgtPort::Path(emulator.port.clone()),
        DgtOptions {
            link: Some(kriegspiel_dgt::LinkKind::Bluetooth),
            ..DgtOptions::default()
        },
    );
    let got = collect(&mut reports, Duration::from_millis(3200)).await;
    let transcript = emulator.transcript();
    assert_eq!(
        summary(&got),
        [
            "connected 3000213579",
            START,
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
        ],
        "{transcript}"
    );
    // The board scanned at 450 ms: its updates came at 1800 ms.
    assert!(transcript.contains("update f3 N at 18"), "{transcript}");
}
