//! What the JSON-lines front ends of the hall share: the table options of the command line,
//! the journal's default place, keypad and arbiter commands on standard input (bounded,
//! one bad line is one error), the lines printed for hall events, and the speaker fed by
//! its own subscription.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use bounded_lines::{excerpt, LineReader};
use kriegspiel_hall::{HallCommand, HallEvent, HallHandle, TableNo, TableSetup};
use kriegspiel_referee::shakmaty::{Color, Role};
use kriegspiel_referee::{Lang, Question, Wording};
use kriegspiel_table::arbiter_words::parse_action;
use kriegspiel_table::{render, Input};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

use serde::Deserialize;

use crate::speech::{AudioKey, AudioOptions, PublicTo, Speakers};

/// The game options every command that plays takes.
#[derive(Debug, Clone, clap::Args)]
pub struct GameArgs {
    /// Rule set: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian.
    #[arg(long)]
    pub rules: Option<String>,
    /// Language of the announcements: en, fr, ru.
    #[arg(long)]
    pub lang: Option<String>,
    /// A rule-set option as KEY=VALUE (ladder, strict, rand-try-squares, notation); repeatable.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// How long a board must stay still before a try is complete (100 to 1500 ms).
    #[arg(long)]
    pub settle_ms: Option<u32>,
    /// How long a board may stay out of sync before its player is guided (ms).
    #[arg(long)]
    pub guide_ms: Option<u32>,
    /// Touch-move: strict, warn or off.
    #[arg(long)]
    pub touch_move: Option<String>,
    /// Start position (russian: the two set-ups); default the standard one.
    #[arg(long)]
    pub fen: Option<String>,
    /// Time control MINUTES+SECONDS (e.g. 25+10), or none.
    #[arg(long)]
    pub clock: Option<String>,
    /// When the clocks start: arbiter (his `start` command or the window's button; the
    /// default), boards (when both boards are connected and in sync), at-once.
    #[arg(long, value_name = "WHEN")]
    pub clock_start: Option<String>,
}

impl GameArgs {
    /// The set-up with these options laid over `base`.
    pub fn apply(&self, mut setup: TableSetup) -> Result<TableSetup, String> {
        if let Some(r) = &self.rules {
            setup.rules.clone_from(r);
        }
        if let Some(l) = &self.lang {
            setup.lang.clone_from(l);
        }
        for pair in &self.options {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("bad option '{}': expected KEY=VALUE", excerpt(pair)))?;
            setup.options.insert(k.to_owned(), v.to_owned());
        }
        if let Some(ms) = self.settle_ms {
            setup.settle_ms = ms;
        }
        if let Some(ms) = self.guide_ms {
            setup.guide_ms = ms;
        }
        if let Some(t) = &self.touch_move {
            setup.touch_move.clone_from(t);
        }
        if let Some(f) = &self.fen {
            setup.fen = Some(f.clone());
        }
        if let Some(c) = &self.clock {
            setup.time_control.clone_from(c);
        }
        if let Some(c) = &self.clock_start {
            setup.clock_start.clone_from(c);
        }
        // Refuse a bad set-up now, naming the option.
        setup.config().map_err(|e| {
            let option = match e.field {
                "time_control" => "--clock".to_owned(),
                "options" => "--option".to_owned(),
                f => format!("--{}", f.replace('_', "-")),
            };
            format!("{option}: {}", e.message)
        })?;
        Ok(setup)
    }
}

