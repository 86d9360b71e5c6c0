//! The demo's pace: the scripted games played at a human pace, in the `demo` subcommand and
//! in the window program's demo tables alike.

use kriegspiel_games::Timing;

/// A human pace: time to hear each announcement before the next man moves.
pub const HUMAN_PACE: Timing = Timing {
    start_ms: 2500,
    step_ms: 180,
    settle_ms: 300,
    after_verdict_ms: 900,
    react_ms: 1600,
    command_ms: 400,
};

/// The demo's pace with the board's settle time the command line asks (`--settle-ms`).
pub fn demo_timing(settle_ms: Option<u32>) -> Timing {
    Timing {
        settle_ms: settle_ms.map_or(HUMAN_PACE.settle_ms, u64::from),
        ..HUMAN_PACE
    }
}
