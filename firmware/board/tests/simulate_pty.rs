//! `kriegspiel-board simulate` over a real pseudo-terminal pair made by socat: frames are
//! read at the far end with kriegspiel-link's Decoder, as the console would.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_link::{
    encode, BoardMsg, ConsoleMsg, Decoder, Frame, SeqCheck, SeqTracker, MAX_FRAME, PROTOCOL_VERSION,
};

const BIN: &str = env!("CARGO_BIN_EXE_kriegspiel-board");

/// A socat pty pair, killed on drop.
struct PtyPair {
    socat: Child,
    a: PathBuf,
    b: PathBuf,
    _dir: tempfile::TempDir,
}

impl PtyPair {
    fn new() -> PtyPair {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("board");
        let b = dir.path().join("console");
        let socat = Command::new("socat")
            .arg(format!("pty,raw,echo=0,link={}", a.display()))
            .arg(format!("pty,raw,echo=0,link={}", b.display()))
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("socat is needed for the pty tests (apt-get install socat): {e}")
            });
        let deadline = Instant::now() + Duration::from_secs(5);
        while !(a.exists() && b.exists()) {
            assert!(Instant::now() < deadline, "socat did not create its ptys");
            std::thread::sleep(Duration::from_millis(10));
        }
        PtyPair {
            socat,
            a,
            b,
            _dir: dir,
        }
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        let _ = self.socat.kill();
        let _ = self.socat.wait();
    }
}

/// Frames arriving at the console end, with their arrival time.
fn frame_reader(
    path: &Path,
    t0: Instant,
) -> (std::fs::File, mpsc::Receiver<(Duration, Frame<BoardMsg>)>) {
    let port = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut reader = port.try_clone().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut decoder = Decoder::<BoardMsg>::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            let at = t0.elapsed();
            let mut stop = false;
            decoder.feed(&buf[..n], |f| {
                stop |= tx
                    .send((at, f.expect("a clean pty never damages a frame")))
                    .is_err()
            });
            if stop {
                break;
            }
        }
    });
    (port, rx)
}

fn send(port: &mut std::fs::File, seq: u16, body: ConsoleMsg) {
    let mut buf = [0u8; MAX_FRAME];
    let n = encode(&Frame { seq, body }, &mut buf).unwrap();
    port.write_all(&buf[..n]).unwrap();
}

fn write_script(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("script.txt");
    std::fs::write(&path, text).unwrap();
    path
}

const WHITE: u64 = 0xFFFF;
const E2: u8 = 12;
const E4: u8 = 28;
const G1: u8 = 6;
const F3: u8 = 21;

