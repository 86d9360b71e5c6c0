//! `kriegspiel player`: one player's terminal on a running console. It connects to the
//! players' socket, prints what the player may hear, one line each, and sends what he types.
//! Plain lines, for screen readers.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::ExitCode;

use bounded_lines::LineReader;
use kriegspiel_referee::shakmaty::Color;

use crate::frontend::journal_path;
use crate::players::default_socket;

const PROGRAM: &str = "kriegspiel player";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The table number in the hall (1 for `kriegspiel table`).
    #[arg(long, default_value_t = 1)]
    table: usize,
    /// Your colour: white or black.
    #[arg(long)]
    color: String,
    /// The console's players' socket; default: beside the default journal
    /// (~/.local/share/kriegspiel/journal.players.sock).
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    let color: Color = match args.color.parse() {
        Ok(c) => c,
        Err(_) => {
            eprintln!(
                "{PROGRAM}: unknown colour '{}' (white, black)",
                bounded_lines::excerpt(&args.color)
            );
            return ExitCode::from(2);
        }
    };
    let path = match args
        .socket
        .map_or_else(|| journal_path(None).map(|j| default_socket(&j)), Ok)
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let stream = match UnixStream::connect(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "{PROGRAM}: no console answers at {} ({e}); start one (kriegspiel table, hall or demo) first",
                path.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let Ok(mut to_console) = stream.try_clone() else {
        eprintln!("{PROGRAM}: cannot use the socket");
        return ExitCode::FAILURE;
    };
    if writeln!(to_console, "{} {color}", args.table).is_err() {
        eprintln!("{PROGRAM}: the console hung up");
        return ExitCode::FAILURE;
    }
    // What he types goes to the console as it comes.
    std::thread::spawn(move || {
        let mut keys = LineReader::new(std::io::stdin());
        while let Ok(Some(line)) = keys.next_line() {
            let Ok(line) = line else {
                continue;
            };
            if writeln!(to_console, "{line}").is_err() {
                return;
            }
        }
    });
    let mut heard = LineReader::new(stream);
    let mut out = std::io::stdout().lock();
    loop {
        let line = match heard.next_line() {
            Ok(Some(Ok(l))) => l.to_owned(),
            Ok(Some(Err(e))) => format!("({e})"),
            Ok(None) | Err(_) => return ExitCode::SUCCESS,
        };
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return ExitCode::SUCCESS;
        }
        if line.starts_with("error: ") {
            return ExitCode::FAILURE;
        }
    }
}
