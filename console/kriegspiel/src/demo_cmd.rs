//! `kriegspiel demo`: a whole scripted game on two simulated boards, through the whole
//! chain (board logic, link, table, journal), printed as a spectator reads it and spoken.
//! `--fast` plays the same events on simulated time. Each run has a journal of its own unless
//! `--journal` names one; a journal that holds the demo's unfinished game resumes it. With
//! `--broker` the boards are on the network instead: `kriegspiel-board simulate --broker`
//! programs playing the scripts `--write-scripts` writes (`console/run.sh --network` starts
//! them, with a private broker), in real time (`--fast`: at the tests' quick pace).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use kriegspiel_frontend::demo::{
    count_from, on_network, parse_unix_ms, quick_timing, write_scripts,
};
use kriegspiel_frontend::{
    demo_timing, open_journal, print_text, speaker, speaking, BrokerArgs, GameArgs, Lines,
    Readable, SpeechArgs, Unnamed,
};
use kriegspiel_hall::{Hall, HallCommand, HallEvent, TimeMode};
use kriegspiel_speech::Speakers;
use tokio::sync::broadcast::error::RecvError;

const PROGRAM: &str = "kriegspiel demo";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule set whose game is played (as --rules).
    #[arg(value_name = "RULES")]
    rule_set: Option<String>,
    #[command(flatten)]
    game: GameArgs,
    /// Simulated time: the same game with no real waits (speech only with --speech-wav or
    /// audio devices). With --broker, whose boards play in real time: the quick pace of the
    /// end-to-end tests instead (a whole game in about half a minute).
    #[arg(long)]
    fast: bool,
    /// The journal (resumed if it holds the demo's unfinished game); default: a new one of
    /// this run's own, in a kriegspiel-demo-PID folder of the temporary folder.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Start the demo game afresh even if the journal holds it unfinished.
    #[arg(long)]
    new_game: bool,
    #[command(flatten)]
    audio: SpeechArgs,
    /// Print JSON lines (as `kriegspiel table` does) instead of readable text.
    #[arg(long)]
    json: bool,
    /// With --broker the boards are on the network: networked boards 1 (White) and 2
    /// (Black), each a `kriegspiel-board simulate --script DIR/COLOR.script --broker URL
    /// --board-id N --start-at UNIX_MS` program (see --write-scripts), in real time.
    #[command(flatten)]
    broker: BrokerArgs,
    /// With --broker: the boards' --start-at (Unix milliseconds, `date +%s%3N`); the
    /// demo's keypad commands count from that moment too (default: the table's start).
    #[arg(long, value_name = "UNIX_MS", value_parser = parse_unix_ms, requires = "broker")]
    start_at: Option<SystemTime>,
    /// With --broker: writes the boards' scripts into DIR (white.script, black.script), at
    /// the demo's pace and --settle-ms, just before the game starts; start the two board
    /// programs once they are there, and stop them when done: each stays on after the game,
    /// as a real board does (console/run.sh --network does all of it).
    #[arg(long, value_name = "DIR", requires = "broker")]
    write_scripts: Option<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    match prepare(&args) {
        Ok((spec, lang, name, game)) => {
            let devices = args.audio.public_audio.is_some()
                || args.audio.white_audio.is_some()
                || args.audio.black_audio.is_some();
            let speaker = if args.fast && args.audio.speech_wav.is_none() && !devices {
                Ok(None)
            } else {
                speaker(PROGRAM, lang, &args.audio.options())
            };
            let speaker = match speaker {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{PROGRAM}: {e}");
                    return ExitCode::from(2);
                }
            };
            // Opened once the speech is ready: a run refused for its speech options makes
            // no journal folder of its own to leave behind.
            let journal = match open_journal(PROGRAM, args.journal.clone(), Unnamed::ThisRun) {
                Ok((journal, _)) => journal,
                Err(e) => {
                    // As the table and the hall: a journal refused is no mistyped option.
                    eprintln!("{PROGRAM}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let network = args.broker.network(None, None);
            let boards = match &network {
                Some(n) => format!(
                    "two simulated boards on the network (board:1 and board:2, through {})",
                    n.hall.broker.url
                ),
                None => "two simulated boards".to_owned(),
            };
            let header = format!(
                "Demo: {name} on {boards}{}.\nHouse rules: only your own men carry magnets; guess men of the other colour are unmagnetised.\n",
                match (args.fast, &network) {
                    (false, _) => "",
                    (true, None) => " (simulated time)",
                    (true, Some(_)) => " (at the tests' quick pace)",
                }
            );
            // With --json standard output carries JSON lines only (jq reads it whole).
            if args.json {
                eprint!("{header}");
            } else if !print_text(&header) {
                return ExitCode::SUCCESS;
            }
            let mode = if args.fast && network.is_none() {
                TimeMode::Simulated
            } else {
                TimeMode::Real
            };
            let mut spec = spec;
            if let Some(network) = &network {
                on_network(&mut spec);
                if let Some(dir) = &args.write_scripts {
                    if let Err(e) = write_scripts(&game, dir) {
                        eprintln!("{PROGRAM}: {e}");
                        return ExitCode::from(2);
                    }
                }
                if let Some(at) = args.start_at {
                    count_from(&mut spec, at);
                }
                let hall = Hall::open(journal, vec![spec], mode).map(|mut h| {
                    h.use_broker(network.hall.clone());
                    h
                });
                return watch(hall, speaker, args.json);
            }
            watch(Hall::open(journal, vec![spec], mode), speaker, args.json)
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::from(2)
        }
    }
}

type Prepared = (
    kriegspiel_hall::TableSpec,
    kriegspiel_referee::Lang,
    String,
    kriegspiel_games::BuiltGame,
);

fn prepare(args: &Args) -> Result<Prepared, String> {
    if args.game.fen.is_some() || !args.game.options.is_empty() {
        return Err("the demo plays its own scripted game: --fen and --option do not apply".into());
    }
    let rules = match (&args.rule_set, &args.game.rules) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!("two rule sets given: '{a}' and '{b}'"));
        }
        (Some(r), _) | (None, Some(r)) => r.clone(),
        (None, None) => "cincinnati".to_owned(),
    };
    let rule_set: kriegspiel_referee::RuleSet = rules.parse().map_err(|e| format!("{e}"))?;
    // Boards on the network play in real time: --fast is their quickest pace.
    let timing = if args.fast && args.broker.broker.is_some() {
        quick_timing(args.game.settle_ms)
    } else {
        demo_timing(args.game.settle_ms)
    };
    let game = kriegspiel_games::builtin(rule_set.id(), timing).map_err(|e| e.to_string())?;
    let mut spec = game.table_spec(&format!("demo-{}", rule_set.id()), &timing);
    spec.setup = args.game.apply(spec.setup)?;
    spec.resume = kriegspiel_hall::Resume::unless_new(args.new_game);
    let lang = spec.setup.config().map_err(|e| e.to_string())?.lang;
    let name = format!("{} ({} plies)", game.def.name, game.def.plies.len());
    Ok((spec, lang, name, game))
}

