//! The window's words: a side's name, a man, a result, an arbiter action, who heard a line
//! of the log, a table's state in one line.

use std::time::Instant;

use kriegspiel_referee::shakmaty::{Color, Piece};
use kriegspiel_referee::GameResult;
use kriegspiel_table::clock::hms;
use kriegspiel_table::render::Hearer;
use kriegspiel_table::{ArbiterAction, Millis};

use crate::board;
use crate::store::TableState;

/// A side's name with a capital: "White", "Black" (shakmaty's `Display` of a colour, which
/// the window uses where it wants "white", capitalised).
pub fn color_name(c: Color) -> String {
    let name = c.to_string();
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Who heard a line of the log, as the log says it: "both", "White only", "Black only",
/// and "arbiter" for `None` (notes, touch-move breaches in warn mode, link events).
pub fn heard_label(heard: Option<Hearer>) -> String {
    match heard {
        Some(Hearer::Both) => "both".to_owned(),
        Some(Hearer::Player(c)) => format!("{} only", color_name(c)),
        None => "arbiter".to_owned(),
    }
}

/// A piece's words and glyph, e.g. "white queen ♕".
pub fn piece_words(p: Piece) -> String {
    format!(
        "{} {} {}",
        p.color,
        board::role_name(p.role),
        board::glyph(p)
    )
}

pub fn result_words(r: Option<GameResult>) -> &'static str {
    match r {
        Some(GameResult::WhiteWins) => "1-0",
        Some(GameResult::BlackWins) => "0-1",
        Some(GameResult::Draw) => "½-½",
        None => "void",
    }
}

pub fn action_words(a: &ArbiterAction) -> String {
    match a {
        ArbiterAction::Pause => "pause the game".to_owned(),
        ArbiterAction::Resume => "resume the game".to_owned(),
        ArbiterAction::Put { square, piece } => {
            format!("put a {} on {square}", piece_words(*piece))
        }
        ArbiterAction::Remove { square } => format!("empty {square}"),
        ArbiterAction::SetPosition { fen } => format!("set the position to {fen}"),
        ArbiterAction::TakeBack => "take back the last move".to_owned(),
        ArbiterAction::Adjudicate { result, reason } => {
            format!("adjudicate {} ({reason})", result_words(Some(*result)))
        }
        ArbiterAction::Void { reason } => format!("void the game ({reason})"),
        ArbiterAction::Repeat => "repeat the last announcement".to_owned(),
        ArbiterAction::StartClocks | ArbiterAction::StartAll => "start the clocks".to_owned(),
    }
}

/// "1 square differs", "3 squares differ".
pub fn squares_differ(n: u32) -> String {
    if n == 1 {
        "1 square differs".to_owned()
    } else {
        format!("{n} squares differ")
    }
}

/// A low-time mark in words: "1 minute", "10 seconds".
pub fn duration_words(ms: Millis) -> String {
    let s = ms / 1000;
    match (s % 60, s / 60) {
        (0, 1) => "1 minute".to_owned(),
        (0, m) if m > 1 => format!("{m} minutes"),
        _ => format!("{s} seconds"),
    }
}

/// A table's clocks, turn and state in one line.
pub fn state_words(t: &TableState, now: Instant) -> String {
    let mut parts = Vec::new();
    if let Some(r) = t.result {
        parts.push(format!("Game over: {}", result_words(r)));
    } else if let Some(v) = &t.view {
        parts.push(format!("{} to move", color_name(v.to_move())));
        if v.paused {
            parts.push("PAUSED".to_owned());
        }
        if v.clocks_waiting {
            parts.push("waiting to start".to_owned());
        }
    }
    if let Some((rem, _)) = t.clocks_at(now) {
        parts.push(format!(
            "White {} · Black {}",
            hms(rem.white),
            hms(rem.black)
        ));
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_square_differs_two_squares_differ() {
        assert_eq!(squares_differ(1), "1 square differs");
        assert_eq!(squares_differ(2), "2 squares differ");
        assert_eq!(squares_differ(0), "0 squares differ");
    }

    #[test]
    fn sides_are_named_with_a_capital_and_hearers_as_the_log_says_them() {
        assert_eq!(color_name(Color::White), "White");
        assert_eq!(color_name(Color::Black), "Black");
        assert_eq!(heard_label(Some(Hearer::Both)), "both");
        assert_eq!(
            heard_label(Some(Hearer::Player(Color::White))),
            "White only"
        );
        assert_eq!(
            heard_label(Some(Hearer::Player(Color::Black))),
            "Black only"
        );
        assert_eq!(heard_label(None), "arbiter");
    }
}
