//! What the journal must keep of a networked board's epoch. A board sends about seven
//! frames a second (snapshots, heartbeats), so an evening's epoch is 100,000 frames a
//! board, and a restarted console would replay them all. Only two things of the frames its
//! table already applied matter to a restart: the epoch's first Hello (a link starts from
//! it) and the latest snapshot applied (the board's men then, the result of every frame
//! before it). The frames between those two can go.

use std::collections::VecDeque;
use std::ops::Range;

use kriegspiel_link::{BoardMsg, Decoder};

use crate::journal::StoredFrame;

/// Recent snapshots remembered per board: the table applies within a few of them.
const SNAPSHOTS: usize = 64;

/// One board's epoch, as far as compaction needs it.
#[derive(Debug, Default)]
pub(super) struct Kept {
    epoch: u64,
    /// The seq of the epoch's first Hello.
    hello: Option<u64>,
    /// The seqs of the latest snapshots, oldest first.
    snapshots: VecDeque<u64>,
    /// Rows between the hello and this seq are gone already.
    compacted_to: u64,
    /// Frames stored since the last compaction.
    pub(super) stored: u64,
}

impl Kept {
    /// Notes a frame of `epoch` as stored (live, or read back at a restart).
    pub(super) fn saw(&mut self, epoch: u64, seq: u64, bytes: &[u8]) {
        if epoch != self.epoch {
            *self = Kept {
                epoch,
                ..Kept::default()
            };
        }
        self.stored += 1;
        match body(bytes) {
            Some(BoardMsg::Hello { .. }) if self.hello.is_none() => self.hello = Some(seq),
            Some(BoardMsg::Snapshot { .. }) => {
                if self.snapshots.len() == SNAPSHOTS {
                    self.snapshots.pop_front();
                }
                self.snapshots.push_back(seq);
            }
            _ => {}
        }
    }

    /// The seqs of `epoch` that may go now that its table applied through `applied`: after
    /// the hello, before the latest snapshot applied.
    pub(super) fn removable(&self, epoch: u64, applied: u64) -> Option<Range<u64>> {
        if epoch != self.epoch {
            return None;
        }
        let hello = self.hello?;
        let snapshot = *self
            .snapshots
            .iter()
            .rev()
            .find(|s| **s <= applied && **s > hello)?;
        let from = (hello + 1).max(self.compacted_to);
        (from < snapshot).then_some(from..snapshot)
    }

    /// `seqs` are gone; the board is due again after as many frames once `whole` (the
    /// removable range was done, not a part of it).
    pub(super) fn compacted(&mut self, seqs: &Range<u64>, whole: bool) {
        self.compacted_to = self.compacted_to.max(seqs.end);
        if whole {
            self.stored = 0;
        }
    }
}

/// What a restarted console need not read back of a board's epoch, its table having
/// applied it through `applied`: what compaction would drop now (after the epoch's first
/// hello, before the latest snapshot applied). `first`: the epoch's first stored frames, in
/// order; `recent`: the stored frames up to `applied`, the latest first. Without this a
/// restart replays every frame since the last compaction (up to 4,096 a board).
pub(super) fn skippable(first: &[StoredFrame], recent: &[StoredFrame]) -> Option<Range<u64>> {
    let hello = first
        .iter()
        .find(|(_, _, bytes)| matches!(body(bytes), Some(BoardMsg::Hello { .. })))?
        .0;
    let snapshot = recent
        .iter()
        .take_while(|(seq, _, _)| *seq > hello)
        .find(|(_, _, bytes)| matches!(body(bytes), Some(BoardMsg::Snapshot { .. })))?
        .0;
    (hello + 1 < snapshot).then_some(hello + 1..snapshot)
}

