//! `kriegspiel hall --config round.toml`: every table of a round in one process, JSON lines
//! tagged with the table, commands for any table on standard input, one journal.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kriegspiel_hall::{BoardSource, TableSetup, TableSpec};
use serde::Deserialize;

use crate::frontend::open_journal;
use crate::table_cmd::play;

const PROGRAM: &str = "kriegspiel hall";

/// The most tables one hall runs.
const MAX_TABLES: usize = 64;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round: a TOML file with one [[table]] per table (see the README).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The journal; default: journal.sqlite in the user's data folder.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// The players' terminals' socket (`kriegspiel player`); default: beside the journal.
    #[arg(long, value_name = "PATH")]
    player_socket: Option<PathBuf>,
}

/// A round file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Round {
    /// The event's name, for every table that names none (PGN `Event`).
    #[serde(default)]
    event: Option<String>,
    /// One `[[table]]` each: `name`, the ports `white` and `black` (absent: no board,
    /// keypad only), and the game's fields (those of [`TableSetup`]).
    #[serde(default)]
    table: Vec<toml::Table>,
}

/// One `[[table]]` of a round file.
struct RoundTable {
    name: String,
    white: Option<PathBuf>,
    black: Option<PathBuf>,
    setup: TableSetup,
}

impl RoundTable {
    /// Reads one table; the error names the field.
    fn read(mut t: toml::Table) -> Result<RoundTable, String> {
        let mut text = |key: &str| -> Result<Option<String>, String> {
            match t.remove(key) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(format!("{key}: expected text, found {}", other.type_str())),
            }
        };
        let name = text("name")?.ok_or("name: a table needs a name")?;
        let white = text("white")?.map(PathBuf::from);
        let black = text("black")?.map(PathBuf::from);
        let setup = TableSetup::deserialize(toml::Value::Table(t))
            .map_err(|e| e.message().replace('\n', " "))?;
        Ok(RoundTable {
            name,
            white,
            black,
            setup,
        })
    }
}

/// The tables a round file describes, or an error naming the file, the table and the field.
pub fn read_round(path: &Path) -> Result<Vec<TableSpec>, String> {
    let name = path.display();
    let text = bounded_lines::read_text(path, bounded_lines::MAX_FILE)
        .map_err(|e| format!("{name}: {e}"))?;
    let round: Round = toml::from_str(&text).map_err(|e| {
        let msg = e.message().replace('\n', " ");
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" (line {line})")
            })
            .unwrap_or_default();
        format!("{name}{at}: {}", bounded_lines::excerpt(&msg))
    })?;
    if round.table.is_empty() {
        return Err(format!(
            "{name}: no [[table]]: a round needs at least one table"
        ));
    }
    if round.table.len() > MAX_TABLES {
        return Err(format!(
            "{name}: {} tables; one hall runs at most {MAX_TABLES}",
            round.table.len()
        ));
    }
    let mut specs = Vec::with_capacity(round.table.len());
    let mut ports: Vec<(PathBuf, String)> = Vec::new();
    for (i, t) in round.table.into_iter().enumerate() {
        let t = RoundTable::read(t)
            .map_err(|e| format!("{name}: table {}: {}", i + 1, bounded_lines::excerpt(&e)))?;
        let label = format!(
            "{name}: table {} ('{}')",
            i + 1,
            bounded_lines::excerpt(&t.name)
        );
        if t.name.trim().is_empty() {
            return Err(format!("{label}: name: a table needs a name"));
        }
        if specs.iter().any(|s: &TableSpec| s.name == t.name) {
            return Err(format!("{label}: name: another table has this name"));
        }
        for port in [&t.white, &t.black].into_iter().flatten() {
            if let Some((_, other)) = ports.iter().find(|(p, _)| p == port) {
                return Err(format!(
                    "{label}: port {} is also used by {other}",
                    port.display()
                ));
            }
            ports.push((port.clone(), format!("table '{}'", t.name)));
        }
        let mut setup = t.setup;
        // A player without a board port plays by keys (or voice): the table keeps his board.
        setup.white_without_board |= t.white.is_none();
        setup.black_without_board |= t.black.is_none();
        if setup.event.is_none() {
            setup.event.clone_from(&round.event);
        }
        setup.config().map_err(|e| format!("{label}: {e}"))?;
        let board = |p: Option<PathBuf>| p.map_or(BoardSource::Absent, BoardSource::Serial);
        specs.push(TableSpec {
            name: t.name,
            setup,
            white: board(t.white),
            black: board(t.black),
            scripted: Vec::new(),
            resume: true,
        });
    }
    Ok(specs)
}

pub fn run(args: Args) -> ExitCode {
    let specs = match read_round(&args.config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let journal = match open_journal(PROGRAM, args.journal) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    play(journal, specs, None, args.player_socket, PROGRAM)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str) -> Result<Vec<TableSpec>, String> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("round.toml");
        std::fs::write(&p, text).unwrap();
        read_round(&p)
    }

    #[test]
    fn a_round_file_names_the_file_the_table_and_the_field() {
        let ok = round(
            r#"event = "Club night"
[[table]]
name = "1"
white = "/dev/ttyACM0"
black = "/dev/ttyACM1"
rules = "rand"
time_control = "25+10"
white_player = "Ann"
[[table]]
name = "2"
rules = "wild16"
lang = "fr"
"#,
        )
        .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].setup.event.as_deref(), Some("Club night"));
        assert_eq!(ok[1].setup.lang, "fr");
        assert!(matches!(ok[1].white, BoardSource::Absent));
        for (text, says) in [
            ("[[table]]\nname = \"1\"\nrules = \"chess\"\n", "table 1 ('1'): rules:"),
            ("[[table]]\nname = \"1\"\n[[table]]\nname = \"2\"\ntime_control = \"soon\"\n", "table 2 ('2'): time_control:"),
            ("[[table]]\nname = \"1\"\ncolour = \"white\"\n", "table 1: unknown field `colour`"),
            ("[[table]]\nrules = \"rand\"\n", "table 1: name: a table needs a name"),
            ("[[table]]\nname = 3\n", "table 1: name: expected text"),
            ("[[table]]\nname = \"1\"\n[[table]]\nname = \"1\"\n", "another table has this name"),
            ("[[table]]\nname = \"1\"\nwhite = \"/dev/a\"\n[[table]]\nname = \"2\"\nblack = \"/dev/a\"\n", "also used by table '1'"),
            ("event = \"x\"\n", "at least one table"),
            ("[[table]\n", "line 1"),
        ] {
            let e = round(text).unwrap_err();
            assert!(e.contains("round.toml"), "{e}");
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
