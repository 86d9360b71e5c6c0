//! The DGT emulator's script: `simulate`'s format with men instead of magnets, and faults.
//!
//! ```text
//! occupied start              first line: start | white | black | SQUARE (its start man)
//!                             | SQUARE=LETTER (e.g. e4=Q); or `fen RNBQKBNR/...` instead
//! 1000 lift e2                the man on e2 goes into the hand
//! 1100 place e4               the man last lifted (and not yet put back) goes to e4
//! 5000 place e8 N             a white knight on e8 (from the hand if one is there, else
//!                             a spare); FEN letters, 'X' 'Y' 'Z' for DGT's magic pieces
//! 2000 flicker g1 4           g1's man reads empty on every other scan, 4 scans
//! 3000 garbage 16             16 bytes of line noise
//! 3100 truncated              the first bytes of a board dump, and no more
//! 3200 eeprom                 an unasked 8 KB move log
//! 4000 silence 3000           no answer and no message for 3000 ms
//! 6000 unplug                 the cable out: the pseudo-terminal goes away
//! 8000 replug 54321           the cable in again (optionally as another serial number)
//! ```
//! Blank lines and `#` comments are allowed; times never decrease.

use std::fmt;
use std::path::Path;

use bounded_lines::{excerpt, LineError, LineReader};
use reed_matrix::Square;

/// A field's code as a DGT board sends it: 0 empty, 1–6 PRNBKQ, 7–12 prnbkq, 13–15 magic.
pub type Code = u8;

/// FEN letters by code (index 0 unused); X Y Z are DGT's three magic pieces.
const LETTERS: &[u8; 16] = b".PRNBKQprnbkqXYZ";

/// The code of a piece letter.
pub fn code_of(letter: &str) -> Option<Code> {
    match letter.as_bytes() {
        [b'.'] => None,
        [b] => LETTERS
            .iter()
            .position(|l| l == b)
            .and_then(|i| u8::try_from(i).ok()),
        _ => None,
    }
}

/// The letter of a code (`.` for empty, `?` above 15).
pub fn letter_of(code: Code) -> char {
    LETTERS
        .get(usize::from(code))
        .map_or('?', |&b| char::from(b))
}

/// The start position's man on a square (none on ranks 3–6).
fn start_man(square: Square) -> Option<Code> {
    const BACK: [u8; 8] = [2, 3, 4, 6, 5, 4, 3, 2];
    let file = usize::from(square.file());
    match square.rank() {
        0 => Some(BACK[file]),
        1 => Some(1),
        6 => Some(7),
        7 => Some(BACK[file] + 6),
        _ => None,
    }
}

/// One timed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Lift(Square),
    /// The man put down and where he came from: the hand, or a spare.
    Place(Square, Code),
    Flicker(Square, u32),
    Garbage(usize),
    Truncated,
    Eeprom,
    Silence(u32),
    Unplug,
    Replug(Option<String>),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Lift(sq) => write!(f, "lift {sq}"),
            Action::Place(sq, code) => write!(f, "place {sq} {}", letter_of(*code)),
            Action::Flicker(sq, n) => write!(f, "flicker {sq} {n}"),
            Action::Garbage(n) => write!(f, "garbage {n}"),
            Action::Truncated => f.write_str("truncated"),
            Action::Eeprom => f.write_str("eeprom"),
            Action::Silence(ms) => write!(f, "silence {ms}"),
            Action::Unplug => f.write_str("unplug"),
            Action::Replug(None) => f.write_str("replug"),
            Action::Replug(Some(serial)) => write!(f, "replug {serial}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub at_ms: u32,
    pub action: Action,
}

/// A parsed, consistent script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtScript {
    /// The men at time 0, by square index (a1 = 0).
    pub initial: [Code; 64],
    pub events: Vec<Event>,
}

/// A bad line; `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// Why a script file cannot be used; the message starts with the file's name.
#[derive(Debug)]
pub struct LoadError(pub String);

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// The longest serial number a board has (the long form).
const MAX_SERIAL: usize = 10;

impl DgtScript {
    /// Reads a script file (at most [`bounded_lines::MAX_FILE`] bytes).
    pub fn load(path: &Path) -> Result<DgtScript, LoadError> {
        let shown = path.display();
        let text = bounded_lines::read_text(path, bounded_lines::MAX_FILE)
            .map_err(|e| LoadError(format!("cannot read script {shown}: {e}")))?;
        DgtScript::parse(&text).map_err(|e| LoadError(format!("{shown}: {e}")))
    }