/// The audio options of every command that speaks, and of each `[[table]]` of a round file
/// (the same names, `--white-audio` there is `white_audio` here): one struct read by clap
/// from the command line and by serde from the round file, turned into
/// [`AudioOptions`] by one function and checked by one ([`AudioOptions::check`], then
/// [`kriegspiel_speech::setup::build`] opens each device).
#[derive(Debug, Clone, Default, clap::Args, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpeechArgs {
    /// Do not speak at all.
    #[arg(long)]
    pub no_speech: bool,
    /// Record each public announcement, as spoken, into DIR/0001.wav, DIR/0002.wav, ...
    /// (with DIR/transcript.tsv) instead of playing it. Needs espeak-ng.
    #[arg(long, value_name = "DIR", conflicts_with = "no_speech")]
    pub speech_wav: Option<PathBuf>,
    /// The room speaker's device: an ALSA PCM name, or pulse:SINK (default: speech-dispatcher,
    /// else espeak-ng on the default output).
    #[arg(long, value_name = "DEVICE")]
    pub public_audio: Option<String>,
    /// White's headset (ALSA PCM, or pulse:SINK): his private messages, and public
    /// announcements with --public-to headsets|both.
    #[arg(long, value_name = "DEVICE")]
    pub white_audio: Option<String>,
    /// Black's headset (ALSA PCM, or pulse:SINK).
    #[arg(long, value_name = "DEVICE")]
    pub black_audio: Option<String>,
    /// Where public announcements go: room, headsets or both.
    #[arg(long, value_name = "WHERE", default_value = "room")]
    #[serde(deserialize_with = "public_to")]
    pub public_to: PublicTo,
    /// The voice (a speech-dispatcher voice name, or an espeak-ng voice); default: one of
    /// the table's language.
    #[arg(long)]
    pub voice: Option<String>,
    /// Speech rate in words per minute (80 to 450; normal 175).
    #[arg(long)]
    pub rate: Option<u32>,
    /// Volume in per cent of normal (0 to 200).
    #[arg(long)]
    pub volume: Option<u32>,
    /// Append one line per utterance sent to an output (public, white, black; a tab; the
    /// words) to FILE.
    #[arg(long, value_name = "FILE")]
    pub speech_log: Option<PathBuf>,
    /// Never use speech-dispatcher: the room speaker is the espeak-ng program.
    #[arg(long)]
    pub no_speech_dispatcher: bool,
}

/// `public_to` in a round file: the words of `--public-to`.
fn public_to<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PublicTo, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

impl SpeechArgs {
    /// The audio options these settings ask for (checked by [`AudioOptions::check`]).
    pub fn options(&self) -> AudioOptions {
        AudioOptions {
            off: self.no_speech,
            wav: self.speech_wav.clone(),
            public_device: self.public_audio.clone(),
            white_device: self.white_audio.clone(),
            black_device: self.black_audio.clone(),
            public_to: self.public_to,
            voice: kriegspiel_speech::speaker::VoiceSettings {
                voice: self.voice.clone(),
                rate: self.rate,
                volume: self.volume,
            },
            log: self.speech_log.clone(),
            no_dispatcher: self.no_speech_dispatcher,
        }
    }

    /// Reads the audio keys ([`AudioKey`]) out of one `[[table]]` of a round file, leaving
    /// the others; an error names the key (`white_audio: ...`).
    pub fn from_round_table(table: &mut toml::Table) -> Result<SpeechArgs, String> {
        let mut audio = toml::Table::new();
        for key in AudioKey::ALL {
            if let Some(v) = table.remove(key.key()) {
                // One key at a time, so that a bad value is named by its key.
                let mut one = toml::Table::new();
                one.insert(key.key().to_owned(), v.clone());
                SpeechArgs::deserialize(toml::Value::Table(one))
                    .map_err(|e| format!("{}: {}", key.key(), e.message().replace('\n', " ")))?;
                audio.insert(key.key().to_owned(), v);
            }
        }
        let args = SpeechArgs::deserialize(toml::Value::Table(audio))
            .map_err(|e| e.message().replace('\n', " "))?;
        args.options().check().map_err(|e| e.in_round_file())?;
        Ok(args)
    }
}

/// The journal a command uses: `--journal FILE`, or `journal.sqlite` in the user's data
/// folder (`$XDG_DATA_HOME/kriegspiel`, else `~/.local/share/kriegspiel`).
pub fn journal_path(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .ok_or("no --journal given and neither XDG_DATA_HOME nor HOME is set")?;
    let dir = data.join("kriegspiel");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.join("journal.sqlite"))
}

