//! The last bytes that went to and came from a board, for diagnosing a misbehaving board
//! or cable. Bounded: the oldest bytes are forgotten first.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

/// Which way bytes went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    FromBoard,
    ToBoard,
}

/// Bytes that went one way at one time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// Counts entries from 1 since the log began, so a reader can ask for the new ones.
    pub seq: u64,
    pub at: Duration,
    pub direction: Direction,
    pub bytes: Vec<u8>,
}

impl fmt::Display for RawEntry {
    /// `12.345 <- 8e 00 05 24 01` (`->` for bytes sent to the board).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arrow = match self.direction {
            Direction::FromBoard => "<-",
            Direction::ToBoard => "->",
        };
        write!(f, "{:.3} {arrow}", self.at.as_secs_f64())?;
        for b in &self.bytes {
            write!(f, " {b:02x}")?;
        }
        Ok(())
    }
}

/// A byte log holding at most `capacity` bytes.
#[derive(Debug, Clone)]
pub struct RawLog {
    capacity: usize,
    held: usize,
    seq: u64,
    entries: VecDeque<RawEntry>,
}

impl RawLog {
    /// The default: the last 16 KiB (a few minutes of play; a move log fills it).
    pub const DEFAULT_CAPACITY: usize = 16 * 1024;

    pub fn new(capacity: usize) -> RawLog {
        RawLog {
            capacity,
            held: 0,
            seq: 0,
            entries: VecDeque::new(),
        }
    }

    /// Adds bytes; a chunk longer than the whole log keeps only its end.
    pub fn record(&mut self, at: Duration, direction: Direction, bytes: &[u8]) {
        if bytes.is_empty() || self.capacity == 0 {
            return;
        }
        let bytes = &bytes[bytes.len().saturating_sub(self.capacity)..];
        while self.held + bytes.len() > self.capacity {
            match self.entries.pop_front() {
                Some(old) => self.held -= old.bytes.len(),
                None => break,
            }
        }
        self.held += bytes.len();
        self.seq += 1;
        self.entries.push_back(RawEntry {
            seq: self.seq,
            at,
            direction,
            bytes: bytes.to_vec(),
        });
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &RawEntry> {
        self.entries.iter()
    }

    /// The entries after `seq`, oldest first.
    pub fn since(&self, seq: u64) -> impl Iterator<Item = &RawEntry> {
        self.entries.iter().filter(move |e| e.seq > seq)
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.held
    }

    pub fn is_empty(&self) -> bool {
        self.held == 0
    }
}

impl Default for RawLog {
    fn default() -> Self {
        RawLog::new(Self::DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_newest_bytes_within_its_capacity() {
        let mut log = RawLog::new(10);
        log.record(Duration::from_millis(1), Direction::ToBoard, &[0x4d]);
        log.record(
            Duration::from_millis(12_345),
            Direction::FromBoard,
            &[0x93, 0, 5, 3, 10],
        );
        let lines: Vec<String> = log.entries().map(ToString::to_string).collect();
        assert_eq!(lines, ["0.001 -> 4d", "12.345 <- 93 00 05 03 0a"]);
        log.record(Duration::ZERO, Direction::FromBoard, &[1, 2, 3, 4, 5]);
        assert_eq!(log.len(), 10);
        assert_eq!(log.entries().count(), 2);
        log.record(Duration::ZERO, Direction::FromBoard, &[9; 25]);
        assert_eq!(log.len(), 10);
        assert_eq!(log.entries().count(), 1);
        assert_eq!(log.since(3).count(), 1);
        assert_eq!(log.since(4).count(), 0);
        log.record(Duration::ZERO, Direction::FromBoard, &[]);
        assert_eq!(log.entries().count(), 1);
    }
}
