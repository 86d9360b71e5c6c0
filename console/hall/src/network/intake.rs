//! The intake thread: takes each board's envelopes in order, stores them, acknowledges what
//! is stored and hands it to the board's link. One thread for every board, never waiting on
//! any one link: a link that is behind keeps its frames in its own bounded place and is not
//! acknowledged further, so its board keeps them until it catches up.

use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use kriegspiel_boardlink::{NetInput, NetKey};
use kriegspiel_net::{Ack, BoardTopics, Envelope, InOrder};
use rumqttc::{AsyncClient, QoS};
use tokio::sync::{broadcast, mpsc};

use super::compaction::Kept;
use crate::event::{BrokerNotice, HallEvent};
use crate::journal::{Inbox, InboxRow};

/// Frames held back behind a gap, per board.
const HELD: usize = 4096;
/// Messages taken per round (one journal commit for all of them).
const BATCH: usize = 512;
/// Stored frames read at once for a restarted console's replay.
const PAGE: usize = 256;
/// A board's stored frames are compacted every this many (about 10 minutes of a board).
const COMPACT_EVERY: u64 = 4096;
/// Compaction is work nobody waits for, done between the frames: at most this many rows
/// of one board at a time, at most once in [`COMPACT_PACE`]. Boards that started together
/// come due together, and 400 boards' deletes at once held every frame up for a second.
const COMPACT_CHUNK: u64 = 512;
const COMPACT_PACE: Duration = Duration::from_millis(20);
/// A board's acknowledgement goes at most this often: one covers every frame stored
/// before it, and one a frame (seven a second a board) doubled the broker's traffic. Well
/// inside the board's re-send timeout (1 s), so nothing is sent twice for waiting on it.
const ACK_EVERY: Duration = Duration::from_millis(250);

/// What the router hands the intake.
#[derive(Debug)]
pub(crate) enum Intake {
    Frame {
        board: u32,
        envelope: Envelope,
    },
    Status {
        board: u32,
        status: kriegspiel_net::Status,
    },
    Attach {
        board: u32,
        tx: mpsc::Sender<NetInput>,
    },
    /// The console's client connected again (its number): every ack goes again with it,
    /// and each board sends at once what it sent while the console was away.
    Connected {
        console: u64,
    },
}

struct BoardIn {
    order: InOrder,
    tx: mpsc::Sender<NetInput>,
    /// Stored and to be handed to the link, in order.
    queue: VecDeque<NetInput>,
    /// Stored frames still to be replayed; whatever comes meanwhile waits behind them.
    replay: Option<Replay>,
    /// What the journal must keep of the board's epoch.
    kept: Kept,
    acked: Option<Ack>,
    /// When the last acknowledgement went.
    acked_at: Option<Instant>,
}

/// The stored frames of a board's epoch not yet read back: an evening's epoch is 100,000
/// frames a board, read a page at a time as the link takes them, never all at once.
struct Replay {
    epoch: u64,
    /// The next seq to read, and the seq after the last stored.
    next: u64,
    end: u64,
    /// Applied already, their result in the snapshot that ends them: not read at all.
    skip: Option<std::ops::Range<u64>>,
    /// What the broker said meanwhile, in its order once the replay is done: a new epoch,
    /// and the board's latest status (only the latest matters).
    new_epoch: bool,
    status: Option<NetInput>,
}

impl BoardIn {
    /// Queues an input that is not a frame: behind the replay, if one is under way.
    fn push(&mut self, input: NetInput) {
        match (&mut self.replay, input) {
            (None, input) => self.queue.push_back(input),
            (Some(r), NetInput::NewEpoch) => r.new_epoch = true,
            (Some(r), status) => r.status = Some(status),
        }
    }

