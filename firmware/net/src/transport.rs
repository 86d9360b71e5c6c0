//! The board's end: link frames go into the outbox and out to the broker; the console's
//! frames come back on the board's command topic, as they would from a serial line.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kriegspiel_link::{encode, ConsoleMsg, Frame, MAX_FRAME, PROTOCOL_VERSION};
use rumqttc::{AsyncClient, ConnectReturnCode, ConnectionError, Event, EventLoop, LastWill};
use rumqttc::{Packet, QoS};
use tokio::sync::mpsc as wake_channel;

use crate::broker::{Broker, BrokerError};
use crate::envelope::Ack;
use crate::outbox::Outbox;
use crate::topics::{BoardTopics, Status};

/// How a board meets the console through the broker.
#[derive(Debug, Clone)]
pub struct TransportConfig {
    pub board_id: u32,
    pub broker: Broker,
    /// A frame not acknowledged this long after it was sent is sent again.
    pub resend_after: Duration,
    /// Frames kept for a console that does not answer; beyond, the board starts a new epoch.
    pub outbox_capacity: usize,
}

impl TransportConfig {
    pub fn new(board_id: u32, broker: Broker) -> TransportConfig {
        TransportConfig {
            board_id,
            broker,
            resend_after: Duration::from_secs(1),
            outbox_capacity: 20_000,
        }
    }
}

/// Frames handed to the client per pass: a long backlog goes out in slices, so that the
/// client's queue never fills and new frames are not stuck behind it for long.
const BURST: usize = 200;
/// Console frames waiting for the board loop; the console repeats what matters.
const INCOMING: usize = 64;

/// Why the board may not go on talking to the broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The broker refused this board's credentials or its right to connect.
    Refused { board_id: u32, why: String },
    /// Another process with this board id started later: this one must stop.
    Superseded { board_id: u32 },
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Refused { board_id, why } => write!(
                f,
                "the broker refused board {board_id}: {why}; check the board's seat file (user name and password) for this round"
            ),
            TransportError::Superseded { board_id } => write!(
                f,
                "another board with id {board_id} started after this one and the console follows it; this one stops (two boards must not share an id)"
            ),
        }
    }
}

impl std::error::Error for TransportError {}

/// How long a board waits, on average, before it tries an unreachable broker again.
const RETRY: Duration = Duration::from_millis(250);

#[derive(Debug)]
struct Shared {
    outbox: Outbox,
    connected: bool,
    fatal: Option<TransportError>,
    /// Epochs restarted because the console did not acknowledge in time.
    overflows: u64,
    /// The console's connection its last ack came over.
    console_seen: Option<u64>,
    /// Whether the console has acknowledged anything of this process's epochs yet.
    followed: bool,
}

/// What an ack of a later epoch than the board's own means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LaterAck {
    /// Kept by the broker from before this process started, which has not been followed
    /// yet: an earlier boot of this board whose clock was ahead (a Raspberry Pi has no
    /// battery clock and may boot into an earlier time). The board moves past it.
    EarlierBoot,
    /// Sent live, or after the console has followed this process: another board with this
    /// id started later, and the console follows it.
    AnotherBoard,
}

fn later_ack(retained: bool, followed: bool) -> LaterAck {
    if retained && !followed {
        LaterAck::EarlierBoot
    } else {
        LaterAck::AnotherBoard
    }
}

/// The running transport: its tasks stop when it and its writer are dropped.
pub struct BoardTransport {
    shared: Arc<Mutex<Shared>>,
    client: AsyncClient,
    topics: BoardTopics,
    goodbye: crate::broker::Goodbye,
}

/// The board's frame writer over the broker.
#[derive(Debug, Clone)]
pub struct TransportWriter {
    shared: Arc<Mutex<Shared>>,
    wake: wake_channel::Sender<()>,
    incoming: SyncSender<Vec<u8>>,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panicking transport thread leaves the outbox as it was: still the truth.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// The board's wall clock, Unix ms.
fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Milliseconds since 1970, later than `after`: a new epoch is always a later one.
fn new_epoch(after: u64) -> u64 {
    wall_ms().max(after.saturating_add(1))
}

/// The bytes of a console Hello, as the board would read them from the console.
fn hello_frame() -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME];
    let body = ConsoleMsg::Hello {
        protocol: PROTOCOL_VERSION,
    };
    match encode(&Frame { seq: 0, body }, &mut buf) {
        Ok(n) => buf[..n].to_vec(),
        Err(_) => Vec::new(),
    }
}

