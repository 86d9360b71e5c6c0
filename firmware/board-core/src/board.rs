use core::ops::RangeInclusive;

use kriegspiel_link::{
    check_version, encode, BoardMs, BoardMsg, ConsoleMsg, Decoder, FaultCode, Frame, SeqCounter,
    MAX_FRAME, PROTOCOL_VERSION,
};
use reed_matrix::{Debouncer, Occupancy, Scanner, SwitchEvent};

use crate::FIRMWARE_VERSION;

/// A snapshot goes out at least this often; below the protocol's 500 ms so that scan
/// jitter never makes the console wait longer than promised.
pub const SNAPSHOT_EVERY_MS: u32 = 450;
/// A heartbeat goes out when nothing else was sent for this long.
pub const HEARTBEAT_AFTER_MS: u32 = 200;
/// Accepted `debounce_scans` in a Configure command.
pub const DEBOUNCE_SCANS_RANGE: RangeInclusive<u8> = 1..=16;
/// Accepted `scan_hz` in a Configure: docs/OVER-THE-BOARD.md §2 asks for 200 Hz or more; above
/// 2 kHz a 10 µs settle per row no longer fits comfortably.
pub const SCAN_HZ_RANGE: RangeInclusive<u16> = 200..=2000;

/// Where encoded frames go: the serial line to the console.
pub trait FrameWriter {
    type Error: core::fmt::Debug;
    /// Writes one whole encoded frame.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;
}

/// Settings of one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardConfig {
    /// Identifies the board to the console (which player it belongs to).
    pub board_id: u32,
    /// Identical scans needed before a switch change counts.
    pub debounce_scans: u8,
    /// Scans per second; the caller reads [`Board::scan_period_us`] to pace `tick`.
    pub scan_hz: u16,
}

impl Default for BoardConfig {
    /// 5 scans at 1 kHz: a change is accepted 4–5 ms after it happens. A reed switch
    /// bounces for well under a millisecond, so 4 ms of agreement is ample (keyberon's
    /// choice for key switches), and the debounce is most of a try's latency to the console.
    fn default() -> Self {
        BoardConfig {
            board_id: 0,
            debounce_scans: 5,
            scan_hz: 1000,
        }
    }
}

/// The one error of this crate: the frame could not be handed to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardError<W> {
    /// The writer failed; the frame is lost and the console will see a sequence gap.
    Write(W),
    /// A frame did not fit [`MAX_FRAME`] (cannot happen with the current messages).
    Encode(kriegspiel_link::Error),
}

impl<W: core::fmt::Display> core::fmt::Display for BoardError<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BoardError::Write(e) => write!(f, "cannot send a frame to the console: {e}"),
            BoardError::Encode(e) => write!(f, "cannot encode a frame: {e}"),
        }
    }
}

impl<W: core::fmt::Debug + core::fmt::Display> core::error::Error for BoardError<W> {}

/// Counters for diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub frames_sent: u32,
    pub scans: u32,
    pub scan_errors: u32,
    pub bad_frames_received: u32,
    pub bad_commands: u32,
}

/// The board: scan → debounce → Lift/Place, snapshots, heartbeats, console commands.
#[derive(Debug)]
pub struct Board<S, W> {
    scanner: S,
    writer: W,
    config: BoardConfig,
    /// `None` until the first good scan, which seeds it (a board powers up with men on it).
    debouncer: Option<Debouncer>,
    seq: SeqCounter,
    decoder: Decoder<ConsoleMsg>,
    hello_pending: bool,
    snapshot_pending: bool,
    last_sent_ms: Option<BoardMs>,
    last_snapshot_ms: Option<BoardMs>,
    /// Set while scans fail: the time of the last ScanError fault sent.
    scan_failing_since_fault: Option<BoardMs>,
    stats: Stats,
}