    /// Reads the next page of the replay when the link's queue runs low; at its end,
    /// what waited behind it follows.
    fn refill(&mut self, inbox: &Inbox, board: u32) -> Result<(), crate::journal::JournalError> {
        let Some(r) = &mut self.replay else {
            return Ok(());
        };
        if self.queue.len() >= PAGE {
            return Ok(());
        }
        if let Some(skip) = r.skip.take_if(|skip| r.next >= skip.start) {
            if r.next < skip.end {
                self.queue.push_back(NetInput::Compacted);
                r.next = skip.end;
            }
        }
        // Never into the skipped frames.
        let limit = r.skip.as_ref().map_or(PAGE, |skip| {
            usize::try_from(skip.start - r.next).map_or(PAGE, |n| n.min(PAGE))
        });
        let page = inbox.frames(board, r.epoch, r.next, limit)?;
        let short = page.len() < limit;
        for (seq, made_ms, bytes) in page {
            if seq != r.next {
                // Compacted away: applied, and the frame that follows holds their result.
                self.queue.push_back(NetInput::Compacted);
            }
            self.kept.saw(r.epoch, seq, &bytes);
            r.next = seq + 1;
            self.queue.push_back(NetInput::Frame {
                key: NetKey {
                    epoch: r.epoch,
                    seq,
                },
                made_ms,
                bytes,
            });
        }
        if let Some(skip) = &r.skip {
            if short {
                // Nothing stored before them: the next page starts after them.
                r.next = r.next.max(skip.start);
            }
            return Ok(());
        }
        if short || r.next >= r.end {
            let r = self.replay.take();
            if let Some(r) = r {
                if r.new_epoch {
                    self.queue.push_back(NetInput::NewEpoch);
                }
                self.queue.extend(r.status);
            }
        }
        Ok(())
    }
}

struct State {
    inbox: Inbox,
    client: AsyncClient,
    events: broadcast::Sender<HallEvent>,
    boards: BTreeMap<u32, BoardIn>,
    journal_failed: bool,
    /// A replay's page could not be read, and the arbiter was told.
    unread_said: bool,
    /// A board's stored frames are compacted after this many more
    /// (`KRIEGSPIEL_INBOX_COMPACT_EVERY` in tests, so that a short game compacts too).
    compact_every: u64,
    /// When the last piece of compaction was done, and for which board (the next is
    /// looked for after it, so that every board has its turn).
    compacted: Option<(Instant, u32)>,
    /// The console client's connection number, sent with every ack: none is sent before
    /// it is known, or the console would hear its own acks as another console's.
    console: Option<u64>,
}

pub(super) fn spawn(
    rx: Receiver<Intake>,
    inbox: Inbox,
    client: AsyncClient,
    events: broadcast::Sender<HallEvent>,
) -> std::io::Result<()> {
    let mut state = State {
        inbox,
        client,
        events,
        boards: BTreeMap::new(),
        journal_failed: false,
        unread_said: false,
        compact_every: std::env::var("KRIEGSPIEL_INBOX_COMPACT_EVERY")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(COMPACT_EVERY),
        compacted: None,
        console: None,
    };
    std::thread::Builder::new()
        .name("board-intake".into())
        .spawn(move || state.run(&rx))
        .map(|_| ())
}

impl State {
    fn run(&mut self, rx: &Receiver<Intake>) {
        loop {
            // A link being replayed to takes its next page as soon as it has room.
            let wait = if self.replaying() { 1 } else { 50 };
            let first = match rx.recv_timeout(Duration::from_millis(wait)) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            for m in first.into_iter().chain(rx.try_iter().take(BATCH)) {
                self.take(m);
            }
            self.store_ready();
            self.deliver();
        }
    }

    fn notice(&self, notice: BrokerNotice) {
        let _ = self.events.send(HallEvent::Broker(notice));
    }

    fn take(&mut self, m: Intake) {
        match m {
            Intake::Attach { board, tx } => self.attach(board, tx),
            Intake::Connected { console } => {
                self.console = Some(console);
                for b in self.boards.values_mut() {
                    b.acked = None;
                    b.acked_at = None;
                }
            }
            Intake::Frame { board, envelope } => {
                if let Some(b) = self.boards.get_mut(&board) {
                    // When it was made, on this machine's clock: the board's clock need not
                    // agree with ours, only count the frame's age.
                    let made_ms = wall_ms().saturating_sub(envelope.age_ms);
                    if b.order.arrive(envelope, made_ms) == kriegspiel_net::Arrived::NewEpoch {
                        b.push(NetInput::NewEpoch);
                    }
                }
            }
            Intake::Status { board, status } => {
                if let Some(b) = self.boards.get_mut(&board) {
                    b.push(match status {
                        kriegspiel_net::Status::Online { .. } => NetInput::Present(true),
                        kriegspiel_net::Status::Offline => NetInput::Present(false),
                        kriegspiel_net::Status::Stopped => NetInput::Stopped,
                    });
                }
            }
        }
    }

