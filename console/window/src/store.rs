//! What the window knows about the hall: every table's last view, its tries, its
//! announcement log, its links and its alerts, built only from [`HallEvent`]s. The store
//! never touches a table; time is passed in, so tests drive it event by event.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

use kriegspiel_boardlink::{Health, LinkEvent};
use kriegspiel_hall::{GameId, HallEvent, SeatChange, TableNo, TableSetup, TableView};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::{Announcement, Audience, GameResult, Lang, RuleSet, Verdict, Wording};
use kriegspiel_table::clock::{hms, LOW_TIME_WARNINGS};
use kriegspiel_table::{
    render, ArbiterNote, Millis, Output, PublicMessage, Termination, TimeControl,
};

/// Log rows kept per table (the journal has them all).
pub const LOG_ROWS: usize = 400;

/// Who heard a line of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// Said aloud to both players.
    Both,
    /// One player only.
    Only(Color),
    /// The arbiter only (notes, touch-move breaches in warn mode, link events).
    Arbiter,
}

impl Heard {
    pub fn label(self) -> &'static str {
        match self {
            Heard::Both => "both",
            Heard::Only(Color::White) => "White only",
            Heard::Only(Color::Black) => "Black only",
            Heard::Arbiter => "arbiter",
        }
    }
}

/// One line of a table's announcement log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    pub at: Millis,
    pub heard: Heard,
    pub text: String,
}

/// One try of the current move, with the referee's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryRow {
    pub color: Color,
    pub uci: String,
    /// The answer's words.
    pub text: String,
    /// The try stood (it was a legal move).
    pub stood: bool,
    pub at: Millis,
}

/// A board link as the arbiter sees it.
#[derive(Debug, Clone, Default)]
pub struct LinkState {
    /// `None` until the link said anything.
    pub connected: Option<bool>,
    pub board_id: Option<u32>,
    pub health: Health,
    /// The last link event, in words.
    pub last_event: String,
    /// When the window last heard from this link.
    pub heard_at: Option<Instant>,
    /// A problem the link reported (open failure, protocol mismatch, fault), until it connects.
    pub problem: Option<String>,
}

/// Something that needs the arbiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub kind: AlertKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertKind {
    OutOfSync,
    LinkDown,
    /// A running game's clock at or under one of the low-time marks (60 s, 10 s).
    LowTime,
    FlagFallen,
    DrawOffer,
    Refused,
    Failed,
}

/// One table, as far as its events told.
#[derive(Debug, Clone)]
pub struct TableState {
    pub no: TableNo,
    pub name: String,
    pub game: GameId,
    pub lang: Lang,
    pub wording: Wording,
    /// The table's set-up: the one the window opened it with or read from the journal,
    /// and only when it agrees with the rule set and language the hall reports (none:
    /// not known; the rule set and language shown are then the hall's own).
    pub setup: Option<TableSetup>,
    /// The journal was read for the set-up (whatever it gave), so it is not read again.
    pub setup_looked_up: bool,
    pub resumed_events: usize,
    pub view: Option<TableView>,
    /// When the last view arrived (live clocks count from it).
    pub view_seen: Option<Instant>,
    /// The tries of the move being played (after a move stood: that move's tries until the
    /// next try).
    pub tries: Vec<TryRow>,
    /// Moves that stood, for the try list's heading.
    pub moves: u32,
    pub log: VecDeque<LogRow>,
    pub last_public: Option<String>,
    pub links: [LinkState; 2],
    /// Since when each board has been out of sync with the official position.
    pub out_of_sync_since: [Option<Instant>; 2],
    pub flag_fallen: Option<Color>,
    /// The most time either clock showed in a view (the base time, when the set-up is not
    /// known).
    pub clock_seen_max: Millis,
    pub draw_offer: Option<Color>,
    /// The last refused arbiter action, with the hall's reason.
    pub refused: Option<String>,
    pub result: Option<Option<GameResult>>,
    pub failed: Option<String>,
    /// Each player's seat code for the players' channel.
    pub seat_codes: ByColor<String>,
    /// Each seat's terminal, when one holds it: since when, and whether it is a voice one.
    pub seated: ByColor<Option<(Instant, bool)>>,
    /// Whether each player plays on a board with a link (none: not known, e.g. a table the
    /// window did not open and whose set-up does not say).
    pub has_board: [Option<bool>; 2],
}

