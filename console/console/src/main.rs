//! `kriegspiel-console` (also `kriegspiel console` and `kriegspiel` alone, which run it): the
//! arbiter's window on a hall. The hall is a round file (`--config`, as `kriegspiel hall`),
//! one table on two serial boards (the options of `kriegspiel table`), or the demo game(s) on
//! simulated boards (`--demo`, also the default when nothing else is given). A program of its
//! own so that the GUI's libraries weigh on neither the headless programs nor their tests.
//!
//! The tables speak as `kriegspiel hall` and `kriegspiel table` make them speak, with the
//! same speakers and subscriber (the `kriegspiel-frontend` library's): a round file's tables
//! by their audio keys, one table by the audio options of `kriegspiel table`, the demo's
//! first table by those options too (several demo tables in one room would talk over each
//! other); `--no-speech` silences every table.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_hall::broadcast as tokio_broadcast;
use kriegspiel_hall::{
    follower, BoardSource, Journal, Subscriber, TableNo, TableSetup, TableSpec, TimeMode,
};
use kriegspiel_window::WindowOptions;

use clap::Parser;
use kriegspiel_frontend::demo::{count_from, on_network, parse_unix_ms, write_scripts};
use kriegspiel_frontend::{
    default_socket, demo_timing, open_journal, read_round_broker, read_round_with_audio, speaking,
    stop_on_signals, tables_of, wait_for_stop, BrokerArgs, GameArgs, Players, Probing, SpeechArgs,
    Unnamed,
};
use kriegspiel_speech::{setup, AudioOptions, Speakers};

const PROGRAM: &str = "kriegspiel-console";

/// The journal name of the one table given by its ports (`--name`'s default).
const ONE_TABLE: &str = "table";

/// The most demo tables one window opens.
const MAX_DEMO_TABLES: usize = 64;

/// The arbiter's window on a hall: a round file, one table's boards, or the demo.
#[derive(Debug, Parser)]
#[command(name = "kriegspiel-console", version)]
struct Args {
    /// Rule sets of the demo tables (with --demo; default cincinnati).
    #[arg(value_name = "RULES")]
    rule_sets: Vec<String>,
    /// The demo game(s) on simulated boards (the default when no round and no ports are given).
    #[arg(long, conflicts_with_all = ["config", "white", "black"])]
    demo: bool,
    /// Demo tables: this many (the rule sets given repeat in turn).
    #[arg(long, value_name = "N", conflicts_with_all = ["config", "white", "black"])]
    tables: Option<usize>,
    /// A round: the TOML file of `kriegspiel hall --config`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["white", "black"])]
    config: Option<PathBuf>,
    /// One table: White's board (serial port or pseudo-terminal path, or board:ID for a
    /// board on the network, with --broker).
    #[arg(long, requires = "black", value_name = "PORT|board:ID")]
    white: Option<PathBuf>,
    /// One table: Black's board.
    #[arg(long, requires = "white", value_name = "PORT|board:ID")]
    black: Option<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    /// One table: its name in the journal.
    #[arg(long, default_value = ONE_TABLE)]
    name: String,
    /// One table: the board id White's board must report.
    #[arg(long)]
    white_board_id: Option<u32>,
    /// One table: the board id Black's board must report.
    #[arg(long)]
    black_board_id: Option<u32>,
    /// Start new games even if the journal holds unfinished ones of the same tables.
    #[arg(long)]
    new_game: bool,
    /// The journal; default: journal.sqlite in the user's data folder, or for the demo a
    /// new one of this run's own (in a kriegspiel-demo-PID folder of the temporary folder).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// The players' terminals' socket (`kriegspiel player`); default: beside the journal.
    #[arg(long, value_name = "PATH")]
    player_socket: Option<PathBuf>,
    /// Show this table (1, 2, …) first instead of the overview.
    #[arg(long, value_name = "N")]
    open: Option<usize>,
    /// A board out of sync this many seconds is an alert.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    sync_alert: u64,
    /// How one table, or the demo's first table, speaks (a round file's tables speak by
    /// its audio keys; --no-speech silences every table).
    #[command(flatten)]
    audio: SpeechArgs,
    #[command(flatten)]
    broker: BrokerArgs,
    /// The demo with --broker: the boards' --start-at (Unix milliseconds, `date +%s%3N`);
    /// the demo's keypad commands count from that moment too (default: the table's start).
    #[arg(long, value_name = "UNIX_MS", value_parser = parse_unix_ms, requires = "broker")]
    start_at: Option<std::time::SystemTime>,
    /// The demo with --broker: writes the boards' scripts into DIR (white.script,
    /// black.script) just before the game starts (see `kriegspiel demo --help`).
    #[arg(long, value_name = "DIR", requires = "broker")]
    write_scripts: Option<PathBuf>,
}