impl kriegspiel_board_core::FrameWriter for TransportWriter {
    type Error = TransportError;

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        let mut s = lock(&self.shared);
        if let Some(fatal) = &s.fatal {
            return Err(fatal.clone());
        }
        if let Err((full, _frame)) = s.outbox.push(bytes.to_vec(), wall_ms()) {
            // The console has not acknowledged for a long time: start afresh, and let the
            // board announce itself again so that the console resyncs from its snapshot.
            let epoch = new_epoch(s.outbox.epoch());
            s.outbox.restart(epoch);
            s.overflows += 1;
            eprintln!(
                "kriegspiel-board: {full}; starting epoch {epoch}: the console will resync from the board's snapshot"
            );
            let _ = self.incoming.try_send(hello_frame());
        }
        drop(s);
        let _ = self.wake.try_send(());
        Ok(())
    }
}

impl std::fmt::Debug for BoardTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoardTransport")
            .field("board", &self.topics.events)
            .finish_non_exhaustive()
    }
}

/// A transport made but not yet running: its two tasks, to be driven by a runtime.
struct Parts {
    listener: Listener,
    eventloop: EventLoop,
    pump: Pump,
    wake: wake_channel::Receiver<()>,
}

impl Parts {
    async fn run(self) {
        let Parts {
            listener,
            eventloop,
            pump,
            wake,
        } = self;
        tokio::join!(listener.run(eventloop), pump.run(wake));
    }
}

/// What `start` and `start_on` hand back.
pub type Started = (TransportWriter, Receiver<Vec<u8>>, BoardTransport);

