#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_dgt::{codes::piece_code, Code, Orientation};

use super::*;

/// A placement from a FEN board part; `X` `Y` `Z` are DGT's magic pieces (codes 13–15).
fn board(fen: &str) -> Placement {
    let mut fields = [0 as Code; 64];
    for (r, row) in fen.split('/').enumerate() {
        let mut file = 0u32;
        for ch in row.chars() {
            if let Some(gap) = ch.to_digit(10) {
                file += gap;
                continue;
            }
            let rank = 7 - u32::try_from(r).unwrap();
            let sq = Square::from_coords(
                kriegspiel_referee::shakmaty::File::new(file),
                Rank::new(rank),
            );
            let code = match ch {
                'X' => 13,
                'Y' => 14,
                'Z' => 15,
                _ => piece_code(Piece::from_char(ch).unwrap()),
            };
            fields[usize::from(Orientation::Normal.field(sq))] = code;
            file += 1;
        }
    }
    Placement::from_fields(&fields, Orientation::Normal, true)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

fn lift(sq: Square) -> Fed {
    Fed::Board(BoardInput::Lift(sq))
}

fn place(sq: Square) -> Fed {
    Fed::Board(BoardInput::Place(sq))
}

/// A reader that has read `fen` as its first placement.
fn reader(owner: Color, fen: &str) -> DgtReader {
    let mut r = DgtReader::new(owner);
    r.read(&board(fen));
    r
}

/// Only the board inputs and promotions of a reading.
fn inputs(out: Vec<Fed>) -> Vec<Fed> {
    out.into_iter()
        .filter(|f| !matches!(f, Fed::Notice(_)))
        .collect()
}

#[test]
fn the_first_placement_is_his_occupancy_and_the_other_colour_guess_men() {
    let mut r = DgtReader::new(Color::White);
    let out = r.read(&board(START));
    assert_eq!(out[0], Fed::Board(BoardInput::Snapshot(Bitboard(0xffff))));
    match &out[1] {
        Fed::Notice(BoardNotice::GuessMen { placed, on_board }) => {
            assert_eq!(placed.len(), 16);
            assert_eq!(*on_board, 16);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(out.len(), 2);
    // Black's board reads Black's men.
    let mut r = DgtReader::new(Color::Black);
    let out = r.read(&board(START));
    assert_eq!(
        out[0],
        Fed::Board(BoardInput::Snapshot(Bitboard(0xffff_0000_0000_0000)))
    );
}

#[test]
fn a_move_is_lift_from_then_place_to_in_one_placement_or_two() {
    let mut r = reader(Color::White, START);
    let out = r.read(&board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"));
    assert_eq!(out, [lift(Square::E2), place(Square::E4)]);
    // A man held in the hand while the board settles: the lift now, the place later.
    let out = r.read(&board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKB1R"));
    assert_eq!(out, [lift(Square::G1)]);
    let out = r.read(&board("rnbqkbnr/pppppppp/8/8/4P3/5N2/PPPP1PPP/RNBQKB1R"));
    assert_eq!(out, [place(Square::F3)]);
}

#[test]
fn castling_is_the_kings_move_then_the_rooks() {
    let mut r = reader(Color::White, "r3k2r/8/8/8/8/8/8/R3K2R");
    let out = r.read(&board("r3k2r/8/8/8/8/8/8/R4RK1"));
    assert_eq!(
        out,
        [
            lift(Square::E1),
            place(Square::G1),
            lift(Square::H1),
            place(Square::F1)
        ]
    );
    let mut r = reader(Color::Black, "r3k2r/8/8/8/8/8/8/R3K2R");
    let out = r.read(&board("2kr3r/8/8/8/8/8/8/R3K2R"));
    assert_eq!(
        out,
        [
            lift(Square::E8),
            place(Square::C8),
            lift(Square::A8),
            place(Square::D8)
        ]
    );
}

#[test]
fn a_promotion_is_read_from_the_piece_put_on_the_last_rank() {
    let mut r = reader(Color::White, "8/4P3/8/8/8/8/8/4K2k");
    let out = r.read(&board("4N3/8/8/8/8/8/8/4K2k"));
    assert_eq!(
        out,
        [
            Fed::Promote(Role::Knight),
            lift(Square::E7),
            place(Square::E8)
        ]
    );
    // The pawn in the hand while the board settles, then a spare queen on d8 (a capture).
    let mut r = reader(Color::White, "3r4/4P3/8/8/8/8/8/4K2k");
    assert_eq!(r.read(&board("3r4/8/8/8/8/8/8/4K2k")), [lift(Square::E7)]);
    assert_eq!(
        r.read(&board("3Q4/8/8/8/8/8/8/4K2k")),
        [Fed::Promote(Role::Queen), place(Square::D8)]
    );
    // A queen after a knight was chosen undoes the choice.
    let mut r = reader(Color::White, "8/3PP3/8/8/8/8/8/4K2k");
    assert_eq!(
        inputs(r.read(&board("4N3/3P4/8/8/8/8/8/4K2k"))),
        [
            Fed::Promote(Role::Knight),
            lift(Square::E7),
            place(Square::E8)
        ]
    );
    assert_eq!(
        inputs(r.read(&board("3QN3/8/8/8/8/8/8/4K2k"))),
        [
            Fed::Promote(Role::Queen),
            lift(Square::D7),
            place(Square::D8)
        ]
    );
    // Black promotes on the first rank.
    let mut r = reader(Color::Black, "4K2k/8/8/8/8/8/3p4/8");
    assert_eq!(
        inputs(r.read(&board("4K2k/8/8/8/8/8/8/3r4"))),
        [
            Fed::Promote(Role::Rook),
            lift(Square::D2),
            place(Square::D1)
        ]
    );
}

#[test]
fn a_rook_going_to_the_last_rank_is_no_promotion() {
    let mut r = reader(Color::White, "8/4P3/8/8/8/8/8/R3K2k");
    assert_eq!(
        r.read(&board("R7/4P3/8/8/8/8/8/4K2k")),
        [lift(Square::A1), place(Square::A8)]
    );
}

#[test]
fn a_promotion_piece_of_the_wrong_colour_is_flagged_not_taken() {
    let mut r = reader(Color::White, "8/4P3/8/8/8/8/8/4K2k");
    let out = r.read(&board("4q3/8/8/8/8/8/8/4K2k"));
    assert_eq!(
        out,
        [
            lift(Square::E7),
            Fed::Notice(BoardNotice::WrongPromotion {
                square: Square::E8,
                piece: Piece::from_char('q').unwrap()
            })
        ]
    );
}

#[test]
fn guess_men_never_make_an_input() {
    let mut r = reader(Color::White, START);
    // Black's knight moved on White's board, and two more guess men put down.
    let out = r.read(&board("rnbqkb1r/pppppppp/5n2/8/8/2p5/PPPPPPPP/RNBQKBNR"));
    match &out[..] {
        [Fed::Notice(BoardNotice::GuessMen { placed, on_board })] => {
            assert_eq!(
                placed,
                &[
                    (Square::C3, Piece::from_char('p').unwrap()),
                    (Square::F6, Piece::from_char('n').unwrap())
                ]
            );
            assert_eq!(*on_board, 17);
        }
        other => panic!("{other:?}"),
    }
    // The knight back on g8 and the pawn taken off: a guess man put down, no input.
    let out = r.read(&board(START));
    assert_eq!(inputs(out.clone()), []);
    assert!(
        matches!(&out[..], [Fed::Notice(BoardNotice::GuessMen { placed, on_board: 16 })]
            if placed == &[(Square::G8, Piece::from_char('n').unwrap())]),
        "{out:?}"
    );
}

#[test]
fn a_foreign_object_is_a_notice_never_a_man() {
    let mut r = reader(Color::White, START);
    for (fen, code) in [
        ("rnbqkbnr/pppppppp/8/8/4X3/8/PPPPPPPP/RNBQKBNR", 13),
        ("rnbqkbnr/pppppppp/8/8/4Z3/8/PPPPPPPP/RNBQKBNR", 15),
    ] {
        assert_eq!(
            r.read(&board(fen)),
            [Fed::Notice(BoardNotice::Foreign {
                square: Square::E4,
                code
            })]
        );
    }
    // An unknown code (16 and above read as their low four bits; 0x0e here) too.
    let mut fields = board(START).fields();
    fields[usize::from(Orientation::Normal.field(Square::D5))] = 0x1e;
    let out = r.read(&Placement::from_fields(&fields, Orientation::Normal, true));
    assert_eq!(
        out,
        [Fed::Notice(BoardNotice::Foreign {
            square: Square::D5,
            code: 14
        })]
    );
    // A foreign object where his man stood: his man was lifted.
    let mut r = reader(Color::White, START);
    assert_eq!(
        r.read(&board("rnbqkbnr/pppppppp/8/8/8/8/PPPPYPPP/RNBQKBNR")),
        [
            lift(Square::E2),
            Fed::Notice(BoardNotice::Foreign {
                square: Square::E2,
                code: 14
            })
        ]
    );
}

#[test]
fn a_refused_tries_man_goes_back_before_the_next_try() {
    let mut r = reader(Color::White, START);
    // e2-e5 (refused), then in one placement: e5 back to e2 and d2-d4.
    r.read(&board("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR"));
    let out = r.read(&board("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR"));
    assert_eq!(
        out,
        [
            lift(Square::E5),
            place(Square::E2),
            lift(Square::D2),
            place(Square::D4)
        ]
    );
}

#[test]
fn a_captured_man_taken_off_comes_before_the_try() {
    let mut r = reader(Color::White, "4k3/8/8/8/3P4/8/8/4K1N1");
    let out = r.read(&board("4k3/8/8/8/8/5N2/8/4K3"));
    assert_eq!(out, [lift(Square::D4), lift(Square::G1), place(Square::F3)]);
}

#[test]
fn a_board_lost_is_read_afresh_as_a_whole_occupancy() {
    let mut r = reader(Color::White, START);
    r.lost();
    let out = r.read(&board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"));
    assert_eq!(
        out[0],
        Fed::Board(BoardInput::Snapshot(
            r.occupancy(&board("8/8/8/8/4P3/8/PPPP1PPP/RNBQKBNR"))
        ))
    );
    assert!(out[1..]
        .iter()
        .all(|f| matches!(f, Fed::Notice(BoardNotice::GuessMen { .. }))));
}

#[test]
fn the_hand_is_bounded() {
    let mut r = reader(Color::White, START);
    for _ in 0..3 {
        r.read(&board("rnbqkbnr/pppppppp/8/8/8/8/8/8"));
        r.read(&board(START));
    }
    assert!(r.hand.len() <= MAX_HAND);
    assert!(r.hand.is_empty(), "{:?}", r.hand);
}

#[test]
fn a_man_lifted_now_goes_before_one_held_since_an_earlier_placement() {
    // His pawn on c3 was captured and taken off (in his hand for good); then, in one
    // placement, the refused try's pawn goes back d6-e5 and b2-c3 is tried.
    let mut r = reader(Color::White, "4k3/8/8/4P3/8/2P5/1P6/4K3");
    assert_eq!(
        r.read(&board("4k3/8/8/4P3/8/8/1P6/4K3")),
        [lift(Square::C3)]
    );
    assert_eq!(
        r.read(&board("4k3/8/3P4/8/8/8/1P6/4K3")),
        [lift(Square::E5), place(Square::D6)]
    );
    assert_eq!(
        r.read(&board("4k3/8/8/4P3/8/2P5/8/4K3")),
        [
            lift(Square::D6),
            place(Square::E5),
            lift(Square::B2),
            place(Square::C3)
        ]
    );
}

#[test]
fn a_promotion_goes_before_a_man_of_that_piece_held_since_earlier() {
    // His knight was captured and taken off; later his pawn promotes to a knight.
    let mut r = reader(Color::White, "4k3/P7/8/8/8/8/8/1N2K3");
    assert_eq!(r.read(&board("4k3/P7/8/8/8/8/8/4K3")), [lift(Square::B1)]);
    assert_eq!(
        inputs(r.read(&board("N3k3/8/8/8/8/8/8/4K3"))),
        [
            Fed::Promote(Role::Knight),
            lift(Square::A7),
            place(Square::A8)
        ]
    );
}

/// His pawn on e4 was captured; in one settle he takes it off and plays d3 to e4: the
/// square shows a white pawn both times, and the pawn missing from d3 tells the story.
#[test]
fn a_captured_man_replaced_by_his_own_in_one_settle_is_a_lift_and_a_move() {
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    assert!(r.captured(Bitboard::from_square(Square::E4)).is_empty());
    let out = inputs(r.read(&board("4k3/8/8/8/4P3/8/8/4K3")));
    assert_eq!(out, [lift(Square::E4), lift(Square::D3), place(Square::E4)]);
    // Afterwards e4 is his living pawn: moving it on is a plain move.
    let out = inputs(r.read(&board("4k3/8/8/4P3/8/8/8/4K3")));
    assert_eq!(out, [lift(Square::E4), place(Square::E5)]);
}

/// Without the capture known, the same placement is only d3's pawn lifted; and a captured
/// man still standing, with none of his men missing elsewhere, makes no input.
#[test]
fn a_captured_man_left_standing_is_no_input() {
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    let out = inputs(r.read(&board("4k3/8/8/8/4P3/8/8/4K3")));
    assert_eq!(out, [lift(Square::D3)]);
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    r.captured(Bitboard::from_square(Square::E4));
    let out = inputs(r.read(&board("4k3/8/8/8/4P3/3P4/8/3K4")));
    assert_eq!(out, [lift(Square::E1), place(Square::D1)]);
    // Taken off later: a lift, and the square is forgotten.
    let out = inputs(r.read(&board("4k3/8/8/8/8/3P4/8/3K4")));
    assert_eq!(out, [lift(Square::E4)]);
}

/// The board settled before the table's verdict reached the reader: d3's pawn is in his
/// hand and e4 shows a pawn when the capture of e4 is learnt. The captured man was taken
/// off and the pawn put there; a man of his captured on an empty square is forgotten.
#[test]
fn a_capture_learnt_after_the_placement_completes_the_move() {
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    assert_eq!(
        inputs(r.read(&board("4k3/8/8/8/4P3/8/8/4K3"))),
        [lift(Square::D3)]
    );
    assert_eq!(
        r.captured(Bitboard::from_square(Square::E4)),
        [lift(Square::E4), place(Square::E4)]
    );
    assert!(r.hand.is_empty(), "{:?}", r.hand);
    // A captured man already taken off: nothing to say, and not kept in hand.
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    assert_eq!(
        inputs(r.read(&board("4k3/8/8/8/8/3P4/8/4K3"))),
        [lift(Square::E4)]
    );
    assert!(r.captured(Bitboard::from_square(Square::E4)).is_empty());
    assert!(r.hand.is_empty(), "{:?}", r.hand);
    // A captured man still standing, nothing of his in hand: it waits to be taken off.
    let mut r = reader(Color::White, "4k3/8/8/8/4P3/3P4/8/4K3");
    assert!(r.captured(Bitboard::from_square(Square::E4)).is_empty());
    assert_eq!(
        inputs(r.read(&board("4k3/8/8/8/8/3P4/8/4K3"))),
        [lift(Square::E4)]
    );
    assert!(r.hand.is_empty(), "{:?}", r.hand);
}
