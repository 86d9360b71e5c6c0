//! A running hall as a front end holds it: commands in, subscriptions out.

use kriegspiel_table::{Event, Input};
use tokio::sync::{broadcast, mpsc};

use crate::event::{HallCommand, HallEvent, SeatNotice};
use crate::journal::{EventRow, Stamp};
use crate::spec::TableNo;

/// Sends commands to a running hall; cheap to clone, usable from any thread.
#[derive(Debug, Clone)]
pub struct HallHandle {
    pub(crate) commands: mpsc::UnboundedSender<HallCommand>,
    /// Weak: the hall's own tasks hold the channel open, so that every subscriber sees it
    /// close when the hall stops, whoever still holds a handle.
    pub(crate) events: broadcast::WeakSender<HallEvent>,
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
    EventRow::new(0, 1, &Event::new(0, input.clone()), Stamp::default())
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
/// the thread that runs it and its subscribers' threads.
#[derive(Debug)]
pub struct RunningHall {
    pub handle: HallHandle,
    pub events: broadcast::Receiver<HallEvent>,
    pub thread: std::thread::JoinHandle<()>,
    /// The threads of the subscribers given to [`crate::start`]; each ends when the hall
    /// stops (or sooner, when it is done).
    pub followers: Vec<std::thread::JoinHandle<()>>,
}

impl RunningHall {
    /// Waits for the hall's thread, then for its subscribers (a speaker's last words).
    pub fn join(self) {
        // A panicked thread has nothing left to wait for.
        let _ = self.thread.join();
        for f in self.followers {
            let _ = f.join();
        }
    }
}
