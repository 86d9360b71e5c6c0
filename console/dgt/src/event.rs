//! What the driver tells its user, and what it remembers per board.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::codes::{Orientation, Placement};

/// One thing that happened, timed by when its bytes reached the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Time since the driver started ([`crate::DgtHandle::started`]).
    pub at: Duration,
    pub event: DgtEvent,
}

/// The driver's events. After `Connected` or `Back` a `Position` always follows (the
/// first dump of that connection); then one `Position` each time the board settles in a
/// placement other than the last one reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DgtEvent {
    /// A board answered for the first time.
    Connected(Identity),
    /// A board answered again after [`DgtEvent::Lost`]. Its serial number may differ: then
    /// another board was plugged in.
    Back(Identity),
    /// The board has settled in this placement.
    Position(Placement),
    /// The board stopped answering or its port failed; the driver keeps reopening it.
    Lost(LostReason),
    /// No board yet (port cannot be opened, no DGT board answers); reported once per
    /// distinct reason, retried meanwhile.
    Waiting(String),
}

/// Who a board is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    /// Firmware version, major and minor (3.10 is `(3, 10)`).
    pub version: (u8, u8),
    /// The five-character serial number every board gives.
    pub serial: String,
    /// The ten-character serial number of newer and Bluetooth boards.
    pub long_serial: Option<String>,
}

impl Identity {
    /// The name a board is remembered by: its long serial number if it has one.
    pub fn key(&self) -> &str {
        self.long_serial.as_deref().unwrap_or(&self.serial)
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DGT board {} (firmware {}.{:02})",
            self.key(),
            self.version.0,
            self.version.1
        )
    }
}

/// Why a board is considered gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LostReason {
    /// It missed this many pulses (serial number requests) in a row.
    Silent { missed: u32 },
    /// The port closed (end of file).
    Closed,
    /// A read or write failed (an unplugged USB board).
    Io(String),
}

impl LostReason {
    /// Short lowercase name for JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            LostReason::Silent { .. } => "silent",
            LostReason::Closed => "closed",
            LostReason::Io(_) => "io_error",
        }
    }
}

impl fmt::Display for LostReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LostReason::Silent { missed } => {
                write!(
                    f,
                    "the board missed {missed} serial number requests in a row"
                )
            }
            LostReason::Closed => f.write_str("the port closed"),
            LostReason::Io(error) => write!(f, "I/O error: {error}"),
        }
    }
}

/// Counters for diagnosis; they only grow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Whole frames received.
    pub frames: u64,
    pub field_updates: u64,
    /// Dumps received; those taken as the truth; positions reported.
    pub dumps: u64,
    pub settled_dumps: u64,
    pub positions: u64,
    /// Bytes outside any frame.
    pub stray_bytes: u64,
    /// Frames cut short, of an impossible length, or too long.
    pub truncated: u64,
    pub bad_length: u64,
    pub oversize: u64,
    /// Move logs received (and dropped).
    pub ee_moves: u64,
    /// Commands written.
    pub commands: u64,
    /// Times the board was lost.
    pub lost: u64,
}

/// Which way round each board stands, by its [`Identity::key`], shared by every driver
/// given a clone. Bounded: beyond [`Orientations::CAPACITY`] boards the least recently
/// told is forgotten. Saved and read as text lines `SERIAL normal|rotated`.
#[derive(Debug, Clone, Default)]
pub struct Orientations(Arc<Mutex<Vec<(String, Orientation)>>>);

/// A line of an orientations file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrientationsError {
    pub line: usize,
    pub text: String,
}

impl fmt::Display for OrientationsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.text.chars().take(80).collect();
        write!(
            f,
            "orientations line {}: expected 'SERIAL normal|rotated', found '{shown}'",
            self.line
        )
    }
}

impl std::error::Error for OrientationsError {}

impl Orientations {
    /// More boards than any club owns.
    pub const CAPACITY: usize = 256;

    fn lock(&self) -> MutexGuard<'_, Vec<(String, Orientation)>> {
        // A panic elsewhere cannot leave the list half-changed: each change is one call.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How the board `key` stands, if known.
    pub fn get(&self, key: &str) -> Option<Orientation> {
        self.lock().iter().find(|(k, _)| k == key).map(|&(_, o)| o)
    }

    /// Remembers how the board `key` stands.
    pub fn remember(&self, key: &str, orientation: Orientation) {
        let mut list = self.lock();
        list.retain(|(k, _)| k != key);
        if list.len() >= Self::CAPACITY {
            list.remove(0);
        }
        list.push((key.to_owned(), orientation));
    }

    /// The text form, one board a line.
    pub fn to_text(&self) -> String {
        self.lock()
            .iter()
            .map(|(k, o)| format!("{k} {}\n", o.name()))
            .collect()
    }

    /// Reads the text form (blank lines and `#` comments allowed).
    pub fn parse(text: &str) -> Result<Orientations, OrientationsError> {
        let out = Orientations::default();
        for (i, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let bad = || OrientationsError {
                line: i + 1,
                text: line.to_owned(),
            };
            let mut fields = content.split_whitespace();
            let (Some(key), Some(name), None) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad());
            };
            let orientation = Orientation::from_name(name).ok_or_else(bad)?;
            out.remember(key, orientation);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientations_are_remembered_bounded_and_read_back() {
        let o = Orientations::default();
        o.remember("12345", Orientation::Rotated);
        o.remember("3000147740", Orientation::Normal);
        o.remember("12345", Orientation::Normal);
        assert_eq!(o.get("12345"), Some(Orientation::Normal));
        assert_eq!(o.get("99999"), None);
        let text = o.to_text();
        assert_eq!(text, "3000147740 normal\n12345 normal\n");
        let back = Orientations::parse(&format!("# boards\n\n{text}")).unwrap();
        assert_eq!(back.to_text(), text);
        let err = Orientations::parse("12345 sideways\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.to_string().contains("SERIAL normal|rotated"), "{err}");
        for i in 0..Orientations::CAPACITY + 10 {
            o.remember(&format!("b{i}"), Orientation::Rotated);
        }
        assert_eq!(o.lock().len(), Orientations::CAPACITY);
        assert_eq!(o.get("12345"), None);
        assert_eq!(o.get("b265"), Some(Orientation::Rotated));
    }

    #[test]
    fn an_identity_is_known_by_its_long_serial_if_it_has_one() {
        let mut id = Identity {
            version: (3, 10),
            serial: "12345".into(),
            long_serial: None,
        };
        assert_eq!(id.key(), "12345");
        assert_eq!(id.to_string(), "DGT board 12345 (firmware 3.10)");
        id.long_serial = Some("3000147740".into());
        assert_eq!(id.key(), "3000147740");
    }
}