fn watch(
    hall: Result<Hall, kriegspiel_hall::HallError>,
    speaker: Option<Speakers>,
    json: bool,
) -> ExitCode {
    // The speaker follows the hall from its first event with a queue of its own: it lags
    // alone.
    let speaking = speaker
        .map(|s| speaking(1, s, Duration::from_secs(15)))
        .into_iter()
        .collect();
    let mut hall = match hall.and_then(|h| h.start(speaking)) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut lines = Lines::new(false);
    let mut readable = Readable::new();
    let events = &mut hall.events;
    let mut code = ExitCode::SUCCESS;
    loop {
        let e = match events.blocking_recv() {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                eprintln!("{PROGRAM}: {n} events were not printed");
                continue;
            }
            Err(RecvError::Closed) => break,
        };
        let last = matches!(e, HallEvent::Ended { .. } | HallEvent::Failed { .. });
        if matches!(e, HallEvent::Failed { .. }) {
            code = ExitCode::FAILURE;
        }
        let shown = if json {
            lines.line(&e).map(|v| v.to_string())
        } else {
            readable.line(&e)
        };
        if shown.is_some_and(|s| !print_text(&s)) {
            break; // nobody reads the game any more
        }
        if last {
            break;
        }
    }
    let _ = hall.handle.send(HallCommand::Shutdown);
    hall.join();
    code
}
