//! `kriegspiel`: the referee console binary. Each subcommand lives in its own module of the
//! library; `console` runs the window program, `kriegspiel-console`.

use clap::{Parser, Subcommand};
use kriegspiel::{
    demo_cmd, enrol_cmd, export_cmd, hall_cmd, hear_cmd, monitor, player_cmd, referee_cmd,
    table_cmd,
};
use std::ffi::OsString;
use std::process::ExitCode;

// The round's broker and its seats (issue 19).
mod broker_config_cmd;
mod seats_cmd;

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
    Table(Box<table_cmd::Args>),
    /// A whole scripted game on two simulated boards, printed and spoken.
    Demo(Box<demo_cmd::Args>),
    /// Every table of a round in one process (a TOML round file).
    Hall(hall_cmd::Args),
    /// A journal's games as PGN, or the full event log as JSON lines.
    Export(export_cmd::Args),
    /// What the voice channel hears in WAV files: one JSON line each (a try, a command, marked read_back when heard faintly, or rejected).
    Hear(hear_cmd::Args),
    /// The arbiter's window on a hall: a round file, one table's boards, or the demo
    /// (runs kriegspiel-console; `kriegspiel console --help` lists its options).
    #[command(disable_help_flag = true)]
    Console {
        /// The options of kriegspiel-console.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// One player's terminal on a running console: hear and type, in plain lines.
    Player(player_cmd::Args),
    /// A player's voice enrolment before the round: twenty phrases, which fit the
    /// recogniser to his voice and room (for `player --voice --enrolment FILE`).
    Enrol(enrol_cmd::Args),
    /// The round's own mosquitto: its configuration, password file and ACL (and with --tls
    /// its certificates), in one folder (see docs/NETWORK.md).
    BrokerConfig(broker_config_cmd::Args),
    /// One seat file per player and per networked board, each with its QR code.
    Seats(seats_cmd::Args),
}

fn main() -> ExitCode {
    // `kriegspiel --no-speech` is `kriegspiel console --no-speech`, as `kriegspiel` alone is
    // `kriegspiel console`.
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    let first = argv.get(1).and_then(|a| a.to_str());
    if first
        .is_some_and(|a| a.starts_with('-') && !matches!(a, "-h" | "--help" | "-V" | "--version"))
    {
        return window(argv.split_off(1));
    }
    let cli = Cli::parse_from(argv);
    let command = match cli.command {
        Some(c) => c,
        None => Command::Console { args: Vec::new() },
    };
    match command {
        Command::Referee(args) => referee_cmd::run(args),
        Command::BoardMonitor(args) => monitor::run(args),
        Command::Table(args) => table_cmd::run(*args),
        Command::Demo(args) => demo_cmd::run(*args),
        Command::Hall(args) => hall_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Hear(args) => hear_cmd::run(args),
        Command::Console { args } => window(args),
        Command::Player(args) => player_cmd::run(args),
        Command::Enrol(args) => enrol_cmd::run(args),
        Command::BrokerConfig(args) => broker_config_cmd::run(args),
        Command::Seats(args) => seats_cmd::run(args),
    }
}

/// Replaces this process with the window program: next to this one (as cargo and an install
/// place them), else on the PATH.
fn window(args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    const WINDOW: &str = "kriegspiel-console";
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name(WINDOW))
        .filter(|p| p.is_file());
    let program = beside.map_or_else(|| OsString::from(WINDOW), OsString::from);
    let err = std::process::Command::new(&program).args(args).exec();
    eprintln!(
        "kriegspiel console: cannot run the window program {}: {err}; build it with \
         `cargo build --release -p kriegspiel-console` (console/run.sh does)",
        program.to_string_lossy()
    );
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