/// The tables the command line describes.
struct Tables {
    specs: Vec<TableSpec>,
    /// Each table's number (a round's own, whichever console runs it).
    numbers: Vec<TableNo>,
    /// How each table speaks (none: silent), and its name in messages.
    audio: Vec<(Option<AudioOptions>, String)>,
    /// Demo tables on simulated boards.
    demo: bool,
    /// A round file's `[broker]`, for its networked boards.
    broker: Option<kriegspiel_net::Broker>,
    /// The demo on networked boards 1 and 2 (--demo with --broker): its game.
    network_demo: Option<kriegspiel_games::BuiltGame>,
}

/// Whether any audio option other than --no-speech was given.
fn audio_options_given(a: &SpeechArgs) -> bool {
    let only_off = SpeechArgs {
        no_speech: a.no_speech,
        ..SpeechArgs::default()
    };
    a.options() != only_off.options()
}

/// The first option given that describes one table or the demo, which a round file replaces.
fn one_table_option(args: &Args) -> Option<&'static str> {
    let g = &args.game;
    [
        (!args.rule_sets.is_empty(), "a rule set"),
        (g.rules.is_some(), "--rules"),
        (g.lang.is_some(), "--lang"),
        (!g.options.is_empty(), "--option"),
        (g.settle_ms.is_some(), "--settle-ms"),
        (g.guide_ms.is_some(), "--guide-ms"),
        (g.touch_move.is_some(), "--touch-move"),
        (g.fen.is_some(), "--fen"),
        (g.clock.is_some(), "--clock"),
        (args.name != ONE_TABLE, "--name"),
        (args.white_board_id.is_some(), "--white-board-id"),
        (args.black_board_id.is_some(), "--black-board-id"),
    ]
    .into_iter()
    .find_map(|(given, name)| given.then_some(name))
}

/// The hall's tables the command line describes, how each speaks, and whether they are
/// demo tables.
fn tables(args: &Args) -> Result<Tables, String> {
    if (args.write_scripts.is_some() || args.start_at.is_some())
        && (args.config.is_some() || args.white.is_some())
    {
        return Err("--start-at and --write-scripts are for the demo on networked boards (--demo --broker URL)".into());
    }
    if let Some(path) = &args.config {
        if let Some(option) = one_table_option(args) {
            return Err(format!(
                "with --config the round file describes every table; {option} belongs in its [[table]] entries"
            ));
        }
        if audio_options_given(&args.audio) {
            return Err(
                "with --config the round file's audio keys say how each table speaks (only --no-speech applies)"
                    .into(),
            );
        }
        let entries = tables_of(read_round_with_audio(path)?, &args.broker.console)?;
        let numbers = entries.iter().map(|e| e.no).collect();
        let (specs, audio) = entries
            .into_iter()
            .map(|mut e| {
                e.spec.resume = kriegspiel_hall::Resume::unless_new(args.new_game);
                e.audio.off |= args.audio.no_speech;
                (e.spec, (Some(e.audio), e.label))
            })
            .unzip();
        return Ok(Tables {
            specs,
            numbers,
            audio,
            demo: false,
            broker: read_round_broker(path)?,
            network_demo: None,
        });
    }
    let (specs, demo, network_demo) = specs(args)?;
    let options = args.audio.options();
    options.check().map_err(|e| e.to_string())?;
    // One table, or the demo's first table.
    let audio = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let label = format!("table {} ('{}')", i + 1, s.name);
            ((i == 0).then(|| options.clone()), label)
        })
        .collect();
    Ok(Tables {
        numbers: (1..=specs.len()).collect(),
        specs,
        audio,
        demo,
        broker: None,
        network_demo,
    })
}

