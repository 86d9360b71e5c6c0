//! The simulator's script: timed magnet moves.
//!
//! ```text
//! # optional first line: the squares holding a magnet at time 0 (default: none)
//! occupied a1 b1 c1        (or `occupied white`, `occupied black`, `occupied start`)
//! 1200 lift e2             milliseconds from the start, lift|place, square
//! 1900 place e4
//! ```
//! Blank lines and `#` comments (whole-line or trailing) are allowed; times never decrease;
//! a lift needs a magnet on the square and a place an empty square. Lines are at most 64 KiB
//! and files 4 MiB; a byte-order mark at the start is skipped.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use bounded_lines::{excerpt, LineError, LineReader};
use reed_matrix::{Occupancy, Square};

/// The largest script file read (a 4 MiB script is some 300,000 moves).
pub const MAX_SCRIPT_BYTES: u64 = bounded_lines::MAX_FILE;

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

/// What is wrong with the line. Quoted input is cut to a short excerpt when shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptErrorKind {
    BadTime(String),
    TimeGoesBack {
        at_ms: u32,
        previous_ms: u32,
    },
    BadAction(String),
    BadSquare(String),
    WrongFieldCount(usize),
    OccupiedNotFirst,
    LiftFromEmpty(Square),
    PlaceOnOccupied(Square),
    /// More than `limit` bytes; `len` is the whole line's length when it ended before the
    /// file's size limit.
    LineTooLong {
        len: Option<u64>,
        limit: usize,
    },
    /// The line is not UTF-8 text.
    NotUtf8 {
        valid_up_to: usize,
    },
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script line {}: ", self.line)?;
        match &self.kind {
            ScriptErrorKind::BadTime(t) => {
                write!(
                    f,
                    "'{}' is not a time in milliseconds (0 to 4294967295)",
                    excerpt(t)
                )
            }
            ScriptErrorKind::TimeGoesBack { at_ms, previous_ms } => {
                write!(
                    f,
                    "time {at_ms} ms is before the previous line's {previous_ms} ms"
                )
            }
            ScriptErrorKind::BadAction(a) => {
                write!(
                    f,
                    "unknown action '{}' (expected lift or place)",
                    excerpt(a)
                )
            }
            ScriptErrorKind::BadSquare(s) => {
                write!(f, "'{}' is not a square (a1 to h8)", excerpt(s))
            }
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
            ScriptErrorKind::LineTooLong {
                len: Some(len),
                limit,
            } => write!(f, "line too long ({len} bytes; the limit is {limit})"),
            ScriptErrorKind::LineTooLong { len: None, limit } => {
                write!(f, "line too long (more than {limit} bytes)")
            }
            ScriptErrorKind::NotUtf8 { valid_up_to } => {
                write!(f, "not UTF-8 text (invalid byte after {valid_up_to} bytes)")
            }
        }
    }
}

impl std::error::Error for ScriptError {}

/// Why a script file cannot be used; every message starts with the file's name.
#[derive(Debug)]
pub enum LoadError {
    Read {
        path: String,
        source: io::Error,
    },
    /// The file holds more than `limit` bytes (a device such as /dev/zero is cut there).
    TooLarge {
        path: String,
        limit: u64,
    },
    Line {
        path: String,
        error: ScriptError,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Read { path, source } => write!(f, "cannot read script {path}: {source}"),
            LoadError::TooLarge { path, limit } => {
                write!(f, "{path}: script too large (the limit is {limit} bytes)")
            }
            LoadError::Line { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Read { source, .. } => Some(source),
            LoadError::Line { error, .. } => Some(error),
            LoadError::TooLarge { .. } => None,
        }
    }
}

