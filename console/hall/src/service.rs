//! The hall: N tables in one process. Front ends send [`HallCommand`]s from any thread and
//! subscribe to [`HallEvent`]s; every input is written to the journal before the table
//! applies it and before anything it caused is published. A slow subscriber loses events
//! (it is told how many), never holds a table back. Board events are timed by their arrival
//! at the link, so a table that waits on the disk still judges tries by when the men moved.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kriegspiel_boardlink::{BoardLink, BoardLinkHandle, Health, LinkConfig, LinkEvent, Report};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    Bitboard, ByColor, Chess, Color, EnPassantMode, Position, Square,
};
use kriegspiel_referee::{GameResult, Lang, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{ArbiterNote, BoardInput, Event, Input, Millis, Output, Table};
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::clock::TableClock;
use crate::journal::{Beat, EventRow, GameId, Journal, JournalError};
use crate::setup::{SetupError, TableSetup};
use crate::sim::{self, SimScript};
use crate::writer::{Committed, JournalQueue, JournalThread};

/// Where a player's board is.
#[derive(Debug, Clone)]
pub enum BoardSource {
    /// A serial port or pseudo-terminal.
    Serial(PathBuf),
    /// A board simulated in this process, playing a script in table time.
    Simulated {
        script: Arc<SimScript>,
        board_id: u32,
    },
    /// No board (a player on keypad or voice only, or a table being set up).
    Absent,
}

/// One table of the round.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// The table's name: the journal resumes the unfinished game of the same name.
    pub name: String,
    pub setup: TableSetup,
    pub white: BoardSource,
    pub black: BoardSource,
    /// Inputs the table receives at set table times, as a player's keypad would send them
    /// (the demo's promotion choices and questions). Journaled like any input.
    pub scripted: Vec<(Millis, Input)>,
    /// Which game the table plays: its unfinished one from the journal, a new one, or a
    /// game named by its number.
    pub resume: Resume,
}

/// Which game a table opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// A new game, even if the journal holds an unfinished one of this table (`--new-game`).
    New,
    /// The table's last game when it is unfinished (with the settings it was journaled
    /// with), else a new one.
    Last,
    /// This unfinished game of the journal, whatever its table's name and whatever newer
    /// game was started meanwhile (`--resume GAME`).
    Game(GameId),
}

impl Resume {
    /// `Last`, or `New` when a new game is asked for.
    pub fn unless_new(new_game: bool) -> Resume {
        if new_game {
            Resume::New
        } else {
            Resume::Last
        }
    }
}

/// How the hall's time passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeMode {
    Real,
    /// Simulated time: no real waits; only for simulated boards.
    Simulated,
}

/// The hall's table number: 1, 2, … in the order of the round.
pub type TableNo = usize;

/// What a front end asks of the hall.
#[derive(Debug, Clone)]
pub enum HallCommand {
    /// A player's or the arbiter's input for a table.
    Input { table: TableNo, input: Input },
    /// Opens another table (a new game, or the unfinished game of that name resumed); it
    /// gets the next table number, announced by its `Opened` event.
    Open(Box<TableSpec>),
    /// Stops every table (everything already journaled stays).
    Shutdown,
}

/// A table's state as the arbiter sees it: typed, so that no subscriber parses it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableView {
    pub table: TableNo,
    pub at: Millis,
    /// The official position.
    pub position: Chess,
    pub paused: bool,
    pub result: Option<Option<GameResult>>,
    pub clocks: Option<(ByColor<Millis>, Option<Color>)>,
    /// A timed game whose clocks wait to be started (the overview says "waiting to start").
    pub clocks_waiting: bool,
    /// What each player's board shows.
    pub boards: ByColor<BoardSeen>,
    /// The man each player holds touched, if any.
    pub touched: ByColor<Option<Square>>,
}

impl TableView {
    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.position.turn()
    }

    /// The official position in FEN, for lines printed to people and programs.
    pub fn fen(&self) -> String {
        fen(&self.position)
    }
}

/// A position in FEN as the console prints it (an en-passant square only when a capture
/// there is legal).
pub fn fen(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

/// What a player's board shows, and whether it matches the official position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSeen {
    pub occupancy: Bitboard,
    pub in_sync: bool,
}

/// What the hall publishes.
#[derive(Debug, Clone)]
pub enum HallEvent {
    /// A table is running: a new game, or an unfinished one resumed from the journal.
    Opened {
        table: TableNo,
        name: String,
        game: GameId,
        /// Journaled events replayed to resume; 0 for a new game.
        resumed_events: usize,
        wording: Wording,
        lang: Lang,
        /// Each player's seat code, which proves his seat to the players' channel.
        seats: ByColor<String>,
        /// When resumed: the last thing each player was meant to hear before the restart
        /// (what his `repeat` says).
        heard: ByColor<Option<Output>>,
        /// When resumed: settings asked now that differ from the game's, which it keeps.
        ignored: Vec<String>,
    },
    Output {
        table: TableNo,
        at: Millis,
        output: Output,
    },
    Link {
        table: TableNo,
        color: Color,
        event: LinkEvent,
        /// The link's counters right after the event.
        health: Health,
    },
    /// A table that could not be opened at run time (`HallCommand::Open`).
    OpenFailed {
        name: String,
        error: String,
    },
    View(Box<TableView>),
    /// The game is over (result `None`: voided).
    Ended {
        table: TableNo,
        result: Option<GameResult>,
        /// The final position.
        position: Box<Chess>,
    },
    /// The table stopped: its journal could not be written (nothing after this was applied).
    Failed {
        table: TableNo,
        error: String,
    },
    /// A player's seat on the players' channel: taken, left, refused, released.
    Seat(SeatNotice),
}

