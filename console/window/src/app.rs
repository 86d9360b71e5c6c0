//! The arbiter's window as an `eframe::App`: its state, and the wiring of one frame. The
//! panels (`overview`, `table_panel`, `actions`) and the `dialogs` are drawn from the
//! [`Store`] and return [`Intent`]s; the intents are applied in one place, after the
//! frame's UI is built: only there does the window send to the hall, free a seat, write a
//! file or change what it shows. It never touches a table.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::{Key, RichText, Ui};
use kriegspiel_hall::{HallCommand, HallHandle, TableNo, TableSpec};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_table::arbiter_words::render_action;
use kriegspiel_table::{ArbiterAction, Input};

use crate::actions::Actions;
use crate::dialogs::{unfinished, Confirm, Dialog, Dialogs};
use crate::export::{export, untilde};
pub use crate::reader::{lock, spawn_reader, SharedStore};
use crate::store::{Store, TableState};
use crate::words::action_words;
use crate::{overview, table_panel};

/// How the window was opened.
#[derive(Debug, Clone)]
pub struct WindowOptions {
    /// The hall's journal (PGN export reads it).
    pub journal: PathBuf,
    /// A board out of sync this long is an alert.
    pub sync_alert_after: Duration,
    /// Simulated boards for new games play the rule set's demo game at this pace (none:
    /// the new-game dialog offers serial ports only).
    pub demo_timing: Option<kriegspiel_games::Timing>,
    /// Where exported PGN files go by default.
    pub export_dir: PathBuf,
    /// The table shown first (none: the overview).
    pub start_table: Option<TableNo>,
    /// The players' channel, to release a seat (none: no players' socket).
    pub seats: Option<Arc<dyn Seats>>,
    /// The round on the broker: the tables other consoles run (none: this hall's alone).
    pub round: Option<RoundFeed>,
    /// Set to a signal's number when one asks the console to stop: once the hall has
    /// stopped the window closes by itself, unasked (a hall stopped by a failure leaves it
    /// open, for the arbiter to read why).
    pub signalled: Option<Arc<std::sync::atomic::AtomicI32>>,
}

/// The round's other consoles, for a window on a round's broker.
#[derive(Debug, Clone)]
pub struct RoundFeed {
    /// Where arbiter actions for their tables go.
    pub link: Arc<dyn RoundLink>,
    /// Their tables' summaries and their presence, read into the store once the window
    /// opens.
    pub news: Arc<std::sync::Mutex<Option<std::sync::mpsc::Receiver<kriegspiel_hall::RoundNews>>>>,
}

/// Sends an arbiter action to the console that runs a table, through the round's broker.
pub trait RoundLink: Send + Sync + std::fmt::Debug {
    /// `line` is a command as on standard input, e.g. `{"arbiter":"pause"}`; false when it
    /// could not be sent.
    fn send(&self, table: TableNo, line: &str) -> bool;
}

impl WindowOptions {
    pub fn new(journal: PathBuf) -> WindowOptions {
        WindowOptions {
            journal,
            sync_alert_after: Duration::from_secs(10),
            demo_timing: None,
            export_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            start_table: None,
            seats: None,
            round: None,
            signalled: None,
        }
    }
}

/// The players' channel as the window uses it: the arbiter frees a seat (its terminal is
/// closed). Seat changes themselves reach the window as hall events.
pub trait Seats: Send + Sync + std::fmt::Debug {
    /// False if no terminal held the seat.
    fn release(&self, table: TableNo, color: Color) -> bool;
}

/// What the window shows under its top bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Screen {
    Overview,
    Table(TableNo),
}

/// What the arbiter asked for while a frame was drawn, applied by [`ArbiterApp`] once the
/// frame's UI is built (in the order asked).
#[derive(Debug)]
pub(crate) enum Intent {
    /// Show the overview or a table.
    Show(Screen),
    /// An arbiter action, sent to its table through the hall.
    Send {
        table: TableNo,
        action: ArbiterAction,
    },
    /// Start the waiting clocks of these tables.
    StartAll(Vec<TableNo>),
    /// An arbiter action for a table another console runs, sent to it through the round's
    /// broker in the arbiter's words (as on standard input).
    Remote {
        table: TableNo,
        console: String,
        action: ArbiterAction,
    },
    /// An action that changes the game: asked to be confirmed first.
    Ask {
        table: TableNo,
        action: ArbiterAction,
    },
    /// Free a player's seat (the players' channel closes his terminal).
    Release { table: TableNo, color: Color },
    /// Ask the hall to open a table.
    Open(Box<TableSpec>),
    /// Write a table's PGN to the path typed; a file there is replaced only if `replace`
    /// (else the arbiter is asked first).
    Export {
        table: TableNo,
        path: String,
        replace: bool,
    },
    /// Open a dialog.
    Dialog(Dialog),
    /// Give the keyboard focus back to a widget once the dialog that held it is gone.
    Refocus(egui::Id),
    /// Say something in the status line.
    Status(String),
    /// Close the window (the arbiter said so with games unfinished).
    Close,
}

