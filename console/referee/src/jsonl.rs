//! The scriptable referee protocol (docs/REFEREE.md): one JSON line in, one JSON line out.
//!
//! Pure: the `kriegspiel referee` command only moves lines between this and stdin/stdout, and
//! the console builds its answers with the same code. Every answer is an [`Answer`], whose
//! `Serialize` is the one rendering of the protocol's objects: written straight to a stream
//! by the referee command, or turned into a [`Value`] by the table (which adds its own keys).
//!
//! Error messages quote at most [`bounded_lines::QUOTE_CHARS`] characters of the input.

use std::borrow::Cow;
use std::fmt;
use std::io;

use bounded_lines::excerpt;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};
use shakmaty::Color;

use crate::announce::{
    Announcement, Audience, Man, PawnTries, Question, Refusal, Reply, Report, Try, Verdict,
};
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
    pub fn new(code: &'static str, message: impl Into<String>) -> LineError {
        LineError {
            code,
            message: message.into(),
        }
    }

    /// The answer to a line the reader could not use: too long (`line-too-long`, the line
    /// was skipped unread) or not UTF-8 (`bad-json`).
    pub fn from_input(e: &bounded_lines::LineError) -> LineError {
        match e {
            bounded_lines::LineError::TooLong { .. } => {
                LineError::new("line-too-long", e.to_string())
            }
            bounded_lines::LineError::NotUtf8 { .. } => {
                LineError::new("bad-json", format!("the line is not UTF-8: {e}"))
            }
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for LineError {}

impl From<Error> for LineError {
    fn from(e: Error) -> LineError {
        LineError::new(e.code(), e.to_string())
    }
}

/// One answer of the protocol, ready to be written. Its `Serialize` implementation is the
/// one rendering of every answer object (keys in alphabetical order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A new game or a legal try: what the referee announces.
    Report { wording: Wording, report: Report },
    /// A refused try.
    Refusal { wording: Wording, refusal: Refusal },
    /// The answer to a question asked while `to_move` is to move.
    Reply {
        wording: Wording,
        reply: Reply,
        to_move: Color,
    },
    /// A line that was not carried out.
    Error(LineError),
}

impl Answer {
    /// The answer to a try.
    pub fn verdict(wording: Wording, verdict: &Verdict) -> Answer {
        match *verdict {
            Verdict::Moved(report) => Answer::Report { wording, report },
            Verdict::Refused(refusal) => Answer::Refusal { wording, refusal },
        }
    }

    /// Whether this is an error answer (the game is unchanged).
    pub fn is_error(&self) -> bool {
        matches!(self, Answer::Error(_))
    }

    /// The answer as a JSON value, for callers that add keys of their own.
    pub fn to_value(&self) -> Value {
        // Serializing an `Answer` cannot fail: every key is a string, every value plain.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Writes the answer as one line (the object and `\n`), without flushing.
    pub fn write_line<W: io::Write>(&self, mut out: W) -> io::Result<()> {
        serde_json::to_writer(&mut out, self).map_err(io::Error::from)?;
        out.write_all(b"\n")
    }
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Report { wording, report } => serialize_report(s, wording, report),
            Answer::Refusal { wording, refusal } => serialize_refusal(s, wording, refusal),
            Answer::Reply {
                wording,
                reply,
                to_move,
            } => match *reply {
                Reply::Refused(ref refusal) => serialize_refusal(s, wording, refusal),
                Reply::PawnCaptures { yes, .. } => {
                    let mut m = s.serialize_map(Some(4))?;
                    m.serialize_entry("answer", if yes { "yes" } else { "no" })?;
                    m.serialize_entry("heard_by", "both")?;
                    m.serialize_entry("text", &wording.text(&Announcement::Reply(*reply)))?;
                    m.serialize_entry("to_move", &ColorId(*to_move))?;
                    m.end()
                }
                Reply::Rebuffs { count, .. } => {
                    // Before the opponent's first move there is nothing to count: 0, with
                    // `opponent_moved` false and words that say so.
                    let mut m = s.serialize_map(Some(6))?;
                    m.serialize_entry("answer", "count")?;
                    m.serialize_entry("count", &count.unwrap_or(0))?;
                    m.serialize_entry("heard_by", "both")?;
                    m.serialize_entry("opponent_moved", &count.is_some())?;
                    m.serialize_entry("text", &wording.text(&Announcement::Reply(*reply)))?;
                    m.serialize_entry("to_move", &ColorId(*to_move))?;
                    m.end()
                }
            },
            Answer::Error(e) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("error", &ErrorBody(e))?;
                m.end()
            }
        }
    }
}