#[test]
fn simulate_sends_hello_snapshot_events_in_order_periodic_snapshots_and_answers_requests() {
    let pty = PtyPair::new();
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(
        dir.path(),
        "# 1.e4 then 2.Nf3 on White's board\noccupied white\n400 lift e2\n650 place e4\n\n1500 lift g1\n1750 place f3\n",
    );
    let t0 = Instant::now();
    let (mut console, frames) = frame_reader(&pty.b, t0);
    let mut child = Command::new(BIN)
        .args(["simulate", "--board-id", "7", "--port"])
        .arg(&pty.a)
        .arg("--script")
        .arg(&script)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();

    let mut got: Vec<(Duration, Frame<BoardMsg>)> = Vec::new();
    let mut requested_at: Option<Duration> = None;
    let mut snapshots_seen = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            // Drain what is still in flight.
            while let Ok(f) = frames.recv_timeout(Duration::from_millis(200)) {
                got.push(f);
            }
            break status;
        }
        assert!(Instant::now() < deadline, "simulate did not finish");
        if let Ok((at, frame)) = frames.recv_timeout(Duration::from_millis(20)) {
            if matches!(frame.body, BoardMsg::Snapshot { .. }) {
                snapshots_seen += 1;
                if snapshots_seen == 3 && requested_at.is_none() {
                    // Asked 100 ms after a periodic snapshot: the next periodic one is
                    // 450 ms after it in board time.
                    std::thread::sleep(Duration::from_millis(100));
                    requested_at = Some(t0.elapsed());
                    send(&mut console, 0, ConsoleMsg::RequestSnapshot);
                }
            }
            got.push((at, frame));
        }
    };
    assert!(status.success(), "{status:?}");

    // Sequence numbers run 0, 1, 2, ... without a gap.
    let mut seq = SeqTracker::new();
    for (i, (_, f)) in got.iter().enumerate() {
        let check = seq.check(f.seq);
        assert!(
            matches!(check, SeqCheck::First | SeqCheck::InOrder),
            "frame {i}: {check:?}"
        );
        assert_eq!(f.seq as usize, i);
    }
    let bodies: Vec<BoardMsg> = got.iter().map(|(_, f)| f.body).collect();
    assert_eq!(
        bodies[0],
        BoardMsg::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: [0, 1, 0],
            board_id: 7
        }
    );
    assert!(
        matches!(bodies[1], BoardMsg::Snapshot { occupancy: WHITE, board_ms } if board_ms < 200),
        "{:?}",
        bodies[1]
    );

    // Every move, in order, stamped close to the script's times.
    let events: Vec<(u8, bool, u32)> = bodies
        .iter()
        .filter_map(|m| match *m {
            BoardMsg::Lift { square, board_ms } => Some((square, false, board_ms)),
            BoardMsg::Place { square, board_ms } => Some((square, true, board_ms)),
            _ => None,
        })
        .collect();
    let expected = [
        (E2, false, 400),
        (E4, true, 650),
        (G1, false, 1500),
        (F3, true, 1750),
    ];
    assert_eq!(events.len(), expected.len(), "{events:?}");
    for ((sq, placed, ms), (want_sq, want_placed, want_ms)) in events.iter().zip(expected) {
        assert_eq!((*sq, *placed), (want_sq, want_placed));
        assert!(
            (want_ms..want_ms + 100).contains(ms),
            "{sq}: board time {ms}, script time {want_ms}"
        );
    }

    // Snapshots every 450 ms of board time, each matching the moves so far. The bound leaves
    // room for a loaded machine holding the loop up, far below the script's 1,800 ms.
    let snapshots: Vec<(Duration, u64, u32)> = got
        .iter()
        .filter_map(|(at, f)| match f.body {
            BoardMsg::Snapshot {
                occupancy,
                board_ms,
            } => Some((*at, occupancy, board_ms)),
            _ => None,
        })
        .collect();
    for pair in snapshots.windows(2) {
        assert!(
            pair[1].2 - pair[0].2 <= 600,
            "snapshots {} ms apart",
            pair[1].2 - pair[0].2
        );
    }
    let after_e4 = (WHITE & !(1 << E2)) | (1 << E4);
    let after_nf3 = (after_e4 & !(1 << G1)) | (1 << F3);
    for &(_, occ, ms) in &snapshots {
        let want = match ms {
            0..=399 => WHITE,
            700..=1499 => after_e4,
            1800.. => after_nf3,
            _ => occ, // around a move either side is right
        };
        assert_eq!(occ, want, "snapshot at {ms} ms");
    }
    let last = *bodies.last().unwrap();
    assert!(
        matches!(last, BoardMsg::Snapshot { occupancy, .. } if occupancy == after_nf3),
        "{last:?}"
    );

    // The RequestSnapshot was answered: judged in board time, a snapshot after the third
    // and before the next periodic one (450 ms after it) can only be the answer.
    let asked = requested_at.expect("the third snapshot arrived");
    let third = snapshots[2].2;
    assert!(
        snapshots
            .iter()
            .any(|&(at, _, ms)| at >= asked && ms > third && ms < third + 440),
        "no answer to the request at {asked:?} before the periodic snapshot after {third} ms: {snapshots:?}"
    );
}

