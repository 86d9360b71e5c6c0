//! The table: the referee, both players' recognizers and the table clock. This file holds
//! the table's state, how an event reaches it and what it tells about itself; each kind of
//! change has a module of its own.

mod arbiter;
mod clocks;
mod corrections;
mod endings;
mod mixups;
mod timers;
mod tries;

use kriegspiel_referee::{GameResult, Referee, Try, Wording};
use shakmaty::{Bitboard, ByColor, Color, Position, Role};

use crate::clock::Clock;
use crate::game::{ArbiterNote, TableEnd};
use crate::input::{BoardInput, Event, Input};
use crate::output::Output;
use crate::recognizer::{Recognizer, Status};
use crate::{ClockStart, Error, Millis, TableConfig, TouchMove};

/// One game at the table. Every change comes through [`Table::apply`]; the same events
/// always rebuild the same table.
#[derive(Debug, Clone)]
pub struct Table {
    config: TableConfig,
    referee: Referee,
    wording: Wording,
    white: Recognizer,
    black: Recognizer,
    /// The table clock: the latest time seen. Events from the past are taken as now.
    now: Millis,
    /// The chess clock, when the table plays with a time control.
    clock: Option<Clock>,
    paused: bool,
    /// An ending decided at the table (resignation, flag, agreement, arbiter).
    end: Option<TableEnd>,
    /// The side whose draw offer is open.
    draw_offer: Option<Color>,
    /// The referee at the start or at the last correction, and the moves since, each with
    /// the clocks before it: what a take-back replays.
    origin: Referee,
    moves: Vec<(Try, Option<ByColor<Millis>>)>,
    /// Castling rights (their rooks' squares) that corrections took away only because the
    /// position did not allow them then (a rook or king put off its square): a correction
    /// that puts the men back gives them back. At the origin, and now: a move of the king
    /// or from or to the rook's square forfeits them, as it would the right itself.
    origin_held: Bitboard,
    held: Bitboard,
    /// Board ids: the one each player's board should report, and the one it reported.
    expected_ids: ByColor<Option<u32>>,
    reported_ids: ByColor<Option<u32>>,
    /// A board mix-up was announced and not put right yet (no guidance meanwhile).
    swapped: bool,
    same_id: bool,
    /// The last public announcement, for the arbiter's "repeat".
    last_public: Option<Output>,
    /// A timed game whose clocks wait for the arbiter (or the boards) to start them.
    clocks_waiting: bool,
    /// Each board has sent its snapshot since it (re)connected: it is known to be there.
    board_seen: ByColor<bool>,
}

impl Table {
    /// Sets up the table; the outputs hold the referee's opening announcement.
    pub fn new(config: TableConfig, at: Millis) -> Result<(Table, Vec<Output>), Error> {
        config.validate()?;
        let referee = Referee::new(&config.game)?;
        let wording = Wording::new(config.game.rules, config.game.options, config.lang);
        let pos = referee.position();
        let mut clock = Clock::new(config.time_control);
        let clocks_waiting = clock.is_some() && config.clock_start != ClockStart::AtOnce;
        if let Some(c) = clock.as_mut().filter(|_| !clocks_waiting) {
            c.start(pos.turn(), at);
        }
        let mut table = Table {
            white: Recognizer::new(Color::White, pos, at),
            black: Recognizer::new(Color::Black, pos, at),
            origin: referee.clone(),
            referee,
            wording,
            expected_ids: config.board_ids,
            config,
            now: at,
            clock,
            paused: false,
            end: None,
            draw_offer: None,
            moves: Vec::new(),
            origin_held: Bitboard::EMPTY,
            held: Bitboard::EMPTY,
            reported_ids: ByColor::default(),
            swapped: false,
            same_id: false,
            last_public: None,
            clocks_waiting,
            board_seen: ByColor::default(),
        };
        let mut out = vec![Output::Started {
            report: *table.referee.last_report(),
        }];
        table.push_clock(&mut out);
        table.remember_public(&out);
        Ok((table, out))
    }

    /// Applies one event: first every timer due by its time, then the input itself.
    pub fn apply(&mut self, event: Event) -> Vec<Output> {
        let at = event.at.max(self.now);
        let mut out = Vec::new();
        self.run_timers(at, &mut out);
        self.now = at;
        match event.input {
            Input::Tick => {}
            Input::Board { color, .. } if self.config.without_board[color] => {}
            Input::Play { color, tried } => {
                self.stirring(at, |t| t.play(color, tried, at, &mut out));
            }
            Input::Board { color, input } => self.board_input(color, input, at, &mut out),
            Input::Resign { color } => self.resign(color, at, &mut out),
            Input::Draw { color } => self.draw(color, at, &mut out),
            Input::Restarted { down_ms, counted } => {
                out.push(Output::Note {
                    note: ArbiterNote::Restarted {
                        down_ms,
                        clocks: self.clock.is_some(),
                        counted,
                    },
                });
                // Where the clocks stand now, with the time up to the stop counted: what
                // the game's last move left on them is no longer true (attack review).
                self.push_clock(&mut out);
            }
            Input::Arbiter(action) => self.arbiter(action, at, &mut out),
            Input::Promote { color, role } => out.push(self.promote(color, role)),
            Input::Ask { color, question } => out.push(self.ask(color, question)),
        }
        self.follow_boardless();
        self.back_in_sync(&mut out);
        // Timers due at this very instant (a guidance delay that ends now).
        self.run_timers(at, &mut out);
        self.follow_boardless();
        self.remember_public(&out);
        out
    }

