//! The simulator's script: timed magnet moves.
//!
//! ```text
//! # optional first line: the squares holding a magnet at time 0 (default: none)
//! occupied a1 b1 c1        (or `occupied white`, `occupied black`, `occupied start`)
//! 1200 lift e2             milliseconds from the start, lift|place, square
//! 1900 place e4
//! ```
//! Blank lines and `#` comments (whole-line or trailing) are allowed; times never decrease;
//! a lift needs a magnet on the square and a place an empty square.

use std::fmt;

use reed_matrix::{Occupancy, Square};

/// What happens to the magnet on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Lift,
    Place,
}

/// One timed magnet move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptEvent {
    /// Milliseconds from the start of the run.
    pub at_ms: u32,
    pub action: Action,
    pub square: Square,
}

/// A parsed, consistent script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub initial: Occupancy,
    pub events: Vec<ScriptEvent>,
}

/// A bad script line; `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    pub line: usize,
    pub kind: ScriptErrorKind,
}

/// What is wrong with the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptErrorKind {
    BadTime(String),
    TimeGoesBack { at_ms: u32, previous_ms: u32 },
    BadAction(String),
    BadSquare(String),
    WrongFieldCount(usize),
    OccupiedNotFirst,
    LiftFromEmpty(Square),
    PlaceOnOccupied(Square),
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script line {}: ", self.line)?;
        match &self.kind {
            ScriptErrorKind::BadTime(t) => {
                write!(f, "'{t}' is not a time in milliseconds (0 to 4294967295)")
            }
            ScriptErrorKind::TimeGoesBack { at_ms, previous_ms } => {
                write!(
                    f,
                    "time {at_ms} ms is before the previous line's {previous_ms} ms"
                )
            }
            ScriptErrorKind::BadAction(a) => {
                write!(f, "unknown action '{a}' (expected lift or place)")
            }
            ScriptErrorKind::BadSquare(s) => write!(f, "'{s}' is not a square (a1 to h8)"),
            ScriptErrorKind::WrongFieldCount(n) => {
                write!(
                    f,
                    "expected 'MILLISECONDS lift|place SQUARE', found {n} field(s)"
                )
            }
            ScriptErrorKind::OccupiedNotFirst => {
                write!(
                    f,
                    "'occupied' is only allowed as the first line (before any event)"
                )
            }
            ScriptErrorKind::LiftFromEmpty(sq) => {
                write!(f, "lift {sq}: there is no magnet on {sq}")
            }
            ScriptErrorKind::PlaceOnOccupied(sq) => {
                write!(f, "place {sq}: {sq} already holds a magnet")
            }
        }
    }
}

impl std::error::Error for ScriptError {}

