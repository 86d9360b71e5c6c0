//! The window's state and drawing: the hall overview, one table, the arbiter's dialogs.
//! It reads the [`Store`] (fed by a background thread) and sends [`HallCommand`]s; it never
//! touches a table.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use egui::{Color32, Key, RichText, Ui};
use kriegspiel_hall::{
    BoardSource, HallCommand, HallEvent, HallHandle, Journal, TableNo, TableSetup, TableSpec,
};
use kriegspiel_referee::shakmaty::{Color, Piece, Position, Role};
use kriegspiel_referee::{GameResult, RuleSet};
use kriegspiel_table::arbiter_words::parse_action;
use kriegspiel_table::{clock::hms, ArbiterAction, Input};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::board::{self, color_name, Marks};
use crate::setup::SetupView;
use crate::store::{AlertKind, Heard, Store, TableState};

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
        }
    }
}

/// The players' channel as the window uses it: the arbiter frees a seat (its terminal is
/// closed). Seat changes themselves reach the window as hall events.
pub trait Seats: Send + Sync + std::fmt::Debug {
    /// False if no terminal held the seat.
    fn release(&self, table: TableNo, color: Color) -> bool;
}

/// The store shared with the thread that reads hall events.
pub type SharedStore = Arc<Mutex<Store>>;

/// Locks the store; a reader thread that panicked leaves the data readable.
pub fn lock(store: &SharedStore) -> MutexGuard<'_, Store> {
    store
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads the set-ups of the tables the window does not know (opened by someone else, or
/// resumed under an expectation that disagreed with the hall) from the journal, read-only:
/// the hall writes a game's set-up before it announces the table.
fn look_up_setups(store: &SharedStore, journal: Option<&std::path::Path>) {
    let todo = lock(store).setups_to_look_up();
    if todo.is_empty() {
        return;
    }
    let games = journal
        .and_then(|j| Journal::open_read_only(j).ok())
        .and_then(|j| j.games().ok())
        .unwrap_or_default();
    let mut s = lock(store);
    for (table, game) in todo {
        let setup = games.iter().find(|g| g.id == game).map(|g| g.setup.clone());
        s.looked_up(table, setup);
    }
}

/// Reads hall events into the store on its own thread (its own subscription: it lags
/// alone) and wakes the window through `wake` (the window passes `ctx.request_repaint`)
/// when they changed something it shows: at most once per [`crate::wake::WAKE_INTERVAL`],
/// the last change always drawn. Events that change nothing shown (a board's snapshot that
/// confirms its men, a view equal to the last but for its time) wake nothing. The set-ups
/// of tables the window did not open are read from `journal` (none: they stay unknown).
/// Ends when the hall stops.
pub fn spawn_reader(
    mut events: broadcast::Receiver<HallEvent>,
    store: SharedStore,
    journal: Option<PathBuf>,
    wake: impl Fn() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let waker = crate::wake::spawn_waker(crate::wake::WAKE_INTERVAL, wake)?;
    std::thread::Builder::new()
        .name("window-events".to_owned())
        .spawn(move || loop {
            let first = events.blocking_recv();
            let now = Instant::now();
            let changed = {
                let mut s = lock(&store);
                let before = s.generation;
                match first {
                    Ok(e) => s.apply(&e, now),
                    Err(RecvError::Lagged(n)) => s.lost(n),
                    Err(RecvError::Closed) => {
                        s.notices.push("The hall has stopped.".to_owned());
                        s.generation += 1;
                        drop(s);
                        // The waker draws it, then ends with the sender.
                        let _ = waker.send(());
                        return;
                    }
                }
                // Whatever else is already queued, under the same lock.
                loop {
                    match events.try_recv() {
                        Ok(e) => s.apply(&e, now),
                        Err(broadcast::error::TryRecvError::Lagged(n)) => s.lost(n),
                        Err(_) => break,
                    }
                }
                s.generation != before
            };
            if changed {
                look_up_setups(&store, journal.as_deref());
                let _ = waker.send(());
            }
        })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    Overview,
    Table(TableNo),
}

/// An action waiting for the arbiter's confirmation.
#[derive(Debug, Clone)]
struct Confirm {
    table: TableNo,
    action: ArbiterAction,
    question: String,
    /// The Confirm button has been given the keyboard focus.
    focused: bool,
    /// The widget that had the focus when the question was asked (a square): it gets it
    /// back when the question is answered.
    return_focus: Option<egui::Id>,
}

/// What a click on the official board does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Put(Piece),
    Remove,
}

/// The new-game dialog's fields.
#[derive(Debug, Clone)]
struct NewGame {
    name: String,
    white_player: String,
    black_player: String,
    rules: RuleSet,
    options: String,
    lang: String,
    time_control: String,
    settle_ms: u32,
    simulated: bool,
    white_port: String,
    black_port: String,
    error: Option<String>,
}

impl NewGame {
    fn new(n: usize, simulated: bool) -> NewGame {
        NewGame {
            name: format!("table-{n}"),
            white_player: String::new(),
            black_player: String::new(),
            rules: RuleSet::Cincinnati,
            options: String::new(),
            lang: "en".to_owned(),
            time_control: "none".to_owned(),
            settle_ms: kriegspiel_table::SETTLE_MS,
            simulated,
            white_port: String::new(),
            black_port: String::new(),
            error: None,
        }
    }
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
    confirm: Option<Confirm>,
    tool: Tool,
    correction: String,
    /// The adjudication dialog: the result the arbiter chose (none yet), the reason.
    adjudicate: Option<(Option<GameResult>, String)>,
    void_reason: Option<String>,
    export_path: String,
    new_game: Option<NewGame>,
    setup: Option<SetupView>,
    /// A table to open once the store is unlocked.
    to_open: Option<TableSpec>,
    /// A table being opened, until the hall answers.
    opening: Option<Opening>,
    /// The window was asked to close while games were unfinished: the question is open.
    closing: bool,
    /// The arbiter said to close anyway.
    close_confirmed: bool,
    /// The export waiting for the arbiter's leave to replace an existing file: the table,
    /// the path.
    overwrite: Option<(TableNo, String)>,
    /// The table and game the PGN file name was proposed for.
    export_for: Option<(TableNo, kriegspiel_hall::GameId)>,
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

/// A piece's words and glyph, e.g. "white queen ♕".
fn piece_words(p: Piece) -> String {
    format!(
        "{} {} {}",
        color_name(p.color).to_lowercase(),
        board::role_name(p.role),
        board::glyph(p)
    )
}

fn result_words(r: Option<GameResult>) -> &'static str {
    match r {
        Some(GameResult::WhiteWins) => "1-0",
        Some(GameResult::BlackWins) => "0-1",
        Some(GameResult::Draw) => "½-½",
        None => "void",
    }
}

