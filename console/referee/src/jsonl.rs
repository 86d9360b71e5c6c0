//! The scriptable referee protocol (docs/REFEREE.md): one JSON line in, one JSON line out.
//!
//! Pure: the `kriegspiel referee` command only moves lines between this and stdin/stdout, and
//! the console builds its answers with the same functions.

use serde_json::{json, Map, Value};

use crate::announce::{Announcement, Audience, Question, Reply, Report, Try, Verdict};
use crate::referee::{GameConfig, Referee};
use crate::rules::{Lang, OptionValue, Options, RuleSet};
use crate::wording::Wording;
use crate::Error;

/// The command line's choices, which `new` falls back to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Defaults {
    pub rules: RuleSet,
    pub fen: Option<String>,
    pub lang: Lang,
    /// Raw `KEY=VALUE` options, checked against whichever rule set a game uses.
    pub options: Vec<(String, String)>,
}

impl Defaults {
    /// The options of the command line, checked for `rules`.
    pub fn options_for(&self, rules: RuleSet) -> Result<Options, Error> {
        let mut options = Options::default();
        for (k, v) in &self.options {
            options.set(rules, k, OptionValue::Text(v))?;
        }
        Ok(options)
    }

    /// The game the command line describes.
    pub fn config(&self) -> Result<GameConfig, Error> {
        Ok(GameConfig {
            rules: self.rules,
            options: self.options_for(self.rules)?,
            fen: self.fen.clone(),
        })
    }
}

/// A protocol error answer: the game stays as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub code: &'static str,
    pub message: String,
}

impl LineError {
    fn new(code: &'static str, message: impl Into<String>) -> LineError {
        LineError {
            code,
            message: message.into(),
        }
    }
}

impl From<Error> for LineError {
    fn from(e: Error) -> LineError {
        LineError::new(e.code(), e.to_string())
    }
}

/// One referee session: the running game and the command-line defaults.
#[derive(Debug, Clone)]
pub struct Session {
    defaults: Defaults,
    referee: Referee,
    wording: Wording,
}

impl Session {
    /// Starts the command line's game (an error here is a bad command line).
    pub fn new(defaults: Defaults) -> Result<Session, Error> {
        let config = defaults.config()?;
        let referee = Referee::new(&config)?;
        let wording = Wording::new(config.rules, config.options, defaults.lang);
        Ok(Session {
            defaults,
            referee,
            wording,
        })
    }

    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    pub fn wording(&self) -> &Wording {
        &self.wording
    }

    /// Answers one input line (without its newline) with one JSON object.
    pub fn handle_line(&mut self, line: &[u8]) -> Value {
        match self.dispatch(line) {
            Ok(v) => v,
            Err(e) => error_value(&e),
        }
    }

    fn dispatch(&mut self, line: &[u8]) -> Result<Value, LineError> {
        let text = std::str::from_utf8(line)
            .map_err(|e| LineError::new("bad-json", format!("the line is not UTF-8: {e}")))?;
        if text.trim().is_empty() {
            return Err(LineError::new("bad-json", "empty line"));
        }
        let value: Value = serde_json::from_str(text)
            .map_err(|e| LineError::new("bad-json", format!("not JSON: {e}")))?;
        let Value::Object(obj) = value else {
            return Err(LineError::new(
                "bad-json",
                "a command must be a JSON object",
            ));
        };
        let cmd = match obj.get("cmd") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(LineError::new("unknown-command", "'cmd' must be a string")),
            None => return Err(LineError::new("unknown-command", "missing 'cmd'")),
        };
        match cmd {
            "new" => self.new_game(&obj),
            "try" => {
                let t = match obj.get("move") {
                    Some(Value::String(m)) => Try::from_uci(m)?,
                    Some(_) => return Err(LineError::new("bad-move", "'move' must be a string")),
                    None => return Err(LineError::new("bad-move", "missing 'move'")),
                };
                let verdict = self.referee.try_move(t)?;
                Ok(verdict_value(&self.wording, &verdict))
            }
            "ask" => {
                let q = match obj.get("what").and_then(Value::as_str) {
                    Some("any") => Question::Any,
                    Some("rebuffs") => Question::Rebuffs,
                    Some(other) => {
                        return Err(LineError::new(
                            "unknown-command",
                            format!("unknown question '{other}' (any, rebuffs)"),
                        ))
                    }
                    None => {
                        return Err(LineError::new(
                            "unknown-command",
                            "'ask' needs 'what': \"any\" or \"rebuffs\"",
                        ))
                    }
                };
                let reply = self.referee.ask(q)?;
                Ok(reply_value(&self.wording, &reply, self.referee.turn()))
            }
            other => Err(LineError::new(
                "unknown-command",
                format!("unknown command '{other}' (new, try, ask)"),
            )),
        }
    }

    /// `new`: checks in the protocol's precedence, and replaces the game only on success.
    fn new_game(&mut self, obj: &Map<String, Value>) -> Result<Value, LineError> {
        let rules = match obj.get("rules") {
            None | Some(Value::Null) => self.defaults.rules,
            Some(Value::String(s)) => s.parse::<RuleSet>()?,
            Some(other) => return Err(Error::UnknownRules(other.to_string()).into()),
        };
        let options = match obj.get("options") {
            None | Some(Value::Null) => self.defaults.options_for(rules)?,
            Some(Value::Object(map)) => {
                let mut options = Options::default();
                for (k, v) in map {
                    let value = match v {
                        Value::Bool(b) => OptionValue::Bool(*b),
                        Value::String(s) => OptionValue::Text(s),
                        other => {
                            return Err(Error::BadOption(format!(
                                "option '{k}' has a value of the wrong type: {other}"
                            ))
                            .into())
                        }
                    };
                    options.set(rules, k, value)?;
                }
                options
            }
            Some(other) => {
                return Err(
                    Error::BadOption(format!("'options' must be an object, not {other}")).into(),
                )
            }
        };
        let lang = match obj.get("lang") {
            None | Some(Value::Null) => self.defaults.lang,
            Some(Value::String(s)) => s.parse::<Lang>()?,
            Some(other) => return Err(Error::BadLang(other.to_string()).into()),
        };
        let fen = match obj.get("fen") {
            None | Some(Value::Null) => self.defaults.fen.clone(),
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(Error::BadFen(format!("'fen' must be a string, not {other}")).into())
            }
        };
        let referee = Referee::new(&GameConfig {
            rules,
            options,
            fen,
        })?;
        self.wording = Wording::new(rules, options, lang);
        self.referee = referee;
        Ok(report_value(&self.wording, self.referee.last_report()))
    }
}

