//! Trace files (docs/TRACE-FORMAT.md): a table's set-up, timed inputs of both boards and the
//! outputs expected, in order. A person writes them; [`Trace::run`] plays one through a
//! [`Table`], advancing time to every deadline, and [`Trace::check`] compares.
//!
//! The event lines double as a journal format: [`render_event`] and [`parse_event`] are
//! inverse.

use core::fmt::Write as _;
use core::str::FromStr;

use kriegspiel_referee::{GameConfig, GameResult, Lang, Question, RuleSet, Wording};
use serde_json::Value;
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use crate::game::{clean_reason, ArbiterAction};
use crate::{
    render, BoardInput, Error, Event, Input, Millis, Output, PrivateMessage, Table, TableConfig,
    TimeControl, TouchMove,
};

/// How many timer deadlines a trace without an `end` line may still run after its last event.
const MAX_DRAIN: usize = 1000;

/// One output line: its time, its words (kind, colour, move or message and arguments), and
/// the referee's JSON object or the message text.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub at: Millis,
    pub words: Vec<String>,
    pub json: Option<Value>,
    pub text: Option<String>,
}

impl Line {
    /// Whether an actual output matches this expected line: same time and words, every JSON
    /// key given here equal in the actual object, and the same text where one is given.
    pub fn matches(&self, actual: &Line) -> bool {
        self.at == actual.at
            && self.words == actual.words
            && match (&self.json, &actual.json) {
                (None, _) => true,
                (Some(want), Some(got)) => json_subset(want, got),
                (Some(_), None) => false,
            }
            && match (&self.text, &actual.text) {
                (None, _) => true,
                (Some(want), Some(got)) => want == got,
                (Some(_), None) => false,
            }
    }
}

impl core::fmt::Display for Line {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "=> {} {}", self.at, self.words.join(" "))?;
        if let Some(json) = &self.json {
            write!(f, " {json}")?;
        }
        if let Some(text) = &self.text {
            write!(f, " {}", Value::String(text.clone()))?;
        }
        Ok(())
    }
}

fn json_subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| json_subset(v, gv))),
        _ => want == got,
    }
}

/// One step of a trace, with its line number in the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Event { line: usize, event: Event },
    Expect { line: usize, expected: Line },
}

/// A parsed trace file.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub config: TableConfig,
    /// The table's start time (the `new` announcement's time).
    pub start: Millis,
    pub steps: Vec<Step>,
    /// Run timers up to this time after the last event; without it, every pending timer runs.
    pub end: Option<Millis>,
}

/// The result of comparing a run with the expectations.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub expected: Vec<Line>,
    pub actual: Vec<Line>,
    /// Index of the first line that differs.
    pub first: usize,
}

impl core::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "outputs differ from line {} on:", self.first + 1)?;
        let n = self.expected.len().max(self.actual.len());
        for i in 0..n {
            match (self.expected.get(i), self.actual.get(i)) {
                (Some(e), Some(a)) if e.matches(a) => writeln!(f, "    {a}")?,
                (e, a) => {
                    if let Some(e) = e {
                        writeln!(f, "  - {e}")?;
                    }
                    if let Some(a) = a {
                        writeln!(f, "  + {a}")?;
                    }
                }
            }
        }
        write!(
            f,
            "(- expected, + actual; expected JSON is a subset of the actual object)"
        )
    }
}

