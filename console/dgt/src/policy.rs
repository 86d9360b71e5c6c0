//! The driver's timing decisions, each a small state machine that is told the time: when
//! to ask for a dump, when the board is gone, when a command may go out, when to reopen.

use std::collections::VecDeque;
use std::time::Duration;

use crate::frame::Command;

/// How a board is connected: Bluetooth boards scan at half speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkKind {
    #[default]
    Usb,
    Bluetooth,
}

impl LinkKind {
    /// Bluetooth for an RFCOMM device (`/dev/rfcommN`), else USB or serial.
    pub fn of_path(path: &std::path::Path) -> LinkKind {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("rfcomm") {
            LinkKind::Bluetooth
        } else {
            LinkKind::Usb
        }
    }
}

/// The driver's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Quiet time after the last field update before a dump is asked for. Updates within
    /// one move come in any order and a badly placed man flickers, so only a dump taken
    /// once the board is quiet counts.
    pub settle: Duration,
    /// A dump is asked for after this long even if updates never stop (a man flickering
    /// for good), so the position cannot freeze.
    pub settle_limit: Duration,
    /// A dump not received this long after asking is asked for again.
    pub dump_timeout: Duration,
    /// How long the handshake waits for a version or serial number reply before starting
    /// again with a reset.
    pub handshake_retry: Duration,
    /// How long to wait for the optional long serial number after the short one.
    pub long_serial_wait: Duration,
    /// The serial number is asked for this often while connected: the board's pulse.
    pub liveness_interval: Duration,
    /// A pulse request unanswered (nothing at all heard) for this long is missed.
    pub liveness_reply: Duration,
    /// This many missed pulses in a row and the board is gone.
    pub missed_limit: u32,
    /// Least time between two commands: the board holds only about ten bytes of input.
    pub pace: Duration,
    /// First pause before reopening a lost port; it doubles up to `reopen_max`.
    pub reopen_min: Duration,
    pub reopen_max: Duration,
}

impl Timing {
    /// A board on USB or a serial line: it scans about every 225 ms.
    pub fn usb() -> Timing {
        Timing {
            settle: Duration::from_millis(250),
            settle_limit: Duration::from_secs(2),
            dump_timeout: Duration::from_secs(1),
            handshake_retry: Duration::from_secs(2),
            long_serial_wait: Duration::from_millis(300),
            liveness_interval: Duration::from_secs(1),
            liveness_reply: Duration::from_millis(500),
            missed_limit: 2,
            pace: Duration::from_millis(50),
            reopen_min: Duration::from_millis(250),
            reopen_max: Duration::from_secs(2),
        }
    }

    /// A Bluetooth board: it scans at half speed and answers later.
    pub fn bluetooth() -> Timing {
        Timing {
            settle: Duration::from_millis(500),
            settle_limit: Duration::from_secs(4),
            dump_timeout: Duration::from_secs(2),
            long_serial_wait: Duration::from_millis(600),
            liveness_reply: Duration::from_secs(1),
            ..Timing::usb()
        }
    }

    /// The timing for a link kind.
    pub fn for_link(kind: LinkKind) -> Timing {
        match kind {
            LinkKind::Usb => Timing::usb(),
            LinkKind::Bluetooth => Timing::bluetooth(),
        }
    }
}

impl Default for Timing {
    fn default() -> Self {
        Timing::usb()
    }
}

/// Settle-then-dump: field updates only say that something changed; once they stop for
/// the settle time, ask for a dump, and take only a dump asked for after the last change
/// as the truth.
#[derive(Debug, Clone)]
pub struct Settle {
    settle: Duration,
    limit: Duration,
    timeout: Duration,
    /// The first change not yet covered by a dump request.
    wanted_since: Option<Duration>,
    last_change: Duration,
    /// A dump is wanted at once (connection, a lost dump, a caller's request).
    force: bool,
    asked_at: Option<Duration>,
    /// When each field last changed: a dump taken at the limit, while a man still flickers,
    /// must not count his square's passing state ([`Settle::restless`]).
    field_changed: Box<[Option<Duration>; 64]>,
}