/// What happened to a seat of the players' channel, for the arbiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatNotice {
    pub table: TableNo,
    pub color: Color,
    pub change: SeatChange,
}

/// A change of a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatChange {
    /// A terminal proved the seat and holds it.
    Taken { voice: bool },
    /// Its terminal hung up; the seat is free.
    Left,
    /// The console closed its terminal (it did not read, or flooded); the seat is free.
    CutOff { reason: String },
    /// The arbiter released the seat; its terminal was closed.
    Released,
    /// A terminal asked for the seat and was refused (a wrong code, the seat taken).
    Refused { reason: String },
}

impl SeatChange {
    /// The change's name in JSON lines.
    pub fn id(&self) -> &'static str {
        match self {
            SeatChange::Taken { .. } => "taken",
            SeatChange::Left => "left",
            SeatChange::CutOff { .. } => "cut_off",
            SeatChange::Released => "released",
            SeatChange::Refused { .. } => "refused",
        }
    }
}

impl std::fmt::Display for SeatNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (t, c) = (self.table, self.color);
        match &self.change {
            SeatChange::Taken { voice: false } => write!(f, "table {t}: {c}'s terminal connected"),
            SeatChange::Taken { voice: true } => {
                write!(f, "table {t}: {c}'s voice terminal connected")
            }
            SeatChange::Left => write!(f, "table {t}: {c}'s terminal disconnected"),
            SeatChange::CutOff { reason } => {
                write!(f, "table {t}: {c}'s terminal was cut off: {reason}")
            }
            SeatChange::Released => write!(f, "table {t}: {c}'s seat released by the arbiter"),
            SeatChange::Refused { reason } => {
                write!(
                    f,
                    "table {t}: a terminal asking for {c}'s seat was refused: {reason}"
                )
            }
        }
    }
}

/// Why the hall could not start.
#[derive(Debug)]
pub enum HallError {
    Journal(JournalError),
    /// A table's set-up is wrong.
    Setup {
        table: String,
        error: SetupError,
    },
    /// A game in the journal cannot be resumed.
    Resume {
        table: String,
        error: String,
    },
    /// `--fast` (simulated time) with a real board.
    SimulatedTimeNeedsSimulatedBoards {
        table: String,
    },
    Runtime(std::io::Error),
    NoTables,
    /// The table's unfinished game was set up as another game (rules, options, position).
    Conflict {
        table: String,
        game: GameId,
        conflicts: Vec<String>,
    },
}

impl std::fmt::Display for HallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HallError::Journal(e) => e.fmt(f),
            HallError::Setup { table, error } => write!(f, "table '{table}': {error}"),
            HallError::Resume { table, error } => {
                write!(f, "table '{table}': cannot resume its game: {error}")
            }
            HallError::SimulatedTimeNeedsSimulatedBoards { table } => write!(
                f,
                "table '{table}': simulated time works with simulated boards only"
            ),
            HallError::Runtime(e) => write!(f, "cannot start the hall's runtime: {e}"),
            HallError::NoTables => f.write_str("a hall needs at least one table"),
            HallError::Conflict {
                table,
                game,
                conflicts,
            } => write!(
                f,
                "table '{table}': the journal holds its unfinished game {game}, set up otherwise ({}); start with the game's own settings to resume it, or with --new-game to start afresh (game {game} stays in the journal: --resume {game} takes it up again)",
                conflicts.join("; ")
            ),
        }
    }
}

impl std::error::Error for HallError {}

impl From<JournalError> for HallError {
    fn from(e: JournalError) -> HallError {
        HallError::Journal(e)
    }
}

/// Sends commands to a running hall; cheap to clone, usable from any thread.
#[derive(Debug, Clone)]
pub struct HallHandle {
    commands: mpsc::UnboundedSender<HallCommand>,
    /// Weak: the hall's own tasks hold the channel open, so that every subscriber sees it
    /// close when the hall stops, whoever still holds a handle.
    events: broadcast::WeakSender<HallEvent>,
}

/// The hall has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HallGone;

impl std::fmt::Display for HallGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the hall has stopped")
    }
}

impl std::error::Error for HallGone {}

/// Why an input was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The journal could not keep it (too long); nothing reached the table.
    Refused(String),
    Gone(HallGone),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Refused(why) => write!(f, "refused: {why}"),
            InputError::Gone(g) => g.fmt(f),
        }
    }
}

impl std::error::Error for InputError {}

/// Refuses an input the journal would not keep, before it reaches a table: no input,
/// however bad, may stop one.
pub fn check_input(input: &Input) -> Result<(), String> {
    EventRow::new(0, 1, &Event::new(0, input.clone()), 0, None, None)
        .map(|_| ())
        .map_err(|e| match e {
            crate::JournalError::BadEvent(what) => format!("the journal cannot keep it ({what})"),
            e => e.to_string(),
        })
}

impl HallHandle {
    /// Sends a command as it is; an input the journal cannot keep is refused by its table
    /// (an arbiter's note), never applied. [`HallHandle::input`] refuses it here already.
    pub fn send(&self, command: HallCommand) -> Result<(), HallGone> {
        self.commands.send(command).map_err(|_| HallGone)
    }

    /// Hands an input to its table, or says why not.
    pub fn input(&self, table: TableNo, input: Input) -> Result<(), InputError> {
        check_input(&input).map_err(InputError::Refused)?;
        self.commands
            .send(HallCommand::Input { table, input })
            .map_err(|_| InputError::Gone(HallGone))
    }

