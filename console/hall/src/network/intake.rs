//! The intake thread: takes each board's envelopes in order, stores them, acknowledges what
//! is stored and hands it to the board's link. One thread for every board, never waiting on
//! any one link: a link that is behind keeps its frames in its own bounded place and is not
//! acknowledged further, so its board keeps them until it catches up.

use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use kriegspiel_boardlink::{NetInput, NetKey};
use kriegspiel_net::{Ack, BoardTopics, Envelope, InOrder};
use rumqttc::{AsyncClient, QoS};
use tokio::sync::{broadcast, mpsc};

use crate::event::{BrokerNotice, HallEvent};
use crate::journal::{Inbox, InboxRow};

/// Frames held back behind a gap, per board.
const HELD: usize = 4096;
/// Messages taken per round (one journal commit for all of them).
const BATCH: usize = 512;

/// What the router hands the intake.
#[derive(Debug)]
pub(crate) enum Intake {
    Frame {
        board: u32,
        envelope: Envelope,
    },
    Malformed {
        board: u32,
        why: String,
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
    acked: Option<Ack>,
}

struct State {
    inbox: Inbox,
    client: AsyncClient,
    events: broadcast::Sender<HallEvent>,
    boards: BTreeMap<u32, BoardIn>,
    journal_failed: bool,
    /// The console client's connection number, sent with every ack.
    console: u64,
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
        console: 0,
    };
    std::thread::Builder::new()
        .name("board-intake".into())
        .spawn(move || state.run(&rx))
        .map(|_| ())
}

impl State {
    fn run(&mut self, rx: &Receiver<Intake>) {
        loop {
            let first = match rx.recv_timeout(Duration::from_millis(50)) {
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
                self.console = console;
                for b in self.boards.values_mut() {
                    b.acked = None;
                }
            }
            Intake::Frame { board, envelope } => {
                if let Some(b) = self.boards.get_mut(&board) {
                    // When it was made, on this machine's clock: the board's clock need not
                    // agree with ours, only count the frame's age.
                    let made_ms = wall_ms().saturating_sub(envelope.age_ms);
                    if b.order.arrive(envelope, made_ms) == kriegspiel_net::Arrived::NewEpoch {
                        b.queue.push_back(NetInput::NewEpoch);
                    }
                }
            }
            Intake::Status { board, status } => {
                if let Some(b) = self.boards.get_mut(&board) {
                    b.queue.push_back(match status {
                        kriegspiel_net::Status::Online { .. } => NetInput::Present(true),
                        kriegspiel_net::Status::Offline => NetInput::Present(false),
                        kriegspiel_net::Status::Stopped => NetInput::Stopped,
                    });
                }
            }
            Intake::Malformed { board, why } => {
                self.notice(BrokerNotice::Malformed { board, why });
            }
        }
    }

    /// A table took board `board`: what the journal holds of it goes first.
    fn attach(&mut self, board: u32, tx: mpsc::Sender<NetInput>) {
        let mut queue = VecDeque::new();
        let loaded = self
            .inbox
            .applied(board)
            .and_then(|a| self.inbox.latest(board).map(|l| (a, l)));
        let order = match loaded {
            Ok((applied, latest)) => {
                if let Some((epoch, seq)) = applied {
                    queue.push_back(NetInput::Applied(NetKey { epoch, seq }));
                }
                match latest {
                    Some((epoch, rows)) => {
                        let next = rows.last().map_or(0, |(seq, _, _)| seq + 1);
                        queue.extend(rows.into_iter().map(|(seq, made_ms, bytes)| {
                            NetInput::Frame {
                                key: NetKey { epoch, seq },
                                made_ms,
                                bytes,
                            }
                        }));
                        InOrder::resume(epoch, next, HELD)
                    }
                    None => InOrder::new(HELD),
                }
            }
            Err(e) => {
                self.notice(BrokerNotice::Journal { why: e.to_string() });
                InOrder::new(HELD)
            }
        };
        self.boards.insert(
            board,
            BoardIn {
                order,
                tx,
                queue,
                acked: None,
            },
        );
    }

    /// Takes the frames now in order, as many as each link has room for, and stores them
    /// in one commit. If the journal fails, nothing taken is handed on or acknowledged: the
    /// boards keep them.
    fn store_ready(&mut self) {
        let mut rows: Vec<InboxRow> = Vec::new();
        let mut taken: Vec<(u32, u64, u64, usize)> = Vec::new();
        for (board, b) in &mut self.boards {
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
            Ok(()) => self.journal_failed = false,
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
        let mut gone = Vec::new();
        for (board, b) in &mut self.boards {
            while let Some(input) = b.queue.pop_front() {
                match b.tx.try_send(input) {
                    Ok(()) => {}
                    Err(mpsc::error::TrySendError::Full(input)) => {
                        b.queue.push_front(input);
                        break;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => {
                        gone.push(*board);
                        break;
                    }
                }
            }
            let ack = b.order.ack();
            if ack.is_some() && ack != b.acked && !self.journal_failed {
                if let Some(ack) = ack {
                    let sent = self.client.try_publish(
                        BoardTopics::new(*board).ack,
                        QoS::AtLeastOnce,
                        true,
                        ack.encode_with(self.console),
                    );
                    if sent.is_ok() {
                        b.acked = Some(ack);
                    }
                }
            }
        }
        for board in gone {
            self.boards.remove(&board);
        }
    }
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