/// Opens the journal a command uses (see [`journal_path`]) and says on standard error which.
pub fn open_journal(
    program: &str,
    given: Option<PathBuf>,
) -> Result<kriegspiel_hall::Journal, String> {
    let path = journal_path(given)?;
    eprintln!("{program}: journal {}", path.display());
    kriegspiel_hall::Journal::open(&path).map_err(|e| match e {
        kriegspiel_hall::JournalError::NotAJournal { .. } => format!(
            "{e}; `kriegspiel export --journal {}` reads what it can of a damaged journal",
            path.display()
        ),
        e => e.to_string(),
    })
}

/// Reads an object's keys, refusing a key given twice (the last would silently win).
fn object(line: &str) -> Result<Map<String, Value>, String> {
    struct Unique(Map<String, Value>);
    impl<'de> serde::Deserialize<'de> for Unique {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Unique;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut a: A,
                ) -> Result<Unique, A::Error> {
                    let mut map = Map::new();
                    while let Some((k, v)) = a.next_entry::<String, Value>()? {
                        if map.contains_key(&k) {
                            return Err(serde::de::Error::custom(format!(
                                "duplicate key '{}'",
                                excerpt(&k)
                            )));
                        }
                        map.insert(k, v);
                    }
                    Ok(Unique(map))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_str::<Unique>(line)
        .map(|u| u.0)
        .map_err(|e| format!("not a JSON object: {e}"))
}

/// What a command line asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An input for the table (journaled).
    Input(Input),
    /// The arbiter frees a seat of the players' channel (`{"arbiter":"release white"}`).
    Release(Color),
    /// The arbiter starts every table's clocks (`{"arbiter":"start all"}`).
    StartAll,
}

/// One command line from a player's keypad or the arbiter's desk: the table it is for
/// (default 1) and what it asks.
pub fn parse_command(line: &str) -> Result<(TableNo, Command), String> {
    let obj = object(line)?;
    let table = match obj.get("table") {
        None => 1,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                format!(
                    "bad table {}: a table number from 1",
                    excerpt(&v.to_string())
                )
            })?,
    };
    if let Some(action) = obj.get("arbiter") {
        if let Some(k) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "table" | "arbiter"))
        {
            return Err(format!("unknown key '{}' with \"arbiter\"", excerpt(k)));
        }
        let words = action
            .as_str()
            .ok_or("\"arbiter\" takes the action as text, e.g. \"pause\" or \"put e4 Q\"")?;
        let words: Vec<&str> = words.split_whitespace().collect();
        if let ["start", "all"] = words.as_slice() {
            return Ok((table, Command::StartAll));
        }
        if let ["release", color] = words.as_slice() {
            let color = color.parse::<Color>().map_err(|_| {
                format!(
                    "release whom? 'release white' or 'release black' (not '{}')",
                    excerpt(color)
                )
            })?;
            return Ok((table, Command::Release(color)));
        }
        let input = Input::Arbiter(parse_action(&words)?);
        // Refused here, with its reason, rather than by the journal.
        kriegspiel_hall::check_input(&input)?;
        return Ok((table, Command::Input(input)));
    }
    let color = match obj.get("color").and_then(Value::as_str) {
        Some(c) => c
            .parse::<Color>()
            .map_err(|_| format!("unknown color '{}' (white, black)", excerpt(c)))?,
        None => return Err("missing \"color\": \"white\" or \"black\" (or \"arbiter\")".into()),
    };
    const KEYS: &str = "table, color, try, promote, ask, resign, draw, arbiter";
    let mut wanted = obj
        .keys()
        .filter(|k| !matches!(k.as_str(), "table" | "color"));
    let (Some(key), None) = (wanted.next(), wanted.next()) else {
        return Err(format!(
            "one of promote, ask, resign or draw per line (keys: {KEYS})"
        ));
    };
    let value = &obj[key.as_str()];
    let input = match key.as_str() {
        "promote" => {
            let role = match value.as_str() {
                Some("q" | "queen") => Role::Queen,
                Some("r" | "rook") => Role::Rook,
                Some("b" | "bishop") => Role::Bishop,
                Some("n" | "knight") => Role::Knight,
                _ => {
                    return Err(format!(
                        "bad promotion piece {} (q, r, b, n)",
                        excerpt(&value.to_string())
                    ))
                }
            };
            Input::Promote { color, role }
        }
        "ask" => {
            let question = match value.as_str() {
                Some("any") => Question::Any,
                Some("rebuffs") => Question::Rebuffs,
                _ => {
                    return Err(format!(
                        "unknown question {} (any, rebuffs)",
                        excerpt(&value.to_string())
                    ))
                }
            };
            Input::Ask { color, question }
        }
        "try" => {
            let uci = value
                .as_str()
                .ok_or("\"try\" takes the move in UCI, e.g. \"g1f3\"")?;
            let tried = kriegspiel_referee::Try::from_uci(uci)
                .map_err(|e| format!("bad try '{}': {e}", excerpt(uci)))?;
            Input::Play { color, tried }
        }
        "resign" | "draw" if value != &Value::Bool(true) => {
            return Err(format!("\"{key}\" takes true"));
        }
        "resign" => Input::Resign { color },
        "draw" => Input::Draw { color },
        other => return Err(format!("unknown key '{}' ({KEYS})", excerpt(other))),
    };
    Ok((table, Command::Input(input)))
}

