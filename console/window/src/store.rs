//! What the window knows about the hall: every table's last view, its tries, its
//! announcement log, its links and its alerts, built only from [`HallEvent`]s. The store
//! never touches a table; time is passed in, so tests drive it event by event.
//!
//! This file routes each hall event to its table; `table` holds what the window knows of
//! one table and answers from it, `outputs` takes a table's outputs and link events in.

mod outputs;
mod table;

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use kriegspiel_hall::{GameId, HallEvent, SeatChange, SeatNotice, TableNo, TableSetup, TableView};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::{Lang, Wording};
use kriegspiel_table::Output;

pub use outputs::link_words;
use outputs::{link_in, output_in, ARBITER};
pub use table::{Alert, AlertKind, LinkState, LogRow, TableState, TryRow, LOG_ROWS};

/// Everything the window shows, fed by hall events.
#[derive(Debug, Default)]
pub struct Store {
    pub tables: BTreeMap<TableNo, TableState>,
    /// Set-ups the window knows by table name (the round's, and those it opened).
    setups: HashMap<String, TableSetup>,
    /// Whether each player of a table the window knows by name has a board.
    boards: HashMap<String, ByColor<bool>>,
    /// Hall-wide notices: tables that could not be opened, events lost.
    pub notices: Vec<String>,
    /// The hall has stopped (its events ended).
    pub hall_stopped: bool,
    /// Events the window missed because it fell behind.
    pub lost_events: u64,
    /// Bumped by every event that changes what the window shows at once (not by a link's
    /// snapshot that confirms what the window knows, nor by a view equal to the last one but
    /// for its time): the window is woken when it changes.
    pub generation: u64,
    /// Bumped by events that change only a link's counters (frames, last heard, last event):
    /// the table view redraws them with its once-a-second tick, nothing wakes the window.
    pub counters: u64,
    /// The round's tables that other consoles run, as their summaries on the broker say.
    pub remote: BTreeMap<TableNo, RemoteTable>,
    /// The round's consoles, as their presence on the broker says, and since when.
    pub consoles: BTreeMap<String, (kriegspiel_net::Status, Instant)>,
}

/// Another console's table: its last summary, and when it came.
#[derive(Debug, Clone)]
pub struct RemoteTable {
    pub summary: kriegspiel_hall::TableSummary,
    pub since: Instant,
}