fn line_number(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl Script {
    /// Parses and checks a whole script. Lines are limited to [`bounded_lines::MAX_LINE`] bytes; a leading
    /// byte-order mark is skipped.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut lines = LineReader::new(text.as_bytes());
        let mut parser = Parser::default();
        let mut number = 0;
        // Reading a slice cannot fail: `Err` does not occur and would end the text.
        while let Ok(Some(line)) = lines.next_line() {
            number += 1;
            parser.line(number, line.map_err(|e| line_error(number, e, true))?)?;
        }
        Ok(parser.script)
    }

    /// Reads and checks the script file at `path`: at most `max_bytes` bytes (more is an
    /// error, so that a device such as /dev/zero ends promptly), lines of at most
    /// [`bounded_lines::MAX_LINE`] bytes, a leading byte-order mark skipped.
    pub fn load(path: &Path, max_bytes: u64) -> Result<Script, LoadError> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| LoadError::Read {
            path: shown.clone(),
            source,
        })?;
        let mut lines = LineReader::new(file.take(max_bytes.saturating_add(1)));
        let mut parser = Parser::default();
        loop {
            // Owned, so that the reader can be asked about its limit (a line is at most 64 KiB).
            let next = match lines.next_line() {
                Ok(next) => next.map(|line| line.map(str::to_owned)),
                Err(source) => {
                    return Err(LoadError::Read {
                        path: shown.clone(),
                        source,
                    })
                }
            };
            // The reader stops one byte past the limit: the file is too large, and the line
            // in hand may be cut short.
            let cut = lines.get_ref().limit() == 0;
            let number = line_number(lines.line_number());
            let result = match next {
                None => break,
                Some(Err(e @ LineError::TooLong { .. })) => Err(line_error(number, e, !cut)),
                Some(_) if cut => {
                    return Err(LoadError::TooLarge {
                        path: shown,
                        limit: max_bytes,
                    })
                }
                Some(Err(e)) => Err(line_error(number, e, true)),
                Some(Ok(line)) => parser.line(number, &line),
            };
            result.map_err(|error| LoadError::Line {
                path: shown.clone(),
                error,
            })?;
        }
        Ok(parser.script)
    }

    /// The script as a board restarted after its first `done` events finds it: the men
    /// stand where those events left them (magnets do not move when a board reboots), and
    /// the rest follow at their own times. `None` when the script has fewer events.
    pub fn from_event(&self, done: usize) -> Option<Script> {
        let (past, rest) = (self.events.get(..done)?, self.events.get(done..)?);
        let initial = past.iter().fold(self.initial, |mut occ, e| {
            occ.set(e.square, e.action == Action::Place);
            occ
        });
        Some(Script {
            initial,
            events: rest.to_vec(),
        })
    }

    /// The magnets after every event.
    pub fn final_occupancy(&self) -> Occupancy {
        self.events.iter().fold(self.initial, |mut occ, e| {
            occ.set(e.square, e.action == Action::Place);
            occ
        })
    }
}

fn line_error(line: usize, error: LineError, whole: bool) -> ScriptError {
    let kind = match error {
        LineError::TooLong { len, limit } => ScriptErrorKind::LineTooLong {
            len: whole.then_some(len),
            limit,
        },
        LineError::NotUtf8 { valid_up_to } => ScriptErrorKind::NotUtf8 { valid_up_to },
    };
    ScriptError { line, kind }
}

/// The script so far, one line at a time.
#[derive(Debug)]
struct Parser {
    script: Script,
    magnets: Occupancy,
    seen_content: bool,
    previous_ms: u32,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            script: Script {
                initial: Occupancy::EMPTY,
                events: Vec::new(),
            },
            magnets: Occupancy::EMPTY,
            seen_content: false,
            previous_ms: 0,
        }
    }
}

impl Parser {
    fn line(&mut self, line: usize, raw_line: &str) -> Result<(), ScriptError> {
        let err = |kind| ScriptError { line, kind };
        let content = raw_line.split('#').next().unwrap_or("").trim();
        let fields: Vec<&str> = content.split_whitespace().collect();
        let Some(first) = fields.first() else {
            return Ok(());
        };
        if first.eq_ignore_ascii_case("occupied") {
            if self.seen_content {
                return Err(err(ScriptErrorKind::OccupiedNotFirst));
            }
            self.seen_content = true;
            for name in &fields[1..] {
                let add = match name.to_ascii_lowercase().as_str() {
                    "start" => Occupancy::START,
                    "white" => Occupancy::WHITE_START,
                    "black" => Occupancy::BLACK_START,
                    _ => Occupancy::EMPTY.with(
                        Square::parse(name)
                            .ok_or_else(|| err(ScriptErrorKind::BadSquare((*name).to_string())))?,
                    ),
                };
                self.magnets = Occupancy(self.magnets.bits() | add.bits());
            }
            self.script.initial = self.magnets;
            return Ok(());
        }
        self.seen_content = true;
        let [time, action, square] = fields[..] else {
            return Err(err(ScriptErrorKind::WrongFieldCount(fields.len())));
        };
        let at_ms: u32 = time
            .parse()
            .map_err(|_| err(ScriptErrorKind::BadTime(time.to_string())))?;
        if at_ms < self.previous_ms {
            return Err(err(ScriptErrorKind::TimeGoesBack {
                at_ms,
                previous_ms: self.previous_ms,
            }));
        }
        let action = match action.to_ascii_lowercase().as_str() {
            "lift" => Action::Lift,
            "place" => Action::Place,
            _ => return Err(err(ScriptErrorKind::BadAction(action.to_string()))),
        };
        let square = Square::parse(square)
            .ok_or_else(|| err(ScriptErrorKind::BadSquare(square.to_string())))?;
        match action {
            Action::Lift if !self.magnets.contains(square) => {
                return Err(err(ScriptErrorKind::LiftFromEmpty(square)))
            }
            Action::Place if self.magnets.contains(square) => {
                return Err(err(ScriptErrorKind::PlaceOnOccupied(square)))
            }
            Action::Lift | Action::Place => {}
        }
        self.magnets.set(square, action == Action::Place);
        self.previous_ms = at_ms;
        self.script.events.push(ScriptEvent {
            at_ms,
            action,
            square,
        });
        Ok(())
    }
}

