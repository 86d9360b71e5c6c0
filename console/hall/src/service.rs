//! The hall: N tables in one process. Front ends send [`HallCommand`]s from any thread and
//! subscribe to [`HallEvent`]s; every input is written to the journal before the table
//! applies it and before anything it caused is published. A slow subscriber loses events
//! (it is told how many), never holds a table back. Board events are timed by their arrival
//! at the link, so a table that waits on the disk still judges tries by when the men moved.

use std::collections::BTreeMap;

use kriegspiel_table::Input;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::clock::TableClock;
use crate::error::HallError;
use crate::event::{BrokerNotice, HallCommand, HallEvent};
use crate::handle::{HallHandle, RunningHall, SUBSCRIBER_QUEUE};
use crate::heartbeat::{heartbeat, Beating, Said};
use crate::journal::{GameId, Inbox, Journal};
use crate::network::{Network, NetworkSpec};
use crate::resume::{prepare, prepare_among, Known, Prepared};
use crate::spec::{TableNo, TableSpec, TimeMode};
use crate::table_task::{run_table, TableIo};
use crate::writer::{JournalQueue, JournalThread};

/// Where a running table takes its commands, each stamped with when it came.
type TableInput = mpsc::UnboundedSender<(Input, Instant)>;

/// Starts a hall on its own thread, with the subscribers it serves from its first event.
pub fn start(
    journal: Journal,
    specs: Vec<TableSpec>,
    mode: TimeMode,
    subscribers: Vec<Box<dyn Subscriber>>,
) -> Result<RunningHall, HallError> {
    Hall::open(journal, specs, mode)?.start(subscribers)
}

/// Follows a hall's events from the first, on a thread of its own with a queue of its
/// own ([`SUBSCRIBER_QUEUE`] events): one that falls behind loses the oldest (and is told
/// how many), never holds a table or another subscriber back.
pub trait Subscriber: Send + 'static {
    /// The thread's name.
    fn name(&self) -> String;
    /// Follows the events until the hall stops (the channel closes) or it is done.
    fn follow(self: Box<Self>, events: broadcast::Receiver<HallEvent>);
}

/// A [`Subscriber`] made of a name and a function.
pub fn follower<F>(name: impl Into<String>, follow: F) -> Box<dyn Subscriber>
where
    F: FnOnce(broadcast::Receiver<HallEvent>) + Send + 'static,
{
    struct Follower<F>(String, F);
    impl<F: FnOnce(broadcast::Receiver<HallEvent>) + Send + 'static> Subscriber for Follower<F> {
        fn name(&self) -> String {
            self.0.clone()
        }
        fn follow(self: Box<Self>, events: broadcast::Receiver<HallEvent>) {
            (self.1)(events);
        }
    }
    Box::new(Follower(name.into(), follow))
}

/// An unfinished game of a table the hall does not open: its number and table's name.
pub type LeftGame = (GameId, String);

/// A hall whose tables are checked and replayed, not yet running: its handle can be given
/// to what must send it commands (the players' channel) before the first event.
pub struct Hall {
    prepared: Vec<Prepared>,
    journal: Journal,
    mode: TimeMode,
    handle: HallHandle,
    commands: mpsc::UnboundedReceiver<HallCommand>,
    events: broadcast::Sender<HallEvent>,
    network: Option<NetworkSpec>,
    /// Unfinished games of tables this hall does not open (a table dropped from the round
    /// file): they stay in the journal, and the arbiter is told.
    left: Vec<LeftGame>,
}

