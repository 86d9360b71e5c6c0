//! Trace files (docs/TRACE-FORMAT.md): a table's set-up, timed inputs of both boards and the
//! outputs expected, in order. A person writes them; [`Trace::run`] plays one through a
//! [`Table`], advancing time to every deadline, and [`Trace::check`] compares.
//!
//! The event lines are the journal's text form of an input ([`crate::event_text`]).

use core::str::FromStr;

use kriegspiel_referee::{GameConfig, Lang, RuleSet, Wording};
use serde_json::Value;
use shakmaty::Color;

use crate::event_text::{number, parse_color, parse_event};
use crate::{
    render, Error, Event, Millis, Output, PrivateMessage, Table, TableConfig, TimeControl,
    TouchMove,
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