fn action_words(a: &ArbiterAction) -> String {
    match a {
        ArbiterAction::Pause => "pause the game".to_owned(),
        ArbiterAction::Resume => "resume the game".to_owned(),
        ArbiterAction::Put { square, piece } => {
            format!("put a {} on {square}", piece_words(*piece))
        }
        ArbiterAction::Remove { square } => format!("empty {square}"),
        ArbiterAction::SetPosition { fen } => format!("set the position to {fen}"),
        ArbiterAction::TakeBack => "take back the last move".to_owned(),
        ArbiterAction::Adjudicate { result, reason } => {
            format!("adjudicate {} ({reason})", result_words(Some(*result)))
        }
        ArbiterAction::Void { reason } => format!("void the game ({reason})"),
        ArbiterAction::Repeat => "repeat the last announcement".to_owned(),
        ArbiterAction::StartClocks | ArbiterAction::StartAll => "start the clocks".to_owned(),
    }
}

/// Text in the large, high-contrast style.
fn big(text: impl Into<String>) -> RichText {
    RichText::new(text).size(26.0).strong()
}

/// A message in a place of its own, `rows` lines high whether there is one or not, so that
/// nothing under it moves when one appears (a button stays under the mouse). A longer
/// message ends in "…" (its whole text is the label's, for a screen reader).
fn reserved_message(ui: &mut Ui, text: Option<&str>, rows: usize) {
    let rows = rows.max(1);
    let font = egui::TextStyle::Body.resolve(ui.style());
    let row = ui.fonts_mut(|f| f.row_height(&font));
    let size = egui::vec2(ui.available_width(), row * rows as f32);
    ui.allocate_ui_with_layout(size, egui::Layout::top_down(egui::Align::Min), |ui| {
        ui.set_min_size(size);
        ui.set_max_size(size);
        if let Some(text) = text {
            let mut job = egui::text::LayoutJob::single_section(
                text.to_owned(),
                egui::TextFormat {
                    font_id: font.clone(),
                    color: ALERT,
                    ..Default::default()
                },
            );
            job.wrap = egui::text::TextWrapping {
                max_width: size.x,
                max_rows: rows,
                break_anywhere: false,
                overflow_character: Some('…'),
            };
            ui.add(egui::Label::new(job));
        }
    });
}

/// "1 square differs", "3 squares differ".
pub fn squares_differ(n: u32) -> String {
    if n == 1 {
        "1 square differs".to_owned()
    } else {
        format!("{n} squares differ")
    }
}

/// A PGN file name for a table's game: "club-night_table-2_game-7.pgn" (the event, or
/// "kriegspiel", and the table's name, each in lower-case letters, digits and dashes and
/// at most 28 characters).
pub fn pgn_file_name(event: Option<&str>, table: &str, game: kriegspiel_hall::GameId) -> String {
    let clean = |s: &str| {
        let mut out = String::new();
        for c in s.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                out.push(c);
            } else if !out.ends_with('-') && !out.is_empty() {
                out.push('-');
            }
        }
        // At most 28 characters, cut at a dash if there is one to cut at.
        let out = out.trim_end_matches('-');
        if out.chars().count() <= 28 {
            return out.to_owned();
        }
        let cut: String = out.chars().take(28).collect();
        match cut.rfind('-') {
            Some(i) if i > 0 => cut[..i].to_owned(),
            _ => cut,
        }
    };
    let event = Some(clean(event.unwrap_or_default()))
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "kriegspiel".to_owned());
    let table = match clean(table) {
        t if t.is_empty() || t.chars().all(|c| c.is_ascii_digit()) => format!("table-{t}"),
        t => t,
    };
    let table = table.trim_end_matches('-');
    format!("{event}_{table}_game-{game}.pgn")
}

/// A path as shown: a leading home folder as "~".
fn tilde(path: &std::path::Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !home.as_deref().is_some_and(|h| h.as_os_str().is_empty()) => {
            std::path::Path::new("~").join(rest).display().to_string()
        }
        _ => path.display().to_string(),
    }
}

/// A path as typed: a leading "~/" is the home folder.
fn untilde(text: &str) -> PathBuf {
    match (text.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => PathBuf::from(home).join(rest),
        _ => PathBuf::from(text),
    }
}

const ALERT: Color32 = Color32::from_rgb(255, 110, 90);
/// The narrowest a table's card on the overview gets.
const CARD_WIDTH: f32 = 440.0;
const GOOD: Color32 = Color32::from_rgb(120, 230, 120);