fn serialize_report<S: Serializer>(s: S, w: &Wording, r: &Report) -> Result<S::Ok, S::Error> {
    debug_assert!(matches!(
        (r.rules, &r.pawn_tries),
        (RuleSet::Cincinnati, PawnTries::Exists(_))
            | (RuleSet::Wild16, PawnTries::Count(_))
            | (RuleSet::Traditional | RuleSet::Rand, PawnTries::Squares(_))
            | (
                RuleSet::Berkeley | RuleSet::BerkeleyAny | RuleSet::Russian,
                PawnTries::Silent
            )
    ));
    let mut m = s.serialize_map(Some(9))?;
    m.serialize_entry("answer", if r.mover.is_some() { "moved" } else { "new" })?;
    m.serialize_entry("capture", &r.capture.map(CaptureBody))?;
    m.serialize_entry("checks", &ChecksBody(r))?;
    m.serialize_entry("end", &r.end.map(EndBody))?;
    m.serialize_entry("heard_by", "both")?;
    m.serialize_entry("pawn_tries", &PawnTriesBody(&r.pawn_tries))?;
    m.serialize_entry("promotion", &r.promotion)?;
    m.serialize_entry("text", &w.text(&Announcement::Report(*r)))?;
    m.serialize_entry("to_move", &ColorId(r.to_move))?;
    m.end()
}

fn serialize_refusal<S: Serializer>(s: S, w: &Wording, r: &Refusal) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(4))?;
    m.serialize_entry("answer", r.kind.id())?;
    m.serialize_entry("heard_by", heard_by(r.audience()))?;
    m.serialize_entry("text", w.refusal(r))?;
    m.serialize_entry("to_move", &ColorId(r.mover))?;
    m.end()
}

/// `"white"` or `"black"`: shakmaty's `Color` Display.
struct ColorId(Color);

impl Serialize for ColorId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

struct CaptureBody(crate::Capture);

impl Serialize for CaptureBody {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry(
            "man",
            &self.0.man.map(|man| match man {
                Man::Pawn => "pawn",
                Man::Piece => "piece",
            }),
        )?;
        m.serialize_entry("square", &SquareId(self.0.square))?;
        m.end()
    }
}

struct SquareId(shakmaty::Square);

impl Serialize for SquareId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

struct ChecksBody<'a>(&'a Report);

impl Serialize for ChecksBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let checks = self.0.checks;
        let mut seq = s.serialize_seq(Some(checks.len()))?;
        for kind in checks.iter() {
            seq.serialize_element(kind.id())?;
        }
        seq.end()
    }
}

struct EndBody(crate::End);

impl Serialize for EndBody {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("reason", self.0.reason.id())?;
        m.serialize_entry("result", self.0.result.pgn())?;
        m.end()
    }
}

struct PawnTriesBody<'a>(&'a PawnTries);

impl Serialize for PawnTriesBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self.0 {
            PawnTries::Silent => s.serialize_none(),
            PawnTries::Exists(b) => s.serialize_bool(b),
            PawnTries::Count(n) => s.serialize_u8(n),
            PawnTries::Squares(bb) => {
                let mut seq = s.serialize_seq(Some(bb.count()))?;
                for sq in self.0.squares() {
                    seq.serialize_element(&SquareId(sq))?;
                }
                seq.end()
            }
        }
    }
}

struct ErrorBody<'a>(&'a LineError);

