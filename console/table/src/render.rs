//! The one rendering of a table's outputs: JSON lines for programs, speech text for the
//! public speaker. Every front end (the `table` and `hall` commands, traces, tests) uses
//! these, so the same output always reads the same.

use kriegspiel_referee::jsonl::{reply_value, report_value, verdict_value};
use kriegspiel_referee::{Announcement, Audience, GameResult, Lang, Reply, Verdict, Wording};
use serde_json::{json, Map, Value};
use shakmaty::Color;

use crate::game::{PublicMessage, Termination};
use crate::Output;

/// The JSON object for one output.
pub fn json(w: &Wording, lang: Lang, o: &Output) -> Value {
    match o {
        Output::Started { report } => report_value(w, report),
        Output::Verdict {
            color,
            tried,
            verdict,
        } => with(
            verdict_value(w, verdict),
            [
                ("try", json!(tried.to_uci())),
                ("color", json!(color.to_string())),
            ],
        ),
        Output::Reply {
            color,
            question,
            reply,
        } => with(
            reply_value(w, reply, asker(reply)),
            [
                ("color", json!(color.to_string())),
                ("ask", json!(question.to_string())),
            ],
        ),
        Output::Private { color, message } => json!({
            "private": color.to_string(), "id": message.id(), "text": message.text(lang)
        }),
        Output::Arbiter { color, message } => json!({
            "arbiter": color.to_string(), "id": message.id(), "text": message.text(lang)
        }),
        Output::Public { message } => {
            let mut v = json!({
                "public": message.id(), "heard_by": "both", "text": message.text(lang)
            });
            match message {
                PublicMessage::GameEnded(end) => {
                    v["result"] = json!(end.result.map_or("*", GameResult::pgn));
                    v["termination"] = json!(end.termination.id());
                    match &end.termination {
                        Termination::Resignation(c) | Termination::TimeForfeit(c) => {
                            v["color"] = json!(c.to_string());
                        }
                        Termination::Adjudication { reason } | Termination::Voided { reason } => {
                            v["reason"] = json!(reason);
                        }
                        Termination::DrawAgreed => {}
                    }
                }
                PublicMessage::DrawOffered(c) => v["color"] = json!(c.to_string()),
                PublicMessage::SameBoardId(id) => v["board_id"] = json!(id),
                PublicMessage::ClocksStarted(c) => v["to_move"] = json!(c.to_string()),
                PublicMessage::Paused
                | PublicMessage::Resumed
                | PublicMessage::PositionCorrected
                | PublicMessage::MoveTakenBack
                | PublicMessage::BoardsSwapped => {}
            }
            v
        }
        Output::Note { note } => json!({"note": note.id(), "text": note.text(lang)}),
        Output::Repeated { output } => with(json(w, lang, output), [("repeat", json!(true))]),
        Output::Clock { remaining, running } => json!({"clock": {
            "white": remaining.white, "black": remaining.black,
            "running": running.map(|c| c.to_string()),
        }}),
    }
}

/// The words of an output, as its JSON line's `"text"` gives them; `None` for clocks,
/// which have no words.
pub fn text(w: &Wording, lang: Lang, o: &Output) -> Option<String> {
    Some(match o {
        Output::Started { report } => w.text(&Announcement::Report(*report)),
        Output::Verdict { verdict, .. } => match verdict {
            Verdict::Moved(report) => w.text(&Announcement::Report(*report)),
            Verdict::Refused(refusal) => w.refusal(refusal).to_owned(),
        },
        Output::Reply { reply, .. } => w.text(&Announcement::Reply(*reply)),
        Output::Private { message, .. } => message.text(lang),
        Output::Arbiter { message, .. } => message.text(lang),
        Output::Public { message } => message.text(lang),
        Output::Note { note } => note.text(lang),
        Output::Repeated { output } => return text(w, lang, output),
        Output::Clock { .. } => return None,
    })
}