impl<S: Scanner, W: FrameWriter> Board<S, W> {
    /// A board that announces itself (Hello + Snapshot) on its first good tick. An
    /// out-of-range `config` is clamped into [`DEBOUNCE_SCANS_RANGE`] / [`SCAN_HZ_RANGE`].
    pub fn new(scanner: S, writer: W, config: BoardConfig) -> Self {
        let config = BoardConfig {
            board_id: config.board_id,
            debounce_scans: config
                .debounce_scans
                .clamp(*DEBOUNCE_SCANS_RANGE.start(), *DEBOUNCE_SCANS_RANGE.end()),
            scan_hz: config
                .scan_hz
                .clamp(*SCAN_HZ_RANGE.start(), *SCAN_HZ_RANGE.end()),
        };
        Board {
            scanner,
            writer,
            config,
            debouncer: None,
            seq: SeqCounter::new(),
            decoder: Decoder::new(),
            hello_pending: true,
            snapshot_pending: true,
            last_sent_ms: None,
            last_snapshot_ms: None,
            scan_failing_since_fault: None,
            stats: Stats::default(),
        }
    }

    /// Gives the scanner and the writer back.
    pub fn into_parts(self) -> (S, W) {
        (self.scanner, self.writer)
    }

    /// The settings in force (after Configure commands).
    pub fn config(&self) -> BoardConfig {
        self.config
    }

    /// Time between two ticks at the configured scan rate.
    pub fn scan_period_us(&self) -> u32 {
        1_000_000 / u32::from(self.config.scan_hz.max(1))
    }

    /// The debounced occupancy, once a scan succeeded.
    pub fn occupancy(&self) -> Option<Occupancy> {
        self.debouncer.as_ref().map(Debouncer::stable)
    }

    /// Diagnostics counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The scanner, e.g. to inspect simulated pins.
    pub fn scanner(&self) -> &S {
        &self.scanner
    }

    /// One scan period: scan, debounce, send events, then whatever is due (Hello,
    /// Snapshot, Heartbeat, Fault). `now_ms` is the board clock; it may wrap.
    pub fn tick(&mut self, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        self.stats.scans = self.stats.scans.wrapping_add(1);
        if self.hello_pending {
            self.send_hello(now_ms)?;
        }
        match self.scanner.scan() {
            Ok(raw) => {
                if self.scan_failing_since_fault.take().is_some() {
                    // Switches may have changed unseen: tell the console the whole truth.
                    self.snapshot_pending = true;
                }
                self.debounce(raw, now_ms)?;
            }
            Err(_) => {
                self.stats.scan_errors = self.stats.scan_errors.wrapping_add(1);
                let due = match self.scan_failing_since_fault {
                    None => true,
                    Some(at) => now_ms.wrapping_sub(at) >= SNAPSHOT_EVERY_MS,
                };
                if due {
                    self.send(
                        BoardMsg::Fault {
                            code: FaultCode::ScanError,
                            board_ms: now_ms,
                        },
                        now_ms,
                    )?;
                    self.scan_failing_since_fault = Some(now_ms);
                }
            }
        }
        let snapshot_due = match self.last_snapshot_ms {
            None => true,
            Some(at) => now_ms.wrapping_sub(at) >= SNAPSHOT_EVERY_MS,
        };
        if (self.snapshot_pending || snapshot_due) && self.scan_failing_since_fault.is_none() {
            self.send_snapshot(now_ms)?;
        }
        let silent = match self.last_sent_ms {
            None => true,
            Some(at) => now_ms.wrapping_sub(at) >= HEARTBEAT_AFTER_MS,
        };
        if silent {
            self.send(BoardMsg::Heartbeat { board_ms: now_ms }, now_ms)?;
        }
        Ok(())
    }

