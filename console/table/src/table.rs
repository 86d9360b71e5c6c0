//! The table: the referee, both players' recognizers and the table clock.

use kriegspiel_referee::{
    Error as RefereeError, GameResult, Question, Referee, Try, Verdict, Wording,
};
use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, ByColor, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position,
    PositionError, Role,
};

use crate::clock::Clock;
use crate::game::{clean_reason, ArbiterAction, ArbiterNote, PublicMessage, TableEnd, Termination};
use crate::input::{BoardInput, Event, Input};
use crate::output::{Output, PrivateMessage};
use crate::own_board::has_possible_try;
use crate::recognizer::{castling_rook, made_with, with_promotion, Recognizer, Standing, Status};
use crate::{ClockStart, Error, Millis, TableConfig, TouchMove};

/// Timers due at one instant are handled in one pass; a pass always settles what it handled,
/// so this bound is never reached in practice and only guards against a loop.
const MAX_TIMER_PASSES: usize = 64;

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
            Input::Board { color, input } => {
                self.check_boards(color, input, &mut out);
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
                    self.start_clocks(at, &mut out);
                }
            }
            Input::Resign { color } => {
                if self.is_over() {
                    out.push(Output::Private {
                        color,
                        message: PrivateMessage::GameOver,
                    });
                } else {
                    let end = TableEnd {
                        result: Some(GameResult::win_for(!color)),
                        termination: Termination::Resignation(color),
                    };
                    self.finish(end, at, &mut out);
                }
            }
            Input::Draw { color } => self.draw(color, at, &mut out),
            Input::Restarted { down_ms } => out.push(Output::Note {
                note: ArbiterNote::Restarted {
                    down_ms,
                    clocks: self.clock.is_some(),
                },
            }),
            Input::Arbiter(action) => self.arbiter(action, at, &mut out),
            Input::Promote { color, role } => {
                let message = match role {
                    Role::Queen | Role::Rook | Role::Bishop | Role::Knight => {
                        self.board_mut(color).choose_promotion(role);
                        PrivateMessage::PromotionChoice(role)
                    }
                    Role::Pawn | Role::King => PrivateMessage::BadPromotionChoice(role),
                };
                out.push(Output::Private { color, message });
            }
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

    /// The clocks now, when the table has a clock.
    pub fn clocks(&self) -> Option<(ByColor<Millis>, Option<Color>)> {
        self.clock
            .as_ref()
            .map(|c| (c.remaining_at(self.now), c.running()))
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

    fn push_clock(&self, out: &mut Vec<Output>) {
        if let Some((remaining, running)) = self.clocks() {
            out.push(Output::Clock { remaining, running });
        }
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

    fn is_public(&self, o: &Output) -> bool {
        crate::render::spoken(&self.wording, self.config.lang, o).is_some()
    }

    /// Ends the game at the table: clocks stop, both players hear why.
    fn finish(&mut self, end: TableEnd, at: Millis, out: &mut Vec<Output>) {
        self.draw_offer = None;
        self.end = Some(end.clone());
        if let Some(c) = &mut self.clock {
            c.stop(at);
        }
        out.push(Output::Public {
            message: PublicMessage::GameEnded(end),
        });
        self.push_clock(out);
    }

    fn draw(&mut self, color: Color, at: Millis, out: &mut Vec<Output>) {
        if self.is_over() {
            out.push(Output::Private {
                color,
                message: PrivateMessage::GameOver,
            });
        } else if self.draw_offer == Some(!color) {
            let end = TableEnd {
                result: Some(GameResult::Draw),
                termination: Termination::DrawAgreed,
            };
            self.finish(end, at, out);
        } else {
            self.draw_offer = Some(color);
            out.push(Output::Public {
                message: PublicMessage::DrawOffered(color),
            });
        }
    }

    /// Board ids and snapshots that show a mix-up of boards: said once, clearly.
    fn check_boards(&mut self, color: Color, input: BoardInput, out: &mut Vec<Output>) {
        match input {
            BoardInput::Connected { board_id: Some(id) } => {
                self.reported_ids[color] = Some(id);
                if self.reported_ids[!color] == Some(id) {
                    if !std::mem::replace(&mut self.same_id, true) {
                        out.push(Output::Public {
                            message: PublicMessage::SameBoardId(id),
                        });
                    }
                } else if self.expected_ids[color].is_some_and(|e| e != id)
                    && self.expected_ids[!color] == Some(id)
                {
                    self.say_swapped(out);
                } else if self.expected_ids[color].is_none() {
                    self.expected_ids[color] = Some(id);
                } else if self.expected_ids[color] == Some(id) {
                    self.swapped = false;
                }
            }
            BoardInput::Disconnected => {
                self.reported_ids[color] = None;
                self.same_id = false;
            }
            BoardInput::Snapshot(bb) => {
                let mine = self.official(color);
                let theirs = self.official(!color);
                if bb == mine {
                    self.swapped = false;
                } else if bb == theirs && bb.any() {
                    self.say_swapped(out);
                }
            }
            BoardInput::Connected { board_id: None }
            | BoardInput::Lift(_)
            | BoardInput::Place(_) => {}
        }
    }

    fn say_swapped(&mut self, out: &mut Vec<Output>) {
        if !std::mem::replace(&mut self.swapped, true) {
            out.push(Output::Public {
                message: PublicMessage::BoardsSwapped,
            });
        }
    }

    fn refuse(out: &mut Vec<Output>, action: &ArbiterAction, reason: &str) {
        out.push(Output::Note {
            note: ArbiterNote::Refused {
                action: action.id(),
                reason: reason.to_owned(),
            },
        });
    }

    fn arbiter(&mut self, action: ArbiterAction, at: Millis, out: &mut Vec<Output>) {
        let over = self.is_over();
        match &action {
            ArbiterAction::Pause => {
                if over {
                    return Self::refuse(out, &action, "the game is over");
                }
                if self.paused {
                    return Self::refuse(out, &action, "the game is already paused");
                }
                self.paused = true;
                if let Some(c) = &mut self.clock {
                    c.stop(at);
                }
                out.push(Output::Public {
                    message: PublicMessage::Paused,
                });
                self.push_clock(out);
            }
            ArbiterAction::Resume => {
                if !self.paused {
                    return Self::refuse(out, &action, "the game is not paused");
                }
                self.paused = false;
                self.restart_clock(at);
                for c in Color::ALL {
                    self.board_mut(c).stir(at);
                }
                out.push(Output::Public {
                    message: PublicMessage::Resumed,
                });
                self.push_clock(out);
            }
            ArbiterAction::Put { .. }
            | ArbiterAction::Remove { .. }
            | ArbiterAction::SetPosition { .. } => {
                if over {
                    return Self::refuse(out, &action, "the game is over");
                }
                match self.corrected(&action) {
                    Ok((pos, held)) => {
                        let referee = Referee::from_position(
                            self.config.game.rules,
                            self.config.game.options,
                            pos,
                        );
                        self.origin = referee.clone();
                        self.referee = referee;
                        self.moves.clear();
                        self.origin_held = held;
                        self.held = held;
                        self.after_correction(at);
                        out.push(Output::Public {
                            message: PublicMessage::PositionCorrected,
                        });
                        self.push_clock(out);
                    }
                    Err(reason) => Self::refuse(out, &action, &reason),
                }
            }
            ArbiterAction::TakeBack => {
                if self.end.is_some() {
                    return Self::refuse(out, &action, "the game is over");
                }
                let Some(((_, clocks), kept)) = self.moves.split_last() else {
                    return Self::refuse(
                        out,
                        &action,
                        "no move stood since the start or the last correction",
                    );
                };
                let mut referee = self.origin.clone();
                let mut held = self.origin_held;
                for (tried, _) in kept {
                    let before = referee.position().clone();
                    if !matches!(referee.try_move(*tried), Ok(Verdict::Moved(_))) {
                        return Self::refuse(out, &action, "the earlier moves do not replay");
                    }
                    held = forfeit(held, &before, *tried);
                }
                let clocks = *clocks;
                self.moves.truncate(kept.len());
                self.referee = referee;
                self.held = held;
                if let (Some(c), Some(remaining)) = (&mut self.clock, clocks) {
                    c.set_remaining(remaining, at);
                }
                self.after_correction(at);
                out.push(Output::Public {
                    message: PublicMessage::MoveTakenBack,
                });
                self.push_clock(out);
            }
            ArbiterAction::Adjudicate { result, reason } => {
                if over {
                    return Self::refuse(out, &action, "the game is over");
                }
                let end = TableEnd {
                    result: Some(*result),
                    termination: Termination::Adjudication {
                        reason: clean_reason(reason),
                    },
                };
                self.finish(end, at, out);
            }
            ArbiterAction::Void { reason } => {
                if self.end.is_some() {
                    return Self::refuse(out, &action, "the game has already ended at the table");
                }
                let end = TableEnd {
                    result: None,
                    termination: Termination::Voided {
                        reason: clean_reason(reason),
                    },
                };
                self.finish(end, at, out);
            }
            ArbiterAction::StartClocks => {
                if over {
                    return Self::refuse(out, &action, "the game is over");
                }
                if self.clock.is_none() {
                    return Self::refuse(out, &action, "the game has no clocks");
                }
                if !self.clocks_waiting {
                    return Self::refuse(out, &action, "the clocks have started already");
                }
                self.start_clocks(at, out);
            }
            ArbiterAction::StartAll => {
                if self.clocks_waiting && !over {
                    self.start_clocks(at, out);
                }
            }
            ArbiterAction::Repeat => match self.last_public.clone() {
                Some(o) => out.push(Output::Repeated {
                    output: Box::new(o),
                }),
                None => Self::refuse(out, &action, "nothing has been announced yet"),
            },
        }
    }

    /// The position an arbiter's correction asks for, with the castling rights it holds
    /// back (the `held` field), or why it is impossible or changes nothing.
    fn corrected(&self, action: &ArbiterAction) -> Result<(Chess, Bitboard), String> {
        let now = self.referee.position().to_setup(EnPassantMode::Legal);
        let setup = match action {
            ArbiterAction::SetPosition { fen } => {
                let fen: Fen = fen.parse().map_err(|e| format!("not a FEN ({e})"))?;
                fen.into_setup()
            }
            ArbiterAction::Put { square, piece } => {
                let mut setup = now.clone();
                if setup.board.piece_at(*square) == Some(*piece) {
                    return Err(format!(
                        "no change ({} {} already stands on {square})",
                        crate::game::color_name(piece.color, kriegspiel_referee::Lang::En)
                            .to_lowercase(),
                        crate::output::role_name(piece.role, kriegspiel_referee::Lang::En)
                    ));
                }
                setup.board.set_piece_at(*square, *piece);
                // A right the position lost to an earlier correction comes back with its
                // men.
                setup.castling_rights |= self.held;
                setup
            }
            ArbiterAction::Remove { square } => {
                let mut setup = now.clone();
                if setup.board.remove_piece_at(*square).is_none() {
                    return Err(format!("{square} is already empty"));
                }
                setup.castling_rights |= self.held;
                setup
            }
            ArbiterAction::Pause
            | ArbiterAction::Resume
            | ArbiterAction::TakeBack
            | ArbiterAction::Adjudicate { .. }
            | ArbiterAction::Void { .. }
            | ArbiterAction::Repeat
            | ArbiterAction::StartClocks
            | ArbiterAction::StartAll => return Err("not a correction".to_owned()),
        };
        let wanted = setup.castling_rights;
        let pos = Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(PositionError::ignore_invalid_castling_rights)
            .or_else(PositionError::ignore_invalid_ep_square)
            .map_err(|e| format!("impossible position: {e}"))?;
        if self.config.game.rules == kriegspiel_referee::RuleSet::Russian
            && !pos.castles().castling_rights().is_empty()
        {
            return Err("the chess battle has no castling".to_owned());
        }
        if pos.to_setup(EnPassantMode::Legal) == now {
            return Err("no change (the position is already that one)".to_owned());
        }
        let held = wanted & !pos.castles().castling_rights();
        Ok((pos, held))
    }

    /// The official position changed: both boards must follow it, the clock runs for the
    /// side to move, open offers lapse.
    fn after_correction(&mut self, at: Millis) {
        self.draw_offer = None;
        let pos = self.referee.position().clone();
        for c in Color::ALL {
            self.board_mut(c).reset(&pos, at);
        }
        self.restart_clock(at);
    }

    /// Both players' boards are there and show the official position (a player without a
    /// board counts as ready).
    fn boards_ready(&self) -> bool {
        Color::ALL
            .into_iter()
            .all(|c| self.config.without_board[c] || (self.board_seen[c] && self.in_sync(c)))
    }

    /// Starts the waiting clocks: the side to move's runs from now; both players hear it.
    fn start_clocks(&mut self, at: Millis, out: &mut Vec<Output>) {
        if !self.clocks_waiting || self.is_over() {
            return;
        }
        self.clocks_waiting = false;
        self.restart_clock(at);
        out.push(Output::Public {
            message: PublicMessage::ClocksStarted(self.referee.turn()),
        });
        self.push_clock(out);
    }

    /// Whether a timed game's clocks still wait to be started.
    pub fn clocks_waiting(&self) -> bool {
        self.clocks_waiting
    }

    fn restart_clock(&mut self, at: Millis) {
        let turn = self.referee.turn();
        let running = !self.paused && !self.is_over() && !self.clocks_waiting;
        if let Some(c) = &mut self.clock {
            if running {
                c.start(turn, at);
            } else {
                c.stop(at);
            }
        }
    }

    /// The next time a Tick must be delivered for a timer (settle window end, guidance), if any.
    pub fn next_deadline(&self) -> Option<Millis> {
        let clock = self
            .clock
            .as_ref()
            .filter(|_| !self.is_over())
            .and_then(|c| match (c.flag_due(), c.warning_due()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            });
        Color::ALL
            .into_iter()
            .filter_map(|c| self.deadline_of(c))
            .chain(clock)
            .min()
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

    fn board(&self, color: Color) -> &Recognizer {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn board_mut(&mut self, color: Color) -> &mut Recognizer {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    fn his_turn(&self, color: Color) -> bool {
        !self.is_over() && !self.paused && self.referee.turn() == color
    }

    fn status(&self, color: Color) -> Status {
        self.board(color)
            .status(self.referee.position(), self.his_turn(color))
    }

    fn settle_due(&self, color: Color) -> Option<(Millis, Standing)> {
        match self.status(color) {
            Status::Standing(s) => Some((
                self.board(color)
                    .last_change()
                    .saturating_add(Millis::from(self.config.settle_ms)),
                s,
            )),
            Status::InSync
            | Status::Moving
            | Status::AwaitingRemoval(_)
            | Status::OutOfSync
            | Status::Unknown => None,
        }
    }

    fn guidance_due(&self, color: Color) -> Option<Millis> {
        if self.is_over() || self.paused || self.swapped {
            return None;
        }
        self.board(color)
            .guidance_due(self.status(color), self.config.guide_ms)
    }

    fn deadline_of(&self, color: Color) -> Option<Millis> {
        let settle = self.settle_due(color).map(|(at, _)| at);
        match (settle, self.guidance_due(color)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Fires every timer due by `until`, each at its own time, earliest first.
    fn run_timers(&mut self, until: Millis, out: &mut Vec<Output>) {
        for _ in 0..MAX_TIMER_PASSES {
            let Some(due) = self.next_deadline().filter(|d| *d <= until) else {
                return;
            };
            self.now = self.now.max(due);
            for color in Color::ALL {
                if let Some((at, standing)) = self.settle_due(color) {
                    if at <= due {
                        self.complete(color, standing, due, out);
                    }
                }
                if self.guidance_due(color).is_some_and(|at| at <= due) {
                    let status = self.status(color);
                    let messages = self.board(color).guidance(self.referee.position(), status);
                    self.board_mut(color).mark_guided();
                    out.extend(
                        messages
                            .into_iter()
                            .map(|message| Output::Private { color, message }),
                    );
                }
            }
            self.clock_timers(due, out);
            self.back_in_sync(out);
        }
    }

    /// Low-time warnings and the flag.
    fn clock_timers(&mut self, due: Millis, out: &mut Vec<Output>) {
        if self.is_over() {
            return;
        }
        let Some(clock) = &mut self.clock else {
            return;
        };
        for (color, seconds) in clock.take_warnings(due) {
            out.push(Output::Private {
                color,
                message: PrivateMessage::LowTime(seconds),
            });
        }
        let Some(side) = clock.running().filter(|s| clock.flag_fallen(*s, due)) else {
            return;
        };
        // FIDE 6.9: a draw when the opponent cannot mate by any series of legal moves.
        let result = if self.referee.position().has_insufficient_material(!side) {
            GameResult::Draw
        } else {
            GameResult::win_for(!side)
        };
        let end = TableEnd {
            result: Some(result),
            termination: Termination::TimeForfeit(side),
        };
        self.finish(end, due, out);
    }

    fn back_in_sync(&mut self, out: &mut Vec<Output>) {
        for color in Color::ALL {
            let status = self.status(color);
            if self.board_mut(color).take_back_in_sync(status) {
                out.push(Output::Private {
                    color,
                    message: PrivateMessage::BackInSync,
                });
            }
        }
    }

    /// A try stood still for the settle window: touch-move, then the referee.
    fn complete(&mut self, color: Color, standing: Standing, at: Millis, out: &mut Vec<Output>) {
        self.stirring(at, |t| t.adjudicate(color, standing, at, out));
    }

    /// Runs a verdict; a board whose standing it changed without a switch starts its
    /// guidance delay now.
    fn stirring(&mut self, at: Millis, verdict: impl FnOnce(&mut Table)) {
        let before = Color::ALL.map(|c| self.status(c));
        verdict(self);
        for (c, was) in Color::ALL.into_iter().zip(before) {
            if self.status(c) != was {
                self.board_mut(c).stir(at);
            }
        }
    }

    /// Touch-move before a try with `tried.from`: whether it may be judged. A breach is
    /// reminded (strict: the try is not judged) or noted for the arbiter (warn).
    fn touch_move_allows(&self, color: Color, tried: Try, out: &mut Vec<Output>) -> bool {
        let pos = self.referee.position();
        let Some(touched) = self.board(color).touched() else {
            return true;
        };
        if made_with(pos, color, tried, touched) || !has_possible_try(pos, color, touched) {
            return true;
        }
        match self.config.touch_move {
            TouchMove::Strict => {
                out.push(Output::Private {
                    color,
                    message: PrivateMessage::MustMoveTouched(touched),
                });
                false
            }
            TouchMove::Warn => {
                out.push(Output::Arbiter {
                    color,
                    message: PrivateMessage::TouchMoveIgnored {
                        touched,
                        moved: tried.from,
                    },
                });
                true
            }
            TouchMove::Off => true,
        }
    }

    /// Asks the referee; a move that stands starts the opponent's turn (boards, clocks,
    /// offers). Pushes the verdict and the clocks.
    fn judge(
        &mut self,
        color: Color,
        tried: Try,
        at: Millis,
        out: &mut Vec<Output>,
    ) -> Result<Verdict, RefereeError> {
        let clocks_before = self.clock.as_ref().map(|c| c.remaining_at(at));
        let before = self.referee.position().clone();
        let verdict = self.referee.try_move(tried)?;
        out.push(Output::Verdict {
            color,
            tried,
            verdict,
        });
        if let Verdict::Moved(report) = verdict {
            self.moves.push((tried, clocks_before));
            self.held = forfeit(self.held, &before, report.played.unwrap_or(tried));
            if self.draw_offer == Some(!color) {
                self.draw_offer = None;
            }
            let ended = report.end.is_some();
            if let Some(c) = &mut self.clock {
                if ended || self.clocks_waiting {
                    // Before the clocks start no time runs and no increment is given.
                    c.stop(at);
                } else {
                    c.moved(color, at);
                }
            }
            let promoted = report.played.is_some_and(|p| p.promotion.is_some());
            self.board_mut(color).moved(promoted);
            let pos = self.referee.position().clone();
            self.board_mut(!color)
                .opponent_moved(report.capture.map(|c| c.square), &pos);
            self.push_clock(out);
        }
        Ok(verdict)
    }

    /// A try that stood still on his board for the settle window.
    fn adjudicate(&mut self, color: Color, standing: Standing, at: Millis, out: &mut Vec<Output>) {
        if !self.touch_move_allows(color, standing.tried, out) {
            self.board_mut(color).block(standing);
            return;
        }
        let pos = self.referee.position().clone();
        let touched = self.board(color).touched();
        let tried = with_promotion(&pos, color, standing.tried, self.board(color).promotion());
        match self.judge(color, tried, at, out) {
            Ok(Verdict::Moved(_)) => {}
            Ok(Verdict::Refused(_)) => {
                let rook = castling_rook(&pos, color, standing.tried);
                let releases = touched.is_some_and(|t| made_with(&pos, color, standing.tried, t));
                self.board_mut(color).refused(standing, rook, releases);
            }
            Err(e) => {
                // Never for a try of the side to move in a running game; kept for the arbiter.
                self.board_mut(color).block(standing);
                out.push(Output::Private {
                    color,
                    message: refusal_message(e),
                });
            }
        }
    }

    /// A try made without moving a man: by keys or by voice.
    fn play(&mut self, color: Color, tried: Try, at: Millis, out: &mut Vec<Output>) {
        let refusal = if self.is_over() {
            Some(PrivateMessage::GameOver)
        } else if self.paused {
            Some(PrivateMessage::GamePaused)
        } else if self.referee.turn() != color {
            Some(PrivateMessage::NotYourTurn)
        } else {
            None
        };
        if let Some(message) = refusal {
            out.push(Output::Private { color, message });
            return;
        }
        if !self.touch_move_allows(color, tried, out) {
            return;
        }
        let pos = self.referee.position().clone();
        let tried = if tried.promotion.is_some() {
            tried
        } else {
            with_promotion(&pos, color, tried, self.board(color).promotion())
        };
        let touched = self.board(color).touched();
        match self.judge(color, tried, at, out) {
            Ok(Verdict::Moved(_)) => {}
            Ok(Verdict::Refused(_)) => {
                if touched.is_some_and(|t| made_with(&pos, color, tried, t)) {
                    self.board_mut(color).release_touch();
                }
            }
            Err(e) => out.push(Output::Private {
                color,
                message: refusal_message(e),
            }),
        }
    }

    /// Boards the table keeps itself (a player without a reed board) follow the official
    /// position.
    fn follow_boardless(&mut self) {
        let pos = self.referee.position().clone();
        for c in Color::ALL {
            if self.config.without_board[c] {
                self.board_mut(c).follow(&pos);
            }
        }
    }

    fn ask(&mut self, color: Color, question: Question) -> Output {
        if self.is_over() {
            return Output::Private {
                color,
                message: PrivateMessage::GameOver,
            };
        }
        if self.referee.turn() != color {
            return Output::Private {
                color,
                message: PrivateMessage::NotYourTurn,
            };
        }
        match self.referee.ask(question) {
            Ok(reply) => Output::Reply {
                color,
                question,
                reply,
            },
            Err(e) => Output::Private {
                color,
                message: refusal_message(e),
            },
        }
    }
}

/// The held castling rights left after `tried` stood in `before`: a king's move forfeits
/// its side's, a move from or to a rook's square that one (as shakmaty does the rights).
fn forfeit(held: Bitboard, before: &Chess, tried: Try) -> Bitboard {
    let mut held = held.without(tried.from).without(tried.to);
    if let Some(king) = before
        .board()
        .piece_at(tried.from)
        .filter(|p| p.role == Role::King)
    {
        held = held.without(Bitboard::from_rank(king.color.backrank()));
    }
    held
}

fn refusal_message(e: RefereeError) -> PrivateMessage {
    match e {
        RefereeError::GameOver => PrivateMessage::GameOver,
        other @ (RefereeError::UnknownRules(_)
        | RefereeError::BadOption(_)
        | RefereeError::BadFen(_)
        | RefereeError::BadSetup(_)
        | RefereeError::BadMove(_)
        | RefereeError::BadLang(_)) => PrivateMessage::RefereeError(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_referee::GameConfig;
    use shakmaty::Square;

    fn table() -> Table {
        Table::new(TableConfig::default(), 0).unwrap().0
    }

    fn verdicts(out: &[Output]) -> Vec<String> {
        out.iter()
            .filter_map(|o| match o {
                Output::Verdict { tried, .. } => Some(tried.to_uci()),
                _ => None,
            })
            .collect()
    }

    /// The restart note speaks of clocks only when the game has them.
    #[test]
    fn a_restart_is_noted_with_the_time_the_console_was_down() {
        for (time_control, says) in [
            (
                "25+10",
                "The console restarted after 66 s down; that time did not count on the clocks.",
            ),
            ("none", "The console restarted after 66 s down."),
        ] {
            let config = TableConfig {
                time_control: time_control.parse().unwrap(),
                ..TableConfig::default()
            };
            let mut t = Table::new(config, 0).unwrap().0;
            let out = t.apply(Event::new(10, Input::Restarted { down_ms: 66_400 }));
            let notes: Vec<String> = out
                .iter()
                .filter_map(|o| match o {
                    Output::Note { note } => Some(note.text(kriegspiel_referee::Lang::En)),
                    _ => None,
                })
                .collect();
            assert_eq!(notes, [says]);
        }
    }

    #[test]
    fn timings_out_of_range_are_refused() {
        for (settle_ms, guide_ms, want) in [
            (99, 3000, Error::SettleOutOfRange(99)),
            (1501, 3000, Error::SettleOutOfRange(1501)),
            (300, 0, Error::GuideOutOfRange(0)),
        ] {
            let config = TableConfig {
                settle_ms,
                guide_ms,
                ..TableConfig::default()
            };
            assert_eq!(Table::new(config, 0).unwrap_err(), want);
        }
        for settle_ms in [100, 1500] {
            let config = TableConfig {
                settle_ms,
                ..TableConfig::default()
            };
            assert!(Table::new(config, 0).is_ok());
        }
    }

    #[test]
    fn a_bad_game_is_the_referees_error() {
        let config = TableConfig::new(GameConfig {
            fen: Some("not a fen".to_owned()),
            ..GameConfig::default()
        });
        assert!(matches!(
            Table::new(config, 0),
            Err(Error::Referee(RefereeError::BadFen(_)))
        ));
    }

    #[test]
    fn the_verdict_waits_for_the_settle_window_and_no_longer() {
        let mut t = table();
        assert!(t
            .apply(Event::lift(100, Color::White, Square::E2))
            .is_empty());
        assert_eq!(t.touched(Color::White), Some(Square::E2));
        assert!(t
            .apply(Event::place(200, Color::White, Square::E4))
            .is_empty());
        assert_eq!(t.next_deadline(), Some(500));
        assert!(t.apply(Event::tick(499)).is_empty());
        assert_eq!(verdicts(&t.apply(Event::tick(500))), ["e2e4"]);
        assert_eq!(t.referee().turn(), Color::Black);
        assert!(t.in_sync(Color::White) && t.in_sync(Color::Black));
        assert_eq!(t.touched(Color::White), None);
    }

    #[test]
    fn a_late_event_first_fires_the_timer_that_was_due() {
        let mut t = table();
        t.apply(Event::lift(100, Color::White, Square::E2));
        t.apply(Event::place(200, Color::White, Square::E4));
        // No tick was delivered at 500: Black's lift at 900 still comes after White's verdict.
        let out = t.apply(Event::lift(900, Color::Black, Square::E7));
        assert_eq!(verdicts(&out), ["e2e4"]);
        assert_eq!(t.touched(Color::Black), Some(Square::E7));
    }

    #[test]
    fn events_from_the_past_are_taken_as_now() {
        let mut t = table();
        t.apply(Event::tick(1000));
        t.apply(Event::lift(500, Color::White, Square::E2));
        t.apply(Event::place(400, Color::White, Square::E4));
        assert_eq!(t.now(), 1000);
        assert_eq!(t.next_deadline(), Some(1300));
    }

    #[test]
    fn the_promotion_choice_lasts_until_a_promotion_is_played() {
        let config = TableConfig::new(GameConfig {
            fen: Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1".to_owned()),
            ..GameConfig::default()
        });
        let (mut t, _) = Table::new(config, 0).unwrap();
        t.apply(Event::new(
            10,
            Input::Promote {
                color: Color::White,
                role: Role::Bishop,
            },
        ));
        assert_eq!(t.promotion_choice(Color::White), Some(Role::Bishop));
        t.apply(Event::lift(100, Color::White, Square::E1));
        t.apply(Event::place(200, Color::White, Square::D1));
        assert_eq!(verdicts(&t.apply(Event::tick(500))), ["e1d1"]);
        assert_eq!(t.promotion_choice(Color::White), Some(Role::Bishop));
    }

    #[test]
    fn the_same_events_rebuild_the_same_table() {
        let events = [
            Event::lift(100, Color::White, Square::E2),
            Event::place(200, Color::White, Square::E4),
            Event::tick(500),
            Event::lift(600, Color::Black, Square::D7),
            Event::place(700, Color::Black, Square::D5),
            Event::tick(1000),
            Event::lift(1100, Color::White, Square::E4),
            Event::place(1200, Color::White, Square::D5),
            Event::tick(1500),
            Event::lift(1600, Color::Black, Square::B8),
            Event::tick(9000),
        ];
        let run = || {
            let mut t = table();
            let out: Vec<Output> = events.iter().flat_map(|e| t.apply(e.clone())).collect();
            (format!("{t:?}"), out)
        };
        let (state, out) = run();
        assert_eq!(run(), (state, out.clone()));
        assert_eq!(verdicts(&out), ["e2e4", "d7d5", "e4d5"]);
    }
}