/// Reads commands from standard input on a thread of its own and sends them to the hall
/// (a seat release to the players' channel). A bad line is reported and skipped; the end
/// of input ends only the reading.
pub fn spawn_keypad(
    hall: HallHandle,
    program: &'static str,
    tables: usize,
    players: Option<crate::players::Players>,
) {
    std::thread::spawn(move || {
        let mut reader = LineReader::new(std::io::stdin());
        loop {
            let line = match reader.next_line() {
                Ok(Some(Ok(l))) => l.trim().to_owned(),
                Ok(Some(Err(e))) => {
                    eprintln!(
                        "{program}: standard input line {}: {e}; skipped",
                        reader.line_number()
                    );
                    continue;
                }
                Ok(None) => return,
                Err(e) => {
                    eprintln!("{program}: standard input: {e}; commands are no longer read");
                    return;
                }
            };
            if line.is_empty() {
                continue;
            }
            match parse_command(&line) {
                Ok((table, _)) if table > tables => eprintln!(
                    "{program}: standard input line {}: no table {table} (1 to {tables})",
                    reader.line_number()
                ),
                Ok((table, Command::Input(input))) => match hall.input(table, input) {
                    Ok(()) => {}
                    Err(kriegspiel_hall::InputError::Refused(why)) => eprintln!(
                        "{program}: standard input line {}: {why}",
                        reader.line_number()
                    ),
                    Err(kriegspiel_hall::InputError::Gone(_)) => return,
                },
                Ok((_, Command::StartAll)) => {
                    for table in 1..=tables {
                        let start = Input::Arbiter(kriegspiel_table::ArbiterAction::StartAll);
                        if hall.input(table, start).is_err() {
                            return;
                        }
                    }
                }
                Ok((table, Command::Release(color))) => {
                    let released = players.as_ref().is_some_and(|p| p.release(table, color));
                    if !released {
                        eprintln!(
                            "{program}: standard input line {}: no terminal holds table {table} {color}",
                            reader.line_number()
                        );
                    }
                }
                Err(e) => eprintln!(
                    "{program}: bad command on standard input line {}: {e}",
                    reader.line_number()
                ),
            }
        }
    });
}

