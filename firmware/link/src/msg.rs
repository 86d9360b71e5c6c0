//! The messages of both directions.

use serde_nostd::{Deserialize, Serialize};

use crate::SquareIndex;

/// Bumped whenever a message changes shape; both sides refuse to talk across versions.
pub const PROTOCOL_VERSION: u16 = 1;

/// Milliseconds on the board's own clock (wraps after ~49 days).
pub type BoardMs = u32;

/// Board -> console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "serde_nostd")]
pub enum BoardMsg {
    /// Sent in answer to [`ConsoleMsg::Hello`], always followed by a [`BoardMsg::Snapshot`].
    Hello {
        protocol: u16,
        firmware: [u8; 3],
        board_id: u32,
    },
    /// Every square's reed switch (bit n = square n, set = occupied), after debouncing.
    Snapshot { occupancy: u64, board_ms: BoardMs },
    /// A piece left `square` (debounced).
    Lift {
        square: SquareIndex,
        board_ms: BoardMs,
    },
    /// A piece arrived on `square` (debounced).
    Place {
        square: SquareIndex,
        board_ms: BoardMs,
    },
    /// Sign of life when nothing else was sent for a while; also the answer to a Ping.
    Heartbeat { board_ms: BoardMs },
    /// Something went wrong on the board; the console reports it and usually resyncs.
    Fault { code: FaultCode, board_ms: BoardMs },
}

impl BoardMsg {
    /// The board's own time in the message: what it was made at, which a console far from
    /// the board (over a network that may hold frames back) times the message by.
    pub fn board_ms(&self) -> Option<BoardMs> {
        match *self {
            BoardMsg::Hello { .. } => None,
            BoardMsg::Snapshot { board_ms, .. }
            | BoardMsg::Lift { board_ms, .. }
            | BoardMsg::Place { board_ms, .. }
            | BoardMsg::Heartbeat { board_ms }
            | BoardMsg::Fault { board_ms, .. } => Some(board_ms),
        }
    }
}

/// What a [`BoardMsg::Fault`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "serde_nostd")]
pub enum FaultCode {
    /// The matrix scan failed (pin error); the occupancy may be stale.
    ScanError,
    /// Events were produced faster than they could be sent; some were dropped on the board.
    Overflow,
    /// A well-formed console message the board cannot obey (e.g. a bad configuration).
    BadCommand,
    /// A damaged frame arrived from the console.
    BadFrame,
}

impl FaultCode {
    /// Short lowercase name for logs and JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            FaultCode::ScanError => "scan_error",
            FaultCode::Overflow => "overflow",
            FaultCode::BadCommand => "bad_command",
            FaultCode::BadFrame => "bad_frame",
        }
    }
}

/// Console -> board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "serde_nostd")]
pub enum ConsoleMsg {
    /// Sent by the console on open; the board answers with its Hello + Snapshot.
    Hello { protocol: u16 },
    /// The board answers with a Snapshot.
    RequestSnapshot,
    /// The board answers with a Heartbeat.
    Ping { nonce: u32 },
    /// Changes the scan rate and the number of equal scans a switch change needs.
    Configure { debounce_scans: u8, scan_hz: u16 },
}

/// One frame: a per-direction sequence number (wrapping u16) and a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "serde_nostd")]
pub struct Frame<B> {
    pub seq: u16,
    pub body: B,
}

/// The peer speaks another protocol version; nothing it says can be trusted to mean the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionMismatch {
    pub local: u16,
    pub remote: u16,
}

impl core::fmt::Display for VersionMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "protocol version mismatch: this side speaks version {}, the other side version {}; update the older one",
            self.local, self.remote
        )
    }
}

/// Version check at Hello.
pub fn check_version(remote: u16) -> Result<(), VersionMismatch> {
    if remote == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(VersionMismatch {
            local: PROTOCOL_VERSION,
            remote,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_check() {
        assert_eq!(check_version(PROTOCOL_VERSION), Ok(()));
        let err = check_version(PROTOCOL_VERSION + 1).unwrap_err();
        assert_eq!(err.remote, PROTOCOL_VERSION + 1);
        assert_eq!(err.local, PROTOCOL_VERSION);
    }
}
