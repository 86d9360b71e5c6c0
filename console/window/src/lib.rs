//! The arbiter's window: the hall's tables in egui/eframe. The window only reads hall
//! events (a background thread puts them in a [`Store`] and wakes the window) and sends
//! [`kriegspiel_hall::HallCommand`]s: every arbiter action enters the game as an input
//! through the hall, like a board's lift or a keypad's question. It never touches a table.
//!
//! [`run`] opens the native window; tests drive [`ArbiterApp::show`] through
//! `egui_kittest` and its AccessKit tree.
//!
//! The modules, by job: `app` (the `eframe::App`: a frame's wiring, the intents applied
//! after it), `overview` (the top bar and the tables' cards), `table_panel` (one table's
//! view), `actions` (the arbiter's actions on it), `dialogs` (confirmation, adjudication,
//! voiding, closing, replacing a file), `new_game` and `setup` (the dialogs that open a
//! table), `export` (PGN files), `reader` (hall events into the store), `store` (what the
//! window knows), `board` (boards drawn), `words` and `style` (what every panel says and
//! looks like).

mod actions;
pub mod app;
pub mod bench;
pub mod board;
mod dialogs;
pub mod export;
pub mod fonts;
mod new_game;
mod overview;
pub mod reader;
pub mod refusal;
pub mod setup;
pub mod store;
mod style;
mod table_panel;
pub mod wake;
pub mod words;

use std::fmt;
use std::sync::{Arc, Mutex};

pub use app::{ArbiterApp, RoundFeed, RoundLink, Seats, WindowOptions};
pub use export::export;
use kriegspiel_hall::{HallCommand, RunningHall, TableSpec};
use kriegspiel_referee::shakmaty::ByColor;
pub use reader::{spawn_reader, spawn_round_reader, SharedStore};
pub use refusal::show_refusal;
pub use store::{Alert, AlertKind, RemoteTable, Store, TableState};

/// Why the window could not run.
#[derive(Debug)]
pub enum WindowError {
    /// The native window could not be opened (no display, no OpenGL).
    Open(String),
    Thread(std::io::Error),
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowError::Open(e) => write!(f, "cannot open the window: {e}"),
            WindowError::Thread(e) => write!(f, "cannot start the window's event reader: {e}"),
        }
    }
}

impl std::error::Error for WindowError {}

/// A modal dialog, named in the AccessKit tree (a screen reader says its name when it opens).
pub(crate) fn dialog(id: &str, name: &str) -> egui::Modal {
    let id = egui::Id::unique(id);
    egui::Modal::new(id).area(egui::Modal::default_area(id).accessible_name(name))
}

/// A store that already knows the set-ups of the hall's first tables.
pub fn store_for(specs: &[TableSpec]) -> SharedStore {
    let mut store = Store::new();
    for s in specs {
        store.expect(&s.name, s.setup.clone());
        store.expect_boards(
            &s.name,
            ByColor {
                white: has_board(&s.white),
                black: has_board(&s.black),
            },
        );
    }
    Arc::new(Mutex::new(store))
}

/// Whether a player's board source is a board (a port or a simulated one).
pub(crate) fn has_board(source: &kriegspiel_hall::BoardSource) -> bool {
    !matches!(source, kriegspiel_hall::BoardSource::Absent)
}

/// Opens the window on a running hall (its first subscription saw every event) and
/// returns when the arbiter closes it; the hall is then shut down and joined.
pub fn run(
    hall: RunningHall,
    specs: &[TableSpec],
    options: WindowOptions,
) -> Result<(), WindowError> {
    let RunningHall {
        handle,
        events,
        thread,
        followers,
    } = hall;
    let store = store_for(specs);
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Kriegspiel arbiter")
            .with_inner_size([1600.0, 1000.0])
            .with_min_inner_size([900.0, 600.0]),
        ..Default::default()
    };
    let app_handle = handle.clone();
    let mut reader_error = None;
    let result = eframe::run_native(
        "Kriegspiel arbiter",
        native,
        Box::new(|cc| {
            ArbiterApp::style(&cc.egui_ctx);
            let ctx = cc.egui_ctx.clone();
            let journal = Some(options.journal.clone());
            if let Err(e) = spawn_reader(events, store.clone(), journal, move || {
                ctx.request_repaint();
            }) {
                reader_error = Some(e);
            }
            let news = options
                .round
                .as_ref()
                .and_then(|r| r.news.lock().ok().and_then(|mut n| n.take()));
            if let Some(news) = news {
                let ctx = cc.egui_ctx.clone();
                if let Err(e) =
                    reader::spawn_round_reader(news, store.clone(), move || ctx.request_repaint())
                {
                    reader_error = Some(e);
                }
            }
            let app = ArbiterApp::new(app_handle, store, options);
            Ok(match bench::Bench::from_env() {
                Some(b) => Box::new(bench::Measured::new(app, b)) as Box<dyn eframe::App>,
                None => Box::new(app),
            })
        }),
    );
    let _ = handle.send(HallCommand::Shutdown);
    let _ = thread.join();
    for f in followers {
        let _ = f.join();
    }
    if let Some(e) = reader_error {
        return Err(WindowError::Thread(e));
    }
    result.map_err(|e| WindowError::Open(readable(&e.to_string(), display_named())))
}

