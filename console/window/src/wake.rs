//! How often the event reader wakes the window: at most once per [`WAKE_INTERVAL`], and
//! always once more after the last change (a change that came too soon is drawn when the
//! interval has passed, never dropped). Every wake costs a whole frame (under software
//! rendering about 15 ms of a core), so a burst of hall events is one frame, not dozens.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The shortest time between two wakes: at most four frames a second for hall events.
pub const WAKE_INTERVAL: Duration = Duration::from_millis(250);

/// When the next wake may come; time is passed in.
#[derive(Debug, Clone)]
pub struct WakeLimit {
    interval: Duration,
    last: Option<Instant>,
}

impl WakeLimit {
    pub fn new(interval: Duration) -> WakeLimit {
        WakeLimit {
            interval,
            last: None,
        }
    }

    /// A change arrived at `now`: the instant the window should be woken for it (`now`, or
    /// when the interval since the last wake has passed).
    pub fn due(&self, now: Instant) -> Instant {
        match self.last {
            Some(last) => now.max(last + self.interval),
            None => now,
        }
    }

    /// The window was woken at `at`.
    pub fn woke(&mut self, at: Instant) {
        self.last = Some(at);
    }
}

/// A thread that calls `wake` for the changes signalled on the returned sender, at most
/// once per `interval`, the last change always followed by a wake. It ends (after a last
/// wake for any change still pending) when the sender is dropped.
pub fn spawn_waker(
    interval: Duration,
    wake: impl Fn() + Send + 'static,
) -> std::io::Result<mpsc::Sender<()>> {
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("window-wake".to_owned())
        .spawn(move || {
            let mut limit = WakeLimit::new(interval);
            // Each message is a change already in the store: wait for the next one, then
            // until the limit allows, taking in whatever else comes meanwhile.
            while rx.recv().is_ok() {
                let due = limit.due(Instant::now());
                loop {
                    let left = due.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match rx.recv_timeout(left) {
                        Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            std::thread::sleep(due.saturating_duration_since(Instant::now()));
                            break;
                        }
                    }
                }
                while rx.try_recv().is_ok() {}
                let now = Instant::now();
                wake();
                limit.woke(now);
            }
        })?;
    Ok(tx)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn wakes_come_at_most_once_an_interval_and_the_last_change_is_never_dropped() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut l = WakeLimit::new(ms(250));
        // The first change wakes at once.
        assert_eq!(l.due(t0), t0);
        l.woke(t0);
        // Changes within the interval wait for its end, not for another interval each.
        assert_eq!(l.due(t0 + ms(10)), t0 + ms(250));
        assert_eq!(l.due(t0 + ms(200)), t0 + ms(250));
        l.woke(t0 + ms(250));
        // A change long after the last wake wakes at once.
        assert_eq!(l.due(t0 + ms(2000)), t0 + ms(2000));
    }

    #[test]
    fn a_burst_of_changes_is_two_wakes_the_last_after_the_burst() {
        let woken = Arc::new(AtomicUsize::new(0));
        let w = woken.clone();
        let tx = spawn_waker(Duration::from_millis(300), move || {
            w.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        let start = Instant::now();
        for _ in 0..200 {
            tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        let burst = start.elapsed();
        std::thread::sleep(Duration::from_millis(700));
        let n = woken.load(Ordering::SeqCst);
        // One wake at once, then one per 300 ms while the burst lasted, then the trailing one.
        let most = 2 + (burst.as_millis() / 300) as usize;
        assert!(
            (2..=most).contains(&n),
            "{n} wakes for 200 changes in {burst:?}"
        );
        drop(tx);
    }
}