/// Each speaking table's speakers (the `kriegspiel-frontend` library's, as `kriegspiel
/// table` and `kriegspiel hall` build them), built at once on a thread each: reaching
/// speech-dispatcher takes a moment per table, and the window opens when all are there. An
/// error names the table.
fn speakers(tables: &Tables) -> Result<Vec<(TableNo, Speakers)>, String> {
    // Every named device is checked once, silent tables' too; speech-dispatcher is asked
    // once for the window, on a thread while the devices are checked; one line says it.
    let named: Vec<(TableNo, &AudioOptions, &String, &TableSpec)> = tables
        .specs
        .iter()
        .zip(&tables.audio)
        .zip(&tables.numbers)
        .filter_map(|((spec, (audio, label)), no)| Some((*no, audio.as_ref()?, label, spec)))
        .collect();
    let wants = named
        .iter()
        .any(|(_, a, _, _)| !a.off && a.wants_dispatcher());
    let probing = Probing::start(wants);
    let options: Vec<&AudioOptions> = named.iter().map(|(_, a, _, _)| *a).collect();
    let mut list = Vec::with_capacity(named.len());
    for ((table, _, label, spec), checked) in named.iter().zip(setup::check_all(&options)) {
        let checked = checked.map_err(|e| format!("{label}: {e}"))?;
        let lang = spec
            .setup
            .config()
            .map_err(|e| format!("{label}: {e}"))?
            .lang;
        list.push((*table, lang, checked));
    }
    let built = setup::build_all(&list, || probing.answer()).map_err(|(table, e)| {
        let label = named
            .iter()
            .find(|(t, ..)| *t == table)
            .map_or_else(|| format!("table {table}"), |(_, _, l, _)| (*l).clone());
        format!("{label}: {e}")
    })?;
    if let Some(line) = built.summary {
        eprintln!("{PROGRAM}: speech: {line}");
    }
    Ok(built.speakers)
}

/// The tables of one table's boards or of the demo, whether they are demo tables, and the
/// game of the demo on networked boards.
type Specs = (Vec<TableSpec>, bool, Option<kriegspiel_games::BuiltGame>);