    /// Bytes from the console: complete frames are obeyed at once, damaged ones answered
    /// with a `BadFrame` fault.
    pub fn receive(&mut self, bytes: &[u8], now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        for &byte in bytes {
            match self.decoder.push(byte) {
                None => {}
                Some(Ok(frame)) => self.handle(frame.body, now_ms)?,
                Some(Err(_)) => {
                    self.stats.bad_frames_received = self.stats.bad_frames_received.wrapping_add(1);
                    self.send(
                        BoardMsg::Fault {
                            code: FaultCode::BadFrame,
                            board_ms: now_ms,
                        },
                        now_ms,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Obeys one console message.
    pub fn handle(&mut self, msg: ConsoleMsg, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        match msg {
            ConsoleMsg::Hello { protocol } => {
                if check_version(protocol).is_err() {
                    // Still say who we are: the console words the mismatch for the arbiter.
                    self.bad_command(now_ms)?;
                }
                self.send_hello(now_ms)?;
                self.snapshot_now_or_soon(now_ms)
            }
            ConsoleMsg::RequestSnapshot => self.snapshot_now_or_soon(now_ms),
            ConsoleMsg::Ping { nonce: _ } => {
                self.send(BoardMsg::Heartbeat { board_ms: now_ms }, now_ms)
            }
            ConsoleMsg::Configure {
                debounce_scans,
                scan_hz,
            } => {
                if DEBOUNCE_SCANS_RANGE.contains(&debounce_scans)
                    && SCAN_HZ_RANGE.contains(&scan_hz)
                {
                    self.config.debounce_scans = debounce_scans;
                    self.config.scan_hz = scan_hz;
                    if let Some(d) = self.debouncer.as_mut() {
                        d.set_scans(debounce_scans);
                    }
                    Ok(())
                } else {
                    self.bad_command(now_ms)
                }
            }
        }
    }

    /// Sends a Snapshot now (e.g. the simulator's last word before it exits); without a
    /// good scan yet it is sent after the first one.
    pub fn snapshot_now_or_soon(&mut self, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        if self.debouncer.is_some() && self.scan_failing_since_fault.is_none() {
            self.send_snapshot(now_ms)
        } else {
            self.snapshot_pending = true;
            Ok(())
        }
    }

    fn bad_command(&mut self, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        self.stats.bad_commands = self.stats.bad_commands.wrapping_add(1);
        self.send(
            BoardMsg::Fault {
                code: FaultCode::BadCommand,
                board_ms: now_ms,
            },
            now_ms,
        )
    }

    fn debounce(&mut self, raw: Occupancy, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        let Some(debouncer) = self.debouncer.as_mut() else {
            self.debouncer = Some(Debouncer::new(self.config.debounce_scans, raw));
            return Ok(());
        };
        for event in debouncer.update(raw, now_ms) {
            let msg = match event {
                SwitchEvent::Lift { square, since } => BoardMsg::Lift {
                    square: square.index(),
                    board_ms: since,
                },
                SwitchEvent::Place { square, since } => BoardMsg::Place {
                    square: square.index(),
                    board_ms: since,
                },
            };
            self.send(msg, now_ms)?;
        }
        Ok(())
    }

    fn send_hello(&mut self, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        self.hello_pending = false;
        let hello = BoardMsg::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: FIRMWARE_VERSION,
            board_id: self.config.board_id,
        };
        self.send(hello, now_ms)
    }

    fn send_snapshot(&mut self, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        let Some(occupancy) = self.occupancy() else {
            self.snapshot_pending = true;
            return Ok(());
        };
        self.snapshot_pending = false;
        self.last_snapshot_ms = Some(now_ms);
        self.send(
            BoardMsg::Snapshot {
                occupancy: occupancy.bits(),
                board_ms: now_ms,
            },
            now_ms,
        )
    }

    fn send(&mut self, body: BoardMsg, now_ms: BoardMs) -> Result<(), BoardError<W::Error>> {
        let mut buf = [0u8; MAX_FRAME];
        let frame = Frame {
            seq: self.seq.next(),
            body,
        };
        let len = encode(&frame, &mut buf).map_err(BoardError::Encode)?;
        self.last_sent_ms = Some(now_ms);
        self.writer
            .write_all(&buf[..len])
            .map_err(BoardError::Write)?;
        self.stats.frames_sent = self.stats.frames_sent.wrapping_add(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_link::{parse_square, SeqCheck, SeqTracker};
    use reed_matrix::Square;
    use std::vec::Vec;

    /// A scanner whose switches the test sets directly; `fail` makes scans error.
    #[derive(Debug, Default)]
    struct FakeScanner {
        occupancy: Occupancy,
        fail: bool,
    }

    impl Scanner for FakeScanner {
        type Error = &'static str;
        fn scan(&mut self) -> Result<Occupancy, &'static str> {
            if self.fail {
                Err("pin error")
            } else {
                Ok(self.occupancy)
            }
        }
    }

    #[derive(Debug, Default)]
    struct Wire(Vec<u8>);

    impl FrameWriter for Wire {
        type Error = core::convert::Infallible;
        fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
    }

    #[test]
    fn board_errors_read_as_sentences() {
        use std::string::ToString;
        let e: BoardError<&str> = BoardError::Write("Input/output error (os error 5)");
        assert_eq!(
            e.to_string(),
            "cannot send a frame to the console: Input/output error (os error 5)"
        );
        let e: BoardError<&str> = BoardError::Encode(kriegspiel_link::Error::BufferTooSmall);
        assert_eq!(
            e.to_string(),
            "cannot encode a frame: output buffer too small for the encoded frame"
        );
        let as_error: &dyn core::error::Error = &e;
        assert!(!as_error.to_string().contains("Encode("));
    }

    struct Rig {
        board: Board<FakeScanner, Wire>,
        seq: SeqTracker,
        now: u32,
    }

    impl Rig {
        fn new(start: Occupancy, config: BoardConfig) -> Self {
            let scanner = FakeScanner {
                occupancy: start,
                fail: false,
            };
            Rig {
                board: Board::new(scanner, Wire::default(), config),
                seq: SeqTracker::new(),
                now: 1000,
            }
        }

        /// Frames written since the last call, checking sequence numbers run without gaps.
        fn frames(&mut self) -> Vec<BoardMsg> {
            let bytes = core::mem::take(&mut self.board.writer.0);
            let mut out = Vec::new();
            let mut decoder = Decoder::<BoardMsg>::new();
            let seq = &mut self.seq;
            decoder.feed(&bytes, |f| {
                let f = f.unwrap();
                assert!(matches!(
                    seq.check(f.seq),
                    SeqCheck::First | SeqCheck::InOrder
                ));
                out.push(f.body);
            });
            out
        }

        /// Runs ticks one scan period apart for `ms` milliseconds.
        fn run(&mut self, ms: u32) -> Vec<BoardMsg> {
            let period = (self.board.scan_period_us() / 1000).max(1);
            let end = self.now + ms;
            while self.now < end {
                self.board.tick(self.now).unwrap();
                self.now += period;
            }
            self.frames()
        }

        fn set(&mut self, occupancy: Occupancy) {
            self.board.scanner.occupancy = occupancy;
        }
    }

    fn sq(name: &str) -> Square {
        Square::new(parse_square(name).unwrap()).unwrap()
    }

    fn hello(board_id: u32) -> BoardMsg {
        BoardMsg::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: FIRMWARE_VERSION,
            board_id,
        }
    }

    #[test]
    fn first_tick_says_hello_then_snapshot_of_the_men_on_the_board() {
        let mut rig = Rig::new(
            Occupancy::WHITE_START,
            BoardConfig {
                board_id: 7,
                ..BoardConfig::default()
            },
        );
        rig.board.tick(1000).unwrap();
        assert_eq!(
            rig.frames(),
            [
                hello(7),
                BoardMsg::Snapshot {
                    occupancy: 0xFFFF,
                    board_ms: 1000
                }
            ]
        );
        assert_eq!(rig.board.occupancy(), Some(Occupancy::WHITE_START));
    }

    #[test]
    fn a_move_is_one_lift_and_one_place_stamped_when_the_switch_changed() {
        let mut rig = Rig::new(Occupancy::WHITE_START, BoardConfig::default());
        rig.run(100);
        let lifted = Occupancy::WHITE_START.without(sq("e2"));
        rig.set(lifted);
        let lift_at = rig.now;
        let frames = rig.run(40);
        assert_eq!(
            frames,
            [BoardMsg::Lift {
                square: 12,
                board_ms: lift_at
            }]
        );
        rig.set(lifted.with(sq("e4")));
        let place_at = rig.now;
        let frames = rig.run(40);
        assert_eq!(
            frames,
            [BoardMsg::Place {
                square: 28,
                board_ms: place_at
            }]
        );
    }

    #[test]
    fn by_default_a_change_is_sent_4_ms_after_the_scan_that_saw_it() {
        let mut rig = Rig::new(Occupancy::WHITE_START, BoardConfig::default());
        rig.run(100);
        rig.set(Occupancy::WHITE_START.without(sq("g1")));
        let lifted_at = rig.now;
        // Four more scans, one each millisecond, must agree before the lift goes out.
        assert_eq!(rig.run(4), []);
        assert_eq!(
            rig.run(1),
            [BoardMsg::Lift {
                square: 6,
                board_ms: lifted_at
            }]
        );
    }

    #[test]
    fn bounces_shorter_than_the_debounce_produce_nothing() {
        let mut rig = Rig::new(
            Occupancy::EMPTY,
            BoardConfig {
                debounce_scans: 4,
                scan_hz: 250,
                ..BoardConfig::default()
            },
        );
        rig.run(100);
        for _ in 0..20 {
            rig.set(Occupancy::EMPTY.with(sq("d4")));
            rig.run(8); // two scans
            rig.set(Occupancy::EMPTY);
            rig.run(8);
        }
        let frames = rig.run(10);
        let events = frames
            .iter()
            .filter(|m| matches!(m, BoardMsg::Lift { .. } | BoardMsg::Place { .. }));
        assert_eq!(events.count(), 0);
        assert_eq!(rig.board.occupancy(), Some(Occupancy::EMPTY));
    }

    #[test]
    fn snapshots_at_least_every_500_ms_and_heartbeats_fill_silence() {
        let mut rig = Rig::new(Occupancy::START, BoardConfig::default());
        rig.board.tick(rig.now).unwrap();
        rig.frames();
        let mut last_snapshot = rig.now;
        let mut last_frame = rig.now;
        rig.now += 4;
        let end = rig.now + 5000;
        let mut snapshots = 0;
        while rig.now < end {
            rig.board.tick(rig.now).unwrap();
            for msg in rig.frames() {
                last_frame = rig.now;
                match msg {
                    BoardMsg::Snapshot {
                        occupancy,
                        board_ms,
                    } => {
                        assert_eq!(occupancy, Occupancy::START.bits());
                        assert!(
                            board_ms - last_snapshot <= 500,
                            "{} ms between snapshots",
                            board_ms - last_snapshot
                        );
                        last_snapshot = board_ms;
                        snapshots += 1;
                    }
                    BoardMsg::Heartbeat { board_ms } => assert_eq!(board_ms, rig.now),
                    other => panic!("unexpected {other:?}"),
                }
            }
            assert!(rig.now - last_frame <= HEARTBEAT_AFTER_MS + 4);
            rig.now += 4;
        }
        assert!(snapshots >= 10, "{snapshots}");
    }

    #[test]
    fn console_hello_request_snapshot_and_ping_are_answered() {
        let mut rig = Rig::new(
            Occupancy::BLACK_START,
            BoardConfig {
                board_id: 2,
                ..BoardConfig::default()
            },
        );
        rig.run(20);
        let mut bytes = Vec::new();
        let mut buf = [0u8; MAX_FRAME];
        for (seq, body) in [
            ConsoleMsg::Hello {
                protocol: PROTOCOL_VERSION,
            },
            ConsoleMsg::RequestSnapshot,
            ConsoleMsg::Ping { nonce: 9 },
        ]
        .into_iter()
        .enumerate()
        {
            let n = encode(
                &Frame {
                    seq: seq as u16,
                    body,
                },
                &mut buf,
            )
            .unwrap();
            bytes.extend_from_slice(&buf[..n]);
        }
        rig.board.receive(&bytes, 2000).unwrap();
        let occ = Occupancy::BLACK_START.bits();
        assert_eq!(
            rig.frames(),
            [
                hello(2),
                BoardMsg::Snapshot {
                    occupancy: occ,
                    board_ms: 2000
                },
                BoardMsg::Snapshot {
                    occupancy: occ,
                    board_ms: 2000
                },
                BoardMsg::Heartbeat { board_ms: 2000 },
            ]
        );
    }

    #[test]
    fn configure_applies_good_values_and_faults_bad_ones() {
        let mut rig = Rig::new(Occupancy::EMPTY, BoardConfig::default());
        rig.run(20);
        rig.board
            .handle(
                ConsoleMsg::Configure {
                    debounce_scans: 8,
                    scan_hz: 500,
                },
                50,
            )
            .unwrap();
        assert_eq!(rig.board.config().debounce_scans, 8);
        assert_eq!(rig.board.scan_period_us(), 2000);
        assert!(rig.frames().is_empty());
        for (debounce_scans, scan_hz) in [(0, 500), (17, 500), (4, 199), (4, 2001), (200, 0)] {
            rig.board
                .handle(
                    ConsoleMsg::Configure {
                        debounce_scans,
                        scan_hz,
                    },
                    60,
                )
                .unwrap();
            assert_eq!(
                rig.frames(),
                [BoardMsg::Fault {
                    code: FaultCode::BadCommand,
                    board_ms: 60
                }]
            );
        }
        assert_eq!(
            rig.board.config(),
            BoardConfig {
                board_id: 0,
                debounce_scans: 8,
                scan_hz: 500
            }
        );
        // The new debounce length is in force: 7 scans are not enough any more.
        rig.set(Occupancy::EMPTY.with(sq("a8")));
        // (and a scan is every 2 ms at 500 Hz).
        let frames = rig.run(7 * 2);
        assert!(!frames.iter().any(|m| matches!(m, BoardMsg::Place { .. })));
        let frames = rig.run(2);
        assert!(frames
            .iter()
            .any(|m| matches!(m, BoardMsg::Place { square: 56, .. })));
    }

    #[test]
    fn wrong_protocol_hello_and_damaged_frames_are_reported() {
        let mut rig = Rig::new(Occupancy::EMPTY, BoardConfig::default());
        rig.run(20);
        rig.board
            .handle(
                ConsoleMsg::Hello {
                    protocol: PROTOCOL_VERSION + 1,
                },
                30,
            )
            .unwrap();
        let frames = rig.frames();
        assert_eq!(
            frames[0],
            BoardMsg::Fault {
                code: FaultCode::BadCommand,
                board_ms: 30
            }
        );
        assert_eq!(frames[1], hello(0));
        let mut buf = [0u8; MAX_FRAME];
        let n = encode(
            &Frame {
                seq: 0,
                body: ConsoleMsg::RequestSnapshot,
            },
            &mut buf,
        )
        .unwrap();
        buf[1] ^= 0x55;
        rig.board.receive(&buf[..n], 40).unwrap();
        assert_eq!(
            rig.frames(),
            [BoardMsg::Fault {
                code: FaultCode::BadFrame,
                board_ms: 40
            }]
        );
        assert_eq!(rig.board.stats().bad_frames_received, 1);
    }

    #[test]
    fn scan_errors_become_faults_without_snapshots_then_a_snapshot_on_recovery() {
        let mut rig = Rig::new(Occupancy::WHITE_START, BoardConfig::default());
        rig.run(20);
        rig.board.scanner.fail = true;
        let frames = rig.run(1000);
        assert!(frames.iter().all(|m| matches!(
            m,
            BoardMsg::Fault {
                code: FaultCode::ScanError,
                ..
            } | BoardMsg::Heartbeat { .. }
        )));
        let faults = frames
            .iter()
            .filter(|m| matches!(m, BoardMsg::Fault { .. }))
            .count();
        assert!((2..=3).contains(&faults), "{faults} faults in 1 s");
        rig.board.scanner.fail = false;
        rig.board.tick(rig.now).unwrap();
        assert_eq!(
            rig.frames(),
            [BoardMsg::Snapshot {
                occupancy: 0xFFFF,
                board_ms: rig.now
            }]
        );
    }

    #[test]
    fn a_board_whose_first_scans_fail_still_says_hello_and_snapshots_later() {
        let mut rig = Rig::new(
            Occupancy::WHITE_START,
            BoardConfig {
                board_id: 5,
                ..BoardConfig::default()
            },
        );
        rig.board.scanner.fail = true;
        rig.board.tick(1000).unwrap();
        assert_eq!(
            rig.frames(),
            [
                hello(5),
                BoardMsg::Fault {
                    code: FaultCode::ScanError,
                    board_ms: 1000
                }
            ]
        );
        rig.board.handle(ConsoleMsg::RequestSnapshot, 1002).unwrap();
        assert!(rig.frames().is_empty());
        rig.board.scanner.fail = false;
        rig.board.tick(1004).unwrap();
        assert_eq!(
            rig.frames(),
            [BoardMsg::Snapshot {
                occupancy: 0xFFFF,
                board_ms: 1004
            }]
        );
    }

    #[test]
    fn board_clock_wraps() {
        let mut rig = Rig::new(Occupancy::EMPTY, BoardConfig::default());
        rig.now = u32::MAX - 40;
        rig.board.tick(rig.now).unwrap();
        rig.frames();
        rig.set(Occupancy::EMPTY.with(sq("c3")));
        let at = rig.now.wrapping_add(4);
        for i in 1..=8u32 {
            rig.board.tick(rig.now.wrapping_add(4 * i)).unwrap();
        }
        let frames = rig.frames();
        assert!(
            frames.contains(&BoardMsg::Place {
                square: 18,
                board_ms: at
            }),
            "{frames:?}"
        );
    }
}