/// The error answer object.
pub fn error_value(e: &LineError) -> Value {
    json!({"error": {"code": e.code, "message": e.message}})
}

fn heard_by(a: Audience) -> &'static str {
    match a {
        Audience::Both => "both",
        Audience::Mover(_) | Audience::Private(_) => "mover",
    }
}

fn color_id(c: shakmaty::Color) -> &'static str {
    match c {
        shakmaty::Color::White => "white",
        shakmaty::Color::Black => "black",
    }
}

/// The answer object for a new game or a legal try.
pub fn report_value(w: &Wording, r: &Report) -> Value {
    let rules = r.rules;
    let pawn_tries = match r.pawn_tries {
        crate::PawnTries::Silent => Value::Null,
        crate::PawnTries::Exists(b) => Value::Bool(b),
        crate::PawnTries::Count(n) => json!(n),
        crate::PawnTries::Squares(_) => Value::Array(
            r.pawn_tries
                .squares()
                .map(|s| Value::String(s.to_string()))
                .collect(),
        ),
    };
    debug_assert!(matches!(
        (rules, &pawn_tries),
        (RuleSet::Cincinnati, Value::Bool(_))
            | (RuleSet::Wild16, Value::Number(_))
            | (RuleSet::Traditional | RuleSet::Rand, Value::Array(_))
            | (
                RuleSet::Berkeley | RuleSet::BerkeleyAny | RuleSet::Russian,
                Value::Null
            )
    ));
    json!({
        "answer": if r.mover.is_some() { "moved" } else { "new" },
        "heard_by": "both",
        "to_move": color_id(r.to_move),
        "capture": r.capture.map(|c| json!({
            "square": c.square.to_string(),
            "man": c.man.map(|m| match m { crate::Man::Pawn => "pawn", crate::Man::Piece => "piece" }),
        })),
        "checks": r.checks.iter().map(|k| k.id()).collect::<Vec<_>>(),
        "pawn_tries": pawn_tries,
        "promotion": r.promotion,
        "end": r.end.map(|e| json!({"result": e.result.pgn(), "reason": e.reason.id()})),
        "text": w.text(&Announcement::Report(*r)),
    })
}

/// The answer object for a try.
pub fn verdict_value(w: &Wording, v: &Verdict) -> Value {
    match v {
        Verdict::Moved(r) => report_value(w, r),
        Verdict::Refused(r) => json!({
            "answer": r.kind.id(),
            "heard_by": heard_by(r.audience()),
            "to_move": color_id(r.mover),
            "text": w.refusal(r),
        }),
    }
}

/// The answer object for a question asked while `to_move` is to move.
pub fn reply_value(w: &Wording, r: &Reply, to_move: shakmaty::Color) -> Value {
    let text = w.text(&Announcement::Reply(*r));
    match *r {
        Reply::Refused(ref refusal) => verdict_value(w, &Verdict::Refused(*refusal)),
        Reply::PawnCaptures { yes, .. } => json!({
            "answer": if yes { "yes" } else { "no" },
            "heard_by": "both",
            "to_move": color_id(to_move),
            "text": text,
        }),
        Reply::Rebuffs { count, .. } => json!({
            "answer": "count",
            "count": count,
            "heard_by": "both",
            "to_move": color_id(to_move),
            "text": text,
        }),
    }
}