/// The tables of one table's boards or of the demo.
fn specs(args: &Args) -> Result<Specs, String> {
    let game = args.game.clone();
    if let (Some(white), Some(black)) = (&args.white, &args.black) {
        if white == black {
            return Err(format!(
                "--white and --black name the same port ({}): each player's board needs its own",
                white.display()
            ));
        }
        let mut game = game;
        if let Some(r) = args.rule_sets.first() {
            game.rules = Some(r.clone());
        }
        let setup = game.apply(TableSetup {
            clock_start: kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
                .id()
                .to_owned(),
            white_board_id: args.white_board_id,
            black_board_id: args.black_board_id,
            ..TableSetup::default()
        })?;
        return Ok((
            vec![TableSpec {
                name: args.name.clone(),
                setup,
                white: BoardSource::parse(&white.to_string_lossy())?,
                black: BoardSource::parse(&black.to_string_lossy())?,
                scripted: Vec::new(),
                resume: kriegspiel_hall::Resume::unless_new(args.new_game),
            }],
            false,
            None,
        ));
    }
    // The demo.
    if game.fen.is_some() || !game.options.is_empty() {
        return Err(
            "the demo plays its own scripted games: --fen and --option do not apply".into(),
        );
    }
    let mut rules = args.rule_sets.clone();
    if let Some(r) = &game.rules {
        rules.push(r.clone());
    }
    if rules.is_empty() {
        rules.push("cincinnati".to_owned());
    }
    let n = args.tables.unwrap_or(rules.len());
    if n == 0 || n > MAX_DEMO_TABLES {
        return Err(format!("--tables: 1 to {MAX_DEMO_TABLES}"));
    }
    let networked = args.broker.broker.is_some();
    if networked && n > 1 {
        return Err(
            "the demo on networked boards (--broker) is one table, on boards 1 and 2: give one rule set and no --tables"
                .into(),
        );
    }
    let mut network_demo = None;
    let timing = demo_timing(game.settle_ms);
    let mut specs = Vec::with_capacity(n);
    for i in 0..n {
        let r = &rules[i % rules.len()];
        let rule_set: kriegspiel_referee::RuleSet = r.parse().map_err(|e| format!("{e}"))?;
        let built = kriegspiel_games::builtin(rule_set.id(), timing).map_err(|e| e.to_string())?;
        let name = if n == rules.len() {
            format!("demo-{}", rule_set.id())
        } else {
            format!("demo-{}-{}", rule_set.id(), i + 1)
        };
        let mut spec = built.table_spec(&name, &timing);
        let only_rules = GameArgs {
            rules: None,
            ..game.clone()
        };
        spec.setup = only_rules.apply(spec.setup)?;
        spec.resume = kriegspiel_hall::Resume::unless_new(args.new_game);
        if networked {
            on_network(&mut spec);
            network_demo = Some(built);
        }
        specs.push(spec);
    }
    Ok((specs, true, network_demo))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let tables = match tables(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let speakers = match speakers(&tables) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let Tables {
        mut specs,
        numbers,
        demo,
        broker,
        network_demo,
        ..
    } = tables;
    let network = args.broker.network(broker, args.config.as_deref());
    if let Err(code) = refused_at_start(&args, &numbers, network.as_ref(), &specs) {
        return code;
    }
    let (journal, path) = match journal(&args, demo) {
        Ok(j) => j,
        Err(code) => return code,
    };
    if let Err(why) = elsewhere(network.as_ref(), &journal, &numbers, &specs) {
        // Closed (and a journal made for this start removed) before the arbiter reads why.
        journal.close_refused();
        return refused(&why, ExitCode::FAILURE);
    }
    if let Err(code) = prepare_network_demo(&args, network_demo.as_ref(), &mut specs) {
        journal.close_refused();
        return code;
    }
    let setups: Vec<(TableNo, kriegspiel_hall::TableSetup)> = numbers
        .iter()
        .zip(&specs)
        .map(|(no, s)| (*no, s.setup.clone()))
        .collect();
    let numbered = numbers.into_iter().zip(specs.clone()).collect();
    let open = kriegspiel_frontend::headless::open_hall;
    let hall = match open(journal, numbered, TimeMode::Real, network.as_ref(), PROGRAM) {
        Ok(h) => h,
        Err(why) => return refused(&why, ExitCode::from(2)),
    };
    let socket = args
        .player_socket
        .clone()
        .unwrap_or_else(|| default_socket(&path));
    // The same players' channel as `kriegspiel table` and `hall`, open before the hall's
    // first event: a table opened here can be played from players' terminals, and a seat
    // code printed can be used at once.
    let players = Players::serve(&socket, hall.handle(), PROGRAM);
    if let (Some(p), Some(on)) = (&players, &network) {
        p.serve_broker(on, PROGRAM);
    }
    let mut options = window_options(&args, path, network.as_ref(), demo);
    // The window (on the hall's first subscription), the players' channel, the seat notes
    // and each speaking table: each follows the hall from its first event with a queue of
    // its own, so that a slow one lags alone and holds no other back.
    let mut subscribers: Vec<Box<dyn Subscriber>> = speakers
        .into_iter()
        .map(|(table, s)| speaking(table, s, Duration::from_secs(10)))
        .collect();
    subscribers.push(follower("seat notes", note_seats));
    subscribers.extend(players.as_ref().map(Players::subscriber));
    if let Some(on) = &network {
        subscribers.extend(kriegspiel_frontend::round_broker::on_round(
            on,
            setups,
            hall.handle(),
            players.clone(),
            PROGRAM,
        ));
    }
    let mut hall = match hall.start(subscribers) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    // Waited for after the window: the players' terminals are told first.
    let followers = std::mem::take(&mut hall.followers);
    // Ctrl-C or SIGTERM: the hall stops (journaling the time up to the stop), then the
    // players' terminals are told and the socket file removed, and the window ends.
    let window_closed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let on_stop =
        stop_then_tell_players(players.clone(), hall.handle.clone(), window_closed.clone());
    let signalled = stop_on_signals(hall.handle.clone(), PROGRAM, Some(on_stop));
    options.signalled = Some(signalled.clone());
    options.seats = players
        .clone()
        .map(|p| std::sync::Arc::new(SeatsOf(p)) as std::sync::Arc<dyn kriegspiel_window::Seats>);
    let result = kriegspiel_window::run(hall, &specs, options);
    window_closed.store(true, std::sync::atomic::Ordering::Release);
    if let Some(p) = &players {
        p.close_all("the console has stopped", true);
    }
    // The hall has stopped: each speaker says what it still has, then ends.
    for f in followers {
        let _ = f.join();
    }
    match (result, signalled.load(std::sync::atomic::Ordering::Acquire)) {
        (Err(e), _) => {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::FAILURE
        }
        (Ok(()), 0) => ExitCode::SUCCESS,
        (Ok(()), signal) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(1)),
    }
}

