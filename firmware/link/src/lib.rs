//! The board <-> console wire protocol.
//!
//! One frame on the wire is `COBS(postcard(Frame) ++ CRC-32/ISO-HDLC little-endian) ++ 0x00`.
//! COBS removes every zero byte from the frame so that `0x00` can only mean "end of frame": a
//! receiver that lost track (noise, a cable plugged in mid-frame) resynchronises at the next
//! zero. The CRC makes a damaged frame detectable, and the per-direction sequence number makes a
//! lost frame detectable, so that the console never acts on a wrong event and always knows when
//! it has to ask for a fresh snapshot. See `docs/LINK.md` for the byte-level description.
#![no_std]

/// The serde this crate's messages implement (the no_std build of `serde`).
pub use serde_nostd as serde;

mod codec;
mod msg;
mod seq;
mod square;

pub use codec::{encode, Decoder, MAX_FRAME, MAX_PAYLOAD};
pub use msg::{
    check_version, BoardMs, BoardMsg, ConsoleMsg, FaultCode, Frame, VersionMismatch,
    PROTOCOL_VERSION,
};
pub use seq::{SeqCheck, SeqCounter, SeqTracker};
pub use square::{
    is_occupied, parse_square, square_name, with_square, without_square, SquareIndex,
};

/// The line speeds a board's UART and the console's port may be set to (baud): a UART
/// cannot run at 0, and none runs past 4 Mbaud.
pub const BAUD_RANGE: core::ops::RangeInclusive<u32> = 50..=4_000_000;

/// Why a frame could not be encoded or was rejected by the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The checksum does not match: bytes were damaged on the way.
    Crc,
    /// The byte stuffing is inconsistent (a code byte points past the end of the frame).
    Cobs,
    /// Checksum fine, but the content is not a valid message (e.g. a newer/older protocol).
    Decode,
    /// More bytes than any valid frame arrived before the next `0x00`.
    TooLong,
    /// Fewer bytes than the smallest valid frame (sequence number, tag and checksum).
    TooShort,
    /// The output buffer given to [`encode`] cannot hold the encoded frame.
    BufferTooSmall,
}

impl Error {
    /// Short lowercase name, used in logs and in the console's JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Error::Crc => "crc",
            Error::Cobs => "cobs",
            Error::Decode => "decode",
            Error::TooLong => "too_long",
            Error::TooShort => "too_short",
            Error::BufferTooSmall => "buffer_too_small",
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let text = match self {
            Error::Crc => "frame checksum mismatch",
            Error::Cobs => "invalid COBS byte stuffing",
            Error::Decode => "frame content is not a valid message",
            Error::TooLong => "frame longer than the protocol allows",
            Error::TooShort => "frame shorter than the smallest valid frame",
            Error::BufferTooSmall => "output buffer too small for the encoded frame",
        };
        f.write_str(text)
    }
}
