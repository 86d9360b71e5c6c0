//! Whole games for the end-to-end tests: a game definition (rules, options, start position
//! and plies of tries) becomes two board scripts with realistic physical handling, the
//! stdin commands a player would say, and the answers the table must print, all computed by
//! the real referee while the game is built (a definition the referee does not accept is an
//! error here, not a surprise in the end-to-end test).
//!
//! The definitions ship with the program (`console/games/games/*.json`, one per rule set):
//! `kriegspiel demo` plays them on simulated boards, and the end-to-end tests on real ones.
//!
//! Definition format (JSON):
//! ```json
//! {"name": "...", "rules": "cincinnati", "options": {"strict": "true"}, "fen": null, "lang": "en",
//!  "plies": [["e2e4"], ["ask:any", "e7f6?", "d7d5"], ["promote:n", "b7b8"]]}
//! ```
//! Each ply lists what the side to move does, in order: tries in UCI (a trailing `?` marks a
//! try the referee must refuse; the last try must be legal), `ask:any` / `ask:rebuffs`
//! (a question on the keypad) and `promote:q|r|b|n` (the piece chosen beforehand for the
//! next promotion). A promotion try carries no letter: the board cannot show one.

mod builder;
mod built;
mod definition;
mod ply;
mod script;
mod timing;

pub use builder::build;
pub use built::{BuiltGame, Command, Coverage, SIM_BOARD_IDS};
pub use definition::{all_names, builtin, games_dir, load, GameDef, GameError, BUILTIN};
pub use script::{Action, BoardScript};
pub use timing::Timing;

#[cfg(test)]
mod tests;