fn body(bytes: &[u8]) -> Option<BoardMsg> {
    let mut body = None;
    Decoder::<BoardMsg>::new().feed(bytes, |f| body = f.ok().map(|f| f.body));
    body
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kriegspiel_link::{encode, Frame, MAX_FRAME};

    fn frame(seq: u16, body: BoardMsg) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME];
        let n = encode(&Frame { seq, body }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn hello() -> BoardMsg {
        BoardMsg::Hello {
            protocol: kriegspiel_link::PROTOCOL_VERSION,
            firmware: [1, 0, 0],
            board_id: 7,
        }
    }

    fn snapshot() -> BoardMsg {
        BoardMsg::Snapshot {
            occupancy: 0xffff,
            board_ms: 0,
        }
    }

    fn beat() -> BoardMsg {
        BoardMsg::Heartbeat { board_ms: 0 }
    }

    /// seq 0: a heartbeat before the hello; 1: hello; 2 and 5: snapshots; 3, 4, 6: heartbeats.
    fn an_epochs_start() -> [BoardMsg; 7] {
        [
            beat(),
            hello(),
            snapshot(),
            beat(),
            beat(),
            snapshot(),
            beat(),
        ]
    }

    #[test]
    fn only_what_lies_between_the_hello_and_the_latest_applied_snapshot_goes() {
        let mut k = Kept::default();
        // seq 0: a heartbeat before the hello; 1: hello; 2, 5, 9: snapshots.
        for (seq, body) in an_epochs_start().into_iter().enumerate() {
            k.saw(100, seq as u64, &frame(seq as u16, body));
        }
        assert_eq!(
            k.removable(100, 1),
            None,
            "no snapshot applied after the hello"
        );
        assert_eq!(
            k.removable(100, 4),
            None,
            "the first snapshot right after the hello"
        );
        assert_eq!(k.removable(100, 6), Some(2..5));
        assert_eq!(k.removable(99, 6), None, "another epoch");
        k.compacted(&(2..5), true);
        assert_eq!(k.stored, 0);
        assert_eq!(k.removable(100, 6), None, "done already");
        for seq in 7..9 {
            k.saw(100, seq, &frame(seq as u16, beat()));
        }
        k.saw(100, 9, &frame(9, snapshot()));
        assert_eq!(
            k.removable(100, 8),
            None,
            "the snapshot at 9 is not applied yet"
        );
        assert_eq!(k.removable(100, 9), Some(5..9));
        // A part done leaves the board due, for the rest.
        let stored = k.stored;
        k.compacted(&(5..7), false);
        assert_eq!(k.stored, stored);
        assert_eq!(k.removable(100, 9), Some(7..9));
        // A later hello (an answer to a repeated one) is not the one the link starts from.
        k.saw(100, 10, &frame(10, hello()));
        k.saw(100, 11, &frame(11, snapshot()));
        assert_eq!(k.removable(100, 11), Some(7..11));
        // A new epoch starts afresh; garbage is no frame of any kind.
        k.saw(200, 0, &[1, 2, 3]);
        k.saw(200, 1, &frame(0, snapshot()));
        assert_eq!(k.removable(200, 1), None, "no hello in this epoch yet");
    }

    #[test]
    fn a_restart_skips_what_compaction_would_drop() {
        let stored: Vec<StoredFrame> = an_epochs_start()
            .into_iter()
            .enumerate()
            .map(|(seq, body)| (seq as u64, 0, frame(seq as u16, body)))
            .collect();
        let through = |applied: usize| -> Vec<StoredFrame> {
            stored[..=applied].iter().rev().cloned().collect()
        };
        assert_eq!(skippable(&stored, &through(6)), Some(2..5));
        assert_eq!(skippable(&stored, &through(5)), Some(2..5));
        assert_eq!(
            skippable(&stored, &through(4)),
            None,
            "the snapshot right after the hello: nothing between"
        );
        assert_eq!(skippable(&stored, &through(1)), None, "no snapshot applied");
        assert_eq!(skippable(&stored[2..], &through(6)), None, "no hello read");
        // Its own rule and compaction's agree.
        let mut k = Kept::default();
        for (seq, _, bytes) in &stored {
            k.saw(100, *seq, bytes);
        }
        assert_eq!(k.removable(100, 6), skippable(&stored, &through(6)));
    }
}