    /// A table took board `board`: what the journal holds of it goes first.
    fn attach(&mut self, board: u32, tx: mpsc::Sender<NetInput>) {
        let mut queue = VecDeque::new();
        let loaded = self
            .inbox
            .applied(board)
            .and_then(|a| self.inbox.latest_epoch(board).map(|l| (a, l)));
        let (order, replay) = match loaded {
            Ok((applied, latest)) => {
                if let Some((epoch, seq)) = applied {
                    queue.push_back(NetInput::Applied(NetKey { epoch, seq }));
                }
                match latest {
                    Some((epoch, end)) => (
                        InOrder::resume(epoch, end, HELD),
                        Some(Replay {
                            epoch,
                            next: 0,
                            end,
                            skip: applied
                                .filter(|(e, _)| *e == epoch)
                                .and_then(|(_, seq)| self.skippable(board, epoch, seq)),
                            new_epoch: false,
                            status: None,
                        }),
                    ),
                    None => (InOrder::new(HELD), None),
                }
            }
            Err(e) => {
                self.notice(BrokerNotice::Journal { why: e.to_string() });
                (InOrder::new(HELD), None)
            }
        };
        self.boards.insert(
            board,
            BoardIn {
                order,
                tx,
                queue,
                replay,
                kept: Kept::default(),
                acked: None,
                acked_at: None,
            },
        );
    }

    /// What a restart need not replay of `board`'s `epoch`, applied through `applied`; none
    /// when the journal cannot say (then everything is replayed, as before compaction).
    fn skippable(&self, board: u32, epoch: u64, applied: u64) -> Option<std::ops::Range<u64>> {
        // The hello comes first in an epoch, after at most a frame or two.
        let first = self.inbox.frames(board, epoch, 0, 16).ok()?;
        let recent = self.inbox.frames_back(board, epoch, applied, 64).ok()?;
        super::compaction::skippable(&first, &recent)
    }

    /// Takes the frames now in order, as many as each link has room for, and stores them
    /// in one commit. If the journal fails, nothing taken is handed on or acknowledged: the
    /// boards keep them.
    fn store_ready(&mut self) {
        let mut rows: Vec<InboxRow> = Vec::new();
        let mut taken: Vec<(u32, u64, u64, usize)> = Vec::new();
        for (board, b) in &mut self.boards {
            if b.replay.is_some() {
                // Behind the stored frames: the board keeps them until the replay is done.
                continue;
            }
            let room = b.tx.capacity().saturating_sub(b.queue.len());
            let Some(epoch) = b.order.epoch() else {
                continue;
            };
            let before = b.queue.len();
            let mut first = None;
            for _ in 0..room {
                let Some((seq, made_ms, bytes)) = b.order.pop_ready() else {
                    break;
                };
                first.get_or_insert(seq);
                rows.push((*board, epoch, seq, made_ms, bytes.clone()));
                b.queue.push_back(NetInput::Frame {
                    key: NetKey { epoch, seq },
                    made_ms,
                    bytes,
                });
            }
            if let Some(first) = first {
                taken.push((*board, epoch, first, before));
            }
        }
        if rows.is_empty() {
            return;
        }
        match self.inbox.store(&rows) {
            Ok(()) => {
                self.journal_failed = false;
                for (board, epoch, seq, _, bytes) in &rows {
                    if let Some(b) = self.boards.get_mut(board) {
                        b.kept.saw(*epoch, *seq, bytes);
                    }
                }
                self.compact();
            }
            Err(e) => {
                for (board, epoch, first, before) in taken {
                    if let Some(b) = self.boards.get_mut(&board) {
                        b.queue.truncate(before);
                        b.order = InOrder::resume(epoch, first, HELD);
                    }
                }
                if !std::mem::replace(&mut self.journal_failed, true) {
                    self.notice(BrokerNotice::Journal { why: e.to_string() });
                }
            }
        }
    }

