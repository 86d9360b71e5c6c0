//! The bytes on the wire: the board's messages (framed) and the commands sent to it.
//!
//! A board→PC message is `id | 0x80`, then its total length (header included) as two 7-bit
//! bytes, high first, then the data; every byte after the id has its top bit clear, and
//! there is no checksum. So the decoder resynchronises on the next byte with its top bit
//! set: a frame cut short is dropped there, and stray bytes between frames are skipped.

use std::fmt;

use crate::codes::Code;

/// A message id as it appears on the wire (top bit set).
pub mod id {
    /// Board dump: 64 field codes.
    pub const BOARD_DUMP: u8 = 0x86;
    /// Clock times, or a clock's acknowledgement.
    pub const BWTIME: u8 = 0x8d;
    /// Field update: field, code.
    pub const FIELD_UPDATE: u8 = 0x8e;
    /// The board's move log (about 8 KB), sent on request or, by some boards, unasked.
    pub const EE_MOVES: u8 = 0x8f;
    /// Bus address: two 7-bit bytes.
    pub const BUSADRES: u8 = 0x90;
    /// Serial number: five ASCII characters.
    pub const SERIALNR: u8 = 0x91;
    /// Trademark text (variable).
    pub const TRADEMARK: u8 = 0x92;
    /// Firmware version: major, minor.
    pub const VERSION: u8 = 0x93;
    /// Battery status of a Bluetooth board (variable).
    pub const BATTERY_STATUS: u8 = 0xa0;
    /// Long serial number: ten ASCII characters.
    pub const LONG_SERIALNR: u8 = 0xa2;
}

/// The longest frame the two length bytes can say (header included).
pub const MAX_FRAME_LEN: usize = 0x3fff;

/// The most data bytes kept for a message other than the move log; a longer frame is
/// skipped as oversize. The longest real one is a trademark text of about 150 bytes.
pub const MAX_KEPT_DATA: usize = 256;

/// A PC→board command. Each is one byte; the board holds only about ten bytes of input, so
/// the driver paces them (see [`crate::Timing::pace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Back to idle (no reply).
    Reset,
    /// Clock times once.
    SendClock,
    /// A board dump (does not change the mode).
    SendBoard,
    /// Update mode with clock messages at least every second.
    SendUpdate,
    /// Update mode, field updates only (no clock messages).
    SendUpdateBoard,
    /// Update mode with clock messages when the time changes.
    SendUpdateNice,
    /// The five-character serial number.
    ReturnSerialNr,
    /// The ten-character serial number (newer and Bluetooth boards).
    ReturnLongSerialNr,
    /// The bus address.
    ReturnBusAdres,
    /// The trademark text.
    SendTrademark,
    /// The firmware version: the "is this a DGT board" probe.
    SendVersion,
    /// The move log (about 8 KB, 8 s at 9600 baud): never on the hot path.
    SendEeMoves,
    /// Battery status (Bluetooth boards).
    SendBatteryStatus,
}

impl Command {
    /// The command's byte.
    pub const fn byte(self) -> u8 {
        match self {
            Command::Reset => 0x40,
            Command::SendClock => 0x41,
            Command::SendBoard => 0x42,
            Command::SendUpdate => 0x43,
            Command::SendUpdateBoard => 0x44,
            Command::SendUpdateNice => 0x4b,
            Command::ReturnSerialNr => 0x45,
            Command::ReturnLongSerialNr => 0x55,
            Command::ReturnBusAdres => 0x46,
            Command::SendTrademark => 0x47,
            Command::SendVersion => 0x4d,
            Command::SendEeMoves => 0x49,
            Command::SendBatteryStatus => 0x4c,
        }
    }
}

