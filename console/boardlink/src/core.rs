//! The link's decisions, without I/O: bytes and the current time go in, reports and bytes to
//! send come out.

use std::time::Duration;

use kriegspiel_link::{
    check_version, encode, is_occupied, with_square, without_square, BoardMs, BoardMsg, ConsoleMsg,
    Decoder, Error, Frame, SeqCheck, SeqCounter, SeqTracker, SquareIndex, MAX_FRAME,
    PROTOCOL_VERSION,
};

use crate::board_clock::BoardClock;
use crate::event::{DisconnectReason, Health, LinkEvent, Report, ResyncReason};
use crate::silence::Silence;

/// The link's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// No valid frame for this long (of the time the link was awake: `silence.rs`) means
    /// the board is gone. The board sends one at least every 500 ms, so it takes three lost
    /// frames in a row; 1.5 s after the last frame keeps "an unplugged cable is detected
    /// within 2 s" even when the unplug itself sends no hang-up.
    pub silence_timeout: Duration,
    /// How long to wait for the board's Hello or a requested snapshot before asking again.
    pub retry_interval: Duration,
    /// A port open this long without a Hello is said once (`OpenFailed`): a DGT board
    /// named without `dgt:`, a board switched off, another device. `None`: never (a
    /// networked board, whose hello comes when its program starts).
    pub unanswered_after: Option<Duration>,
}

/// What is said of a port open and greeted for `after` where no board has answered; `ever`:
/// whether a board ever answered on this link (then it is no DGT board named amiss).
pub fn unanswered(after: Duration, ever: bool) -> String {
    let hint = if ever {
        ""
    } else {
        " A DGT e-board is named dgt:PATH."
    };
    format!(
        "the port is open but no board has answered its greeting in {} s: is the board switched on and its cable in?{hint}",
        after.as_secs()
    )
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            silence_timeout: Duration::from_millis(1500),
            retry_interval: Duration::from_millis(500),
            unanswered_after: Some(Duration::from_secs(10)),
        }
    }
}

/// What the I/O side has to do after feeding the core.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Step {
    /// Reports to deliver, in order.
    pub reports: Vec<Report>,
    /// Encoded frames to write to the board.
    pub outgoing: Vec<u8>,
    /// Close the port (the board is considered gone); reopen later.
    pub close: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No port open.
    Closed,
    /// Port open, waiting for the board's Hello.
    AwaitHello { last_sent: Duration },
    /// The board speaks another protocol version.
    Refused { remote: u16 },
    /// The occupancy is unknown until the next snapshot.
    AwaitSnapshot {
        reason: ResyncReason,
        last_request: Duration,
    },
    /// The occupancy is known and kept up to date by lifts and places.
    Synced { occupancy: u64 },
}

/// The console's half of the protocol for one board.
#[derive(Debug)]
pub struct LinkCore {
    timing: Timing,
    state: State,
    decoder: Decoder<BoardMsg>,
    tracker: SeqTracker,
    tx_seq: SeqCounter,
    /// The sequence number of the frame being dispatched, for its reports.
    rx_seq: Option<u16>,
    last_accepted: Option<Frame<BoardMsg>>,
    /// The board's clock on the link's: a frame is timed by when the board made it.
    clock: BoardClock,
    /// When (link clock) the board made the latest frame: its reports carry it, and times
    /// never go backwards. `None` before the first frame.
    made: Option<Duration>,
    /// When the board was last heard, on the time the link was awake.
    heard: Silence,
    health: Health,
    opened_before: bool,
    /// A board has answered on this link (its silence later is no board named amiss).
    answered_ever: bool,
    last_open_error: Option<String>,
    /// When the port was last opened and greeted (the board's silence since is said once).
    greeted_at: Duration,
    /// The time of the call being handled: the reports it makes carry it, but for those of
    /// a frame, which carry [`LinkCore::made_through`].
    now: Duration,
    step: Step,
}

impl LinkCore {
    pub fn new(timing: Timing) -> Self {
        LinkCore {
            timing,
            state: State::Closed,
            decoder: Decoder::new(),
            tracker: SeqTracker::new(),
            tx_seq: SeqCounter::new(),
            rx_seq: None,
            last_accepted: None,
            clock: BoardClock::default(),
            made: None,
            heard: Silence::default(),
            health: Health::default(),
            opened_before: false,
            answered_ever: false,
            last_open_error: None,
            greeted_at: Duration::ZERO,
            now: Duration::ZERO,
            step: Step::default(),
        }
    }

    pub fn health(&self) -> Health {
        self.health
    }