/// What the hall says of a table it opened (the fields of its `Opened` event).
struct Opened<'a> {
    table: TableNo,
    name: &'a str,
    game: GameId,
    resumed_events: usize,
    wording: Wording,
    lang: Lang,
    seats: &'a ByColor<String>,
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
    pub fn expect_boards(&mut self, name: &str, boards: ByColor<bool>) {
        self.boards.insert(name.to_owned(), boards);
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

    /// Takes news of the round's other consoles in (a table this window's own hall runs is
    /// shown from its events, not from its summary).
    pub fn round_news(&mut self, news: kriegspiel_hall::RoundNews, now: Instant) {
        match news {
            kriegspiel_hall::RoundNews::Summary(s) => {
                if self.tables.contains_key(&s.table) {
                    return;
                }
                self.remote.insert(
                    s.table,
                    RemoteTable {
                        summary: *s,
                        since: now,
                    },
                );
            }
            kriegspiel_hall::RoundNews::Console { name, status } => {
                let same = self.consoles.get(&name).is_some_and(|(s, _)| *s == status);
                if same {
                    return;
                }
                self.consoles.insert(name, (status, now));
            }
        }
        self.generation += 1;
    }

    /// Whether console `name` is down (gone without a word), stopped, or up, as last heard;
    /// none when it has said nothing yet.
    pub fn console(&self, name: &str) -> Option<&(kriegspiel_net::Status, Instant)> {
        self.consoles.get(name)
    }

    /// Takes one hall event in. `generation` is bumped only if the event changes something
    /// the window shows beyond a link's counters (those bump `counters`).
    pub fn apply(&mut self, event: &HallEvent, now: Instant) {
        if let HallEvent::Opened { table, .. } = event {
            // The window's own from now on, shown from its events.
            self.remote.remove(table);
        }
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
            } => self.opened(Opened {
                table: *table,
                name,
                game: *game,
                resumed_events: *resumed_events,
                wording: *wording,
                lang: *lang,
                seats,
            }),
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
            HallEvent::View(view) => return self.view(view, now),
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
            HallEvent::Seat(notice) => self.seat(notice, now),
            HallEvent::Broker(notice) => self.notices.push(notice.to_string()),
        }
        Change::Visible
    }

    /// A table the hall opened: it takes the set-up and boards the window expected under
    /// its name, if the hall runs it with the rules and language expected.
    fn opened(&mut self, o: Opened<'_>) {
        let mut t = TableState::new(o.table, o.name.to_owned(), o.game, o.lang, o.wording);
        t.seat_codes = o.seats.clone();
        if let Some(b) = self.boards.remove(o.name) {
            t.has_board = b.map(Some);
        }
        if let Some(expected) = self.setups.remove(o.name) {
            if t.agrees(&expected) {
                t.setup = Some(expected);
            } else {
                t.log(
                    0,
                    ARBITER,
                    format!(
                        "The hall runs this table with the {} rules in '{}', not the {} rules in '{}' the window expected.",
                        o.wording.rules.id(),
                        o.lang,
                        expected.rules,
                        expected.lang
                    ),
                );
            }
        }
        t.resumed_events = o.resumed_events;
        if o.resumed_events > 0 {
            t.log(
                0,
                ARBITER,
                format!(
                    "Resumed from the journal after {} event{}.",
                    o.resumed_events,
                    if o.resumed_events == 1 { "" } else { "s" }
                ),
            );
        }
        self.tables.insert(o.table, t);
    }

    /// A table's view: its boards' sync, result and clocks; one equal to the last but for
    /// its time changes nothing shown.
    fn view(&mut self, view: &TableView, now: Instant) -> Change {
        let Some(t) = self.tables.get_mut(&view.table) else {
            return Change::Visible;
        };
        if t.view.as_ref().is_some_and(|old| same_but_time(old, view)) {
            // A board's snapshot confirmed what it showed: only the time moved (kept for
            // the log's stamps; the live clocks count from the view that set them).
            if let Some(old) = t.view.as_mut() {
                old.at = view.at;
            }
            return Change::Nothing;
        }
        for c in Color::ALL {
            let since = &mut t.out_of_sync_since[c];
            if view.boards[c].in_sync {
                *since = None;
            } else if since.is_none() {
                *since = Some(now);
            }
        }
        if view.result.is_some() {
            t.result = view.result;
        }
        t.draw_offer = view.draw_offer.filter(|_| view.result.is_none());
        if let Some((left, _)) = &view.clocks {
            t.clock_seen_max = t.clock_seen_max.max(left.white).max(left.black);
        }
        t.view = Some(view.clone());
        t.view_seen = Some(now);
        Change::Visible
    }

    /// A seat taken or freed: who holds it, and a line in the arbiter's log.
    fn seat(&mut self, notice: &SeatNotice, now: Instant) {
        if let Some(t) = self.tables.get_mut(&notice.table) {
            match notice.change {
                SeatChange::Taken { voice } => {
                    t.seated[notice.color] = Some((now, voice));
                }
                SeatChange::Left | SeatChange::CutOff { .. } | SeatChange::Released => {
                    t.seated[notice.color] = None;
                }
                SeatChange::Refused { .. } | SeatChange::Replaced => {}
            }
            let at = t.view.as_ref().map_or(0, |v| v.at);
            t.log(at, ARBITER, format!("{notice}."));
        }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kriegspiel_boardlink::{Health, LinkEvent};
    use kriegspiel_referee::shakmaty::Bitboard;
    use kriegspiel_referee::{Options, RuleSet};
    use kriegspiel_table::Millis;
    use std::time::Duration;

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
            set_aside: None,
            follows: None,
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
            draw_offer: None,
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

    /// A window started again on a resumed game never heard the offer said: the table's
    /// view carries it, and the alert shows it until it is answered.
    #[test]
    fn a_draw_offer_made_before_the_window_started_is_shown() {
        let now = Instant::now();
        let mut s = Store::new();
        s.apply(&opened(1), now);
        let HallEvent::View(mut offered) = view(1, 1000) else {
            unreachable!()
        };
        offered.draw_offer = Some(Color::White);
        s.apply(&HallEvent::View(offered), now);
        let alerts = s.tables[&1].alerts(now, Duration::from_secs(60));
        assert!(
            alerts
                .iter()
                .any(|a| a.kind == AlertKind::DrawOffer && a.text.contains("offers a draw")),
            "{alerts:?}"
        );
        s.apply(&view(1, 2000), now);
        let alerts = s.tables[&1].alerts(now, Duration::from_secs(60));
        assert!(
            alerts.iter().all(|a| a.kind != AlertKind::DrawOffer),
            "{alerts:?}"
        );
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
        let l = &s.tables[&1].links[Color::White];
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
        assert_eq!(s.tables[&1].links[Color::Black].connected, Some(true));
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