/// One whole message from the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// The 64 field codes, field 0 first.
    BoardDump(Box<[Code; 64]>),
    /// Something changed on `field`; `code` is what the board now sees there.
    FieldUpdate {
        field: u8,
        code: Code,
    },
    Version {
        major: u8,
        minor: u8,
    },
    SerialNumber(String),
    LongSerialNumber(String),
    BusAddress(u16),
    Trademark(String),
    /// Clock times or a clock acknowledgement (seven data bytes, undecoded).
    Clock([u8; 7]),
    BatteryStatus(Vec<u8>),
    /// The move log: its data was counted and dropped, never kept.
    EeMoves {
        data_len: usize,
    },
    /// A message this driver does not use.
    Other {
        id: u8,
        data: Vec<u8>,
    },
}

/// Why bytes were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// Bytes outside any frame (top bit clear where an id was due).
    Stray { bytes: usize },
    /// A frame cut short by the next id: `got` of its `len` bytes came.
    Truncated { id: u8, len: usize, got: usize },
    /// A length that no frame of this id has (or under the three header bytes).
    BadLength { id: u8, len: usize },
    /// A frame longer than [`MAX_KEPT_DATA`] for an id that is never that long.
    Oversize { id: u8, len: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FrameError::Stray { bytes } => write!(f, "{bytes} stray byte(s) outside any frame"),
            FrameError::Truncated { id, len, got } => {
                write!(f, "frame {id:#04x} cut short: {got} of {len} bytes")
            }
            FrameError::BadLength { id, len } => {
                write!(f, "frame {id:#04x} with impossible length {len}")
            }
            FrameError::Oversize { id, len } => {
                write!(f, "frame {id:#04x} too long ({len} bytes), skipped")
            }
        }
    }
}

impl std::error::Error for FrameError {}

