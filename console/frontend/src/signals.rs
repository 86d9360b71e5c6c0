//! Stopping on signals: SIGINT (Ctrl-C), SIGTERM or SIGHUP (the arbiter's terminal or
//! remote session closed) stops the hall cleanly, a second one at once.

use std::io::Write;
use std::time::Duration;

use kriegspiel_hall::{HallCommand, HallHandle};

/// A signal this soon after the first is the same stop, not a second one: `timeout` and
/// the shell's job control send one to the program and one to its process group.
const SAME_STOP: Duration = Duration::from_millis(500);

/// Stops the hall cleanly on SIGINT (Ctrl-C), SIGTERM or SIGHUP: the hall journals the time up to
/// the stop and closes its tables, so the front end removes its players' socket and ends as
/// after the last game; `then`, if given, runs after the stop was asked (a front end whose
/// loop does not end with the hall's: the window). Returns the signal's number once one
/// came (0: none). A second signal while stopping ends the process at once.
pub fn stop_on_signals(
    hall: HallHandle,
    program: &'static str,
    then: Option<Box<dyn FnOnce(i32) + Send>>,
) -> std::sync::Arc<std::sync::atomic::AtomicI32> {
    use std::sync::atomic::{AtomicI32, Ordering};
    let caught = std::sync::Arc::new(AtomicI32::new(0));
    let seen = caught.clone();
    let watch = move || -> std::io::Result<()> {
        use tokio::signal::unix::{signal, SignalKind};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let mut int = signal(SignalKind::interrupt())?;
            let mut term = signal(SignalKind::terminate())?;
            let mut hup = signal(SignalKind::hangup())?;
            let (number, name) = tokio::select! {
                _ = int.recv() => (2, "SIGINT"),
                _ = term.recv() => (15, "SIGTERM"),
                _ = hup.recv() => (1, "SIGHUP"),
            };
            let first = std::time::Instant::now();
            seen.store(number, Ordering::Release);
            let _ = hall.send(HallCommand::Shutdown);
            // The stop is asked before anything is said: a terminal closed (SIGHUP) or a pipe
            // whose reader died fails every print, and a failed `eprintln!` would end this
            // thread with the stop unasked.
            let said = writeln!(
                std::io::stderr(),
                "{program}: {name}: stopping; every event is journaled and an unfinished game resumes at the next start"
            );
            if said.is_err() {
                silence_std_streams();
            }
            if let Some(then) = then {
                // Off this thread, so that a second signal is still heard meanwhile.
                std::thread::spawn(move || then(number));
            }
            loop {
                tokio::select! {
                    _ = int.recv() => {},
                    _ = term.recv() => {},
                    _ = hup.recv() => {},
                }
                if first.elapsed() >= SAME_STOP {
                    break;
                }
            }
            let _ = writeln!(std::io::stderr(), "{program}: a second signal: stopped at once");
            std::process::exit(128 + number);
        })
    };
    std::thread::spawn(move || {
        if let Err(e) = watch() {
            eprintln!("{program}: warning: cannot watch for Ctrl-C, SIGTERM and SIGHUP: {e}");
        }
    });
    caught
}

/// Points standard output and error at /dev/null once they are gone (the terminal closed,
/// or the reader of a pipe): the prints still to come while the hall stops (its last lines,
/// the speakers' notes) must not panic the threads that make them.
fn silence_std_streams() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(&null);
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

/// Waits until the hall has stopped (its events closed), at most `limit`.
pub fn wait_for_stop(hall: &HallHandle, limit: Duration) {
    use tokio::sync::broadcast::error::TryRecvError;
    let mut events = hall.subscribe();
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        match events.try_recv() {
            Err(TryRecvError::Closed) => return,
            Ok(_) | Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
