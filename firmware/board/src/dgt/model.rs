//! A DGT e-board as its firmware behaves, in virtual time: the men on it, its scan, its
//! modes, its small input buffer and its answers. [`Board::tick`] is told the time; the
//! bytes it would send are taken with [`Board::take_output`].
//!
//! What it models: power-up in bus mode (the first single-board command switches to single
//! mode and is processed); idle and the three update modes; a 10-byte input buffer whose
//! overflow is lost, worked off one command per `command_ms`; a scan every `scan_ms` that
//! reports changed fields in field order (so the new square of a move before the old one
//! when it has the lower number); a man that flickers; and faults on demand.

use std::collections::VecDeque;

use super::script::Code;
use reed_matrix::Square;

/// Board→PC message ids.
mod id {
    pub const BOARD_DUMP: u8 = 0x86;
    pub const BWTIME: u8 = 0x8d;
    pub const FIELD_UPDATE: u8 = 0x8e;
    pub const EE_MOVES: u8 = 0x8f;
    pub const BUSADRES: u8 = 0x90;
    pub const SERIALNR: u8 = 0x91;
    pub const TRADEMARK: u8 = 0x92;
    pub const VERSION: u8 = 0x93;
    pub const BATTERY_STATUS: u8 = 0xa0;
    pub const LONG_SERIALNR: u8 = 0xa2;
}

/// The emulated board's fixed traits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Five characters, the board's `0x45` answer.
    pub serial: String,
    /// Ten characters for `0x55`; `None`: the board ignores that command (older boards).
    pub long_serial: Option<String>,
    pub version: (u8, u8),
    /// Time between scans: about 225 ms on USB boards, 450 ms on Bluetooth ones.
    pub scan_ms: u32,
    /// Time the firmware takes per input command.
    pub command_ms: u32,
    /// Bluetooth board: answers the battery request.
    pub bluetooth: bool,
    /// The board stands turned round (connector on White's right): field 0 is h1.
    pub rotated: bool,
}

impl Config {
    /// Takes a serial number: up to five characters is the short one (and no long one);
    /// six to ten is the long one, whose last five characters are the short one.
    pub fn set_serial(&mut self, serial: &str) {
        let chars: Vec<char> = serial.chars().collect();
        if chars.len() <= 5 {
            self.serial = serial.to_owned();
            self.long_serial = None;
        } else {
            self.serial = chars[chars.len() - 5..].iter().collect();
            self.long_serial = Some(serial.to_owned());
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            serial: "12345".into(),
            long_serial: None,
            version: (1, 2),
            scan_ms: 225,
            command_ms: 10,
            bluetooth: false,
            rotated: false,
        }
    }
}

/// The single-board firmware's modes (bus mode is its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// At power-up: only bus commands; a single-board command switches to idle.
    Bus,
    Idle,
    /// Field updates and clock times at least every second.
    Update,
    /// Field updates only.
    UpdateBoard,
    /// Field updates, and clock times when they change.
    UpdateNice,
}

/// The input buffer's size: the firmware keeps about ten bytes.
pub const INPUT_BUFFER: usize = 10;

/// A move log's data size.
pub const EE_MOVES_LEN: usize = 0x1f00;

/// What the board did, for the emulator's own log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A field update sent (field, code).
    Update { field: u8, code: Code },
    /// A dump sent.
    Dump,
    /// The mode changed.
    Mode(Mode),
    /// Input bytes lost to a full buffer.
    Overflow(usize),
}

#[derive(Debug, Clone)]
pub struct Board {
    config: Config,
    /// What stands on each field (the board's numbering).
    men: [Code; 64],
    /// What the last scan saw: what dumps report.
    scanned: [Code; 64],
    /// Scans left during which a field's man flickers.
    flicker: [u32; 64],
    mode: Mode,
    input: VecDeque<u8>,
    next_command_ms: u32,
    next_scan_ms: u32,
    next_clock_ms: u32,
    silent_until: Option<u32>,
    noise: u32,
    output: Vec<u8>,
    notes: Vec<Note>,
}

