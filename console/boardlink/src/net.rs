//! A board on the network: its frames come in order (the hall's intake sees to that), each
//! with its outbox number, and go through the same [`LinkCore`] as a serial line's bytes.
//!
//! Only the notion of "gone" differs. The broker's stream is reliable: a board cut off for
//! a while sends what it kept once it is back, so silence marks the board down without
//! closing the link, and the frames that follow are applied as they come, not thrown away
//! by a resync. A new epoch (the board restarted) is a resync: a closed and reopened link.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, MissedTickBehavior};

use crate::core::{LinkCore, Timing};
use crate::event::{DisconnectReason, Health, LinkEvent, NetKey, Report};
use crate::io::{BoardLinkHandle, Command, LinkConfig};
use crate::progress::Progress;
use crate::silence::Silence;

/// What the hall's intake hands a networked board's link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetInput {
    /// Frames up to this one were applied before the console restarted: their reports are
    /// not given again. Comes before any frame.
    Applied(NetKey),
    /// The next frame in order; `made_ms`: when the board made it, on this machine's
    /// clock (Unix ms).
    Frame {
        key: NetKey,
        made_ms: u64,
        bytes: Vec<u8>,
    },
    /// The board restarted: what follows is a new epoch, from its own hello.
    NewEpoch,
    /// The console's journal dropped the frames between the last one and the next (all
    /// applied, their result in the next, a snapshot): not a gap, nothing to resync.
    Compacted,
    /// The broker says the board went away (its last will) or came back.
    Present(bool),
    /// The board stopped cleanly with everything acknowledged: nothing is on its way.
    Stopped,
}

/// How far back the link's clock reaches.
const EARLIER: Duration = Duration::from_secs(3600);

/// Starts links to boards on the network.
#[derive(Debug)]
pub struct NetLink;

impl NetLink {
    /// Runs a networked board's link on the current tokio runtime: `inputs` from the
    /// intake, console frames handed to `send` for the board's command topic.
    pub fn spawn(
        inputs: mpsc::Receiver<NetInput>,
        send: impl Fn(Vec<u8>) + Send + 'static,
        config: LinkConfig,
    ) -> (BoardLinkHandle, mpsc::Receiver<Report>) {
        let (reports_tx, reports_rx) = mpsc::channel(config.channel_capacity.max(1));
        let (health_tx, health_rx) = watch::channel(Health::default());
        let (commands_tx, commands_rx) = mpsc::unbounded_channel();
        let (progress_tx, progress_rx) = watch::channel(Progress::default());
        // The link's clock starts an hour back, so that a frame made before the link
        // started (kept by the board while the console was down) still has its time.
        let now = Instant::now();
        let started = now.checked_sub(EARLIER).unwrap_or(now);
        let driver = Driver {
            core: LinkCore::new(Timing {
                // Liveness is the driver's: the core must never close a reliable stream.
                silence_timeout: Duration::MAX,
                unanswered_after: None,
                ..config.timing
            }),
            silence: config.timing.silence_timeout,
            applied: None,
            up: false,
            heard: None,
            reports: reports_tx,
            health: health_tx,
            started,
            send: Box::new(send),
            pending_down: None,
            said_down: false,
            announced: false,
            pending_back: None,
            progress: progress_tx,
            read_at: None,
        };
        let task = tokio::spawn(driver.run(inputs, commands_rx, config.tick_interval));
        (
            BoardLinkHandle {
                task,
                health: health_rx,
                commands: commands_tx,
                started,
                progress: Some(progress_rx),
            },
            reports_rx,
        )
    }
}

