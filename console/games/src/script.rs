//! Board scripts: what one simulated board does during a game, switch by switch, in script
//! time; as the hall's simulated board plays it and as `kriegspiel-board simulate` reads it.

use kriegspiel_referee::shakmaty::{Bitboard, Color, Square};

/// One switch change in a board script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Lift,
    Place,
}

/// What one board does during the game, in script time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardScript {
    pub color: Color,
    /// The men on the board before the first action.
    pub initial: Bitboard,
    pub actions: Vec<(u64, Action, Square)>,
}

impl BoardScript {
    /// The script for a board simulated inside the hall.
    pub fn sim_script(&self) -> kriegspiel_hall::sim::SimScript {
        kriegspiel_hall::sim::SimScript {
            initial: self.initial.0,
            actions: self
                .actions
                .iter()
                .map(|(at, action, sq)| kriegspiel_hall::sim::SimAction {
                    at: *at,
                    lift: *action == Action::Lift,
                    square: u8::try_from(u32::from(*sq)).unwrap_or(0),
                })
                .collect(),
        }
    }

    /// The `kriegspiel-board simulate --script` text: `occupied SQ...` then `MS lift|place SQ`.
    pub fn render(&self) -> String {
        let mut out = String::from("occupied");
        for sq in self.initial {
            out.push(' ');
            out.push_str(&sq.to_string());
        }
        out.push('\n');
        for (at, action, sq) in &self.actions {
            let verb = match action {
                Action::Lift => "lift",
                Action::Place => "place",
            };
            out.push_str(&format!("{at} {verb} {sq}\n"));
        }
        out
    }

    /// The men on the board after the last action.
    pub fn final_occupancy(&self) -> Bitboard {
        self.actions
            .iter()
            .fold(self.initial, |mut occ, (_, action, sq)| {
                match action {
                    Action::Lift => occ.discard(*sq),
                    Action::Place => occ.add(*sq),
                }
                occ
            })
    }

    /// The script with one more lift and re-place of a man at `at_ms`: the board program
    /// exits after its last event, and must stay connected until the table ends the game.
    pub fn with_hold(&self, at_ms: u64) -> BoardScript {
        let mut held = self.clone();
        let at_ms = self
            .actions
            .last()
            .map_or(at_ms, |(last, _, _)| at_ms.max(last + 1));
        if let Some(sq) = self.final_occupancy().first() {
            held.actions.push((at_ms, Action::Lift, sq));
            held.actions.push((at_ms + 100, Action::Place, sq));
        }
        held
    }

    pub(crate) fn push(
        &mut self,
        at: u64,
        action: Action,
        sq: Square,
        occ: &mut Bitboard,
    ) -> Result<(), String> {
        match action {
            Action::Lift if !occ.contains(sq) => {
                return Err(format!(
                    "{} would lift from the empty square {sq}",
                    self.color
                ))
            }
            Action::Place if occ.contains(sq) => {
                return Err(format!(
                    "{} would place on the occupied square {sq}",
                    self.color
                ))
            }
            Action::Lift => occ.discard(sq),
            Action::Place => occ.add(sq),
        }
        if let Some((last, _, _)) = self.actions.last() {
            if *last >= at {
                return Err(format!(
                    "{} board: actions out of order at {at} ms",
                    self.color
                ));
            }
        }
        self.actions.push((at, action, sq));
        Ok(())
    }
}
