//! Stopping on SIGINT, SIGTERM or SIGHUP: the board's loop ends at its next scan, so that
//! a networked board can wait briefly for the console to hold its last events and say
//! "stopped" on the broker. Killed by the signal's default action it said nothing, its
//! last will said "offline", and the arbiter heard the board was lost, not stopped.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// A signal this soon after the first is the same stop: `timeout` and the shell's job
/// control send one to the program and one to its process group.
const SAME_STOP: std::time::Duration = std::time::Duration::from_millis(500);

/// Whether a stop was asked, and by which signal.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicI32>);

impl Stop {
    /// A stop no signal asks (tests, and the self-test, which a signal simply ends).
    pub fn never() -> Stop {
        Stop::default()
    }

    /// Asked by the first SIGINT, SIGTERM or SIGHUP; a second one ends the program at once.
    /// Returns once the signals are heard (at most a second): one sent just after the start
    /// is a stop, not the default action. Without a thread for the signals (the machine
    /// refused one) the signals keep their default action, as before.
    pub fn on_signals() -> Stop {
        let stop = Stop::default();
        let seen = stop.0.clone();
        let (ready, listening) = std::sync::mpsc::sync_channel(1);
        let watch = move || -> std::io::Result<()> {
            use tokio::signal::unix::{signal, SignalKind};
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let mut int = signal(SignalKind::interrupt())?;
                let mut term = signal(SignalKind::terminate())?;
                let mut hup = signal(SignalKind::hangup())?;
                let _ = ready.send(());
                let mut first = None;
                loop {
                    let number = tokio::select! {
                        _ = int.recv() => 2,
                        _ = term.recv() => 15,
                        _ = hup.recv() => 1,
                    };
                    match first {
                        None => {
                            seen.store(number, Ordering::Release);
                            first = Some(std::time::Instant::now());
                        }
                        Some(at) if at.elapsed() < SAME_STOP => {}
                        Some(_) => std::process::exit(128 + number),
                    }
                }
            })
        };
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let _ = watch();
            });
        if spawned.is_ok() {
            let _ = listening.recv_timeout(std::time::Duration::from_secs(1));
        }
        stop
    }

    /// The signal that asked the stop: its number and name.
    pub fn asked(&self) -> Option<(i32, &'static str)> {
        match self.0.load(Ordering::Acquire) {
            0 => None,
            2 => Some((2, "SIGINT")),
            15 => Some((15, "SIGTERM")),
            n => Some((n, "SIGHUP")),
        }
    }

    /// Asks the stop as the signal `number` would.
    pub fn ask(&self, number: i32) {
        self.0.store(number, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_asked_once_and_names_its_signal() {
        let stop = Stop::never();
        assert_eq!(stop.asked(), None);
        let seen = stop.clone();
        stop.ask(15);
        assert_eq!(seen.asked(), Some((15, "SIGTERM")));
    }
}
