//! The entries of a ply: tries (a trailing `?` for one the referee must refuse), keypad
//! questions (`ask:any`, `ask:rebuffs`) and promotion choices (`promote:q|r|b|n`).

use kriegspiel_referee::shakmaty::Role;
use kriegspiel_referee::{Question, Try};

/// One parsed entry of a ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Try { tried: Try, refused: bool },
    Ask(Question),
    Promote(Role),
}

pub(crate) fn parse_step(s: &str) -> Result<Step, String> {
    if let Some(q) = s.strip_prefix("ask:") {
        return match q {
            "any" => Ok(Step::Ask(Question::Any)),
            "rebuffs" => Ok(Step::Ask(Question::Rebuffs)),
            _ => Err(format!("unknown question '{q}' (any, rebuffs)")),
        };
    }
    if let Some(p) = s.strip_prefix("promote:") {
        return match p {
            "q" => Ok(Step::Promote(Role::Queen)),
            "r" => Ok(Step::Promote(Role::Rook)),
            "b" => Ok(Step::Promote(Role::Bishop)),
            "n" => Ok(Step::Promote(Role::Knight)),
            _ => Err(format!("unknown promotion piece '{p}' (q, r, b, n)")),
        };
    }
    let (uci, refused) = match s.strip_suffix('?') {
        Some(u) => (u, true),
        None => (s, false),
    };
    let tried = Try::from_uci(uci).map_err(|e| e.to_string())?;
    if tried.promotion.is_some() {
        return Err(format!(
            "'{s}': a board cannot show a promotion letter; write 'promote:X' before the try"
        ));
    }
    Ok(Step::Try { tried, refused })
}