/// Why the window cannot open at all (no display named), said before anything is started
/// or journaled; `None` when it may try.
pub fn cannot_open() -> Option<String> {
    if !display_named() {
        return Some(readable("", false));
    }
    let env = |v: &str| std::env::var(v).ok().filter(|d| !d.is_empty());
    unreachable_display(
        env("DISPLAY").as_deref(),
        env("WAYLAND_DISPLAY").as_deref(),
        env("XDG_RUNTIME_DIR").as_deref(),
    )
}

/// Why the display named cannot be reached, when that can be told before the window is
/// tried (a local X server's socket, a Wayland compositor's): said before the journal is
/// opened and the hall started, not after. A display on another host is left to winit.
fn unreachable_display(
    x11: Option<&str>,
    wayland: Option<&str>,
    runtime: Option<&str>,
) -> Option<String> {
    let wayland_there = wayland.is_some_and(|w| {
        let path = std::path::Path::new(w);
        if path.is_absolute() {
            path.exists()
        } else {
            runtime.is_some_and(|r| std::path::Path::new(r).join(w).exists())
        }
    });
    if wayland_there {
        return None;
    }
    let Some(display) = x11 else {
        return Some(format!(
            "the Wayland display {} cannot be reached (no compositor's socket); run it in a graphical session, or play the demo as text with `kriegspiel demo`",
            wayland.unwrap_or_default()
        ));
    };
    let local = display.strip_prefix("unix:").unwrap_or(display);
    let number = local.strip_prefix(':')?;
    let number = number.split('.').next().unwrap_or_default();
    let socket = format!("/tmp/.X11-unix/X{number}");
    (!std::path::Path::new(&socket).exists()).then(|| {
        format!(
            "the display {display} cannot be reached (no X server's socket at {socket}); start the X server or give DISPLAY another, or play the demo as text with `kriegspiel demo`"
        )
    })
}

/// Whether the environment names a display the window could open on.
fn display_named() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

/// The windowing error for a person: no display is said so, with what to do instead, and
/// winit's source path and line (`os error at /root/.cargo/…/mod.rs:765: …`) are left out.
fn readable(error: &str, display: bool) -> String {
    if !display {
        return "no display (neither DISPLAY nor WAYLAND_DISPLAY is set); run it in a graphical session, or play the demo as text with `kriegspiel demo`".to_owned();
    }
    match (error.find(" at /"), error.rfind(".rs:")) {
        (Some(at), Some(rs)) if rs > at => {
            let tail = error[rs + 4..].trim_start_matches(|c: char| c.is_ascii_digit() || c == ':');
            format!("{}: {}", &error[..at], tail.trim())
        }
        _ => error.to_owned(),
    }
}

#[cfg(test)]
mod readable_tests {
    use super::{readable, unreachable_display};

    #[test]
    fn a_display_nobody_serves_is_said_before_anything_starts() {
        let none = unreachable_display(Some(":987654"), None, None).unwrap_or_default();
        assert!(
            none.starts_with("the display :987654 cannot be reached (no X server's socket at /tmp/.X11-unix/X987654)"),
            "{none}"
        );
        // Another host's display is winit's to try.
        assert_eq!(unreachable_display(Some("hall.local:0"), None, None), None);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("wayland-9"), "").unwrap_or_else(|e| panic!("{e}"));
        let runtime = dir.path().to_str();
        assert_eq!(
            unreachable_display(Some(":987654"), Some("wayland-9"), runtime),
            None
        );
        let gone = unreachable_display(None, Some("wayland-8"), runtime).unwrap_or_default();
        assert!(
            gone.starts_with("the Wayland display wayland-8 cannot be reached"),
            "{gone}"
        );
    }

    #[test]
    fn no_source_paths_and_no_display_said_plainly() {
        let winit = "winit EventLoopError: os error at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/winit-0.30.13/src/platform_impl/linux/mod.rs:765: neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set.";
        assert_eq!(
            readable(winit, true),
            "winit EventLoopError: os error: neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set."
        );
        assert!(readable(winit, false).starts_with("no display (neither DISPLAY"));
        assert_eq!(readable("no OpenGL 2.0", true), "no OpenGL 2.0");
    }
}
