//! Board mix-ups: a board that reports the other player's id, two boards with one id, a
//! board that shows the other player's men. Each is said once, clearly, until put right.

use shakmaty::Color;

use super::Table;
use crate::game::PublicMessage;
use crate::input::BoardInput;
use crate::output::Output;

impl Table {
    /// Board ids and snapshots that show a mix-up of boards: said once, clearly.
    pub(super) fn check_boards(&mut self, color: Color, input: BoardInput, out: &mut Vec<Output>) {
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
}
