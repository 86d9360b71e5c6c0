//! kriegspiel-tests: helpers for the end-to-end tests in `tests/tests`.

/// The scripted games live in the product (`kriegspiel demo` plays them).
pub use kriegspiel_games as games;
pub mod console;
pub mod dgt_games;
pub mod dgt_play;
pub mod host;
pub mod link_util;
pub mod mosquitto;
pub mod pgn_check;
pub mod process;
pub mod pty;
pub mod relay;
pub mod voices;