/// A table asked of the hall, until its `Opened` or `OpenFailed` arrives.
#[derive(Debug, Clone)]
struct Opening {
    name: String,
    /// The highest table number when it was asked: its number will be higher.
    last_no: TableNo,
    /// The hall-wide notices then: its failure would come after them.
    notices: usize,
}

/// The arbiter's window.
#[derive(Debug)]
pub struct ArbiterApp {
    store: SharedStore,
    handle: HallHandle,
    options: WindowOptions,
    screen: Screen,
    /// The action rows' fields (the square tool, the typed correction, the PGN file).
    actions: Actions,
    dialogs: Dialogs,
    /// A table being opened, until the hall answers.
    opening: Option<Opening>,
    /// The arbiter said to close anyway.
    close_confirmed: bool,
    /// The last thing the window did or could not do, in words.
    status: String,
    /// The store generation last drawn.
    seen: u64,
    styled: bool,
    /// The widget with the keyboard focus when this frame began.
    frame_focus: Option<egui::Id>,
    /// A widget to give the focus back to, and the frames to wait first (a modal that just
    /// closed still holds the focus for a frame).
    refocus: Option<(egui::Id, u8)>,
}

impl ArbiterApp {
    pub fn new(handle: HallHandle, store: SharedStore, options: WindowOptions) -> ArbiterApp {
        let screen = options.start_table.map_or(Screen::Overview, Screen::Table);
        ArbiterApp {
            store,
            handle,
            options,
            screen,
            actions: Actions::new(),
            dialogs: Dialogs::default(),
            opening: None,
            close_confirmed: false,
            status: String::new(),
            seen: 0,
            styled: false,
            frame_focus: None,
            refocus: None,
        }
    }

    /// The store the window draws.
    pub fn store(&self) -> &SharedStore {
        &self.store
    }

    /// The last status line (what was sent, exported or refused).
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Large type and high contrast, and the font with chess glyphs.
    pub fn style(ctx: &egui::Context) {
        crate::style::install(ctx);
    }

    /// The whole window, inside `ui` (the eframe app and the tests call this): the frame is
    /// drawn, then what the arbiter asked for in it is applied.
    pub fn show(&mut self, ui: &mut Ui) {
        if !self.styled {
            Self::style(ui.ctx());
            self.styled = true;
        }
        let now = Instant::now();
        let ctx = ui.ctx().clone();
        self.frame_focus = ctx.memory(|m| m.focused());
        let store = self.store.clone();
        let intents = {
            let s = lock(&store);
            self.seen = s.generation;
            self.opening_answered(&s);
            self.close_requested(&ctx, &s);
            self.close_when_signalled(&ctx, &s);
            if let Screen::Table(no) = self.screen {
                // A table asked for at the start may not have opened yet.
                if !s.tables.contains_key(&no) && !s.tables.is_empty() {
                    self.screen = Screen::Overview;
                }
            }
            self.keys(ui, &s);
            self.draw(ui, &s, now)
        };
        if !intents.is_empty() {
            for intent in intents {
                self.apply(intent, &ctx);
            }
            // What they changed is drawn at once.
            ctx.request_repaint();
        }
        self.refocus = match self.refocus {
            Some((id, 0)) => {
                ctx.memory_mut(|m| m.request_focus(id));
                None
            }
            Some((id, n)) => {
                ctx.request_repaint();
                Some((id, n - 1))
            }
            None => None,
        };
        let next = self.next_tick(&lock(&store), now);
        if let Some(after) = next {
            ctx.request_repaint_after(after);
        }
    }