impl Script {
    /// Parses and checks a whole script.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut script = Script {
            initial: Occupancy::EMPTY,
            events: Vec::new(),
        };
        let mut magnets = Occupancy::EMPTY;
        let mut seen_content = false;
        let mut previous_ms = 0u32;
        for (index, raw_line) in text.lines().enumerate() {
            let line = index + 1;
            let err = |kind| ScriptError { line, kind };
            let content = raw_line.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let fields: Vec<&str> = content.split_whitespace().collect();
            if fields[0].eq_ignore_ascii_case("occupied") {
                if seen_content {
                    return Err(err(ScriptErrorKind::OccupiedNotFirst));
                }
                seen_content = true;
                for name in &fields[1..] {
                    let add =
                        match name.to_ascii_lowercase().as_str() {
                            "start" => Occupancy::START,
                            "white" => Occupancy::WHITE_START,
                            "black" => Occupancy::BLACK_START,
                            _ => Occupancy::EMPTY.with(Square::parse(name).ok_or_else(|| {
                                err(ScriptErrorKind::BadSquare((*name).to_string()))
                            })?),
                        };
                    magnets = Occupancy(magnets.bits() | add.bits());
                }
                script.initial = magnets;
                continue;
            }
            seen_content = true;
            let [time, action, square] = fields[..] else {
                return Err(err(ScriptErrorKind::WrongFieldCount(fields.len())));
            };
            let at_ms: u32 = time
                .parse()
                .map_err(|_| err(ScriptErrorKind::BadTime(time.to_string())))?;
            if at_ms < previous_ms {
                return Err(err(ScriptErrorKind::TimeGoesBack { at_ms, previous_ms }));
            }
            let action = match action.to_ascii_lowercase().as_str() {
                "lift" => Action::Lift,
                "place" => Action::Place,
                _ => return Err(err(ScriptErrorKind::BadAction(action.to_string()))),
            };
            let square = Square::parse(square)
                .ok_or_else(|| err(ScriptErrorKind::BadSquare(square.to_string())))?;
            match action {
                Action::Lift if !magnets.contains(square) => {
                    return Err(err(ScriptErrorKind::LiftFromEmpty(square)))
                }
                Action::Place if magnets.contains(square) => {
                    return Err(err(ScriptErrorKind::PlaceOnOccupied(square)))
                }
                Action::Lift | Action::Place => {}
            }
            magnets.set(square, action == Action::Place);
            previous_ms = at_ms;
            script.events.push(ScriptEvent {
                at_ms,
                action,
                square,
            });
        }
        Ok(script)
    }

    /// The magnets after every event.
    pub fn final_occupancy(&self) -> Occupancy {
        self.events.iter().fold(self.initial, |mut occ, e| {
            occ.set(e.square, e.action == Action::Place);
            occ
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn parses_occupancy_events_comments_and_blank_lines() {
        let text = "# a quiet opening\noccupied white h8\n\n1200 lift e2\n1900 place e4   # pawn two squares\n1900 LIFT h8\n";
        let script = Script::parse(text).unwrap();
        assert_eq!(script.initial, Occupancy::WHITE_START.with(sq("h8")));
        assert_eq!(
            script.events,
            [
                ScriptEvent {
                    at_ms: 1200,
                    action: Action::Lift,
                    square: sq("e2")
                },
                ScriptEvent {
                    at_ms: 1900,
                    action: Action::Place,
                    square: sq("e4")
                },
                ScriptEvent {
                    at_ms: 1900,
                    action: Action::Lift,
                    square: sq("h8")
                },
            ]
        );
        assert_eq!(
            script.final_occupancy(),
            Occupancy::WHITE_START.without(sq("e2")).with(sq("e4"))
        );
    }

    #[test]
    fn the_example_script_parses() {
        let script = Script::parse(include_str!("../examples/opening.txt")).unwrap();
        assert_eq!(script.initial, Occupancy::WHITE_START);
        assert_eq!(script.events.len(), 6);
        assert_eq!(
            script.final_occupancy(),
            Occupancy::WHITE_START
                .without(sq("e2"))
                .with(sq("e4"))
                .without(sq("g1"))
                .with(sq("f3"))
        );
    }

    #[test]
    fn empty_script_is_an_empty_board_with_no_events() {
        let script = Script::parse("\n# nothing\n").unwrap();
        assert_eq!(
            script,
            Script {
                initial: Occupancy::EMPTY,
                events: vec![]
            }
        );
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        let cases: [(&str, usize, ScriptErrorKind); 9] = [
            ("10 lfit e2", 1, ScriptErrorKind::BadAction("lfit".into())),
            (
                "occupied e2\n10 lift e9",
                2,
                ScriptErrorKind::BadSquare("e9".into()),
            ),
            ("\n\nabc lift e2", 3, ScriptErrorKind::BadTime("abc".into())),
            ("-5 place e2", 1, ScriptErrorKind::BadTime("-5".into())),
            (
                "10 place e2\n5 lift e2",
                2,
                ScriptErrorKind::TimeGoesBack {
                    at_ms: 5,
                    previous_ms: 10,
                },
            ),
            ("10 place", 1, ScriptErrorKind::WrongFieldCount(2)),
            (
                "10 place e2\noccupied a1",
                2,
                ScriptErrorKind::OccupiedNotFirst,
            ),
            (
                "occupied a1\n10 lift b1",
                2,
                ScriptErrorKind::LiftFromEmpty(sq("b1")),
            ),
            ("occupied a1 zz", 1, ScriptErrorKind::BadSquare("zz".into())),
        ];
        for (text, line, kind) in cases {
            assert_eq!(
                Script::parse(text),
                Err(ScriptError { line, kind }),
                "{text:?}"
            );
        }
        let err = Script::parse("occupied white\n100 place e2").unwrap_err();
        assert_eq!(
            err.to_string(),
            "script line 2: place e2: e2 already holds a magnet"
        );
    }
}
