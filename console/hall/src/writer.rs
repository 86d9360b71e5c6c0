//! The journal on a thread of its own. Tables hand their events over and wait for the
//! commit before applying them (nothing is applied that is not on disk), but the disk's
//! wait blocks no table's board links, and events that arrive while one commit is syncing
//! are committed together by the next: one sync for many tables.

use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::journal::{Asides, Beat, EventRow, Journal, JournalError, NetStamp};

/// Rows committed together at most; a bound on one transaction, not on the queue's wait.
const MAX_GROUP: usize = 512;

enum Job {
    Write(EventRow, Reply),
    Call(Box<dyn FnOnce(&mut Journal) + Send>),
    Beat(Vec<Beat>),
    Applied(NetStamp),
}

/// Where a write's outcome goes: to a task that awaits it, or to a thread that blocks on it.
enum Reply {
    Awaited(oneshot::Sender<Result<(), JournalError>>),
    Blocked(std_mpsc::SyncSender<Result<(), JournalError>>),
}

impl Reply {
    fn send(self, result: Result<(), JournalError>) {
        // The waiter may be gone (its table stopped); the row is written all the same.
        let _ = match self {
            Reply::Awaited(tx) => tx.send(result).map_err(drop),
            Reply::Blocked(tx) => tx.send(result).map_err(drop),
        };
    }
}

/// The journal thread. Dropping every [`JournalQueue`] ends it once everything handed over
/// is written; [`JournalThread::join`] waits for that.
#[derive(Debug)]
pub(crate) struct JournalThread {
    thread: JoinHandle<()>,
}

/// Hands work to the journal thread; cheap to clone.
#[derive(Clone)]
pub(crate) struct JournalQueue {
    jobs: std_mpsc::Sender<Job>,
    /// Block the calling thread on each commit instead of awaiting it. On simulated time a
    /// runtime with nothing to do jumps to its next timer: awaiting the disk would let the
    /// tables' time run on while an event is being written, and the boards' with it.
    hold_time: bool,
}

impl std::fmt::Debug for JournalQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JournalQueue")
    }
}

/// The journal thread has stopped (it cannot start, or it panicked).
pub(crate) fn gone() -> JournalError {
    JournalError::BadEvent("the journal's writer has stopped".to_owned())
}

impl JournalThread {
    pub(crate) fn spawn(journal: Journal) -> std::io::Result<(JournalThread, JournalQueue)> {
        let (jobs, rx) = std_mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("journal".to_owned())
            .spawn(move || serve(journal, &rx))?;
        Ok((
            JournalThread { thread },
            JournalQueue {
                jobs,
                hold_time: false,
            },
        ))
    }

    /// Waits until every queue is dropped and everything handed over is written.
    pub(crate) fn join(self) {
        // A panic on the journal thread has already failed every table waiting on it.
        let _ = self.thread.join();
    }
}

impl JournalQueue {
    /// The same queue, blocking its caller's thread while the journal works (for a runtime
    /// on simulated time, whose clock must not move meanwhile).
    pub(crate) fn holding_time(self) -> Self {
        JournalQueue {
            hold_time: true,
            ..self
        }
    }

    /// Writes one event; resolves once it is committed (or refused).
    pub(crate) async fn write(&self, row: EventRow) -> Result<(), JournalError> {
        if self.hold_time {
            let (done, result) = std_mpsc::sync_channel(1);
            self.jobs
                .send(Job::Write(row, Reply::Blocked(done)))
                .map_err(|_| gone())?;
            return result.recv().unwrap_or_else(|_| Err(gone()));
        }
        let (done, result) = oneshot::channel();
        self.jobs
            .send(Job::Write(row, Reply::Awaited(done)))
            .map_err(|_| gone())?;
        result.await.unwrap_or_else(|_| Err(gone()))
    }