impl TableState {
    fn new(no: TableNo, name: String, game: GameId, lang: Lang, wording: Wording) -> TableState {
        TableState {
            no,
            name,
            game,
            lang,
            wording,
            setup: None,
            setup_looked_up: false,
            resumed_events: 0,
            view: None,
            view_seen: None,
            tries: Vec::new(),
            moves: 0,
            log: VecDeque::new(),
            last_public: None,
            links: Default::default(),
            out_of_sync_since: [None; 2],
            flag_fallen: None,
            clock_seen_max: 0,
            draw_offer: None,
            refused: None,
            result: None,
            failed: None,
            seat_codes: ByColor::default(),
            seated: ByColor::default(),
            has_board: [None; 2],
        }
    }

    /// Whether `c` plays without a board: no link is expected (the table was opened without
    /// a port for him, or his set-up says so).
    /// A timed game whose clocks wait for the arbiter (or the boards) to start them.
    pub fn clocks_waiting(&self) -> bool {
        self.view.as_ref().is_some_and(|v| v.clocks_waiting)
    }

    pub fn without_board(&self, c: Color) -> bool {
        let i = crate::board::idx(c);
        let by_setup = self.setup.as_ref().is_some_and(|s| match c {
            Color::White => s.white_without_board,
            Color::Black => s.black_without_board,
        });
        self.links[i].connected.is_none() && (self.has_board[i] == Some(false) || by_setup)
    }

    fn log(&mut self, at: Millis, heard: Heard, text: String) {
        if text.trim().is_empty() {
            return;
        }
        if self.log.len() == LOG_ROWS {
            self.log.pop_front();
        }
        self.log.push_back(LogRow { at, heard, text });
    }

    /// The players' names, as set up ("White" / "Black" when none was given).
    pub fn players(&self) -> (String, String) {
        let s = self.setup.as_ref();
        (
            s.and_then(|s| s.white_player.clone())
                .unwrap_or_else(|| "White".to_owned()),
            s.and_then(|s| s.black_player.clone())
                .unwrap_or_else(|| "Black".to_owned()),
        )
    }

    /// A side in an alert: "White (Ann)", or "White" when no name is known.
    pub fn who(&self, c: Color) -> String {
        let name = self.setup.as_ref().and_then(|s| match c {
            Color::White => s.white_player.as_deref(),
            Color::Black => s.black_player.as_deref(),
        });
        let side = crate::board::color_name(c);
        match name {
            Some(n) => format!("{side} ({n})"),
            None => side.to_owned(),
        }
    }

