//! The demo's pace: the scripted games played at a human pace, in the `demo` subcommand and
//! in the window program's demo tables alike.

use kriegspiel_games::Timing;

/// The demo's pace with the board's settle time the command line asks (`--settle-ms`).
pub fn demo_timing(settle_ms: Option<u32>) -> Timing {
    Timing {
        settle_ms: settle_ms.map_or(Timing::HUMAN.settle_ms, u64::from),
        ..Timing::HUMAN
    }
}
