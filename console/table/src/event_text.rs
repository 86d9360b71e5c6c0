//! The text form of an [`Event`]: one line, `TIME [COLOUR] WHAT [ARGUMENTS]`. Trace files
//! (docs/TRACE-FORMAT.md) are written in it, and the journal keeps every input in it:
//! [`render_event`] and [`parse_event`] are inverse.

use core::fmt::Write as _;
use core::str::FromStr;

use kriegspiel_referee::Question;
use shakmaty::{Bitboard, Color, Role, Square};

use crate::arbiter_words::{parse_action, render_action};
use crate::game::clean_reason;
use crate::{BoardInput, Event, Input, Millis};

/// A whole number (a time or a board id).
pub(crate) fn number<T: FromStr>(s: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a whole number of milliseconds"))
}

pub(crate) fn parse_color(s: &str) -> Result<Color, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a colour (white, black)"))
}

pub(crate) fn parse_square(s: &str) -> Result<Square, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a square (a1 to h8)"))
}

/// Parses one event line: `1200 white lift e2`, `2000 black promote n`, `2100 white ask any`,
/// `2500 black snapshot a7 b7 ...` (or `-` for an empty board), `3000 white connect`,
/// `3100 white disconnect`, `4000 tick`.
pub fn parse_event(line: &str) -> Result<Event, String> {
    let mut words = line.split_whitespace();
    let at_word = words.next().ok_or("an empty event line")?;
    let at: Millis = at_word
        .parse()
        .map_err(|_| format!("'{at_word}' is not a time in milliseconds (or a header key)"))?;
    let first = words.next().ok_or("a time without an event")?;
    if first == "tick" {
        return match words.next() {
            None => Ok(Event::tick(at)),
            Some(extra) => Err(format!("unexpected '{extra}' after tick")),
        };
    }
    if first == "restarted" {
        let (down_ms, counted) = match (words.next(), words.next(), words.next()) {
            (Some(ms), None, None) => (number(ms)?, false),
            (Some(ms), Some("counted"), None) => (number(ms)?, true),
            _ => {
                return Err("restarted takes the milliseconds the console was down, and 'counted' when that time counted on the clocks".to_owned())
            }
        };
        return Ok(Event::new(at, Input::Restarted { down_ms, counted }));
    }
    if first == "arbiter" {
        let rest: Vec<&str> = words.collect();
        return Ok(Event::new(at, Input::Arbiter(parse_action(&rest)?)));
    }
    let color = parse_color(first)?;
    let what = words.next().ok_or_else(|| {
        format!(
            "'{first}' needs an event (lift, place, snapshot, connect, disconnect, promote, ask)"
        )
    })?;
    let rest: Vec<&str> = words.collect();
    let input = player_input(color, what, &rest)?;
    Ok(Event { at, input })
}

/// The input of one player's line: `what` he or his board did, with its arguments.
fn player_input(color: Color, what: &str, rest: &[&str]) -> Result<Input, String> {
    let one = |rest: &[&str]| -> Result<String, String> {
        match rest {
            [w] => Ok((*w).to_owned()),
            _ => Err(format!("'{what}' takes exactly one argument")),
        }
    };
    let none = |rest: &[&str]| -> Result<(), String> {
        match rest {
            [] => Ok(()),
            _ => Err(format!("'{what}' takes no argument")),
        }
    };
    let board = |input| Input::Board { color, input };
    Ok(match what {
        "lift" => board(BoardInput::Lift(parse_square(&one(rest)?)?)),
        "place" => board(BoardInput::Place(parse_square(&one(rest)?)?)),
        "snapshot" => board(BoardInput::Snapshot(parse_snapshot(rest)?)),
        "connect" => {
            let board_id = match rest {
                [] => None,
                [id] => Some(number(id)?),
                _ => return Err("connect takes at most the board id".to_owned()),
            };
            board(BoardInput::Connected { board_id })
        }
        "resign" => {
            none(rest)?;
            Input::Resign { color }
        }
        "play" => {
            let uci = one(rest)?;
            let tried = kriegspiel_referee::Try::from_uci(&uci)
                .map_err(|e| format!("'{}' is not a try: {e}", clean_reason(&uci)))?;
            Input::Play { color, tried }
        }
        "draw" => {
            none(rest)?;
            Input::Draw { color }
        }
        "disconnect" => {
            none(rest)?;
            board(BoardInput::Disconnected)
        }
        "promote" => Input::Promote {
            color,
            role: parse_promotion(&one(rest)?)?,
        },
        "ask" => {
            let q = one(rest)?;
            let question = match q.as_str() {
                "any" => Question::Any,
                "rebuffs" => Question::Rebuffs,
                _ => return Err(format!("'{q}' is not a question (any, rebuffs)")),
            };
            Input::Ask { color, question }
        }
        other => {
            return Err(format!(
                "unknown event '{other}' (lift, place, snapshot, connect, disconnect, promote, ask, play, resign, draw)"
            ))
        }
    })
}

