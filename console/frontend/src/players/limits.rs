//! What a terminal may cost the console: connections, handshake time, queued lines, and
//! the token buckets that limit each seat's commands and wrong codes.

use std::time::{Duration, Instant};

/// The most connections open at once, seated or not (two per table of the largest hall,
/// and spares); more are answered and closed at once.
pub const MAX_CONNECTIONS: usize = 160;

/// How long a new connection may take to say its seat.
pub const HANDSHAKE: Duration = Duration::from_secs(5);

/// Lines queued for one terminal before it counts as not reading and is cut off.
pub const QUEUE: usize = 1024;

/// Commands a seat may send in a burst, and per second after it.
pub(super) const BURST: f64 = 10.0;
pub(super) const PER_SECOND: f64 = 4.0;

/// Wrong codes a seat tolerates in a burst, and how often one more is allowed after it.
pub(super) const WRONG_BURST: f64 = 5.0;
pub(super) const WRONG_EVERY: Duration = Duration::from_secs(12);

/// How long a seat at a table this channel has not heard of yet waits for it to open.
pub(super) const TABLE_WAIT: Duration = Duration::from_secs(2);

/// The longest first line (table, colour, code, voice).
pub(super) const MAX_HELLO: usize = 256;

/// A token bucket: a burst, then a steady rate. Time is passed in.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bucket {
    tokens: f64,
    last: Instant,
    burst: f64,
    per_second: f64,
}

impl Bucket {
    pub(super) fn new(burst: f64, per_second: f64, now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            last: now,
            burst,
            per_second,
        }
    }

    /// The tokens there are at `now`.
    fn tokens_at(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        (self.tokens + elapsed * self.per_second).min(self.burst)
    }

    /// Whether a token is there, without taking it.
    pub(super) fn has(&self, now: Instant) -> bool {
        self.tokens_at(now) >= 1.0
    }

    /// Takes one token if there is one.
    pub(super) fn take(&mut self, now: Instant) -> bool {
        self.tokens = self.tokens_at(now);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}
