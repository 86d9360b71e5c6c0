//! The chess clocks at the table: when they wait for the start, run, stop, warn and flag.

use kriegspiel_referee::GameResult;
use shakmaty::{ByColor, Color, Position};

use super::Table;
use crate::game::{PublicMessage, TableEnd, Termination};
use crate::output::{Output, PrivateMessage};
use crate::Millis;

impl Table {
    /// The clocks now, when the table has a clock.
    pub fn clocks(&self) -> Option<(ByColor<Millis>, Option<Color>)> {
        self.clock
            .as_ref()
            .map(|c| (c.remaining_at(self.now), c.running()))
    }

    /// Whether a timed game's clocks still wait to be started.
    pub fn clocks_waiting(&self) -> bool {
        self.clocks_waiting
    }

    pub(super) fn push_clock(&self, out: &mut Vec<Output>) {
        if let Some((remaining, running)) = self.clocks() {
            out.push(Output::Clock { remaining, running });
        }
    }

    /// Both players' boards are there and show the official position (a player without a
    /// board counts as ready).
    pub(super) fn boards_ready(&self) -> bool {
        Color::ALL
            .into_iter()
            .all(|c| self.config.without_board[c] || (self.board_seen[c] && self.in_sync(c)))
    }

    /// Starts the waiting clocks: the side to move's runs from now; both players hear it.
    pub(super) fn start_clocks(&mut self, at: Millis, out: &mut Vec<Output>) {
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

    pub(super) fn restart_clock(&mut self, at: Millis) {
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

    /// Low-time warnings and the flag.
    pub(super) fn clock_timers(&mut self, due: Millis, out: &mut Vec<Output>) {
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
}
