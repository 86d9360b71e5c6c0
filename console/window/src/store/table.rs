//! One table as the window knows it: its view, tries, log, links, seats and set-up, and
//! what it answers from them (the players' names, the rules in words, the live clocks, the
//! alerts).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use kriegspiel_boardlink::Health;
use kriegspiel_hall::{GameId, TableNo, TableSetup, TableView};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::{GameResult, Lang, RuleSet, Wording};
use kriegspiel_table::clock::{hms, LOW_TIME_WARNINGS};
use kriegspiel_table::render::Hearer;
use kriegspiel_table::{Millis, TimeControl};

use crate::words::{color_name, duration_words};

/// Log rows kept per table (the journal has them all).
pub const LOG_ROWS: usize = 400;

/// One line of a table's announcement log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    pub at: Millis,
    /// Who heard it (`None`: the arbiter alone).
    pub heard: Option<Hearer>,
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
    pub links: ByColor<LinkState>,
    /// Since when each board has been out of sync with the official position.
    pub out_of_sync_since: ByColor<Option<Instant>>,
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
    pub has_board: ByColor<Option<bool>>,
}

impl TableState {
    pub(super) fn new(
        no: TableNo,
        name: String,
        game: GameId,
        lang: Lang,
        wording: Wording,
    ) -> TableState {
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
            out_of_sync_since: ByColor::default(),
            flag_fallen: None,
            clock_seen_max: 0,
            draw_offer: None,
            refused: None,
            result: None,
            failed: None,
            seat_codes: ByColor::default(),
            seated: ByColor::default(),
            has_board: ByColor::default(),
        }
    }

    /// A timed game whose clocks wait for the arbiter (or the boards) to start them.
    pub fn clocks_waiting(&self) -> bool {
        self.view.as_ref().is_some_and(|v| v.clocks_waiting)
    }

    /// Whether `c` plays without a board: no link is expected (the table was opened without
    /// a port for him, or his set-up says so).
    pub fn without_board(&self, c: Color) -> bool {
        let by_setup = self
            .setup
            .as_ref()
            .is_some_and(|s| c.fold_wb(s.white_without_board, s.black_without_board));
        self.links[c].connected.is_none() && (self.has_board[c] == Some(false) || by_setup)
    }

    /// Adds a line to the log (`heard`: `None` for the arbiter alone); a blank one is not.
    pub(super) fn log(&mut self, at: Millis, heard: Option<Hearer>, text: String) {
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
                .unwrap_or_else(|| color_name(Color::White)),
            s.and_then(|s| s.black_player.clone())
                .unwrap_or_else(|| color_name(Color::Black)),
        )
    }

    /// A side in an alert: "White (Ann)", or "White" when no name is known.
    pub fn who(&self, c: Color) -> String {
        let name = self
            .setup
            .as_ref()
            .and_then(|s| c.fold_wb(s.white_player.as_deref(), s.black_player.as_deref()));
        let side = color_name(c);
        match name {
            Some(n) => format!("{side} ({n})"),
            None => side,
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
    pub(super) fn agrees(&self, setup: &TableSetup) -> bool {
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
            let link = &self.links[c];
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
            if let Some(since) = self.out_of_sync_since[c] {
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
