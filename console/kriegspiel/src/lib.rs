//! The `kriegspiel` program's subcommands, one module each. What the window program
//! (`kriegspiel-console`) shares with them — round files, table options, standard input,
//! the JSON lines, journals, the players' channel, the speakers — is the
//! `kriegspiel-frontend` library's, which every subcommand uses.

pub mod demo_cmd;
pub mod dgt_monitor;
pub mod ear;
pub mod enrol_cmd;
pub mod export_cmd;
pub mod hall_cmd;
pub mod headset;
pub mod hear_cmd;
pub mod monitor;
pub mod player_cmd;
pub mod referee_cmd;
pub mod table_cmd;
