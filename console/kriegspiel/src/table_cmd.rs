//! `kriegspiel table`: one table, headless. Two boards over serial links, the players'
//! keypad (and the arbiter's) commands on standard input, one JSON line per answer on
//! standard output, the public announcements spoken aloud; every event journaled, and an
//! unfinished game resumed when the same table starts again. A one-table hall.

use std::path::PathBuf;
use std::process::ExitCode;

use kriegspiel_frontend::args::broker_unusable;
use kriegspiel_frontend::{open_journal, play, speaker, BrokerArgs, GameArgs, SpeechArgs, Unnamed};
use kriegspiel_hall::{BoardSource, TableSetup, TableSpec};

const PROGRAM: &str = "kriegspiel table";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule set (as --rules).
    #[arg(value_name = "RULES")]
    rule_set: Option<String>,
    /// White's board: a reed board's serial port or pseudo-terminal path, dgt:PATH (or
    /// dgt:auto) for a DGT e-board, or board:ID for a board on the network (with
    /// --broker). Without it White has no board and tries by keys
    /// (`{"color":"white","try":"g1f3"}`) or voice.
    #[arg(long, value_name = "PORT|dgt:PATH|board:ID")]
    white: Option<PathBuf>,
    /// Black's board (as --white).
    #[arg(long, value_name = "PORT|dgt:PATH|board:ID")]
    black: Option<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    /// The journal (SQLite) that keeps every event; default: journal.sqlite in the user's
    /// data folder. An unfinished game of the same table name is resumed.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// The table's name in the journal.
    #[arg(long, default_value = "table")]
    name: String,
    /// Start a new game even if the journal holds an unfinished one for this table.
    #[arg(long)]
    new_game: bool,
    /// Resume this unfinished game of the journal (its number: `kriegspiel export` lists
    /// them), e.g. one left behind by --new-game; it goes on with its own settings.
    #[arg(long, value_name = "GAME", conflicts_with = "new_game")]
    resume: Option<i64>,
    /// The board id White's board must report (else learnt when it first connects).
    #[arg(long)]
    white_board_id: Option<u32>,
    /// The board id Black's board must report.
    #[arg(long)]
    black_board_id: Option<u32>,
    /// The players' terminals' socket (`kriegspiel player`); default: beside the journal.
    #[arg(long, value_name = "PATH")]
    player_socket: Option<PathBuf>,
    #[command(flatten)]
    audio: SpeechArgs,
    #[command(flatten)]
    broker: BrokerArgs,
}

/// Whether two board names are one device under two spellings (`dgt:` or not, `./x` or
/// `/dir/x`, a link or its target): the second board would be refused its port's lock
/// for ever, said as a port that cannot be opened.
fn same_device(a: &std::path::Path, b: &std::path::Path) -> bool {
    let device = |p: &std::path::Path| {
        let text = p.to_string_lossy();
        let path = std::path::PathBuf::from(text.strip_prefix("dgt:").unwrap_or(&text));
        std::fs::canonicalize(&path).ok()
    };
    device(a).is_some_and(|d| Some(d) == device(b))
}

/// The table the command line describes, or the error to print.
fn table_spec(args: &Args) -> Result<TableSpec, String> {
    kriegspiel_hall::setup::check_name("--name", &args.name).map_err(|e| e.to_string())?;
    if let (Some(w), Some(b)) = (&args.white, &args.black) {
        if w == b || same_device(w, b) {
            return Err(format!(
                "--white and --black name the same port ({}): each player's board needs its own",
                w.display()
            ));
        }
    }
    let mut game = args.game.clone();
    match (&args.rule_set, &game.rules) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!("two rule sets given: '{a}' and '{b}'"))
        }
        (Some(a), _) => game.rules = Some(a.clone()),
        (None, _) => {}
    }
    let setup = game.apply(TableSetup {
        clock_start: kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
            .id()
            .to_owned(),
        white_board_id: args.white_board_id,
        black_board_id: args.black_board_id,
        white_without_board: args.white.is_none(),
        black_without_board: args.black.is_none(),
        ..TableSetup::default()
    })?;
    let board = |p: &Option<PathBuf>| match p {
        None => Ok(BoardSource::Absent),
        Some(p) => BoardSource::parse(&p.to_string_lossy()),
    };
    Ok(TableSpec {
        name: args.name.clone(),
        setup,
        white: board(&args.white)?,
        black: board(&args.black)?,
        scripted: Vec::new(),
        resume: args.resume.map_or(
            kriegspiel_hall::Resume::unless_new(args.new_game),
            kriegspiel_hall::Resume::Game,
        ),
    })
}