impl Settle {
    pub fn new(timing: &Timing) -> Settle {
        Settle {
            settle: timing.settle,
            limit: timing.settle_limit,
            timeout: timing.dump_timeout,
            wanted_since: None,
            last_change: Duration::ZERO,
            force: false,
            asked_at: None,
            field_changed: Box::new([None; 64]),
        }
    }

    /// A field update arrived.
    pub fn changed(&mut self, now: Duration) {
        self.wanted_since.get_or_insert(now);
        self.last_change = now;
    }

    /// A field update for `field` (0 to 63, the dump's order) arrived.
    pub fn field_changed(&mut self, field: u8, now: Duration) {
        self.changed(now);
        if let Some(at) = self.field_changed.get_mut(usize::from(field)) {
            *at = Some(now);
        }
    }

    /// The fields that changed within the settle time before `now`: still moving when a
    /// dump was taken at the limit (a flickering man, a hand still at work). A settled dump
    /// has none.
    pub fn restless(&self, now: Duration) -> impl Iterator<Item = usize> + '_ {
        self.field_changed
            .iter()
            .enumerate()
            .filter(move |(_, at)| at.is_some_and(|at| now.saturating_sub(at) < self.settle))
            .map(|(field, _)| field)
    }

    /// Ask for a dump as soon as possible.
    pub fn want_now(&mut self, now: Duration) {
        self.wanted_since.get_or_insert(now);
        self.force = true;
    }

    /// Whether a dump request should go out now (also retires a request that went
    /// unanswered for too long).
    pub fn due(&mut self, now: Duration) -> bool {
        if let Some(asked) = self.asked_at {
            if now.saturating_sub(asked) < self.timeout {
                return false;
            }
            self.asked_at = None;
            self.want_now(now);
        }
        self.wanted_since.is_some_and(|first| {
            self.force
                || now.saturating_sub(self.last_change) >= self.settle
                || now.saturating_sub(first) >= self.limit
        })
    }

    /// The dump request went out.
    pub fn asked(&mut self, now: Duration) {
        self.asked_at = Some(now);
        self.wanted_since = None;
        self.force = false;
    }

    /// A dump arrived: true when it is the truth (it answers a request and nothing changed
    /// since that request went out). A dump nobody asked for, or one overtaken by updates,
    /// is not; the updates have already scheduled the next request.
    pub fn dumped(&mut self) -> bool {
        let answered = self.asked_at.take().is_some();
        answered && self.wanted_since.is_none()
    }

    /// Whether nothing is pending: no change uncovered, no request unanswered.
    pub fn is_quiet(&self) -> bool {
        self.wanted_since.is_none() && self.asked_at.is_none()
    }
}

/// The board's pulse: the serial number is asked for every interval; when `missed_limit`
/// requests in a row go unanswered — nothing at all heard from the board within
/// `liveness_reply` of each — it is gone. Any whole frame, or bytes of a long frame under
/// way (the move log keeps a board busy for seconds), is a sign of life.
#[derive(Debug, Clone)]
pub struct Liveness {
    interval: Duration,
    reply: Duration,
    limit: usize,
    next_ask: Duration,
    /// Requests since the last sign of life (at most `limit` kept).
    unanswered: Vec<Duration>,
}

/// What the pulse says at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pulse {
    Quiet,
    /// Ask for the serial number now.
    Ask,
    /// The board missed this many pulses in a row: it is gone.
    Gone {
        missed: u32,
    },
}