    /// The occupancy while in sync; `None` while unknown (not connected, or awaiting a resync).
    pub fn occupancy(&self) -> Option<u64> {
        match self.state {
            State::Synced { occupancy } => Some(occupancy),
            State::Closed
            | State::AwaitHello { .. }
            | State::Refused { .. }
            | State::AwaitSnapshot { .. } => None,
        }
    }

    /// Whether a port is open (the I/O side should be reading).
    pub fn is_open(&self) -> bool {
        self.state != State::Closed
    }

    /// Everything produced since the last call.
    pub fn take_step(&mut self) -> Step {
        std::mem::take(&mut self.step)
    }

    /// The next frame's number is not checked against the last one's: the frames between
    /// were dropped on purpose (a compacted journal), not lost.
    pub fn forget_seq(&mut self) {
        self.tracker.reset();
    }

    /// The port was (re)opened: greet the board. The sequence tracker is kept, so frames the
    /// board sent while unplugged show up as a gap.
    pub fn opened(&mut self, now: Duration) {
        self.now = now;
        if self.opened_before {
            self.health.reconnects += 1;
        }
        self.opened_before = true;
        self.last_open_error = None;
        // Whatever is on the other end now may count from another moment.
        self.clock.reset();
        self.decoder.reset();
        self.heard = Silence::heard(now);
        self.greeted_at = now;
        self.state = State::AwaitHello { last_sent: now };
        self.send(ConsoleMsg::Hello {
            protocol: PROTOCOL_VERSION,
        });
        self.send(ConsoleMsg::RequestSnapshot);
    }

    /// Opening the port failed; reported once per distinct error so that retrying every
    /// 250 ms does not flood the consumer.
    pub fn open_failed(&mut self, error: String, now: Duration) {
        self.now = now;
        if self.last_open_error.as_deref() != Some(error.as_str()) {
            self.last_open_error = Some(error.clone());
            self.emit(LinkEvent::OpenFailed { error });
        }
    }

    /// The port failed or reached end of file.
    pub fn port_lost(&mut self, reason: DisconnectReason, now: Duration) {
        self.now = now;
        if self.state != State::Closed {
            self.health.disconnects += 1;
            self.state = State::Closed;
            self.step.close = true;
            self.emit(LinkEvent::Disconnected { reason });
        }
    }

    /// The consumer wants a fresh snapshot (delivered as Snapshot, or Resync if it disagrees).
    pub fn request_snapshot(&mut self, now: Duration) {
        self.now = now;
        match self.state {
            State::AwaitSnapshot { reason, .. } => {
                self.state = State::AwaitSnapshot {
                    reason,
                    last_request: now,
                };
                self.send(ConsoleMsg::RequestSnapshot);
            }
            State::AwaitHello { .. } | State::Synced { .. } => {
                self.send(ConsoleMsg::RequestSnapshot)
            }
            State::Closed | State::Refused { .. } => {}
        }
    }

    /// Bytes read from the port, as they arrived; whether they completed a frame the link
    /// took (see [`LinkCore::received_kept`]).
    pub fn received(&mut self, bytes: &[u8], now: Duration) -> bool {
        self.received_kept(bytes, now, Duration::ZERO)
    }

    /// Bytes that reached the link `kept` after the board sent them (a broker's queue).
    /// Whether they completed a frame the link took: only that tells how far the board's
    /// stream has come (half a frame, noise or a repeat tell nothing).
    pub fn received_kept(&mut self, bytes: &[u8], now: Duration, kept: Duration) -> bool {
        self.now = now;
        let heard = now.saturating_sub(kept);
        let taken = self.health.frames;
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.feed(bytes, |result| self.frame(result, now, heard));
        self.decoder = decoder;
        self.health.frames != taken
    }

    /// When (link clock) the board made the latest frame: everything it made before has
    /// been read. `None` before its first frame.
    pub fn made_through(&self) -> Option<Duration> {
        self.made
    }