    pub fn parse(text: &str) -> Result<DgtScript, ScriptError> {
        let mut lines = LineReader::new(text.as_bytes());
        let mut parser = Parser::default();
        let mut number = 0;
        while let Ok(Some(line)) = lines.next_line() {
            number += 1;
            let line = line.map_err(|e| ScriptError {
                line: number,
                message: match e {
                    LineError::TooLong { limit, .. } => {
                        format!("line too long (the limit is {limit} bytes)")
                    }
                    LineError::NotUtf8 { valid_up_to } => {
                        format!("not UTF-8 text (invalid byte after {valid_up_to} bytes)")
                    }
                },
            })?;
            parser.line(line).map_err(|message| ScriptError {
                line: number,
                message,
            })?;
        }
        Ok(DgtScript {
            initial: parser.initial,
            events: parser.events,
        })
    }
}

#[derive(Debug)]
struct Parser {
    initial: [Code; 64],
    board: [Code; 64],
    /// Men lifted and not put back, last lifted last.
    hand: Vec<Code>,
    plugged: Option<bool>,
    seen_content: bool,
    previous_ms: u32,
    events: Vec<Event>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            initial: [0; 64],
            board: [0; 64],
            hand: Vec::new(),
            plugged: None,
            seen_content: false,
            previous_ms: 0,
            events: Vec::new(),
        }
    }
}

fn square(name: &str) -> Result<Square, String> {
    Square::parse(name).ok_or_else(|| format!("'{}' is not a square (a1 to h8)", excerpt(name)))
}

impl Parser {
    fn line(&mut self, raw: &str) -> Result<(), String> {
        let content = raw.split('#').next().unwrap_or("").trim();
        let fields: Vec<&str> = content.split_whitespace().collect();
        let Some(&first) = fields.first() else {
            return Ok(());
        };
        let first_lower = first.to_ascii_lowercase();
        if first_lower == "occupied" || first_lower == "fen" {
            if self.seen_content {
                return Err(format!("'{first}' is only allowed as the first line"));
            }
            self.seen_content = true;
            if first_lower == "fen" {
                let [_, placement] = fields[..] else {
                    return Err("expected 'fen PLACEMENT'".into());
                };
                self.fen(placement)?;
            } else {
                for name in &fields[1..] {
                    self.occupy(name)?;
                }
            }
            self.initial = self.board;
            return Ok(());
        }
        self.seen_content = true;
        let (time, verb, args) = match fields[..] {
            [time, verb, ref args @ ..] => (time, verb.to_ascii_lowercase(), args),
            _ => return Err("expected 'MILLISECONDS ACTION ...'".into()),
        };
        let at_ms: u32 = time.parse().map_err(|_| {
            format!(
                "'{}' is not a time in milliseconds (0 to 4294967295)",
                excerpt(time)
            )
        })?;
        if at_ms < self.previous_ms {
            return Err(format!(
                "time {at_ms} ms is before the previous line's {} ms",
                self.previous_ms
            ));
        }
        let action = self.action(&verb, args)?;
        self.previous_ms = at_ms;
        self.events.push(Event { at_ms, action });
        Ok(())
    }