/// Stops the hall cleanly on SIGINT (Ctrl-C) or SIGTERM: the hall journals the time up to
/// the stop and closes its tables, so the front end removes its players' socket and ends as
/// after the last game; `then`, if given, runs after the stop was asked (a front end whose
/// loop does not end with the hall's: the window). Returns the signal's number once one
/// came (0: none). A second signal while stopping ends the process at once.
pub fn stop_on_signals(
    hall: HallHandle,
    program: &'static str,
    then: Option<Box<dyn FnOnce(i32) + Send>>,
) -> std::sync::Arc<std::sync::atomic::AtomicI32> {
    use std::sync::atomic::{AtomicI32, Ordering};
    let caught = std::sync::Arc::new(AtomicI32::new(0));
    let seen = caught.clone();
    let watch = move || -> std::io::Result<()> {
        use tokio::signal::unix::{signal, SignalKind};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let mut int = signal(SignalKind::interrupt())?;
            let mut term = signal(SignalKind::terminate())?;
            let (number, name) = tokio::select! {
                _ = int.recv() => (2, "SIGINT"),
                _ = term.recv() => (15, "SIGTERM"),
            };
            seen.store(number, Ordering::Release);
            eprintln!(
                "{program}: {name}: stopping; every event is journaled and an unfinished game resumes at the next start"
            );
            let _ = hall.send(HallCommand::Shutdown);
            if let Some(then) = then {
                // Off this thread, so that a second signal is still heard meanwhile.
                std::thread::spawn(move || then(number));
            }
            tokio::select! {
                _ = int.recv() => {},
                _ = term.recv() => {},
            }
            eprintln!("{program}: a second signal: stopped at once");
            std::process::exit(128 + number);
        })
    };
    std::thread::spawn(move || {
        if let Err(e) = watch() {
            eprintln!("{program}: warning: cannot watch for Ctrl-C and SIGTERM: {e}");
        }
    });
    caught
}

