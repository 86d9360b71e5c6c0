//! A table as the round's other consoles see it: the console that runs it keeps a
//! [`TableSummary`] retained on the broker (`kriegspiel/table/N/summary`), and the
//! arbiter's window on any console shows the round's every table from them. It is what a
//! table's card shows (the arbiter may see it all; the broker lets no player read it), in
//! one JSON object, replaced whole at every change.

use kriegspiel_referee::shakmaty::Color;
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{Millis, Output};
use serde::{Deserialize, Serialize};

use crate::event::{HallEvent, SeatChange};
use crate::setup::TableSetup;
use crate::spec::TableNo;

/// The longest summary a window takes (a table's set-up, a position, the recent lines).
pub const MAX_SUMMARY: usize = 16 * 1024;
/// Lines of the table's log a summary keeps, and the length of each (in characters).
pub const RECENT_LINES: usize = 12;
const RECENT_CHARS: usize = 240;
/// The lines' bytes in all: whatever their script, a summary stays well inside
/// [`MAX_SUMMARY`], or every window would drop it.
const RECENT_BYTES: usize = 6 * 1024;

/// A line of the table's log as the arbiter sees it (private words included: the broker
/// lets no player read a summary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentLine {
    /// The table's clock when it was said.
    pub at: Millis,
    /// Who heard it: `"both"`, `"white"`, `"black"`, or none for the arbiter alone.
    #[serde(with = "hearer_name", default, skip_serializing_if = "Option::is_none")]
    pub heard: Option<Hearer>,
    pub text: String,
}

/// White's and Black's, in JSON as `{"white":..,"black":..}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Both<T> {
    pub white: T,
    pub black: T,
}

impl<T> Both<T> {
    pub fn get(&self, c: Color) -> &T {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn get_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// The clocks when the summary was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryClocks {
    pub white_ms: Millis,
    pub black_ms: Millis,
    /// The side whose clock runs, if one does.
    #[serde(with = "color_name")]
    pub running: Option<Color>,
}

/// Who heard a line, by name (`"both"`, `"white"`, `"black"`).
mod hearer_name {
    use kriegspiel_table::render::Hearer;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &Option<Hearer>, s: S) -> Result<S::Ok, S::Error> {
        match h {
            Some(Hearer::Both) => s.serialize_some("both"),
            Some(Hearer::Player(c)) => s.serialize_some(&c.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Hearer>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|name| match name.as_str() {
                "both" => Ok(Hearer::Both),
                other => other
                    .parse()
                    .map(Hearer::Player)
                    .map_err(serde::de::Error::custom),
            })
            .transpose()
    }
}

/// A colour as its name (`"white"`), as everywhere in the console's JSON.
mod color_name {
    use kriegspiel_referee::shakmaty::Color;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.serialize_some(&c.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|name| name.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableSummary {
    pub table: TableNo,
    pub name: String,
    /// The console that runs the table (`console = "east"`): arbiter actions go to it.
    pub console: String,
    pub setup: Option<TableSetup>,
    /// The official position in FEN, once the table has said it.
    pub fen: Option<String>,
    pub paused: bool,
    pub clocks: Option<SummaryClocks>,
    pub clocks_waiting: bool,
    /// The game is over; `result` is its result when it has one (none: adjudicated
    /// without one, or abandoned).
    pub over: bool,
    pub result: Option<String>,
    /// Whether each board agrees with the official position.
    pub in_sync: Both<bool>,
    /// Each board's link: up, down, or none (no board, or not heard yet).
    pub links: Both<Option<bool>>,
    /// Whether a player's terminal holds each seat.
    pub seated: Both<bool>,
    /// What both players heard last.
    pub last_public: Option<String>,
    /// The table stopped (its journal failed).
    pub failed: Option<String>,
    /// The last lines of its log, oldest first.
    #[serde(default)]
    pub recent: std::collections::VecDeque<RecentLine>,
}

/// Why bytes on a summary topic are not a summary.
#[derive(Debug)]
pub enum SummaryError {
    TooLong(usize),
    Json(serde_json::Error),
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryError::TooLong(n) => {
                write!(f, "a table summary of {n} bytes (at most {MAX_SUMMARY})")
            }
            SummaryError::Json(e) => write!(f, "not a table summary: {e}"),
        }
    }
}

impl std::error::Error for SummaryError {}

impl TableSummary {
    /// A table opened on `console`, before its first view.
    pub fn new(table: TableNo, name: &str, console: &str, setup: Option<TableSetup>) -> Self {
        TableSummary {
            table,
            name: name.to_owned(),
            console: console.to_owned(),
            setup,
            fen: None,
            paused: false,
            clocks: None,
            clocks_waiting: false,
            over: false,
            result: None,
            in_sync: Both {
                white: true,
                black: true,
            },
            links: Both::default(),
            seated: Both::default(),
            last_public: None,
            failed: None,
            recent: std::collections::VecDeque::new(),
        }
    }