    /// The rule set's id, as the hall reports it (the table's own wording), whatever the
    /// window expected.
    pub fn rules(&self) -> &'static str {
        self.wording.rules.id()
    }

    /// The rule set with its options in words, e.g. "rand (ladder=true)"; "(options ?)"
    /// when the set-up is not known.
    pub fn rules_words(&self) -> String {
        match &self.setup {
            Some(s) if s.options.is_empty() => self.rules().to_owned(),
            Some(s) => {
                let options: Vec<String> =
                    s.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{} ({})", self.rules(), options.join(", "))
            }
            None => format!("{} (options ?)", self.rules()),
        }
    }

    /// The time control in words: "25+10", "none", or "?" when the set-up is not known
    /// ("? (clocks running)" when the hall's view shows clocks).
    pub fn time_control(&self) -> String {
        match &self.setup {
            Some(s) => s.time_control.clone(),
            None if self.view.as_ref().is_some_and(|v| v.clocks.is_some()) => {
                "? (clocks running)".to_owned()
            }
            None => "?".to_owned(),
        }
    }

    /// The base time of the game's clocks: the set-up's time control, else the most
    /// either clock has shown.
    pub fn clock_base(&self) -> Option<Millis> {
        let from_setup = self
            .setup
            .as_ref()
            .and_then(|s| s.time_control.parse::<TimeControl>().ok());
        match from_setup {
            Some(TimeControl::Fischer { base_ms, .. }) => Some(base_ms),
            Some(TimeControl::None) => None,
            None => (self.clock_seen_max > 0).then_some(self.clock_seen_max),
        }
    }

    /// The lowest low-time mark `left` is at or under. Marks at or above the base time are
    /// skipped, as the table skips its warnings to the player (a 1+0 game is not "under a
    /// minute" from its first second).
    pub fn low_time_mark(&self, left: Millis) -> Option<Millis> {
        let base = self.clock_base();
        LOW_TIME_WARNINGS
            .iter()
            .copied()
            .filter(|m| left <= *m && base.is_none_or(|b| *m < b))
            .min()
    }

    /// Whether the set-up agrees with what the hall reports of the table.
    fn agrees(&self, setup: &TableSetup) -> bool {
        setup.rules.parse::<RuleSet>().ok() == Some(self.wording.rules)
            && setup.lang.parse::<Lang>().ok() == Some(self.lang)
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some() || self.view.as_ref().is_some_and(|v| v.result.is_some())
    }

    pub fn paused(&self) -> bool {
        self.view.as_ref().is_some_and(|v| v.paused)
    }

    /// Both clocks now: the running one counted down since the view arrived.
    pub fn clocks_at(&self, now: Instant) -> Option<(ByColor<Millis>, Option<Color>)> {
        let view = self.view.as_ref()?;
        let (mut remaining, running) = view.clocks?;
        if let (Some(c), Some(seen)) = (running, self.view_seen) {
            if !view.paused && view.result.is_none() {
                let gone = u64::try_from(now.saturating_duration_since(seen).as_millis())
                    .unwrap_or(u64::MAX);
                let r = remaining.get_mut(c);
                *r = r.saturating_sub(gone);
            }
        }
        Some((remaining, running))
    }

    /// What needs the arbiter now: boards out of sync longer than `sync_after`, links down,
    /// a fallen flag, an open draw offer, a refused action, a stopped table.
    pub fn alerts(&self, now: Instant, sync_after: Duration) -> Vec<Alert> {
        let mut out = Vec::new();
        let who = |c: Color| self.who(c);
        if let Some(e) = &self.failed {
            out.push(Alert {
                kind: AlertKind::Failed,
                text: format!("Table stopped: {e}"),
            });
        }
        for c in Color::ALL {
            let i = crate::board::idx(c);
            let link = &self.links[i];
            if link.connected == Some(false) || link.problem.is_some() {
                let why = link
                    .problem
                    .clone()
                    .unwrap_or_else(|| link.last_event.clone());
                out.push(Alert {
                    kind: AlertKind::LinkDown,
                    text: format!("{}'s board link is down: {why}", who(c)),
                });
            }
            if let Some(since) = self.out_of_sync_since[i] {
                let d = now.saturating_duration_since(since);
                if d >= sync_after && !self.is_over() {
                    out.push(Alert {
                        kind: AlertKind::OutOfSync,
                        text: format!("{}'s board out of sync for {} s", who(c), d.as_secs()),
                    });
                }
            }
        }
        if let Some(c) = self.flag_fallen {
            out.push(Alert {
                kind: AlertKind::FlagFallen,
                text: format!("{}'s flag has fallen", who(c)),
            });
        }
        if let Some((left, _)) = self.clocks_at(now).filter(|_| !self.is_over()) {
            for c in Color::ALL {
                let left = *left.get(c);
                if left == 0 {
                    // The table rules on it at the same moment; until its verdict arrives.
                    out.push(Alert {
                        kind: AlertKind::FlagFallen,
                        text: format!("{}'s flag has fallen", who(c)),
                    });
                } else if let Some(mark) = self.low_time_mark(left) {
                    out.push(Alert {
                        kind: AlertKind::LowTime,
                        text: format!(
                            "{}: under {} on the clock ({} left)",
                            who(c),
                            duration_words(mark),
                            hms(left)
                        ),
                    });
                }
            }
        }
        if let Some(c) = self.draw_offer.filter(|_| !self.is_over()) {
            out.push(Alert {
                kind: AlertKind::DrawOffer,
                text: format!("{} offers a draw", who(c)),
            });
        }
        if let Some(r) = &self.refused {
            out.push(Alert {
                kind: AlertKind::Refused,
                text: r.clone(),
            });
        }
        out
    }
}