    fn action(&mut self, verb: &str, args: &[&str]) -> Result<Action, String> {
        let count = |arg: Option<&&str>, default: u32, what: &str| -> Result<u32, String> {
            arg.map_or(Ok(default), |a| {
                a.parse()
                    .map_err(|_| format!("'{}' is not a {what}", excerpt(a)))
            })
        };
        let plugged = self.plugged.unwrap_or(true);
        let action = match (verb, args) {
            ("lift", [sq]) => {
                let sq = square(sq)?;
                let code = std::mem::take(&mut self.board[usize::from(sq.index())]);
                if code == 0 {
                    return Err(format!("lift {sq}: there is no man on {sq}"));
                }
                self.hand.push(code);
                Action::Lift(sq)
            }
            ("place", [sq, rest @ ..]) if rest.len() <= 1 => self.place(sq, rest.first())?,
            ("flicker", [sq, rest @ ..]) if rest.len() <= 1 => {
                let sq = square(sq)?;
                if self.board[usize::from(sq.index())] == 0 {
                    return Err(format!("flicker {sq}: there is no man on {sq}"));
                }
                Action::Flicker(sq, count(rest.first(), 4, "number of scans")?)
            }
            ("garbage", rest) if rest.len() <= 1 => {
                let n = count(rest.first(), 16, "number of bytes")?;
                Action::Garbage(usize::try_from(n.min(65_536)).unwrap_or(16))
            }
            ("truncated", []) => Action::Truncated,
            ("eeprom", []) => Action::Eeprom,
            ("silence", [ms]) => Action::Silence(count(Some(ms), 0, "duration in ms")?),
            ("unplug", []) if plugged => {
                self.plugged = Some(false);
                Action::Unplug
            }
            ("replug", rest) if rest.len() <= 1 && !plugged => {
                self.plugged = Some(true);
                let serial = rest.first().map(|s| (*s).to_owned());
                if let Some(s) = &serial {
                    check_serial(s)?;
                }
                Action::Replug(serial)
            }
            ("unplug", []) => return Err("unplug: the board is already unplugged".into()),
            ("replug", _) if plugged => {
                return Err("replug: the board is plugged in (unplug it first)".into())
            }
            (
                "lift" | "place" | "flicker" | "garbage" | "truncated" | "eeprom" | "silence"
                | "replug",
                _,
            ) => return Err(format!("wrong arguments for '{verb}'")),
            _ => {
                return Err(format!(
                    "unknown action '{}' (expected lift, place, flicker, garbage, truncated, eeprom, silence, unplug or replug)",
                    excerpt(verb)
                ))
            }
        };
        Ok(action)
    }

    fn place(&mut self, sq: &str, letter: Option<&&str>) -> Result<Action, String> {
        let sq = square(sq)?;
        if self.board[usize::from(sq.index())] != 0 {
            return Err(format!(
                "place {sq}: {sq} is not empty (lift its man first)"
            ));
        }
        let code = match letter {
            None => self.hand.pop().ok_or_else(|| {
                format!("place {sq}: no man in hand; name one (e.g. place {sq} N)")
            })?,
            Some(letter) => {
                let code = code_of(letter).ok_or_else(|| {
                    format!(
                        "'{}' is not a piece (PRNBKQ white, prnbkq black, XYZ magic)",
                        excerpt(letter)
                    )
                })?;
                if let Some(i) = self.hand.iter().rposition(|&c| c == code) {
                    self.hand.remove(i);
                }
                code
            }
        };
        self.board[usize::from(sq.index())] = code;
        Ok(Action::Place(sq, code))
    }

    fn occupy(&mut self, name: &str) -> Result<(), String> {
        let all = |pred: fn(u8) -> bool| -> Vec<Square> {
            Square::all().filter(|s| pred(s.rank())).collect()
        };
        let (squares, code) = match name.to_ascii_lowercase().as_str() {
            "start" => (all(|r| r <= 1 || r >= 6), None),
            "white" => (all(|r| r <= 1), None),
            "black" => (all(|r| r >= 6), None),
            _ => match name.split_once('=') {
                Some((sq, letter)) => {
                    let code = code_of(letter)
                        .ok_or_else(|| format!("'{}' is not a piece", excerpt(letter)))?;
                    (vec![square(sq)?], Some(code))
                }
                None => (vec![square(name)?], None),
            },
        };
        for sq in squares {
            let code = code.or_else(|| start_man(sq)).ok_or_else(|| {
                format!("occupied {sq}: no man starts there; name one (e.g. {sq}=Q)")
            })?;
            self.board[usize::from(sq.index())] = code;
        }
        Ok(())
    }

    fn fen(&mut self, placement: &str) -> Result<(), String> {
        let bad = || format!("'{}' is not a FEN board", excerpt(placement));
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(bad());
        }
        for (i, rank) in ranks.iter().enumerate() {
            let rank_index = u8::try_from(7 - i).map_err(|_| bad())?;
            let mut file = 0u8;
            for ch in rank.chars() {
                if let Some(gap) = ch.to_digit(10) {
                    file += u8::try_from(gap).map_err(|_| bad())?;
                    continue;
                }
                let sq = Square::from_coords(file, rank_index).ok_or_else(bad)?;
                let code = code_of(ch.encode_utf8(&mut [0; 4])).ok_or_else(bad)?;
                self.board[usize::from(sq.index())] = code;
                file += 1;
            }
            if file != 8 {
                return Err(bad());
            }
        }
        Ok(())
    }
}