impl Trace {
    /// Parses a trace; a bad line is an error naming its number.
    pub fn parse(text: &str) -> Result<Trace, Error> {
        let mut config = TableConfig::default();
        let mut options: Vec<(usize, String)> = Vec::new();
        let mut start: Millis = 0;
        let mut steps = Vec::new();
        let mut end = None;
        let mut last_at: Millis = 0;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let bad = |message: String| Error::Trace { line, message };
            let content = raw.split('#').next().unwrap_or("").trim();
            if raw.trim_start().starts_with("=>") {
                let expected = parse_expect(raw.trim_start()).map_err(bad)?;
                steps.push(Step::Expect { line, expected });
                continue;
            }
            if content.is_empty() {
                continue;
            }
            let (head, rest) = content
                .split_once(char::is_whitespace)
                .map_or((content, ""), |(h, r)| (h, r.trim()));
            let header = matches!(
                head,
                "rules" | "option" | "fen" | "settle" | "guide" | "touch" | "lang" | "start"
            );
            if header && !steps.is_empty() {
                return Err(bad(format!(
                    "'{head}' belongs in the header, before the first event"
                )));
            }
            match head {
                "rules" => {
                    config.game.rules = RuleSet::from_str(rest).map_err(|e| bad(e.to_string()))?;
                }
                "option" => options.push((line, rest.to_owned())),
                "fen" => config.game.fen = Some(rest.to_owned()),
                "settle" => config.settle_ms = number(rest).map_err(bad)?,
                "guide" => config.guide_ms = number(rest).map_err(bad)?,
                "touch" => {
                    config.touch_move = TouchMove::from_str(rest).map_err(|e| bad(e.to_string()))?
                }
                "lang" => config.lang = Lang::from_str(rest).map_err(|e| bad(e.to_string()))?,
                "without-board" => {
                    for word in rest.split_whitespace() {
                        let c = parse_color(word).map_err(bad)?;
                        config.without_board[c] = true;
                    }
                }
                "clock" => {
                    config.time_control =
                        TimeControl::from_str(rest).map_err(|e| bad(e.to_string()))?
                }
                "board-ids" => {
                    let ids: Vec<&str> = rest.split_whitespace().collect();
                    let [w, b] = ids.as_slice() else {
                        return Err(bad("board-ids takes two ids: WHITE BLACK".to_owned()));
                    };
                    config.board_ids.white = Some(number(w).map_err(bad)?);
                    config.board_ids.black = Some(number(b).map_err(bad)?);
                }
                "start" => {
                    start = number(rest).map_err(bad)?;
                    last_at = start;
                }
                "end" => {
                    let at: Millis = number(rest).map_err(bad)?;
                    if at < last_at {
                        return Err(bad(format!(
                            "end {at} is before the last event at {last_at}"
                        )));
                    }
                    end = Some(at);
                }
                _ => {
                    if end.is_some() {
                        return Err(bad("no event may follow 'end'".to_owned()));
                    }
                    let event = parse_event(content).map_err(bad)?;
                    if event.at < last_at {
                        return Err(bad(format!(
                            "time goes backwards: {} after {last_at}",
                            event.at
                        )));
                    }
                    last_at = event.at;
                    steps.push(Step::Event { line, event });
                }
            }
        }
        for (line, pair) in options {
            config
                .game
                .options
                .set_pair(config.game.rules, &pair)
                .map_err(|e| Error::Trace {
                    line,
                    message: e.to_string(),
                })?;
        }
        config.validate()?;
        Ok(Trace {
            config,
            start,
            steps,
            end,
        })
    }

    /// The expected output lines, in order.
    pub fn expected(&self) -> Vec<Line> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Expect { expected, .. } => Some(expected.clone()),
                Step::Event { .. } => None,
            })
            .collect()
    }

    /// Plays the trace through a new table, delivering a Tick at every deadline before the
    /// next event, and returns every output as a line.
    pub fn run(&self) -> Result<Vec<Line>, Error> {
        let (mut table, outputs) = Table::new(self.config.clone(), self.start)?;
        let mut lines = Vec::new();
        record(&table, self.start, outputs, &mut lines);
        for step in &self.steps {
            let Step::Event { event, .. } = step else {
                continue;
            };
            while let Some(due) = table.next_deadline().filter(|d| *d < event.at) {
                let outputs = table.apply(Event::tick(due));
                record(&table, due, outputs, &mut lines);
            }
            let outputs = table.apply(event.clone());
            record(&table, event.at.max(table.now()), outputs, &mut lines);
        }
        for _ in 0..MAX_DRAIN {
            let Some(due) = table
                .next_deadline()
                .filter(|d| self.end.is_none_or(|end| *d <= end))
            else {
                break;
            };
            let outputs = table.apply(Event::tick(due));
            record(&table, due, outputs, &mut lines);
        }
        Ok(lines)
    }

    /// Runs the trace and compares with its expectations.
    pub fn check(&self) -> Result<Result<(), Mismatch>, Error> {
        let actual = self.run()?;
        let expected = self.expected();
        let first = expected
            .iter()
            .zip(&actual)
            .position(|(e, a)| !e.matches(a))
            .or_else(|| (expected.len() != actual.len()).then(|| expected.len().min(actual.len())));
        Ok(match first {
            None => Ok(()),
            Some(first) => Err(Mismatch {
                expected,
                actual,
                first,
            }),
        })
    }
}

