//! The player's own board (his men only, no en passant): whether a touched man has any try
//! there at all. A man with none does not bind the player (docs/OVER-THE-BOARD.md §3, touch-move).

use shakmaty::{Chess, Color, Square};

/// Whether the man of `color` on `from` has a try possible on its own board: a move there,
/// or a diagonal pawn step onto a square not holding an own man (captures cannot be judged
/// from the own board). The referee's own-board generator decides, so touch-move and the
/// referee's "impossible" never disagree.
pub(crate) fn has_possible_try(pos: &Chess, color: Color, from: Square) -> bool {
    kriegspiel_referee::has_own_board_try(pos, color, from)
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