    /// Time passed: silence timeout and retries.
    pub fn tick(&mut self, now: Duration) {
        self.now = now;
        if self.state == State::Closed {
            return;
        }
        // Silence means "gone" only for a board that has spoken on this port: one that has
        // not said Hello yet (not powered, still starting) is greeted again every retry
        // interval instead of being reported lost every 1.5 s.
        let timeout = self.timing.silence_timeout;
        let has_spoken = matches!(
            self.state,
            State::AwaitSnapshot { .. } | State::Synced { .. }
        );
        if has_spoken && self.heard.silent_for(now) >= timeout {
            self.port_lost(DisconnectReason::Silence { timeout }, now);
            return;
        }
        if let Some(after) = self.timing.unanswered_after.filter(|after| {
            matches!(self.state, State::AwaitHello { .. })
                && now.saturating_sub(self.greeted_at) >= *after
        }) {
            // Said once per opening, as an open that failed (the greeting goes on).
            self.open_failed(unanswered(after, self.answered_ever), now);
        }
        let retry = self.timing.retry_interval;
        match self.state {
            State::AwaitHello { last_sent } if now.saturating_sub(last_sent) >= retry => {
                self.state = State::AwaitHello { last_sent: now };
                self.send(ConsoleMsg::Hello {
                    protocol: PROTOCOL_VERSION,
                });
                self.send(ConsoleMsg::RequestSnapshot);
            }
            State::AwaitSnapshot {
                reason,
                last_request,
            } if now.saturating_sub(last_request) >= retry => {
                self.state = State::AwaitSnapshot {
                    reason,
                    last_request: now,
                };
                self.send(ConsoleMsg::RequestSnapshot);
            }
            State::Closed
            | State::AwaitHello { .. }
            | State::Refused { .. }
            | State::AwaitSnapshot { .. }
            | State::Synced { .. } => {}
        }
    }

    fn frame(&mut self, result: Result<Frame<BoardMsg>, Error>, now: Duration, heard: Duration) {
        if self.state == State::Closed {
            return;
        }
        let frame = match result {
            Ok(frame) => frame,
            Err(error) => {
                match error {
                    Error::Crc => self.health.crc_errors += 1,
                    Error::Cobs | Error::TooLong | Error::TooShort => self.health.cobs_errors += 1,
                    Error::Decode | Error::BufferTooSmall => self.health.decode_errors += 1,
                }
                return;
            }
        };
        self.heard = Silence::heard(now);
        self.health.last_heard_ms = Some(u64::try_from(now.as_millis()).unwrap_or(u64::MAX));
        if self.last_accepted == Some(frame) {
            self.health.duplicates += 1;
            return;
        }
        let broken = match self.tracker.check(frame.seq) {
            SeqCheck::First | SeqCheck::InOrder => None,
            SeqCheck::Gap { missed } => {
                self.health.gaps += 1;
                self.health.missed_frames += u64::from(missed);
                Some(ResyncReason::Gap {
                    missed: u64::from(missed),
                })
            }
            SeqCheck::Duplicate => {
                // A serial line never reorders: an older number that is not a repeat of the
                // last frame means the board started counting again.
                self.tracker.reset();
                self.tracker.check(frame.seq);
                self.clock.reset();
                Some(ResyncReason::SenderRestart)
            }
        };
        self.health.frames += 1;
        self.last_accepted = Some(frame);
        self.stamp(frame.body.board_ms(), now, heard);
        if let Some(reason) = broken {
            // A snapshot right after the break repairs it by itself.
            let request = !matches!(frame.body, BoardMsg::Snapshot { .. });
            self.lose_sync(reason, now, request);
        }
        self.rx_seq = Some(frame.seq);
        self.dispatch(frame.body, now);
        self.rx_seq = None;
    }

    /// Times the frame just read by when the board made it, as the link's clock would have
    /// seen it without delay: by the board's own time in it where it has one (see
    /// [`BoardClock`]), else by its arrival. Play held up on the way (a console starved of
    /// the processor for a second, a broker's queue) is judged with the spacing it was made
    /// with, not as one instant.
    fn stamp(&mut self, board_ms: Option<BoardMs>, now: Duration, heard: Duration) {
        let made = board_ms.map_or(heard, |b| self.clock.place(heard, b));
        self.made = Some(self.made.map_or(made, |m| made.max(m)).min(now));
    }

    fn dispatch(&mut self, body: BoardMsg, now: Duration) {
        match body {
            BoardMsg::Hello {
                protocol,
                firmware,
                board_id,
            } => match check_version(protocol) {
                Err(mismatch) => {
                    if self.state != (State::Refused { remote: protocol }) {
                        self.emit(LinkEvent::VersionMismatch {
                            local: mismatch.local,
                            remote: mismatch.remote,
                        });
                    }
                    self.state = State::Refused { remote: protocol };
                }
                Ok(()) => match self.state {
                    State::AwaitHello { .. } | State::Refused { .. } => {
                        // The snapshot was requested together with the Hello.
                        self.state = State::AwaitSnapshot {
                            reason: ResyncReason::Connected,
                            last_request: now,
                        };
                        self.answered_ever = true;
                        self.emit(LinkEvent::Connected {
                            protocol,
                            firmware,
                            board_id,
                        });
                    }
                    // An answer to a repeated Hello: nothing new.
                    State::Closed | State::AwaitSnapshot { .. } | State::Synced { .. } => {}
                },
            },
            BoardMsg::Snapshot {
                occupancy,
                board_ms,
            } => self.snapshot(occupancy, board_ms),
            BoardMsg::Lift { square, board_ms } => self.switch(square, board_ms, false, now),
            BoardMsg::Place { square, board_ms } => self.switch(square, board_ms, true, now),
            BoardMsg::Heartbeat { .. } => {}
            BoardMsg::Fault { code, board_ms } => match self.state {
                State::AwaitSnapshot { .. } | State::Synced { .. } => {
                    self.health.board_faults += 1;
                    self.emit(LinkEvent::Fault { code, board_ms });
                    self.lose_sync(ResyncReason::BoardFault, now, true);
                }
                State::Closed | State::AwaitHello { .. } | State::Refused { .. } => {}
            },
        }
    }