    /// Tells every subscriber what happened to a seat of the players' channel.
    pub fn seat(&self, notice: SeatNotice) {
        // No subscriber is not an error.
        if let Some(events) = self.events.upgrade() {
            let _ = events.send(HallEvent::Seat(notice));
        }
    }

    /// A new subscriber, from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<HallEvent> {
        match self.events.upgrade() {
            Some(events) => events.subscribe(),
            // The hall has stopped: a subscription that is closed already.
            None => broadcast::channel(1).1,
        }
    }
}

/// Events a subscriber may fall behind by before it loses the oldest.
pub const SUBSCRIBER_QUEUE: usize = 8192;

/// A running hall: its handle, a first subscription that saw everything from the start,
/// and the thread that runs it.
#[derive(Debug)]
pub struct RunningHall {
    pub handle: HallHandle,
    pub events: broadcast::Receiver<HallEvent>,
    pub thread: std::thread::JoinHandle<()>,
}

/// A table ready to run: its table (replayed when resumed) and its journal place.
struct Prepared {
    no: TableNo,
    spec: TableSpec,
    game: GameId,
    table: Table,
    started: Vec<Output>,
    seq: i64,
    resumed: usize,
    /// When resumed: the settings asked that differ from the game's and were ignored.
    ignored: Vec<String>,
    seats: ByColor<String>,
    /// When resumed: the outputs of the last input that had any for the players; the
    /// console may have died before they were said, so they are said again, marked.
    unsaid: Vec<Output>,
    /// When resumed: the last output each player was meant to hear.
    heard: ByColor<Option<Output>>,
    /// The table time its clock starts at: the later of its last event and its last
    /// heartbeat.
    resume_at: Millis,
    /// Wall-clock milliseconds the console was down (since the table's last event or
    /// heartbeat), when resumed.
    down_ms: Option<Millis>,
    /// The first scripted input not yet journaled.
    next_scripted: usize,
}

/// How many of `scripted` the journaled events already hold, in order.
fn scripted_done(
    scripted: &[(Millis, Input)],
    journaled: &[crate::journal::JournalEvent],
) -> usize {
    let mut done = 0;
    for e in journaled {
        if scripted.get(done).is_some_and(|(_, i)| *i == e.event.input) {
            done += 1;
        }
    }
    done
}

pub(crate) fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Opens one table: checks its set-up, then resumes its unfinished game from the journal
/// or starts a new one.
fn prepare(
    journal: &mut Journal,
    no: TableNo,
    mut spec: TableSpec,
    mode: TimeMode,
) -> Result<Prepared, HallError> {
    // A player with no board plays by keys or voice: the table keeps his board, so that it
    // follows every correction (else it would wait, out of sync, for a board never coming).
    // (A script that moves his men stands in for a board: tests and demos feed them.)
    let scripted_board = |c: Color| {
        spec.scripted
            .iter()
            .any(|(_, i)| matches!(i, Input::Board { color, .. } if *color == c))
    };
    let boardless = |source: &BoardSource, c: Color| {
        matches!(source, BoardSource::Absent) && !scripted_board(c)
    };
    let (white, black) = (
        boardless(&spec.white, Color::White),
        boardless(&spec.black, Color::Black),
    );
    spec.setup.white_without_board |= white;
    spec.setup.black_without_board |= black;
    if mode == TimeMode::Simulated
        && [&spec.white, &spec.black]
            .iter()
            .any(|s| matches!(s, BoardSource::Serial(_)))
    {
        return Err(HallError::SimulatedTimeNeedsSimulatedBoards { table: spec.name });
    }
    let config = spec.setup.config().map_err(|error| HallError::Setup {
        table: spec.name.clone(),
        error,
    })?;
    let games = journal.games()?;
    // The last game of this table: resumed if it is unfinished, with the settings it was
    // journaled with (what was asked differently now is said, and ignored).
    let last = match spec.resume {
        Resume::New => None,
        Resume::Last => games.iter().rev().find(|g| g.name == spec.name),
        Resume::Game(id) => {
            let g = games.iter().find(|g| g.id == id).ok_or_else(|| {
                let ids: Vec<String> = games.iter().map(|g| g.id.to_string()).collect();
                HallError::Resume {
                    table: spec.name.clone(),
                    error: format!(
                        "the journal has no game {id} (its games: {})",
                        if ids.is_empty() {
                            "none".to_owned()
                        } else {
                            ids.join(", ")
                        }
                    ),
                }
            })?;
            // The game goes on under its own table's name.
            spec.name.clone_from(&g.name);
            Some(g)
        }
    };
    if let Some(g) = last {
        let config = g.setup.config().map_err(|error| HallError::Setup {
            table: spec.name.clone(),
            error,
        })?;
        let read = journal.events(g.id);
        if let Some(damage) = read.damage {
            return Err(HallError::Resume {
                table: spec.name,
                error: format!("{damage} (export what is readable with `kriegspiel export`, or start a new journal)"),
            });
        }
        let (mut table, started) =
            Table::new(config.clone(), 0).map_err(|e| HallError::Resume {
                table: spec.name.clone(),
                error: e.to_string(),
            })?;
        let mut unsaid = Vec::new();
        let mut heard = ByColor::<Option<Output>>::default();
        for e in &read.events {
            let audible: Vec<Output> = table
                .apply(e.event.clone())
                .into_iter()
                .filter(|o| render::hearer(o).is_some())
                .collect();
            if audible.is_empty() {
                continue;
            }
            for o in &audible {
                for c in Color::ALL {
                    let hears = match render::hearer(o) {
                        Some(Hearer::Both) => true,
                        Some(Hearer::Player(p)) => p == c,
                        None => false,
                    };
                    if hears {
                        heard[c] = Some(o.clone());
                    }
                }
            }
            unsaid = audible;
        }
        if journal.said_through(g.id) == i64::try_from(read.events.len()).ok() {
            // Stopped on purpose after all of it was said: nothing to say again.
            unsaid.clear();
        }
        if !table.is_over() {
            let mut differences = spec.setup.differences(&g.setup);
            if let Resume::Game(_) = spec.resume {
                // Named by the arbiter: it goes on as it was, whatever was asked.
                let conflicts = std::mem::take(&mut differences.conflicts);
                differences.ignored.splice(0..0, conflicts);
            }
            if !differences.conflicts.is_empty() {
                return Err(HallError::Conflict {
                    table: spec.name,
                    game: g.id,
                    conflicts: differences.conflicts,
                });
            }
            // Last heard of: its last event (or its start), or a later heartbeat (the thinking
            // time up to it was the console's, and counts on the clock).
            let last_event = read
                .events
                .last()
                .map_or((0, g.started_wall_ms), |e| (e.event.at, e.wall_ms));
            let now = wall_ms();
            let (resume_at, heard_wall) = journal
                .last_beat(g.id)
                .filter(|b| credible(b, last_event, now))
                .map_or(last_event, |b| (b.at, b.wall_ms));
            let down = now.saturating_sub(heard_wall).max(0);
            return Ok(Prepared {
                ignored: differences.ignored,
                seats: journal.seat_codes(g.id)?,
                unsaid,
                heard,
                next_scripted: scripted_done(&spec.scripted, &read.events),
                no,
                game: g.id,
                table,
                started,
                seq: i64::try_from(read.events.len()).unwrap_or(i64::MAX),
                resumed: read.events.len(),
                resume_at,
                down_ms: Some(u64::try_from(down).unwrap_or(0)),
                spec,
            });
        }
        if let Resume::Game(id) = spec.resume {
            return Err(HallError::Resume {
                table: spec.name,
                error: format!("game {id} is over (`kriegspiel export --table {id}` writes it)"),
            });
        }
    }
    let game = journal.new_game(&spec.name, &spec.setup, wall_ms())?;
    let (table, started) = Table::new(config, 0).map_err(|e| HallError::Setup {
        table: spec.name.clone(),
        error: SetupError {
            field: "setup",
            message: e.to_string(),
        },
    })?;
    Ok(Prepared {
        ignored: Vec::new(),
        seats: journal.seat_codes(game)?,
        unsaid: Vec::new(),
        heard: ByColor::default(),
        next_scripted: 0,
        no,
        game,
        table,
        started,
        seq: 0,
        resumed: 0,
        resume_at: 0,
        down_ms: None,
        spec,
    })
}

