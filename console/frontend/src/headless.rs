//! A hall run headless: JSON lines on standard output (tagged with the table when asked),
//! notes for the arbiter on standard error, commands on standard input, the players'
//! channel and each speaking table's speakers; until every table's game is over. What
//! `kriegspiel table` and `kriegspiel hall` run.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_hall::{
    Hall, HallCommand, HallError, HallEvent, Journal, Subscriber, TableNo, TableSpec, TimeMode,
};
use kriegspiel_speech::Speakers;
use tokio::sync::broadcast::error::RecvError;

use crate::keypad::spawn_keypad;
use crate::lines::{print_line, Lines};
use crate::players::{default_socket, Players};
use crate::signals::stop_on_signals;
use crate::speakers::speaking;

/// Said before any game is begun in the journal: a broker setting that cannot be used, or
/// a console or table already running on the round's broker.
fn refused_on_the_broker(
    network: Option<&crate::args::OnBroker>,
    journal: &Journal,
    specs: &[(TableNo, TableSpec)],
    numbers: &[TableNo],
    program: &str,
) -> Option<ExitCode> {
    if let Some(e) = crate::args::broker_unusable(network, specs.iter().map(|(_, s)| s)) {
        eprintln!("{program}: {e}");
        return Some(ExitCode::from(2));
    }
    let on = network?;
    let beginning = crate::elsewhere::beginning(journal, specs);
    let e =
        crate::elsewhere::runs_elsewhere(&on.hall.broker, &on.hall.console, numbers, &beginning)?;
    eprintln!("{program}: {e}");
    Some(ExitCode::FAILURE)
}

/// Opens the hall on its journal (on the round's broker, if any) and says the unfinished
/// games it leaves; refused: why, with what this program's own options do about it.
pub fn open_hall(
    journal: Journal,
    specs: Vec<(TableNo, TableSpec)>,
    mode: TimeMode,
    network: Option<&crate::args::OnBroker>,
    program: &str,
) -> Result<Hall, String> {
    let path = journal.path().to_path_buf();
    let mut hall =
        Hall::open_numbered(journal, specs, mode).map_err(|e| hall_refused(program, &e))?;
    if let Some(network) = network {
        hall.use_broker(network.hall.clone());
    }
    say_left_unfinished(program, &hall, &path);
    Ok(hall)
}

/// The unfinished games of tables this hall does not open, said once at the start: a table
/// dropped from the round file (or run by another command) keeps its game in the journal.
fn say_left_unfinished(program: &str, hall: &Hall, journal: &std::path::Path) {
    for (game, name) in hall.left_unfinished() {
        eprintln!(
            "{program}: the journal also holds table '{name}''s unfinished game {game}, which this start does not open: it stays there (name the table again to take it up; kriegspiel export --journal {} --game {game} writes it)",
            journal.display()
        );
    }
}

/// Why a hall did not open, with what this program's own options do about it: `--new-game`
/// is one table's with `kriegspiel table` (and `--resume` takes the game up again), every
/// table's of the round with `kriegspiel hall` and the window.
pub fn hall_refused(program: &str, e: &HallError) -> String {
    match e {
        HallError::Conflict { game, .. } if program.ends_with("table") => {
            format!("{e}; kriegspiel table --resume {game} takes it up again after a --new-game")
        }
        HallError::Conflict { .. } => {
            format!("{e}; --new-game starts every table of the round afresh, not this one only")
        }
        _ => e.to_string(),
    }
}

