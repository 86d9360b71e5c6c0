//! Framing: postcard body, CRC-32 trailer, COBS stuffing, `0x00` terminator.

use core::marker::PhantomData;

use crc::{Crc, CRC_32_ISO_HDLC};
use serde_nostd::de::DeserializeOwned;
use serde_nostd::Serialize;

use crate::{Error, Frame};

/// Encoded size upper bound, including the `0x00` terminator.
pub const MAX_FRAME: usize = 64;
/// Largest unstuffed frame (postcard bytes + 4 CRC bytes): COBS adds one byte below 254 bytes.
pub const MAX_PAYLOAD: usize = MAX_FRAME - 2;
const CRC_LEN: usize = 4;
/// Sequence number (>= 1 byte varint) + message tag (1 byte) + CRC.
const MIN_PAYLOAD: usize = 2 + CRC_LEN;

const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// Encodes one frame, terminator included, into `out`; returns the number of bytes written.
/// `out` needs at most [`MAX_FRAME`] bytes.
pub fn encode<B: Serialize>(frame: &Frame<B>, out: &mut [u8]) -> Result<usize, Error> {
    let mut raw = [0u8; MAX_PAYLOAD];
    let body_len = postcard::to_slice(frame, &mut raw[..MAX_PAYLOAD - CRC_LEN])
        .map_err(|_| Error::BufferTooSmall)?
        .len();
    let crc = CRC32.checksum(&raw[..body_len]).to_le_bytes();
    raw[body_len..body_len + CRC_LEN].copy_from_slice(&crc);
    let stuffed = cobs_encode(&raw[..body_len + CRC_LEN], out)?;
    let terminator = out.get_mut(stuffed).ok_or(Error::BufferTooSmall)?;
    *terminator = 0;
    Ok(stuffed + 1)
}

