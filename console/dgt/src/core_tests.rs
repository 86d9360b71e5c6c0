//! The core against a scripted board, in virtual time.

use super::*;
use crate::codes::{piece_code, EMPTY};
use crate::frame::{encode_frame, id};
use shakmaty::{Piece, Square};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The core and everything it said, stepped in 10 ms ticks.
struct Bench {
    core: DgtCore,
    now: Duration,
    /// Commands written, with their time.
    sent: Vec<(Duration, u8)>,
    reports: Vec<Report>,
    closed: bool,
}

impl Bench {
    fn new(settings: Settings) -> Bench {
        let mut core = DgtCore::new(settings);
        core.opened(Duration::ZERO);
        Bench {
            core,
            now: Duration::ZERO,
            sent: Vec::new(),
            reports: Vec::new(),
            closed: false,
        }
    }

    fn drain(&mut self) {
        let step = self.core.take_step(self.now);
        for b in step.outgoing {
            self.sent.push((self.now, b));
        }
        self.reports.extend(step.reports);
        self.closed |= step.close;
    }

    /// Runs the clock until `until`.
    fn run_to(&mut self, until: Duration) {
        while self.now < until {
            self.now = (self.now + ms(10)).min(until);
            self.core.tick(self.now);
            self.drain();
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.core.received(bytes, self.now);
        self.drain();
    }

    /// Commands written since index `from`.
    fn commands_since(&self, from: usize) -> Vec<u8> {
        self.sent[from..].iter().map(|&(_, b)| b).collect()
    }

    fn events(&self) -> Vec<&DgtEvent> {
        self.reports.iter().map(|r| &r.event).collect()
    }

    fn positions(&self) -> Vec<String> {
        self.reports
            .iter()
            .filter_map(|r| match &r.event {
                DgtEvent::Position(p) => Some(p.to_string()),
                _ => None,
            })
            .collect()
    }

    /// Answers the handshake as a board with this serial would and returns once ready
    /// and the first dump is in.
    fn handshake(&mut self, serial: &str, long: Option<&str>, fields: &[u8; 64]) {
        let from = self.sent.len();
        self.drain();
        self.run_to(self.now + ms(100));
        assert_eq!(self.commands_since(from), [0x40, 0x4d]);
        let from = self.sent.len();
        self.feed(&frame(id::VERSION, &[3, 10]));
        self.run_to(self.now + ms(100));
        assert_eq!(self.commands_since(from), [0x45, 0x55]);
        let from = self.sent.len();
        self.feed(&frame(id::SERIALNR, serial.as_bytes()));
        if let Some(long) = long {
            self.feed(&frame(id::LONG_SERIALNR, long.as_bytes()));
        }
        self.run_to(self.now + ms(400));
        assert_eq!(self.commands_since(from), [0x44, 0x42]);
        self.feed(&dump(fields));
    }
}

fn frame(id: u8, data: &[u8]) -> Vec<u8> {
    encode_frame(id, data).unwrap()
}

fn dump(fields: &[u8; 64]) -> Vec<u8> {
    frame(id::BOARD_DUMP, fields)
}

fn update(square: &str, code: u8) -> Vec<u8> {
    let sq: Square = square.parse().unwrap();
    frame(id::FIELD_UPDATE, &[Orientation::Normal.field(sq), code])
}

/// The dump of a FEN board part on a board standing `orientation`.
fn fields(fen: &str, orientation: Orientation) -> [u8; 64] {
    let board: shakmaty::Board = fen.parse().unwrap();
    let mut f = [EMPTY; 64];
    for (sq, piece) in board {
        f[usize::from(orientation.field(sq))] = piece_code(piece);
    }
    f
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";

fn identity(serial: &str, long: Option<&str>) -> Identity {
    Identity {
        version: (3, 10),
        serial: serial.into(),
        long_serial: long.map(str::to_owned),
    }
}

#[test]
fn the_handshake_identifies_the_board_then_reports_its_position() {
    let mut b = Bench::new(Settings::default());
    b.handshake(
        "12345",
        Some("3000147740"),
        &fields(START, Orientation::Normal),
    );
    assert_eq!(
        b.events(),
        [
            &DgtEvent::Connected(identity("12345", Some("3000147740"))),
            &DgtEvent::Position(Placement::from_fields(
                &fields(START, Orientation::Normal),
                Orientation::Normal,
                false
            )),
        ]
    );
    // Commands never closer than the pace.
    for pair in b.sent.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= ms(50), "{:?}", b.sent);
    }
    assert_eq!(b.core.identity().map(Identity::key), Some("3000147740"));
}

