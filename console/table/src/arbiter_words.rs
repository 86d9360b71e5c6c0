//! The arbiter's command words: an [`ArbiterAction`] as the words after `arbiter` in an
//! event line (`start all`, `put e4 Q`, `adjudicate 1-0 REASON`...), which the arbiter types
//! and the journal keeps. [`parse_action`] and [`render_action`] are inverse.

use kriegspiel_referee::GameResult;
use shakmaty::Piece;

use crate::event_text::parse_square;
use crate::game::{clean_reason, typed_reason, ArbiterAction};

/// Parses the words after `arbiter`: `pause`, `resume`, `put e4 Q`, `remove e4`,
/// `fen FEN`, `takeback`, `adjudicate 1-0 REASON`, `void REASON`, `repeat`.
pub fn parse_action(words: &[&str]) -> Result<ArbiterAction, String> {
    let Some((&what, rest)) = words.split_first() else {
        return Err("arbiter needs an action (start, pause, resume, put, remove, fen, takeback, adjudicate, void, repeat)".to_owned());
    };
    let none = || -> Result<(), String> {
        if rest.is_empty() {
            Ok(())
        } else {
            Err(format!("'{what}' takes no argument"))
        }
    };
    Ok(match what {
        "pause" => none().map(|()| ArbiterAction::Pause)?,
        "resume" => none().map(|()| ArbiterAction::Resume)?,
        "takeback" => none().map(|()| ArbiterAction::TakeBack)?,
        "repeat" => none().map(|()| ArbiterAction::Repeat)?,
        "start" => match rest {
            [] | ["clocks"] => ArbiterAction::StartClocks,
            ["all"] => ArbiterAction::StartAll,
            _ => return Err("start takes nothing, 'clocks' or 'all'".to_owned()),
        },
        "put" => parse_put(rest)?,
        "remove" => {
            let [square] = rest else {
                return Err("remove takes one square".to_owned());
            };
            ArbiterAction::Remove {
                square: parse_square(square)?,
            }
        }
        "fen" => {
            if rest.is_empty() {
                return Err("fen takes a FEN".to_owned());
            }
            ArbiterAction::SetPosition {
                fen: rest.join(" "),
            }
        }
        "adjudicate" => parse_adjudicate(rest)?,
        "void" => ArbiterAction::Void {
            reason: typed_reason(&rest.join(" "))?,
        },
        other => {
            return Err(format!(
                "unknown arbiter action '{}' (pause, resume, put, remove, fen, takeback, adjudicate, void, repeat)",
                clean_reason(other)
            ))
        }
    })
}

/// `put SQUARE LETTER`: a man put on the board (a FEN piece letter).
fn parse_put(rest: &[&str]) -> Result<ArbiterAction, String> {
    let [square, piece] = rest else {
        return Err("put takes a square and a FEN piece letter: put e4 Q".to_owned());
    };
    let square = parse_square(square)?;
    let piece = match piece.chars().collect::<Vec<_>>().as_slice() {
        [c] => Piece::from_char(*c),
        _ => None,
    }
    .ok_or_else(|| format!("'{piece}' is not a FEN piece letter (KQRBNP kqrbnp)"))?;
    Ok(ArbiterAction::Put { square, piece })
}

/// `adjudicate RESULT [REASON]`.
fn parse_adjudicate(rest: &[&str]) -> Result<ArbiterAction, String> {
    let Some((result, _)) = rest.split_first() else {
        return Err("adjudicate takes a result: 1-0, 0-1 or 1/2-1/2".to_owned());
    };
    let result = match *result {
        "1-0" => GameResult::WhiteWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" | "½-½" | "draw" => GameResult::Draw,
        other => {
            return Err(format!(
                "'{}' is not a result (1-0, 0-1, 1/2-1/2)",
                clean_reason(other)
            ))
        }
    };
    Ok(ArbiterAction::Adjudicate {
        result,
        reason: typed_reason(&rest[1..].join(" "))?,
    })
}

/// Renders an arbiter's action as the words after `arbiter` (the inverse of [`parse_action`]).
pub fn render_action(action: &ArbiterAction) -> String {
    match action {
        ArbiterAction::Pause
        | ArbiterAction::Resume
        | ArbiterAction::TakeBack
        | ArbiterAction::Repeat
        | ArbiterAction::StartClocks => action.id().to_owned(),
        ArbiterAction::StartAll => "start all".to_owned(),
        ArbiterAction::Put { square, piece } => format!("put {square} {}", piece.char()),
        ArbiterAction::Remove { square } => format!("remove {square}"),
        ArbiterAction::SetPosition { fen } => format!("fen {fen}"),
        ArbiterAction::Adjudicate { result, reason } if reason.is_empty() => {
            format!("adjudicate {}", result.pgn())
        }
        ArbiterAction::Adjudicate { result, reason } => {
            format!("adjudicate {} {reason}", result.pgn())
        }
        ArbiterAction::Void { reason } if reason.is_empty() => "void".to_owned(),
        ArbiterAction::Void { reason } => format!("void {reason}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A reason longer than the journal keeps is refused with its length, never cut
    /// without a word; one at the limit is kept whole and reads back the same.
    #[test]
    fn an_overlong_reason_is_refused_not_cut() {
        let long = "x".repeat(crate::game::MAX_REASON + 1);
        for words in [vec!["adjudicate", "1-0", &long], vec!["void", &long]] {
            assert_eq!(
                parse_action(&words),
                Err("the reason is 201 characters long, at most 200: say it shorter".to_owned())
            );
        }
        let at_limit = "y".repeat(crate::game::MAX_REASON);
        let action = parse_action(&["void", &at_limit]).unwrap();
        assert_eq!(
            action,
            ArbiterAction::Void {
                reason: at_limit.clone()
            }
        );
        let rendered = render_action(&action);
        let words: Vec<&str> = rendered.split(' ').collect();
        assert_eq!(parse_action(&words).unwrap(), action);
        // Spaces and comment marks are the journal's: one line, single spaces, no `#`.
        assert_eq!(
            parse_action(&["adjudicate", "0-1", "flag\tfell", "#", "twice"]).unwrap(),
            ArbiterAction::Adjudicate {
                result: GameResult::BlackWins,
                reason: "flag fell twice".to_owned()
            }
        );
    }
}
