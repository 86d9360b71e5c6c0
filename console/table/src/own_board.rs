//! The player's own board (his men only, no en passant): whether a touched man has any try
//! there at all. A man with none does not bind the player (docs/OVER-THE-BOARD.md §3, touch-move).

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{CastlingSide, Chess, Color, Position, Rank, Role, Square};

/// Whether the man of `color` on `from` has a try possible on its own board: a move there,
/// or a diagonal pawn step onto a square not holding an own man (captures cannot be judged
/// from the own board).
pub(crate) fn has_possible_try(pos: &Chess, color: Color, from: Square) -> bool {
    let board = pos.board();
    let us = board.by_color(color);
    if !us.contains(from) {
        return false;
    }
    let Some(role) = board.role_at(from) else {
        return false;
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
            let one = from.offset(forward).filter(|sq| free.contains(*sq));
            let two = one
                .filter(|_| from.rank() == second)
                .and_then(|sq| sq.offset(forward))
                .filter(|sq| free.contains(*sq));
            one.is_some() || two.is_some() || (pawn_attacks(color, from) & free).any()
        }
        Role::Knight => (knight_attacks(from) & free).any(),
        Role::Bishop => (bishop_attacks(from, us) & free).any(),
        Role::Rook => (rook_attacks(from, us) & free).any(),
        Role::Queen => (queen_attacks(from, us) & free).any(),
        Role::King => {
            (king_attacks(from) & free).any()
                || CastlingSide::ALL.into_iter().any(|side| {
                    let castles = pos.castles();
                    match castles.rook(color, side) {
                        Some(rook) if castles.has(color, side) => {
                            let path = castles.path(color, side).without(from).without(rook);
                            (path & us).is_empty()
                        }
                        _ => false,
                    }
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn start_position() {
        let p = Chess::default();
        assert!(has_possible_try(&p, Color::White, Square::E2));
        assert!(has_possible_try(&p, Color::White, Square::G1));
        assert!(!has_possible_try(&p, Color::White, Square::A1));
        assert!(!has_possible_try(&p, Color::White, Square::F1));
        assert!(!has_possible_try(&p, Color::White, Square::D1));
        assert!(!has_possible_try(&p, Color::White, Square::E1));
        assert!(
            !has_possible_try(&p, Color::White, Square::E4),
            "no man there"
        );
        assert!(has_possible_try(&p, Color::Black, Square::B8));
    }

    #[test]
    fn enemy_men_do_not_block_the_own_board() {
        // The white rook on a1 is hemmed in by a black knight on a2 and b1 only in truth.
        let p = pos("4k3/8/8/8/8/8/n7/Rn2K3 w - - 0 1");
        assert!(has_possible_try(&p, Color::White, Square::A1));
    }

    #[test]
    fn castling_counts_for_the_king() {
        let p = pos("4k3/8/8/8/8/8/3PPP2/3QK2R w K - 0 1");
        assert!(has_possible_try(&p, Color::White, Square::E1));
        let p = pos("4k3/8/8/8/8/8/3PPP2/3QK2R w - - 0 1");
        assert!(has_possible_try(&p, Color::White, Square::E1), "f1 is free");
        let p = pos("4k3/8/8/8/8/8/3PPP2/3QKB1R w - - 0 1");
        assert!(!has_possible_try(&p, Color::White, Square::E1));
    }

    #[test]
    fn blocked_pawn_still_has_its_capture_attempts() {
        let p = pos("4k3/8/8/8/8/3PPP2/4P3/4K3 w - - 0 1");
        assert!(!has_possible_try(&p, Color::White, Square::E2));
        let p = pos("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1");
        assert!(has_possible_try(&p, Color::White, Square::E2));
    }
}
