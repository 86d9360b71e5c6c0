//! Chess boards drawn with glyphs: the official position, a player's board as sensed, and
//! a set-up being composed. Every board is one widget with a label in the AccessKit tree;
//! a click names the square under the pointer.

use egui::{Align2, Color32, FontId, Pos2, Rect, Response, Sense, Stroke, StrokeKind, Ui, Vec2};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

pub const LIGHT: Color32 = Color32::from_rgb(240, 217, 181);
pub const DARK: Color32 = Color32::from_rgb(168, 122, 86);
/// Marks a square that disagrees with the official position.
pub const WRONG: Color32 = Color32::from_rgb(230, 30, 30);
pub const TOUCHED: Color32 = Color32::from_rgb(30, 110, 230);

/// The board of a FEN, if it reads.
pub fn board_of(fen: &str) -> Option<Board> {
    fen.parse::<Fen>().ok().map(|f| f.into_setup().board)
}

/// The solid glyph of a role (drawn in the man's colour, outlined for White).
pub fn solid_glyph(role: Role) -> char {
    match role {
        Role::King => '♚',
        Role::Queen => '♛',
        Role::Rook => '♜',
        Role::Bishop => '♝',
        Role::Knight => '♞',
        Role::Pawn => '♟',
    }
}

/// The glyph of a man as text (White hollow, Black solid).
pub fn glyph(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, r) => solid_glyph(r),
    }
}

pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

/// A colour's index in the hall's per-colour arrays (`TableView::boards`, `touched`):
/// White 0, Black 1, the order of `Color::ALL` (shakmaty's own `as usize` is the reverse).
pub const fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// What to draw on each square.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// Squares drawn with a red frame (disagree with the official position).
    pub wrong: Bitboard,
    /// A square drawn with a blue frame (a touched man).
    pub touched: Option<Square>,
    /// Occupied squares whose man is unknown (a sensed board): a disc.
    pub sensed: Bitboard,
}

fn square_rect(board: Rect, sq: Square, flipped: bool) -> Rect {
    let s = board.width() / 8.0;
    let (f, r) = (u32::from(sq.file()), u32::from(sq.rank()));
    let (col, row) = if flipped { (7 - f, r) } else { (f, 7 - r) };
    Rect::from_min_size(
        board.min + Vec2::new(col as f32 * s, row as f32 * s),
        Vec2::splat(s),
    )
}

fn square_at(board: Rect, pos: Pos2, flipped: bool) -> Option<Square> {
    if !board.contains(pos) {
        return None;
    }
    let s = board.width() / 8.0;
    let col = (((pos.x - board.min.x) / s) as u32).min(7);
    let row = (((pos.y - board.min.y) / s) as u32).min(7);
    let (f, r) = if flipped {
        (7 - col, row)
    } else {
        (col, 7 - row)
    };
    Some(Square::from_coords(File::new(f), Rank::new(r)))
}

/// Draws a board `size` points wide: men from `pieces`, marks from `marks`. The widget is
/// labelled `label` for screen readers and tests; a click returns the square.
pub fn draw(
    ui: &mut Ui,
    size: f32,
    pieces: Option<&Board>,
    marks: &Marks,
    flipped: bool,
    label: &str,
    clickable: bool,
) -> (Response, Option<Square>) {
    let sense = if clickable {
        Sense::click()
    } else {
        Sense::hover()
    };
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), sense);
    let label_owned = label.to_owned();
    response.widget_info(|| {
        egui::WidgetInfo::labeled(
            if clickable {
                egui::Role::Button
            } else {
                egui::Role::Image
            },
            true,
            &label_owned,
        )
    });
    let painter = ui.painter_at(rect);
    let s = size / 8.0;
    for sq in Square::ALL {
        let r = square_rect(rect, sq, flipped);
        painter.rect_filled(r, 0.0, if sq.is_light() { LIGHT } else { DARK });
        if let Some(p) = pieces.and_then(|b| b.piece_at(sq)) {
            let font = FontId::proportional(s * 0.82);
            let fill = match p.color {
                Color::White => Color32::WHITE,
                Color::Black => Color32::BLACK,
            };
            painter.text(
                r.center(),
                Align2::CENTER_CENTER,
                solid_glyph(p.role),
                font.clone(),
                fill,
            );
            if p.color == Color::White {
                painter.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    glyph(p),
                    font,
                    Color32::BLACK,
                );
            }
        } else if marks.sensed.contains(sq) {
            painter.circle_filled(r.center(), s * 0.28, Color32::from_rgb(40, 40, 40));
        }
        if marks.wrong.contains(sq) {
            painter.rect_stroke(
                r.shrink(2.0),
                0.0,
                Stroke::new((s * 0.09).max(2.0), WRONG),
                StrokeKind::Inside,
            );
        }
        if marks.touched == Some(sq) {
            painter.rect_stroke(
                r.shrink(2.0),
                0.0,
                Stroke::new((s * 0.07).max(2.0), TOUCHED),
                StrokeKind::Inside,
            );
        }
    }
    // Coordinates along the edges, when the squares are big enough to read them.
    if s >= 28.0 {
        let font = FontId::proportional((s * 0.2).max(10.0));
        for i in 0..8u32 {
            let file = Square::from_coords(File::new(i), Rank::First);
            let r = square_rect(rect, file, flipped);
            let text_color = if file.is_light() { DARK } else { LIGHT };
            painter.text(
                r.right_bottom() + Vec2::new(-3.0, -1.0),
                Align2::RIGHT_BOTTOM,
                File::new(i).char(),
                font.clone(),
                text_color,
            );
            let rank = Square::from_coords(File::A, Rank::new(i));
            let r = square_rect(rect, rank, flipped);
            let text_color = if rank.is_light() { DARK } else { LIGHT };
            painter.text(
                r.left_top() + Vec2::new(3.0, 1.0),
                Align2::LEFT_TOP,
                Rank::new(i).char(),
                font.clone(),
                text_color,
            );
        }
    }
    let clicked = if response.clicked() {
        response
            .interact_pointer_pos()
            .and_then(|p| square_at(rect, p, flipped))
    } else {
        None
    };
    (response, clicked)
}

/// A player's board as sensed against the official position: the squares that disagree
/// (his own men only carry magnets).
pub fn disagreement(official: &Board, sensed: Bitboard, color: Color) -> Bitboard {
    official.by_color(color) ^ sensed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_through_the_drawing() {
        let board = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::splat(80.0));
        for flipped in [false, true] {
            for sq in Square::ALL {
                let r = square_rect(board, sq, flipped);
                assert_eq!(square_at(board, r.center(), flipped), Some(sq));
            }
        }
        assert_eq!(
            square_rect(board, Square::A1, false).min,
            Pos2::new(10.0, 90.0)
        );
    }

    #[test]
    fn colour_indices_follow_the_hall_s_arrays() {
        for (i, c) in Color::ALL.into_iter().enumerate() {
            assert_eq!(idx(c), i);
        }
    }

    #[test]
    fn a_sensed_board_disagrees_where_the_own_men_differ() {
        let official = Board::default();
        let mut sensed = official.by_color(Color::White);
        sensed.toggle(Square::E2);
        sensed.toggle(Square::E4);
        assert_eq!(
            disagreement(&official, sensed, Color::White),
            Bitboard::from(Square::E2) | Bitboard::from(Square::E4)
        );
    }
}