/// An output as a line of the arbiter's log: its words, a try with who tried which move
/// (the arbiter sees the moves, no player does); `None` for what has no words.
pub fn log_line(w: &Wording, lang: Lang, o: &Output) -> Option<String> {
    log_line_of(o, &text(w, lang, o)?)
}

/// [`log_line`] of an output whose words ([`text`]) are already at hand.
pub fn log_line_of(o: &Output, words: &str) -> Option<String> {
    let line = match o {
        Output::Verdict { color, tried, .. } => format!(
            "{} tries {}: {words}",
            Wording::color_name(Lang::En, *color),
            tried.to_uci()
        ),
        // Said again at the arbiter's request.
        Output::Repeated { .. } => format!("Repeated: {words}"),
        _ => words.to_owned(),
    };
    (!line.trim().is_empty()).then_some(line)
}

/// Who may hear an output: the one answer to "who hears this" for every front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hearer {
    /// Both players (the room).
    Both,
    /// One player alone.
    Player(Color),
}

impl Hearer {
    /// Whether `color`'s player hears it.
    pub fn hears(self, color: Color) -> bool {
        match self {
            Hearer::Both => true,
            Hearer::Player(c) => c == color,
        }
    }
}

/// Who may hear `o`: public announcements both players, wild16 refusals the mover alone,
/// private messages their player alone; `None` for what is the arbiter's only (notes,
/// touch-move breaches) or no words at all (clocks).
pub fn hearer(o: &Output) -> Option<Hearer> {
    let of = |a: Announcement| match a.audience() {
        Audience::Both => Hearer::Both,
        Audience::Mover(c) | Audience::Private(c) => Hearer::Player(c),
    };
    match o {
        Output::Started { report } => Some(of(Announcement::Report(*report))),
        Output::Verdict { verdict, .. } => Some(of(Announcement::from(*verdict))),
        Output::Reply { reply, .. } => Some(of(Announcement::Reply(*reply))),
        Output::Public { .. } => Some(Hearer::Both),
        Output::Private { color, .. } => Some(Hearer::Player(*color)),
        Output::Repeated { output } => hearer(output),
        Output::Arbiter { .. } | Output::Note { .. } | Output::Clock { .. } => None,
    }
}

/// What the public speaker says for this output; `None` for anything not for both ears.
pub fn spoken(w: &Wording, lang: Lang, o: &Output) -> Option<String> {
    let public = |a: Announcement| match a.audience() {
        Audience::Both => Some(w.speech(&a)),
        Audience::Mover(_) | Audience::Private(_) => None,
    };
    let text = match o {
        Output::Started { report } => public(Announcement::Report(*report)),
        Output::Verdict { verdict, .. } => public(Announcement::from(*verdict)),
        Output::Reply { reply, .. } => public(Announcement::Reply(*reply)),
        Output::Public { message } => Some(message.text(lang)),
        Output::Repeated { output } => spoken(w, lang, output),
        Output::Private { .. }
        | Output::Arbiter { .. }
        | Output::Note { .. }
        | Output::Clock { .. } => None,
    };
    text.filter(|t| !t.trim().is_empty())
}

/// Who was to move when the question was answered (only the side to move may ask).
fn asker(reply: &Reply) -> Color {
    match reply {
        Reply::PawnCaptures { asker, .. } | Reply::Rebuffs { asker, .. } => *asker,
        Reply::Refused(r) => r.mover,
    }
}

fn with<const N: usize>(mut v: Value, extra: [(&str, Value); N]) -> Value {
    if let Value::Object(map) = &mut v {
        for (k, x) in extra {
            map.insert(k.to_owned(), x);
        }
    } else {
        let mut map = Map::new();
        for (k, x) in extra {
            map.insert(k.to_owned(), x);
        }
        map.insert("value".to_owned(), v);
        v = Value::Object(map);
    }
    v
}