    /// Hands over an event whose effect may be published before it is on disk: one that
    /// follows from events committed already (a timer), so that a crash losing it loses
    /// nothing a replay cannot derive again. Rows stay in order: any later write resolves
    /// only once this one is committed. The outcome comes on the returned receiver, checked
    /// later. Nothing waits, so simulated time does not run on meanwhile either.
    pub(crate) fn write_behind(&self, row: EventRow) -> Committed {
        let (done, result) = oneshot::channel();
        if let Err(std_mpsc::SendError(Job::Write(_, Reply::Awaited(done)))) =
            self.jobs.send(Job::Write(row, Reply::Awaited(done)))
        {
            let _ = done.send(Err(gone()));
        }
        Committed(result)
    }

    /// Records the tables' heartbeats, without waiting: a heartbeat that cannot be written
    /// costs at most the thinking time since the last one, and a failing disk is reported
    /// by the next event's write.
    pub(crate) fn beat(&self, beats: Vec<Beat>) {
        let _ = self.jobs.send(Job::Beat(beats));
    }

    /// Records how far a networked board's frames were applied, without an event and
    /// without waiting: written with the next group, after every row handed over before.
    /// Lost in a crash, it costs the restarted console those frames again (they change
    /// nothing a second time either).
    pub(crate) fn applied(&self, stamp: NetStamp) {
        let _ = self.jobs.send(Job::Applied(stamp));
    }

    /// Runs `f` on the journal between writes (reading games, starting a new one).
    pub(crate) async fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Journal) -> R + Send + 'static,
    ) -> Result<R, JournalError> {
        if self.hold_time {
            let (done, result) = std_mpsc::sync_channel(1);
            let job = Job::Call(Box::new(move |j: &mut Journal| {
                let _ = done.send(f(j));
            }));
            self.jobs.send(job).map_err(|_| gone())?;
            return result.recv().map_err(|_| gone());
        }
        let (done, result) = oneshot::channel();
        let job = Job::Call(Box::new(move |j: &mut Journal| {
            let _ = done.send(f(j));
        }));
        self.jobs.send(job).map_err(|_| gone())?;
        result.await.map_err(|_| gone())
    }
}

/// The outcome of a [`JournalQueue::write_behind`], to be checked later.
#[derive(Debug)]
pub(crate) struct Committed(oneshot::Receiver<Result<(), JournalError>>);

impl Committed {
    /// `None` while the commit is still to come; then its outcome.
    pub(crate) fn outcome(&mut self) -> Option<Result<(), JournalError>> {
        match self.0.try_recv() {
            Ok(result) => Some(result),
            Err(oneshot::error::TryRecvError::Empty) => None,
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(gone())),
        }
    }
}

fn serve(mut journal: Journal, jobs: &std_mpsc::Receiver<Job>) {
    let mut rows = Vec::new();
    let mut waiting = Vec::new();
    let mut asides = Asides::default();
    while let Ok(first) = jobs.recv() {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Write(row, done) => {
                    rows.push(row);
                    waiting.push(done);
                }
                Job::Call(f) => {
                    commit(&mut journal, &mut rows, &mut waiting, &mut asides);
                    f(&mut journal);
                }
                // With the group's events: no commit of its own.
                Job::Beat(b) => asides.beats.extend(b),
                Job::Applied(stamp) => asides.applied.push(stamp),
            }
            if rows.len() < MAX_GROUP {
                next = jobs.try_recv().ok();
            }
        }
        commit(&mut journal, &mut rows, &mut waiting, &mut asides);
    }
}