    /// Draws the frame: the top bar, the status line, the screen shown, the open dialog.
    /// Nothing is sent or changed here but the widgets' own fields: what the arbiter asks
    /// for is returned.
    fn draw(&mut self, ui: &mut Ui, s: &Store, now: Instant) -> Vec<Intent> {
        let sync_after = self.options.sync_alert_after;
        let screen = self.screen;
        let mut out = egui::Panel::top("bar")
            .show(ui, |ui| overview::top_bar(ui, s, screen, sync_after))
            .inner;
        egui::Panel::bottom("status").show(ui, |ui| {
            let text = if self.status.is_empty() {
                "Keys: 1–9 open a table, Esc the overview, Tab and the arrows move, Enter or Space use. \
                 On a square: Enter the tool, K Q R B N P put a man (Shift: White's), Delete empties it."
                    .to_owned()
            } else {
                self.status.clone()
            };
            ui.label(RichText::new(text).size(19.0));
        });
        match screen {
            Screen::Overview => {
                let cards = egui::CentralPanel::default()
                    .show(ui, |ui| overview::cards(ui, s, now, sync_after));
                out.extend(cards.inner);
            }
            Screen::Table(no) => {
                if let Some(t) = s.tables.get(&no) {
                    let releasable = self.options.seats.is_some();
                    let side = egui::Panel::right("side")
                        .default_size(470.0)
                        .resizable(true)
                        .show(ui, |ui| {
                            table_panel::side(ui, t, now, sync_after, releasable)
                        });
                    out.extend(side.inner);
                    let export_dir = &self.options.export_dir;
                    let actions = &mut self.actions;
                    let central = egui::CentralPanel::default().show(ui, |ui| {
                        table_panel::central(ui, t, now, actions, export_dir)
                    });
                    out.extend(central.inner);
                }
            }
        }
        let table = match screen {
            Screen::Table(no) => Some(no),
            Screen::Overview => None,
        };
        let demo_timing = self.options.demo_timing;
        out.extend(self.dialogs.show(ui.ctx(), s, table, demo_timing));
        out
    }