/// Everything the window shows, fed by hall events.
#[derive(Debug, Default)]
pub struct Store {
    pub tables: BTreeMap<TableNo, TableState>,
    /// Set-ups the window knows by table name (the round's, and those it opened).
    setups: HashMap<String, TableSetup>,
    /// Whether each player of a table the window knows by name has a board.
    boards: HashMap<String, [bool; 2]>,
    /// Hall-wide notices: tables that could not be opened, events lost.
    pub notices: Vec<String>,
    /// Events the window missed because it fell behind.
    pub lost_events: u64,
    /// Bumped by every event that changes what the window shows at once (not by a link's
    /// snapshot that confirms what the window knows, nor by a view equal to the last one but
    /// for its time): the window is woken when it changes.
    pub generation: u64,
    /// Bumped by events that change only a link's counters (frames, last heard, last event):
    /// the table view redraws them with its once-a-second tick, nothing wakes the window.
    pub counters: u64,
}

impl Store {
    pub fn new() -> Store {
        Store::default()
    }

    /// Remembers the set-up a table of this name is being opened with, for the `Opened`
    /// event that will follow (taken by it, or dropped by its `OpenFailed`). Tables already
    /// open keep theirs, even of the same name.
    pub fn expect(&mut self, name: &str, setup: TableSetup) {
        self.setups.insert(name.to_owned(), setup);
    }

    /// Remembers whether each player of the table being opened has a board (a port or a
    /// simulated board), for its `Opened` event.
    pub fn expect_boards(&mut self, name: &str, white: bool, black: bool) {
        self.boards.insert(name.to_owned(), [white, black]);
    }

    /// Tables whose set-up is not known and was not looked up yet: (table, game).
    pub fn setups_to_look_up(&self) -> Vec<(TableNo, GameId)> {
        self.tables
            .values()
            .filter(|t| t.setup.is_none() && !t.setup_looked_up)
            .map(|t| (t.no, t.game))
            .collect()
    }

    /// The set-up the journal holds for a table's game (none: it could not be read). It is
    /// taken only if it agrees with the rule set and language the hall reports.
    pub fn looked_up(&mut self, table: TableNo, setup: Option<TableSetup>) {
        self.generation += 1;
        if let Some(t) = self.tables.get_mut(&table) {
            t.setup_looked_up = true;
            if let Some(s) = setup.filter(|s| t.agrees(s)) {
                t.setup = Some(s);
            }
        }
    }

    pub fn lost(&mut self, n: u64) {
        self.lost_events += n;
        self.generation += 1;
        self.notices.push(format!(
            "The window fell behind and missed {n} events (the journal has them)."
        ));
    }

    /// Takes one hall event in. `generation` is bumped only if the event changes something
    /// the window shows beyond a link's counters (those bump `counters`).
    pub fn apply(&mut self, event: &HallEvent, now: Instant) {
        match self.apply_quietly(event, now) {
            Change::Visible => self.generation += 1,
            Change::Counters => self.counters += 1,
            Change::Nothing => {}
        }
    }