/// What is refused before the journal is opened: nothing started, nothing journaled.
fn refused_at_start(
    args: &Args,
    numbers: &[TableNo],
    network: Option<&kriegspiel_frontend::args::OnBroker>,
    specs: &[TableSpec],
) -> Result<(), ExitCode> {
    if let Some(e) = kriegspiel_frontend::args::broker_unusable(network, specs.iter()) {
        eprintln!("{PROGRAM}: {e}");
        return Err(ExitCode::from(2));
    }
    if let Some(n) = args.open.filter(|n| !numbers.contains(n)) {
        eprintln!(
            "{PROGRAM}: --open {n}: this console's tables are 1 to {}",
            numbers.len()
        );
        return Err(ExitCode::from(2));
    }
    if let Some(why) = kriegspiel_window::cannot_open() {
        eprintln!("{PROGRAM}: {why}");
        return Err(ExitCode::FAILURE);
    }
    Ok(())
}

/// Refused on the round's broker, read on the journal before any game is begun in it: a
/// console or table already running, or a game under way that the journal does not hold.
fn elsewhere(
    network: Option<&kriegspiel_frontend::args::OnBroker>,
    journal: &Journal,
    numbers: &[TableNo],
    specs: &[TableSpec],
) -> Result<(), String> {
    let Some(on) = network else {
        return Ok(());
    };
    let numbered: Vec<(TableNo, TableSpec)> =
        numbers.iter().copied().zip(specs.iter().cloned()).collect();
    let beginning = kriegspiel_frontend::elsewhere::beginning(journal, &numbered);
    match kriegspiel_frontend::elsewhere::runs_elsewhere(
        &on.hall.broker,
        &on.hall.console,
        numbers,
        &beginning,
    ) {
        Some(e) => Err(e.to_string()),
        None => Ok(()),
    }
}

/// The demo on networked boards: its boards' scripts written out, then its keypad commands
/// counted from the boards' start.
fn prepare_network_demo(
    args: &Args,
    network_demo: Option<&kriegspiel_games::BuiltGame>,
    specs: &mut [TableSpec],
) -> Result<(), ExitCode> {
    let Some(game) = network_demo else {
        return Ok(());
    };
    if let Some(dir) = &args.write_scripts {
        if let Err(e) = write_scripts(game, dir) {
            eprintln!("{PROGRAM}: {e}");
            return Err(ExitCode::from(2));
        }
    }
    if let (Some(at), Some(spec)) = (args.start_at, specs.first_mut()) {
        count_from(spec, at);
    }
    Ok(())
}

/// What the window is told by the command line (its seats come once the hall runs).
fn window_options(
    args: &Args,
    journal: PathBuf,
    network: Option<&kriegspiel_frontend::args::OnBroker>,
    demo: bool,
) -> WindowOptions {
    let mut options = WindowOptions::new(journal);
    options.sync_alert_after = Duration::from_secs(args.sync_alert);
    options.start_table = args.open;
    options.round = network.and_then(round_feed);
    if demo {
        options.demo_timing = Some(kriegspiel_games::Timing::HUMAN);
    }
    options
}