#[test]
fn a_board_without_a_long_serial_number_is_ready_after_a_short_wait() {
    let mut b = Bench::new(Settings::default());
    b.run_to(ms(100));
    b.feed(&frame(id::VERSION, &[1, 2]));
    b.run_to(ms(200));
    b.feed(&frame(id::SERIALNR, b"01025"));
    let at = b.now;
    b.run_to(at + ms(290));
    assert!(b.reports.is_empty());
    b.run_to(at + ms(310));
    assert_eq!(
        b.events(),
        [&DgtEvent::Connected(Identity {
            version: (1, 2),
            serial: "01025".into(),
            long_serial: None
        })]
    );
}

#[test]
fn a_silent_port_is_probed_again_every_two_seconds_and_said_once() {
    let mut b = Bench::new(Settings::default());
    b.run_to(ms(6100));
    let probes = b.commands_since(0);
    assert_eq!(probes, [0x40, 0x4d, 0x40, 0x4d, 0x40, 0x4d, 0x40, 0x4d]);
    assert_eq!(
        b.events(),
        [&DgtEvent::Waiting(
            "no answer to the version request (not a DGT board, or switched off?)".into()
        )]
    );
    assert!(!b.closed);
}

#[test]
fn a_move_with_out_of_order_updates_and_flicker_gives_one_position() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    b.run_to(b.now + ms(300));
    let before = b.sent.len();
    // 1.e4 as a board reports it: e4 placed before e2 clears, then g1's knight
    // flickers (off-centre) twice, one scan tick (225 ms) apart.
    b.feed(&update("e4", 1));
    b.feed(&update("e2", 0));
    b.run_to(b.now + ms(225));
    b.feed(&update("g1", 0));
    b.run_to(b.now + ms(225));
    b.feed(&update("g1", 3));
    let last_update = b.now;
    b.run_to(last_update + ms(240));
    assert!(
        !b.commands_since(before).contains(&0x42),
        "asked for a dump before the board settled"
    );
    b.run_to(last_update + ms(270));
    let dumps = |b: &Bench| {
        b.commands_since(before)
            .iter()
            .filter(|&&c| c == 0x42)
            .count()
    };
    assert_eq!(dumps(&b), 1);
    b.feed(&dump(&fields(AFTER_E4, Orientation::Normal)));
    b.run_to(b.now + ms(3000));
    assert_eq!(b.positions(), [START, AFTER_E4]);
    // A dump confirming the same placement says nothing new.
    b.core.request_position(b.now);
    b.run_to(b.now + ms(100));
    b.feed(&dump(&fields(AFTER_E4, Orientation::Normal)));
    assert_eq!(b.positions().len(), 2);
}

/// A man flickering for longer than the settle limit (an off-centre knight, 3 s): the dump
/// asked for at the limit catches him gone, but his square is still changing, so it keeps
/// what was last taken; a move made meanwhile, its squares quiet by then, is taken. His
/// passing absence never reaches the table, which would take it for a touch.
#[test]
fn a_dump_at_the_limit_keeps_a_still_flickering_square_as_it_was() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    b.run_to(b.now + ms(300));
    let start = b.now;
    let before = b.sent.len();
    let knight_gone = {
        let mut f = fields(AFTER_E4, Orientation::Normal);
        f[usize::from(Orientation::Normal.field(Square::G1))] = EMPTY;
        f
    };
    let mut asked = 0;
    for tick in 1..=260u64 {
        let t = ms(tick * 10);
        b.run_to(start + t);
        if tick % 22 == 5 {
            // Off-centre, about a scan tick apart: gone, back, gone, ... for 2.4 s, back last.
            b.feed(&update("g1", if (tick / 22) % 2 == 0 { 0 } else { 3 }));
        }
        if tick == 55 {
            b.feed(&update("e2", 0));
            b.feed(&update("e4", 1));
        }
        let dumps = b
            .commands_since(before)
            .iter()
            .filter(|&&c| c == 0x42)
            .count();
        if dumps > asked {
            asked = dumps;
            b.feed(&dump(&knight_gone));
        }
    }
    assert!(asked >= 1, "no dump was asked for at the limit");
    b.run_to(b.now + ms(400));
    b.feed(&dump(&fields(AFTER_E4, Orientation::Normal)));
    b.run_to(b.now + ms(300));
    assert_eq!(b.positions(), [START, AFTER_E4]);
}

#[test]
fn a_dump_overtaken_by_an_update_waits_for_the_next_one() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    b.feed(&update("e2", 0));
    b.run_to(b.now + ms(300));
    // The dump shows e2 lifted, but e4 has been placed meanwhile.
    b.feed(&update("e4", 1));
    b.feed(&dump(&fields(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR",
        Orientation::Normal,
    )));
    b.run_to(b.now + ms(300));
    b.feed(&dump(&fields(AFTER_E4, Orientation::Normal)));
    assert_eq!(b.positions(), [START, AFTER_E4]);
}

