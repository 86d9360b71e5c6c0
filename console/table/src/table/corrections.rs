//! The arbiter's corrections of the official position: a man put or removed, a whole new
//! position, a move taken back; and the castling rights a correction holds back until the
//! men are back on their squares.

use kriegspiel_referee::{Referee, Try, Verdict};
use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, PositionError, Role,
};

use super::Table;
use crate::game::{ArbiterAction, PublicMessage};
use crate::output::Output;
use crate::Millis;

impl Table {
    /// Puts or removes a man, or sets a whole position: the game goes on from there.
    pub(super) fn correct(
        &mut self,
        action: &ArbiterAction,
        at: Millis,
        out: &mut Vec<Output>,
    ) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".to_owned());
        }
        let (pos, held) = self.corrected(action)?;
        let referee = Referee::from_position(self.config.game.rules, self.config.game.options, pos);
        // A position that is already over would end the game at once, unsaid and beyond a
        // take-back: a FEN half typed. The arbiter ends a game by adjudicating it.
        if let Some(end) = referee.end() {
            return Err(format!(
                "that position ends the game ({}); to end the game, adjudicate it",
                end.reason.id().replace('-', " ")
            ));
        }
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
        Ok(())
    }

    /// Takes back the last move since the start or the last correction: the earlier ones
    /// are replayed from there, and the clocks go back to what they showed before it.
    pub(super) fn take_back(&mut self, at: Millis, out: &mut Vec<Output>) -> Result<(), String> {
        if self.end.is_some() {
            return Err("the game is over".to_owned());
        }
        let Some(((_, clocks), kept)) = self.moves.split_last() else {
            return Err("no move stood since the start or the last correction".to_owned());
        };
        let mut referee = self.origin.clone();
        let mut held = self.origin_held;
        for (tried, _) in kept {
            let before = referee.position().clone();
            if !matches!(referee.try_move(*tried), Ok(Verdict::Moved(_))) {
                return Err("the earlier moves do not replay".to_owned());
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
        Ok(())
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
    pub(super) fn after_correction(&mut self, at: Millis) {
        self.draw_offer = None;
        let pos = self.referee.position().clone();
        for c in Color::ALL {
            self.board_mut(c).reset(&pos, at);
        }
        self.restart_clock(at);
    }
}

/// The held castling rights left after `tried` stood in `before`: a king's move forfeits
/// its side's, a move from or to a rook's square that one (as shakmaty does the rights).
pub(super) fn forfeit(held: Bitboard, before: &Chess, tried: Try) -> Bitboard {
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
