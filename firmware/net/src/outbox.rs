//! The board's numbered outbox: every frame stays until the console's ack covers it, and is
//! sent again when no ack came within the re-send time, whatever the broker remembers.

use std::collections::VecDeque;
use std::time::Duration;

use crate::envelope::{Ack, Envelope};

#[derive(Debug, Clone)]
struct Entry {
    envelope: Envelope,
    /// When the board made it (its wall clock, Unix ms).
    made_ms: u64,
    /// When it was last handed to the broker client; `None` if never.
    sent: Option<Duration>,
}

/// The outbox holds `capacity` frames the console has not acknowledged: the board must
/// start a new epoch (a resync for the console) rather than forget one silently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutboxFull {
    pub capacity: usize,
}

impl std::fmt::Display for OutboxFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} events are waiting for the console's acknowledgement",
            self.capacity
        )
    }
}

impl std::error::Error for OutboxFull {}

/// Frames of one epoch, numbered from 0, in the order the board made them.
#[derive(Debug, Clone)]
pub struct Outbox {
    epoch: u64,
    next_seq: u64,
    entries: VecDeque<Entry>,
    capacity: usize,
}

impl Outbox {
    pub fn new(epoch: u64, capacity: usize) -> Outbox {
        Outbox {
            epoch,
            next_seq: 0,
            entries: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Frames not yet acknowledged.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Numbers `frame` and keeps it until acknowledged; a full outbox hands the frame back.
    pub fn push(&mut self, frame: Vec<u8>, made_ms: u64) -> Result<u64, (OutboxFull, Vec<u8>)> {
        if self.entries.len() >= self.capacity {
            return Err((
                OutboxFull {
                    capacity: self.capacity,
                },
                frame,
            ));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.entries.push_back(Entry {
            envelope: Envelope {
                epoch: self.epoch,
                seq,
                age_ms: 0,
                frame,
            },
            made_ms,
            sent: None,
        });
        Ok(seq)
    }

    /// Starts `epoch` empty, from seq 0: what the console had not acknowledged is gone and it
    /// must take the board's next snapshot as the truth.
    pub fn restart(&mut self, epoch: u64) -> usize {
        let dropped = self.entries.len();
        self.epoch = epoch;
        self.next_seq = 0;
        self.entries.clear();
        dropped
    }

    /// Forgets what `ack` covers; an ack of another epoch covers nothing. Returns how many
    /// frames it freed.
    pub fn acknowledged(&mut self, ack: Ack) -> usize {
        if ack.epoch != self.epoch {
            return 0;
        }
        let before = self.entries.len();
        while self
            .entries
            .front()
            .is_some_and(|e| e.envelope.seq < ack.next)
        {
            self.entries.pop_front();
        }
        before - self.entries.len()
    }

    /// Up to `max` frames to send now, oldest first: those never sent and those sent at
    /// least `resend_after` ago, each with its age at `wall_ms` (the board's clock). Each is
    /// marked sent at `now`.
    pub fn due(
        &mut self,
        now: Duration,
        wall_ms: u64,
        resend_after: Duration,
        max: usize,
    ) -> Vec<Envelope> {
        let mut out = Vec::new();
        for entry in &mut self.entries {
            if out.len() >= max {
                break;
            }
            let due = entry
                .sent
                .is_none_or(|at| now.saturating_sub(at) >= resend_after);
            if due {
                entry.sent = Some(now);
                entry.envelope.age_ms = wall_ms.saturating_sub(entry.made_ms);
                out.push(entry.envelope.clone());
            }
        }
        out
    }

    /// Marks every frame unsent: after a reconnect the broker may have lost them all.
    pub fn resend_all(&mut self) {
        for entry in &mut self.entries {
            entry.sent = None;
        }
    }

    /// A frame handed to the client could not be queued: it is sent again at the next call.
    pub fn unsent(&mut self, seq: u64) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.envelope.seq == seq) {
            e.sent = None;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const SECOND: Duration = Duration::from_secs(1);

    fn seqs(v: &[Envelope]) -> Vec<u64> {
        v.iter().map(|e| e.seq).collect()
    }

    #[test]
    fn frames_are_sent_once_then_again_until_acknowledged() {
        let mut o = Outbox::new(5, 10);
        for b in 0..3u8 {
            assert_eq!(o.push(vec![b], 0).unwrap(), u64::from(b));
        }
        assert_eq!(seqs(&o.due(MS, 0, SECOND, 100)), [0, 1, 2]);
        assert!(
            o.due(500 * MS, 0, SECOND, 100).is_empty(),
            "not yet due again"
        );
        o.push(vec![3], 0).unwrap();
        assert_eq!(seqs(&o.due(600 * MS, 0, SECOND, 100)), [3]);
        assert_eq!(o.acknowledged(Ack { epoch: 5, next: 2 }), 2);
        assert_eq!(
            o.acknowledged(Ack { epoch: 4, next: 9 }),
            0,
            "another epoch's ack"
        );
        assert_eq!(seqs(&o.due(1001 * MS, 0, SECOND, 100)), [2]);
        assert_eq!(seqs(&o.due(1600 * MS, 0, SECOND, 100)), [3]);
        assert_eq!(o.acknowledged(Ack { epoch: 5, next: 4 }), 2);
        assert!(o.is_empty());
    }

    #[test]
    fn resending_is_paced_oldest_first() {
        let mut o = Outbox::new(1, 100);
        for b in 0..10u8 {
            o.push(vec![b], 0).unwrap();
        }
        assert_eq!(seqs(&o.due(MS, 0, SECOND, 4)), [0, 1, 2, 3]);
        assert_eq!(seqs(&o.due(2 * MS, 0, SECOND, 4)), [4, 5, 6, 7]);
        o.unsent(5);
        o.resend_all();
        assert_eq!(seqs(&o.due(3 * MS, 0, SECOND, 3)), [0, 1, 2]);
    }

    #[test]
    fn each_copy_says_how_long_the_board_kept_the_frame() {
        let mut o = Outbox::new(1, 10);
        o.push(vec![0], 5_000).unwrap();
        let first = o.due(MS, 5_003, SECOND, 10);
        assert_eq!(first[0].age_ms, 3);
        let again = o.due(2 * SECOND, 7_500, SECOND, 10);
        assert_eq!(again[0].age_ms, 2_500);
    }

    #[test]
    fn a_full_outbox_hands_the_frame_back_and_a_new_epoch_starts_empty() {
        let mut o = Outbox::new(1, 2);
        o.push(vec![0], 0).unwrap();
        o.push(vec![1], 0).unwrap();
        let (full, frame) = o.push(vec![2], 0).unwrap_err();
        assert_eq!((full.capacity, frame), (2, vec![2]));
        assert_eq!(o.restart(9), 2);
        assert_eq!((o.epoch(), o.len()), (9, 0));
        assert_eq!(o.push(vec![3], 0).unwrap(), 0);
    }
}