#[test]
fn garbage_truncated_frames_and_a_move_log_change_nothing() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    let reports = b.reports.len();
    b.feed(&[0x01, 0x02, 0x7f, 0xc5, 0x10, 0x99]);
    let mut cut = dump(&fields(AFTER_E4, Orientation::Normal));
    cut.truncate(40);
    b.feed(&cut);
    // The move log: 8 KB that take a real board 8 s; sent here over 6 s of pulses.
    let log = frame(id::EE_MOVES, &vec![0x21; 0x1f00]);
    for chunk in log.chunks(log.len() / 60 + 1) {
        b.feed(chunk);
        b.run_to(b.now + ms(100));
        // The pulse requests go unanswered while the log comes: the bytes are the life.
    }
    b.run_to(b.now + ms(500));
    b.feed(&frame(id::SERIALNR, b"12345"));
    b.run_to(b.now + ms(500));
    assert_eq!(b.reports.len(), reports, "{:?}", &b.reports[reports..]);
    let c = b.core.counters();
    assert_eq!(c.ee_moves, 1);
    // 0xc5 and 0x99 (garbage ids) cut short by the next id, and the cut dump.
    assert_eq!(c.truncated, 3);
    assert!(c.stray_bytes >= 3, "{c:?}");
    assert_eq!(c.lost, 0);
}

#[test]
fn a_silent_board_is_lost_within_three_seconds_and_comes_back_as_another_board() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    let silent_from = b.now;
    // Pulses answered by nothing.
    b.run_to(silent_from + ms(4000));
    let lost_at = b
        .reports
        .iter()
        .find(|r| matches!(r.event, DgtEvent::Lost(_)))
        .map(|r| r.at)
        .unwrap();
    assert!(lost_at - silent_from <= ms(2600), "{lost_at:?}");
    assert!(b.closed);
    assert_eq!(
        b.events().last(),
        Some(&&DgtEvent::Lost(LostReason::Silent { missed: 2 }))
    );
    // The port reopened; another board (serial 54321) answers, pieces as they were.
    b.core.opened(b.now);
    b.closed = false;
    let reports = b.reports.len();
    b.handshake("54321", None, &fields(START, Orientation::Normal));
    let events: Vec<_> = b.events()[reports..].to_vec();
    assert_eq!(events[0], &DgtEvent::Back(identity("54321", None)));
    assert!(matches!(events[1], DgtEvent::Position(_)));
}

#[test]
fn an_io_error_is_reported_at_once_and_only_once() {
    let mut b = Bench::new(Settings::default());
    b.handshake("12345", None, &fields(START, Orientation::Normal));
    b.core
        .port_lost(LostReason::Io("Input/output error".into()), b.now);
    b.drain();
    assert!(b.closed);
    b.core.port_lost(LostReason::Closed, b.now);
    b.core
        .open_failed("cannot open /dev/ttyACM0: gone".into(), b.now);
    b.core
        .open_failed("cannot open /dev/ttyACM0: gone".into(), b.now);
    b.drain();
    let events = b.events();
    assert_eq!(
        events[events.len() - 2..],
        [
            &DgtEvent::Lost(LostReason::Io("Input/output error".into())),
            &DgtEvent::Waiting("cannot open /dev/ttyACM0: gone".into())
        ]
    );
}

#[test]
fn a_rotated_board_is_detected_from_the_owners_men_and_remembered() {
    let memory = Orientations::default();
    let settings = Settings {
        owner: Some(Color::White),
        orientations: memory.clone(),
        ..Settings::default()
    };
    // White's board, turned round, with a black guess knight on f6.
    let white = "8/8/5n2/8/8/8/PPPPPPPP/RNBQKBNR";
    let mut b = Bench::new(settings.clone());
    b.handshake("12345", None, &fields(white, Orientation::Rotated));
    assert_eq!(b.positions(), [white]);
    assert_eq!(memory.get("12345"), Some(Orientation::Rotated));
    let DgtEvent::Position(p) = b.events()[1] else {
        panic!()
    };
    assert!(p.orientation_known());
    assert_eq!(p.piece_at(Square::E1), Some(Piece::from_char('K').unwrap()));

    // Reconnected mid-game (no start position to tell from): the memory says.
    let mut b = Bench::new(settings);
    let mid_moved = "8/8/8/8/4P3/8/PPPP1PPP/RNBQ1RK1";
    b.handshake("12345", None, &fields(mid_moved, Orientation::Rotated));
    assert_eq!(b.positions(), [mid_moved]);

    // Without an owner or memory the board is assumed normal, and says so.
    let mut b = Bench::new(Settings::default());
    b.handshake("99999", None, &fields(white, Orientation::Rotated));
    let DgtEvent::Position(p) = b.events()[1] else {
        panic!()
    };
    assert!(!p.orientation_known());
    assert_eq!(p.orientation(), Orientation::Normal);
}