/// Starts a hall on its own thread.
pub fn start(
    journal: Journal,
    specs: Vec<TableSpec>,
    mode: TimeMode,
) -> Result<RunningHall, HallError> {
    start_subscribed(journal, specs, mode, 0).map(|(hall, _)| hall)
}

/// Starts a hall with `extra` more subscriptions that, like [`RunningHall::events`], see
/// every event from the first: one per subscriber (printer, players' channel, speakers,
/// window), so that each has its own queue and a slow one makes no other wait or lose.
pub fn start_subscribed(
    journal: Journal,
    specs: Vec<TableSpec>,
    mode: TimeMode,
    extra: usize,
) -> Result<(RunningHall, Vec<broadcast::Receiver<HallEvent>>), HallError> {
    if specs.is_empty() {
        return Err(HallError::NoTables);
    }
    let mut journal = journal;
    let mut prepared = Vec::with_capacity(specs.len());
    for (i, spec) in specs.into_iter().enumerate() {
        prepared.push(prepare(&mut journal, i + 1, spec, mode)?);
    }
    let runtime = {
        let mut b = tokio::runtime::Builder::new_current_thread();
        b.enable_all();
        if mode == TimeMode::Simulated {
            b.start_paused(true);
        }
        b.build().map_err(HallError::Runtime)?
    };
    let (commands_tx, commands_rx) = mpsc::unbounded_channel();
    let (events_tx, events_rx) = broadcast::channel(SUBSCRIBER_QUEUE);
    let subscriptions = (0..extra).map(|_| events_tx.subscribe()).collect();
    let handle = HallHandle {
        commands: commands_tx,
        events: events_tx.downgrade(),
    };
    let (writer, journal) = JournalThread::spawn(journal).map_err(HallError::Runtime)?;
    let journal = match mode {
        TimeMode::Simulated => journal.holding_time(),
        TimeMode::Real => journal,
    };
    let thread = std::thread::Builder::new()
        .name("hall".to_owned())
        .spawn(move || {
            runtime.block_on(run(prepared, journal, events_tx, commands_rx, mode));
            // The tables' tasks (and their journal queues) go with the runtime; then the
            // writer finishes what it was handed, so the journal is closed when this ends.
            drop(runtime);
            writer.join();
        })
        .map_err(HallError::Runtime)?;
    Ok((
        RunningHall {
            handle,
            events: events_rx,
            thread,
        },
        subscriptions,
    ))
}