    /// Takes one of the hall's events; whether the summary changed. Events of other tables
    /// change nothing; the table's `wording` and `lang` render what both players heard.
    pub fn take(
        &mut self,
        e: &HallEvent,
        wording: &kriegspiel_referee::Wording,
        lang: kriegspiel_referee::Lang,
    ) -> bool {
        let before = self.clone();
        match e {
            HallEvent::View(v) if v.table == self.table => {
                self.fen = Some(v.fen());
                self.paused = v.paused;
                self.clocks_waiting = v.clocks_waiting;
                self.clocks = v.clocks.map(|(c, running)| SummaryClocks {
                    white_ms: c.white,
                    black_ms: c.black,
                    running,
                });
                for c in Color::ALL {
                    *self.in_sync.get_mut(c) = v.boards.get(c).in_sync;
                }
                if let Some(r) = v.result {
                    self.over = true;
                    self.result = r.map(|r| r.pgn().to_owned());
                }
            }
            HallEvent::Output {
                table, at, output, ..
            } if *table == self.table => {
                let Some(text) = render::text(wording, lang, output) else {
                    return false;
                };
                let heard = render::hearer(output);
                if let Some(line) = render::log_line_of(output, &text) {
                    if self.recent.len() == RECENT_LINES {
                        self.recent.pop_front();
                    }
                    self.recent.push_back(RecentLine {
                        at: *at,
                        heard,
                        text: line.chars().take(RECENT_CHARS).collect(),
                    });
                    while self.recent.iter().map(|l| l.text.len()).sum::<usize>() > RECENT_BYTES {
                        self.recent.pop_front();
                    }
                }
                // Said again at the arbiter's request: logged, not news (as in the window).
                let repeated = matches!(output, Output::Repeated { .. });
                if heard == Some(Hearer::Both) && !text.is_empty() && !repeated {
                    self.last_public = Some(text);
                }
            }
            HallEvent::Link {
                table,
                color,
                event,
                ..
            } if *table == self.table => {
                use kriegspiel_boardlink::LinkEvent;
                match event {
                    LinkEvent::Connected { .. } | LinkEvent::Back => {
                        *self.links.get_mut(*color) = Some(true);
                    }
                    LinkEvent::Disconnected { .. } | LinkEvent::OpenFailed { .. } => {
                        *self.links.get_mut(*color) = Some(false);
                    }
                    _ => {}
                }
            }
            HallEvent::Seat(n) if n.table == self.table => {
                *self.seated.get_mut(n.color) = matches!(n.change, SeatChange::Taken { .. });
                if matches!(n.change, SeatChange::Refused { .. } | SeatChange::Replaced) {
                    // A refusal leaves the seat as it was; a takeover's taking follows.
                    *self.seated.get_mut(n.color) = *before.seated.get(n.color);
                }
            }
            HallEvent::Ended { table, result, .. } if *table == self.table => {
                self.over = true;
                self.result = result.map(|r| r.pgn().to_owned());
            }
            HallEvent::Failed { table, error } if *table == self.table => {
                self.failed = Some(error.clone());
            }
            _ => {}
        }
        *self != before
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<TableSummary, SummaryError> {
        if bytes.len() > MAX_SUMMARY {
            return Err(SummaryError::TooLong(bytes.len()));
        }
        serde_json::from_slice(bytes).map_err(SummaryError::Json)
    }
}

/// What a window on a round's broker learns of the round's other consoles.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundNews {
    /// A table's summary, as its console last published it.
    Summary(Box<TableSummary>),
    /// A console's presence: online, stopped, or gone without a word (its last will).
    Console {
        name: String,
        status: kriegspiel_net::Status,
    },
}

impl RoundNews {
    /// The news a message of the round's consoles or summaries topics carries (none for
    /// another topic, or a payload that does not decode: the next replaces it whole).
    pub fn of_message(topic: &str, payload: &[u8]) -> Option<RoundNews> {
        use kriegspiel_net::round;
        if let Some(name) = round::console_of(topic) {
            kriegspiel_net::Status::decode(payload).map(|status| RoundNews::Console {
                name: name.to_owned(),
                status,
            })
        } else if round::table_of(topic, "summary").is_some() {
            TableSummary::decode(payload)
                .ok()
                .map(|s| RoundNews::Summary(Box::new(s)))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use kriegspiel_referee::shakmaty::Square;
    use kriegspiel_referee::{GameConfig, Lang, Options, Referee, RuleSet, Try, Wording};
    use kriegspiel_table::PublicMessage;

    use super::*;

    fn tried(r: &mut Referee, from: Square, to: Square) -> HallEvent {
        let t = Try {
            from,
            to,
            promotion: None,
        };
        let verdict = r.try_move(t).unwrap();
        HallEvent::Output {
            table: 3,
            at: 1_000,
            output: Output::Verdict {
                color: Color::White,
                tried: t,
                verdict,
            },
        }
    }

    #[test]
    fn a_summary_keeps_the_tables_last_lines_for_the_arbiter_and_no_more() {
        // Under wild 16 a refusal is the mover's alone.
        let wording = Wording::new(RuleSet::Wild16, Options::default(), Lang::En);
        let mut r = Referee::new(&GameConfig {
            rules: RuleSet::Wild16,
            options: Options::default(),
            fen: None,
        })
        .unwrap();
        let mut s = TableSummary::new(3, "Board 3", "east", None);
        // White's refused try is White's alone; the arbiter's window sees it, and the move.
        assert!(s.take(&tried(&mut r, Square::E2, Square::E5), &wording, Lang::En));
        let first = s.recent.back().unwrap().clone();
        assert_eq!(first.heard, Some(Hearer::Player(Color::White)), "{first:?}");
        assert!(first.text.starts_with("White tries e2e5: "), "{first:?}");
        assert_eq!(s.last_public, None);
        let paused = HallEvent::Output {
            table: 3,
            at: 2_000,
            output: Output::Public {
                message: PublicMessage::Paused,
            },
        };
        // Another table's words are not this one's.
        let elsewhere = match paused.clone() {
            HallEvent::Output { at, output, .. } => HallEvent::Output {
                table: 4,
                at,
                output,
            },
            _ => unreachable!(),
        };
        assert!(!s.take(&elsewhere, &wording, Lang::En));
        for _ in 0..RECENT_LINES + 5 {
            s.take(&paused, &wording, Lang::En);
        }
        assert_eq!(s.recent.len(), RECENT_LINES);
        assert!(s.recent.iter().all(|l| l.heard == Some(Hearer::Both)));
        // Through the broker and back, whole; a summary of an older console, without
        // lines, still reads.
        let back = TableSummary::decode(&s.encode()).unwrap();
        assert_eq!(back, s);
        assert!(String::from_utf8(s.encode())
            .unwrap()
            .contains(r#""heard":"both""#));
        let mut json: serde_json::Value = serde_json::from_slice(&s.encode()).unwrap();
        json.as_object_mut().unwrap().remove("recent");
        let older = TableSummary::decode(json.to_string().as_bytes()).unwrap();
        assert!(older.recent.is_empty());
        // Lines of three-byte characters are dropped, oldest first, before the summary
        // could outgrow what a window takes.
        s.recent
            .iter_mut()
            .for_each(|l| l.text = "♔".repeat(RECENT_CHARS));
        s.take(
            &HallEvent::Output {
                table: 3,
                at: 3_000,
                output: Output::Public {
                    message: PublicMessage::Paused,
                },
            },
            &wording,
            Lang::En,
        );
        assert!(s.recent.len() < RECENT_LINES, "{}", s.recent.len());
        assert!(s.recent.iter().map(|l| l.text.len()).sum::<usize>() <= RECENT_BYTES);
        assert!(s.encode().len() < MAX_SUMMARY / 2);
        let last = &s.recent.back().unwrap().text;
        assert!(!last.contains('♔'), "{last}");
    }

    /// What the arbiter asked to be said again is logged as a repeat, and the card's
    /// "Last:" line stays the last news, as in the window's own tables.
    #[test]
    fn a_repeat_is_logged_but_is_not_the_last_news() {
        let wording = Wording::new(RuleSet::Berkeley, Options::default(), Lang::En);
        let mut s = TableSummary::new(3, "Board 3", "east", None);
        let said = |at, output| HallEvent::Output {
            table: 3,
            at,
            output,
        };
        let paused = Output::Public {
            message: PublicMessage::Paused,
        };
        let resumed = Output::Public {
            message: PublicMessage::Resumed,
        };
        assert!(s.take(&said(1_000, paused.clone()), &wording, Lang::En));
        assert!(s.take(&said(2_000, resumed.clone()), &wording, Lang::En));
        let news = s.last_public.clone().unwrap();
        let repeat = Output::Repeated {
            output: Box::new(paused.clone()),
        };
        assert!(s.take(&said(3_000, repeat), &wording, Lang::En));
        assert_eq!(s.last_public.as_deref(), Some(news.as_str()));
        let line = &s.recent.back().unwrap().text;
        let paused_words = render::text(&wording, Lang::En, &paused).unwrap();
        assert_eq!(line, &format!("Repeated: {paused_words}"));
        // A clock has no words: nothing changes.
        let before = s.clone();
        let clock = Output::Clock {
            remaining: kriegspiel_referee::shakmaty::ByColor { white: 1, black: 2 },
            running: None,
        };
        assert!(!s.take(&said(4_000, clock), &wording, Lang::En));
        assert_eq!(s, before);
    }
}