    /// Whether `event` would change nothing and say nothing: a board's periodic snapshot of
    /// what the table knows already, with no timer due by its time. A console need not
    /// journal it (most of a quiet evening's board traffic): a replay without it ends in
    /// the same table.
    pub fn changes_nothing(&self, event: &Event) -> bool {
        let Input::Board {
            color,
            input: BoardInput::Snapshot(shown),
        } = event.input
        else {
            return false;
        };
        if self
            .next_deadline()
            .is_some_and(|due| due <= event.at.max(self.now))
        {
            return false;
        }
        if self.config.without_board[color] {
            return true;
        }
        let known = self.board_seen[color] && self.board(color).shows(shown);
        // A mix-up of boards said, or put right, is news (see `check_boards`).
        let mixup_unchanged = if shown == self.official(color) {
            !self.swapped
        } else if shown == self.official(!color) && shown.any() {
            self.swapped
        } else {
            true
        };
        let starts_clocks = self.config.clock_start == ClockStart::Boards
            && self.clocks_waiting
            && !self.is_over()
            && self.boards_ready();
        known && mixup_unchanged && !starts_clocks
    }

    /// What a player's board sent: mix-ups first, then his recognizer; boards that are
    /// there and in sync may start the clocks.
    fn board_input(&mut self, color: Color, input: BoardInput, at: Millis, out: &mut Vec<Output>) {
        self.check_boards(color, input, out);
        let pos = self.referee.position().clone();
        let his_turn = self.his_turn(color);
        let touch_move = self.config.touch_move != TouchMove::Off;
        self.board_mut(color)
            .apply(input, at, &pos, his_turn, touch_move);
        match input {
            BoardInput::Snapshot(_) => self.board_seen[color] = true,
            BoardInput::Disconnected => self.board_seen[color] = false,
            _ => {}
        }
        if self.config.clock_start == ClockStart::Boards && self.boards_ready() {
            self.start_clocks(at, out);
        }
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The ending decided at the table, if any (the referee's own is `referee().end()`).
    pub fn table_end(&self) -> Option<&TableEnd> {
        self.end.as_ref()
    }

    /// The result of the game once it is over: the table's ending or the referee's.
    /// `Some(None)`: voided.
    pub fn result(&self) -> Option<Option<GameResult>> {
        match (&self.end, self.referee.end()) {
            (Some(end), _) => Some(end.result),
            (None, Some(end)) => Some(Some(end.result)),
            (None, None) => None,
        }
    }

    /// The open draw offer's side.
    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }

    fn remember_public(&mut self, out: &[Output]) {
        if let Some(last) = out.iter().rev().find(|o| self.is_public(o)) {
            let original = match last {
                Output::Repeated { output } => output.as_ref(),
                o => o,
            };
            self.last_public = Some(original.clone());
        }
    }

    /// Whether both players hear `o` (what "repeat" may say again).
    fn is_public(&self, o: &Output) -> bool {
        crate::render::hearer(o) == Some(crate::render::Hearer::Both)
    }

    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    pub fn wording(&self) -> Wording {
        self.wording
    }

    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    /// The table clock: the time of the latest event.
    pub fn now(&self) -> Millis {
        self.now
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some() || self.referee.end().is_some()
    }

    /// What each board should show: the official squares of that player's men.
    pub fn official(&self, color: Color) -> Bitboard {
        self.referee.position().board().by_color(color)
    }

    /// What the table believes that player's board shows.
    pub fn occupancy(&self, color: Color) -> Bitboard {
        self.board(color).occupancy()
    }

    /// Whether that player's board is in sync with the official position.
    pub fn in_sync(&self, color: Color) -> bool {
        self.status(color) == Status::InSync
    }

    /// The man that player touched this turn and still owes a try with (touch-move).
    pub fn touched(&self, color: Color) -> Option<shakmaty::Square> {
        self.board(color).touched()
    }

    /// The piece that player chose for his next promotion (none: a queen).
    pub fn promotion_choice(&self, color: Color) -> Option<Role> {
        self.board(color).promotion()
    }

    pub(super) fn board(&self, color: Color) -> &Recognizer {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    pub(super) fn board_mut(&mut self, color: Color) -> &mut Recognizer {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    pub(super) fn his_turn(&self, color: Color) -> bool {
        !self.is_over() && !self.paused && self.referee.turn() == color
    }

    pub(super) fn status(&self, color: Color) -> Status {
        self.board(color)
            .status(self.referee.position(), self.his_turn(color))
    }

    /// Boards the table keeps itself (a player without a reed board) follow the official
    /// position.
    pub(super) fn follow_boardless(&mut self) {
        let pos = self.referee.position().clone();
        for c in Color::ALL {
            if self.config.without_board[c] {
                self.board_mut(c).follow(&pos);
            }
        }
    }
}

#[cfg(test)]
mod tests;