#[test]
fn simulate_answers_hello_and_ping() {
    let pty = PtyPair::new();
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "occupied black\n900 lift e7\n");
    let t0 = Instant::now();
    let (mut console, frames) = frame_reader(&pty.b, t0);
    let mut child = Command::new(BIN)
        .args(["simulate", "--port"])
        .arg(&pty.a)
        .arg("--script")
        .arg(&script)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the board's own Hello + Snapshot, then greet it as a console reconnecting.
    let first: Vec<BoardMsg> = (0..2)
        .map(|_| frames.recv_timeout(Duration::from_secs(5)).unwrap().1.body)
        .collect();
    assert!(matches!(first[0], BoardMsg::Hello { board_id: 1, .. }));
    std::thread::sleep(Duration::from_millis(50));
    send(
        &mut console,
        0,
        ConsoleMsg::Hello {
            protocol: PROTOCOL_VERSION,
        },
    );
    send(&mut console, 1, ConsoleMsg::Ping { nonce: 42 });
    let mut answers = Vec::new();
    while answers.len() < 3 {
        let (_, f) = frames.recv_timeout(Duration::from_secs(2)).unwrap();
        if !matches!(f.body, BoardMsg::Heartbeat { .. }) || !answers.is_empty() {
            answers.push(f.body);
        }
    }
    assert!(
        matches!(
            answers[0],
            BoardMsg::Hello {
                protocol: PROTOCOL_VERSION,
                board_id: 1,
                ..
            }
        ),
        "{answers:?}"
    );
    assert!(
        matches!(
            answers[1],
            BoardMsg::Snapshot {
                occupancy: 0xFFFF_0000_0000_0000,
                ..
            }
        ),
        "{answers:?}"
    );
    assert!(
        matches!(answers[2], BoardMsg::Heartbeat { .. }),
        "{answers:?}"
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_bad_script_line_is_named_exits_2_and_sends_nothing() {
    let pty = PtyPair::new();
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "occupied white\n100 lift e2\n\n200 plaec e4\n");
    let (_console, frames) = frame_reader(&pty.b, Instant::now());
    let out = Command::new(BIN)
        .args(["simulate", "--port"])
        .arg(&pty.a)
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("script line 4: unknown action 'plaec' (expected lift or place)"),
        "{stderr}"
    );
    assert!(
        frames.recv_timeout(Duration::from_millis(300)).is_err(),
        "a frame was sent"
    );
}

#[test]
fn a_missing_port_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "100 place e2\n");
    let out = Command::new(BIN)
        .args(["simulate", "--port", "/nonexistent/tty", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot open serial port /nonexistent/tty"),
        "{stderr}"
    );
}

#[test]
fn a_file_or_a_folder_given_as_the_port_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "100 place e2\n");
    for (port, says) in [
        (script.clone(), "it is a regular file, not a serial port"),
        (
            dir.path().to_path_buf(),
            "it is a folder, not a serial port",
        ),
    ] {
        let out = Command::new(BIN)
            .args(["simulate", "--port"])
            .arg(&port)
            .arg("--script")
            .arg(&script)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }
}

/// Runs `simulate` on `script` over a fresh pty pair, draining the console end; returns
/// its output.
fn simulate_output(script_text: &[u8], extra: &[&str]) -> std::process::Output {
    let pty = PtyPair::new();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.txt");
    std::fs::write(&script, script_text).unwrap();
    let (_console, _frames) = frame_reader(&pty.b, Instant::now());
    let mut child = Command::new(BIN)
        .args(["simulate", "--port"])
        .arg(&pty.a)
        .arg("--script")
        .arg(&script)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("simulate did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn simulate_prints_each_lift_and_place_it_sends_and_a_summary() {
    // A script saved by an editor that writes a byte-order mark.
    let out = simulate_output(
        b"\xEF\xBB\xBFoccupied white\n100 lift e2\n300 place e4\n",
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let time_of = |line: &str, prefix: &str| -> u32 {
        let ms = line
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(" ms"))
            .unwrap_or_else(|| panic!("{line:?} is not '{prefix}N ms'"));
        ms.parse().unwrap()
    };
    assert!(
        (100..200).contains(&time_of(lines[0], "lift e2 at ")),
        "{stdout}"
    );
    assert!(
        (300..400).contains(&time_of(lines[1], "place e4 at ")),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("sent 1 lift, 1 place, 1 hello, "),
        "{stdout}"
    );
    assert!(lines[2].ends_with(" ms"), "{stdout}");
}

#[test]
fn simulate_quiet_prints_nothing() {
    let out = simulate_output(b"occupied white\n100 lift e2\n", &["--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// `--from-event N`: a board rebooted mid-game starts with the men where the script's first
/// N events left them and sends only the rest.
#[test]
fn simulate_from_an_event_sends_only_the_rest_from_where_the_men_stand() {
    let out = simulate_output(
        b"occupied white\n100 lift e2\n200 place e4\n300 lift g1\n400 place f3\n",
        &["--from-event", "2"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let moves: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split(" at ").next())
        .filter(|l| !l.starts_with("sent "))
        .collect();
    assert_eq!(moves, ["lift g1", "place f3"], "{stdout}");
}
