//! The JSON event lines: one line per hall event that makes one, tagged with its table when
//! the hall has several, printed and flushed one by one.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use kriegspiel_boardlink::LinkEvent;
use kriegspiel_hall::{HallEvent, SeatChange, SeatNotice, TableNo};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::{Lang, Wording};
use kriegspiel_table::render;
use serde_json::{json, Value};

/// Where a board's link stands, for the `link` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkState {
    Never,
    Up,
    Down,
}

/// Where each board's link stands, so that a board connecting again after a loss is
/// `reconnected`: the one reading of link events for the JSON lines and the readable ones.
#[derive(Debug, Default)]
pub(crate) struct Links(HashMap<(TableNo, Color), LinkState>);

impl Links {
    /// The name of a link event (`connected`, `reconnected`, `disconnected`, `open_failed`,
    /// `version_mismatch`, `fault`), noting where the link now stands; `None` for what a
    /// board sends about its men (lifts, places, snapshots, resyncs).
    pub(crate) fn event(
        &mut self,
        table: TableNo,
        color: Color,
        event: &LinkEvent,
    ) -> Option<&'static str> {
        let state = self.0.entry((table, color)).or_insert(LinkState::Never);
        Some(match event {
            // Heard again, or first heard by a console restarted on its journal.
            LinkEvent::Back => {
                let name = if *state == LinkState::Down {
                    "reconnected"
                } else {
                    "connected"
                };
                *state = LinkState::Up;
                name
            }
            LinkEvent::Connected { .. } => {
                let name = if *state == LinkState::Down {
                    "reconnected"
                } else {
                    "connected"
                };
                *state = LinkState::Up;
                name
            }
            LinkEvent::Disconnected { .. } => {
                *state = LinkState::Down;
                "disconnected"
            }
            LinkEvent::OpenFailed { .. } => "open_failed",
            LinkEvent::VersionMismatch { .. } => "version_mismatch",
            LinkEvent::Fault { .. } => "fault",
            LinkEvent::Lift { .. }
            | LinkEvent::Place { .. }
            | LinkEvent::Snapshot { .. }
            | LinkEvent::Resync { .. } => return None,
        })
    }
}

/// Turns hall events into JSON lines; tags each with its table when the hall has several.
#[derive(Debug)]
pub struct Lines {
    tag_tables: bool,
    wordings: HashMap<TableNo, (Wording, Lang)>,
    links: Links,
    /// Tables resumed whose position is not printed yet (their next view).
    resumed: HashSet<TableNo>,
}

impl Lines {
    pub fn new(tag_tables: bool) -> Lines {
        Lines {
            tag_tables,
            wordings: HashMap::new(),
            links: Links::default(),
            resumed: HashSet::new(),
        }
    }

    /// Whether a resumed table's position is still to be printed.
    pub fn is_resuming(&self, table: TableNo) -> bool {
        self.resumed.contains(&table)
    }

    /// The table's wording, once it has opened.
    pub fn wording(&self, table: TableNo) -> Option<(Wording, Lang)> {
        self.wordings.get(&table).copied()
    }

