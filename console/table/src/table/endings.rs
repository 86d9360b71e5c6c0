//! How a game ends at the table: resignation, draw offers and their agreement, and the end
//! itself (clocks stop, both players hear why).

use kriegspiel_referee::GameResult;
use shakmaty::Color;

use super::Table;
use crate::game::{PublicMessage, TableEnd, Termination};
use crate::output::{Output, PrivateMessage};
use crate::Millis;

impl Table {
    /// A player resigns: the game is his opponent's.
    pub(super) fn resign(&mut self, color: Color, at: Millis, out: &mut Vec<Output>) {
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
            self.finish(end, at, out);
        }
    }

    /// A player offers a draw, or accepts his opponent's open offer.
    pub(super) fn draw(&mut self, color: Color, at: Millis, out: &mut Vec<Output>) {
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

    /// Ends the game at the table: clocks stop, both players hear why.
    pub(super) fn finish(&mut self, end: TableEnd, at: Millis, out: &mut Vec<Output>) {
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
}