impl BoardTransport {
    /// Connects (in the background: a broker that is down is retried) and returns the
    /// writer for the board, the console's frames and the transport. The connection runs
    /// on one thread of its own, as on a board's Raspberry Pi.
    pub fn start(config: TransportConfig) -> Result<Started, BrokerError> {
        let url = config.broker.url.to_string();
        let cannot = |e: std::io::Error| BrokerError::Url {
            url: url.clone(),
            why: format!("cannot start the connection's thread: {e}"),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(cannot)?;
        let (started, parts) = BoardTransport::make(config)?;
        thread::Builder::new()
            .name("mqtt".into())
            .spawn(move || runtime.block_on(parts.run()))
            .map_err(cannot)?;
        Ok(started)
    }

    /// As `start`, on a runtime the caller already runs: a host that simulates many boards
    /// drives them all on a few threads instead of one each (400 boards were 800 threads,
    /// and the console beside them waited for a core among them).
    pub fn start_on(
        config: TransportConfig,
        runtime: &tokio::runtime::Handle,
    ) -> Result<Started, BrokerError> {
        let (started, parts) = BoardTransport::make(config)?;
        runtime.spawn(parts.run());
        Ok(started)
    }

    fn make(config: TransportConfig) -> Result<(Started, Parts), BrokerError> {
        let id = config.board_id;
        let topics = BoardTopics::new(id);
        let epoch = new_epoch(0);
        let mut options = config
            .broker
            .options(&format!("kriegspiel-board-{id}-{epoch}"))?;
        options.set_clean_session(true);
        options.set_last_will(LastWill::new(
            topics.status.clone(),
            Status::Offline.encode(),
            QoS::AtLeastOnce,
            true,
        ));
        let (client, mut eventloop) = AsyncClient::new(options, BURST * 2);
        eventloop.set_network_options(crate::broker::network_options());
        let shared = Arc::new(Mutex::new(Shared {
            outbox: Outbox::new(epoch, config.outbox_capacity),
            connected: false,
            fatal: None,
            overflows: 0,
            console_seen: None,
            followed: false,
        }));
        let (incoming_tx, incoming_rx) = mpsc::sync_channel(INCOMING);
        let (wake_tx, wake_rx) = wake_channel::channel(1);
        let (goodbye_sent, goodbye) = crate::broker::goodbye();
        let listener = Listener {
            goodbye: goodbye_sent,
            shared: shared.clone(),
            client: client.clone(),
            topics: topics.clone(),
            incoming: incoming_tx.clone(),
            board_id: id,
        };
        let pump = Pump {
            shared: shared.clone(),
            client: client.clone(),
            topic: topics.events.clone(),
            resend_after: config.resend_after,
        };
        let writer = TransportWriter {
            shared: shared.clone(),
            wake: wake_tx,
            incoming: incoming_tx,
        };
        let transport = BoardTransport {
            shared,
            client,
            topics,
            goodbye,
        };
        let parts = Parts {
            listener,
            eventloop,
            pump,
            wake: wake_rx,
        };
        Ok(((writer, incoming_rx, transport), parts))
    }

    /// Frames the console has not acknowledged yet.
    pub fn unacknowledged(&self) -> usize {
        lock(&self.shared).outbox.len()
    }

    pub fn is_connected(&self) -> bool {
        lock(&self.shared).connected
    }

    /// Why the board must stop, if it must.
    pub fn fatal(&self) -> Option<TransportError> {
        lock(&self.shared).fatal.clone()
    }

    /// Waits until the console holds every frame, up to `limit`: a board that stops before
    /// would take its last events with it. Returns how many are still unacknowledged.
    pub fn flush(&self, limit: Duration) -> Result<(), usize> {
        let until = Instant::now() + limit;
        loop {
            let (left, fatal) = {
                let s = lock(&self.shared);
                (s.outbox.len(), s.fatal.is_some())
            };
            if left == 0 {
                return Ok(());
            }
            if fatal || Instant::now() >= until {
                return Err(left);
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for BoardTransport {
    fn drop(&mut self) {
        // Said plainly at a clean stop (nothing more will come when the outbox is empty);
        // the last will says "offline" at an unclean one.
        let status = if self.unacknowledged() == 0 {
            Status::Stopped
        } else {
            Status::Offline
        };
        let _ = self.client.try_publish(
            self.topics.status.clone(),
            QoS::AtLeastOnce,
            true,
            status.encode(),
        );
        self.goodbye.say(&self.client, Duration::from_secs(2));
    }
}

struct Listener {
    goodbye: crate::broker::GoodbyeSent,
    shared: Arc<Mutex<Shared>>,
    client: AsyncClient,
    topics: BoardTopics,
    incoming: SyncSender<Vec<u8>>,
    board_id: u32,
}

impl Listener {
    async fn run(mut self, mut eventloop: EventLoop) {
        let mut said_down = false;
        loop {
            let event = eventloop.poll().await;
            if self.goodbye.is_done(&event) {
                return;
            }
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    said_down = false;
                    self.connected();
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    self.publish(&p.topic, &p.payload, p.retain);
                }
                Ok(_) => {}
                Err(ConnectionError::ConnectionRefused(code)) => {
                    let why = crate::refusal(code);
                    if matches!(
                        code,
                        ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized
                    ) {
                        lock(&self.shared).fatal = Some(TransportError::Refused {
                            board_id: self.board_id,
                            why: why.to_owned(),
                        });
                        return;
                    }
                    self.down(&mut said_down, why).await;
                }
                Err(ConnectionError::RequestsDone) => return,
                Err(e) => {
                    self.down(&mut said_down, &crate::Plainly(&e).to_string())
                        .await;
                }
            }
            if lock(&self.shared).fatal.is_some() {
                return;
            }
        }
    }

    async fn down(&self, said: &mut bool, why: &str) {
        lock(&self.shared).connected = false;
        if !std::mem::replace(said, true) {
            eprintln!(
                "kriegspiel-board: board {}: broker unreachable ({why}); retrying 4 times a second, events are kept",
                self.board_id
            );
        }
        // Soon, so that a broker back after an outage has the boards at once.
        tokio::time::sleep(crate::broker::retry_delay(RETRY)).await;
    }

    fn connected(&self) {
        let epoch = {
            let mut s = lock(&self.shared);
            s.connected = true;
            // The broker may have lost what it held: everything unacknowledged goes again.
            s.outbox.resend_all();
            s.outbox.epoch()
        };
        let _ = self
            .client
            .try_subscribe(self.topics.ack.clone(), QoS::AtLeastOnce);
        let _ = self
            .client
            .try_subscribe(self.topics.cmd.clone(), QoS::AtLeastOnce);
        let _ = self.client.try_publish(
            self.topics.status.clone(),
            QoS::AtLeastOnce,
            true,
            Status::Online { epoch }.encode(),
        );
    }

    fn publish(&self, topic: &str, payload: &[u8], retained: bool) {
        if topic == self.topics.cmd {
            if payload.len() <= MAX_FRAME {
                // A full queue: the console asks again.
                let _ = self.incoming.try_send(payload.to_vec());
            }
        } else if topic == self.topics.ack {
            let Ok((ack, console)) = Ack::decode_with(payload) else {
                return;
            };
            let mut s = lock(&self.shared);
            if ack.epoch > s.outbox.epoch() {
                match later_ack(retained, s.followed) {
                    LaterAck::EarlierBoot => {
                        let epoch = new_epoch(ack.epoch);
                        s.outbox.restart(epoch);
                        eprintln!(
                            "kriegspiel-board: board {}: the console last followed epoch {}, later than this boot's clock; starting epoch {epoch}: the console will resync from the board's snapshot",
                            self.board_id, ack.epoch
                        );
                        // The board announces itself again, in the new epoch.
                        let _ = self.incoming.try_send(hello_frame());
                        let _ = self.client.try_publish(
                            self.topics.status.clone(),
                            QoS::AtLeastOnce,
                            true,
                            Status::Online { epoch }.encode(),
                        );
                    }
                    LaterAck::AnotherBoard => {
                        s.fatal = Some(TransportError::Superseded {
                            board_id: self.board_id,
                        });
                    }
                }
            } else {
                if ack.epoch == s.outbox.epoch() {
                    s.followed = true;
                }
                s.outbox.acknowledged(ack);
                // The console is back on a new connection: what it may have missed goes now.
                if console.is_some() && console != s.console_seen {
                    s.console_seen = console;
                    s.outbox.resend_all();
                }
            }
        }
    }
}

struct Pump {
    shared: Arc<Mutex<Shared>>,
    client: AsyncClient,
    topic: String,
    resend_after: Duration,
}

impl Pump {
    async fn run(self, mut wake: wake_channel::Receiver<()>) {
        let start = Instant::now();
        loop {
            // Woken by a new frame, or every 100 ms for what is due again; ends with the
            // board's writer.
            match tokio::time::timeout(Duration::from_millis(100), wake.recv()).await {
                Ok(Some(())) | Err(_) => {}
                Ok(None) => return,
            }
            let due = {
                let mut s = lock(&self.shared);
                if s.fatal.is_some() {
                    return;
                }
                if !s.connected {
                    continue;
                }
                s.outbox
                    .due(start.elapsed(), wall_ms(), self.resend_after, BURST)
            };
            for envelope in due {
                let sent = self.client.try_publish(
                    self.topic.clone(),
                    QoS::AtLeastOnce,
                    false,
                    envelope.encode(),
                );
                if sent.is_err() {
                    lock(&self.shared).outbox.unsent(envelope.seq);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_kept_ack_before_the_console_follows_is_an_earlier_boot() {
        assert_eq!(later_ack(true, false), LaterAck::EarlierBoot);
        assert_eq!(later_ack(false, false), LaterAck::AnotherBoard);
        assert_eq!(later_ack(true, true), LaterAck::AnotherBoard);
        assert_eq!(later_ack(false, true), LaterAck::AnotherBoard);
    }

    #[test]
    fn a_new_epoch_is_later_than_the_one_it_follows_whatever_the_clock() {
        let ahead = wall_ms() + 86_400_000;
        assert_eq!(new_epoch(ahead), ahead + 1);
        assert!(new_epoch(0) >= wall_ms().saturating_sub(1000));
    }
}