impl Serialize for ErrorBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("code", self.0.code)?;
        m.serialize_entry("message", &self.0.message)?;
        m.end()
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

    /// Answers one line as the bounded reader delivered it: a line of text, or the reason it
    /// could not be used (too long: `line-too-long`; not UTF-8: `bad-json`).
    pub fn answer_input(&mut self, line: Result<&str, bounded_lines::LineError>) -> Answer {
        match line {
            Ok(text) => self.answer(text),
            Err(e) => Answer::Error(LineError::from_input(&e)),
        }
    }

    /// Answers one line of text (without its newline).
    pub fn answer(&mut self, line: &str) -> Answer {
        match self.dispatch(line) {
            Ok(a) => a,
            Err(e) => Answer::Error(e),
        }
    }

    /// Answers one input line (raw bytes, without its newline) as a JSON value.
    pub fn handle_line(&mut self, line: &[u8]) -> Value {
        let answer = match std::str::from_utf8(line) {
            Ok(text) => self.answer(text),
            Err(e) => Answer::Error(LineError::from_input(&bounded_lines::LineError::NotUtf8 {
                valid_up_to: e.valid_up_to(),
            })),
        };
        answer.to_value()
    }

    fn dispatch(&mut self, text: &str) -> Result<Answer, LineError> {
        if text.trim().is_empty() {
            return Err(LineError::new("bad-json", "empty line"));
        }
        let command = parse_command(text)?;
        let cmd = match &command.cmd {
            Some(Field::Str(s)) => s.as_ref(),
            Some(_) => return Err(LineError::new("unknown-command", "'cmd' must be a string")),
            None => return Err(LineError::new("unknown-command", "missing 'cmd'")),
        };
        match cmd {
            "new" => self.new_game(&command),
            "try" => {
                let t = match &command.mv {
                    Some(Field::Str(m)) => Try::from_uci(m)?,
                    Some(_) => return Err(LineError::new("bad-move", "'move' must be a string")),
                    None => return Err(LineError::new("bad-move", "missing 'move'")),
                };
                let verdict = self.referee.try_move(t)?;
                Ok(Answer::verdict(self.wording, &verdict))
            }
            "ask" => {
                let q: Question = match &command.what {
                    Some(Field::Str(what)) => what
                        .parse()
                        .map_err(|e| LineError::new("unknown-command", format!("{e}")))?,
                    _ => {
                        return Err(LineError::new(
                            "unknown-command",
                            "'ask' needs 'what': \"any\" or \"rebuffs\"",
                        ))
                    }
                };
                let reply = self.referee.ask(q)?;
                Ok(Answer::Reply {
                    wording: self.wording,
                    reply,
                    to_move: self.referee.turn(),
                })
            }
            other => Err(LineError::new(
                "unknown-command",
                format!("unknown command '{}' (new, try, ask)", excerpt(other)),
            )),
        }
    }

    /// `new`: checks in the protocol's precedence, and replaces the game only on success.
    fn new_game(&mut self, command: &Command<'_>) -> Result<Answer, LineError> {
        let rules = match &command.rules {
            None | Some(Field::Null) => self.defaults.rules,
            Some(Field::Str(s)) => s.parse::<RuleSet>()?,
            Some(Field::Other(other)) => return Err(Error::UnknownRules(other.to_string()).into()),
        };
        let options = match &command.options {
            None | Some(Field::Null) => self.defaults.options_for(rules)?,
            Some(Field::Other(Value::Object(map))) => {
                let mut options = Options::default();
                for (k, v) in map {
                    let value = match v {
                        Value::Bool(b) => OptionValue::Bool(*b),
                        Value::String(s) => OptionValue::Text(s),
                        other => {
                            return Err(Error::BadOption(format!(
                                "option '{}' has a value of the wrong type: {}",
                                excerpt(k),
                                excerpt(&other.to_string())
                            ))
                            .into())
                        }
                    };
                    options.set(rules, k, value)?;
                }
                options
            }
            Some(other) => {
                return Err(Error::BadOption(format!(
                    "'options' must be an object, not {}",
                    excerpt(&other.to_string())
                ))
                .into())
            }
        };
        let lang = match &command.lang {
            None | Some(Field::Null) => self.defaults.lang,
            Some(Field::Str(s)) => s.parse::<Lang>()?,
            Some(Field::Other(other)) => return Err(Error::BadLang(other.to_string()).into()),
        };
        let fen = match &command.fen {
            None | Some(Field::Null) => self.defaults.fen.clone(),
            Some(Field::Str(s)) => Some(s.clone().into_owned()),
            Some(Field::Other(other)) => {
                return Err(Error::BadFen(format!(
                    "'fen' must be a string, not {}",
                    excerpt(&other.to_string())
                ))
                .into())
            }
        };
        let referee = Referee::new(&GameConfig {
            rules,
            options,
            fen,
        })?;
        self.wording = Wording::new(rules, options, lang);
        self.referee = referee;
        Ok(Answer::Report {
            wording: self.wording,
            report: *self.referee.last_report(),
        })
    }
}

/// The error answer object.
pub fn error_value(e: &LineError) -> Value {
    Answer::Error(e.clone()).to_value()
}

fn heard_by(a: Audience) -> &'static str {
    match a {
        Audience::Both => "both",
        Audience::Mover(_) | Audience::Private(_) => "mover",
    }
}

/// The answer object for a new game or a legal try.
pub fn report_value(w: &Wording, r: &Report) -> Value {
    Answer::Report {
        wording: *w,
        report: *r,
    }
    .to_value()
}

/// The answer object for a try.
pub fn verdict_value(w: &Wording, v: &Verdict) -> Value {
    Answer::verdict(*w, v).to_value()
}

/// The answer object for a question asked while `to_move` is to move.
pub fn reply_value(w: &Wording, r: &Reply, to_move: Color) -> Value {
    Answer::Reply {
        wording: *w,
        reply: *r,
        to_move,
    }
    .to_value()
}