/// A serial number is 1–10 ASCII letters or digits.
pub fn check_serial(serial: &str) -> Result<(), String> {
    if serial.is_empty()
        || serial.len() > MAX_SERIAL
        || !serial.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(format!(
            "'{}' is not a serial number (1 to 10 letters or digits)",
            excerpt(serial)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn at(script: &DgtScript, name: &str) -> char {
        letter_of(script.initial[usize::from(sq(name).index())])
    }

    #[test]
    fn a_reed_script_plays_with_the_men_it_lifts() {
        let s = DgtScript::parse(
            "occupied start\n1000 lift e2\n1100 place e4\n2000 lift d7\n2100 place d5\n3000 lift d5\n3050 lift e4\n3100 place d5\n",
        )
        .unwrap();
        assert_eq!(at(&s, "e1"), 'K');
        assert_eq!(at(&s, "d8"), 'q');
        assert_eq!(at(&s, "e4"), '.');
        let places: Vec<String> = s
            .events
            .iter()
            .filter(|e| matches!(e.action, Action::Place(..)))
            .map(|e| e.action.to_string())
            .collect();
        // The capture exd5 puts down the white pawn, the last man lifted.
        assert_eq!(places, ["place e4 P", "place d5 p", "place d5 P"]);
    }

    #[test]
    fn pieces_spares_and_faults() {
        let s = DgtScript::parse(
            "fen 8/4P3/8/8/8/8/8/4K2k\n\
             100 lift e7\n200 place e8 N   # promotion to a spare knight\n\
             300 flicker e8\n400 garbage 5\n500 truncated\n600 eeprom\n700 silence 1500\n\
             800 unplug\n900 place e7 X\n1000 replug 54321\n1100 replug\n",
        );
        let err = s.unwrap_err();
        assert_eq!(err.line, 12);
        assert_eq!(
            err.to_string(),
            "script line 12: replug: the board is plugged in (unplug it first)"
        );
        let s = DgtScript::parse(
            "fen 8/4P3/8/8/8/8/8/4K2k\n100 lift e7\n200 place e8 N\n300 flicker e8\n400 garbage 5\n500 truncated\n600 eeprom\n700 silence 1500\n800 unplug\n900 place e7 X\n1000 replug 54321\n",
        )
        .unwrap();
        assert_eq!(at(&s, "e7"), 'P');
        assert_eq!(at(&s, "h1"), 'k');
        let actions: Vec<String> = s.events.iter().map(|e| e.action.to_string()).collect();
        assert_eq!(
            actions,
            [
                "lift e7",
                "place e8 N",
                "flicker e8 4",
                "garbage 5",
                "truncated",
                "eeprom",
                "silence 1500",
                "unplug",
                "place e7 X",
                "replug 54321"
            ]
        );
    }

    #[test]
    fn bad_lines_say_why() {
        let cases = [
            ("occupied e4", 1, "occupied e4: no man starts there; name one (e.g. e4=Q)"),
            ("occupied e4=W", 1, "'W' is not a piece"),
            ("10 place e4", 1, "place e4: no man in hand; name one (e.g. place e4 N)"),
            ("occupied white\n10 place e2 Q", 2, "place e2: e2 is not empty (lift its man first)"),
            ("10 lift e4", 1, "lift e4: there is no man on e4"),
            ("10 hop e4", 1, "unknown action 'hop' (expected lift, place, flicker, garbage, truncated, eeprom, silence, unplug or replug)"),
            ("10 unplug\n20 unplug", 2, "unplug: the board is already unplugged"),
            ("10 unplug\n20 replug 123456789012", 2, "'123456789012' is not a serial number (1 to 10 letters or digits)"),
            ("20 garbage\n10 truncated", 2, "time 10 ms is before the previous line's 20 ms"),
            ("10 silence", 1, "wrong arguments for 'silence'"),
            ("fen 8/8/8", 1, "'8/8/8' is not a FEN board"),
            ("10 eeprom\noccupied start", 2, "'occupied' is only allowed as the first line"),
        ];
        for (text, line, message) in cases {
            let err = DgtScript::parse(text).unwrap_err();
            assert_eq!((err.line, err.message.as_str()), (line, message), "{text}");
        }
    }

    #[test]
    fn codes_and_letters() {
        assert_eq!(code_of("P"), Some(1));
        assert_eq!(code_of("q"), Some(12));
        assert_eq!(code_of("Z"), Some(15));
        assert_eq!(code_of("W"), None);
        assert_eq!(code_of("."), None);
        assert_eq!(letter_of(9), 'n');
        assert_eq!(letter_of(16), '?');
    }
}
