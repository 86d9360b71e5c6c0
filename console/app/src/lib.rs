//! The `kriegspiel` program's subcommands, one module each. A library so that the window
//! program (`kriegspiel-console`, its own binary so that the headless programs stay small)
//! reads rounds, game options and journals exactly as `kriegspiel hall` and `table` do.

pub mod demo_cmd;
pub mod export_cmd;
pub mod frontend;
pub mod hall_cmd;
pub mod hear_cmd;
pub mod monitor;
pub mod player_cmd;
pub mod players;
pub mod referee_cmd;
pub mod speech;
pub mod table_cmd;
