//! The driver's decisions without I/O: bytes and the time go in; commands to write, reports
//! and "close the port" come out.
//!
//! A connection goes: reset and version request until a version comes back (the "is this a
//! DGT board" test); the serial numbers; update mode (field updates only) and a first
//! dump; then settle-then-dump on field updates, and the serial number as a pulse.

use std::time::Duration;

use shakmaty::Color;

use crate::codes::{Code, Orientation, Placement};
use crate::event::{Counters, DgtEvent, Identity, LostReason, Orientations, Report};
use crate::frame::{Command, Decoder, FrameError, Message};
use crate::policy::{Liveness, Outbox, Pulse, Settle, Timing};

/// What the core needs to know about the board it drives.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub timing: Timing,
    /// Whose men tell the orientation (the owner's king and rooks in their start squares).
    pub owner: Option<Color>,
    /// A fixed orientation: no detection.
    pub orientation: Option<Orientation>,
    /// Orientations remembered by serial number, shared between drivers.
    pub orientations: Orientations,
}

/// What the I/O side does after feeding the core.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Step {
    /// Reports to deliver, in order.
    pub reports: Vec<Report>,
    /// Bytes to write now (at most one paced command).
    pub outgoing: Vec<u8>,
    /// Close the port; reopen it after a pause.
    pub close: bool,
}

#[derive(Debug, Clone)]
enum State {
    /// No port.
    Closed,
    /// Port open, version asked for at `asked`.
    Probing { asked: Duration },
    /// A DGT board: its serial numbers asked for at `asked`.
    Identifying {
        version: (u8, u8),
        asked: Duration,
        serial: Option<(String, Duration)>,
        long_serial: Option<String>,
    },
    /// In update mode.
    Ready {
        identity: Identity,
        settle: Settle,
        liveness: Liveness,
        /// The orientation once known (given, remembered or detected).
        orientation: Option<Orientation>,
        /// The last placement reported on this connection.
        reported: Option<Box<Placement>>,
        /// The fields of the last dump taken as the truth, as taken.
        fields: Option<Box<[Code; 64]>>,
    },
}

/// The PC half of the protocol for one board.
#[derive(Debug)]
pub struct DgtCore {
    settings: Settings,
    state: State,
    decoder: Decoder,
    outbox: Outbox,
    connected_before: bool,
    last_waiting: Option<String>,
    counters: Counters,
    step: Step,
}