/// A snapshot's occupied squares, or `-` for none.
fn parse_snapshot(rest: &[&str]) -> Result<Bitboard, String> {
    let mut bb = Bitboard::EMPTY;
    match rest {
        [] => return Err("snapshot needs its occupied squares, or '-' for none".to_owned()),
        ["-"] => {}
        squares => {
            for s in squares {
                bb.add(parse_square(s)?);
            }
        }
    }
    Ok(bb)
}

/// A promotion choice's piece letter (a king or pawn is read, and refused by the table).
fn parse_promotion(letter: &str) -> Result<Role, String> {
    Ok(match letter {
        "q" => Role::Queen,
        "r" => Role::Rook,
        "b" => Role::Bishop,
        "n" => Role::Knight,
        "k" => Role::King,
        "p" => Role::Pawn,
        _ => return Err(format!("'{letter}' is not a piece letter (q, r, b, n)")),
    })
}

/// Renders an event as its line (the inverse of [`parse_event`]).
pub fn render_event(event: &Event) -> String {
    let mut s = event.at.to_string();
    match &event.input {
        Input::Tick => s.push_str(" tick"),
        Input::Restarted { down_ms, counted } => {
            let _ = write!(s, " restarted {down_ms}");
            if *counted {
                s.push_str(" counted");
            }
        }
        Input::Arbiter(action) => {
            let _ = write!(s, " arbiter {}", render_action(action));
        }
        Input::Resign { color } => {
            let _ = write!(s, " {color} resign");
        }
        Input::Play { color, tried } => {
            let _ = write!(s, " {color} play {}", tried.to_uci());
        }
        Input::Draw { color } => {
            let _ = write!(s, " {color} draw");
        }
        Input::Board { color, input } => {
            let _ = write!(s, " {color}");
            render_board_input(&mut s, input);
        }
        Input::Promote { color, role } => {
            let _ = write!(s, " {color} promote {}", role.char());
        }
        Input::Ask { color, question } => {
            let _ = write!(s, " {color} ask {question}");
        }
    }
    s
}

/// Appends what a board did: ` lift e2`, ` snapshot a7 b7`, ` connect 3`...
fn render_board_input(s: &mut String, input: &BoardInput) {
    match input {
        BoardInput::Lift(sq) => {
            let _ = write!(s, " lift {sq}");
        }
        BoardInput::Place(sq) => {
            let _ = write!(s, " place {sq}");
        }
        BoardInput::Snapshot(bb) => {
            s.push_str(" snapshot");
            if bb.is_empty() {
                s.push_str(" -");
            }
            for sq in *bb {
                let _ = write!(s, " {sq}");
            }
        }
        BoardInput::Connected { board_id: None } => s.push_str(" connect"),
        BoardInput::Connected { board_id: Some(id) } => {
            let _ = write!(s, " connect {id}");
        }
        BoardInput::Disconnected => s.push_str(" disconnect"),
    }
}