    fn apply_quietly(&mut self, event: &HallEvent, now: Instant) -> Change {
        match event {
            HallEvent::Opened {
                table,
                name,
                game,
                resumed_events,
                wording,
                lang,
                seats,
                ..
            } => {
                let mut t = TableState::new(*table, name.clone(), *game, *lang, *wording);
                t.seat_codes = seats.clone();
                if let Some(b) = self.boards.remove(name) {
                    t.has_board = b.map(Some);
                }
                if let Some(expected) = self.setups.remove(name) {
                    if t.agrees(&expected) {
                        t.setup = Some(expected);
                    } else {
                        t.log(
                            0,
                            Heard::Arbiter,
                            format!(
                                "The hall runs this table with the {} rules in '{}', not the {} rules in '{}' the window expected.",
                                wording.rules.id(),
                                lang,
                                expected.rules,
                                expected.lang
                            ),
                        );
                    }
                }
                t.resumed_events = *resumed_events;
                if *resumed_events > 0 {
                    t.log(
                        0,
                        Heard::Arbiter,
                        format!(
                            "Resumed from the journal after {resumed_events} event{}.",
                            if *resumed_events == 1 { "" } else { "s" }
                        ),
                    );
                }
                self.tables.insert(*table, t);
            }
            HallEvent::OpenFailed { name, error } => {
                self.setups.remove(name);
                self.boards.remove(name);
                self.notices
                    .push(format!("Table '{name}' could not be opened: {error}"));
            }
            HallEvent::Output { table, at, output } => {
                // A clock's report changes nothing here (the views carry the clocks).
                if let (Some(t), false) = (
                    self.tables.get_mut(table),
                    matches!(output, Output::Clock { .. }),
                ) {
                    output_in(t, *at, output);
                    return Change::Visible;
                }
                return Change::Nothing;
            }
            HallEvent::Link {
                table,
                color,
                event,
                health,
            } => {
                return match self.tables.get_mut(table) {
                    Some(t) => link_in(t, *color, event, health, now),
                    None => Change::Nothing,
                };
            }
            HallEvent::View(view) => {
                if let Some(t) = self.tables.get_mut(&view.table) {
                    if t.view.as_ref().is_some_and(|old| same_but_time(old, view)) {
                        // A board's snapshot confirmed what it showed: only the time moved
                        // (kept for the log's stamps; the live clocks count from the view
                        // that set them).
                        if let Some(old) = t.view.as_mut() {
                            old.at = view.at;
                        }
                        return Change::Nothing;
                    }
                    for c in Color::ALL {
                        let i = crate::board::idx(c);
                        let in_sync = view.boards[c].in_sync;
                        if in_sync {
                            t.out_of_sync_since[i] = None;
                        } else if t.out_of_sync_since[i].is_none() {
                            t.out_of_sync_since[i] = Some(now);
                        }
                    }
                    if view.result.is_some() {
                        t.result = view.result;
                    }
                    if let Some((left, _)) = &view.clocks {
                        t.clock_seen_max = t.clock_seen_max.max(left.white).max(left.black);
                    }
                    t.view = Some((**view).clone());
                    t.view_seen = Some(now);
                }
            }
            HallEvent::Ended { table, result, .. } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.result = Some(*result);
                    t.draw_offer = None;
                }
            }
            HallEvent::Failed { table, error } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.failed = Some(error.clone());
                }
            }
            HallEvent::Seat(notice) => {
                if let Some(t) = self.tables.get_mut(&notice.table) {
                    match notice.change {
                        SeatChange::Taken { voice } => {
                            t.seated[notice.color] = Some((now, voice));
                        }
                        SeatChange::Left | SeatChange::CutOff { .. } | SeatChange::Released => {
                            t.seated[notice.color] = None;
                        }
                        SeatChange::Refused { .. } => {}
                    }
                    let at = t.view.as_ref().map_or(0, |v| v.at);
                    t.log(at, Heard::Arbiter, format!("{notice}."));
                }
            }
        }
        Change::Visible
    }
}

/// What an event changed for the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// Nothing shown.
    Nothing,
    /// Only a link's counters, last event and the time it was last heard (the table view's
    /// link section, redrawn once a second).
    Counters,
    /// Something shown at once.
    Visible,
}

