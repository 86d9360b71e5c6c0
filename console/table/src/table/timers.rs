//! The table's timers: the settle window after a board's last change, guidance to a board
//! out of sync, and the clocks' deadlines, each fired at its own time.

use shakmaty::Color;

use super::Table;
use crate::output::{Output, PrivateMessage};
use crate::recognizer::{Standing, Status};
use crate::Millis;

/// Timers due at one instant are handled in one pass; a pass always settles what it handled,
/// so this bound is never reached in practice and only guards against a loop.
const MAX_TIMER_PASSES: usize = 64;

impl Table {
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
    pub(super) fn run_timers(&mut self, until: Millis, out: &mut Vec<Output>) {
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

    pub(super) fn back_in_sync(&mut self, out: &mut Vec<Output>) {
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
}