    /// The line for one event, if it makes one.
    pub fn line(&mut self, e: &HallEvent) -> Option<Value> {
        let (table, mut v) = match e {
            HallEvent::Opened {
                table,
                name,
                game,
                resumed_events,
                wording,
                lang,
                seats,
                ignored,
                set_aside,
                follows,
                ..
            } => {
                self.wordings.insert(*table, (*wording, *lang));
                let mut v = json!({"opened": name, "game": game,
                    "seats": {"white": seats.white, "black": seats.black}});
                if *resumed_events > 0 {
                    v["resumed_events"] = json!(resumed_events);
                    self.resumed.insert(*table);
                }
                if !ignored.is_empty() {
                    v["ignored"] = json!(ignored);
                }
                if let Some(old) = set_aside {
                    v["set_aside"] = json!(old);
                }
                if let Some(over) = follows {
                    v["follows"] = json!(over);
                }
                (*table, v)
            }
            HallEvent::Output { table, output, .. } => {
                let (w, lang) = self.wording(*table)?;
                (*table, render::json(&w, lang, output))
            }
            HallEvent::Link {
                table,
                color,
                event,
                ..
            } => {
                let name = self.links.event(*table, *color, event)?;
                (*table, link_line(*color, name, event))
            }
            HallEvent::Ended {
                table,
                result,
                position,
            } => (
                *table,
                json!({"final_fen": kriegspiel_hall::fen(position),
                    "result": result.map_or("*", |r| r.pgn())}),
            ),
            HallEvent::Failed { table, error } => (*table, json!({"error": journal_error(error)})),
            HallEvent::OpenFailed { name, error } => {
                return Some(json!({"error": open_error(name, error)}));
            }
            HallEvent::Seat(n) => (n.table, seat_line(n)),
            HallEvent::Broker(n) => return Some(broker_line(n)),
            // A resumed table's position, once: where the game stands.
            HallEvent::View(view) if self.resumed.remove(&view.table) => (
                view.table,
                json!({"resumed": true, "fen": view.fen(), "to_move": view.to_move().to_string(),
                    "clocks_waiting": view.clocks_waiting}),
            ),
            HallEvent::View(_) => return None,
        };
        if self.tag_tables {
            if let Value::Object(map) = &mut v {
                map.insert("table".to_owned(), json!(table));
            }
        }
        Some(v)
    }
}

/// The line of a link event named `name` (see [`Links::event`]).
fn link_line(color: Color, name: &str, event: &LinkEvent) -> Value {
    let mut v = json!({"link": color.to_string()});
    v["event"] = json!(name);
    match event {
        LinkEvent::Connected { board_id, .. } => v["board_id"] = json!(board_id),
        LinkEvent::Disconnected { reason } => v["reason"] = json!(reason.name()),
        LinkEvent::OpenFailed { error } => v["error"] = json!(error),
        LinkEvent::VersionMismatch { local, remote } => {
            v["local"] = json!(local);
            v["remote"] = json!(remote);
        }
        LinkEvent::Fault { code, .. } => v["code"] = json!(code.name()),
        LinkEvent::Lift { .. }
        | LinkEvent::Place { .. }
        | LinkEvent::Snapshot { .. }
        | LinkEvent::Resync { .. }
        | LinkEvent::Back => {}
    }
    v
}

/// The line of a seat change.
fn seat_line(n: &SeatNotice) -> Value {
    let mut v = json!({"seat": n.change.id(), "color": n.color.to_string(),
        "text": n.to_string()});
    match &n.change {
        SeatChange::Taken { voice } => v["voice"] = json!(voice),
        SeatChange::CutOff { reason } | SeatChange::Refused { reason } => {
            v["reason"] = json!(reason);
        }
        SeatChange::Left | SeatChange::Released | SeatChange::Replaced => {}
    }
    v
}

/// The `error` of a table whose journal failed (its line's, and its readable line's).
pub(crate) fn journal_error(error: &str) -> Value {
    json!({"code": "journal", "message": error})
}

/// The `error` of a table that could not open (its line's, and its readable line's).
pub(crate) fn open_error(name: &str, error: &str) -> Value {
    json!({"code": "open", "table": name, "message": error})
}

/// Prints one line and flushes it; false once nobody reads standard output.
pub fn print_line(v: &Value) -> bool {
    print_text(&v.to_string())
}

/// Prints one line to standard output; `false` once nobody reads it (a closed pipe), which
/// ends the program quietly instead of in a panic.
pub fn print_text(line: &str) -> bool {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// The broker's state for scripts: what happened, and the sentence for people.
fn broker_line(n: &kriegspiel_hall::BrokerNotice) -> Value {
    use kriegspiel_hall::BrokerNotice;
    let what = match n {
        BrokerNotice::Reached { .. } => "reached",
        BrokerNotice::Down { .. } => "down",
        BrokerNotice::Refused { .. } => "refused",
        BrokerNotice::Dropped { .. } => "dropped",
        BrokerNotice::Malformed { .. } => "malformed",
        BrokerNotice::Journal { .. } => "journal",
        BrokerNotice::Shared { .. } => "shared",
    };
    json!({"broker": what, "message": n.to_string()})
}
