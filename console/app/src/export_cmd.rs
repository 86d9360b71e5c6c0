//! `kriegspiel export`: the journal's games as PGN (or the full event log as JSON lines).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use kriegspiel_hall::{pgn, Journal};

const PROGRAM: &str = "kriegspiel export";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal to read.
    #[arg(long, value_name = "FILE")]
    journal: PathBuf,
    /// Only the games of this table (its name), or this game (its number).
    #[arg(long)]
    table: Option<String>,
    /// pgn, or jsonl for the full event log.
    #[arg(long, default_value = "pgn")]
    format: String,
    /// Write here instead of standard output.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    let as_pgn = match args.format.as_str() {
        "pgn" => true,
        "jsonl" => false,
        other => {
            eprintln!(
                "{PROGRAM}: unknown format '{}' (pgn, jsonl)",
                bounded_lines::excerpt(other)
            );
            return ExitCode::from(2);
        }
    };
    if !args.journal.is_file() {
        eprintln!("{PROGRAM}: no journal at {}", args.journal.display());
        return ExitCode::from(2);
    }
    let journal = match Journal::open_read_only(&args.journal) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let games = match journal.games() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let chosen: Vec<_> = games
        .iter()
        .filter(|g| {
            args.table
                .as_ref()
                .is_none_or(|t| g.name == *t || g.id.to_string() == *t)
        })
        .collect();
    if chosen.is_empty() {
        let names: Vec<String> = games
            .iter()
            .map(|g| format!("{} ({})", g.id, g.name))
            .collect();
        eprintln!(
            "{PROGRAM}: no game matches{} in {}; games: {}",
            args.table
                .as_ref()
                .map(|t| format!(" '{}'", bounded_lines::excerpt(t)))
                .unwrap_or_default(),
            args.journal.display(),
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        );
        return ExitCode::FAILURE;
    }
    let mut text = String::new();
    let mut code = ExitCode::SUCCESS;
    for g in chosen {
        let read = journal.events(g.id);
        if let Some(d) = &read.damage {
            eprintln!(
                "{PROGRAM}: {d}; the {} events before it are exported",
                read.events.len()
            );
            code = ExitCode::FAILURE;
        }
        let part = if as_pgn {
            pgn::pgn(g, &read.events, read.damage.as_ref())
        } else {
            pgn::event_log(g, &read.events)
        };
        match part {
            Ok(p) => text.push_str(&p),
            Err(e) => {
                eprintln!("{PROGRAM}: game {} ({}): {e}", g.id, g.name);
                code = ExitCode::FAILURE;
            }
        }
    }
    let written = match &args.output {
        Some(path) => std::fs::write(path, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
    };
    if let Err(e) = written {
        let to = args
            .output
            .as_ref()
            .map_or_else(|| "standard output".to_owned(), |p| p.display().to_string());
        eprintln!("{PROGRAM}: cannot write {to}: {e}");
        return ExitCode::FAILURE;
    }
    code
}