/// Two views of a table that differ at most in their time.
fn same_but_time(a: &TableView, b: &TableView) -> bool {
    let mut b = b.clone();
    b.at = a.at;
    *a == b
}

/// A low-time mark in words: "1 minute", "10 seconds".
pub fn duration_words(ms: Millis) -> String {
    let s = ms / 1000;
    match (s % 60, s / 60) {
        (0, 1) => "1 minute".to_owned(),
        (0, m) if m > 1 => format!("{m} minutes"),
        _ => format!("{s} seconds"),
    }
}

/// The words the table's one rendering gives an output.
fn words(t: &TableState, o: &Output) -> String {
    render::text(&t.wording, t.lang, o).unwrap_or_default()
}

fn heard(a: Audience) -> Heard {
    match a {
        Audience::Both => Heard::Both,
        Audience::Mover(c) | Audience::Private(c) => Heard::Only(c),
    }
}

fn output_in(t: &mut TableState, at: Millis, o: &Output) {
    let text = words(t, o);
    match o {
        Output::Started { report } => {
            let h = heard(Announcement::Report(*report).audience());
            if h == Heard::Both && !text.is_empty() {
                t.last_public = Some(text.clone());
            }
            t.log(at, h, text);
        }
        Output::Verdict {
            color,
            tried,
            verdict,
        } => {
            let stood = matches!(verdict, Verdict::Moved(_));
            // The first try after a move stood opens the next move's list.
            if t.tries.last().is_some_and(|r| r.stood) {
                t.tries.clear();
            }
            t.tries.push(TryRow {
                color: *color,
                uci: tried.to_uci(),
                text: text.clone(),
                stood,
                at,
            });
            if stood {
                t.moves += 1;
                t.draw_offer = None;
                t.refused = None;
            }
            let h = heard(Announcement::from(*verdict).audience());
            if h == Heard::Both && !text.is_empty() {
                t.last_public = Some(text.clone());
            }
            let who = match color {
                Color::White => "White",
                Color::Black => "Black",
            };
            t.log(at, h, format!("{who} tries {}: {text}", tried.to_uci()));
        }
        Output::Reply { reply, .. } => {
            let h = heard(Announcement::Reply(*reply).audience());
            if h == Heard::Both && !text.is_empty() {
                t.last_public = Some(text.clone());
            }
            t.log(at, h, text);
        }
        Output::Private { color, .. } => t.log(at, Heard::Only(*color), text),
        Output::Arbiter { .. } => t.log(at, Heard::Arbiter, text),
        Output::Public { message } => {
            match message {
                PublicMessage::DrawOffered(c) => t.draw_offer = Some(*c),
                PublicMessage::GameEnded(end) => {
                    t.result = Some(end.result);
                    t.draw_offer = None;
                    if let Termination::TimeForfeit(c) = end.termination {
                        t.flag_fallen = Some(c);
                    }
                }
                PublicMessage::Paused
                | PublicMessage::Resumed
                | PublicMessage::PositionCorrected
                | PublicMessage::MoveTakenBack => t.refused = None,
                PublicMessage::BoardsSwapped
                | PublicMessage::SameBoardId(_)
                | PublicMessage::ClocksStarted(_) => {}
            }
            if matches!(message, PublicMessage::MoveTakenBack) {
                t.tries.clear();
                t.moves = t.moves.saturating_sub(1);
            }
            t.last_public = Some(text.clone());
            t.log(at, Heard::Both, text);
        }
        Output::Note { note } => {
            if let ArbiterNote::Refused { .. } = note {
                t.refused = Some(text.clone());
            }
            t.log(at, Heard::Arbiter, text);
        }
        Output::Clock { .. } => {}
        // Said again at the arbiter's request: logged, but no new try, move or result.
        Output::Repeated { output } => {
            let h = match render::hearer(output) {
                Some(render::Hearer::Both) => Heard::Both,
                Some(render::Hearer::Player(c)) => Heard::Only(c),
                None => Heard::Arbiter,
            };
            t.log(at, h, format!("Repeated: {text}"));
        }
    }
}

