//! The numbered envelope a board message travels in, and the console's acknowledgement.

use kriegspiel_link::MAX_FRAME;

/// Bytes before an ack's end: a format byte, the epoch and the sequence number.
const HEADER: usize = 1 + 8 + 8;
/// An envelope's header adds the frame's age.
const ENVELOPE_HEADER: usize = HEADER + 8;
/// The format this program writes and reads.
const FORMAT: u8 = 1;

/// The largest envelope: anything longer is not ours and is dropped unread.
pub const MAX_ENVELOPE: usize = ENVELOPE_HEADER + MAX_FRAME;

/// One link frame of a board, numbered within the board's boot (`epoch`): the console
/// applies frames by `seq`, never in arrival order, and `(board, epoch, seq)` makes a
/// re-sent frame harmless.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub epoch: u64,
    pub seq: u64,
    /// How long the board had kept it when it sent this copy (ms, on the board's own clock,
    /// so that the two machines' clocks need not agree): a frame that comes late, after an
    /// outage, is still judged by when the man moved, and in order with the other board.
    pub age_ms: u64,
    /// A whole encoded link frame (COBS, CRC), as on the serial line.
    pub frame: Vec<u8>,
}

/// The console holds every frame of `epoch` below `next`: the board may forget them.
/// Cumulative, so a lost or repeated ack does no harm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    pub epoch: u64,
    pub next: u64,
}

/// Why a payload is not an envelope or an ack of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeError {
    TooShort { len: usize },
    TooLong { len: usize },
    Format { found: u8 },
}

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvelopeError::TooShort { len } => write!(f, "{len} bytes is too short"),
            EnvelopeError::TooLong { len } => {
                write!(f, "{len} bytes is longer than the {MAX_ENVELOPE} allowed")
            }
            EnvelopeError::Format { found } => {
                write!(
                    f,
                    "format {found} is not {FORMAT}: a program of another version"
                )
            }
        }
    }
}

impl std::error::Error for EnvelopeError {}

fn header(bytes: &[u8]) -> Result<(u64, u64), EnvelopeError> {
    let len = bytes.len();
    let (format, rest) = bytes.split_first().ok_or(EnvelopeError::TooShort { len })?;
    if *format != FORMAT {
        return Err(EnvelopeError::Format { found: *format });
    }
    let number = |at: usize| {
        rest.get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_be_bytes)
            .ok_or(EnvelopeError::TooShort { len })
    };
    Ok((number(0)?, number(8)?))
}

fn write_header(out: &mut Vec<u8>, a: u64, b: u64) {
    out.push(FORMAT);
    out.extend_from_slice(&a.to_be_bytes());
    out.extend_from_slice(&b.to_be_bytes());
}

impl Envelope {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ENVELOPE_HEADER + self.frame.len());
        write_header(&mut out, self.epoch, self.seq);
        out.extend_from_slice(&self.age_ms.to_be_bytes());
        out.extend_from_slice(&self.frame);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Envelope, EnvelopeError> {
        if bytes.len() > MAX_ENVELOPE {
            return Err(EnvelopeError::TooLong { len: bytes.len() });
        }
        let (epoch, seq) = header(bytes)?;
        let too_short = EnvelopeError::TooShort { len: bytes.len() };
        let age_ms = bytes
            .get(HEADER..ENVELOPE_HEADER)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_be_bytes)
            .ok_or(too_short)?;
        let frame = bytes.get(ENVELOPE_HEADER..).unwrap_or_default();
        if frame.is_empty() {
            return Err(too_short);
        }
        Ok(Envelope {
            epoch,
            seq,
            age_ms,
            frame: frame.to_vec(),
        })
    }
}

impl Ack {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER);
        write_header(&mut out, self.epoch, self.next);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Ack, EnvelopeError> {
        Ack::decode_with(bytes).map(|(ack, _)| ack)
    }

    /// The ack as sent over the console's connection number `console`: a board that sees
    /// a new number sends everything unacknowledged at once, since whatever it sent while
    /// the console was away is lost, and waiting for its re-send timer would only delay
    /// the game's recovery.
    pub fn encode_with(&self, console: u64) -> Vec<u8> {
        let mut out = self.encode();
        out.extend_from_slice(&console.to_be_bytes());
        out
    }

    /// An ack, and the console's connection number when it carries one.
    pub fn decode_with(bytes: &[u8]) -> Result<(Ack, Option<u64>), EnvelopeError> {
        let len = bytes.len();
        let console = match len {
            HEADER => None,
            n if n == HEADER + 8 => bytes
                .get(HEADER..)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(u64::from_be_bytes),
            n if n > HEADER => return Err(EnvelopeError::TooLong { len }),
            _ => return Err(EnvelopeError::TooShort { len }),
        };
        let (epoch, next) = header(bytes)?;
        Ok((Ack { epoch, next }, console))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn envelopes_come_back_as_sent(epoch: u64, seq: u64, age_ms: u64, frame in proptest::collection::vec(any::<u8>(), 1..MAX_FRAME)) {
            let e = Envelope { epoch, seq, age_ms, frame };
            prop_assert_eq!(Envelope::decode(&e.encode()), Ok(e));
        }

        #[test]
        fn acks_come_back_with_their_console(epoch: u64, next: u64, console: u64) {
            let ack = Ack { epoch, next };
            prop_assert_eq!(Ack::decode_with(&ack.encode_with(console)), Ok((ack, Some(console))));
            prop_assert_eq!(Ack::decode_with(&ack.encode()), Ok((ack, None)));
            prop_assert_eq!(Ack::decode(&ack.encode_with(console)), Ok(ack));
        }

        #[test]
        fn any_bytes_decode_or_say_why(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = Envelope::decode(&bytes);
            let _ = Ack::decode(&bytes);
        }
    }

    #[test]
    fn bad_payloads_are_named() {
        assert_eq!(
            Envelope::decode(&[]),
            Err(EnvelopeError::TooShort { len: 0 })
        );
        assert_eq!(
            Envelope::decode(&[2; 20]),
            Err(EnvelopeError::Format { found: 2 })
        );
        let long = vec![1; MAX_ENVELOPE + 1];
        assert_eq!(
            Envelope::decode(&long),
            Err(EnvelopeError::TooLong {
                len: MAX_ENVELOPE + 1
            })
        );
        let header_only = Ack { epoch: 1, next: 2 }.encode();
        assert_eq!(
            Envelope::decode(&header_only),
            Err(EnvelopeError::TooShort { len: 17 })
        );
        let mut no_frame = header_only.clone();
        no_frame.extend_from_slice(&5u64.to_be_bytes());
        assert_eq!(
            Envelope::decode(&no_frame),
            Err(EnvelopeError::TooShort { len: 25 })
        );
        assert_eq!(Ack::decode(&header_only), Ok(Ack { epoch: 1, next: 2 }));
        assert_eq!(
            EnvelopeError::Format { found: 7 }.to_string(),
            "format 7 is not 1: a program of another version"
        );
    }
}
