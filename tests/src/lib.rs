//! kriegspiel-tests: helpers for the end-to-end tests in `tests/tests`.

pub mod games;
pub mod link_util;
pub mod process;
pub mod pty;
pub mod relay;
