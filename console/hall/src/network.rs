//! Boards on the room's network, through an MQTT broker.
//!
//! The client's event loop runs on the hall's runtime and only routes: each board's
//! envelope goes to the intake thread, which takes it in order, stores it in the journal,
//! acknowledges what is stored and hands it to the board's link ([`NetLink`]). A board
//! re-sends whatever is not acknowledged, so anything dropped on the way (a full queue, a
//! broker restart, a console restart) comes again; the journal's key makes a second copy
//! harmless and the applied mark makes a replay apply nothing twice.

mod compaction;
mod intake;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kriegspiel_boardlink::{BoardLinkHandle, LinkConfig, NetLink, Report};
use kriegspiel_net::{Ack, BoardTopics, Broker, Envelope, Status, TopicKind};
use rumqttc::{AsyncClient, ConnectReturnCode, ConnectionError, Event, EventLoop, Packet, QoS};
use tokio::sync::{broadcast, mpsc};

use crate::event::{BrokerNotice, HallEvent};
use crate::journal::Inbox;

pub(crate) use intake::Intake;

/// Envelopes waiting for the intake: beyond, they are dropped and come again.
const INTAKE_QUEUE: usize = 8192;
/// Frames waiting in one board's link.
const LINK_QUEUE: usize = 256;
/// How long the console waits, on average, before it tries an unreachable broker again: soon, so that
/// a game resumes as soon as the broker is back.
const RETRY: Duration = Duration::from_millis(250);
/// Requests waiting in the client (acks, commands, subscriptions).
const CLIENT_QUEUE: usize = 4096;

/// The broker a hall uses and the name this console goes by there.
#[derive(Debug, Clone)]
pub struct NetworkSpec {
    pub broker: Broker,
    /// Tells consoles of one round apart (`console = "east"` in a round file).
    pub console: String,
}

/// The hall's connection to the broker; cloned into each table that has a networked board.
#[derive(Clone)]
pub(crate) struct Network {
    client: AsyncClient,
    intake: std::sync::mpsc::SyncSender<Intake>,
    attached: Arc<Mutex<BTreeSet<u32>>>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").finish_non_exhaustive()
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Network {
    /// Starts the client (on the current runtime) and the intake thread. A broker that is
    /// down is retried every second, said once; a refusal is said and not retried.
    pub(crate) fn start(
        spec: &NetworkSpec,
        inbox: Inbox,
        events: broadcast::Sender<HallEvent>,
    ) -> std::io::Result<Network> {
        let id = format!("kriegspiel-console-{}-{}", spec.console, std::process::id());
        let mut options = spec
            .broker
            .options(&id)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        options.set_clean_session(true);
        options.set_request_channel_capacity(CLIENT_QUEUE);
        let (client, mut eventloop) = AsyncClient::new(options, CLIENT_QUEUE);
        eventloop.set_network_options(kriegspiel_net::network_options());
        let (intake_tx, intake_rx) = std::sync::mpsc::sync_channel(INTAKE_QUEUE);
        let attached = Arc::new(Mutex::new(BTreeSet::new()));
        intake::spawn(intake_rx, inbox, client.clone(), events.clone())?;
        tokio::spawn(route(
            eventloop,
            Router {
                client: client.clone(),
                intake: intake_tx.clone(),
                attached: attached.clone(),
                events,
                url: spec.broker.url.to_string(),
                dropped: 0,
                malformed: BTreeMap::new(),
                connections: Connections::new(
                    u64::try_from(crate::heartbeat::wall_ms()).unwrap_or(0),
                ),
                shared: BTreeSet::new(),
            },
        ));
        Ok(Network {
            client,
            intake: intake_tx,
            attached,
        })
    }

    /// The link of networked board `board`: its stored frames are replayed first.
    pub(crate) fn attach(&self, board: u32) -> (BoardLinkHandle, mpsc::Receiver<Report>) {
        let (tx, rx) = mpsc::channel(LINK_QUEUE);
        locked(&self.attached).insert(board);
        subscribe(&self.client, board);
        // The intake learns of the board before any of its frames can be routed to it; a
        // full intake queue is waited for here (once per board, at a table's start).
        let _ = self.intake.send(Intake::Attach { board, tx });
        let client = self.client.clone();
        let cmd = BoardTopics::new(board).cmd;
        NetLink::spawn(
            rx,
            move |frame| {
                // A lost request is asked again by the link.
                let _ = client.try_publish(cmd.clone(), QoS::AtLeastOnce, false, frame);
            },
            LinkConfig::default(),
        )
    }
}

fn subscribe(client: &AsyncClient, board: u32) {
    let t = BoardTopics::new(board);
    let _ = client.try_subscribe(t.events, QoS::AtLeastOnce);
    let _ = client.try_subscribe(t.status, QoS::AtLeastOnce);
    // Another console's acks show the same board taken twice.
    let _ = client.try_subscribe(t.ack, QoS::AtMostOnce);
}

struct Router {
    client: AsyncClient,
    intake: std::sync::mpsc::SyncSender<Intake>,
    attached: Arc<Mutex<BTreeSet<u32>>>,
    events: broadcast::Sender<HallEvent>,
    url: String,
    dropped: u64,
    /// Messages on each attached board's topic that were no envelope: said when the count
    /// reaches a power of two, so that a flood (faulty firmware, a board's login misused)
    /// says 17 lines for 100,000 and never crowds the tables' own events out of the queue
    /// every follower reads (attack review: one line each closed every player's terminal).
    malformed: BTreeMap<u32, u64>,
    /// This console's connection numbers, sent with its acks: from `first` to `last`.
    connections: Connections,
    /// Boards whose acks from another console the arbiter has been told of.
    shared: BTreeSet<u32>,
}

/// The numbers of this console's connections to the broker, each sent with its acks.
#[derive(Debug, Clone, Copy)]
struct Connections {
    first: u64,
    last: u64,
}

impl Connections {
    /// Told apart from the connections of other consoles and of this console's earlier
    /// runs by the clock at start.
    fn new(wall_ms: u64) -> Connections {
        Connections {
            first: wall_ms + 1,
            last: wall_ms,
        }
    }