fn number<T: FromStr>(s: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a whole number of milliseconds"))
}

/// Renders a table's outputs at time `at` as trace lines.
pub fn record(table: &Table, at: Millis, outputs: Vec<Output>, lines: &mut Vec<Line>) {
    let w = table.wording();
    let lang = table.config().lang;
    lines.extend(outputs.into_iter().map(|o| line_of(&w, lang, at, o)));
}

/// One output as a trace line; a repeated announcement is `repeated` and the original's line.
fn line_of(w: &Wording, lang: Lang, at: Millis, output: Output) -> Line {
    let json = Some(render::json(w, lang, &output));
    let line = |words: Vec<String>| Line {
        at,
        words,
        json: json.clone(),
        text: None,
    };
    match output {
        Output::Repeated { output } => {
            let original = line_of(w, lang, at, *output);
            let mut words = vec!["repeated".to_owned()];
            words.extend(original.words);
            Line {
                at,
                words,
                json: original.json.and(json),
                text: original.text,
            }
        }
        Output::Started { .. } => line(vec!["started".to_owned()]),
        Output::Verdict { color, tried, .. } => line(vec![
            "verdict".to_owned(),
            color.to_string(),
            tried.to_uci(),
        ]),
        Output::Reply {
            color, question, ..
        } => line(vec![
            "reply".to_owned(),
            color.to_string(),
            question.to_string(),
        ]),
        Output::Private { color, message } => about(at, "private", color, &message, lang),
        Output::Arbiter { color, message } => about(at, "arbiter", color, &message, lang),
        Output::Public { message } => worded(
            at,
            ["public".to_owned(), message.id().to_owned()],
            message.args(),
            message.text(lang),
        ),
        Output::Note { note } => worded(
            at,
            ["note".to_owned(), note.id().to_owned()],
            note.args(),
            note.text(lang),
        ),
        Output::Clock { remaining, running } => Line {
            at,
            words: vec![
                "clock".to_owned(),
                remaining.white.to_string(),
                remaining.black.to_string(),
                running.map_or_else(|| "-".to_owned(), |c| c.to_string()),
            ],
            json: None,
            text: None,
        },
    }
}

/// A line about one player: a private message, or a note on him for the arbiter.
fn about(at: Millis, kind: &str, color: Color, message: &PrivateMessage, lang: Lang) -> Line {
    let words = [kind.to_owned(), color.to_string(), message.id().to_owned()];
    worded(at, words, message.args(), message.text(lang))
}

/// A message's line: what it is (`words`, then its arguments) and its text.
fn worded<const N: usize>(at: Millis, words: [String; N], args: Vec<String>, text: String) -> Line {
    let mut words = Vec::from(words);
    words.extend(args);
    Line {
        at,
        words,
        json: None,
        text: Some(text),
    }
}

fn parse_color(s: &str) -> Result<Color, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not a colour (white, black)"))
}

