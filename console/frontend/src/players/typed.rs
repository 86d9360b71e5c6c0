//! What a player types: tries (`g1f3`, `Ng1f3`, `O-O`) and commands, and his men as the
//! official position has them.

use kriegspiel_referee::shakmaty::{Board, Color, Role, Square};
use kriegspiel_referee::{Lang, Question, Try};
use kriegspiel_table::{role_name, Input};

/// What a player typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Typed {
    Input(Input),
    /// A try; `role`: the kind of man he named for it (`Ng1f3`), checked against his men.
    Try {
        tried: Try,
        role: Option<Role>,
    },
    /// A move written as chess players write it that is no try of his (none of his men, or
    /// several, can make it).
    Unread(super::san::Unread),
    Repeat,
    MyMen,
    Help,
    Turn,
}

/// Reads one typed line: a try (`g1f3`, `Ng1f3`, `e7e8n`, `O-O`, `O-O-O`) or a command.
pub(super) fn typed(line: &str, color: Color) -> Option<Typed> {
    let lower = line.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let input = |i| Some(Typed::Input(i));
    match words.as_slice() {
        ["any"] | ["any?"] => input(Input::Ask {
            color,
            question: Question::Any,
        }),
        ["rebuffs"] => input(Input::Ask {
            color,
            question: Question::Rebuffs,
        }),
        ["repeat"] => Some(Typed::Repeat),
        ["my", "men"] => Some(Typed::MyMen),
        ["help"] | ["?"] => Some(Typed::Help),
        ["turn"] | ["whose", "turn" | "move"] | ["whose", "turn?" | "move?"] => Some(Typed::Turn),
        ["resign"] => input(Input::Resign { color }),
        ["draw"] | ["offer", "draw"] => input(Input::Draw { color }),
        ["promote", piece] => {
            let role = match *piece {
                "q" | "queen" => Role::Queen,
                "r" | "rook" => Role::Rook,
                "b" | "bishop" => Role::Bishop,
                "n" | "knight" => Role::Knight,
                _ => return None,
            };
            input(Input::Promote { color, role })
        }
        [castle @ ("o-o" | "0-0" | "o-o-o" | "0-0-0")]
        | ["castle" | "castles", castle @ ("kingside" | "queenside" | "short" | "long")] => {
            let rank = if color == Color::White { '1' } else { '8' };
            let short = matches!(*castle, "o-o" | "0-0" | "kingside" | "short");
            let to = if short { 'g' } else { 'c' };
            let tried = Try::from_uci(&format!("e{rank}{to}{rank}")).ok()?;
            Some(Typed::Try {
                tried,
                role: Some(Role::King),
            })
        }
        [one] => {
            // A piece letter may lead (Ng1f3): the man he means on the origin square.
            let first = one.chars().next()?;
            let (role, uci) = match one.len() {
                4 => (None, *one),
                5 if one.as_bytes()[4].is_ascii_digit() => {
                    (Some(Role::from_char(first)?), &one[1..])
                }
                5 => (None, *one),
                6 => (Some(Role::from_char(first)?), &one[1..]),
                _ => return None,
            };
            let tried = Try::from_uci(uci).ok()?;
            Some(Typed::Try { tried, role })
        }
        _ => None,
    }
}

/// Reads one typed line as [`typed`] does, and else as a move written as chess players write
/// it (`Nf3`, `exd5`), read against his men on `board`.
pub(super) fn typed_on(line: &str, color: Color, board: Option<&Board>) -> Option<Typed> {
    if let Some(t) = typed(line, color) {
        return Some(t);
    }
    match super::san::read(line, board?, color) {
        Ok(tried) => Some(Typed::Try { tried, role: None }),
        Err(super::san::Unread::NotAMove) => None,
        Err(unread) => Some(Typed::Unread(unread)),
    }
}

/// His men on the official position, for "my men" ("king e1, queen d1, ...").
pub(super) fn my_men(board: &Board, color: Color, lang: Lang) -> String {
    let mut men: Vec<(Role, Square)> = board
        .by_color(color)
        .into_iter()
        .filter_map(|sq| board.role_at(sq).map(|r| (r, sq)))
        .collect();
    // King first, pawns last, each kind in square order.
    men.sort_by_key(|(r, sq)| (std::cmp::Reverse(*r as u8), *sq));
    men.iter()
        .map(|(r, sq)| format!("{} {sq}", role_name(*r, lang)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kind of man of `color` on `sq` in the official position.
pub(super) fn man_on(board: &Board, color: Color, sq: Square) -> Option<Role> {
    board
        .piece_at(sq)
        .filter(|p| p.color == color)
        .map(|p| p.role)
}