pub fn run(args: Args) -> ExitCode {
    let spec = match table_spec(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let lang = match spec.setup.config() {
        Ok(c) => c.lang,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let network = args.broker.network(None, None);
    if let Some(e) = broker_unusable(network.as_ref(), std::iter::once(&spec)) {
        eprintln!("{PROGRAM}: {e}");
        return ExitCode::from(2);
    }
    // The journal first: a mistyped path is said at once, not after the speech probe.
    let journal = match open_journal(PROGRAM, args.journal.clone(), Unnamed::Club) {
        Ok((j, _)) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = args.audio.options();
    let speaker = match speaker(PROGRAM, lang, &options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            // Nothing began: a journal made for this start is not left behind.
            journal.close_refused();
            return ExitCode::from(2);
        }
    };
    play(
        journal,
        vec![(1, spec)],
        speaker.map(|s| (1, s)).into_iter().collect(),
        args.player_socket.clone(),
        PROGRAM,
        false,
        network,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> Result<Args, clap::Error> {
        let mut v = vec!["table", "--white", "/dev/null", "--black", "/dev/zero"];
        v.extend_from_slice(extra);
        #[derive(Debug, clap::Parser)]
        struct Wrap {
            #[command(flatten)]
            args: Args,
        }
        <Wrap as clap::Parser>::try_parse_from(v).map(|w| w.args)
    }

    #[test]
    fn bad_command_lines_are_refused() {
        let ok = args(&[
            "--rules",
            "rand",
            "--option",
            "ladder=true",
            "--clock",
            "25+10",
        ])
        .unwrap();
        let spec = table_spec(&ok).unwrap();
        assert_eq!(spec.setup.time_control, "25+10");
        for (bad, says) in [
            (&["--rules", "chess"][..], "--rules"),
            (&["--rules", "rand", "--option", "strict=true"], "--option"),
            (
                &["--rules", "rand", "--touch-move", "maybe"],
                "--touch-move",
            ),
            (&["--rules", "rand", "--lang", "de"], "--lang"),
            (&["--rules", "rand", "--fen", "not a fen"], "--fen"),
            (&["--clock", "forever"], "--clock"),
            (
                &["--white-board-id", "3", "--black-board-id", "3"],
                "--black-board-id",
            ),
        ] {
            let a = args(bad).unwrap();
            let e = table_spec(&a).unwrap_err();
            assert!(e.starts_with(says), "{bad:?}: {e}");
        }
        // Out of the table's range: refused by the command line, naming the range.
        for (bad, range) in [
            (["--settle-ms", "50"], "100..=1500"),
            (["--guide-ms", "99999999999"], "100..=600000"),
        ] {
            let e = args(&bad).unwrap_err().to_string();
            assert!(e.contains(range), "{bad:?}: {e}");
        }
        let same = <Wrap2 as clap::Parser>::try_parse_from([
            "t", "--white", "/dev/x", "--black", "/dev/x",
        ])
        .unwrap()
        .args;
        assert!(table_spec(&same).unwrap_err().contains("same port"));
        // One device under two spellings.
        let dir = tempfile::tempdir().unwrap();
        let port = dir.path().join("w.pty");
        std::fs::write(&port, "").unwrap();
        let link = dir.path().join("link.pty");
        std::os::unix::fs::symlink(&port, &link).unwrap();
        let spelled = |w: &std::path::Path, b: String| {
            args(&[]).map(|mut a| {
                a.white = Some(w.to_owned());
                a.black = Some(b.into());
                a
            })
        };
        for other in [
            format!("dgt:{}", port.display()),
            format!(
                "{}/../{}/w.pty",
                dir.path().display(),
                dir.path().file_name().unwrap().to_string_lossy()
            ),
            link.display().to_string(),
        ] {
            let a = spelled(&port, other.clone()).unwrap();
            assert!(table_spec(&a).unwrap_err().contains("same port"), "{other}");
        }
        let elsewhere = dir.path().join("b.pty");
        std::fs::write(&elsewhere, "").unwrap();
        assert!(table_spec(&spelled(&port, elsewhere.display().to_string()).unwrap()).is_ok());
    }

    #[derive(Debug, clap::Parser)]
    struct Wrap2 {
        #[command(flatten)]
        args: Args,
    }
}