impl Liveness {
    /// The first request goes out one interval after `now`.
    pub fn new(timing: &Timing, now: Duration) -> Liveness {
        let limit = usize::try_from(timing.missed_limit.clamp(1, 16)).unwrap_or(1);
        Liveness {
            interval: timing.liveness_interval,
            reply: timing.liveness_reply,
            limit,
            next_ask: now + timing.liveness_interval,
            unanswered: Vec::with_capacity(limit),
        }
    }

    /// The board said something.
    pub fn alive(&mut self) {
        self.unanswered.clear();
    }

    pub fn tick(&mut self, now: Duration) -> Pulse {
        if self.unanswered.len() >= self.limit
            && self
                .unanswered
                .last()
                .is_some_and(|&asked| now.saturating_sub(asked) >= self.reply)
        {
            return Pulse::Gone {
                missed: u32::try_from(self.unanswered.len()).unwrap_or(u32::MAX),
            };
        }
        if now >= self.next_ask {
            self.next_ask = now + self.interval;
            if self.unanswered.len() < self.limit {
                self.unanswered.push(now);
            }
            return Pulse::Ask;
        }
        Pulse::Quiet
    }
}

/// Commands waiting to go out, one per `pace`. Bounded: a command already waiting is not
/// queued twice, and beyond [`Outbox::CAPACITY`] new ones are dropped (and counted).
#[derive(Debug, Clone)]
pub struct Outbox {
    pace: Duration,
    queue: VecDeque<Command>,
    last_sent: Option<Duration>,
    dropped: u64,
}

impl Outbox {
    /// More waiting commands than any handshake needs.
    pub const CAPACITY: usize = 16;

    pub fn new(timing: &Timing) -> Outbox {
        Outbox {
            pace: timing.pace,
            queue: VecDeque::with_capacity(Self::CAPACITY),
            last_sent: None,
            dropped: 0,
        }
    }

    /// Queues a command (a duplicate of one still waiting is merged with it).
    pub fn push(&mut self, command: Command) {
        if self.queue.contains(&command) {
            return;
        }
        if self.queue.len() >= Self::CAPACITY {
            self.dropped += 1;
            return;
        }
        self.queue.push_back(command);
    }

    /// The next command, if its turn has come.
    pub fn take(&mut self, now: Duration) -> Option<Command> {
        if self
            .last_sent
            .is_some_and(|last| now.saturating_sub(last) < self.pace)
        {
            return None;
        }
        let command = self.queue.pop_front()?;
        self.last_sent = Some(now);
        Some(command)
    }

