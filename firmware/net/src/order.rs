//! The console's intake of one board: envelopes are taken by number, never in arrival
//! order; a gap is held back until the re-sent frame fills it; a new epoch (the board was
//! restarted) replaces whatever the old one still owed.

use std::collections::BTreeMap;

use crate::envelope::{Ack, Envelope};

/// What became of an arriving envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrived {
    /// The next in order, or one filling a gap: [`InOrder::pop_ready`] has work.
    Ready,
    /// Ahead of a gap: held until the gap is filled.
    Held,
    /// Already taken or already held: dropped.
    Duplicate,
    /// From an epoch before the current one (a board process that has since restarted).
    Stale,
    /// The first of an epoch later than the current one: what the old epoch still owed is
    /// dropped, and the link must resync from this epoch's own hello and snapshot.
    NewEpoch,
    /// Too far ahead to hold within the bound: dropped unacknowledged, the board sends it
    /// again.
    Dropped,
}

/// One board's frames, released in `seq` order.
#[derive(Debug, Clone)]
pub struct InOrder {
    epoch: Option<u64>,
    next: u64,
    pending: BTreeMap<u64, (u64, Vec<u8>)>,
    capacity: usize,
}

impl InOrder {
    /// A board this console has never heard: its first envelope sets the epoch and the place.
    pub fn new(capacity: usize) -> InOrder {
        InOrder {
            epoch: None,
            next: 0,
            pending: BTreeMap::new(),
            capacity: capacity.max(1),
        }
    }

    /// A board whose frames of `epoch` below `next` the journal already holds.
    pub fn resume(epoch: u64, next: u64, capacity: usize) -> InOrder {
        InOrder {
            epoch: Some(epoch),
            next,
            ..InOrder::new(capacity)
        }
    }

    pub fn epoch(&self) -> Option<u64> {
        self.epoch
    }

    /// Frames held back behind a gap.
    pub fn held(&self) -> usize {
        self.pending.len()
    }

    /// What the console acknowledges once it holds everything taken so far.
    pub fn ack(&self) -> Option<Ack> {
        self.epoch.map(|epoch| Ack {
            epoch,
            next: self.next,
        })
    }

    /// Takes an envelope in; `made_ms` (when the frame was made, on the caller's clock) is
    /// kept with it.
    pub fn arrive(&mut self, envelope: Envelope, made_ms: u64) -> Arrived {
        let Envelope {
            epoch, seq, frame, ..
        } = envelope;
        let first = match self.epoch {
            Some(current) if epoch < current => return Arrived::Stale,
            Some(current) if epoch == current => None,
            Some(_) => Some(Arrived::NewEpoch),
            // A board never heard before: its link greets it anyway.
            None => Some(Arrived::Ready),
        };
        if let Some(arrived) = first {
            self.epoch = Some(epoch);
            self.next = seq;
            self.pending.clear();
            self.pending.insert(seq, (made_ms, frame));
            return arrived;
        }
        if seq < self.next || self.pending.contains_key(&seq) {
            return Arrived::Duplicate;
        }
        let within = usize::try_from(seq - self.next).is_ok_and(|ahead| ahead < self.capacity);
        if !within || (self.pending.len() >= self.capacity) {
            return Arrived::Dropped;
        }
        self.pending.insert(seq, (made_ms, frame));
        if seq == self.next {
            Arrived::Ready
        } else {
            Arrived::Held
        }
    }

    /// The next frame in order, if it is here: its seq, when it was made, its bytes.
    pub fn pop_ready(&mut self) -> Option<(u64, u64, Vec<u8>)> {
        let (made_ms, frame) = self.pending.remove(&self.next)?;
        let seq = self.next;
        self.next += 1;
        Some((seq, made_ms, frame))
    }

    /// Whether the next frame in order is here.
    pub fn has_ready(&self) -> bool {
        self.pending.contains_key(&self.next)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    fn env(epoch: u64, seq: u64) -> Envelope {
        Envelope {
            epoch,
            seq,
            age_ms: 0,
            frame: vec![seq as u8],
        }
    }

    fn drain(o: &mut InOrder) -> Vec<u64> {
        std::iter::from_fn(|| o.pop_ready().map(|(s, _, _)| s)).collect()
    }

    #[test]
    fn a_gap_is_held_until_filled_and_repeats_are_dropped() {
        let mut o = InOrder::new(16);
        assert_eq!(o.arrive(env(3, 0), 0), Arrived::Ready);
        assert_eq!(drain(&mut o), [0]);
        assert_eq!(o.arrive(env(3, 2), 0), Arrived::Held);
        assert_eq!(o.arrive(env(3, 3), 0), Arrived::Held);
        assert_eq!(drain(&mut o), Vec::<u64>::new());
        assert_eq!(o.ack(), Some(Ack { epoch: 3, next: 1 }));
        assert_eq!(o.arrive(env(3, 0), 0), Arrived::Duplicate);
        assert_eq!(o.arrive(env(3, 2), 0), Arrived::Duplicate);
        assert_eq!(o.arrive(env(3, 1), 0), Arrived::Ready);
        assert_eq!(drain(&mut o), [1, 2, 3]);
        assert_eq!(o.ack(), Some(Ack { epoch: 3, next: 4 }));
    }

    #[test]
    fn a_later_epoch_replaces_the_old_one_and_an_earlier_one_is_stale() {
        let mut o = InOrder::resume(3, 10, 16);
        assert_eq!(o.arrive(env(3, 12), 0), Arrived::Held);
        assert_eq!(o.arrive(env(2, 11), 0), Arrived::Stale);
        assert_eq!(o.arrive(env(4, 0), 0), Arrived::NewEpoch);
        assert_eq!(o.held(), 1);
        assert_eq!(drain(&mut o), [0]);
        assert_eq!(o.arrive(env(3, 10), 0), Arrived::Stale);
    }

    #[test]
    fn what_is_too_far_ahead_is_not_held() {
        let mut o = InOrder::resume(1, 0, 4);
        assert_eq!(o.arrive(env(1, 4), 0), Arrived::Dropped);
        for s in 1..4 {
            assert_eq!(o.arrive(env(1, s), 0), Arrived::Held);
        }
        assert_eq!(o.arrive(env(1, 0), 0), Arrived::Ready);
        assert_eq!(drain(&mut o), [0, 1, 2, 3]);
    }

    proptest! {
        /// Whatever the order and the repeats, each frame is taken once, in order.
        #[test]
        fn any_arrival_order_gives_the_sent_order(order in Just((0..40u64).collect::<Vec<_>>()).prop_shuffle(), repeats in proptest::collection::vec(0..40u64, 0..20)) {
            let mut o = InOrder::resume(7, 0, 64);
            let mut taken = Vec::new();
            for s in order.iter().chain(repeats.iter()) {
                o.arrive(env(7, *s), 0);
                taken.extend(drain(&mut o));
            }
            prop_assert_eq!(taken, (0..40).collect::<Vec<_>>());
        }
    }
}
