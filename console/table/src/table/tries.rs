//! A player's tries and questions: touch-move, the referee's verdict and what it changes at
//! the table, tries made by keys or voice, promotion choices and questions.

use kriegspiel_referee::{Error as RefereeError, Question, Try, Verdict};
use shakmaty::{Color, Role};

use super::corrections::forfeit;
use super::Table;
use crate::config::TouchMove;
use crate::output::{Output, PrivateMessage};
use crate::own_board::has_possible_try;
use crate::recognizer::{castling_rook, made_with, with_promotion, Standing};
use crate::Millis;

impl Table {
    /// A player chooses the piece for his next promotion (a king or pawn is refused).
    pub(super) fn promote(&mut self, color: Color, role: Role) -> Output {
        let message = match role {
            Role::Queen | Role::Rook | Role::Bishop | Role::Knight => {
                self.board_mut(color).choose_promotion(role);
                PrivateMessage::PromotionChoice(role)
            }
            Role::Pawn | Role::King => PrivateMessage::BadPromotionChoice(role),
        };
        Output::Private { color, message }
    }

    /// Runs a verdict; a board whose standing it changed without a switch starts its
    /// guidance delay now.
    pub(super) fn stirring(&mut self, at: Millis, verdict: impl FnOnce(&mut Table)) {
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
    pub(super) fn adjudicate(
        &mut self,
        color: Color,
        standing: Standing,
        at: Millis,
        out: &mut Vec<Output>,
    ) {
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
    pub(super) fn play(&mut self, color: Color, tried: Try, at: Millis, out: &mut Vec<Output>) {
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

    pub(super) fn ask(&mut self, color: Color, question: Question) -> Output {
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
