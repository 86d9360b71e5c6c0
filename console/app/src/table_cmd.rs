//! `kriegspiel table`: one table, headless. Two boards over serial links, the players'
//! keypad (and the arbiter's) commands on standard input, one JSON line per answer on
//! standard output, the public announcements spoken aloud; every event journaled, and an
//! unfinished game resumed when the same table starts again. A one-table hall.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_hall::{
    BoardSource, HallCommand, HallEvent, Journal, TableNo, TableSetup, TableSpec, TimeMode,
};
use tokio::sync::broadcast::error::RecvError;

use crate::frontend::{
    open_journal, print_line, spawn_keypad, spawn_speaker, stop_on_signals, GameArgs, Lines,
    SpeechArgs,
};
use crate::players::{default_socket, Players};
use crate::speech::{AudioOptions, Speakers};

const PROGRAM: &str = "kriegspiel table";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule set (as --rules).
    #[arg(value_name = "RULES")]
    rule_set: Option<String>,
    /// White's board: serial port or pseudo-terminal path. Without it White has no reed
    /// board and tries by keys (`{"color":"white","try":"g1f3"}`) or voice.
    #[arg(long)]
    white: Option<PathBuf>,
    /// Black's board (as --white).
    #[arg(long)]
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
}

/// The table the command line describes, or the error to print.
fn table_spec(args: &Args) -> Result<TableSpec, String> {
    kriegspiel_hall::setup::check_name("--name", &args.name).map_err(|e| e.to_string())?;
    if let (Some(w), Some(b)) = (&args.white, &args.black) {
        if w == b {
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
    let board = |p: &Option<PathBuf>| p.clone().map_or(BoardSource::Absent, BoardSource::Serial);
    Ok(TableSpec {
        name: args.name.clone(),
        setup,
        white: board(&args.white),
        black: board(&args.black),
        scripted: Vec::new(),
        resume: args.resume.map_or(
            kriegspiel_hall::Resume::unless_new(args.new_game),
            kriegspiel_hall::Resume::Game,
        ),
    })
}

/// The speakers the options ask for (none: silent).
pub fn speaker(
    program: &str,
    lang: kriegspiel_referee::Lang,
    options: &AudioOptions,
) -> Result<Option<Speakers>, String> {
    let speakers =
        kriegspiel_speech::setup::build(program, lang, options).map_err(|e| e.to_string())?;
    Ok((!speakers.is_silent()).then_some(speakers))
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
    let options = args.audio.options();
    let speaker = match speaker(PROGRAM, lang, &options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let journal = match open_journal(PROGRAM, args.journal.clone()) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    play(
        journal,
        vec![spec],
        speaker.map(|s| (1, s)).into_iter().collect(),
        args.player_socket.clone(),
        PROGRAM,
        false,
    )
}

/// Runs a hall until every table's game is over, printing JSON lines (tagged with the
/// table when there are several) and speaking each table that has speakers: a subscriber
/// thread per table, each with its own subscription (a slow one lags alone) and one queue
/// and thread per output.
pub fn play(
    journal: Journal,
    specs: Vec<TableSpec>,
    speakers: Vec<(TableNo, Speakers)>,
    players_socket: Option<PathBuf>,
    program: &'static str,
    tag_tables: bool,
) -> ExitCode {
    let mode = TimeMode::Real;
    let socket = players_socket.unwrap_or_else(|| default_socket(journal.path()));
    let tables = specs.len();
    // Every subscriber (this printer, the players' channel, each table's speakers) has a
    // subscription of its own from the hall's first event: one that falls behind (a
    // stalled standard output) makes no other wait or lose anything.
    let (hall, mut subscriptions) =
        match kriegspiel_hall::start_subscribed(journal, specs, mode, speakers.len() + 1) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("{program}: {e}");
                return ExitCode::from(2);
            }
        };
    let for_players = subscriptions.pop();
    let voices: Vec<_> = speakers
        .into_iter()
        .zip(subscriptions)
        .map(|((table, s), events)| spawn_speaker(events, table, s, Duration::from_secs(10)))
        .collect();
    let players = Players::serve(&socket, hall.handle.clone(), for_players, program);
    spawn_keypad(hall.handle.clone(), program, tables, players.clone());
    let signalled = stop_on_signals(hall.handle.clone(), program, None);
    let mut lines = Lines::new(tag_tables);
    let mut waiting_said = std::collections::HashSet::new();
    let mut resumed_said = std::collections::HashSet::new();
    let mut events = hall.events;
    let mut open = tables;
    let mut code = ExitCode::SUCCESS;
    while open > 0 {
        let e = match events.blocking_recv() {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                eprintln!("{program}: {n} events were not printed (standard output is too slow)");
                continue;
            }
            Err(RecvError::Closed) => break,
        };
        if let HallEvent::Opened {
            table,
            name,
            game,
            resumed_events,
            seats,
            ignored,
            ..
        } = &e
        {
            if *resumed_events > 0 {
                eprintln!("{program}: table '{name}': resuming its unfinished game {game} after {resumed_events} journaled events, with the settings it was started with");
            }
            for i in ignored {
                eprintln!("{program}: table '{name}': ignored for the resumed game: {i} (--new-game starts afresh)");
            }
            eprintln!(
                "{program}: table {table} ('{name}') seat codes: white {}, black {} (each player's alone, for kriegspiel player --code)",
                seats.white, seats.black
            );
        }
        if let HallEvent::Seat(notice) = &e {
            eprintln!("{program}: {notice}");
        }
        if let HallEvent::View(v) = &e {
            if resumed_said.insert(v.table) && lines.is_resuming(v.table) {
                eprintln!(
                    "{program}: table {}: the game stands at {}, {} to move",
                    v.table,
                    v.fen(),
                    v.to_move()
                );
            }
            if v.clocks_waiting && waiting_said.insert(v.table) {
                eprintln!(
                    "{program}: table {}: the clocks have not started: the arbiter starts them with {{\"table\":{},\"arbiter\":\"start\"}} (every table: {{\"arbiter\":\"start all\"}}); with clock_start boards they also start when both boards are in sync",
                    v.table, v.table
                );
            }
        }
        if let HallEvent::Link {
            table,
            color,
            event: kriegspiel_boardlink::LinkEvent::OpenFailed { error },
            ..
        } = &e
        {
            let at = if tables > 1 {
                format!("table {table}: ")
            } else {
                String::new()
            };
            eprintln!("{program}: {at}{color} board: {error} (retrying)");
        }
        if matches!(e, HallEvent::Ended { .. }) {
            open -= 1;
        }
        if let HallEvent::Failed { error, .. } = &e {
            eprintln!("{program}: {error}");
            open -= 1;
            code = ExitCode::FAILURE;
        }
        if let Some(v) = lines.line(&e) {
            if !print_line(&v) {
                break; // nobody reads our answers any more
            }
        }
    }
    let _ = hall.handle.send(HallCommand::Shutdown);
    let _ = hall.thread.join();
    if let Some(p) = &players {
        p.close_all("the console has stopped", true);
    }
    let signal = signalled.load(std::sync::atomic::Ordering::Acquire);
    if signal != 0 {
        // Stopped on purpose, cleanly: the shell's convention for a signal.
        code = ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
    }
    for v in voices {
        let _ = v.join();
    }
    code
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
            (&["--rules", "rand", "--settle-ms", "50"], "--settle-ms"),
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
        let same = <Wrap2 as clap::Parser>::try_parse_from([
            "t", "--white", "/dev/x", "--black", "/dev/x",
        ])
        .unwrap()
        .args;
        assert!(table_spec(&same).unwrap_err().contains("same port"));
    }

    #[derive(Debug, clap::Parser)]
    struct Wrap2 {
        #[command(flatten)]
        args: Args,
    }
}
