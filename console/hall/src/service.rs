//! The hall: N tables in one process. Front ends send [`HallCommand`]s from any thread and
//! subscribe to [`HallEvent`]s; every input is written to the journal before the table
//! applies it and before anything it caused is published. A slow subscriber loses events
//! (it is told how many), never holds a table back. Board events are timed by their arrival
//! at the link, so a table that waits on the disk still judges tries by when the men moved.

use kriegspiel_table::Input;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::clock::TableClock;
use crate::error::HallError;
use crate::event::{HallCommand, HallEvent};
use crate::handle::{HallHandle, RunningHall, SUBSCRIBER_QUEUE};
use crate::heartbeat::{heartbeat, Beating, Said};
use crate::journal::Journal;
use crate::resume::{prepare, Prepared};
use crate::spec::{TableSpec, TimeMode};
use crate::table_task::run_table;
use crate::writer::{JournalQueue, JournalThread};

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