/// Runs a hall until every table's game is over, printing JSON lines (tagged with the
/// table when there are several) and speaking each table that has speakers: a subscriber
/// thread per table, each with its own subscription (a slow one lags alone) and one queue
/// and thread per output.
pub fn play(
    journal: Journal,
    specs: Vec<(TableNo, TableSpec)>,
    speakers: Vec<(TableNo, Speakers)>,
    players_socket: Option<PathBuf>,
    program: &'static str,
    tag_tables: bool,
    network: Option<crate::args::OnBroker>,
) -> ExitCode {
    let mode = TimeMode::Real;
    let socket = players_socket.unwrap_or_else(|| default_socket(journal.path()));
    let journal_path = journal.path().to_path_buf();
    let numbers: Vec<TableNo> = specs.iter().map(|(no, _)| *no).collect();
    let setups: Vec<(TableNo, kriegspiel_hall::TableSetup)> =
        specs.iter().map(|(no, s)| (*no, s.setup.clone())).collect();
    let tables = specs.len();
    if let Some(code) = refused_on_the_broker(network.as_ref(), &journal, &specs, &numbers, program)
    {
        journal.close_refused();
        return code;
    }
    let hall = match open_hall(journal, specs, mode, network.as_ref(), program) {
        Ok(h) => h,
        Err(why) => {
            eprintln!("{program}: {why}");
            return ExitCode::from(2);
        }
    };
    // The socket is open before the hall's first event: a seat code printed can be used.
    let players = Players::serve(&socket, hall.handle(), program);
    if let (Some(p), Some(on)) = (&players, &network) {
        p.serve_broker(on, program);
    }
    // Every subscriber (the players' channel, each table's speakers, and this printer on
    // the hall's first subscription) has a queue of its own from the hall's first event:
    // one that falls behind (a stalled standard output) makes no other wait or lose.
    let mut subscribers: Vec<Box<dyn Subscriber>> = speakers
        .into_iter()
        .map(|(table, speakers)| speaking(table, speakers, Duration::from_secs(10)))
        .collect();
    subscribers.extend(players.as_ref().map(Players::subscriber));
    if let Some(on) = &network {
        subscribers.extend(crate::round_broker::on_round(
            on,
            setups,
            hall.handle(),
            players.clone(),
            program,
        ));
    }
    let hall = match hall.start(subscribers) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{program}: {e}");
            return ExitCode::from(2);
        }
    };
    spawn_keypad(hall.handle.clone(), program, numbers, players.clone());
    let signalled = stop_on_signals(hall.handle.clone(), program, None);
    let mut printer = Printer {
        program,
        journal: journal_path,
        tables,
        lines: Lines::new(tag_tables),
        waiting_said: HashSet::new(),
        resumed_said: HashSet::new(),
    };
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
        printer.note(&e);
        if matches!(e, HallEvent::Ended { .. }) {
            open -= 1;
        }
        if let HallEvent::Failed { error, .. } = &e {
            eprintln!("{program}: {error}");
            open -= 1;
            code = ExitCode::FAILURE;
        }
        if let Some(v) = printer.lines.line(&e) {
            if !print_line(&v) {
                // Nobody reads our answers any more (`| head`, a supervisor gone): said, and
                // not a success, so that no one takes it for the game's end.
                // Said if standard error is still read (not when it went with standard output).
                let _ = writeln!(std::io::stderr(), "{program}: standard output was closed: nobody reads the table's lines; stopping (the game is journaled and resumes when started again)");
                code = ExitCode::FAILURE;
                break;
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
    // The speakers say what they still have, then end with the players' follower.
    for f in hall.followers {
        let _ = f.join();
    }
    code
}

/// The JSON lines, and what the arbiter reads on standard error beside them.
struct Printer {
    program: &'static str,
    /// The journal's path, for the commands the notes name.
    journal: PathBuf,
    tables: usize,
    lines: Lines,
    /// Tables whose waiting clocks were said.
    waiting_said: HashSet<TableNo>,
    /// Tables whose first view was seen (a resumed game's position is said once).
    resumed_said: HashSet<TableNo>,
}

impl Printer {
    /// Says on standard error what the arbiter should know of an event (before its line is
    /// printed): a resumed game, the seat codes, seats taken and left, clocks waiting for
    /// him, a board's port that does not open.
    fn note(&mut self, e: &HallEvent) {
        let program = self.program;
        if let HallEvent::Opened {
            table,
            name,
            game,
            resumed_events,
            seats,
            ignored,
            set_aside,
            follows,
            ..
        } = e
        {
            if let Some(over) = follows {
                let journal = self.journal.display();
                eprintln!("{program}: table '{name}': its game {over} is over; a new game {game} begins (kriegspiel export --journal {journal} --game {over} writes the finished one)");
            }
            if let Some(old) = set_aside {
                // Only `kriegspiel table` takes a game up by its number.
                let journal = self.journal.display();
                let again = if program.ends_with("table") {
                    format!(
                        "kriegspiel table --journal {journal} --resume {old} takes it up again; "
                    )
                } else {
                    String::new()
                };
                eprintln!("{program}: table '{name}': a new game {game}; its unfinished game {old} stays in the journal ({again}kriegspiel export --journal {journal} --game {old} writes it)");
            }
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
        if let HallEvent::Seat(notice) = e {
            eprintln!("{program}: {notice}");
        }
        if let HallEvent::View(v) = e {
            if self.resumed_said.insert(v.table) && self.lines.is_resuming(v.table) {
                eprintln!(
                    "{program}: table {}: the game stands at {}, {} to move",
                    v.table,
                    v.fen(),
                    v.to_move()
                );
                // Paused before the stop, it stays paused: said, or the arbiter waits for
                // clocks that never run.
                if v.paused {
                    eprintln!(
                        "{program}: table {}: the game is paused, as it was when the console stopped: resume it with {{\"table\":{},\"arbiter\":\"resume\"}}",
                        v.table, v.table
                    );
                }
            }
            if v.clocks_waiting && self.waiting_said.insert(v.table) {
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
        } = e
        {
            let at = if self.tables > 1 {
                format!("table {table}: ")
            } else {
                String::new()
            };
            eprintln!("{program}: {at}{color} board: {error} (retrying)");
        }
    }
}