async fn run(
    prepared: Vec<Prepared>,
    journal: JournalQueue,
    events: broadcast::Sender<HallEvent>,
    mut commands: mpsc::UnboundedReceiver<HallCommand>,
    mode: TimeMode,
) {
    let mut inputs = Vec::with_capacity(prepared.len());
    let mut tasks = Vec::with_capacity(prepared.len());
    let beating = Beating::default();
    let said = Said::default();
    // Simulated time has no crash to survive, and a heartbeat would keep its clock running.
    let heartbeat =
        (mode == TimeMode::Real).then(|| tokio::spawn(heartbeat(beating.clone(), journal.clone())));
    let mut spawn = |p: Prepared, inputs: &mut Vec<mpsc::UnboundedSender<(Input, Instant)>>| {
        let (tx, rx) = mpsc::unbounded_channel();
        inputs.push(tx);
        let clock = TableClock::starting_at(p.resume_at);
        let live = beating.add(p.game, clock, p.table.is_over());
        let said_through = said.add(p.game, p.seq);
        tasks.push(tokio::spawn(run_table(
            p,
            clock,
            live,
            said_through,
            journal.clone(),
            events.clone(),
            rx,
        )));
    };
    for p in prepared {
        spawn(p, &mut inputs);
    }
    while let Some(command) = commands.recv().await {
        match command {
            HallCommand::Open(spec) => {
                let name = spec.name.clone();
                let no = inputs.len() + 1;
                let prepared = journal
                    .call(move |j| prepare(j, no, *spec, mode))
                    .await
                    .unwrap_or_else(|e| Err(HallError::Journal(e)));
                match prepared {
                    Ok(p) => spawn(p, &mut inputs),
                    Err(e) => {
                        let _ = events.send(HallEvent::OpenFailed {
                            name,
                            error: e.to_string(),
                        });
                    }
                }
            }
            HallCommand::Input { table, input } => {
                if let Some(tx) = table.checked_sub(1).and_then(|i| inputs.get(i)) {
                    // Stamped now, on the clock the links stamp their reports with, so that
                    // the table takes a command and a board event in the order they came.
                    // A stopped table (journal failure) has said so already.
                    let _ = tx.send((input, Instant::now()));
                }
            }
            HallCommand::Shutdown => break,
        }
    }
    if let Some(h) = heartbeat {
        h.abort();
        // The time up to a deliberate stop counts too.
        beating.beat(&journal);
    }
    // A deliberate stop: what each table has said is recorded, so that its next start says
    // again only what is newer (nothing, unless it crashes after this).
    let rows = said.rows();
    if !rows.is_empty() {
        let _ = journal.call(move |j| j.set_said(&rows)).await;
    }
    for t in tasks {
        t.abort();
    }
}

/// How often each running table's time is journaled: after a crash about this much of a
/// player's thinking time is lost to his clock.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// Whether a heartbeat can be believed after the game's last event (table time, wall time):
/// it came after it, by no more table time than wall time passed (table time only runs
/// while the console does), and not from the future. Any other (a damaged row; a beat
/// left by this program before an older one played on) is ignored, and the table resumes
/// from its last event as it did before heartbeats.
fn credible(beat: &Beat, (last_at, last_wall): (Millis, i64), now_wall: i64) -> bool {
    /// Wall clocks step a little (NTP); a beat and an event written together may cross.
    const SLACK_MS: i64 = 2_000;
    let table_ran = i64::try_from(beat.at.saturating_sub(last_at)).unwrap_or(i64::MAX);
    beat.at >= last_at
        && beat.wall_ms >= last_wall.saturating_sub(SLACK_MS)
        && beat.wall_ms <= now_wall.saturating_add(SLACK_MS)
        && table_ran
            <= beat
                .wall_ms
                .saturating_sub(last_wall)
                .saturating_add(SLACK_MS)
}

/// The tables whose time the heartbeat journals.
#[derive(Clone, Default)]
struct Beating(Arc<Mutex<Vec<(GameId, TableClock, Live)>>>);

/// The last event a table has published all it caused of.
type SaidThrough = Arc<AtomicI64>;

/// The event up to which each table has published what it caused.
#[derive(Clone, Default)]
struct Said(Arc<Mutex<Vec<(GameId, SaidThrough)>>>);

impl Said {
    fn add(&self, game: GameId, seq: i64) -> Arc<AtomicI64> {
        let through = Arc::new(AtomicI64::new(seq));
        if let Ok(mut tables) = self.0.lock() {
            tables.push((game, through.clone()));
        }
        through
    }

    fn rows(&self) -> Vec<(GameId, i64)> {
        self.0.lock().map_or_else(
            |_| Vec::new(),
            |tables| {
                tables
                    .iter()
                    .map(|(g, s)| (*g, s.load(Ordering::Acquire)))
                    .collect()
            },
        )
    }
}

/// Whether a table still plays; cleared when its game ends or its task stops.
#[derive(Clone)]
struct Live(Arc<AtomicBool>);