    /// Applies what the arbiter asked for in the frame just drawn.
    fn apply(&mut self, intent: Intent, ctx: &egui::Context) {
        match intent {
            Intent::Show(screen) => self.screen = screen,
            Intent::Send { table, action } => self.send(table, action),
            Intent::Remote {
                table,
                console,
                action,
            } => {
                let line = serde_json::json!({ "arbiter": render_action(&action) }).to_string();
                let sent = self
                    .options
                    .round
                    .as_ref()
                    .is_some_and(|r| r.link.send(table, &line));
                self.status = if sent {
                    format!(
                        "Table {table}: asked console {console} to {}.",
                        action_words(&action)
                    )
                } else {
                    format!("Table {table}: cannot reach console {console}: the broker does not answer.")
                };
            }
            Intent::StartAll(tables) => {
                for no in tables {
                    self.send(no, ArbiterAction::StartClocks);
                }
            }
            Intent::Ask { table, action } => {
                self.dialogs.confirm = Some(Confirm::new(table, action, self.frame_focus));
            }
            Intent::Release { table, color } => {
                if let Some(seats) = &self.options.seats {
                    seats.release(table, color);
                }
            }
            Intent::Open(spec) => self.open(*spec),
            Intent::Export {
                table,
                path,
                replace,
            } => self.export(table, path, replace),
            Intent::Dialog(dialog) => {
                let demo = self.options.demo_timing.is_some();
                self.dialogs.open(dialog, demo);
            }
            Intent::Refocus(id) => self.refocus = Some((id, 1)),
            Intent::Status(text) => self.status = text,
            Intent::Close => {
                self.close_confirmed = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    fn send(&mut self, table: TableNo, action: ArbiterAction) {
        let words = action_words(&action);
        self.status = match self.handle.input(table, Input::Arbiter(action)) {
            Ok(()) => format!("Table {table}: asked to {words}."),
            Err(e) => format!("Table {table}: cannot {words}: {e}."),
        };
    }

    /// Writes a table's PGN to the typed `path`; a file there is first the arbiter's to
    /// allow replacing (unless `replace`: he did).
    fn export(&mut self, table: TableNo, path: String, replace: bool) {
        let file = untilde(&path);
        if !replace && !path.is_empty() && file.exists() {
            // Never replaced without the arbiter's leave.
            self.dialogs.overwrite = Some((table, path));
            return;
        }
        self.status = match lock(&self.store).tables.get(&table) {
            Some(t) => match export(&self.options.journal, t, &file, replace) {
                Ok(msg) => msg,
                Err(e) => format!("Export failed: {e}"),
            },
            None => format!("Export failed: no table {table}"),
        };
    }

    /// When the window must be drawn again without an event: running clocks and boards out
    /// of sync once a second (on a table's view, when its running clock shows the next
    /// second), a table's view with links or seats ("last heard 2 s ago", "connected for
    /// 5 s") once a second. Nothing else repaints without an event.
    fn next_tick(&self, s: &Store, now: Instant) -> Option<Duration> {
        let second = Duration::from_secs(1);
        let running = |t: &TableState| {
            t.clocks_at(now)
                .and_then(|(left, running)| running.map(|c| *left.get(c)))
                .filter(|_| !t.paused() && !t.is_over())
        };
        // Every screen shows every table's alerts (the cards, the tabs' colour).
        let ticking = s.tables.values().any(|t| {
            running(t).is_some()
                || (!t.is_over() && t.out_of_sync_since.iter().any(Option::is_some))
        });
        let mut next = ticking.then_some(second);
        if let Some(t) = match self.screen {
            Screen::Table(no) => s.tables.get(&no),
            Screen::Overview => None,
        } {
            let links = t.links.iter().any(|l| l.heard_at.is_some());
            let seated = Color::ALL.iter().any(|c| t.seated[*c].is_some());
            if links || seated {
                next = Some(second);
            }
            if let Some(left) = running(t) {
                // Its clock shows whole seconds (rounded down): the next in `left % 1000` ms.
                next = Some(Duration::from_millis(left % 1000 + 1).min(second));
            }
        }
        next
    }

    /// The window asked to close (its close button, the window manager) while games are
    /// unfinished: it stays open and asks first.
    fn close_requested(&mut self, ctx: &egui::Context, s: &Store) {
        if !ctx.input(|i| i.viewport().close_requested()) || self.close_confirmed {
            return;
        }
        if unfinished(s) > 0 {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.dialogs.close_all();
            self.dialogs.closing = true;
        }
    }

    /// A signal stopped the hall: the window ends, and the console with it.
    fn close_when_signalled(&mut self, ctx: &egui::Context, s: &Store) {
        let signalled = self
            .options
            .signalled
            .as_ref()
            .is_some_and(|n| n.load(std::sync::atomic::Ordering::Acquire) != 0);
        if signalled && s.hall_stopped && !self.close_confirmed {
            self.close_confirmed = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// The window's keys, read before the frame is drawn: 1–9 open a table, Esc the
    /// overview or closes the open dialog.
    fn keys(&mut self, ui: &Ui, s: &Store) {
        // Keys are the window's unless a text field has them (a focused button or square
        // leaves 1–9 and Esc to the window).
        let typing = ui.ctx().text_edit_focused();
        if typing || self.dialogs.any_open() {
            if ui.input(|i| i.key_pressed(Key::Escape)) {
                if let Some(id) = self.dialogs.confirm.as_ref().and_then(|c| c.return_focus) {
                    self.refocus = Some((id, 1));
                }
                self.dialogs.close_all();
            }
            return;
        }
        let digits = [
            Key::Num1,
            Key::Num2,
            Key::Num3,
            Key::Num4,
            Key::Num5,
            Key::Num6,
            Key::Num7,
            Key::Num8,
            Key::Num9,
        ];
        for (i, k) in digits.iter().enumerate() {
            if ui.input(|inp| inp.key_pressed(*k)) {
                let no = s.tables.keys().nth(i).copied();
                if let Some(no) = no {
                    self.screen = Screen::Table(no);
                }
            }
        }
        if ui.input(|i| i.key_pressed(Key::Escape)) {
            self.screen = Screen::Overview;
        }
    }

    /// Asks the hall to open a table; its `Opened` (or `OpenFailed`) event follows.
    fn open(&mut self, spec: TableSpec) {
        let name = spec.name.clone();
        let (last_no, notices) = {
            let mut s = lock(&self.store);
            s.expect(&spec.name, spec.setup.clone());
            s.expect_boards(
                &spec.name,
                ByColor {
                    white: crate::has_board(&spec.white),
                    black: crate::has_board(&spec.black),
                },
            );
            (
                s.tables.keys().next_back().copied().unwrap_or(0),
                s.notices.len(),
            )
        };
        self.status = match self.handle.send(HallCommand::Open(Box::new(spec))) {
            Ok(()) => {
                self.opening = Some(Opening {
                    name: name.clone(),
                    last_no,
                    notices,
                });
                format!("Opening table '{name}'…")
            }
            Err(e) => format!("Cannot open table '{name}': {e}"),
        };
    }

    /// Ends the "Opening table…" status when the hall has answered: its `Opened` (a table
    /// of that name numbered after the last one) or its `OpenFailed` (the notice).
    fn opening_answered(&mut self, s: &Store) {
        let Some(o) = &self.opening else {
            return;
        };
        let opened = s
            .tables
            .range(o.last_no + 1..)
            .find(|(_, t)| t.name == o.name)
            .map(|(no, _)| *no);
        let failed = s
            .notices
            .iter()
            .skip(o.notices)
            .find(|n| n.starts_with(&format!("Table '{}' could not be opened", o.name)));
        if let Some(no) = opened {
            self.status = format!("Table {no} '{}' is open.", o.name);
        } else if let Some(n) = failed {
            self.status.clone_from(n);
        } else {
            return;
        }
        self.opening = None;
    }
}

impl eframe::App for ArbiterApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}
