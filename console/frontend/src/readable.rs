//! The demo's readable lines: each hall event as a spectator at the arbiter's desk reads
//! it, from the typed event: an output's words by [`render::text`] in the table's wording,
//! who hears it by [`render::hearer`].

use std::collections::HashMap;

use kriegspiel_hall::{HallEvent, TableNo};
use kriegspiel_referee::{Lang, Verdict, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::Output;

use crate::lines::{journal_error, open_error, Links};

/// Turns hall events into readable lines (some of two lines); knows each table's wording
/// from its `Opened` event.
#[derive(Debug, Default)]
pub struct Readable {
    wordings: HashMap<TableNo, (Wording, Lang)>,
    links: Links,
}

impl Readable {
    pub fn new() -> Readable {
        Readable::default()
    }

    /// The text for one event, if it makes one.
    pub fn line(&mut self, e: &HallEvent) -> Option<String> {
        Some(match e {
            HallEvent::Opened {
                table,
                name,
                resumed_events,
                wording,
                lang,
                set_aside,
                ..
            } => {
                self.wordings.insert(*table, (*wording, *lang));
                if *resumed_events > 0 {
                    format!(
                        "  [table {name}: resuming the unfinished game after {resumed_events} events]"
                    )
                } else if let Some(old) = set_aside {
                    format!("  [table {name}: a new game; the unfinished game {old} is kept]")
                } else {
                    format!("  [table {name}: a new game]")
                }
            }
            HallEvent::Output { table, output, .. } => {
                let (w, lang) = self.wordings.get(table)?;
                output_line(w, *lang, output)
            }
            HallEvent::Link {
                table,
                color,
                event,
                ..
            } => {
                let name = self.links.event(*table, *color, event)?;
                format!("  [{color} board {name}]")
            }
            HallEvent::Ended {
                result, position, ..
            } => format!(
                "RESULT       {}\nFINAL POSITION {}",
                result.map_or("*", |r| r.pgn()),
                kriegspiel_hall::fen(position)
            ),
            HallEvent::Failed { error, .. } => format!("ERROR        {}", journal_error(error)),
            HallEvent::OpenFailed { name, error } => {
                format!("ERROR        {}", open_error(name, error))
            }
            HallEvent::Broker(n) => format!("BROKER       {n}"),
            HallEvent::Seat(_) | HallEvent::View(_) => return None,
        })
    }
}

/// One output as the spectator reads it: who tries or asks, and the words; what one player
/// alone hears marked so.
fn output_line(w: &Wording, lang: Lang, output: &Output) -> String {
    let text = render::text(w, lang, output).unwrap_or_default();
    match output {
        // A try's verdict is a new game only if the referee says so (it never does).
        Output::Verdict {
            verdict: Verdict::Moved(report),
            ..
        } if report.mover.is_none() => format!("REFEREE      {text}"),
        Output::Verdict { color, tried, .. } => {
            let only = match render::hearer(output) {
                Some(Hearer::Player(_)) => format!("  (to {color} only)"),
                Some(Hearer::Both) | None => String::new(),
            };
            // Padded as text: a `Display` of a colour or a try need not pad.
            let (color, tried) = (color.to_string(), tried.to_uci());
            format!("{color:<5} tries {tried:<6} {text}{only}")
        }
        Output::Reply {
            color, question, ..
        } => {
            let (color, question) = (color.to_string(), question.to_string());
            format!("{color:<5} asks {question:<7} {text}")
        }
        Output::Started { .. } => format!("REFEREE      {text}"),
        Output::Private { color, .. } => format!("  (to {color} only: {text})"),
        Output::Arbiter { .. } | Output::Note { .. } => format!("  [arbiter: {text}]"),
        Output::Public { .. } => format!("TABLE        {text}"),
        Output::Repeated { output } => output_line(w, lang, output),
        Output::Clock { remaining, .. } => format!(
            "  [clocks: white {}, black {}]",
            kriegspiel_table::clock::hms(remaining.white),
            kriegspiel_table::clock::hms(remaining.black)
        ),
    }
}

#[cfg(test)]
mod tests;