/// Script time 0 given as a wall-clock moment (`--start-at`), in Unix milliseconds within
/// a day of now: seconds (`date +%s`) or a typo would start the whole script at once, or
/// never.
pub fn parse_unix_ms(s: &str) -> Result<std::time::SystemTime, String> {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    const DAY: Duration = Duration::from_secs(24 * 3600);
    let hint = "milliseconds since 1970 within a day of now (date +%s%3N)";
    let ms: u64 = s.parse().map_err(|_| format!("expected {hint}"))?;
    let at = UNIX_EPOCH
        .checked_add(Duration::from_millis(ms))
        .ok_or_else(|| format!("out of range: expected {hint}"))?;
    let now = SystemTime::now();
    let off = at
        .duration_since(now)
        .or_else(|past| Ok::<_, ()>(past.duration()))
        .unwrap_or(Duration::MAX);
    if off > DAY {
        return Err(format!("more than a day from now: expected {hint}"));
    }
    Ok(at)
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
    fn a_script_from_an_event_starts_where_the_earlier_events_left_the_men() {
        let script = Script::parse(include_str!("../examples/opening.txt")).unwrap();
        assert_eq!(script.from_event(0), Some(script.clone()));
        let rest = script.from_event(2).unwrap();
        assert_eq!(
            rest.initial,
            Occupancy::WHITE_START.without(sq("e2")).with(sq("e4"))
        );
        assert_eq!(rest.events, script.events[2..]);
        assert_eq!(rest.final_occupancy(), script.final_occupancy());
        let done = script.from_event(6).unwrap();
        assert_eq!(
            (done.initial, done.events.len()),
            (script.final_occupancy(), 0)
        );
        assert_eq!(script.from_event(7), None);
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
    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let script = Script::parse("\u{feff}occupied white\n10 lift e2\n").unwrap();
        assert_eq!(script.initial, Occupancy::WHITE_START);
        assert_eq!(script.events.len(), 1);
        let script = Script::parse("\u{feff}10 place e4\n").unwrap();
        assert_eq!(script.events[0].square, sq("e4"));
    }

    #[test]
    fn a_line_over_64_kib_is_one_error_naming_the_line() {
        let text = format!("occupied white\n10 lift e2 {}\n", "#".repeat(70_000));
        assert_eq!(
            Script::parse(&text),
            Err(ScriptError {
                line: 2,
                kind: ScriptErrorKind::LineTooLong {
                    len: Some(70_011),
                    limit: 65_536
                }
            })
        );
        // Just under the limit is fine (a long comment).
        let text = format!("10 place e2 {}\n", "#".repeat(65_000));
        assert_eq!(Script::parse(&text).map(|s| s.events.len()), Ok(1));
    }

    #[test]
    fn error_messages_quote_at_most_an_excerpt() {
        let long = "x".repeat(10_000);
        for text in [
            format!("{long} lift e2"),
            format!("10 {long} e2"),
            format!("occupied white\n10 lift {long}"),
        ] {
            let msg = Script::parse(&text).unwrap_err().to_string();
            assert!(msg.chars().count() < 160, "{} chars: {msg}", msg.len());
            assert!(msg.contains("xxxxxxxx…"), "{msg}");
        }
    }

    fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn load_reads_a_file_with_a_size_limit() {
        let (_dir, path) = temp_file("moves.txt", b"\xEF\xBB\xBFoccupied a1\n10 lift a1\n");
        let script = Script::load(&path, MAX_SCRIPT_BYTES).unwrap();
        assert_eq!(script.events.len(), 1);
        // Exactly at the limit is fine; one byte more is not.
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(Script::load(&path, size).is_ok());
        let err = Script::load(&path, size - 1).unwrap_err();
        assert!(matches!(err, LoadError::TooLarge { .. }), "{err:?}");
        assert!(
            err.to_string().ends_with(&format!(
                "moves.txt: script too large (the limit is {} bytes)",
                size - 1
            )),
            "{err}"
        );
    }

    #[test]
    fn load_names_the_file_and_line() {
        let (_dir, path) = temp_file("moves.txt", b"occupied a1\n10 lift a1\n20 lift a1\n");
        let err = Script::load(&path, MAX_SCRIPT_BYTES)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("moves.txt: script line 3: lift a1: there is no magnet on a1"),
            "{err}"
        );
        let (_dir, path) = temp_file("bytes.txt", b"occupied a1\n10 lift \xff1\n");
        let err = Script::load(&path, MAX_SCRIPT_BYTES)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("bytes.txt: script line 2: not UTF-8 text (invalid byte after 8 bytes)"),
            "{err}"
        );
        let err = Script::load(Path::new("/nonexistent/moves.txt"), MAX_SCRIPT_BYTES)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("cannot read script /nonexistent/moves.txt: "),
            "{err}"
        );
    }

    #[test]
    fn an_endless_file_ends_promptly_at_the_first_line() {
        let start = std::time::Instant::now();
        let err = Script::load(Path::new("/dev/zero"), MAX_SCRIPT_BYTES).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/dev/zero: script line 1: line too long (more than 65536 bytes)"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