impl std::fmt::Debug for Hall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hall")
            .field("tables", &self.prepared.len())
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Hall {
    /// Checks every table's set-up and resumes or begins its game in the journal.
    pub fn open(
        journal: Journal,
        specs: Vec<TableSpec>,
        mode: TimeMode,
    ) -> Result<Hall, HallError> {
        let numbered = specs.into_iter().enumerate().map(|(i, s)| (i + 1, s));
        Hall::open_numbered(journal, numbered.collect(), mode)
    }

    /// As [`Hall::open`], each table with its number in the round: a console that runs part
    /// of a round (`--console east`) keeps the numbers its tables have on the broker's
    /// topics, in the seat files and in every other console. Numbers are distinct.
    /// A refused hall closes the journal with [`Journal::close_refused`]: a journal made for
    /// this start, and still without a game, is not left behind.
    pub fn open_numbered(
        journal: Journal,
        specs: Vec<(TableNo, TableSpec)>,
        mode: TimeMode,
    ) -> Result<Hall, HallError> {
        let mut journal = journal;
        let (prepared, left) = match Hall::prepare_all(&mut journal, specs, mode) {
            Ok(p) => p,
            Err(e) => {
                journal.close_refused();
                return Err(e);
            }
        };
        let (commands_tx, commands) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(SUBSCRIBER_QUEUE);
        let handle = HallHandle {
            commands: commands_tx,
            events: events.downgrade(),
        };
        Ok(Hall {
            prepared,
            journal,
            mode,
            handle,
            commands,
            events,
            network: None,
            left,
        })
    }

    /// The unfinished games of tables this hall does not open, latest of each name: a table
    /// dropped from the round file left its game without a word.
    pub fn left_unfinished(&self) -> &[LeftGame] {
        &self.left
    }

    /// Every table of a hall, checked and prepared on its journal (resumed or begun).
    fn prepare_all(
        journal: &mut Journal,
        specs: Vec<(TableNo, TableSpec)>,
        mode: TimeMode,
    ) -> Result<(Vec<Prepared>, Vec<LeftGame>), HallError> {
        if specs.is_empty() {
            return Err(HallError::NoTables);
        }
        // Checked before any table is opened: a refused hall leaves no new game behind.
        for (i, (no, _)) in specs.iter().enumerate() {
            if specs[..i].iter().any(|(n, _)| n == no) {
                return Err(HallError::SameNumber { table: *no });
            }
        }
        let mut known = Known::read(journal, &specs)?;
        let names: Vec<String> = specs.iter().map(|(_, s)| known.name_of(s)).collect();
        for (i, name) in names.iter().enumerate() {
            if named_among(&names[..i], name) {
                return Err(HallError::SameName {
                    name: name.trim().to_owned(),
                });
            }
        }
        let mut prepared = Vec::with_capacity(specs.len());
        for (no, spec) in specs {
            prepared.push(prepare_among(journal, &mut known, no, spec, mode)?);
        }
        let left = known.left_unfinished(journal, &names);
        Ok((prepared, left))
    }

    /// Takes networked boards (`board:N`) through this broker.
    pub fn use_broker(&mut self, network: NetworkSpec) {
        self.network = Some(network);
    }

    /// Where commands go; they wait until the hall runs.
    pub fn handle(&self) -> HallHandle {
        self.handle.clone()
    }

    /// A subscription that sees every event from the first, for a follower on a thread
    /// the caller owns (the window, the printed lines).
    pub fn subscribe(&self) -> broadcast::Receiver<HallEvent> {
        self.events.subscribe()
    }

    /// Runs the hall on its own thread and each subscriber on one of its own.
    pub fn start(self, subscribers: Vec<Box<dyn Subscriber>>) -> Result<RunningHall, HallError> {
        let Hall {
            prepared,
            journal,
            mode,
            handle,
            commands,
            events,
            network,
            left: _,
        } = self;
        if network.is_none() {
            if let Some(p) = prepared.iter().find(|p| p.spec.has_networked_board()) {
                return Err(HallError::NoBroker {
                    table: p.spec.name.clone(),
                });
            }
        }
        let inbox = match &network {
            Some(_) => Some(journal.inbox().map_err(HallError::Journal)?),
            None => None,
        };
        let first = events.subscribe();
        let mut followers = Vec::with_capacity(subscribers.len());
        for s in subscribers {
            let rx = events.subscribe();
            let follower = std::thread::Builder::new()
                .name(s.name())
                .spawn(move || s.follow(rx))
                .map_err(HallError::Runtime)?;
            followers.push(follower);
        }
        let runtime = {
            let mut b = tokio::runtime::Builder::new_current_thread();
            b.enable_all();
            if mode == TimeMode::Simulated {
                b.start_paused(true);
            }
            b.build().map_err(HallError::Runtime)?
        };
        let (writer, journal) = JournalThread::spawn(journal).map_err(HallError::Runtime)?;
        let journal = match mode {
            TimeMode::Simulated => journal.holding_time(),
            TimeMode::Real => journal,
        };
        let thread = std::thread::Builder::new()
            .name("hall".to_owned())
            .spawn(move || {
                let network = Networking {
                    spec: network,
                    inbox,
                };
                runtime.block_on(run(prepared, journal, events, commands, mode, network));
                // The tables' tasks (and their journal queues) go with the runtime; then the
                // writer finishes what it was handed, so the journal is closed when this ends.
                drop(runtime);
                writer.join();
            })
            .map_err(HallError::Runtime)?;
        Ok(RunningHall {
            handle,
            events: first,
            thread,
            followers,
        })
    }
}