impl Live {
    fn end(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// Clears [`Live`] when a table's task ends, however it ends (aborted included).
struct EndsLive(Live);

impl Drop for EndsLive {
    fn drop(&mut self) {
        self.0.end();
    }
}

impl Beating {
    fn add(&self, game: GameId, clock: TableClock, over: bool) -> Live {
        let live = Live(Arc::new(AtomicBool::new(!over)));
        if let Ok(mut tables) = self.0.lock() {
            tables.push((game, clock, live.clone()));
        }
        live
    }

    /// Journals every playing table's time now, in one commit.
    fn beat(&self, journal: &JournalQueue) {
        let wall = wall_ms();
        let beats: Vec<Beat> = match self.0.lock() {
            Ok(tables) => tables
                .iter()
                .filter(|(_, _, live)| live.0.load(Ordering::Relaxed))
                .map(|(game, clock, _)| Beat {
                    game: *game,
                    at: clock.now(),
                    wall_ms: wall,
                })
                .collect(),
            Err(_) => return,
        };
        if !beats.is_empty() {
            journal.beat(beats);
        }
    }
}

async fn heartbeat(tables: Beating, journal: JournalQueue) {
    let mut every = tokio::time::interval(HEARTBEAT);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        every.tick().await;
        tables.beat(&journal);
    }
}

/// Where a board event came from: when the link took it in (table time), the board's own
/// clock and frame number.
#[derive(Debug, Clone, Copy, Default)]
struct Stamp {
    arrived: Option<Millis>,
    board_ms: Option<u32>,
    seq: Option<u16>,
}

/// The board input a link event means, with the board's own time, if it means one.
pub fn board_input(event: &LinkEvent) -> Option<(BoardInput, Option<u32>)> {
    let square = |i: u8| (i < 64).then(|| Square::new(u32::from(i)));
    match event {
        LinkEvent::Connected { board_id, .. } => Some((
            BoardInput::Connected {
                board_id: Some(*board_id),
            },
            None,
        )),
        LinkEvent::Lift {
            square: sq,
            board_ms,
        } => square(*sq).map(|s| (BoardInput::Lift(s), Some(*board_ms))),
        LinkEvent::Place {
            square: sq,
            board_ms,
        } => square(*sq).map(|s| (BoardInput::Place(s), Some(*board_ms))),
        LinkEvent::Snapshot {
            occupancy,
            board_ms,
        }
        | LinkEvent::Resync {
            occupancy,
            board_ms,
            ..
        } => Some((BoardInput::Snapshot(Bitboard(*occupancy)), Some(*board_ms))),
        LinkEvent::Disconnected { .. } => Some((BoardInput::Disconnected, None)),
        LinkEvent::OpenFailed { .. }
        | LinkEvent::VersionMismatch { .. }
        | LinkEvent::Fault { .. } => None,
    }
}

/// One player's board as its table reads it.
struct BoardFeed {
    color: Color,
    /// Dropping it stops the link.
    link: BoardLinkHandle,
    reports: mpsc::Receiver<Report>,
    /// A report taken in to compare arrivals, not yet handed to the table.
    held: Option<Report>,
    ended: bool,
}

impl BoardFeed {
    fn new(color: Color, (link, reports): (BoardLinkHandle, mpsc::Receiver<Report>)) -> Self {
        BoardFeed {
            color,
            link,
            reports,
            held: None,
            ended: false,
        }
    }