/// On a round's broker the window shows the round's other consoles' tables too.
fn round_feed(on: &kriegspiel_frontend::args::OnBroker) -> Option<kriegspiel_window::RoundFeed> {
    match kriegspiel_frontend::round_broker::watch_round(&on.hall.broker, &on.hall.console) {
        Ok((actions, news)) => Some(kriegspiel_window::RoundFeed {
            link: std::sync::Arc::new(RoundOf(actions)),
            news: std::sync::Arc::new(std::sync::Mutex::new(Some(news))),
        }),
        Err(e) => {
            eprintln!("{PROGRAM}: warning: {e}; the window shows this console's tables only");
            None
        }
    }
}

/// Ctrl-C or SIGTERM: the hall stops (journaling the time up to the stop), then the
/// players' terminals are told and the socket file removed, and the window closes itself.
/// Only a window that has not ended a while later (its display gone) is cut short: ending
/// the process under a window still drawing can crash it on the way out.
fn stop_then_tell_players(
    players: Option<Players>,
    handle: kriegspiel_hall::HallHandle,
    window_closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Box<dyn FnOnce(i32) + Send> {
    Box::new(move |signal| {
        wait_for_stop(&handle, Duration::from_secs(3));
        if let Some(p) = &players {
            p.close_all("the console has stopped", true);
        }
        std::thread::sleep(WINDOW_GRACE);
        // Closed: the speakers are finishing what they had to say, and main ends after.
        if window_closed.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        eprintln!("{PROGRAM}: the window did not close: stopped at once");
        std::process::exit(128 + signal);
    })
}

/// How long the window has to close by itself after a signal stopped the hall.
const WINDOW_GRACE: Duration = Duration::from_secs(10);

/// Says each table's seat codes and every seat change on standard error too (the window
/// shows them on each table's page), as a subscriber of its own.
fn note_seats(mut events: tokio_broadcast::Receiver<kriegspiel_hall::HallEvent>) {
    use kriegspiel_hall::HallEvent;
    loop {
        match events.blocking_recv() {
            Ok(HallEvent::Opened {
                table, name, seats, ..
            }) => eprintln!(
                "{PROGRAM}: table {table} ('{name}') seat codes: white {}, black {}",
                seats.white, seats.black
            ),
            Ok(HallEvent::Seat(notice)) => eprintln!("{PROGRAM}: {notice}"),
            Ok(HallEvent::Broker(notice)) => eprintln!("{PROGRAM}: {notice}"),
            Ok(_) | Err(tokio_broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio_broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// The players' channel behind the window's seat buttons.
#[derive(Debug)]
struct SeatsOf(Players);

/// The round's broker, as the window sends arbiter actions to other consoles through it.
#[derive(Debug)]
struct RoundOf(kriegspiel_frontend::round_broker::RoundActions);

impl kriegspiel_window::RoundLink for RoundOf {
    fn send(&self, table: TableNo, line: &str) -> bool {
        self.0.send(table, line)
    }
}

impl kriegspiel_window::Seats for SeatsOf {
    fn release(&self, table: TableNo, color: kriegspiel_referee::shakmaty::Color) -> bool {
        self.0.release(table, color)
    }
}

/// The journal the options name, else the club's, or for the demo one of this run's own:
/// a demo neither resumes another run's game nor mixes its games into the club's journal.
fn journal(args: &Args, demo: bool) -> Result<(Journal, PathBuf), ExitCode> {
    let unnamed = if demo {
        Unnamed::ThisRun
    } else {
        Unnamed::Club
    };
    open_journal(PROGRAM, args.journal.clone(), unnamed)
        .map_err(|e| refused(&e.to_string(), ExitCode::FAILURE))
}

/// A start refused once the window may open: said on standard error, and in a window of
/// its own for an arbiter who started the console from his desktop, until he closes it.
fn refused(why: &str, code: ExitCode) -> ExitCode {
    eprintln!("{PROGRAM}: {why}");
    if let Err(e) = kriegspiel_window::show_refusal(why) {
        eprintln!("{PROGRAM}: {e}");
    }
    code
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        <super::Args as clap::CommandFactory>::command().debug_assert();
    }
}