impl DgtCore {
    pub fn new(settings: Settings) -> DgtCore {
        let outbox = Outbox::new(&settings.timing);
        DgtCore {
            settings,
            state: State::Closed,
            decoder: Decoder::new(),
            outbox,
            connected_before: false,
            last_waiting: None,
            counters: Counters::default(),
            step: Step::default(),
        }
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Whether a port is open (not closed by the core).
    pub fn is_open(&self) -> bool {
        !matches!(self.state, State::Closed)
    }

    /// The board's identity while connected.
    pub fn identity(&self) -> Option<&Identity> {
        match &self.state {
            State::Ready { identity, .. } => Some(identity),
            _ => None,
        }
    }

    /// A port was opened: start the handshake.
    pub fn opened(&mut self, now: Duration) {
        self.decoder = Decoder::new();
        self.outbox.clear();
        self.probe(now);
    }

    fn probe(&mut self, now: Duration) {
        // The first single-board command takes a board out of bus mode into idle.
        self.outbox.push(Command::Reset);
        self.outbox.push(Command::SendVersion);
        self.state = State::Probing { asked: now };
    }

    /// The port could not be opened (it is retried).
    pub fn open_failed(&mut self, error: String, now: Duration) {
        self.waiting(error, now);
    }

    /// The port failed or closed.
    pub fn port_lost(&mut self, reason: LostReason, now: Duration) {
        self.lost(reason, now);
    }

    /// Ask for a dump now: the position is reported if it differs from the last one.
    pub fn request_position(&mut self, now: Duration) {
        if let State::Ready { settle, .. } = &mut self.state {
            settle.want_now(now);
        }
    }

    /// Bytes from the board.
    pub fn received(&mut self, bytes: &[u8], now: Duration) {
        let mut messages = Vec::new();
        self.decoder.feed(bytes, |m| messages.push(m));
        let busy = self.decoder.in_frame();
        for message in messages {
            match message {
                Ok(message) => {
                    self.counters.frames += 1;
                    if let State::Ready { liveness, .. } = &mut self.state {
                        liveness.alive();
                    }
                    self.message(message, now);
                }
                Err(error) => self.count_error(error),
            }
        }
        if busy && !bytes.is_empty() {
            if let State::Ready { liveness, .. } = &mut self.state {
                liveness.alive();
            }
        }
    }

    fn count_error(&mut self, error: FrameError) {
        let c = &mut self.counters;
        match error {
            FrameError::Stray { bytes } => {
                c.stray_bytes += u64::try_from(bytes).unwrap_or(u64::MAX);
            }
            FrameError::Truncated { .. } => c.truncated += 1,
            FrameError::BadLength { .. } => c.bad_length += 1,
            FrameError::Oversize { .. } => c.oversize += 1,
        }
    }

    fn message(&mut self, message: Message, now: Duration) {
        match message {
            Message::FieldUpdate { .. } => self.counters.field_updates += 1,
            Message::BoardDump(_) => self.counters.dumps += 1,
            Message::EeMoves { .. } => self.counters.ee_moves += 1,
            _ => {}
        }
        match (&mut self.state, message) {
            (State::Probing { .. }, Message::Version { major, minor }) => {
                self.outbox.push(Command::ReturnSerialNr);
                self.outbox.push(Command::ReturnLongSerialNr);
                self.state = State::Identifying {
                    version: (major, minor),
                    asked: now,
                    serial: None,
                    long_serial: None,
                };
            }
            (State::Identifying { serial, .. }, Message::SerialNumber(s)) => {
                *serial = Some((s, now));
                self.identified(now);
            }
            (State::Identifying { long_serial, .. }, Message::LongSerialNumber(s)) => {
                *long_serial = Some(s);
                self.identified(now);
            }
            (State::Ready { settle, .. }, Message::FieldUpdate { field, .. }) => {
                settle.field_changed(field, now);
            }
            (State::Ready { .. }, Message::BoardDump(fields)) => self.dumped(&fields, now),
            // Everything else (the pulse's answers, clock messages, a move log, anything
            // before the board is ready) only proves the board is there.
            _ => {}
        }
    }

    /// Once the serial number is in (and the long one, or its wait is over): update mode
    /// and the first dump.
    fn identified(&mut self, now: Duration) {
        let State::Identifying {
            version,
            serial: Some((serial, at)),
            long_serial,
            ..
        } = &self.state
        else {
            return;
        };
        if long_serial.is_none() && now.saturating_sub(*at) < self.settings.timing.long_serial_wait
        {
            return;
        }
        let identity = Identity {
            version: *version,
            serial: serial.clone(),
            long_serial: long_serial.clone(),
        };
        let orientation = self
            .settings
            .orientation
            .or_else(|| self.settings.orientations.get(identity.key()));
        let mut settle = Settle::new(&self.settings.timing);
        settle.want_now(now);
        self.outbox.push(Command::SendUpdateBoard);
        let event = if self.connected_before {
            DgtEvent::Back(identity.clone())
        } else {
            DgtEvent::Connected(identity.clone())
        };
        self.connected_before = true;
        self.last_waiting = None;
        self.state = State::Ready {
            identity,
            settle,
            liveness: Liveness::new(&self.settings.timing, now),
            orientation,
            reported: None,
            fields: None,
        };
        self.report(event, now);
    }

    /// A dump arrived: if it is the truth, orient it and report it if it is news. A square
    /// still changing when it was taken (a dump at the limit, a man flickering for seconds)
    /// keeps what the last dump taken showed: his passing absence is no lift, which the table
    /// would take for a touch (attack review).
    fn dumped(&mut self, dump: &[Code; 64], now: Duration) {
        let State::Ready {
            identity,
            settle,
            orientation,
            reported,
            fields: last,
            ..
        } = &mut self.state
        else {
            return;
        };
        if !settle.dumped() {
            return;
        }
        let mut fields = *dump;
        if let Some(last) = last.as_deref() {
            for field in settle.restless(now) {
                fields[field] = last[field];
            }
        }
        *last = Some(Box::new(fields));
        let fields = &fields;
        self.counters.settled_dumps += 1;
        if orientation.is_none() {
            if let Some(found) = self
                .settings
                .owner
                .and_then(|owner| Orientation::detect(fields, owner))
            {
                self.settings.orientations.remember(identity.key(), found);
                *orientation = Some(found);
            }
        }
        let placement = Placement::from_fields(
            fields,
            orientation.unwrap_or_default(),
            orientation.is_some(),
        );
        if reported.as_deref() == Some(&placement) {
            return;
        }
        *reported = Some(Box::new(placement.clone()));
        self.counters.positions += 1;
        self.report(DgtEvent::Position(placement), now);
    }

    /// The clocks: handshake retries, the settle timer, the pulse.
    pub fn tick(&mut self, now: Duration) {
        let timing = self.settings.timing;
        match &mut self.state {
            State::Closed => {}
            State::Probing { asked } => {
                if now.saturating_sub(*asked) >= timing.handshake_retry {
                    self.waiting(
                        "no answer to the version request (not a DGT board, or switched off?)"
                            .into(),
                        now,
                    );
                    self.probe(now);
                }
            }
            State::Identifying { asked, serial, .. } => {
                if serial.is_none() && now.saturating_sub(*asked) >= timing.handshake_retry {
                    self.waiting("no answer to the serial number request".into(), now);
                    self.probe(now);
                } else {
                    self.identified(now);
                }
            }
            State::Ready {
                settle, liveness, ..
            } => {
                if settle.due(now) {
                    self.outbox.push(Command::SendBoard);
                }
                match liveness.tick(now) {
                    Pulse::Quiet => {}
                    Pulse::Ask => self.outbox.push(Command::ReturnSerialNr),
                    Pulse::Gone { missed } => self.lost(LostReason::Silent { missed }, now),
                }
            }
        }
    }

    /// What to do now: reports, and the next paced command.
    pub fn take_step(&mut self, now: Duration) -> Step {
        if self.is_open() {
            if let Some(command) = self.outbox.take(now) {
                if let (Command::SendBoard, State::Ready { settle, .. }) =
                    (command, &mut self.state)
                {
                    settle.asked(now);
                }
                self.counters.commands += 1;
                self.step.outgoing.push(command.byte());
            }
        }
        std::mem::take(&mut self.step)
    }

    fn lost(&mut self, reason: LostReason, now: Duration) {
        match std::mem::replace(&mut self.state, State::Closed) {
            State::Ready { .. } => {
                self.counters.lost += 1;
                self.report(DgtEvent::Lost(reason), now);
            }
            State::Probing { .. } | State::Identifying { .. } => {
                self.waiting(reason.to_string(), now);
            }
            State::Closed => {}
        }
        self.outbox.clear();
        self.step.close = true;
    }

    fn waiting(&mut self, why: String, now: Duration) {
        if self.last_waiting.as_ref() != Some(&why) {
            self.last_waiting = Some(why.clone());
            self.report(DgtEvent::Waiting(why), now);
        }
    }

    fn report(&mut self, event: DgtEvent, at: Duration) {
        self.step.reports.push(Report { at, event });
    }
}

#[cfg(test)]
#[path = "core_tests.rs"]
mod tests;