    /// The arrival of the next report already here, without waiting.
    fn ready(&mut self) -> Option<Instant> {
        if self.held.is_none() && !self.ended {
            match self.reports.try_recv() {
                Ok(r) => self.held = Some(r),
                Err(TryRecvError::Disconnected) => self.ended = true,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.held.as_ref().map(|r| self.link.started() + r.at)
    }

    async fn next(&mut self) -> Option<Report> {
        if let Some(r) = self.held.take() {
            return Some(r);
        }
        if self.ended {
            return std::future::pending().await;
        }
        let r = self.reports.recv().await;
        // The link task ended (never while its handle lives): no more reports.
        self.ended = r.is_none();
        r
    }
}

/// The players' and the arbiter's commands for one table, each with its arrival.
struct Commands {
    rx: mpsc::UnboundedReceiver<(Input, Instant)>,
    /// A command taken in to compare arrivals, not yet handed to the table.
    held: Option<(Input, Instant)>,
}

impl Commands {
    /// The arrival of the next command already here, without waiting.
    fn ready(&mut self) -> Option<Instant> {
        if self.held.is_none() {
            self.held = self.rx.try_recv().ok();
        }
        self.held.as_ref().map(|(_, at)| *at)
    }

    /// The next command; `None` once the hall is gone.
    async fn next(&mut self) -> Option<(Input, Instant)> {
        match self.held.take() {
            Some(c) => Some(c),
            None => self.rx.recv().await,
        }
    }
}

async fn next_report(feed: &mut Option<BoardFeed>) -> Option<Report> {
    match feed {
        Some(f) => f.next().await,
        None => std::future::pending().await,
    }
}

/// Which waiting input a table takes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The report held by this board (0 White, 1 Black).
    Board(usize),
    Command,
}

/// Of the inputs already here (each board's held report and the held command, by arrival),
/// the one that arrived first. On a tie White's board goes before Black's and a report before
/// a command: a command is stamped when the hall routes it, later than the press it answers,
/// while a report carries its arrival at the link.
fn earliest(boards: [Option<Instant>; 2], command: Option<Instant>) -> Option<Next> {
    let board = match boards {
        [Some(w), Some(b)] if b < w => Some((1, b)),
        [Some(w), _] => Some((0, w)),
        [None, Some(b)] => Some((1, b)),
        [None, None] => None,
    };
    match (board, command) {
        (Some((i, b)), Some(c)) if b <= c => Some(Next::Board(i)),
        (Some((i, _)), None) => Some(Next::Board(i)),
        (_, Some(_)) => Some(Next::Command),
        (None, None) => None,
    }
}

fn open_source(
    source: &BoardSource,
    clock: TableClock,
) -> Option<(BoardLinkHandle, mpsc::Receiver<Report>)> {
    match source {
        BoardSource::Serial(path) => Some(BoardLink::spawn(path.clone(), LinkConfig::default())),
        BoardSource::Simulated { script, board_id } => {
            let script = script.clone();
            let board_id = *board_id;
            Some(BoardLink::spawn_with(
                move || Ok(sim::connect(script.clone(), board_id, clock)),
                LinkConfig::default(),
            ))
        }
        BoardSource::Absent => None,
    }
}

/// The arbiter's view of a table now.
pub fn view(no: TableNo, table: &Table) -> TableView {
    TableView {
        table: no,
        at: table.now(),
        position: table.referee().position().clone(),
        paused: table.is_paused(),
        result: table.result(),
        clocks: table.clocks(),
        clocks_waiting: table.clocks_waiting(),
        boards: ByColor::new_with(|c| BoardSeen {
            occupancy: table.occupancy(c),
            in_sync: table.in_sync(c),
        }),
        touched: ByColor::new_with(|c| table.touched(c)),
    }
}

async fn run_table(
    p: Prepared,
    clock: TableClock,
    live: Live,
    said: Arc<AtomicI64>,
    journal: JournalQueue,
    events: broadcast::Sender<HallEvent>,
    inputs: mpsc::UnboundedReceiver<(Input, Instant)>,
) {
    let mut commands = Commands {
        rx: inputs,
        held: None,
    };
    let Prepared {
        no,
        spec,
        game,
        mut table,
        started,
        mut seq,
        resumed,
        ignored,
        seats,
        unsaid,
        heard,
        resume_at: _,
        down_ms,
        mut next_scripted,
    } = p;
    let _ends_live = EndsLive(live.clone());
    let publish = |e: HallEvent| {
        // No subscriber is not an error: the journal has everything.
        let _ = events.send(e);
    };
    publish(HallEvent::Opened {
        table: no,
        name: spec.name.clone(),
        game,
        resumed_events: resumed,
        wording: table.wording(),
        lang: table.config().lang,
        seats,
        heard,
        ignored,
    });
    if resumed == 0 {
        for output in started {
            publish(HallEvent::Output {
                table: no,
                at: 0,
                output,
            });
        }
    }
    let mut pending: Option<(Input, Stamp)> =
        down_ms.map(|down_ms| (Input::Restarted { down_ms }, Stamp::default()));
    publish(HallEvent::View(Box::new(view(no, &table))));
    for output in unsaid {
        publish(HallEvent::Output {
            table: no,
            at: table.now(),
            output: Output::Repeated {
                output: Box::new(output),
            },
        });
    }
    said.store(seq, Ordering::Release);
    if resumed > 0 {
        // Where the clocks stand, as a new game says it at its start.
        if let Some((remaining, running)) = table.clocks() {
            publish(HallEvent::Output {
                table: no,
                at: table.now(),
                output: Output::Clock { remaining, running },
            });
        }
    }
    let mut feeds = [
        open_source(&spec.white, clock).map(|l| BoardFeed::new(Color::White, l)),
        open_source(&spec.black, clock).map(|l| BoardFeed::new(Color::Black, l)),
    ];
    let mut ended = table.is_over();
    let mut behind = VecDeque::new();
    loop {
        // What is already here goes first, the earliest arrival first (a report before a
        // command of the same instant), each timed by its arrival: the table sees the boards'
        // events and the commands in the order they came, and runs any timer that fell due
        // meanwhile before them, however long the journal kept it waiting.
        let boards = feeds
            .each_mut()
            .map(|f| f.as_mut().and_then(BoardFeed::ready));
        let next = earliest(boards, commands.ready());
        let input = match (pending.take(), next) {
            (Some(i), _) => Some(i),
            (None, Some(Next::Board(i))) => match feeds[i].as_mut() {
                Some(feed) => {
                    let report = feed.held.take();
                    link(no, feed, report, clock, &publish)
                }
                None => None,
            },
            (None, Some(Next::Command)) => commands.next().await.map(|c| command_input(c, clock)),
            (None, None) => {
                let scripted_at = spec.scripted.get(next_scripted).map(|(at, _)| *at);
                let deadline = match (table.next_deadline(), scripted_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let deadline = deadline.map(|ms| clock.instant_at(ms));
                let [white, black] = &mut feeds;
                tokio::select! {
                    biased;
                    r = next_report(white) => white.as_ref().and_then(|f| link(no, f, r, clock, &publish)),
                    r = next_report(black) => black.as_ref().and_then(|f| link(no, f, r, clock, &publish)),
                    c = commands.next() => match c {
                        Some(c) => Some(command_input(c, clock)),
                        None => return,
                    },
                    () = sleep_until(deadline) => {
                        match spec.scripted.get(next_scripted).filter(|(at, _)| *at <= clock.now()) {
                            Some((_, input)) => {
                                next_scripted += 1;
                                Some((input.clone(), Stamp::default()))
                            }
                            None => Some((Input::Tick, Stamp::default())),
                        }
                    }
                }
            }
        };
        let Some((input, stamp)) = input else {
            continue;
        };
        let at = stamp.arrived.unwrap_or_else(|| clock.now());
        let event = Event::new(at.max(table.now()), input);
        let row = match EventRow::new(game, seq + 1, &event, wall_ms(), stamp.board_ms, stamp.seq) {
            Ok(row) => row,
            Err(e) => {
                // An input the journal cannot keep is refused, never applied: the table plays on.
                publish(HallEvent::Output {
                    table: no,
                    at: table.now(),
                    output: Output::Note {
                        note: ArbiterNote::Refused {
                            action: "input",
                            reason: e.to_string(),
                        },
                    },
                });
                continue;
            }
        };
        seq += 1;
        // A timer follows from events on disk already: what it causes is published while its
        // row is committed (a crash losing it loses nothing a replay cannot derive). What
        // came from outside is on disk before anything it causes is said.
        let written = if matches!(event.input, Input::Tick) && behind.len() < MAX_BEHIND {
            behind.push_back(journal.write_behind(row));
            Ok(())
        } else {
            journal.write(row).await
        };
        if let Err(e) = written.and_then(|()| confirmed(&mut behind)) {
            publish(HallEvent::Failed {
                table: no,
                error: e.to_string(),
            });
            return;
        }
        let at = event.at;
        for output in table.apply(event) {
            publish(HallEvent::Output {
                table: no,
                at,
                output,
            });
        }
        publish(HallEvent::View(Box::new(view(no, &table))));
        said.store(seq, Ordering::Release);
        if table.is_over() && !ended {
            ended = true;
            live.end();
            publish(HallEvent::Ended {
                table: no,
                result: table.result().flatten(),
                position: Box::new(table.referee().position().clone()),
            });
        }
    }
}

/// Timer rows a table may have on their way to the disk at once; beyond, it waits.
const MAX_BEHIND: usize = 64;

/// The outcomes of the timer rows committed since the last look; the first failure.
fn confirmed(behind: &mut VecDeque<Committed>) -> Result<(), JournalError> {
    while let Some(first) = behind.front_mut() {
        match first.outcome() {
            None => break,
            Some(outcome) => {
                behind.pop_front();
                outcome?;
            }
        }
    }
    Ok(())
}

/// A command as the table takes it, timed by its arrival.
fn command_input((input, at): (Input, Instant), clock: TableClock) -> (Input, Stamp) {
    let stamp = Stamp {
        arrived: Some(clock.millis_at(at)),
        ..Stamp::default()
    };
    (input, stamp)
}

/// Publishes a link report and gives the board input it means, timed by its arrival.
fn link(
    no: TableNo,
    feed: &BoardFeed,
    report: Option<Report>,
    clock: TableClock,
    publish: &impl Fn(HallEvent),
) -> Option<(Input, Stamp)> {
    let report = report?;
    let color = feed.color;
    let input = board_input(&report.event);
    let arrived = clock.millis_at(feed.link.started() + report.at);
    publish(HallEvent::Link {
        table: no,
        color,
        event: report.event,
        health: report.health,
    });
    input.map(|(input, board_ms)| {
        let stamp = Stamp {
            arrived: Some(arrived),
            board_ms,
            seq: report.seq,
        };
        (Input::Board { color, input }, stamp)
    })
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(ms: u64) -> Option<Instant> {
        static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        Some(*BASE.get_or_init(Instant::now) + Duration::from_millis(ms))
    }

    #[test]
    fn a_heartbeat_is_believed_only_after_the_last_event_and_within_the_wall_time() {
        let beat = |at, wall_ms| Beat {
            game: 1,
            at,
            wall_ms,
        };
        let last = (10_000, 1_000_000);
        let now = 1_060_000;
        // Written 5 s after the last event, 5 s of table time on.
        assert!(credible(&beat(15_000, 1_005_000), last, now));
        // Before the last event in table time.
        assert!(!credible(&beat(9_000, 999_000), last, now));
        // More table time than wall time passed (a damaged row).
        assert!(!credible(&beat(900_000, 1_005_000), last, now));
        // Written long before the last event (left before an older program played on).
        assert!(!credible(&beat(12_000, 900_000), last, now));
        // From the future.
        assert!(!credible(&beat(15_000, 2_000_000), last, now));
        // A beat and an event written together may cross by a little.
        assert!(credible(&beat(10_000, 999_500), last, now));
    }

    #[test]
    fn the_earliest_arrival_goes_first_whatever_its_source() {
        assert_eq!(earliest([at(5), at(3)], at(9)), Some(Next::Board(1)));
        assert_eq!(earliest([at(3), at(5)], at(9)), Some(Next::Board(0)));
        assert_eq!(earliest([at(5), at(7)], at(4)), Some(Next::Command));
        assert_eq!(earliest([None, at(7)], at(8)), Some(Next::Board(1)));
        assert_eq!(earliest([at(7), None], at(6)), Some(Next::Command));
        assert_eq!(earliest([None, None], at(6)), Some(Next::Command));
        assert_eq!(earliest([None, at(2)], None), Some(Next::Board(1)));
        assert_eq!(earliest([None, None], None), None);
    }

    #[test]
    fn on_a_tie_white_goes_before_black_and_a_report_before_a_command() {
        assert_eq!(earliest([at(4), at(4)], at(4)), Some(Next::Board(0)));
        assert_eq!(earliest([None, at(4)], at(4)), Some(Next::Board(1)));
    }

    /// A held command stays held until it is taken, and later ones wait behind it.
    #[tokio::test]
    async fn a_command_taken_in_to_compare_is_not_lost() {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut commands = Commands { rx, held: None };
        assert_eq!(commands.ready(), None);
        let first = at(1).map(|t| (Input::Tick, t));
        let second = at(2).map(|t| {
            (
                Input::Resign {
                    color: Color::Black,
                },
                t,
            )
        });
        for c in [first.clone(), second.clone()].into_iter().flatten() {
            tx.send(c).map_err(|_| "closed").unwrap();
        }
        assert_eq!(commands.ready(), at(1));
        assert_eq!(commands.ready(), at(1));
        assert_eq!(commands.next().await, first);
        assert_eq!(commands.ready(), at(2));
        assert_eq!(commands.next().await, second);
        drop(tx);
        assert_eq!(commands.next().await, None);
    }
}