impl ArbiterApp {
    pub fn new(handle: HallHandle, store: SharedStore, options: WindowOptions) -> ArbiterApp {
        let screen = options.start_table.map_or(Screen::Overview, Screen::Table);
        ArbiterApp {
            store,
            handle,
            options,
            screen,
            confirm: None,
            tool: Tool::Remove,
            correction: String::new(),
            adjudicate: None,
            void_reason: None,
            // Proposed when a table is shown.
            export_path: String::new(),
            new_game: None,
            setup: None,
            to_open: None,
            opening: None,
            closing: false,
            close_confirmed: false,
            overwrite: None,
            export_for: None,
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
        crate::fonts::install(ctx);
        ctx.set_visuals(egui::Visuals::dark());
        ctx.all_styles_mut(|s| {
            use egui::{FontFamily, FontId, TextStyle};
            s.text_styles = [
                (
                    TextStyle::Heading,
                    FontId::new(30.0, FontFamily::Proportional),
                ),
                (TextStyle::Body, FontId::new(21.0, FontFamily::Proportional)),
                (
                    TextStyle::Button,
                    FontId::new(21.0, FontFamily::Proportional),
                ),
                (
                    TextStyle::Small,
                    FontId::new(17.0, FontFamily::Proportional),
                ),
                (
                    TextStyle::Monospace,
                    FontId::new(19.0, FontFamily::Monospace),
                ),
            ]
            .into();
            s.spacing.button_padding = egui::vec2(10.0, 6.0);
            s.spacing.item_spacing = egui::vec2(10.0, 8.0);
            s.visuals.override_text_color = Some(Color32::from_gray(245));
            s.visuals.panel_fill = Color32::from_gray(12);
            s.visuals.window_fill = Color32::from_gray(20);
            s.visuals.selection.stroke = egui::Stroke::new(2.0, Color32::WHITE);
            s.visuals.widgets.hovered.bg_stroke = egui::Stroke::new(2.0, Color32::WHITE);
        });
    }

    fn send(&mut self, table: TableNo, action: ArbiterAction) {
        let words = action_words(&action);
        self.status = match self.handle.input(table, Input::Arbiter(action)) {
            Ok(()) => format!("Table {table}: asked to {words}."),
            Err(e) => format!("Table {table}: cannot {words}: {e}."),
        };
    }

    /// Asks for confirmation before an action that changes the game.
    fn ask(&mut self, table: TableNo, action: ArbiterAction) {
        let question = format!("Table {table}: {}?", action_words(&action));
        self.confirm = Some(Confirm {
            table,
            action,
            question,
            focused: false,
            return_focus: self.frame_focus,
        });
    }

    /// The whole window, inside `ui` (the eframe app and the tests call this).
    pub fn show(&mut self, ui: &mut Ui) {
        if !self.styled {
            Self::style(ui.ctx());
            self.styled = true;
        }
        let now = Instant::now();
        self.frame_focus = ui.ctx().memory(|m| m.focused());
        let store = self.store.clone();
        let s = lock(&store);
        self.seen = s.generation;
        self.opening_answered(&s);
        self.close_requested(ui.ctx(), &s);
        if let Screen::Table(no) = self.screen {
            // A table asked for at the start may not have opened yet.
            if !s.tables.contains_key(&no) && !s.tables.is_empty() {
                self.screen = Screen::Overview;
            }
        }
        self.keys(ui, &s);
        egui::Panel::top("bar").show(ui, |ui| self.top_bar(ui, &s));
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
        match self.screen {
            Screen::Overview => {
                egui::CentralPanel::default().show(ui, |ui| self.overview(ui, &s, now));
            }
            Screen::Table(no) => {
                if let Some(t) = s.tables.get(&no) {
                    egui::Panel::right("side")
                        .default_size(470.0)
                        .resizable(true)
                        .show(ui, |ui| self.side(ui, t, now));
                    egui::CentralPanel::default().show(ui, |ui| self.table(ui, t, now));
                }
            }
        }
        let ctx = ui.ctx().clone();
        self.dialogs(&ctx, &s);
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
        if let Some(after) = self.next_tick(&s, now) {
            ctx.request_repaint_after(after);
        }
        drop(s);
        if let Some(spec) = self.to_open.take() {
            self.open(spec);
        }
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
            self.close_dialogs();
            self.closing = true;
        }
    }