/// Commits the gathered rows and asides together and tells each waiter. If the group
/// fails, each row is tried alone so that each table learns its own fate (the asides are
/// dropped: the next ones replace them).
fn commit(
    journal: &mut Journal,
    rows: &mut Vec<EventRow>,
    waiting: &mut Vec<Reply>,
    asides: &mut Asides,
) {
    if rows.is_empty() {
        if !asides.is_empty() {
            let _ = journal.write_group(&[], asides);
            asides.clear();
        }
        return;
    }
    let written = journal.write_group(rows, asides);
    asides.clear();
    if written.is_ok() {
        for done in waiting.drain(..) {
            done.send(Ok(()));
        }
    } else {
        for (row, done) in rows.iter().zip(waiting.drain(..)) {
            done.send(journal.write(std::slice::from_ref(row)));
        }
    }
    rows.clear();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::journal::Stamp;
    use crate::setup::TableSetup;
    use kriegspiel_table::{Event, Input};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A journal in a new folder, its writer thread, and one game in it.
    fn one_game() -> (
        tempfile::TempDir,
        tokio::runtime::Runtime,
        JournalThread,
        JournalQueue,
        i64,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join("j.sqlite")).unwrap();
        let (thread, queue) = JournalThread::spawn(journal).unwrap();
        let rt = runtime();
        let game = rt
            .block_on(queue.call(|j| j.new_game("t", &TableSetup::default(), 0)))
            .unwrap()
            .unwrap();
        (dir, rt, thread, queue, game)
    }

    /// The row of `input` as the `seq`th event of `game`, at `seq` × 10 ms.
    fn tick_row(game: i64, seq: i64, input: Input) -> EventRow {
        EventRow::new(
            game,
            seq,
            &Event::new(seq as u64 * 10, input),
            Stamp::default(),
        )
        .unwrap()
    }

    /// Timer rows are committed without a sync of their own; what comes after them (a
    /// game, a seat, a keypad line) is synced again.
    #[test]
    fn every_commit_after_timer_rows_is_synced_again() {
        let (dir, rt, thread, queue, game) = one_game();
        for seq in 1..=3 {
            rt.block_on(queue.write(tick_row(game, seq, Input::Tick)))
                .unwrap();
        }
        assert_eq!(rt.block_on(queue.call(|j| j.synchronous())).unwrap(), 2);
        let resign = Input::Resign {
            color: kriegspiel_referee::shakmaty::Color::White,
        };
        rt.block_on(queue.write(tick_row(game, 4, resign))).unwrap();
        drop(queue);
        thread.join();
        let j = Journal::open_read_only(&dir.path().join("j.sqlite")).unwrap();
        assert_eq!(j.events(game).events.len(), 4);
    }

    /// A board's frames applied without an event (a snapshot that changed nothing) move its
    /// mark on with the next group, never ahead of the rows handed over before.
    #[test]
    fn a_board_applied_without_an_event_is_marked_with_the_next_group() {
        use crate::journal::NetStamp;
        let (dir, rt, thread, queue, game) = one_game();
        let stamp = |seq| NetStamp {
            board: 7,
            epoch: 100,
            seq,
        };
        let row = EventRow::new(
            game,
            1,
            &Event::new(10, Input::Tick),
            Stamp {
                net: Some(stamp(3)),
                ..Stamp::default()
            },
        )
        .unwrap();
        rt.block_on(queue.write(row)).unwrap();
        queue.applied(stamp(9));
        queue.applied(stamp(12));
        drop(queue);
        thread.join();
        let j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
        assert_eq!(j.inbox().unwrap().applied(7).unwrap(), Some((100, 12)));
        assert_eq!(j.events(game).events.len(), 1);
    }

    /// In one group, a frame left out (its mark an aside) and an event of a later frame:
    /// whichever is written last, the mark stays at the later frame, and a new epoch wins.
    #[test]
    fn a_boards_mark_never_moves_back_within_a_group() {
        use crate::journal::{Asides, NetStamp};
        let (dir, _rt, thread, queue, game) = one_game();
        drop(queue);
        thread.join();
        let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
        let stamp = |epoch, seq| NetStamp {
            board: 7,
            epoch,
            seq,
        };
        let row = |seq: i64, net| {
            EventRow::new(
                game,
                seq,
                &Event::new(10, Input::Tick),
                Stamp {
                    net: Some(net),
                    ..Stamp::default()
                },
            )
            .unwrap()
        };
        let asides = |net| Asides {
            beats: Vec::new(),
            applied: vec![net],
        };
        j.write_group(&[row(1, stamp(100, 15))], &asides(stamp(100, 14)))
            .unwrap();
        assert_eq!(j.inbox().unwrap().applied(7).unwrap(), Some((100, 15)));
        j.write_group(&[row(2, stamp(100, 16))], &asides(stamp(100, 17)))
            .unwrap();
        assert_eq!(j.inbox().unwrap().applied(7).unwrap(), Some((100, 17)));
        // A rebooted board's new epoch starts its numbering again.
        j.write_group(&[row(3, stamp(200, 2))], &asides(stamp(100, 18)))
            .unwrap();
        assert_eq!(j.inbox().unwrap().applied(7).unwrap(), Some((200, 2)));
    }

    #[test]
    fn events_from_many_writers_are_all_committed_in_order_per_game() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let journal = Journal::open(&path).unwrap();
        let (thread, queue) = JournalThread::spawn(journal).unwrap();
        let rt = runtime();
        let games: Vec<i64> = (0..4)
            .map(|i| {
                rt.block_on(
                    queue.call(move |j| j.new_game(&format!("t{i}"), &TableSetup::default(), 0)),
                )
                .unwrap()
                .unwrap()
            })
            .collect();
        rt.block_on(async {
            let mut tasks = Vec::new();
            for &game in &games {
                let q = queue.clone();
                tasks.push(tokio::spawn(async move {
                    for seq in 1..=50 {
                        let event = Event::new(seq as u64 * 10, Input::Tick);
                        let row = EventRow::new(game, seq, &event, Stamp::default()).unwrap();
                        q.write(row).await.unwrap();
                    }
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
        });
        drop(queue);
        thread.join();
        let journal = Journal::open(&path).unwrap();
        for game in games {
            let read = journal.events(game);
            assert!(read.damage.is_none());
            let seqs: Vec<i64> = read.events.iter().map(|e| e.seq).collect();
            assert_eq!(seqs, (1..=50).collect::<Vec<_>>());
        }
    }

    #[test]
    fn rows_written_behind_are_committed_in_order_before_a_later_awaited_write() {
        let (dir, rt, thread, queue, game) = one_game();
        let path = dir.path().join("j.sqlite");
        let row = |seq: i64, input: Input| tick_row(game, seq, input);
        let mut behind: Vec<Committed> = (1..=20)
            .map(|seq| queue.write_behind(row(seq, Input::Tick)))
            .collect();
        let resign = Input::Resign {
            color: kriegspiel_referee::shakmaty::Color::White,
        };
        rt.block_on(queue.write(row(21, resign))).unwrap();
        // The awaited write resolved: every row handed over before it is on disk.
        for b in &mut behind {
            assert!(matches!(b.outcome(), Some(Ok(()))));
        }
        drop(queue);
        thread.join();
        let read = Journal::open(&path).unwrap().events(game);
        let seqs: Vec<i64> = read.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=21).collect::<Vec<_>>());
    }

    #[test]
    fn a_row_written_behind_that_the_journal_refuses_says_so() {
        let (_dir, rt, thread, queue, game) = one_game();
        let row = |seq: i64| tick_row(game, seq, Input::Tick);
        rt.block_on(queue.write(row(1))).unwrap();
        // The same sequence number again: the journal refuses it.
        let mut again = queue.write_behind(row(1));
        rt.block_on(queue.write(row(2))).unwrap();
        assert!(matches!(again.outcome(), Some(Err(_))));
        drop(queue);
        thread.join();
    }

    #[test]
    fn a_row_the_journal_refuses_fails_alone() {
        let (_dir, rt, thread, queue, game) = one_game();
        let row = |seq| EventRow::new(game, seq, &Event::new(0, Input::Tick), Stamp::default());
        rt.block_on(async {
            // The same (game, seq) twice: the second breaks the key, the others stand.
            let (a, b, c) = tokio::join!(
                queue.write(row(1).unwrap()),
                queue.write(row(1).unwrap()),
                queue.write(row(2).unwrap())
            );
            assert!(a.is_ok());
            let err = b.unwrap_err().to_string();
            assert!(err.contains("journal: writing an event"), "{err}");
            assert!(c.is_ok());
        });
        let count = rt
            .block_on(queue.call(move |j| j.event_count(game)))
            .unwrap();
        assert_eq!(count.unwrap(), 2);
        drop(queue);
        thread.join();
    }
}