    /// Forgets what waits (the port closed).
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Commands dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// Pauses between attempts to reopen a board: doubling from `reopen_min` to `reopen_max`,
/// back to the start once a board answers.
#[derive(Debug, Clone)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(timing: &Timing) -> Backoff {
        Backoff {
            min: timing.reopen_min,
            max: timing.reopen_max.max(timing.reopen_min),
            next: timing.reopen_min,
        }
    }

    /// The pause before the next attempt.
    pub fn next_pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = (self.next * 2).min(self.max);
        pause
    }

    /// A board answered: start again from the shortest pause.
    pub fn reset(&mut self) {
        self.next = self.min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_dump_is_asked_for_once_updates_stop_for_the_settle_time() {
        let mut s = Settle::new(&Timing::usb());
        assert!(!s.due(ms(0)));
        // A move: three updates 100 ms apart (new square, old square, a flicker).
        for t in [1000, 1100, 1200] {
            s.changed(ms(t));
            assert!(!s.due(ms(t)));
        }
        assert!(!s.due(ms(1449)));
        assert!(s.due(ms(1450)));
        s.asked(ms(1450));
        assert!(!s.due(ms(1500)));
        assert!(s.dumped(), "the answer to a quiet request is the truth");
        assert!(s.is_quiet());
        assert!(!s.due(ms(5000)));
    }

    #[test]
    fn a_dump_overtaken_by_updates_is_not_the_truth() {
        let mut s = Settle::new(&Timing::usb());
        s.changed(ms(0));
        assert!(s.due(ms(250)));
        s.asked(ms(250));
        s.changed(ms(280));
        assert!(!s.dumped());
        assert!(!s.due(ms(500)));
        assert!(s.due(ms(530)));
        s.asked(ms(530));
        assert!(s.dumped());
        // Nobody asked for this one.
        assert!(!s.dumped());
    }

    #[test]
    fn endless_updates_still_get_a_dump_at_the_limit_and_a_lost_dump_is_asked_again() {
        let t = Timing::usb();
        let mut s = Settle::new(&t);
        let mut asked = None;
        for step in 0..40 {
            let now = ms(step * 100);
            s.changed(now);
            if s.due(now) {
                asked = Some(now);
                break;
            }
        }
        assert_eq!(asked, Some(t.settle_limit));
        s.asked(t.settle_limit);
        // The answer never comes: asked again after the dump timeout, not before.
        assert!(!s.due(t.settle_limit + ms(999)));
        assert!(s.due(t.settle_limit + ms(1000)));
        s.asked(t.settle_limit + ms(1000));
        assert!(s.dumped());
    }

    #[test]
    fn want_now_asks_at_once() {
        let mut s = Settle::new(&Timing::bluetooth());
        s.want_now(ms(10));
        assert!(s.due(ms(10)));
        s.asked(ms(10));
        assert!(s.dumped());
    }

    #[test]
    fn the_pulse_asks_every_second_and_a_silent_board_is_gone_after_two_misses() {
        let t = Timing::usb();
        let mut l = Liveness::new(&t, ms(0));
        let mut asks = Vec::new();
        let mut gone = None;
        for step in 0..=100 {
            let now = ms(step * 50);
            match l.tick(now) {
                Pulse::Ask => {
                    asks.push(step * 50);
                    // The board answers the first two requests.
                    if asks.len() <= 2 {
                        l.alive();
                    }
                }
                Pulse::Gone { missed } => {
                    gone = Some((step * 50, missed));
                    break;
                }
                Pulse::Quiet => {}
            }
        }
        assert_eq!(asks, [1000, 2000, 3000, 4000]);
        // Silent since the answer at 2 s: requests at 3 and 4 s, gone 500 ms after the 2nd.
        assert_eq!(gone, Some((4500, 2)));
    }

    #[test]
    fn the_outbox_paces_merges_and_bounds() {
        let mut o = Outbox::new(&Timing::usb());
        o.push(Command::Reset);
        o.push(Command::SendVersion);
        o.push(Command::SendVersion);
        assert_eq!(o.take(ms(0)), Some(Command::Reset));
        assert_eq!(o.take(ms(49)), None);
        assert_eq!(o.take(ms(50)), Some(Command::SendVersion));
        assert_eq!(o.take(ms(200)), None);
        assert!(o.is_empty());
        o.push(Command::SendBoard);
        o.clear();
        assert_eq!(o.take(ms(1000)), None);
        assert_eq!(o.dropped(), 0);
    }

    #[test]
    fn backoff_doubles_to_its_ceiling_and_resets() {
        let mut b = Backoff::new(&Timing::usb());
        let pauses: Vec<u64> = (0..6).map(|_| b.next_pause().as_millis() as u64).collect();
        assert_eq!(pauses, [250, 500, 1000, 2000, 2000, 2000]);
        b.reset();
        assert_eq!(b.next_pause(), ms(250));
    }

    #[test]
    fn bluetooth_ports_are_told_by_name() {
        use std::path::Path;
        assert_eq!(
            LinkKind::of_path(Path::new("/dev/rfcomm0")),
            LinkKind::Bluetooth
        );
        assert_eq!(LinkKind::of_path(Path::new("/dev/ttyACM0")), LinkKind::Usb);
        assert_eq!(Timing::for_link(LinkKind::Bluetooth).settle, ms(500));
        assert_eq!(Timing::for_link(LinkKind::Usb).settle, ms(250));
    }
}
