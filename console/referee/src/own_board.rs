//! The player's own board (docs/RULES.md §3.1): the real position with every enemy man taken
//! off and no en-passant square. One move generator for everything that asks what a man
//! could try there: the referee's "impossible" rulings and the table's touch-move.

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{
    Bitboard, Board, Castles, CastlingSide, Chess, Color, Position, Rank, Role, Square,
};

/// The squares the man of `color` on `from` can try to reach on its own board: its moves
/// there, plus every one-step diagonal forward pawn move onto a square without an own man
/// (the own board cannot tell whether there is something to capture). Castling is the king's
/// two-square move, possible with the right when no own man stands between king and rook or
/// on their destinations. Empty when `from` holds no man of `color`.
///
/// Promotion letters are not considered: a pawn's move to the last rank is a target, and
/// whether a letter fits the try is the caller's question.
pub fn own_board_targets(pos: &Chess, color: Color, from: Square) -> Bitboard {
    own_board_targets_on(pos.board(), pos.castles(), color, from)
}

/// [`own_board_targets`] on a board that may hold his men alone (a player's terminal knows
/// no more), with the castling rights in `castles`; the opponent's men are ignored.
pub fn own_board_targets_on(
    board: &Board,
    castles: &Castles,
    color: Color,
    from: Square,
) -> Bitboard {
    let us = board.by_color(color);
    if !us.contains(from) {
        return Bitboard::EMPTY;
    }
    let Some(role) = board.role_at(from) else {
        return Bitboard::EMPTY;
    };
    let free = !us;
    match role {
        Role::Pawn => {
            let forward: i32 = match color {
                Color::White => 8,
                Color::Black => -8,
            };
            let second = match color {
                Color::White => Rank::Second,
                Color::Black => Rank::Seventh,
            };
            let mut targets = pawn_attacks(color, from) & free;
            if let Some(one) = from.offset(forward).filter(|sq| free.contains(*sq)) {
                targets.add(one);
                if from.rank() == second {
                    if let Some(two) = one.offset(forward).filter(|sq| free.contains(*sq)) {
                        targets.add(two);
                    }
                }
            }
            targets
        }
        Role::Knight => knight_attacks(from) & free,
        Role::Bishop => bishop_attacks(from, us) & free,
        Role::Rook => rook_attacks(from, us) & free,
        Role::Queen => queen_attacks(from, us) & free,
        Role::King => {
            let mut targets = king_attacks(from) & free;
            for side in CastlingSide::ALL {
                let Some(rook) = castles.rook(color, side) else {
                    continue;
                };
                if !castles.has(color, side) {
                    continue;
                }
                let path = castles.path(color, side).without(from).without(rook);
                if (path & us).is_empty() {
                    targets.add(Square::from_coords(side.king_to_file(), from.rank()));
                }
            }
            targets
        }
    }
}

/// Whether the man of `color` on `from` has any try possible on its own board. A man with
/// none does not bind the player under touch-move (docs/OVER-THE-BOARD.md §3).
pub fn has_own_board_try(pos: &Chess, color: Color, from: Square) -> bool {
    own_board_targets(pos, color, from).any()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn targets(fen: &str, color: Color, from: Square) -> Vec<String> {
        own_board_targets(&pos(fen), color, from)
            .into_iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn castling_needs_the_right_and_a_free_path_of_own_men() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(
            targets(fen, Color::White, Square::E1),
            ["c1", "d1", "f1", "g1", "d2", "e2", "f2"]
        );
        // An enemy man on the path does not count on the own board.
        let fen = "4k3/8/8/8/8/8/8/R2nK1bR w KQ - 0 1";
        assert!(own_board_targets(&pos(fen), Color::White, Square::E1).contains(Square::G1));
        assert!(own_board_targets(&pos(fen), Color::White, Square::E1).contains(Square::C1));
        // An own man does: b1 blocks the queen side (the rook passes it).
        let fen = "4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1";
        assert!(!own_board_targets(&pos(fen), Color::White, Square::E1).contains(Square::C1));
        assert!(own_board_targets(&pos(fen), Color::White, Square::E1).contains(Square::G1));
        // Without the right, no castling.
        let fen = "4k3/8/8/8/8/8/8/R3K2R w - - 0 1";
        assert!(!own_board_targets(&pos(fen), Color::White, Square::E1).contains(Square::G1));
        // Black castles too.
        let fen = "r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1";
        let t = own_board_targets(&pos(fen), Color::Black, Square::E8);
        assert!(t.contains(Square::G8) && t.contains(Square::C8));
    }

    #[test]
    fn pawns_step_double_step_and_attempt_captures() {
        let p = Chess::default();
        let t: Vec<_> = own_board_targets(&p, Color::White, Square::E2)
            .into_iter()
            .collect();
        assert_eq!(t, [Square::D3, Square::E3, Square::F3, Square::E4]);
        // A blocked pawn keeps its capture attempts but not its steps.
        let fen = "4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1";
        assert_eq!(targets(fen, Color::White, Square::E2), ["d3", "f3"]);
        // The double step needs both squares free of own men; enemy men do not count.
        let fen = "4k3/8/8/8/4P3/8/4P3/4K3 w - - 0 1";
        assert_eq!(targets(fen, Color::White, Square::E2), ["d3", "e3", "f3"]);
        let fen = "4k3/8/8/8/4p3/4p3/4P3/4K3 w - - 0 1";
        assert_eq!(
            targets(fen, Color::White, Square::E2),
            ["d3", "e3", "f3", "e4"]
        );
        let fen = "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1";
        assert_eq!(
            targets(fen, Color::Black, Square::E7),
            ["e5", "d6", "e6", "f6"]
        );
    }

    #[test]
    fn no_man_of_that_colour_no_targets() {
        let p = Chess::default();
        assert!(own_board_targets(&p, Color::White, Square::E4).is_empty());
        assert!(own_board_targets(&p, Color::Black, Square::E2).is_empty());
        assert!(!has_own_board_try(&p, Color::White, Square::A1));
        assert!(has_own_board_try(&p, Color::White, Square::G1));
    }
}