/// The total length a message of this id must have, if fixed.
fn fixed_len(id: u8) -> Option<usize> {
    match id {
        id::BOARD_DUMP => Some(67),
        id::FIELD_UPDATE | id::VERSION | id::BUSADRES => Some(5),
        id::SERIALNR => Some(8),
        id::LONG_SERIALNR => Some(13),
        id::BWTIME => Some(10),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for an id byte.
    Idle,
    /// Have the id, `have` length bytes so far.
    Length { id: u8, high: u8, have: u8 },
    /// In the data; `keep` says whether they are stored or only counted.
    Data {
        id: u8,
        len: usize,
        got: usize,
        keep: bool,
    },
}

/// Board→PC frame decoder. Memory is bounded by [`MAX_KEPT_DATA`] whatever comes in.
#[derive(Debug, Clone)]
pub struct Decoder {
    state: State,
    data: Vec<u8>,
    stray: usize,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            state: State::Idle,
            data: Vec::with_capacity(MAX_KEPT_DATA),
            stray: 0,
        }
    }

    /// Whether a frame has begun and not ended: a long one (the move log) keeps the board
    /// busy for seconds, and its bytes are a sign of life.
    pub fn in_frame(&self) -> bool {
        !matches!(self.state, State::Idle)
    }

    /// Feeds bytes; every whole message, and every run of dropped bytes, goes to `out` in
    /// order.
    pub fn feed(&mut self, bytes: &[u8], mut out: impl FnMut(Result<Message, FrameError>)) {
        for &b in bytes {
            self.byte(b, &mut out);
        }
    }

    fn byte(&mut self, b: u8, out: &mut impl FnMut(Result<Message, FrameError>)) {
        if b & 0x80 != 0 {
            // An id always starts a frame; whatever was under way was cut short.
            match self.state {
                State::Idle => {}
                State::Length { id, have, .. } => out(Err(FrameError::Truncated {
                    id,
                    len: 0,
                    got: 1 + usize::from(have),
                })),
                State::Data { id, len, got, .. } => out(Err(FrameError::Truncated {
                    id,
                    len,
                    got: 3 + got,
                })),
            }
            if self.stray > 0 {
                out(Err(FrameError::Stray { bytes: self.stray }));
                self.stray = 0;
            }
            self.data.clear();
            self.state = State::Length {
                id: b,
                high: 0,
                have: 0,
            };
            return;
        }
        match self.state {
            State::Idle => self.stray = self.stray.saturating_add(1),
            State::Length { id, have: 0, .. } => {
                self.state = State::Length {
                    id,
                    high: b,
                    have: 1,
                }
            }
            State::Length { id, high, .. } => {
                let len = (usize::from(high) << 7) | usize::from(b);
                self.start_data(id, len, out);
            }
            State::Data { id, len, got, keep } => {
                if keep {
                    self.data.push(b);
                }
                let got = got + 1;
                if 3 + got == len {
                    self.state = State::Idle;
                    let message = self.message(id, got);
                    out(Ok(message));
                } else {
                    self.state = State::Data { id, len, got, keep };
                }
            }
        }
    }

    fn start_data(
        &mut self,
        id: u8,
        len: usize,
        out: &mut impl FnMut(Result<Message, FrameError>),
    ) {
        let fixed = fixed_len(id);
        if len < 3 || fixed.is_some_and(|f| f != len) {
            out(Err(FrameError::BadLength { id, len }));
            // Its data (if any) are skipped as stray bytes up to the next id.
            self.state = State::Idle;
            return;
        }
        let keep = id != id::EE_MOVES;
        if keep && len - 3 > MAX_KEPT_DATA {
            out(Err(FrameError::Oversize { id, len }));
            self.state = State::Idle;
            return;
        }
        if len == 3 {
            self.state = State::Idle;
            let message = self.message(id, 0);
            out(Ok(message));
            return;
        }
        self.state = State::Data {
            id,
            len,
            got: 0,
            keep,
        };
    }

    fn message(&mut self, id: u8, data_len: usize) -> Message {
        let data = std::mem::take(&mut self.data);
        let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
        let message = match id {
            id::BOARD_DUMP => {
                let mut fields = [0u8; 64];
                fields.copy_from_slice(&data[..64]);
                Message::BoardDump(Box::new(fields))
            }
            id::FIELD_UPDATE => Message::FieldUpdate {
                field: data[0],
                code: data[1],
            },
            id::VERSION => Message::Version {
                major: data[0],
                minor: data[1],
            },
            id::SERIALNR => Message::SerialNumber(text(&data)),
            id::LONG_SERIALNR => Message::LongSerialNumber(text(&data)),
            id::BUSADRES => Message::BusAddress((u16::from(data[0]) << 7) | u16::from(data[1])),
            id::TRADEMARK => Message::Trademark(text(&data)),
            id::BWTIME => {
                let mut clock = [0u8; 7];
                clock.copy_from_slice(&data[..7]);
                Message::Clock(clock)
            }
            id::BATTERY_STATUS => Message::BatteryStatus(data.clone()),
            id::EE_MOVES => Message::EeMoves { data_len },
            _ => Message::Other {
                id,
                data: data.clone(),
            },
        };
        // Keep the allocation for the next frame.
        self.data = data;
        self.data.clear();
        message
    }
}

