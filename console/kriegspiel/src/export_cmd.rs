//! `kriegspiel export`: the journal's games as PGN (or the full event log as JSON lines).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kriegspiel_hall::{pgn, private_file, Journal};

const PROGRAM: &str = "kriegspiel export";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal to read (default: the one the console writes,
    /// `$XDG_DATA_HOME/kriegspiel/journal.sqlite` or `~/.local/share/kriegspiel/journal.sqlite`).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Only the games of this table (its name), or this game (its number).
    #[arg(long, conflicts_with = "game")]
    table: Option<String>,
    /// Only this game, by its number (the "game" of its opened line): one game, even where
    /// tables are named with numbers.
    #[arg(long, value_name = "N")]
    game: Option<i64>,
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
    let path = match kriegspiel_frontend::journal_path(
        args.journal.clone(),
        kriegspiel_frontend::Unnamed::Club,
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    if !path.is_file() {
        eprintln!("{PROGRAM}: no journal at {}", path.display());
        return ExitCode::from(2);
    }
    let journal = match Journal::open_read_only(&path) {
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
                && args.game.is_none_or(|n| g.id == n)
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
                .or(args.game.map(|n| format!(" game {n}")))
                .unwrap_or_default(),
            path.display(),
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
    if let Some(output) = &args.output {
        return match write_output(output, &text, &path) {
            Ok(()) => code,
            Err(failed) => failed,
        };
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        eprintln!("{PROGRAM}: cannot write standard output: {e}");
        return ExitCode::FAILURE;
    }
    code
}

/// Writes the export to `output`, its owner's only as the journal is (a running game's
/// private lines are in it), never over the journal's own files; `Err`: the status.
fn write_output(output: &Path, text: &str, journal: &Path) -> Result<(), ExitCode> {
    let journal_files = kriegspiel_hall::journal::files_of(journal);
    let lock = kriegspiel_hall::journal::lock_file_of(journal);
    let sources: Vec<&Path> = journal_files
        .iter()
        .map(PathBuf::as_path)
        .chain([lock.as_path()])
        .collect();
    private_file::write_private(
        output,
        text.as_bytes(),
        private_file::Existing::Replace,
        &sources,
    )
    .map_err(|e| {
        eprintln!("{PROGRAM}: {e}");
        match e {
            private_file::WriteError::Io { .. } => ExitCode::FAILURE,
            _ => ExitCode::from(2),
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::Parser;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// Without `--journal`, export reads the journal the console writes by default.
    #[test]
    fn without_journal_the_default_journal_is_exported() {
        let data = tempfile::tempdir().unwrap();
        let folder = data.path().join("kriegspiel");
        std::fs::create_dir(&folder).unwrap();
        {
            let mut j = Journal::open(&folder.join("journal.sqlite")).unwrap();
            j.new_game("table 7", &kriegspiel_hall::TableSetup::default(), 0)
                .unwrap();
        }
        // No other test of this crate reads XDG_DATA_HOME.
        std::env::set_var("XDG_DATA_HOME", data.path());
        let out = data.path().join("out.pgn");
        let cli =
            Cli::try_parse_from(["export".as_ref(), "--output".as_ref(), out.as_os_str()]).unwrap();
        assert_eq!(run(cli.args), ExitCode::SUCCESS);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("[Board \"table 7\"]"), "{text}");
        // Its owner's only: a running game's private lines may be in it.
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
}
