//! Chess boards drawn with glyphs: the official position, a player's board as sensed, and
//! a set-up being composed. Every board has a label in the AccessKit tree; on a board that
//! takes corrections every square is a widget of its own, labelled "e4, white knight" or
//! "e4, empty", reached with Tab and the arrow keys and used with the mouse or the keys
//! (Enter or Space: the chosen tool; a piece letter puts that man, Shift for White; Delete
//! or Backspace empties the square).

use egui::{
    Align2, Color32, Event, FontId, Id, Key, Rect, Response, Sense, Stroke, StrokeKind, Ui, Vec2,
};
use kriegspiel_referee::shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

pub const LIGHT: Color32 = Color32::from_rgb(240, 217, 181);
pub const DARK: Color32 = Color32::from_rgb(168, 122, 86);
/// Marks a square that disagrees with the official position.
pub const WRONG: Color32 = Color32::from_rgb(230, 30, 30);
pub const TOUCHED: Color32 = Color32::from_rgb(30, 110, 230);
/// The frame of the square that has the keyboard focus (with a black inner line, so that
/// it shows on light and dark squares alike).
pub const FOCUS: Color32 = Color32::from_rgb(0, 220, 255);

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

/// What the arbiter did on a square of a board that takes corrections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SquareAct {
    /// A click, or Enter or Space on the focused square: the chosen tool.
    Use,
    /// A piece letter on the focused square (K Q R B N P; with Shift: White's man).
    Put(Piece),
    /// Delete or Backspace on the focused square.
    Clear,
}

/// An act on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    pub square: Square,
    pub act: SquareAct,
}

/// How a board is drawn and named.
#[derive(Debug, Clone, Copy)]
pub struct Look<'a> {
    /// The board's name for screen readers and tests (e.g. "Official position of table 1").
    pub label: &'a str,
    /// Black at the bottom.
    pub flipped: bool,
    /// Every square a focusable, labelled widget (`Some`: the squares' ids derive from this
    /// salt, so that focus stays on a square while the position changes).
    pub squares: Option<&'a str>,
    /// Put before each square's label ("White's set-up: " gives "White's set-up: e2, empty").
    pub square_prefix: &'a str,
}

/// A square's label: "e4, white knight" or "e4, empty"; "e4, a man" for a sensed man.
pub fn square_label(sq: Square, pieces: Option<&Board>, marks: &Marks) -> String {
    match pieces.and_then(|b| b.piece_at(sq)) {
        Some(p) => format!("{sq}, {} {}", p.color, role_name(p.role)),
        None if marks.sensed.contains(sq) => format!("{sq}, a man"),
        None => format!("{sq}, empty"),
    }
}

/// The role a letter key names.
pub fn role_of_key(key: Key) -> Option<Role> {
    Some(match key {
        Key::K => Role::King,
        Key::Q => Role::Queen,
        Key::R => Role::Rook,
        Key::B => Role::Bishop,
        Key::N => Role::Knight,
        Key::P => Role::Pawn,
        _ => return None,
    })
}

/// The act a key press on a focused square asks for (Enter and Space come as clicks).
fn key_act(ui: &Ui) -> Option<SquareAct> {
    ui.input(|i| {
        i.events.iter().find_map(|e| match e {
            Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } if !modifiers.command && !modifiers.alt => match key {
                Key::Delete | Key::Backspace => Some(SquareAct::Clear),
                k => role_of_key(*k).map(|role| {
                    let color = if modifiers.shift {
                        Color::White
                    } else {
                        Color::Black
                    };
                    SquareAct::Put(Piece { color, role })
                }),
            },
            _ => None,
        })
    })
}

/// Draws a board `size` points wide: men from `pieces`, marks from `marks`, named and
/// (with `look.squares`) operable as `look` says. Returns the board's response and what
/// was done on a square this frame.
pub fn draw(
    ui: &mut Ui,
    size: f32,
    pieces: Option<&Board>,
    marks: &Marks,
    look: &Look<'_>,
) -> (Response, Option<Pick>) {
    let flipped = look.flipped;
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::hover());
    let label_owned = look.label.to_owned();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label_owned));
    let painter = ui.painter_at(rect);
    let s = size / 8.0;
    let mut pick = None;
    for sq in Square::ALL {
        let r = square_rect(rect, sq, flipped);
        let square = look.squares.map(|salt| {
            let id = Id::unique(("board-square", salt, u32::from(sq)));
            let resp = ui.interact(r, id, Sense::click());
            let label = format!("{}{}", look.square_prefix, square_label(sq, pieces, marks));
            resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
            resp
        });
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
        let Some(resp) = square else {
            continue;
        };
        if resp.has_focus() {
            let w = (s * 0.1).max(3.0);
            painter.rect_stroke(r, 0.0, Stroke::new(w, FOCUS), StrokeKind::Inside);
            painter.rect_stroke(
                r.shrink(w),
                0.0,
                Stroke::new(2.0, Color32::BLACK),
                StrokeKind::Inside,
            );
            if let Some(act) = key_act(ui) {
                pick = Some(Pick { square: sq, act });
            }
        } else if resp.hovered() {
            painter.rect_stroke(r, 0.0, Stroke::new(2.0, Color32::WHITE), StrokeKind::Inside);
        }
        if resp.clicked() {
            pick = Some(Pick {
                square: sq,
                act: SquareAct::Use,
            });
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
    (response, pick)
}

/// A player's board as sensed against the official position: the squares that disagree
/// (his own men only carry magnets).
pub fn disagreement(official: &Board, sensed: Bitboard, color: Color) -> Bitboard {
    official.by_color(color) ^ sensed
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::Pos2;

    #[test]
    fn the_squares_tile_the_board_with_a1_bottom_left_unless_flipped() {
        let board = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::splat(80.0));
        for flipped in [false, true] {
            let rects: Vec<Rect> = Square::ALL
                .iter()
                .map(|sq| square_rect(board, *sq, flipped))
                .collect();
            for (i, r) in rects.iter().enumerate() {
                assert!(board.contains_rect(*r));
                for other in &rects[i + 1..] {
                    assert!(
                        r.intersect(*other).area() <= 0.0,
                        "{r:?} overlaps {other:?}"
                    );
                }
            }
        }
        assert_eq!(
            square_rect(board, Square::A1, false).min,
            Pos2::new(10.0, 90.0)
        );
        assert_eq!(
            square_rect(board, Square::A1, true).min,
            Pos2::new(80.0, 20.0)
        );
    }

    #[test]
    fn squares_are_named_with_their_man() {
        let b = Board::default();
        let marks = Marks::default();
        assert_eq!(
            square_label(Square::G1, Some(&b), &marks),
            "g1, white knight"
        );
        assert_eq!(square_label(Square::E4, Some(&b), &marks), "e4, empty");
        let sensed = Marks {
            sensed: Bitboard::from(Square::E4),
            ..Marks::default()
        };
        assert_eq!(square_label(Square::E4, None, &sensed), "e4, a man");
        assert_eq!(role_of_key(Key::N), Some(Role::Knight));
        assert_eq!(role_of_key(Key::A), None);
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