/// A link event in words.
pub fn link_words(event: &LinkEvent) -> String {
    match event {
        LinkEvent::Connected {
            board_id, firmware, ..
        } => format!(
            "connected (board {board_id}, firmware {}.{}.{})",
            firmware[0], firmware[1], firmware[2]
        ),
        LinkEvent::Lift { square, .. } => format!("lift {}", square_name(*square)),
        LinkEvent::Place { square, .. } => format!("place {}", square_name(*square)),
        LinkEvent::Snapshot { .. } => "snapshot".to_owned(),
        LinkEvent::Resync { reason, .. } => format!("resync ({reason:?})"),
        LinkEvent::Disconnected { reason } => format!("disconnected ({reason:?})"),
        LinkEvent::OpenFailed { error } => format!("cannot open the port: {error}"),
        LinkEvent::VersionMismatch { local, remote } => {
            format!("protocol {remote} on the board, {local} here")
        }
        LinkEvent::Fault { code, .. } => format!("board fault {code:?}"),
    }
}

fn square_name(i: u8) -> String {
    if i < 64 {
        kriegspiel_referee::shakmaty::Square::new(u32::from(i)).to_string()
    } else {
        format!("#{i}")
    }
}

fn link_in(
    t: &mut TableState,
    c: Color,
    event: &LinkEvent,
    health: &Health,
    now: Instant,
) -> Change {
    let l = &mut t.links[crate::board::idx(c)];
    // A snapshot that agrees with the occupancy, on a link already up with no problem, only
    // moves its counters (the board's position comes with the table's views).
    let confirms = matches!(event, LinkEvent::Snapshot { .. })
        && l.connected == Some(true)
        && l.problem.is_none();
    l.health = *health;
    l.heard_at = Some(now);
    l.last_event = link_words(event);
    match event {
        LinkEvent::Connected { board_id, .. } => {
            l.connected = Some(true);
            l.board_id = Some(*board_id);
            l.problem = None;
        }
        LinkEvent::Disconnected { .. } => l.connected = Some(false),
        LinkEvent::OpenFailed { .. } | LinkEvent::VersionMismatch { .. } => {
            l.connected = Some(false);
            l.problem = Some(l.last_event.clone());
        }
        LinkEvent::Lift { .. }
        | LinkEvent::Place { .. }
        | LinkEvent::Snapshot { .. }
        | LinkEvent::Resync { .. }
        | LinkEvent::Fault { .. } => {
            if l.connected.is_none() {
                l.connected = Some(true);
            }
        }
    }
    if matches!(event, LinkEvent::Disconnected { .. }) {
        let text = format!(
            "{} board: {}",
            match c {
                Color::White => "White's",
                Color::Black => "Black's",
            },
            l.last_event
        );
        let at = t.view.as_ref().map_or(0, |v| v.at);
        t.log(at, Heard::Arbiter, text);
    }
    if confirms {
        Change::Counters
    } else {
        Change::Visible
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kriegspiel_referee::shakmaty::Bitboard;
    use kriegspiel_referee::Options;

    pub(crate) fn opened(table: TableNo) -> HallEvent {
        HallEvent::Opened {
            table,
            name: format!("table-{table}"),
            game: table as GameId,
            resumed_events: 0,
            wording: Wording::new(RuleSet::Cincinnati, Options::default(), Lang::En),
            lang: Lang::En,
            seats: ByColor {
                white: "W-CODE".to_owned(),
                black: "B-CODE".to_owned(),
            },
            heard: ByColor::default(),
            ignored: Vec::new(),
        }
    }

    const START: u64 = 0xffff_0000_0000_ffff;

    fn view(table: TableNo, at: Millis) -> HallEvent {
        HallEvent::View(Box::new(TableView {
            table,
            at,
            position: Default::default(),
            paused: false,
            result: None,
            clocks: None,
            clocks_waiting: false,
            boards: ByColor::new_with(|_| kriegspiel_hall::BoardSeen {
                occupancy: Bitboard(START),
                in_sync: true,
            }),
            touched: Default::default(),
        }))
    }

    fn link(table: TableNo, color: Color, event: LinkEvent, frames: u64) -> HallEvent {
        HallEvent::Link {
            table,
            color,
            event,
            health: Health {
                frames,
                ..Health::default()
            },
        }
    }

    fn snapshot(board_ms: u32) -> LinkEvent {
        LinkEvent::Snapshot {
            occupancy: START,
            board_ms,
        }
    }

    fn connected() -> LinkEvent {
        LinkEvent::Connected {
            protocol: 1,
            firmware: [1, 0, 0],
            board_id: 7,
        }
    }

    #[test]
    fn a_view_equal_to_the_last_but_for_its_time_changes_nothing_shown() {
        let now = Instant::now();
        let mut s = Store::new();
        s.apply(&opened(1), now);
        s.apply(&view(1, 1000), now);
        let g = s.generation;
        s.apply(&view(1, 1450), now);
        assert_eq!(s.generation, g, "an identical view woke the window");
        assert_eq!(s.tables[&1].view.as_ref().unwrap().at, 1450);
        // A man lifted: the sensed board changed, the window is woken.
        let HallEvent::View(mut lifted) = view(1, 1900) else {
            unreachable!()
        };
        lifted.boards.white = kriegspiel_hall::BoardSeen {
            occupancy: Bitboard(START & !(1 << 12)),
            in_sync: false,
        };
        s.apply(&HallEvent::View(lifted), now);
        assert_eq!(s.generation, g + 1);
    }

    #[test]
    fn a_snapshot_that_confirms_the_board_moves_only_the_link_s_counters() {
        let now = Instant::now();
        let mut s = Store::new();
        s.apply(&opened(1), now);
        let g = s.generation;
        // The link comes up: shown.
        s.apply(&link(1, Color::White, connected(), 1), now);
        assert_eq!(s.generation, g + 1);
        let g = s.generation;
        let c = s.counters;
        s.apply(&link(1, Color::White, snapshot(450), 5), now);
        s.apply(&link(1, Color::White, snapshot(900), 9), now);
        assert_eq!(s.generation, g, "a confirming snapshot woke the window");
        assert_eq!(s.counters, c + 2);
        let l = &s.tables[&1].links[0];
        assert_eq!(l.health.frames, 9);
        assert_eq!(l.last_event, "snapshot");
        // A lift is shown at once.
        let lift = LinkEvent::Lift {
            square: 12,
            board_ms: 1000,
        };
        s.apply(&link(1, Color::White, lift, 10), now);
        assert_eq!(s.generation, g + 1);
        // A board never heard before: its first snapshot says the link is up.
        let g = s.generation;
        s.apply(&link(1, Color::Black, snapshot(10), 1), now);
        assert_eq!(s.generation, g + 1);
        assert_eq!(s.tables[&1].links[1].connected, Some(true));
    }

    #[test]
    fn sixteen_tables_of_idle_boards_wake_the_window_for_nothing_in_a_minute() {
        let start = Instant::now();
        let mut s = Store::new();
        for t in 1..=16 {
            s.apply(&opened(t), start);
            s.apply(&view(t, 0), start);
            for c in Color::ALL {
                s.apply(&link(t, c, connected(), 1), start);
            }
        }
        let g = s.generation;
        // What 32 idle boards send: a snapshot every 450 ms each, each followed by the
        // table's view (the same men, a later time); the clock reports of untimed games.
        let mut events = 0;
        for beat in 1..=(60_000 / 450) {
            let at = beat * 450;
            for t in 1..=16 {
                for c in Color::ALL {
                    let frames = 1 + beat * 3;
                    s.apply(
                        &link(t, c, snapshot(at as u32), frames),
                        start + Duration::from_millis(at),
                    );
                    s.apply(&view(t, at), start + Duration::from_millis(at));
                    events += 2;
                }
            }
        }
        assert!(events > 8000);
        assert_eq!(s.generation, g, "idle boards woke the window");
    }
}