async fn run(
    prepared: Vec<Prepared>,
    journal: JournalQueue,
    events: broadcast::Sender<HallEvent>,
    mut commands: mpsc::UnboundedReceiver<HallCommand>,
    mode: TimeMode,
    networking: Networking,
) {
    let network = networking.start(&events);
    let mut inputs = BTreeMap::new();
    let mut tasks = Vec::with_capacity(prepared.len());
    let beating = Beating::default();
    let said = Said::default();
    // Simulated time has no crash to survive, and a heartbeat would keep its clock running.
    let heartbeat =
        (mode == TimeMode::Real).then(|| tokio::spawn(heartbeat(beating.clone(), journal.clone())));
    let mut spawn = |p: Prepared, inputs: &mut BTreeMap<TableNo, TableInput>| {
        let (tx, rx) = mpsc::unbounded_channel();
        inputs.insert(p.no, tx);
        // A networked table's boards kept what happened while the console was down: that
        // time is the game's (within a minute; a longer outage starts the clock afresh).
        let clock = match p.down_ms {
            Some(down) if p.downtime_counts() => {
                TableClock::resumed(p.resume_at, std::time::Duration::from_millis(down))
            }
            _ => TableClock::starting_at(p.resume_at),
        };
        let live = beating.add(p.game, clock, p.table.is_over());
        let said_through = said.add(p.game, p.seq);
        tasks.push(tokio::spawn(run_table(
            p,
            clock,
            live,
            said_through,
            TableIo {
                journal: journal.clone(),
                events: events.clone(),
                inputs: rx,
                network: network.clone(),
            },
        )));
    };
    // A name is the key to its game: a second table of one name would run that game twice.
    let mut names: Vec<String> = prepared.iter().map(|p| p.spec.name.clone()).collect();
    for p in prepared {
        spawn(p, &mut inputs);
    }
    while let Some(command) = commands.recv().await {
        match command {
            HallCommand::Open(spec) if named_among(&names, &spec.name) => {
                let _ = events.send(HallEvent::OpenFailed {
                    name: spec.name.clone(),
                    error: HallError::SameName { name: spec.name }.to_string(),
                });
            }
            HallCommand::Open(spec) => {
                let name = spec.name.clone();
                let no = inputs.keys().next_back().map_or(1, |last| last + 1);
                let prepared = journal
                    .call(move |j| prepare(j, no, *spec, mode))
                    .await
                    .unwrap_or_else(|e| Err(HallError::Journal(e)));
                match prepared {
                    Ok(p) if network.is_none() && p.spec.has_networked_board() => {
                        let _ = events.send(HallEvent::OpenFailed {
                            name,
                            error: HallError::NoBroker { table: p.spec.name }.to_string(),
                        });
                    }
                    // A game named by its number goes by its own table's name.
                    Ok(p) if named_among(&names, &p.spec.name) => {
                        let _ = events.send(HallEvent::OpenFailed {
                            name,
                            error: HallError::SameName { name: p.spec.name }.to_string(),
                        });
                    }
                    Ok(p) => {
                        names.push(p.spec.name.clone());
                        spawn(p, &mut inputs);
                    }
                    Err(e) => {
                        let _ = events.send(HallEvent::OpenFailed {
                            name,
                            error: e.to_string(),
                        });
                    }
                }
            }
            HallCommand::Input { table, input } => {
                if let Some(tx) = inputs.get(&table) {
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

/// The broker to start on the hall's runtime, if the round has one.
struct Networking {
    spec: Option<NetworkSpec>,
    inbox: Option<Inbox>,
}

impl Networking {
    /// A broker whose client cannot even be made (a bad CA file) is said once; the tables
    /// run with their networked boards down.
    fn start(self, events: &broadcast::Sender<HallEvent>) -> Option<Network> {
        let (spec, inbox) = (self.spec?, self.inbox?);
        match Network::start(&spec, inbox, events.clone()) {
            Ok(n) => Some(n),
            Err(e) => {
                let _ = events.send(HallEvent::Broker(BrokerNotice::Refused {
                    url: spec.broker.url.to_string(),
                    why: e.to_string(),
                }));
                None
            }
        }
    }
}

/// Whether a table of `name` is among `names`: "A" and "A " print alike on every screen
/// and in every announcement, so they are one name.
fn named_among(names: &[String], name: &str) -> bool {
    names.iter().any(|n| n.trim() == name.trim())
}