    fn keys(&mut self, ui: &Ui, s: &Store) {
        // Keys are the window's unless a text field has them (a focused button or square
        // leaves 1–9 and Esc to the window).
        let typing = ui.ctx().text_edit_focused();
        let modal = self.confirm.is_some()
            || self.closing
            || self.overwrite.is_some()
            || self.new_game.is_some()
            || self.adjudicate.is_some()
            || self.void_reason.is_some()
            || self.setup.is_some();
        if typing || modal {
            if ui.input(|i| i.key_pressed(Key::Escape)) {
                if let Some(id) = self.confirm.as_ref().and_then(|c| c.return_focus) {
                    self.refocus = Some((id, 1));
                }
                self.close_dialogs();
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

    fn close_dialogs(&mut self) {
        self.confirm = None;
        self.closing = false;
        self.overwrite = None;
        self.new_game = None;
        self.adjudicate = None;
        self.void_reason = None;
        self.setup = None;
    }

    fn top_bar(&mut self, ui: &mut Ui, s: &Store) {
        ui.horizontal_wrapped(|ui| {
            ui.heading("Kriegspiel arbiter");
            if ui
                .selectable_label(self.screen == Screen::Overview, "Overview")
                .clicked()
            {
                self.screen = Screen::Overview;
            }
            for (no, t) in &s.tables {
                let alerts = !t
                    .alerts(Instant::now(), self.options.sync_alert_after)
                    .is_empty();
                let mut text = RichText::new(format!("Table {no}"));
                if alerts {
                    text = text.color(ALERT);
                }
                if ui
                    .selectable_label(self.screen == Screen::Table(*no), text)
                    .on_hover_text(&t.name)
                    .clicked()
                {
                    self.screen = Screen::Table(*no);
                }
            }
            let waiting: Vec<TableNo> = s
                .tables
                .iter()
                .filter(|(_, t)| t.clocks_waiting() && !t.is_over())
                .map(|(no, _)| *no)
                .collect();
            if !waiting.is_empty() && ui.button("Start all clocks").clicked() {
                for no in waiting {
                    self.send(no, ArbiterAction::StartClocks);
                }
            }
            if ui.button("New game…").clicked() {
                self.new_game = Some(NewGame::new(
                    s.tables.len() + 1,
                    self.options.demo_timing.is_some(),
                ));
            }
            if ui.button("Russian set-up…").clicked() {
                self.setup = Some(SetupView::new(
                    s.tables.len() + 1,
                    self.options.demo_timing.is_some(),
                ));
            }
        });
        for n in s.notices.iter().rev().take(2) {
            ui.label(RichText::new(n).color(ALERT));
        }
    }

    fn overview(&mut self, ui: &mut Ui, s: &Store, now: Instant) {
        if s.tables.is_empty() {
            ui.label(big("Waiting for the hall's tables…"));
            return;
        }
        // As many cards side by side as fit (each at least CARD_WIDTH wide), row under row.
        egui::ScrollArea::vertical().show(ui, |ui| {
            let gap = ui.spacing().item_spacing.x;
            let fit = ((ui.available_width() + gap) / (CARD_WIDTH + gap)).floor();
            let columns = (fit as usize).max(1);
            let tables: Vec<&TableState> = s.tables.values().collect();
            for row in tables.chunks(columns) {
                ui.columns(columns, |cols| {
                    for (col, t) in cols.iter_mut().zip(row) {
                        self.card(col, t, now);
                    }
                });
                ui.add_space(gap);
            }
        });
    }

    fn card(&mut self, ui: &mut Ui, t: &TableState, now: Instant) {
        let alerts = t.alerts(now, self.options.sync_alert_after);
        let stroke = if alerts.is_empty() {
            egui::Stroke::new(1.5, Color32::from_gray(140))
        } else {
            egui::Stroke::new(3.0, ALERT)
        };
        egui::Frame::group(ui.style())
            .stroke(stroke)
            .inner_margin(12.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.vertical(|ui| {
                    let open = ui.button(big(format!("Table {}: {}", t.no, t.name)));
                    if open.clicked() {
                        self.screen = Screen::Table(t.no);
                    }
                    let (w, b) = t.players();
                    ui.label(format!("{w} – {b}"));
                    ui.label(format!("Rules: {}", t.rules_words()));
                    ui.label(format!("Time control: {}", t.time_control()));
                    ui.label(self.state_words(t, now));
                    ui.label(
                        RichText::new(format!("Last: {}", t.last_public.as_deref().unwrap_or("—")))
                            .italics(),
                    );
                    ui.horizontal(|ui| {
                        for c in Color::ALL {
                            let l = &t.links[board::idx(c)];
                            let (text, color) = match l.connected {
                                Some(true) => ("link up", GOOD),
                                Some(false) => ("link DOWN", ALERT),
                                None if t.without_board(c) => ("no board", Color32::from_gray(180)),
                                None => ("no link", Color32::from_gray(180)),
                            };
                            ui.label(
                                RichText::new(format!("{}: {text}", color_name(c))).color(color),
                            );
                        }
                    });
                    let seat = |c: Color| if t.seated[c].is_some() { "✓" } else { "–" };
                    ui.label(format!(
                        "Seats: White {}, Black {}",
                        seat(Color::White),
                        seat(Color::Black)
                    ));
                    for a in &alerts {
                        ui.label(RichText::new(format!("⚠ {}", a.text)).color(ALERT).strong());
                    }
                });
            });
    }

    /// Clocks, turn and state in one line.
    fn state_words(&self, t: &TableState, now: Instant) -> String {
        let mut parts = Vec::new();
        if let Some(r) = t.result {
            parts.push(format!("Game over: {}", result_words(r)));
        } else if let Some(v) = &t.view {
            parts.push(format!("{} to move", color_name(v.to_move())));
            if v.paused {
                parts.push("PAUSED".to_owned());
            }
            if v.clocks_waiting {
                parts.push("waiting to start".to_owned());
            }
        }
        if let Some((rem, _)) = t.clocks_at(now) {
            parts.push(format!(
                "White {} · Black {}",
                hms(rem.white),
                hms(rem.black)
            ));
        }
        parts.join(" · ")
    }

    fn table(&mut self, ui: &mut Ui, t: &TableState, now: Instant) {
        let no = t.no;
        ui.horizontal_wrapped(|ui| {
            ui.heading(format!("Table {no}: {}", t.name));
            let (w, b) = t.players();
            ui.label(big(format!("{w} – {b} · {}", t.rules_words())));
        });
        ui.label(big(self.state_words(t, now)));
        // The refusal's line is there without one too: the buttons under it never move.
        let refused = t.refused.as_ref().map(|r| format!("Refused: {r}"));
        reserved_message(ui, refused.as_deref(), 1);
        self.actions(ui, t);
        let official = t.view.as_ref().map(|v| v.position.board().clone());
        let avail = ui.available_size();
        let size = (avail.y - 190.0).min(avail.x * 0.62).clamp(240.0, 720.0);
        ui.horizontal_top(|ui| {
            let marks = Marks {
                touched: None,
                ..Marks::default()
            };
            let fen = t.view.as_ref().map(|v| v.fen()).unwrap_or_default();
            let label = format!("Official position of table {no}: {fen}");
            let look = board::Look {
                label: &label,
                flipped: false,
                squares: Some("official"),
                square_prefix: "",
            };
            let (_, pick) = board::draw(ui, size, official.as_ref(), &marks, &look);
            if let Some(pick) = pick {
                self.square_act(t, pick, official.as_ref());
            }
            ui.vertical(|ui| {
                let small = (size / 2.0 - 30.0).max(160.0);
                for c in Color::ALL {
                    let (sensed, in_sync) =
                        t.view.as_ref().map_or((Default::default(), true), |v| {
                            (v.boards[c].occupancy, v.boards[c].in_sync)
                        });
                    let wrong = official
                        .as_ref()
                        .map(|o| board::disagreement(o, sensed, c))
                        .unwrap_or_default();
                    let marks = Marks {
                        wrong,
                        touched: t.view.as_ref().and_then(|v| v.touched[c]),
                        sensed,
                    };
                    let state = if in_sync {
                        "in sync".to_owned()
                    } else {
                        squares_differ(u32::try_from(wrong.count()).unwrap_or(u32::MAX))
                    };
                    ui.label(
                        RichText::new(format!("{}'s board: {state}", color_name(c)))
                            .color(if in_sync { GOOD } else { ALERT }),
                    );
                    let label = format!("{}'s board as sensed: {state}", color_name(c));
                    let look = board::Look {
                        label: &label,
                        flipped: false,
                        squares: None,
                        square_prefix: "",
                    };
                    board::draw(ui, small, None, &marks, &look);
                }
            });
        });
        ui.separator();
        ui.label(big("Announcements"));
        egui::ScrollArea::vertical()
            .id_salt("log")
            .stick_to_bottom(true)
            .show(ui, |ui| {
                for row in &t.log {
                    let color = match row.heard {
                        Heard::Both => Color32::from_gray(245),
                        Heard::Only(Color::White) => Color32::from_rgb(255, 235, 150),
                        Heard::Only(Color::Black) => Color32::from_rgb(160, 210, 255),
                        Heard::Arbiter => Color32::from_rgb(255, 170, 120),
                    };
                    ui.label(
                        RichText::new(format!(
                            "{}  [{}]  {}",
                            hms(row.at),
                            row.heard.label(),
                            row.text
                        ))
                        .color(color),
                    );
                }
            });
    }

    /// A click or a key on a square of the official board: a correction to confirm.
    fn square_act(
        &mut self,
        t: &TableState,
        pick: board::Pick,
        official: Option<&kriegspiel_referee::shakmaty::Board>,
    ) {
        let sq = pick.square;
        if t.is_over() {
            self.status = format!("Table {}: the game is over; nothing to correct.", t.no);
            return;
        }
        let there = official.and_then(|b| b.piece_at(sq));
        let put = match (pick.act, self.tool) {
            (board::SquareAct::Put(piece), _) | (board::SquareAct::Use, Tool::Put(piece)) => {
                Some(piece)
            }
            (board::SquareAct::Clear, _) | (board::SquareAct::Use, Tool::Remove) => None,
        };
        let action = match (put, there) {
            (Some(piece), Some(p)) if p == piece => {
                self.status = format!("A {} already stands on {sq}.", piece_words(piece));
                return;
            }
            (Some(piece), _) => ArbiterAction::Put { square: sq, piece },
            (None, None) => {
                self.status = format!("{sq} is already empty: nothing to remove.");
                return;
            }
            (None, Some(_)) => ArbiterAction::Remove { square: sq },
        };
        self.ask(t.no, action);
    }

    fn actions(&mut self, ui: &mut Ui, t: &TableState) {
        let no = t.no;
        let over = t.is_over();
        ui.horizontal_wrapped(|ui| {
            if t.clocks_waiting() && !over && ui.button("Start clocks").clicked() {
                self.send(no, ArbiterAction::StartClocks);
            }
            if t.paused() {
                if ui.add_enabled(!over, egui::Button::new("Resume")).clicked() {
                    self.send(no, ArbiterAction::Resume);
                }
            } else if ui.add_enabled(!over, egui::Button::new("Pause")).clicked() {
                self.send(no, ArbiterAction::Pause);
            }
            if ui
                .add_enabled(!over, egui::Button::new("Take back"))
                .clicked()
            {
                self.ask(no, ArbiterAction::TakeBack);
            }
            if ui
                .add_enabled(!over, egui::Button::new("Adjudicate…"))
                .clicked()
            {
                self.adjudicate = Some((None, String::new()));
            }
            if ui.add_enabled(!over, egui::Button::new("Void…")).clicked() {
                self.void_reason = Some(String::new());
            }
            if ui
                .add_enabled(!over, egui::Button::new("Repeat announcement"))
                .clicked()
            {
                self.send(no, ArbiterAction::Repeat);
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Square tool:");
            let mut tools = vec![(Tool::Remove, "✕".to_owned(), "remove a man".to_owned())];
            for color in Color::ALL {
                for role in Role::ALL {
                    let p = Piece { color, role };
                    tools.push((
                        Tool::Put(p),
                        board::glyph(p).to_string(),
                        format!(
                            "put a {} {}",
                            color_name(color).to_lowercase(),
                            board::role_name(role)
                        ),
                    ));
                }
            }
            for (tool, glyph, words) in tools {
                let selected = self.tool == tool;
                let r = ui.selectable_label(selected, RichText::new(glyph).size(28.0));
                let label = format!("Tool: {words}");
                r.widget_info(|| {
                    egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label)
                });
                if r.on_hover_text(&words).clicked() {
                    self.tool = tool;
                }
            }
        });
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Correction (FEN, put e4 Q, remove e4):");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.correction)
                        .desired_width(420.0)
                        .hint_text("FEN or put/remove"),
                )
                .labelled_by(l.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if ui
                .add_enabled(!over, egui::Button::new("Apply correction"))
                .clicked()
                || (enter && !over)
            {
                self.correction_typed(no);
            }
        });
        // A file name after the event, the table and the game, proposed again when another
        // table or game is shown.
        if self.export_for != Some((no, t.game)) {
            self.export_for = Some((no, t.game));
            let event = t.setup.as_ref().and_then(|s| s.event.as_deref());
            let name = pgn_file_name(event, &t.name, t.game);
            self.export_path = tilde(&self.options.export_dir.join(name));
        }
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("PGN file:");
            ui.add(egui::TextEdit::singleline(&mut self.export_path).desired_width(560.0))
                .labelled_by(l.id);
            if ui.button("Export PGN").clicked() {
                let typed = self.export_path.trim().to_owned();
                let path = untilde(&typed);
                if !typed.is_empty() && path.exists() {
                    // Never replaced without the arbiter's leave.
                    self.overwrite = Some((no, typed));
                } else {
                    self.status = match export(&self.options.journal, t, &path, false) {
                        Ok(msg) => msg,
                        Err(e) => format!("Export failed: {e}"),
                    };
                }
            }
        });
    }

    fn correction_typed(&mut self, no: TableNo) {
        let text = self.correction.trim().to_owned();
        let words: Vec<&str> = text.split_whitespace().collect();
        let parsed = match words.first() {
            Some(&"put") | Some(&"remove") | Some(&"fen") => parse_action(&words),
            Some(_) => parse_action(&[&["fen"], words.as_slice()].concat()),
            None => Err("type a FEN, 'put e4 Q' or 'remove e4'".to_owned()),
        };
        match parsed {
            Ok(
                a @ (ArbiterAction::Put { .. }
                | ArbiterAction::Remove { .. }
                | ArbiterAction::SetPosition { .. }),
            ) => self.ask(no, a),
            Ok(other) => self.status = format!("Not a correction: {}", other.id()),
            Err(e) => self.status = format!("Correction not understood: {e}"),
        }
    }

    fn side(&mut self, ui: &mut Ui, t: &TableState, now: Instant) {
        egui::ScrollArea::vertical().id_salt("side").show(ui, |ui| {
            ui.label(big("Clocks"));
            match t.clocks_at(now) {
                Some((rem, running)) => {
                    for c in Color::ALL {
                        let left = *rem.get(c);
                        let mark = if running == Some(c) { " ◀" } else { "" };
                        let low = left == 0 || t.low_time_mark(left).is_some();
                        ui.label(
                            RichText::new(format!("{} {}{mark}", color_name(c), hms(left)))
                                .size(34.0)
                                .monospace()
                                .color(if low && !t.is_over() {
                                    ALERT
                                } else {
                                    Color32::from_gray(245)
                                }),
                        );
                    }
                }
                None => {
                    ui.label("No clocks (untimed game).");
                }
            }
            ui.separator();
            ui.label(big(format!("Tries (move {})", t.moves / 2 + 1)));
            if t.tries.is_empty() {
                ui.label("No try yet.");
            }
            for r in &t.tries {
                let color = if r.stood {
                    GOOD
                } else {
                    Color32::from_gray(235)
                };
                ui.label(
                    RichText::new(format!(
                        "{} {} {}: {}",
                        hms(r.at),
                        color_name(r.color),
                        r.uci,
                        r.text
                    ))
                    .color(color),
                );
            }
            ui.separator();
            ui.label(big("Alerts"));
            let alerts = t.alerts(now, self.options.sync_alert_after);
            if alerts.is_empty() {
                ui.label("None.");
            }
            for a in alerts {
                let strong = matches!(
                    a.kind,
                    AlertKind::FlagFallen | AlertKind::Failed | AlertKind::LowTime
                );
                let mut text = RichText::new(format!("⚠ {}", a.text)).color(ALERT);
                if strong {
                    text = text.strong();
                }
                ui.label(text);
            }
            ui.separator();
            ui.label(big("Seats"));
            for c in Color::ALL {
                let code = &t.seat_codes[c];
                match t.seated[c] {
                    Some((since, voice)) => {
                        let kind = if voice { "voice terminal" } else { "terminal" };
                        ui.label(
                            RichText::new(format!(
                                "{}: {kind} connected for {} s · code {code}",
                                color_name(c),
                                now.saturating_duration_since(since).as_secs()
                            ))
                            .color(GOOD),
                        );
                        if let Some(seats) = &self.options.seats {
                            let b = ui.button(format!("Release {}'s seat", color_name(c)));
                            if b.clicked() {
                                seats.release(t.no, c);
                            }
                        }
                    }
                    None => {
                        ui.label(format!("{}: no terminal · code {code}", color_name(c)));
                    }
                }
            }
            ui.separator();
            ui.label(big("Links"));
            for c in Color::ALL {
                let l = &t.links[board::idx(c)];
                let none = t.without_board(c);
                let (state, color) = match l.connected {
                    Some(true) => ("up", GOOD),
                    Some(false) => ("DOWN", ALERT),
                    // A player without a board: nothing to hear, nothing wrong.
                    None if none => ("no board", Color32::from_gray(200)),
                    None => ("not heard", ALERT),
                };
                let h = &l.health;
                let errors = h.crc_errors + h.cobs_errors + h.decode_errors;
                let heard = l.heard_at.map_or("never".to_owned(), |at| {
                    format!("{} s ago", now.saturating_duration_since(at).as_secs())
                });
                ui.label(
                    RichText::new(format!(
                        "{} board{}: {state}",
                        color_name(c),
                        l.board_id.map(|i| format!(" {i}")).unwrap_or_default()
                    ))
                    .color(color),
                );
                if none {
                    ui.label("Plays by keys or voice.");
                    continue;
                }
                ui.label(format!(
                    "frames {} · errors {errors} · resyncs {} · gaps {} · last heard {heard}",
                    h.frames, h.resyncs, h.gaps
                ));
                ui.label(RichText::new(format!("last: {}", l.last_event)).size(17.0));
            }
        });
    }

    fn dialogs(&mut self, ctx: &egui::Context, s: &Store) {
        if self.closing {
            self.close_dialog(ctx, s);
            return;
        }
        if self.overwrite.is_some() {
            self.overwrite_dialog(ctx, s);
            return;
        }
        if let Some(c) = self.confirm.clone() {
            let r = crate::dialog("confirm", "Confirmation").show(ctx, |ui| {
                ui.label(big(&c.question));
                let mut done = None;
                ui.horizontal(|ui| {
                    let yes = ui.button(big("Confirm"));
                    if !c.focused {
                        // Enter confirms, Esc cancels, Tab reaches Cancel.
                        yes.request_focus();
                    }
                    if yes.clicked() {
                        done = Some(true);
                    }
                    if ui.button(big("Cancel")).clicked() {
                        done = Some(false);
                    }
                });
                done
            });
            if let Some(open) = self.confirm.as_mut() {
                open.focused = true;
            }
            let answered = match r.inner {
                Some(true) => {
                    self.send(c.table, c.action);
                    true
                }
                Some(false) => {
                    self.status = "Cancelled.".to_owned();
                    true
                }
                None => r.should_close(),
            };
            if answered {
                self.confirm = None;
                if let Some(id) = c.return_focus {
                    self.refocus = Some((id, 1));
                }
            }
            return;
        }
        let table = match self.screen {
            Screen::Table(no) => Some(no),
            Screen::Overview => None,
        };
        if let (Some((result, reason)), Some(no)) = (self.adjudicate.as_mut(), table) {
            let mut go = None;
            crate::dialog("adjudicate", "Adjudication").show(ctx, |ui| {
                ui.label(big(format!("Adjudicate table {no}")));
                ui.horizontal(|ui| {
                    ui.radio_value(result, Some(GameResult::WhiteWins), "1-0 White wins");
                    ui.radio_value(result, Some(GameResult::BlackWins), "0-1 Black wins");
                    ui.radio_value(result, Some(GameResult::Draw), "½-½ Draw");
                });
                let l = ui.label("Reason:");
                ui.text_edit_singleline(reason).labelled_by(l.id);
                ui.horizontal(|ui| {
                    // No result until the arbiter picks one.
                    let ok = ui.add_enabled(result.is_some(), egui::Button::new("Adjudicate"));
                    if ok.clicked() {
                        go = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        go = Some(false);
                    }
                });
            });
            match (go, *result) {
                (Some(true), Some(result)) => {
                    let action = ArbiterAction::Adjudicate {
                        result,
                        reason: if reason.trim().is_empty() {
                            "arbiter's decision".to_owned()
                        } else {
                            reason.trim().to_owned()
                        },
                    };
                    self.adjudicate = None;
                    self.ask(no, action);
                }
                (Some(false), _) => self.adjudicate = None,
                _ => {}
            }
            return;
        }
        if let (Some(reason), Some(no)) = (self.void_reason.as_mut(), table) {
            let mut go = None;
            crate::dialog("void", "Void the game").show(ctx, |ui| {
                ui.label(big(format!("Void the game at table {no}")));
                let l = ui.label("Reason:");
                ui.text_edit_singleline(reason).labelled_by(l.id);
                ui.horizontal(|ui| {
                    if ui.button("Void the game").clicked() {
                        go = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        go = Some(false);
                    }
                });
            });
            match go {
                Some(true) => {
                    let action = ArbiterAction::Void {
                        reason: if reason.trim().is_empty() {
                            "arbiter's decision".to_owned()
                        } else {
                            reason.trim().to_owned()
                        },
                    };
                    self.void_reason = None;
                    self.ask(no, action);
                }
                Some(false) => self.void_reason = None,
                None => {}
            }
            return;
        }
        if self.new_game.is_some() {
            self.new_game_dialog(ctx);
            return;
        }
        if let Some(setup) = self.setup.as_mut() {
            let sensed = setup
                .source_table
                .and_then(|no| s.tables.get(&no))
                .and_then(|t| t.view.as_ref())
                .map(|v| [v.boards.white.occupancy, v.boards.black.occupancy]);
            let tables: Vec<(TableNo, String)> =
                s.tables.values().map(|t| (t.no, t.name.clone())).collect();
            match setup.show(ctx, sensed, &tables) {
                crate::setup::Outcome::Open(spec) => {
                    self.setup = None;
                    self.to_open = Some(*spec);
                }
                crate::setup::Outcome::Cancel => self.setup = None,
                crate::setup::Outcome::Stay => {}
            }
        }
    }

    fn close_dialog(&mut self, ctx: &egui::Context, s: &Store) {
        let n = unfinished(s);
        let mut go = None;
        crate::dialog("close", "Close the window?").show(ctx, |ui| {
            ui.label(big(if n == 1 {
                "1 game is not finished.".to_owned()
            } else {
                format!("{n} games are not finished.")
            }));
            ui.label(
                "Closing the window stops every table. The journal keeps the games: \
                 starting the console again with the same tables resumes them.",
            );
            ui.horizontal(|ui| {
                if ui.button(big("Keep the window open")).clicked() {
                    go = Some(false);
                }
                if ui.button(big("Close the window")).clicked() {
                    go = Some(true);
                }
            });
        });
        // The games ended meanwhile: closing is what was asked.
        let go = if n == 0 { Some(true) } else { go };
        match go {
            Some(true) => {
                self.closing = false;
                self.close_confirmed = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            Some(false) => {
                self.closing = false;
                self.status = "The window stays open.".to_owned();
            }
            None => {}
        }
    }

    fn overwrite_dialog(&mut self, ctx: &egui::Context, s: &Store) {
        let Some((no, path)) = self.overwrite.clone() else {
            return;
        };
        let mut go = None;
        crate::dialog("overwrite", "Replace the file?").show(ctx, |ui| {
            ui.label(big(format!("{path} already exists.")));
            ui.label(format!("Replace it with the PGN of table {no}'s game?"));
            ui.horizontal(|ui| {
                if ui.button(big("Replace the file")).clicked() {
                    go = Some(true);
                }
                if ui.button(big("Cancel")).clicked() {
                    go = Some(false);
                }
            });
        });
        match go {
            Some(true) => {
                self.overwrite = None;
                self.status = match s.tables.get(&no) {
                    Some(t) => match export(&self.options.journal, t, &untilde(&path), true) {
                        Ok(msg) => msg,
                        Err(e) => format!("Export failed: {e}"),
                    },
                    None => format!("Export failed: no table {no}"),
                };
            }
            Some(false) => {
                self.overwrite = None;
                self.status = format!("Not exported: {path} kept as it was.");
            }
            None => {}
        }
    }

    fn new_game_dialog(&mut self, ctx: &egui::Context) {
        let demo = self.options.demo_timing.is_some();
        let Some(g) = self.new_game.as_mut() else {
            return;
        };
        let mut go = None;
        crate::dialog("new-game", "New game").show(ctx, |ui| {
            ui.label(big("New game"));
            egui::Grid::new("new-game-grid")
                .num_columns(2)
                .spacing([12.0, 8.0])
                .show(ui, |ui| {
                    let field = |ui: &mut Ui, label: &str, value: &mut String| {
                        let l = ui.label(label);
                        ui.text_edit_singleline(value).labelled_by(l.id);
                        ui.end_row();
                    };
                    field(ui, "Table name", &mut g.name);
                    field(ui, "White player", &mut g.white_player);
                    field(ui, "Black player", &mut g.black_player);
                    ui.label("Rule set");
                    // Rows of their own (a wrapping row in a grid cell overlapped the next
                    // field with its last line).
                    ui.vertical(|ui| {
                        for row in RuleSet::ALL.chunks(4) {
                            ui.horizontal(|ui| {
                                for r in row {
                                    ui.radio_value(&mut g.rules, *r, r.id());
                                }
                            });
                        }
                    });
                    ui.end_row();
                    let l = ui.label("Options (key=value, …)");
                    ui.vertical(|ui| {
                        ui.add_enabled(!g.simulated, egui::TextEdit::singleline(&mut g.options))
                            .labelled_by(l.id);
                        if g.simulated {
                            ui.label(
                                RichText::new(format!(
                                    "Not with simulated boards: they play the {} demo game, \
                                     scripted for the rule set's own options.",
                                    g.rules.id()
                                ))
                                .size(17.0),
                            );
                        }
                    });
                    ui.end_row();
                    ui.label("Language");
                    ui.horizontal(|ui| {
                        for (l, words) in [
                            ("en", "en English"),
                            ("fr", "fr français"),
                            ("ru", "ru русский"),
                        ] {
                            ui.radio_value(&mut g.lang, l.to_owned(), words);
                        }
                    });
                    ui.end_row();
                    field(ui, "Time control (25+10 or none)", &mut g.time_control);
                    let l = ui.label("Settle time (ms)");
                    ui.add(
                        egui::DragValue::new(&mut g.settle_ms)
                            .range(kriegspiel_table::SETTLE_RANGE),
                    )
                    .labelled_by(l.id);
                    ui.end_row();
                    ui.label("Boards");
                    ui.vertical(|ui| {
                        ui.horizontal(|ui| {
                            ui.add_enabled_ui(demo, |ui| {
                                ui.radio_value(&mut g.simulated, true, "simulated (demo game)");
                            });
                            ui.radio_value(&mut g.simulated, false, "serial ports");
                        });
                        if !demo {
                            ui.label(
                                RichText::new(
                                    "Simulated boards: only in a window started with --demo.",
                                )
                                .size(17.0),
                            );
                        }
                    });
                    ui.end_row();
                    if !g.simulated {
                        field(ui, "White's port (empty: none)", &mut g.white_port);
                        field(ui, "Black's port (empty: none)", &mut g.black_port);
                    }
                });
            reserved_message(ui, g.error.as_deref(), 2);
            ui.horizontal(|ui| {
                if ui.button(big("Open the table")).clicked() {
                    go = Some(true);
                }
                if ui.button(big("Cancel")).clicked() {
                    go = Some(false);
                }
            });
        });
        match go {
            Some(true) => match self.new_game_spec() {
                Ok(spec) => {
                    self.new_game = None;
                    self.to_open = Some(spec);
                }
                Err(e) => {
                    if let Some(g) = self.new_game.as_mut() {
                        g.error = Some(e);
                    }
                }
            },
            Some(false) => self.new_game = None,
            None => {}
        }
    }

    /// The table the new-game dialog describes: every field shown is in it (the options
    /// only on serial ports: simulated boards play a scripted demo game).
    fn new_game_spec(&self) -> Result<TableSpec, String> {
        let Some(g) = &self.new_game else {
            return Err("no new game".to_owned());
        };
        let name = g.name.trim().to_owned();
        if name.is_empty() {
            return Err("Table name: a table needs a name".to_owned());
        }
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let mut spec = match (g.simulated, self.options.demo_timing) {
            (true, Some(timing)) => {
                // The simulated players wait for verdicts: their script follows the settle
                // time chosen.
                let timing = kriegspiel_games::Timing {
                    settle_ms: u64::from(g.settle_ms),
                    ..timing
                };
                let built = kriegspiel_games::builtin(g.rules.id(), timing)
                    .map_err(|e| format!("No demo game for {}: {e}", g.rules.id()))?;
                built.table_spec(&name, &timing)
            }
            (true, None) => {
                return Err("Boards: simulated boards only in a window started with --demo".into())
            }
            (false, _) => TableSpec {
                name: name.clone(),
                setup: TableSetup {
                    rules: g.rules.id().to_owned(),
                    ..TableSetup::default()
                },
                white: text(&g.white_port).map_or(BoardSource::Absent, |p| {
                    BoardSource::Serial(PathBuf::from(p))
                }),
                black: text(&g.black_port).map_or(BoardSource::Absent, |p| {
                    BoardSource::Serial(PathBuf::from(p))
                }),
                scripted: Vec::new(),
                resume: kriegspiel_hall::Resume::New,
            },
        };
        spec.resume = kriegspiel_hall::Resume::New;
        let setup = &mut spec.setup;
        setup.white_player = text(&g.white_player);
        setup.black_player = text(&g.black_player);
        setup.lang.clone_from(&g.lang);
        setup.time_control = text(&g.time_control).unwrap_or_else(|| "none".to_owned());
        setup.settle_ms = g.settle_ms;
        if !g.simulated {
            // Players at real boards: the clocks wait for the arbiter's start.
            kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
                .id()
                .clone_into(&mut setup.clock_start);
            for pair in g.options.split([',', ' ']).filter(|p| !p.is_empty()) {
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| format!("Options: '{pair}' is not key=value"))?;
                setup.options.insert(k.to_owned(), v.to_owned());
            }
        }
        setup.config().map_err(|e| e.to_string())?;
        Ok(spec)
    }

    /// Asks the hall to open a table; its `Opened` (or `OpenFailed`) event follows.
    fn open(&mut self, spec: TableSpec) {
        let name = spec.name.clone();
        let (last_no, notices) = {
            let mut s = lock(&self.store);
            s.expect(&spec.name, spec.setup.clone());
            s.expect_boards(
                &spec.name,
                crate::has_board(&spec.white),
                crate::has_board(&spec.black),
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

/// The games still being played (not over, not stopped by a failure).
fn unfinished(s: &Store) -> usize {
    s.tables
        .values()
        .filter(|t| !t.is_over() && t.failed.is_none())
        .count()
}

/// Writes the PGN of the table's game, read from the journal (read-only), to `path`; a
/// file already there is replaced only if `replace` (else it is an error).
pub fn export(
    journal: &std::path::Path,
    t: &TableState,
    path: &std::path::Path,
    replace: bool,
) -> Result<String, String> {
    if path.as_os_str().is_empty() {
        return Err("give a file name".to_owned());
    }
    let shown = path.display();
    let j = Journal::open_read_only(journal).map_err(|e| e.to_string())?;
    let games = j.games().map_err(|e| e.to_string())?;
    let record = games
        .iter()
        .find(|g| g.id == t.game)
        .ok_or_else(|| format!("game {} is not in {}", t.game, journal.display()))?;
    let read = j.events(record.id);
    let text = kriegspiel_hall::pgn::pgn(record, &read.events, read.damage.as_ref())
        .map_err(|e| e.to_string())?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(replace)
        .truncate(replace)
        .create_new(!replace)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => format!("{shown} already exists"),
            _ => format!("cannot write {shown}: {e}"),
        })?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    let damage = read
        .damage
        .map(|d| format!(" (journal damaged: {d}; the events before it)"))
        .unwrap_or_default();
    Ok(format!(
        "Table {}: PGN of game {} written to {}{damage}.",
        t.no,
        t.game,
        tilde(path)
    ))
}

impl eframe::App for ArbiterApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_square_differs_two_squares_differ() {
        assert_eq!(squares_differ(1), "1 square differs");
        assert_eq!(squares_differ(2), "2 squares differ");
        assert_eq!(squares_differ(0), "0 squares differ");
    }

    #[test]
    fn pgn_file_names_say_the_event_the_table_and_the_game_in_safe_characters() {
        assert_eq!(
            pgn_file_name(Some("Club night"), "table-2", 7),
            "club-night_table-2_game-7.pgn"
        );
        assert_eq!(
            pgn_file_name(None, "demo-cincinnati", 1),
            "kriegspiel_demo-cincinnati_game-1.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("../../etc/passwd"), "  Ann / Bob: 1st  ", 3),
            "etc-passwd_ann-bob-1st_game-3.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("***"), "4", 9),
            "kriegspiel_table-4_game-9.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("Kriegspiel demo: cincinnati game, seed 1003"), "t", 1),
            "kriegspiel-demo-cincinnati_t_game-1.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("Турнир"), "", 2),
            "турнир_table_game-2.pgn"
        );
    }
}