struct Driver {
    core: LinkCore,
    silence: Duration,
    applied: Option<NetKey>,
    /// Whether the board is taken to be there (a frame came within the silence time).
    up: bool,
    /// When the latest frame came, while the board is up.
    heard: Option<Silence>,
    reports: mpsc::Sender<Report>,
    health: watch::Sender<Health>,
    started: Instant,
    send: Box<dyn Fn(Vec<u8>) + Send>,
    /// A "board gone" noticed by the driver, delivered with the next flush.
    pending_down: Option<Report>,
    /// Whether the board was said gone in this boot (its return is then said too).
    said_down: bool,
    /// Whether the board was said there (connected, or back): a console restarted on its
    /// journal applied the board's hello before, and says it there at its first frame.
    announced: bool,
    /// A "board back" noticed by the driver, delivered before the frame that brought it.
    pending_back: Option<Report>,
    progress: watch::Sender<Progress>,
    /// When the frame whose reports are being delivered was read.
    read_at: Option<Duration>,
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Driver {
    async fn run(
        mut self,
        mut inputs: mpsc::Receiver<NetInput>,
        mut commands: mpsc::UnboundedReceiver<Command>,
        tick: Duration,
    ) {
        let mut ticker = tokio::time::interval(tick);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let mut commands_open = true;
        self.core.opened(self.now());
        if !self.flush(None).await {
            return;
        }
        loop {
            let key = tokio::select! {
                input = inputs.recv() => match input {
                    Some(input) => self.input(input),
                    None => return,
                },
                _ = ticker.tick() => {
                    self.tick();
                    None
                }
                command = commands.recv(), if commands_open => {
                    match command {
                        Some(Command::RequestSnapshot) => self.core.request_snapshot(self.now()),
                        None => commands_open = false,
                    }
                    None
                }
            };
            if !self.flush(key).await {
                return;
            }
            // Only once its reports are handed over: a table must not take the board's
            // stream for further along than the reports it can read.
            if let Some(read) = self.read_at.take() {
                self.progressed(read);
            }
        }
    }

    fn now(&self) -> Duration {
        self.started.elapsed()
    }

    /// Feeds an input to the core; the key of the frame its reports come from.
    fn input(&mut self, input: NetInput) -> Option<NetKey> {
        let now = self.now();
        match input {
            NetInput::Applied(key) => self.applied = Some(key),
            NetInput::Frame {
                key,
                made_ms,
                bytes,
            } => {
                self.heard = Some(Silence::heard(now));
                if !self.up {
                    self.up = true;
                    let resumed = !self.announced && self.applied.is_some();
                    if std::mem::take(&mut self.said_down) || resumed {
                        self.pending_back = Some(Report {
                            event: LinkEvent::Back,
                            health: self.core.health(),
                            seq: None,
                            key: None,
                            at: self.core.made_through().unwrap_or_default().min(now),
                        });
                    }
                    // Back after a silence: the table learns the board is there again from
                    // a snapshot, sent after whatever the board kept meanwhile.
                    if self.core.occupancy().is_some() {
                        self.core.request_snapshot(now);
                    }
                }
                // How long the frame waited on the way that the board itself knows of.
                let kept = Duration::from_millis(wall_ms().saturating_sub(made_ms));
                if self.core.received_kept(&bytes, now, kept) {
                    self.read_at = Some(now);
                }
                return Some(key);
            }
            NetInput::Compacted => self.core.forget_seq(),
            NetInput::NewEpoch => {
                self.core.port_lost(DisconnectReason::Closed, now);
                self.core.opened(now);
                self.up = false;
                // The new boot's hello says it is there.
                self.said_down = false;
                self.announced = true;
            }
            NetInput::Present(present) => {
                if !present {
                    let timeout = self.silence;
                    self.down(now, DisconnectReason::Unheard { timeout });
                }
            }
            NetInput::Stopped => {
                self.progress.send_modify(|p| p.stopped = true);
                self.down(now, DisconnectReason::Stopped);
            }
        }
        None
    }

    /// Tells the tables how far the board's stream has come, its latest frame read at
    /// `read`: a frame made well before it was read means more are on their way.
    fn progressed(&mut self, read: Duration) {
        let through = self.core.made_through();
        self.progress
            .send_replace(Progress::delivered(through, read));
    }

    fn tick(&mut self) {
        let now = self.now();
        self.core.tick(now);
        if self
            .heard
            .as_mut()
            .is_some_and(|h| h.silent_for(now) >= self.silence)
        {
            let timeout = self.silence;
            self.down(now, DisconnectReason::Unheard { timeout });
        }
    }

    /// The board is gone for now (`reason`: unheard, or stopped): said once, the link stays
    /// as it was.
    fn down(&mut self, now: Duration, reason: DisconnectReason) {
        if std::mem::replace(&mut self.up, false) {
            self.heard = None;
            self.said_down = true;
            let mut health = self.core.health();
            health.disconnects += 1;
            self.pending_down = Some(Report {
                event: LinkEvent::Disconnected { reason },
                health,
                seq: None,
                key: None,
                // Placed after the last frame, not at the moment it was noticed: the frames
                // the board kept meanwhile, made earlier, come after it in the stream.
                at: self.core.made_through().unwrap_or_default().min(now),
            });
        }
    }

    /// Delivers what the core made (stamped with `key`, held back if already applied) and
    /// sends its frames; false when nobody listens any more.
    async fn flush(&mut self, key: Option<NetKey>) -> bool {
        let step = self.core.take_step();
        if !step.outgoing.is_empty() {
            (self.send)(step.outgoing);
        }
        self.health.send_replace(self.core.health());
        let replayed = key.is_some_and(|k| self.applied.is_some_and(|a| k <= a));
        let back = self.pending_back.take();
        let down = self.pending_down.take();
        for mut report in back.into_iter().chain(step.reports).chain(down) {
            if matches!(report.event, LinkEvent::Connected { .. } | LinkEvent::Back) {
                self.announced = true;
            }
            if report.key.is_none() && report.seq.is_some() {
                report.key = key;
            }
            if replayed && report.seq.is_some() {
                continue;
            }
            if self.reports.send(report).await.is_err() {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::core::tests::Board;

    /// What the arbiter is told when a networked board goes: "stopped" for a board whose
    /// program ended on purpose (nothing owed), "unheard" for one gone without a word.
    #[test]
    fn a_board_that_stopped_is_said_stopped_and_one_that_vanished_unheard() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            for (last, said) in [
                (NetInput::Stopped, "stopped"),
                (NetInput::Present(false), "unheard"),
            ] {
                let (tx, rx) = mpsc::channel(16);
                let (_link, mut reports) = NetLink::spawn(rx, |_| {}, LinkConfig::default());
                tx.send(NetInput::Frame {
                    key: NetKey { epoch: 1, seq: 0 },
                    made_ms: wall_ms(),
                    bytes: Board::new().hello(),
                })
                .await
                .unwrap();
                let mut events = Vec::new();
                let mut sent_last = Some(last);
                let reason = loop {
                    let report = tokio::time::timeout(Duration::from_secs(5), reports.recv()).await;
                    let event = report.expect("a report").expect("the link runs").event;
                    if matches!(event, LinkEvent::Connected { .. }) {
                        if let Some(last) = sent_last.take() {
                            tx.send(last).await.unwrap();
                        }
                    }
                    if let LinkEvent::Disconnected { reason } = &event {
                        break reason.name();
                    }
                    events.push(event);
                };
                assert_eq!(reason, said, "{events:?}");
            }
        });
    }

    /// A stretch of play held up on the way (a console starved of the processor, a broker's
    /// queue) comes in at once; its lift and place keep the times the board gave them, not
    /// the instant they came: a table must not see a try and the next one at once.
    #[test]
    fn frames_held_up_on_the_way_keep_the_boards_timing() {
        use kriegspiel_link::BoardMsg;
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let (tx, rx) = mpsc::channel(16);
            let (_link, mut reports) = NetLink::spawn(rx, |_| {}, LinkConfig::default());
            let mut board = Board::new();
            let mut key = 0;
            let mut send = |bytes: Vec<u8>| {
                key += 1;
                // Each sent as soon as made: the delay is the network's, not the board's.
                NetInput::Frame {
                    key: NetKey { epoch: 1, seq: key },
                    made_ms: wall_ms(),
                    bytes,
                }
            };
            tx.send(send(board.hello())).await.unwrap();
            let e2 = 12;
            let occupancy = 1u64 << e2;
            let snapshot = board.frame(BoardMsg::Snapshot {
                occupancy,
                board_ms: 1_000,
            });
            tx.send(send(snapshot)).await.unwrap();
            // Made 50 and 70 ms after the snapshot, they come 400 ms after it.
            tokio::time::sleep(Duration::from_millis(400)).await;
            let lift = board.frame(BoardMsg::Lift {
                square: e2,
                board_ms: 1_050,
            });
            let place = board.frame(BoardMsg::Place {
                square: 28,
                board_ms: 1_070,
            });
            tx.send(send(lift)).await.unwrap();
            tx.send(send(place)).await.unwrap();
            let mut at = Vec::new();
            while at.len() < 3 {
                let report = tokio::time::timeout(Duration::from_secs(5), reports.recv())
                    .await
                    .expect("a report")
                    .expect("the link runs");
                if matches!(
                    report.event,
                    LinkEvent::Resync { .. } | LinkEvent::Lift { .. } | LinkEvent::Place { .. }
                ) {
                    at.push(report.at);
                }
            }
            let after = |k: usize| at[k].saturating_sub(at[0]);
            assert!(
                after(1) > Duration::from_millis(45) && after(1) < Duration::from_millis(60),
                "the lift {:?} after the snapshot",
                after(1)
            );
            assert_eq!(
                at[2] - at[1],
                Duration::from_millis(20),
                "from the lift to the place"
            );
        });
    }

    /// A board said unheard that is heard again (same boot) is said back, before what it
    /// kept: else the arbiter's last word on it stays "unheard" while it plays on.
    #[test]
    fn a_board_heard_again_after_it_was_unheard_is_said_back_before_its_kept_frames() {
        use kriegspiel_link::BoardMsg;
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let (tx, rx) = mpsc::channel(16);
            let (_link, mut reports) = NetLink::spawn(rx, |_| {}, LinkConfig::default());
            let mut board = Board::new();
            let mut seq = 0;
            let mut frame = |bytes: Vec<u8>| {
                seq += 1;
                NetInput::Frame {
                    key: NetKey { epoch: 1, seq },
                    made_ms: wall_ms(),
                    bytes,
                }
            };
            let e2 = 12;
            tx.send(frame(board.hello())).await.unwrap();
            let snapshot = board.frame(BoardMsg::Snapshot {
                occupancy: 1 << e2,
                board_ms: 1_000,
            });
            tx.send(frame(snapshot)).await.unwrap();
            tx.send(NetInput::Present(false)).await.unwrap();
            let lift = board.frame(BoardMsg::Lift {
                square: e2,
                board_ms: 1_050,
            });
            tx.send(frame(lift)).await.unwrap();
            let mut names = Vec::new();
            while !names.contains(&"lift") {
                let report = tokio::time::timeout(Duration::from_secs(5), reports.recv())
                    .await
                    .expect("a report")
                    .expect("the link runs");
                names.push(match report.event {
                    LinkEvent::Connected { .. } => "connected",
                    LinkEvent::Resync { .. } => "resync",
                    LinkEvent::Disconnected { .. } => "disconnected",
                    LinkEvent::Back => "back",
                    LinkEvent::Lift { .. } => "lift",
                    _ => continue,
                });
            }
            assert_eq!(
                names,
                ["connected", "resync", "disconnected", "back", "lift"]
            );
        });
    }
}
