//! The protocol's answers and their one rendering: [`Answer`]'s `Serialize` writes every
//! answer object (keys in alphabetical order), to a stream or as a [`Value`].

use std::io;

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;
use shakmaty::Color;

use super::LineError;
use crate::announce::{Announcement, Audience, Man, PawnTries, Refusal, Reply, Report, Verdict};
use crate::rules::RuleSet;
use crate::wording::Wording;

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