impl Board {
    /// A board powered up at `now_ms` with these men (by square index, a1 = 0).
    pub fn new(config: Config, men: &[Code; 64], now_ms: u32) -> Board {
        let mut board = Board {
            config,
            men: [0; 64],
            scanned: [0; 64],
            flicker: [0; 64],
            mode: Mode::Bus,
            input: VecDeque::with_capacity(INPUT_BUFFER),
            next_command_ms: now_ms,
            next_scan_ms: now_ms,
            next_clock_ms: now_ms,
            silent_until: None,
            noise: 0x2545_f491,
            output: Vec::new(),
            notes: Vec::new(),
        };
        for sq in Square::all() {
            board.men[usize::from(board.field(sq))] = men[usize::from(sq.index())];
        }
        board.power_up(now_ms, None);
        board
    }

    /// The field that reports a square.
    pub fn field(&self, square: Square) -> u8 {
        if self.config.rotated {
            square.index() ^ 7
        } else {
            square.index() ^ 56
        }
    }

    /// The square a field reports (the inverse of [`Board::field`]).
    pub fn square(&self, field: u8) -> Option<Square> {
        let index = if self.config.rotated {
            field ^ 7
        } else {
            field ^ 56
        };
        Square::new(index & 63)
    }

    /// Power comes back (the cable plugged in): bus mode, empty input, the men scanned
    /// afresh; optionally as another board.
    pub fn power_up(&mut self, now_ms: u32, serial: Option<String>) {
        if let Some(serial) = serial {
            self.config.set_serial(&serial);
        }
        self.mode = Mode::Bus;
        self.input.clear();
        self.scanned = self.men;
        self.flicker = [0; 64];
        self.silent_until = None;
        self.next_scan_ms = now_ms.saturating_add(self.config.scan_ms);
        self.output.clear();
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Bytes from the PC. Beyond the buffer's ten bytes they are lost.
    pub fn receive(&mut self, bytes: &[u8]) {
        let room = INPUT_BUFFER.saturating_sub(self.input.len());
        let taken = bytes.len().min(room);
        self.input.extend(&bytes[..taken]);
        if taken < bytes.len() {
            self.notes.push(Note::Overflow(bytes.len() - taken));
        }
    }

    /// A man is lifted from `square`; returns what stood there.
    pub fn lift(&mut self, square: Square) -> Code {
        let field = usize::from(self.field(square));
        self.flicker[field] = 0;
        std::mem::take(&mut self.men[field])
    }

    /// A man (`code`) is put on `square`.
    pub fn place(&mut self, square: Square, code: Code) {
        self.men[usize::from(self.field(square))] = code;
    }

    /// The man on `square` sits off-centre for `scans` scans: read as gone on every other.
    pub fn flicker(&mut self, square: Square, scans: u32) {
        self.flicker[usize::from(self.field(square))] = scans;
    }

    /// Line noise: `n` bytes, top bit set or not, that never happen to start a dump.
    pub fn garbage(&mut self, n: usize) {
        for _ in 0..n {
            // xorshift: deterministic noise.
            self.noise ^= self.noise << 13;
            self.noise ^= self.noise >> 17;
            self.noise ^= self.noise << 5;
            let b = self.noise.to_le_bytes()[0];
            self.output.push(if b == id::BOARD_DUMP { 0x85 } else { b });
        }
    }

    /// The start of a board dump and no more (a frame cut short).
    pub fn truncated(&mut self) {
        let mut frame = frame(id::BOARD_DUMP, &self.scanned);
        frame.truncate(3 + 20);
        self.output.extend(frame);
    }

    /// An unasked move log (about 8 KB).
    pub fn eeprom(&mut self) {
        let data: Vec<u8> = (0..EE_MOVES_LEN).map(|i| (i % 0x60) as u8 + 0x10).collect();
        self.output.extend(frame(id::EE_MOVES, &data));
    }

    /// Neither answers nor messages until `until_ms` (input meanwhile is lost).
    pub fn silence(&mut self, until_ms: u32) {
        self.silent_until = Some(until_ms);
    }

    /// Works off input and scans as the time says.
    pub fn tick(&mut self, now_ms: u32) {
        if let Some(until) = self.silent_until {
            if now_ms < until {
                self.input.clear();
                self.scan_due(now_ms, false);
                return;
            }
            self.silent_until = None;
        }
        while now_ms >= self.next_command_ms {
            let Some(byte) = self.input.pop_front() else {
                self.next_command_ms = now_ms;
                break;
            };
            self.command(byte);
            self.next_command_ms = self.next_command_ms.saturating_add(self.config.command_ms);
        }
        self.scan_due(now_ms, true);
        if self.mode == Mode::Update && now_ms >= self.next_clock_ms {
            self.next_clock_ms = now_ms.saturating_add(1000);
            self.clock();
        }
    }

    fn scan_due(&mut self, now_ms: u32, report: bool) {
        while now_ms >= self.next_scan_ms {
            self.next_scan_ms = self.next_scan_ms.saturating_add(self.config.scan_ms.max(1));
            self.scan(report);
        }
    }

    /// One scan: every field in order, each change reported in update modes.
    fn scan(&mut self, report: bool) {
        for field in 0..64u8 {
            let f = usize::from(field);
            let mut seen = self.men[f];
            // N scans of flicker: gone, there, gone, there ... (N even ends with him there).
            if self.flicker[f] > 0 {
                if self.flicker[f].is_multiple_of(2) {
                    seen = 0;
                }
                self.flicker[f] -= 1;
            }
            if seen != self.scanned[f] {
                self.scanned[f] = seen;
                if report
                    && matches!(
                        self.mode,
                        Mode::Update | Mode::UpdateBoard | Mode::UpdateNice
                    )
                {
                    self.output.extend(frame(id::FIELD_UPDATE, &[field, seen]));
                    self.notes.push(Note::Update { field, code: seen });
                }
            }
        }
    }

    fn set_mode(&mut self, mode: Mode) {
        if self.mode != mode {
            self.mode = mode;
            self.notes.push(Note::Mode(mode));
        }
    }

    fn command(&mut self, byte: u8) {
        let single = matches!(byte, 0x40..=0x4f | 0x55);
        if self.mode == Mode::Bus {
            if !single {
                return;
            }
            // Entering single-board mode always starts idle; the command is then processed.
            self.set_mode(Mode::Idle);
        }
        match byte {
            0x40 => self.set_mode(Mode::Idle),
            0x41 => self.clock(),
            0x42 => {
                let dump = frame(id::BOARD_DUMP, &self.scanned);
                self.output.extend(dump);
                self.notes.push(Note::Dump);
            }
            0x43 => self.set_mode(Mode::Update),
            0x44 => self.set_mode(Mode::UpdateBoard),
            0x4b => self.set_mode(Mode::UpdateNice),
            0x45 => {
                let serial = format!("{:0>5}", self.config.serial);
                self.output.extend(frame(id::SERIALNR, serial.as_bytes()));
            }
            0x55 => {
                if let Some(long) = &self.config.long_serial {
                    let long = format!("{long:0>10}");
                    self.output
                        .extend(frame(id::LONG_SERIALNR, long.as_bytes()));
                }
            }
            0x46 => {
                // The bus address is the serial number's value, in two 7-bit halves.
                let n: u16 = self.config.serial.parse().unwrap_or(0);
                self.output.extend(frame(
                    id::BUSADRES,
                    &[((n >> 7) & 0x7f) as u8, (n & 0x7f) as u8],
                ));
            }
            0x47 => self.output.extend(frame(
                id::TRADEMARK,
                b"Digital Game Technology\r\nkriegspiel-board dgt-emulate",
            )),
            0x49 => self.eeprom(),
            0x4c if self.config.bluetooth => self
                .output
                .extend(frame(id::BATTERY_STATUS, &[0x58, 0, 0, 0, 0, 0, 0, 0, 0])),
            0x4d => {
                let (major, minor) = self.config.version;
                self.output
                    .extend(frame(id::VERSION, &[major & 0x7f, minor & 0x7f]));
            }
            // Bus-mode, bootloader and unknown commands: ignored.
            _ => {}
        }
    }

    /// Clock times with "no clock connected" set.
    fn clock(&mut self) {
        self.output
            .extend(frame(id::BWTIME, &[0, 0, 0, 0, 0, 0, 0x20]));
    }

    /// The bytes the board has sent since the last call (nothing while silent).
    pub fn take_output(&mut self) -> Vec<u8> {
        if self.silent_until.is_some() {
            self.output.clear();
        }
        std::mem::take(&mut self.output)
    }

    /// What happened since the last call.
    pub fn take_notes(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.notes)
    }
}