fn parse_square(s: &str) -> Result<Square, String> {
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
        let down_ms = match (words.next(), words.next()) {
            (Some(ms), None) => number(ms)?,
            _ => return Err("restarted takes the milliseconds the console was down".to_owned()),
        };
        return Ok(Event::new(at, Input::Restarted { down_ms }));
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
    let input = match what {
        "lift" => board(BoardInput::Lift(parse_square(&one(&rest)?)?)),
        "place" => board(BoardInput::Place(parse_square(&one(&rest)?)?)),
        "snapshot" => {
            let mut bb = Bitboard::EMPTY;
            match rest.as_slice() {
                [] => return Err("snapshot needs its occupied squares, or '-' for none".to_owned()),
                ["-"] => {}
                squares => {
                    for s in squares {
                        bb.add(parse_square(s)?);
                    }
                }
            }
            board(BoardInput::Snapshot(bb))
        }
        "connect" => {
            let board_id = match rest.as_slice() {
                [] => None,
                [id] => Some(number(id)?),
                _ => return Err("connect takes at most the board id".to_owned()),
            };
            board(BoardInput::Connected { board_id })
        }
        "resign" => {
            none(&rest)?;
            Input::Resign { color }
        }
        "play" => {
            let uci = one(&rest)?;
            let tried = kriegspiel_referee::Try::from_uci(&uci)
                .map_err(|e| format!("'{}' is not a try: {e}", clean_reason(&uci)))?;
            Input::Play { color, tried }
        }
        "draw" => {
            none(&rest)?;
            Input::Draw { color }
        }
        "disconnect" => {
            none(&rest)?;
            board(BoardInput::Disconnected)
        }
        "promote" => {
            let letter = one(&rest)?;
            let role = match letter.as_str() {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                "n" => Role::Knight,
                "k" => Role::King,
                "p" => Role::Pawn,
                _ => return Err(format!("'{letter}' is not a piece letter (q, r, b, n)")),
            };
            Input::Promote { color, role }
        }
        "ask" => {
            let q = one(&rest)?;
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
    };
    Ok(Event { at, input })
}

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
    let reason = || clean_reason(&rest.join(" "));
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
        "put" => {
            let [square, piece] = rest else {
                return Err("put takes a square and a FEN piece letter: put e4 Q".to_owned());
            };
            let square = parse_square(square)?;
            let piece = match piece.chars().collect::<Vec<_>>().as_slice() {
                [c] => Piece::from_char(*c),
                _ => None,
            }
            .ok_or_else(|| format!("'{piece}' is not a FEN piece letter (KQRBNP kqrbnp)"))?;
            ArbiterAction::Put { square, piece }
        }
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
        "adjudicate" => {
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
            ArbiterAction::Adjudicate {
                result,
                reason: clean_reason(&rest[1..].join(" ")),
            }
        }
        "void" => ArbiterAction::Void { reason: reason() },
        other => {
            return Err(format!(
                "unknown arbiter action '{}' (pause, resume, put, remove, fen, takeback, adjudicate, void, repeat)",
                clean_reason(other)
            ))
        }
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

/// Renders an event as its trace line (the inverse of [`parse_event`]).
pub fn render_event(event: &Event) -> String {
    let mut s = event.at.to_string();
    match &event.input {
        Input::Tick => s.push_str(" tick"),
        Input::Restarted { down_ms } => {
            let _ = write!(s, " restarted {down_ms}");
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
        Input::Promote { color, role } => {
            let _ = write!(s, " {color} promote {}", role.char());
        }
        Input::Ask { color, question } => {
            let _ = write!(s, " {color} ask {question}");
        }
    }
    s
}

/// Parses `=> TIME WORDS... [JSON | "TEXT"]`.
fn parse_expect(line: &str) -> Result<Line, String> {
    let body = line.trim_start_matches("=>").trim();
    let (at_word, rest) = body
        .split_once(char::is_whitespace)
        .ok_or("an expected output needs a time and what is said")?;
    let at: Millis = at_word
        .parse()
        .map_err(|_| format!("'{at_word}' is not a time in milliseconds"))?;
    let rest = rest.trim();
    let cut = rest.find(['{', '"']).unwrap_or(rest.len());
    let (words, tail) = rest.split_at(cut);
    let words: Vec<String> = words.split_whitespace().map(str::to_owned).collect();
    // `repeated` goes before the kind of the announcement said again.
    let kind = match words.as_slice() {
        [first, second, ..] if first == "repeated" => Some(second.as_str()),
        [first, ..] => Some(first.as_str()),
        [] => None,
    };
    let kind_ok = matches!(
        kind,
        Some("started" | "verdict" | "reply" | "private" | "arbiter" | "public" | "note" | "clock")
    );
    if !kind_ok {
        return Err(
            "an expected output is started, verdict, reply, private, arbiter, public, note or clock (after 'repeated' for one said again)"
                .to_owned(),
        );
    }
    let tail = tail.trim();
    let (json, text) = if tail.is_empty() {
        (None, None)
    } else {
        let value: Value = serde_json::from_str(tail)
            .map_err(|e| format!("bad JSON or quoted text '{tail}': {e}"))?;
        match value {
            Value::String(text) => (None, Some(text)),
            Value::Object(_) => (Some(value), None),
            _ => return Err("expected a JSON object or a quoted text".to_owned()),
        }
    };
    Ok(Line {
        at,
        words,
        json,
        text,
    })
}

impl FromStr for Trace {
    type Err = Error;

    fn from_str(s: &str) -> Result<Trace, Error> {
        Trace::parse(s)
    }
}

/// The default configuration a trace starts from, for tools that write traces.
pub fn default_config() -> TableConfig {
    TableConfig::new(GameConfig::default())
}