/// Encodes a board→PC frame (for emulators and tests). `None` when the data do not fit in
/// a frame or a data byte has its top bit set.
pub fn encode_frame(id: u8, data: &[u8]) -> Option<Vec<u8>> {
    let len = data.len() + 3;
    if len > MAX_FRAME_LEN || id & 0x80 == 0 || data.iter().any(|b| b & 0x80 != 0) {
        return None;
    }
    let mut frame = Vec::with_capacity(len);
    // len <= 0x3fff: both halves fit in seven bits.
    frame.push(id);
    frame.push(u8::try_from(len >> 7).ok()?);
    frame.push(u8::try_from(len & 0x7f).ok()?);
    frame.extend_from_slice(data);
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Vec<Result<Message, FrameError>> {
        let mut out = Vec::new();
        Decoder::new().feed(bytes, |m| out.push(m));
        out
    }

    fn dump_frame(fields: &[u8; 64]) -> Vec<u8> {
        let mut f = vec![0x86, 0x00, 0x43];
        f.extend_from_slice(fields);
        f
    }

    fn start_fields() -> [u8; 64] {
        let mut f = [0u8; 64];
        f[..8].copy_from_slice(&[8, 9, 10, 12, 11, 10, 9, 8]);
        f[8..16].fill(7);
        f[48..56].fill(1);
        f[56..].copy_from_slice(&[2, 3, 4, 6, 5, 4, 3, 2]);
        f
    }

    #[test]
    fn golden_frames_from_the_protocol() {
        // Version "1.02", a field update, a serial number, the bus address of serial 01025.
        let mut bytes = vec![0x93, 0x00, 0x05, 0x01, 0x02, 0x8e, 0x00, 0x05, 36, 0x01];
        bytes.extend_from_slice(&[0x91, 0x00, 0x08, b'1', b'2', b'3', b'4', b'5']);
        bytes.extend_from_slice(&[0x90, 0x00, 0x05, 0x08, 0x01]);
        bytes.extend_from_slice(&[
            0xa2, 0x00, 0x0d, b'3', b'0', b'0', b'0', b'1', b'4', b'7', b'7', b'4', b'0',
        ]);
        bytes.extend(dump_frame(&start_fields()));
        assert_eq!(
            decode(&bytes),
            [
                Ok(Message::Version { major: 1, minor: 2 }),
                Ok(Message::FieldUpdate { field: 36, code: 1 }),
                Ok(Message::SerialNumber("12345".into())),
                Ok(Message::BusAddress(0x401)),
                Ok(Message::LongSerialNumber("3000147740".into())),
                Ok(Message::BoardDump(Box::new(start_fields()))),
            ]
        );
    }

    #[test]
    fn bytes_split_anywhere_decode_the_same() {
        let mut bytes = dump_frame(&start_fields());
        bytes.extend_from_slice(&[0x8e, 0x00, 0x05, 12, 0x00]);
        let whole = decode(&bytes);
        for cut in 0..bytes.len() {
            let mut out = Vec::new();
            let mut d = Decoder::new();
            d.feed(&bytes[..cut], |m| out.push(m));
            d.feed(&bytes[cut..], |m| out.push(m));
            assert_eq!(out, whole, "cut at {cut}");
        }
    }

    #[test]
    fn garbage_is_skipped_and_the_next_frame_read() {
        // Stray 7-bit bytes, then an unknown id with a silly length, then a real update.
        let bytes = [
            0x01, 0x7f, 0x33, 0xc3, 0x7f, 0x7f, 0x10, 0x8e, 0x00, 0x05, 52, 0x00,
        ];
        let out = decode(&bytes);
        assert_eq!(
            out,
            [
                Err(FrameError::Stray { bytes: 3 }),
                Err(FrameError::Oversize {
                    id: 0xc3,
                    len: 0x3fff
                }),
                Err(FrameError::Stray { bytes: 1 }),
                Ok(Message::FieldUpdate { field: 52, code: 0 }),
            ]
        );
    }

    #[test]
    fn a_truncated_frame_is_dropped_at_the_next_id() {
        let mut bytes = dump_frame(&start_fields());
        bytes.truncate(30);
        bytes.extend_from_slice(&[0x8e, 0x00, 0x05, 36, 0x01]);
        bytes.extend_from_slice(&[0x93, 0x00]);
        bytes.extend_from_slice(&[0x93, 0x00, 0x05, 3, 10]);
        assert_eq!(
            decode(&bytes),
            [
                Err(FrameError::Truncated {
                    id: 0x86,
                    len: 67,
                    got: 30
                }),
                Ok(Message::FieldUpdate { field: 36, code: 1 }),
                Err(FrameError::Truncated {
                    id: 0x93,
                    len: 0,
                    got: 2
                }),
                Ok(Message::Version {
                    major: 3,
                    minor: 10
                }),
            ]
        );
    }

    #[test]
    fn wrong_lengths_are_refused_and_their_data_skipped() {
        let bytes = [
            0x86, 0x00, 0x05, 1, 2, // a "dump" of two fields
            0x8e, 0x00, 0x02, // shorter than its own header
            0x91, 0x00, 0x05, // a serial number with no characters
            0x8e, 0x00, 0x05, 1, 2,
        ];
        assert_eq!(
            decode(&bytes),
            [
                Err(FrameError::BadLength { id: 0x86, len: 5 }),
                Err(FrameError::Stray { bytes: 2 }),
                Err(FrameError::BadLength { id: 0x8e, len: 2 }),
                Err(FrameError::BadLength { id: 0x91, len: 5 }),
                Ok(Message::FieldUpdate { field: 1, code: 2 }),
            ]
        );
    }

    #[test]
    fn the_move_log_is_counted_not_kept() {
        // An unasked 8 KB move log between two updates.
        let mut bytes = vec![0x8e, 0x00, 0x05, 1, 2];
        let log = vec![0x55u8; 0x1f00];
        bytes.extend(encode_frame(id::EE_MOVES, &log).unwrap());
        bytes.extend_from_slice(&[0x8e, 0x00, 0x05, 3, 4]);
        let mut decoder = Decoder::new();
        let mut out = Vec::new();
        let mut biggest = 0;
        for chunk in bytes.chunks(100) {
            decoder.feed(chunk, |m| out.push(m));
            biggest = biggest.max(decoder.data.capacity());
        }
        assert_eq!(
            out,
            [
                Ok(Message::FieldUpdate { field: 1, code: 2 }),
                Ok(Message::EeMoves { data_len: 0x1f00 }),
                Ok(Message::FieldUpdate { field: 3, code: 4 }),
            ]
        );
        assert!(biggest <= MAX_KEPT_DATA, "kept {biggest} bytes");
        // The largest length there is, cut short by the next frame.
        let mut bytes = vec![0x8f, 0x7f, 0x7f];
        bytes.extend(std::iter::repeat_n(0u8, 20_000));
        bytes.extend_from_slice(&[0x8e, 0x00, 0x05, 5, 6]);
        assert_eq!(
            decode(&bytes),
            [
                Ok(Message::EeMoves { data_len: 16_380 }),
                Err(FrameError::Stray {
                    bytes: 20_000 - 16_380
                }),
                Ok(Message::FieldUpdate { field: 5, code: 6 }),
            ]
        );
    }

    #[test]
    fn variable_messages_and_unknown_ids() {
        let mut bytes = encode_frame(id::TRADEMARK, b"Digital Game Technology").unwrap();
        bytes.extend(encode_frame(0xb1, &[1, 2, 3]).unwrap());
        bytes.extend(encode_frame(id::BATTERY_STATUS, &[0x58, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap());
        bytes.extend(encode_frame(0xb2, &[]).unwrap());
        assert_eq!(
            decode(&bytes),
            [
                Ok(Message::Trademark("Digital Game Technology".into())),
                Ok(Message::Other {
                    id: 0xb1,
                    data: vec![1, 2, 3]
                }),
                Ok(Message::BatteryStatus(vec![0x58, 0, 0, 0, 0, 0, 0, 0, 0])),
                Ok(Message::Other {
                    id: 0xb2,
                    data: vec![]
                }),
            ]
        );
        assert_eq!(encode_frame(0x12, &[]), None);
        assert_eq!(encode_frame(0x86, &[0x80]), None);
        assert_eq!(encode_frame(0x8f, &vec![0; MAX_FRAME_LEN - 2]), None);
    }

    #[test]
    fn command_bytes() {
        assert_eq!(
            [
                Command::Reset,
                Command::SendBoard,
                Command::SendUpdateBoard,
                Command::SendUpdateNice,
                Command::ReturnSerialNr,
                Command::ReturnLongSerialNr,
                Command::SendVersion
            ]
            .map(Command::byte),
            [0x40, 0x42, 0x44, 0x4b, 0x45, 0x55, 0x4d]
        );
    }
}
