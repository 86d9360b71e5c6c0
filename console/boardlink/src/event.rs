//! What the link reports to the rest of the console.

use std::time::Duration;

use kriegspiel_link::{BoardMs, FaultCode, SquareIndex};

/// One thing that happened on the link, with the counters as they were right after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub event: LinkEvent,
    pub health: Health,
    /// The board's sequence number of the frame that carried the event (none for what the
    /// console itself noticed: a disconnect, a port that will not open).
    pub seq: Option<u16>,
    /// For a board on the network, the outbox number of the frame that carried the event:
    /// what the journal keeps so that a restarted console applies nothing twice.
    pub key: Option<NetKey>,
    /// When the board made the frame that caused the event (its own clock mapped onto the
    /// link's: never later than the frame's arrival, never before an earlier report's), or
    /// when the link noticed an event no frame caused; on the link's clock (time since
    /// [`crate::BoardLinkHandle::started`]). A consumer that falls behind, or a console held
    /// up, still times the event by when the men moved, not by when it got round to it.
    pub at: Duration,
}

/// A networked board's frame number: its boot (`epoch`) and its place in that boot's outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NetKey {
    pub epoch: u64,
    pub seq: u64,
}

/// Events in the order the board produced them. Lifts and places are delivered only while the
/// link is in sync; whenever that chain breaks, a [`LinkEvent::Resync`] carries the true
/// occupancy before the next lift or place, so a consumer that applies lifts/places and
/// replaces its occupancy on snapshot/resync always ends up with the board's occupancy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkEvent {
    /// The board answered our Hello with a compatible protocol version.
    Connected {
        protocol: u16,
        firmware: [u8; 3],
        board_id: u32,
    },
    /// A piece left `square`.
    Lift {
        square: SquareIndex,
        board_ms: BoardMs,
    },
    /// A piece arrived on `square`.
    Place {
        square: SquareIndex,
        board_ms: BoardMs,
    },
    /// A periodic or requested snapshot that agrees with the reconstructed occupancy.
    Snapshot { occupancy: u64, board_ms: BoardMs },
    /// The occupancy was unknown or wrong and is now `occupancy` (from the board's snapshot).
    Resync {
        occupancy: u64,
        board_ms: BoardMs,
        reason: ResyncReason,
    },
    /// The board stopped talking (unplugged, powered off) or the port failed; the link keeps
    /// trying to reopen the port.
    Disconnected { reason: DisconnectReason },
    /// A board on the network said unheard is heard again, in the same boot: what it kept
    /// meanwhile follows. Without it the arbiter's last word on the board stays "unheard".
    Back,
    /// The port cannot be opened (still retried); reported once per distinct error.
    OpenFailed { error: String },
    /// The board speaks another protocol version: its events are refused.
    VersionMismatch { local: u16, remote: u16 },
    /// The board reported a problem of its own (the link also resyncs).
    Fault { code: FaultCode, board_ms: BoardMs },
}

/// Why the occupancy had to be rebuilt from a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResyncReason {
    /// First snapshot after (re)connecting.
    Connected,
    /// `missed` frames were lost (damaged or dropped) on the way.
    Gap { missed: u64 },
    /// A snapshot, lift or place contradicted the occupancy built from earlier events.
    Mismatch { reconstructed: u64 },
    /// The board restarted its sequence numbering (it was reset without the cable moving).
    SenderRestart,
    /// The board reported a fault.
    BoardFault,
}

/// In the arbiter's words.
impl std::fmt::Display for ResyncReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResyncReason::Connected => f.write_str("the first snapshot after connecting"),
            ResyncReason::Gap { missed } => write!(f, "{missed} frames lost on the way"),
            ResyncReason::Mismatch { .. } => {
                f.write_str("the board's men differ from what its events built")
            }
            ResyncReason::SenderRestart => f.write_str("the board restarted its numbering"),
            ResyncReason::BoardFault => f.write_str("the board reported a fault"),
        }
    }
}

impl ResyncReason {
    /// Short lowercase name for JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ResyncReason::Connected => "connected",
            ResyncReason::Gap { .. } => "gap",
            ResyncReason::Mismatch { .. } => "mismatch",
            ResyncReason::SenderRestart => "sender_restart",
            ResyncReason::BoardFault => "board_fault",
        }
    }
}

/// Why the link considers the board gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisconnectReason {
    /// No valid frame within the silence timeout (1.5 s by default).
    Silence { timeout: Duration },
    /// The port reported end of file (the other end closed).
    Closed,
    /// A read or write failed.
    Io { error: String },
    /// A board on the network was not heard for this long (or the broker says it is gone).
    /// The link stays as it was: what the board keeps comes once it is back, so this is
    /// news for the arbiter, not a change at the table.
    Unheard { timeout: Duration },
    /// A board on the network said it stopped (its program ended on purpose, everything it
    /// sent acknowledged): nothing is owed, and nothing is wrong.
    Stopped,
}

/// In the arbiter's words.
impl std::fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |d: &Duration| d.as_secs_f64();
        match self {
            DisconnectReason::Silence { timeout } => {
                write!(f, "nothing heard for {:.1} s", s(timeout))
            }
            DisconnectReason::Closed => f.write_str("the port closed"),
            DisconnectReason::Io { error } => write!(f, "the port failed: {error}"),
            DisconnectReason::Unheard { timeout } => write!(
                f,
                "not heard for {:.1} s (what it keeps comes when it is back)",
                s(timeout)
            ),
            DisconnectReason::Stopped => f.write_str("its program stopped, everything delivered"),
        }
    }
}

impl DisconnectReason {
    /// Short lowercase name for JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            DisconnectReason::Silence { .. } => "silence",
            DisconnectReason::Closed => "closed",
            DisconnectReason::Io { .. } => "io_error",
            DisconnectReason::Unheard { .. } => "unheard",
            DisconnectReason::Stopped => "stopped",
        }
    }
}

/// Per-board counters; they only ever grow (except `last_heard_ms`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Health {
    /// Valid frames accepted (duplicates not included).
    pub frames: u64,
    /// Frames whose checksum did not match.
    pub crc_errors: u64,
    /// Frames with broken byte stuffing, or too short / too long to be a frame.
    pub cobs_errors: u64,
    /// Frames with a good checksum whose content is no valid message.
    pub decode_errors: u64,
    /// Sequence gaps seen, and the number of frames they skipped.
    pub gaps: u64,
    pub missed_frames: u64,
    /// Repeated frames dropped.
    pub duplicates: u64,
    /// Snapshots, lifts or places that contradicted the reconstructed occupancy.
    pub mismatches: u64,
    /// Resync events delivered.
    pub resyncs: u64,
    /// Lifts/places received while the occupancy was unknown (covered by the next resync).
    pub skipped_events: u64,
    /// Fault messages from the board.
    pub board_faults: u64,
    /// Times the board was declared gone, and times the port was reopened after that.
    pub disconnects: u64,
    pub reconnects: u64,
    /// Console time (ms since the link started) of the last valid frame.
    pub last_heard_ms: Option<u64>,
}

impl Health {
    /// Every frame that was received but could not be used.
    pub fn bad_frames(&self) -> u64 {
        self.crc_errors + self.cobs_errors + self.decode_errors
    }
}
