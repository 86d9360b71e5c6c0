//! The thread that reads hall events into the [`Store`] and wakes the window, and the lock
//! the window and that thread share.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use kriegspiel_hall::{HallEvent, Journal};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::store::Store;

/// The store shared with the thread that reads hall events.
pub type SharedStore = Arc<Mutex<Store>>;

/// Locks the store; a reader thread that panicked leaves the data readable.
pub fn lock(store: &SharedStore) -> MutexGuard<'_, Store> {
    store
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads the set-ups of the tables the window does not know (opened by someone else, or
/// resumed under an expectation that disagreed with the hall) from the journal, read-only:
/// the hall writes a game's set-up before it announces the table.
fn look_up_setups(store: &SharedStore, journal: Option<&Path>) {
    let todo = lock(store).setups_to_look_up();
    if todo.is_empty() {
        return;
    }
    let games = journal
        .and_then(|j| Journal::open_read_only(j).ok())
        .and_then(|j| j.games().ok())
        .unwrap_or_default();
    let mut s = lock(store);
    for (table, game) in todo {
        let setup = games.iter().find(|g| g.id == game).map(|g| g.setup.clone());
        s.looked_up(table, setup);
    }
}

/// Reads hall events into the store on its own thread (its own subscription: it lags
/// alone) and wakes the window through `wake` (the window passes `ctx.request_repaint`)
/// when they changed something it shows: at most once per [`crate::wake::WAKE_INTERVAL`],
/// the last change always drawn. Events that change nothing shown (a board's snapshot that
/// confirms its men, a view equal to the last but for its time) wake nothing. The set-ups
/// of tables the window did not open are read from `journal` (none: they stay unknown).
/// Ends when the hall stops.
pub fn spawn_reader(
    mut events: broadcast::Receiver<HallEvent>,
    store: SharedStore,
    journal: Option<PathBuf>,
    wake: impl Fn() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let waker = crate::wake::spawn_waker(crate::wake::WAKE_INTERVAL, wake)?;
    std::thread::Builder::new()
        .name("window-events".to_owned())
        .spawn(move || loop {
            let first = events.blocking_recv();
            let now = Instant::now();
            let changed = {
                let mut s = lock(&store);
                let before = s.generation;
                match first {
                    Ok(e) => s.apply(&e, now),
                    Err(RecvError::Lagged(n)) => s.lost(n),
                    Err(RecvError::Closed) => {
                        s.notices.push("The hall has stopped.".to_owned());
                        s.hall_stopped = true;
                        s.generation += 1;
                        drop(s);
                        // The waker draws it, then ends with the sender.
                        let _ = waker.send(());
                        return;
                    }
                }
                // Whatever else is already queued, under the same lock.
                loop {
                    match events.try_recv() {
                        Ok(e) => s.apply(&e, now),
                        Err(broadcast::error::TryRecvError::Lagged(n)) => s.lost(n),
                        Err(_) => break,
                    }
                }
                s.generation != before
            };
            if changed {
                look_up_setups(&store, journal.as_deref());
                let _ = waker.send(());
            }
        })
}

/// Reads news of the round's other consoles (their tables' summaries, their presence on
/// the broker) into the store on its own thread, and wakes the window as
/// [`spawn_reader`] does. Ends when the news stop.
pub fn spawn_round_reader(
    news: std::sync::mpsc::Receiver<kriegspiel_hall::RoundNews>,
    store: SharedStore,
    wake: impl Fn() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let waker = crate::wake::spawn_waker(crate::wake::WAKE_INTERVAL, wake)?;
    std::thread::Builder::new()
        .name("window-round".to_owned())
        .spawn(move || {
            while let Ok(first) = news.recv() {
                let now = Instant::now();
                let changed = {
                    let mut s = lock(&store);
                    let before = s.generation;
                    s.round_news(first, now);
                    while let Ok(more) = news.try_recv() {
                        s.round_news(more, now);
                    }
                    s.generation != before
                };
                if changed {
                    let _ = waker.send(());
                }
            }
        })
}