// ---------------------------------------------------------------------------------------
// Reading a command line: straight from the text into the few keys a command uses, strings
// borrowed where they have no escapes. A key given twice, at any depth, is `bad-json`.

/// The value of one key a command reads.
#[derive(Debug)]
enum Field<'a> {
    Str(Cow<'a, str>),
    Null,
    /// Anything else, kept for the error message (or, for `options`, the object).
    Other(Value),
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Str(s) => write!(f, "{}", Value::String(s.as_ref().to_owned())),
            Field::Null => f.write_str("null"),
            Field::Other(v) => write!(f, "{v}"),
        }
    }
}

/// The keys of a command line; all others are read (for duplicates) and ignored.
#[derive(Debug, Default)]
struct Command<'a> {
    cmd: Option<Field<'a>>,
    mv: Option<Field<'a>>,
    what: Option<Field<'a>>,
    rules: Option<Field<'a>>,
    lang: Option<Field<'a>>,
    fen: Option<Field<'a>>,
    options: Option<Field<'a>>,
}

fn parse_command(text: &str) -> Result<Command<'_>, LineError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = de
        .deserialize_any(TopVisitor)
        .and_then(|p| de.end().map(|()| p))
        .map_err(|e| {
            let message = match e.classify() {
                // Our own rulings (a duplicate key) are not syntax errors.
                serde_json::error::Category::Data => e.to_string(),
                _ => format!("not JSON: {e}"),
            };
            LineError::new("bad-json", message)
        })?;
    parsed.ok_or_else(|| LineError::new("bad-json", "a command must be a JSON object"))
}

fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate key '{}'", excerpt(key)))
}

