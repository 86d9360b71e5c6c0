//! `kriegspiel`: the referee console binary. Each subcommand lives in its own module.

mod console_cmd;
mod demo_cmd;
mod export_cmd;
mod frontend;
mod hall_cmd;
mod hear_cmd;
mod monitor;
mod player_cmd;
mod players;
mod referee_cmd;
mod speech;
mod table_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "kriegspiel", version, about = "Kriegspiel referee console")]
struct Cli {
    /// Without a subcommand: the arbiter's window on the demo (as `kriegspiel console`).
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The scriptable referee: JSON lines on stdin and stdout.
    Referee(referee_cmd::Args),
    /// Watch a board's serial link: one JSON line per event on stdout.
    BoardMonitor(monitor::Args),
    /// The headless table: two boards, keypad commands on stdin, JSON answers on stdout.
    Table(table_cmd::Args),
    /// A whole scripted game on two simulated boards, printed and spoken.
    Demo(demo_cmd::Args),
    /// Every table of a round in one process (a TOML round file).
    Hall(hall_cmd::Args),
    /// A journal's games as PGN, or the full event log as JSON lines.
    Export(export_cmd::Args),
    /// What the voice channel hears in WAV files: one JSON line each (a try, a command, or rejected).
    Hear(hear_cmd::Args),
    /// The arbiter's window on a hall: a round file, one table's boards, or the demo.
    Console(console_cmd::Args),
    /// One player's terminal on a running console: hear and type, in plain lines.
    Player(player_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = match cli.command {
        Some(c) => c,
        None => match Cli::parse_from(["kriegspiel", "console"]).command {
            Some(c) => c,
            None => return ExitCode::FAILURE,
        },
    };
    match command {
        Command::Referee(args) => referee_cmd::run(args),
        Command::BoardMonitor(args) => monitor::run(args),
        Command::Table(args) => table_cmd::run(args),
        Command::Demo(args) => demo_cmd::run(args),
        Command::Hall(args) => hall_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Hear(args) => hear_cmd::run(args),
        Command::Console(args) => console_cmd::run(args),
        Command::Player(args) => player_cmd::run(args),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
