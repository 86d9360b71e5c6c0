//! Ctrl-C, SIGTERM or a closed terminal window end a seated player's terminal: it says so
//! in the words of Ctrl-D (the game goes on at the console), and puts his terminal back as
//! it was when the voice terminal changed it. The default action ended it without a word,
//! and without `Drop` (Escape would go on ending his shell's lines).

use std::io::Write;
use std::sync::Mutex;

use rustix::termios::{tcsetattr, OptionalActions, Termios};

/// The terminal as it was before the voice terminal changed it, to put back at a signal.
static SAVED: Mutex<Option<Termios>> = Mutex::new(None);

/// From now on a signal ends the terminal with `closing` said. Returns once the signals
/// are heard (at most a second): a Ctrl-C just after is not lost to the default action.
pub fn on_signals(closing: &'static str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| watch(closing));
}

/// His terminal as it was, put back at a signal (before anything is said).
pub fn restore_at_signal(saved: Termios) {
    if let Ok(mut s) = SAVED.lock() {
        *s = Some(saved);
    }
}

fn watch(closing: &'static str) {
    let (ready, listening) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            use tokio::signal::unix::{signal, SignalKind};
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            let number = runtime.block_on(async {
                let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                    signal(SignalKind::hangup()),
                ) else {
                    return None;
                };
                let _ = ready.send(());
                tokio::select! {
                    _ = int.recv() => Some(2),
                    _ = term.recv() => Some(15),
                    _ = hup.recv() => Some(1),
                }
            });
            if let Some(number) = number {
                if let Some(saved) = SAVED.lock().ok().and_then(|s| s.clone()) {
                    let _ = tcsetattr(std::io::stdin(), OptionalActions::Now, &saved);
                }
                // On a line of its own: Ctrl-C leaves "^C" where the cursor was. A closed
                // window (SIGHUP) has nowhere to say it, and exits all the same.
                let _ = writeln!(std::io::stdout(), "\n{closing}");
                std::process::exit(128 + number);
            }
        });
    if spawned.is_ok() {
        let _ = listening.recv_timeout(std::time::Duration::from_secs(1));
    }
}