    fn snapshot(&mut self, occupancy: u64, board_ms: BoardMs) {
        match self.state {
            State::AwaitSnapshot { reason, .. } => {
                self.state = State::Synced { occupancy };
                self.health.resyncs += 1;
                self.emit(LinkEvent::Resync {
                    occupancy,
                    board_ms,
                    reason,
                });
            }
            State::Synced { occupancy: known } if known == occupancy => {
                self.emit(LinkEvent::Snapshot {
                    occupancy,
                    board_ms,
                });
            }
            State::Synced { occupancy: known } => {
                // The snapshot is the truth; ask for another one to confirm it.
                self.health.mismatches += 1;
                self.health.resyncs += 1;
                self.state = State::Synced { occupancy };
                self.emit(LinkEvent::Resync {
                    occupancy,
                    board_ms,
                    reason: ResyncReason::Mismatch {
                        reconstructed: known,
                    },
                });
                self.send(ConsoleMsg::RequestSnapshot);
            }
            State::Closed | State::AwaitHello { .. } | State::Refused { .. } => {}
        }
    }

    fn switch(&mut self, square: SquareIndex, board_ms: BoardMs, place: bool, now: Duration) {
        match self.state {
            State::Synced { occupancy } => {
                let consistent = square < 64 && is_occupied(occupancy, square) != place;
                if consistent {
                    if place {
                        self.state = State::Synced {
                            occupancy: with_square(occupancy, square),
                        };
                        self.emit(LinkEvent::Place { square, board_ms });
                    } else {
                        self.state = State::Synced {
                            occupancy: without_square(occupancy, square),
                        };
                        self.emit(LinkEvent::Lift { square, board_ms });
                    }
                } else {
                    self.health.mismatches += 1;
                    self.health.skipped_events += 1;
                    self.lose_sync(
                        ResyncReason::Mismatch {
                            reconstructed: occupancy,
                        },
                        now,
                        true,
                    );
                }
            }
            State::AwaitSnapshot { .. } => self.health.skipped_events += 1,
            State::Closed | State::AwaitHello { .. } | State::Refused { .. } => {}
        }
    }

    fn lose_sync(&mut self, reason: ResyncReason, now: Duration, request: bool) {
        match self.state {
            State::Synced { .. } => {
                self.state = State::AwaitSnapshot {
                    reason,
                    last_request: now,
                };
                if request {
                    self.send(ConsoleMsg::RequestSnapshot);
                }
            }
            State::AwaitSnapshot {
                reason: ResyncReason::Gap { missed: before },
                last_request,
            } => {
                if let ResyncReason::Gap { missed } = reason {
                    let reason = ResyncReason::Gap {
                        missed: before + missed,
                    };
                    self.state = State::AwaitSnapshot {
                        reason,
                        last_request,
                    };
                }
            }
            State::AwaitSnapshot { .. }
            | State::Closed
            | State::AwaitHello { .. }
            | State::Refused { .. } => {}
        }
    }

    fn send(&mut self, body: ConsoleMsg) {
        let mut buf = [0u8; MAX_FRAME];
        // Console messages are a few bytes; MAX_FRAME always holds them.
        if let Ok(len) = encode(
            &Frame {
                seq: self.tx_seq.next(),
                body,
            },
            &mut buf,
        ) {
            self.step.outgoing.extend_from_slice(&buf[..len]);
        }
    }

    fn emit(&mut self, event: LinkEvent) {
        self.step.reports.push(Report {
            event,
            health: self.health,
            seq: self.rx_seq,
            key: None,
            // What a frame caused happened when the board made it.
            at: match (self.rx_seq, self.made) {
                (Some(_), Some(made)) => made,
                _ => self.now,
            },
        });
    }
}

#[cfg(test)]
#[path = "core_tests.rs"]
pub(crate) mod tests;