/// Accepts any JSON value; only an object becomes a command (`None`: something else).
struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Option<Command<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Command<'de>>, A::Error> {
        let mut c = Command::default();
        let mut others: Vec<Cow<'de, str>> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let slot = match key.as_ref() {
                "cmd" => &mut c.cmd,
                "move" => &mut c.mv,
                "what" => &mut c.what,
                "rules" => &mut c.rules,
                "lang" => &mut c.lang,
                "fen" => &mut c.fen,
                "options" => &mut c.options,
                _ => {
                    if others.contains(&key) {
                        return Err(duplicate(&key));
                    }
                    map.next_value_seed(StrictValue)?;
                    others.push(key);
                    continue;
                }
            };
            if slot.is_some() {
                return Err(duplicate(&key));
            }
            *slot = Some(map.next_value_seed(FieldSeed)?);
        }
        Ok(Some(c))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Command<'de>>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Command<'de>>, E> {
        Ok(None)
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// The value of a key a command reads.
struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field<'de>, D::Error> {
        d.deserialize_any(FieldSeed)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Field<'de>, E> {
        Ok(Field::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Field<'de>, E> {
        Ok(Field::Other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Field<'de>, E> {
        StrictValue.visit_i64(v).map(Field::Other)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field<'de>, E> {
        StrictValue.visit_u64(v).map(Field::Other)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Field<'de>, E> {
        StrictValue.visit_f64(v).map(Field::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Field<'de>, A::Error> {
        StrictValue.visit_seq(seq).map(Field::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'de>, A::Error> {
        StrictValue.visit_map(map).map(Field::Other)
    }
}

/// Any JSON value, refusing a key given twice in any object.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictValue)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if out.contains_key(key.as_ref()) {
                return Err(duplicate(&key));
            }
            let value = map.next_value_seed(StrictValue)?;
            out.insert(key.into_owned(), value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn answer(session: &mut Session, line: &str) -> Value {
        session.answer(line).to_value()
    }

    fn code(v: &Value) -> &str {
        v["error"]["code"].as_str().unwrap_or("")
    }

    #[test]
    fn a_key_given_twice_is_bad_json_at_any_depth() {
        let mut s = Session::new(Defaults::default()).unwrap();
        for line in [
            r#"{"cmd":"try","move":"e2e4","move":"d2d4"}"#,
            r#"{"cmd":"try","cmd":"try","move":"e2e4"}"#,
            r#"{"cmd":"try","move":"e2e4","x":1,"x":2}"#,
            r#"{"cmd":"try","move":"e2e4","x":{"a":1,"a":2}}"#,
            r#"{"cmd":"new","rules":"rand","options":{"ladder":true,"ladder":false}}"#,
            r#"{"cmd":"try","move":"e2e4","x":[{"a":1,"a":1}]}"#,
            r#"{"cmd":"try","mo\u0076e":"e2e4","move":"d2d4"}"#,
        ] {
            let v = answer(&mut s, line);
            assert_eq!(code(&v), "bad-json", "{line}: {v}");
            let msg = v["error"]["message"].as_str().unwrap();
            assert!(msg.starts_with("duplicate key '"), "{msg}");
        }
        // Nothing was played.
        assert_eq!(s.referee().position(), &shakmaty::Chess::default());
        let v = answer(&mut s, r#"{"cmd":"try","move":"e2e4","x":{"a":1,"b":1}}"#);
        assert_eq!(v["answer"], "moved");
    }

    #[test]
    fn not_an_object_and_not_json_are_bad_json() {
        let mut s = Session::new(Defaults::default()).unwrap();
        for (line, starts) in [
            ("[1,2]", "a command must be a JSON object"),
            ("\"try\"", "a command must be a JSON object"),
            ("42", "a command must be a JSON object"),
            ("null", "a command must be a JSON object"),
            ("{\"cmd\":", "not JSON: "),
            ("{\"cmd\":\"try\"} x", "not JSON: trailing characters"),
            ("   ", "empty line"),
        ] {
            let v = answer(&mut s, line);
            assert_eq!(code(&v), "bad-json", "{line}");
            assert!(
                v["error"]["message"].as_str().unwrap().starts_with(starts),
                "{line}: {v}"
            );
        }
    }

    #[test]
    fn messages_quote_at_most_eighty_characters_of_the_input() {
        let mut s = Session::new(Defaults::default()).unwrap();
        let long = "x".repeat(10_000);
        let lines = [
            format!(r#"{{"cmd":"{long}"}}"#),
            format!(r#"{{"cmd":"try","move":"{long}"}}"#),
            format!(r#"{{"cmd":"ask","what":"{long}"}}"#),
            format!(r#"{{"cmd":"new","rules":"{long}"}}"#),
            format!(r#"{{"cmd":"new","rules":["{long}"]}}"#),
            format!(r#"{{"cmd":"new","lang":"{long}"}}"#),
            format!(r#"{{"cmd":"new","lang":["{long}"]}}"#),
            format!(r#"{{"cmd":"new","fen":"{long}"}}"#),
            format!(r#"{{"cmd":"new","fen":["{long}"]}}"#),
            format!(r#"{{"cmd":"new","options":"{long}"}}"#),
            format!(r#"{{"cmd":"new","options":{{"{long}":true}}}}"#),
            format!(r#"{{"cmd":"new","rules":"rand","options":{{"ladder":"{long}"}}}}"#),
            format!(r#"{{"cmd":"new","rules":"rand","options":{{"ladder":["{long}"]}}}}"#),
            format!(r#"{{"cmd":"try","{long}":1,"{long}":2}}"#),
        ];
        for line in &lines {
            let v = answer(&mut s, line);
            let msg = v["error"]["message"].as_str().unwrap();
            assert!(
                msg.len() < 300 && msg.contains('…'),
                "{}: {msg}",
                v["error"]["code"]
            );
        }
    }

    #[test]
    fn unusable_input_lines_get_their_codes() {
        let mut s = Session::new(Defaults::default()).unwrap();
        let v = s
            .answer_input(Err(bounded_lines::LineError::TooLong {
                len: 200_000_000,
                limit: bounded_lines::MAX_LINE,
            }))
            .to_value();
        assert_eq!(code(&v), "line-too-long");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("200000000"));
        let v = s
            .answer_input(Err(bounded_lines::LineError::NotUtf8 { valid_up_to: 3 }))
            .to_value();
        assert_eq!(code(&v), "bad-json");
        assert_eq!(code(&s.handle_line(b"{\"cmd\":\xff}")), "bad-json");
    }

    #[test]
    fn answers_are_written_as_before_keys_sorted() {
        let mut s = Session::new(Defaults::default()).unwrap();
        let mut out = Vec::new();
        s.answer(r#"{"cmd":"try","move":"e2e4"}"#)
            .write_line(&mut out)
            .unwrap();
        s.answer(r#"{"cmd":"try","move":"e2e5"}"#)
            .write_line(&mut out)
            .unwrap();
        s.answer(r#"{"cmd":"nope"}"#).write_line(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                r#"{"answer":"moved","capture":null,"checks":[],"end":null,"heard_by":"both","pawn_tries":false,"promotion":null,"text":"White has moved.","to_move":"black"}"#,
                "\n",
                r#"{"answer":"impossible","heard_by":"both","text":"Nonsense.","to_move":"black"}"#,
                "\n",
                r#"{"error":{"code":"unknown-command","message":"unknown command 'nope' (new, try, ask)"}}"#,
                "\n",
            )
        );
    }
}
