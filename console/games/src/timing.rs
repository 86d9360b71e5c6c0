//! The pace of the simulated players' hands.

/// How fast the simulated players handle their men (milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Script time of the first action (the boards and the table need a moment to connect).
    pub start_ms: u64,
    /// Between two switch changes of one movement (lift, passing square, place).
    pub step_ms: u64,
    /// The table's settle window: the verdict comes this long after the last change.
    pub settle_ms: u64,
    /// After a verdict, before the same player touches his board again.
    pub after_verdict_ms: u64,
    /// After a verdict, before the other player starts (covers clock skew between boards).
    pub react_ms: u64,
    /// Extra time before a ply that starts with keypad commands (they travel over stdin).
    pub command_ms: u64,
}

impl Timing {
    /// A human pace (the demo's): time to hear each announcement before the next man moves.
    pub const HUMAN: Timing = Timing {
        start_ms: 2500,
        step_ms: 180,
        settle_ms: 300,
        after_verdict_ms: 900,
        react_ms: 1600,
        command_ms: 400,
    };
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            start_ms: 1200,
            step_ms: 20,
            settle_ms: 100,
            after_verdict_ms: 60,
            react_ms: 120,
            command_ms: 150,
        }
    }
}