/// COBS-encodes `src` into `out` (no terminator); returns the encoded length.
fn cobs_encode(src: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    let needed = src.len() + src.len() / 254 + 1;
    if out.len() < needed {
        return Err(Error::BufferTooSmall);
    }
    let mut code_at = 0;
    let mut write = 1;
    let mut code: u8 = 1;
    for &byte in src {
        if byte == 0 {
            out[code_at] = code;
            code_at = write;
            write += 1;
            code = 1;
        } else {
            out[write] = byte;
            write += 1;
            code += 1;
            if code == 0xFF {
                out[code_at] = code;
                code_at = write;
                write += 1;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    Ok(write)
}

/// Undoes COBS in place; returns the decoded length (always <= `buf.len()`).
fn cobs_decode_in_place(buf: &mut [u8]) -> Result<usize, Error> {
    let len = buf.len();
    let mut read = 0;
    let mut write = 0;
    while read < len {
        let code = usize::from(buf[read]);
        if code == 0 {
            return Err(Error::Cobs);
        }
        read += 1;
        let end = read + code - 1;
        if end > len {
            return Err(Error::Cobs);
        }
        // write <= read - 1 always holds, so the copy only moves bytes towards the front.
        buf.copy_within(read..end, write);
        write += end - read;
        read = end;
        if code < 0xFF && read < len {
            buf[write] = 0;
            write += 1;
        }
    }
    Ok(write)
}

/// Byte-at-a-time decoder with a fixed buffer: never panics on any input, resynchronises at 0x00.
///
/// Empty frames (two zeros in a row, or a leading zero) are ignored, so a sender may emit a
/// lone `0x00` to flush a receiver that may hold a partial frame.
#[derive(Debug)]
pub struct Decoder<B> {
    buf: [u8; MAX_FRAME],
    len: usize,
    overflowed: bool,
    _body: PhantomData<fn() -> B>,
}

impl<B: DeserializeOwned> Default for Decoder<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B: DeserializeOwned> Decoder<B> {
    pub const fn new() -> Self {
        Decoder {
            buf: [0; MAX_FRAME],
            len: 0,
            overflowed: false,
            _body: PhantomData,
        }
    }

    /// Drops a partly received frame (e.g. after reopening the port).
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflowed = false;
    }

    /// Feed bytes; calls `on_frame` for each complete frame: Ok(frame) or Err(Error) for a bad one.
    pub fn feed(&mut self, bytes: &[u8], mut on_frame: impl FnMut(Result<Frame<B>, Error>)) {
        for &byte in bytes {
            if let Some(result) = self.push(byte) {
                on_frame(result);
            }
        }
    }

    /// Feed one byte; a result when it completed a (good or bad) frame.
    pub fn push(&mut self, byte: u8) -> Option<Result<Frame<B>, Error>> {
        if byte != 0 {
            if self.len < MAX_FRAME - 1 {
                self.buf[self.len] = byte;
                self.len += 1;
            } else {
                self.overflowed = true;
            }
            return None;
        }
        let len = self.len;
        let overflowed = self.overflowed;
        self.reset();
        if overflowed {
            return Some(Err(Error::TooLong));
        }
        if len == 0 {
            return None;
        }
        Some(Self::decode_stuffed(&mut self.buf[..len]))
    }

    fn decode_stuffed(stuffed: &mut [u8]) -> Result<Frame<B>, Error> {
        let raw_len = cobs_decode_in_place(stuffed)?;
        if raw_len < MIN_PAYLOAD {
            return Err(Error::TooShort);
        }
        let (body, crc) = stuffed[..raw_len].split_at(raw_len - CRC_LEN);
        let mut expected = [0u8; CRC_LEN];
        expected.copy_from_slice(crc);
        if CRC32.checksum(body) != u32::from_le_bytes(expected) {
            return Err(Error::Crc);
        }
        match postcard::take_from_bytes::<Frame<B>>(body) {
            Ok((frame, [])) => Ok(frame),
            Ok(_) | Err(_) => Err(Error::Decode),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use proptest::prelude::*;

    use super::*;
    use crate::{BoardMsg, ConsoleMsg, FaultCode};

    fn encoded<B: Serialize>(frame: &Frame<B>) -> Vec<u8> {
        let mut out = [0u8; MAX_FRAME];
        let n = encode(frame, &mut out).unwrap();
        out[..n].to_vec()
    }

    fn decode_all<B: DeserializeOwned>(bytes: &[u8]) -> Vec<Result<Frame<B>, Error>> {
        let mut decoder = Decoder::<B>::new();
        let mut out = Vec::new();
        decoder.feed(bytes, |r| out.push(r));
        out
    }

    fn board_msg() -> impl Strategy<Value = BoardMsg> {
        let fault = prop_oneof![
            Just(FaultCode::ScanError),
            Just(FaultCode::Overflow),
            Just(FaultCode::BadCommand),
            Just(FaultCode::BadFrame),
        ];
        prop_oneof![
            (any::<u16>(), any::<[u8; 3]>(), any::<u32>()).prop_map(
                |(protocol, firmware, board_id)| BoardMsg::Hello {
                    protocol,
                    firmware,
                    board_id
                }
            ),
            (any::<u64>(), any::<u32>()).prop_map(|(occupancy, board_ms)| BoardMsg::Snapshot {
                occupancy,
                board_ms
            }),
            (any::<u8>(), any::<u32>())
                .prop_map(|(square, board_ms)| BoardMsg::Lift { square, board_ms }),
            (any::<u8>(), any::<u32>())
                .prop_map(|(square, board_ms)| BoardMsg::Place { square, board_ms }),
            any::<u32>().prop_map(|board_ms| BoardMsg::Heartbeat { board_ms }),
            (fault, any::<u32>()).prop_map(|(code, board_ms)| BoardMsg::Fault { code, board_ms }),
        ]
    }

    fn console_msg() -> impl Strategy<Value = ConsoleMsg> {
        prop_oneof![
            any::<u16>().prop_map(|protocol| ConsoleMsg::Hello { protocol }),
            Just(ConsoleMsg::RequestSnapshot),
            any::<u32>().prop_map(|nonce| ConsoleMsg::Ping { nonce }),
            (any::<u8>(), any::<u16>()).prop_map(|(debounce_scans, scan_hz)| {
                ConsoleMsg::Configure {
                    debounce_scans,
                    scan_hz,
                }
            }),
        ]
    }

    #[test]
    fn largest_frames_fit() {
        let hello = Frame {
            seq: u16::MAX,
            body: BoardMsg::Hello {
                protocol: u16::MAX,
                firmware: [255; 3],
                board_id: u32::MAX,
            },
        };
        let snap = Frame {
            seq: u16::MAX,
            body: BoardMsg::Snapshot {
                occupancy: u64::MAX,
                board_ms: u32::MAX,
            },
        };
        for bytes in [encoded(&hello), encoded(&snap)] {
            assert!(bytes.len() <= MAX_FRAME);
            assert_eq!(bytes.last(), Some(&0));
            assert!(!bytes[..bytes.len() - 1].contains(&0));
        }
    }

    #[test]
    fn small_output_buffer_is_an_error() {
        let frame = Frame {
            seq: 1,
            body: BoardMsg::Heartbeat { board_ms: 5 },
        };
        let needed = encoded(&frame).len();
        let mut out = [0u8; MAX_FRAME];
        assert_eq!(
            encode(&frame, &mut out[..needed - 1]),
            Err(Error::BufferTooSmall)
        );
        assert_eq!(encode(&frame, &mut out[..needed]), Ok(needed));
    }

    #[test]
    fn bad_frames_are_classified() {
        let good = encoded(&Frame {
            seq: 7,
            body: BoardMsg::Lift {
                square: 12,
                board_ms: 1200,
            },
        });
        // Damaged payload byte -> CRC.
        let mut bad = good.clone();
        bad[3] ^= 0x10;
        assert_eq!(decode_all::<BoardMsg>(&bad), [Err(Error::Crc)]);
        // A code byte pointing past the end -> COBS.
        assert_eq!(decode_all::<BoardMsg>(&[0x09, 1, 2, 0]), [Err(Error::Cobs)]);
        // Too few bytes for a checksum.
        assert_eq!(
            decode_all::<BoardMsg>(&[0x03, 1, 2, 0]),
            [Err(Error::TooShort)]
        );
        // Noise longer than a frame.
        let mut long = std::vec![0x55u8; 200];
        long.push(0);
        assert_eq!(decode_all::<BoardMsg>(&long), [Err(Error::TooLong)]);
        // Valid CRC over something that is not a message (unknown tag 9) -> Decode.
        let mut raw = std::vec![7u8, 9, 1];
        raw.extend_from_slice(&CRC32.checksum(&raw).to_le_bytes());
        let mut stuffed = [0u8; MAX_FRAME];
        let n = cobs_encode(&raw, &mut stuffed).unwrap();
        let mut wire = stuffed[..n].to_vec();
        wire.push(0);
        assert_eq!(decode_all::<BoardMsg>(&wire), [Err(Error::Decode)]);
        // The decoder recovers: the good frame after all of the above decodes.
        let mut stream = bad;
        stream.extend_from_slice(&long);
        stream.extend_from_slice(&good);
        let results = decode_all::<BoardMsg>(&stream);
        assert_eq!(results.len(), 3);
        assert_eq!(
            results[2],
            Ok(Frame {
                seq: 7,
                body: BoardMsg::Lift {
                    square: 12,
                    board_ms: 1200
                }
            })
        );
    }

    #[test]
    fn empty_frames_are_ignored() {
        let good = encoded(&Frame {
            seq: 0,
            body: ConsoleMsg::RequestSnapshot,
        });
        let mut stream = std::vec![0, 0];
        stream.extend_from_slice(&good);
        stream.push(0);
        assert_eq!(
            decode_all::<ConsoleMsg>(&stream),
            [Ok(Frame {
                seq: 0,
                body: ConsoleMsg::RequestSnapshot
            })]
        );
    }

    #[test]
    fn cobs_handles_long_runs() {
        for len in [0usize, 1, 253, 254, 255, 600] {
            let src: Vec<u8> = (0..len)
                .map(|i| {
                    if i % 300 == 299 {
                        0
                    } else {
                        1 + (i % 250) as u8
                    }
                })
                .collect();
            let mut out = std::vec![0u8; len + len / 254 + 1];
            let n = cobs_encode(&src, &mut out).unwrap();
            assert!(!out[..n].contains(&0));
            let m = cobs_decode_in_place(&mut out[..n]).unwrap();
            assert_eq!(&out[..m], &src[..]);
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut board = Decoder::<BoardMsg>::new();
            let mut console = Decoder::<ConsoleMsg>::new();
            board.feed(&bytes, |_| {});
            console.feed(&bytes, |_| {});
            // And the decoders still work afterwards (after a flushing zero).
            let good = encoded(&Frame { seq: 1, body: BoardMsg::Heartbeat { board_ms: 9 } });
            let mut got = Vec::new();
            board.feed(&[0], |_| {});
            board.feed(&good, |r| got.push(r));
            prop_assert_eq!(got, std::vec![Ok(Frame { seq: 1, body: BoardMsg::Heartbeat { board_ms: 9 } })]);
        }

        #[test]
        fn board_frames_round_trip(seq in any::<u16>(), body in board_msg()) {
            let frame = Frame { seq, body };
            let bytes = encoded(&frame);
            prop_assert!(bytes.len() <= MAX_FRAME);
            prop_assert_eq!(decode_all::<BoardMsg>(&bytes), std::vec![Ok(frame)]);
        }

        #[test]
        fn console_frames_round_trip(seq in any::<u16>(), body in console_msg()) {
            let frame = Frame { seq, body };
            let bytes = encoded(&frame);
            prop_assert!(bytes.len() <= MAX_FRAME);
            prop_assert_eq!(decode_all::<ConsoleMsg>(&bytes), std::vec![Ok(frame)]);
        }

        #[test]
        fn any_single_corrupted_byte_is_detected(
            seq in any::<u16>(),
            body in board_msg(),
            index in any::<proptest::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let frame = Frame { seq, body };
            let mut bytes = encoded(&frame);
            let at = index.index(bytes.len());
            bytes[at] ^= flip;
            // A trailing zero flushes a frame whose terminator was the damaged byte.
            bytes.push(0);
            let results = decode_all::<BoardMsg>(&bytes);
            prop_assert!(results.iter().all(|r| r.is_err()), "accepted a damaged frame: {:?}", results);
            prop_assert!(!results.is_empty());
        }

        #[test]
        fn frames_in_a_stream_survive_neighbouring_damage(
            bodies in proptest::collection::vec(board_msg(), 3..10),
            victim in any::<proptest::sample::Index>(),
            flip in 1u8..=255,
        ) {
            // Damage one byte inside one frame (not its terminator): every other frame still decodes.
            let frames: Vec<Frame<BoardMsg>> =
                bodies.into_iter().enumerate().map(|(i, body)| Frame { seq: i as u16, body }).collect();
            let victim = victim.index(frames.len());
            let mut stream = Vec::new();
            for (i, frame) in frames.iter().enumerate() {
                let mut bytes = encoded(frame);
                if i == victim {
                    let last = bytes.len() - 1;
                    bytes[last / 2] ^= flip;
                }
                stream.extend_from_slice(&bytes);
            }
            let good: Vec<Frame<BoardMsg>> = decode_all::<BoardMsg>(&stream).into_iter().filter_map(Result::ok).collect();
            let expected: Vec<Frame<BoardMsg>> =
                frames.iter().enumerate().filter(|(i, _)| *i != victim).map(|(_, f)| *f).collect();
            prop_assert_eq!(good, expected);
        }
    }
}