    /// Hands each link what is stored for it, and acknowledges what is stored.
    fn deliver(&mut self) {
        let now = Instant::now();
        let mut gone = Vec::new();
        let mut unread = None;
        for (board, b) in &mut self.boards {
            'link: loop {
                if let Err(e) = b.refill(&self.inbox, *board) {
                    unread = Some(e);
                    break;
                }
                if b.queue.is_empty() {
                    break;
                }
                while let Some(input) = b.queue.pop_front() {
                    match b.tx.try_send(input) {
                        Ok(()) => {}
                        Err(mpsc::error::TrySendError::Full(input)) => {
                            b.queue.push_front(input);
                            break 'link;
                        }
                        Err(mpsc::error::TrySendError::Closed(_)) => {
                            gone.push(*board);
                            break 'link;
                        }
                    }
                }
                if b.replay.is_none() {
                    break;
                }
            }
            let ack = b.order.ack();
            let due = b
                .acked_at
                .is_none_or(|at| now.saturating_duration_since(at) >= ACK_EVERY);
            if ack.is_some() && ack != b.acked && due && !self.journal_failed {
                if let (Some(ack), Some(console)) = (ack, self.console) {
                    let sent = self.client.try_publish(
                        BoardTopics::new(*board).ack,
                        QoS::AtLeastOnce,
                        true,
                        ack.encode_with(console),
                    );
                    if sent.is_ok() {
                        b.acked = Some(ack);
                        b.acked_at = Some(now);
                    }
                }
            }
        }
        for board in gone {
            self.boards.remove(&board);
        }
        match unread {
            Some(e) if !std::mem::replace(&mut self.unread_said, true) => {
                self.notice(BrokerNotice::Journal { why: e.to_string() });
            }
            Some(_) => {}
            None => self.unread_said = false,
        }
    }

    /// Drops from the journal what a board's table applied and a later snapshot holds,
    /// for a board that stored [`State::compact_every`] frames since its last compaction: one
    /// piece of one board at a time (see [`COMPACT_CHUNK`]).
    fn compact(&mut self) {
        let now = Instant::now();
        if self
            .compacted
            .is_some_and(|(at, _)| now.saturating_duration_since(at) < COMPACT_PACE)
        {
            return;
        }
        let after = self.compacted.map(|(_, board)| board);
        let due = |b: &BoardIn| b.kept.stored >= self.compact_every && b.replay.is_none();
        let next = match after {
            Some(last) => self
                .boards
                .range(last.saturating_add(1)..)
                .chain(self.boards.range(..=last))
                .find(|(_, b)| due(b)),
            None => self.boards.iter().find(|(_, b)| due(b)),
        }
        .map(|(board, _)| *board);
        let Some(board) = next else {
            return;
        };
        self.compacted = Some((now, board));
        let Some(b) = self.boards.get_mut(&board) else {
            return;
        };
        let removable = match self.inbox.applied(board) {
            Ok(Some((epoch, seq))) => b.kept.removable(epoch, seq).map(|r| (epoch, r)),
            Ok(None) | Err(_) => None,
        };
        let Some((epoch, seqs)) = removable else {
            // Nothing to drop yet: due again after as many frames. A journal that refuses
            // is said by the next store, not retried at every one.
            b.kept.stored = 0;
            return;
        };
        let piece = seqs.start..seqs.end.min(seqs.start + COMPACT_CHUNK);
        let whole = piece.end == seqs.end;
        match self.inbox.compact(board, epoch, piece.clone()) {
            Ok(_) => b.kept.compacted(&piece, whole),
            Err(_) => b.kept.stored = 0,
        }
    }

    /// A replay is under way: its link is to be fed again as soon as it has room.
    fn replaying(&self) -> bool {
        self.boards.values().any(|b| b.replay.is_some())
    }
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