/// Waits until the hall has stopped (its events closed), at most `limit`.
pub fn wait_for_stop(hall: &HallHandle, limit: Duration) {
    use tokio::sync::broadcast::error::TryRecvError;
    let mut events = hall.subscribe();
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        match events.try_recv() {
            Err(TryRecvError::Closed) => return,
            Ok(_) | Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Where a board's link stands, for the `link` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkState {
    Never,
    Up,
    Down,
}

/// Turns hall events into JSON lines; tags each with its table when the hall has several.
#[derive(Debug)]
pub struct Lines {
    tag_tables: bool,
    wordings: HashMap<TableNo, (Wording, Lang)>,
    links: HashMap<(TableNo, Color), LinkState>,
    /// Tables resumed whose position is not printed yet (their next view).
    resumed: std::collections::HashSet<TableNo>,
}

impl Lines {
    pub fn new(tag_tables: bool) -> Lines {
        Lines {
            tag_tables,
            wordings: HashMap::new(),
            links: HashMap::new(),
            resumed: std::collections::HashSet::new(),
        }
    }

    /// Whether a resumed table's position is still to be printed.
    pub fn is_resuming(&self, table: TableNo) -> bool {
        self.resumed.contains(&table)
    }

    /// The table's wording, once it has opened.
    pub fn wording(&self, table: TableNo) -> Option<(Wording, Lang)> {
        self.wordings.get(&table).copied()
    }

    /// The line for one event, if it makes one.
    pub fn line(&mut self, e: &HallEvent) -> Option<Value> {
        use kriegspiel_boardlink::LinkEvent;
        let (table, mut v) = match e {
            HallEvent::Opened {
                table,
                name,
                game,
                resumed_events,
                wording,
                lang,
                seats,
                ignored,
                ..
            } => {
                self.wordings.insert(*table, (*wording, *lang));
                let mut v = json!({"opened": name, "game": game,
                    "seats": {"white": seats.white, "black": seats.black}});
                if *resumed_events > 0 {
                    v["resumed_events"] = json!(resumed_events);
                    self.resumed.insert(*table);
                }
                if !ignored.is_empty() {
                    v["ignored"] = json!(ignored);
                }
                (*table, v)
            }
            HallEvent::Output { table, output, .. } => {
                let (w, lang) = self.wording(*table)?;
                (*table, render::json(&w, lang, output))
            }
            HallEvent::Link {
                table,
                color,
                event,
                ..
            } => {
                let state = self
                    .links
                    .entry((*table, *color))
                    .or_insert(LinkState::Never);
                let mut v = json!({"link": color.to_string()});
                match event {
                    LinkEvent::Connected { board_id, .. } => {
                        let name = if *state == LinkState::Down {
                            "reconnected"
                        } else {
                            "connected"
                        };
                        *state = LinkState::Up;
                        v["event"] = json!(name);
                        v["board_id"] = json!(board_id);
                    }
                    LinkEvent::Disconnected { reason } => {
                        *state = LinkState::Down;
                        v["event"] = json!("disconnected");
                        v["reason"] = json!(reason.name());
                    }
                    LinkEvent::OpenFailed { error } => {
                        v["event"] = json!("open_failed");
                        v["error"] = json!(error);
                    }
                    LinkEvent::VersionMismatch { local, remote } => {
                        v["event"] = json!("version_mismatch");
                        v["local"] = json!(local);
                        v["remote"] = json!(remote);
                    }
                    LinkEvent::Fault { code, .. } => {
                        v["event"] = json!("fault");
                        v["code"] = json!(code.name());
                    }
                    LinkEvent::Lift { .. }
                    | LinkEvent::Place { .. }
                    | LinkEvent::Snapshot { .. }
                    | LinkEvent::Resync { .. } => return None,
                }
                (*table, v)
            }
            HallEvent::Ended {
                table,
                result,
                position,
            } => (
                *table,
                json!({"final_fen": kriegspiel_hall::fen(position),
                    "result": result.map_or("*", |r| r.pgn())}),
            ),
            HallEvent::Failed { table, error } => (
                *table,
                json!({"error": {"code": "journal", "message": error}}),
            ),
            HallEvent::OpenFailed { name, error } => {
                return Some(json!({"error": {"code": "open", "table": name, "message": error}}));
            }
            HallEvent::Seat(n) => {
                let mut v = json!({"seat": n.change.id(), "color": n.color.to_string(),
                    "text": n.to_string()});
                match &n.change {
                    kriegspiel_hall::SeatChange::Taken { voice } => v["voice"] = json!(voice),
                    kriegspiel_hall::SeatChange::CutOff { reason }
                    | kriegspiel_hall::SeatChange::Refused { reason } => {
                        v["reason"] = json!(reason);
                    }
                    kriegspiel_hall::SeatChange::Left | kriegspiel_hall::SeatChange::Released => {}
                }
                (n.table, v)
            }
            // A resumed table's position, once: where the game stands.
            HallEvent::View(view) if self.resumed.remove(&view.table) => (
                view.table,
                json!({"resumed": true, "fen": view.fen(), "to_move": view.to_move().to_string(),
                    "clocks_waiting": view.clocks_waiting}),
            ),
            HallEvent::View(_) => return None,
        };
        if self.tag_tables {
            if let Value::Object(map) = &mut v {
                map.insert("table".to_owned(), json!(table));
            }
        }
        Some(v)
    }
}

/// Prints one line and flushes it; false once nobody reads standard output.
pub fn print_line(v: &Value) -> bool {
    print_text(&v.to_string())
}

/// Prints one line to standard output; `false` once nobody reads it (a closed pipe), which
/// ends the program quietly instead of in a panic.
pub fn print_text(line: &str) -> bool {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// Speaks one table from its own subscription (kriegspiel-speech: public words to the
/// room, private words to their player's headset only), so that speech never holds the
/// table back. Returns when the hall stops or the game ends; then waits at most `finish`
/// for the last words.
pub fn spawn_speaker(
    events: broadcast::Receiver<HallEvent>,
    table: TableNo,
    speakers: Speakers,
    finish: Duration,
) -> std::thread::JoinHandle<()> {
    kriegspiel_speech::subscriber::spawn(events, table, speakers, finish)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keypad_and_arbiter_commands() {
        let ok = |l: &str| match parse_command(l).unwrap() {
            (table, Command::Input(i)) => (table, i),
            (_, Command::Release(c)) => panic!("a release of {c}"),
            (_, Command::StartAll) => panic!("a start of every table"),
        };
        assert_eq!(
            ok(r#"{"color":"white","promote":"n"}"#),
            (
                1,
                Input::Promote {
                    color: Color::White,
                    role: Role::Knight
                }
            )
        );
        assert_eq!(
            ok(r#"{"table":2,"color":"black","ask":"rebuffs"}"#),
            (
                2,
                Input::Ask {
                    color: Color::Black,
                    question: Question::Rebuffs
                }
            )
        );
        assert_eq!(
            ok(r#"{"color":"black","resign":true}"#).1,
            Input::Resign {
                color: Color::Black
            }
        );
        assert_eq!(
            ok(r#"{"color":"white","try":"e7e8n"}"#).1,
            Input::Play {
                color: Color::White,
                tried: kriegspiel_referee::Try::from_uci("e7e8n").unwrap()
            }
        );
        assert_eq!(
            ok(r#"{"color":"white","draw":true}"#).1,
            Input::Draw {
                color: Color::White
            }
        );
        assert_eq!(
            ok(r#"{"arbiter":"pause"}"#).1,
            Input::Arbiter(kriegspiel_table::ArbiterAction::Pause)
        );
        assert!(matches!(
            ok(r#"{"table":3,"arbiter":"adjudicate 1-0 White's flag"}"#),
            (
                3,
                Input::Arbiter(kriegspiel_table::ArbiterAction::Adjudicate { .. })
            )
        ));
        for bad in [
            "nonsense",
            "[1]",
            r#"{"promote":"n"}"#,
            r#"{"color":"red","ask":"any"}"#,
            r#"{"color":"white","promote":"k"}"#,
            r#"{"color":"white","ask":"why"}"#,
            r#"{"color":"white"}"#,
            r#"{"color":"white","ask":"any","promote":"q"}"#,
            r#"{"color":"white","ask":"any","x":1}"#,
            r#"{"color":"white","promote":"n","promote":"q"}"#,
            r#"{"color":"white","resign":false}"#,
            r#"{"table":0,"color":"white","resign":true}"#,
            r#"{"arbiter":"dance"}"#,
            r#"{"color":"white","try":"e2-e4"}"#,
            r#"{"color":"white","try":5}"#,
            r#"{"arbiter":"pause","color":"white"}"#,
        ] {
            assert!(parse_command(bad).is_err(), "{bad}");
        }
        let long = format!(r#"{{"color":"{}","ask":"any"}}"#, "x".repeat(10_000));
        assert!(parse_command(&long).unwrap_err().len() < 200);
        assert_eq!(
            parse_command(r#"{"table":2,"arbiter":"release black"}"#).unwrap(),
            (2, Command::Release(Color::Black))
        );
        assert!(parse_command(r#"{"arbiter":"release everyone"}"#).is_err());
        assert_eq!(
            parse_command(r#"{"arbiter":"start all"}"#).unwrap().1,
            Command::StartAll
        );
        assert_eq!(
            ok(r#"{"table":2,"arbiter":"start"}"#),
            (
                2,
                Input::Arbiter(kriegspiel_table::ArbiterAction::StartClocks)
            )
        );
    }

    /// An arbiter's action the journal could not keep is refused with its reason, before
    /// it reaches a table (a 5,000-character FEN once stopped one).
    #[test]
    fn an_action_too_long_to_journal_is_refused_on_reading() {
        let fen = format!("{}/8/8/8/8/8/8/8 w - - 0 1", "8".repeat(5000));
        let line = format!(r#"{{"arbiter":"fen {fen}"}}"#);
        let e = parse_command(&line).unwrap_err();
        assert!(e.contains("at most 4096"), "{e}");
        assert!(e.len() < 200, "{e}");
    }
}