    fn next(&mut self) -> u64 {
        self.last += 1;
        self.last
    }

    /// Whether an ack sent live with `console` came from another console.
    fn another(&self, console: Option<u64>) -> bool {
        console.is_some_and(|c| !(self.first..=self.last).contains(&c))
    }
}

impl Router {
    fn notice(&self, notice: BrokerNotice) {
        let _ = self.events.send(HallEvent::Broker(notice));
    }

    fn publish(&mut self, topic: &str, payload: &[u8], retained: bool) {
        let Some((board, kind)) = BoardTopics::parse(topic) else {
            return;
        };
        if !locked(&self.attached).contains(&board) {
            return;
        }
        let message = match kind {
            TopicKind::Events => match Envelope::decode(payload) {
                Ok(envelope) => Intake::Frame { board, envelope },
                Err(error) => {
                    let count = self.malformed.entry(board).or_default();
                    *count += 1;
                    if count.is_power_of_two() {
                        let count = *count;
                        self.notice(BrokerNotice::Malformed {
                            board,
                            count,
                            why: error.to_string(),
                        });
                    }
                    return;
                }
            },
            TopicKind::Status => match Status::decode(payload) {
                Some(status) => Intake::Status { board, status },
                None => return,
            },
            TopicKind::Ack => {
                // A retained one may be this console's own from an earlier run.
                let console = Ack::decode_with(payload).ok().and_then(|(_, c)| c);
                if !retained && self.connections.another(console) && self.shared.insert(board) {
                    self.notice(BrokerNotice::Shared { board });
                }
                return;
            }
            TopicKind::Cmd => return,
        };
        if self.intake.try_send(message).is_err() {
            // The board sends it again: it is not acknowledged.
            self.dropped += 1;
            if self.dropped.is_power_of_two() {
                self.notice(BrokerNotice::Dropped {
                    count: self.dropped,
                });
            }
        }
    }
}

async fn route(mut eventloop: EventLoop, mut r: Router) {
    let mut down = true;
    let mut said_down = false;
    // A new connection the intake is still to hear of (its queue was full).
    let mut connected: Option<u64> = None;
    loop {
        if let Some(console) = connected {
            if r.intake.try_send(Intake::Connected { console }).is_ok() {
                connected = None;
            }
        }
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                for board in locked(&r.attached).iter() {
                    subscribe(&r.client, *board);
                }
                // After the subscriptions (a client's packets are taken in order): the
                // boards' answer to the acks this brings finds the console listening.
                connected = Some(r.connections.next());
                down = false;
                said_down = false;
                r.notice(BrokerNotice::Reached { url: r.url.clone() });
            }
            Ok(Event::Incoming(Packet::Publish(p))) => r.publish(&p.topic, &p.payload, p.retain),
            Ok(_) => {}
            Err(ConnectionError::ConnectionRefused(
                code @ (ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized),
            )) => {
                r.notice(BrokerNotice::Refused {
                    url: r.url.clone(),
                    why: kriegspiel_net::refusal(code).to_owned(),
                });
                return;
            }
            Err(error) => {
                if !said_down {
                    said_down = true;
                    r.notice(BrokerNotice::Down {
                        url: r.url.clone(),
                        why: kriegspiel_net::Plainly(&error).to_string(),
                        was_up: !down,
                    });
                }
                down = true;
                tokio::time::sleep(kriegspiel_net::retry_delay(RETRY)).await;
            }
        }
    }
}
