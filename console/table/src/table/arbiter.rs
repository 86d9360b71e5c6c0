//! The arbiter's actions at the table: pause and resume, corrections, take-backs, the end of
//! a game by his ruling, the start of the clocks and "repeat". An action that cannot be done
//! changes nothing and is refused with a note saying why.

use kriegspiel_referee::GameResult;
use shakmaty::Color;

use super::Table;
use crate::game::{clean_reason, ArbiterAction, ArbiterNote, PublicMessage, TableEnd, Termination};
use crate::output::Output;
use crate::Millis;

impl Table {
    fn refuse(out: &mut Vec<Output>, action: &ArbiterAction, reason: &str) {
        out.push(Output::Note {
            note: ArbiterNote::Refused {
                action: action.id(),
                reason: reason.to_owned(),
            },
        });
    }

    /// Carries out an arbiter's action, or refuses it.
    pub(super) fn arbiter(&mut self, action: ArbiterAction, at: Millis, out: &mut Vec<Output>) {
        let done = match &action {
            ArbiterAction::Pause => self.pause(at, out),
            ArbiterAction::Resume => self.resume(at, out),
            ArbiterAction::Put { .. }
            | ArbiterAction::Remove { .. }
            | ArbiterAction::SetPosition { .. } => self.correct(&action, at, out),
            ArbiterAction::TakeBack => self.take_back(at, out),
            ArbiterAction::Adjudicate { result, reason } => {
                self.adjudicate_game(*result, reason, at, out)
            }
            ArbiterAction::Void { reason } => self.void(reason, at, out),
            ArbiterAction::StartClocks => self.start_waiting_clocks(at, out),
            ArbiterAction::StartAll => {
                // Tables without waiting clocks pass quietly.
                if self.clocks_waiting && !self.is_over() {
                    self.start_clocks(at, out);
                }
                Ok(())
            }
            ArbiterAction::Repeat => self.repeat(out),
        };
        if let Err(reason) = done {
            Self::refuse(out, &action, &reason);
        }
    }

    /// Stops the game and its clocks; the boards' timers wait too.
    fn pause(&mut self, at: Millis, out: &mut Vec<Output>) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".to_owned());
        }
        if self.paused {
            return Err("the game is already paused".to_owned());
        }
        self.paused = true;
        if let Some(c) = &mut self.clock {
            c.stop(at);
        }
        out.push(Output::Public {
            message: PublicMessage::Paused,
        });
        self.push_clock(out);
        Ok(())
    }

    /// Goes on with a paused game: its clock runs again, both boards start afresh.
    fn resume(&mut self, at: Millis, out: &mut Vec<Output>) -> Result<(), String> {
        if !self.paused {
            return Err("the game is not paused".to_owned());
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
        Ok(())
    }

    /// Ends a game with the arbiter's result.
    fn adjudicate_game(
        &mut self,
        result: GameResult,
        reason: &str,
        at: Millis,
        out: &mut Vec<Output>,
    ) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".to_owned());
        }
        let end = TableEnd {
            result: Some(result),
            termination: Termination::Adjudication {
                reason: clean_reason(reason),
            },
        };
        self.finish(end, at, out);
        Ok(())
    }

    /// Voids a game: it ends without a result (even one the referee has ended).
    fn void(&mut self, reason: &str, at: Millis, out: &mut Vec<Output>) -> Result<(), String> {
        if self.end.is_some() {
            return Err("the game has already ended at the table".to_owned());
        }
        let end = TableEnd {
            result: None,
            termination: Termination::Voided {
                reason: clean_reason(reason),
            },
        };
        self.finish(end, at, out);
        Ok(())
    }

    /// Starts this table's waiting clocks.
    fn start_waiting_clocks(&mut self, at: Millis, out: &mut Vec<Output>) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".to_owned());
        }
        if self.clock.is_none() {
            return Err("the game has no clocks".to_owned());
        }
        if !self.clocks_waiting {
            return Err("the clocks have started already".to_owned());
        }
        self.start_clocks(at, out);
        Ok(())
    }

    /// Says the last public announcement again.
    fn repeat(&self, out: &mut Vec<Output>) -> Result<(), String> {
        let Some(o) = self.last_public.clone() else {
            return Err("nothing has been announced yet".to_owned());
        };
        out.push(Output::Repeated {
            output: Box::new(o),
        });
        Ok(())
    }
}