/// A board→PC frame: id, total length in two 7-bit bytes, data (7-bit).
fn frame(id: u8, data: &[u8]) -> Vec<u8> {
    let len = data.len() + 3;
    let mut f = Vec::with_capacity(len);
    f.push(id);
    f.push(((len >> 7) & 0x7f) as u8);
    f.push((len & 0x7f) as u8);
    f.extend(data.iter().map(|b| b & 0x7f));
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::script::DgtScript;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn start() -> [Code; 64] {
        DgtScript::parse("occupied start").unwrap().initial
    }

    /// A board at time 0, in update mode with nothing pending.
    fn board_in_update_mode(config: Config) -> Board {
        let mut b = Board::new(config, &start(), 0);
        b.receive(&[0x44]);
        b.tick(0);
        assert_eq!(b.mode(), Mode::UpdateBoard);
        b.take_output();
        b.take_notes();
        b
    }

    #[test]
    fn power_up_is_bus_mode_and_the_first_single_board_command_is_processed() {
        let mut b = Board::new(Config::default(), &start(), 0);
        assert_eq!(b.mode(), Mode::Bus);
        b.receive(&[0x81, 0x4d]);
        b.tick(0);
        b.tick(10);
        assert_eq!(b.take_output(), [0x93, 0x00, 0x05, 1, 2]);
        assert_eq!(b.mode(), Mode::Idle);
    }

    #[test]
    fn identity_answers() {
        let config = Config {
            serial: "01025".into(),
            long_serial: Some("3000147740".into()),
            ..Config::default()
        };
        let mut b = Board::new(config, &start(), 0);
        b.receive(&[0x45, 0x55, 0x46]);
        b.tick(100);
        let out = b.take_output();
        let mut expected = vec![0x91, 0, 8];
        expected.extend(b"01025");
        expected.extend([0xa2, 0, 13]);
        expected.extend(b"3000147740");
        // The bus address of serial 01025 (the protocol's own example).
        expected.extend([0x90, 0, 5, 0x08, 0x01]);
        assert_eq!(out, expected);
        // A board without a long serial number ignores 0x55.
        let mut b = Board::new(Config::default(), &start(), 0);
        b.receive(&[0x55]);
        b.tick(100);
        assert!(b.take_output().is_empty());
    }

    #[test]
    fn input_beyond_ten_bytes_is_lost_and_commands_take_their_time() {
        let mut b = Board::new(Config::default(), &start(), 0);
        b.receive(&[0x4d; 14]);
        assert_eq!(b.take_notes(), [Note::Overflow(4)]);
        b.tick(0);
        assert_eq!(b.take_output().len(), 5, "one command per 10 ms");
        b.tick(95);
        assert_eq!(b.take_output().len(), 45);
        b.tick(1000);
        assert!(b.take_output().is_empty());
    }

    #[test]
    fn a_move_within_one_scan_reports_the_new_square_first() {
        let mut b = board_in_update_mode(Config::default());
        // 1.e4 between two scans: e4 (field 36) comes before e2 (field 52).
        let pawn = b.lift(sq("e2"));
        b.place(sq("e4"), pawn);
        b.tick(224);
        assert!(b.take_output().is_empty());
        b.tick(225);
        assert_eq!(b.take_output(), [0x8e, 0, 5, 36, 1, 0x8e, 0, 5, 52, 0]);
        // Black's 1...e5: e7 (field 12) clears before e5 (field 28) fills.
        let pawn = b.lift(sq("e7"));
        b.place(sq("e5"), pawn);
        b.tick(450);
        assert_eq!(b.take_output(), [0x8e, 0, 5, 12, 0, 0x8e, 0, 5, 28, 7]);
        // A dump reports what the last scan saw, not what stands there now.
        b.lift(sq("g1"));
        b.receive(&[0x42]);
        b.tick(460);
        let dump = b.take_output();
        assert_eq!(dump[..3], [0x86, 0, 67]);
        assert_eq!(dump[3 + 62], 3, "g1's knight until the next scan");
        assert_eq!(b.mode(), Mode::UpdateBoard, "a dump leaves the mode alone");
    }

    #[test]
    fn a_rotated_board_numbers_from_h1() {
        let config = Config {
            rotated: true,
            ..Config::default()
        };
        let mut b = board_in_update_mode(config);
        let pawn = b.lift(sq("e2"));
        b.place(sq("e4"), pawn);
        b.tick(225);
        // Turned round, e2 is field 11 and e4 field 27: the old square comes first.
        assert_eq!(b.take_output(), [0x8e, 0, 5, 11, 0, 0x8e, 0, 5, 27, 1]);
    }

    #[test]
    fn a_flickering_man_comes_and_goes_then_stays() {
        let mut b = board_in_update_mode(Config::default());
        b.flicker(sq("g1"), 4);
        let mut updates = Vec::new();
        for t in 1..=6 {
            b.tick(225 * t);
            updates.extend(b.take_notes());
        }
        let g1 = Note::Update { field: 62, code: 0 };
        let back = Note::Update { field: 62, code: 3 };
        assert_eq!(updates, [g1.clone(), back.clone(), g1, back]);
    }

    #[test]
    fn no_updates_outside_update_mode_and_none_while_silent() {
        let mut b = Board::new(Config::default(), &start(), 0);
        b.receive(&[0x40]);
        b.tick(0);
        b.lift(sq("a2"));
        b.tick(300);
        assert!(b.take_output().is_empty());
        b.receive(&[0x44]);
        b.tick(310);
        b.silence(2000);
        b.lift(sq("b2"));
        b.receive(&[0x45]);
        b.tick(1000);
        assert!(b.take_output().is_empty());
        b.tick(2000);
        b.tick(2300);
        assert!(
            b.take_output().is_empty(),
            "the change was scanned while silent"
        );
        b.receive(&[0x45]);
        b.tick(2310);
        assert_eq!(b.take_output()[0], 0x91);
    }

    #[test]
    fn faults_make_the_bytes_they_promise() {
        let mut b = board_in_update_mode(Config::default());
        b.garbage(1000);
        let noise = b.take_output();
        assert_eq!(noise.len(), 1000);
        assert!(!noise.contains(&0x86));
        assert!(noise.iter().any(|&x| x & 0x80 != 0) && noise.iter().any(|&x| x & 0x80 == 0));
        b.truncated();
        assert_eq!(b.take_output().len(), 23);
        b.eeprom();
        let log = b.take_output();
        assert_eq!(log.len(), EE_MOVES_LEN + 3);
        assert_eq!(log[..3], [0x8f, 0x3e, 0x03]);
        assert!(log[3..].iter().all(|&x| x & 0x80 == 0));
    }

    #[test]
    fn replugged_as_another_board() {
        let mut b = Board::new(Config::default(), &start(), 0);
        b.receive(&[0x44]);
        b.tick(0);
        b.power_up(5000, Some("54321".into()));
        assert_eq!(b.mode(), Mode::Bus);
        b.receive(&[0x45]);
        b.tick(5000);
        let out = b.take_output();
        assert_eq!(out[3..], *b"54321");
    }
}
