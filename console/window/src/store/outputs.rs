//! How a table's outputs and its boards' link events enter what the window knows of it:
//! its tries, its announcement log, its draw offer, its result and its links.

use std::time::Instant;

use kriegspiel_boardlink::{Health, LinkEvent};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Verdict;
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{ArbiterNote, Millis, Output, PublicMessage, Termination};

use super::{Change, TableState, TryRow};
use crate::words::color_name;

/// The arbiter alone hears it (a note, a link event, a seat's change).
pub(super) const ARBITER: Option<Hearer> = None;

/// Takes one of a table's outputs in: its words go to the log for whoever heard them (the
/// table's one rendering and its one answer to "who hears this"), a try to the try list, a
/// draw offer, a result or a refusal to what the window shows of the table.
pub(super) fn output_in(t: &mut TableState, at: Millis, o: &Output) {
    let text = render::text(&t.wording, t.lang, o).unwrap_or_default();
    let heard = render::hearer(o);
    // What both players heard is the card's "Last:" line.
    let public = heard == Some(Hearer::Both) && !text.is_empty();
    match o {
        Output::Verdict {
            color,
            tried,
            verdict,
        } => {
            let stood = matches!(verdict, Verdict::Moved(_));
            // The first try after a move stood opens the next move's list.
            if t.tries.last().is_some_and(|r| r.stood) {
                t.tries.clear();
            }
            t.tries.push(TryRow {
                color: *color,
                uci: tried.to_uci(),
                text: text.clone(),
                stood,
                at,
            });
            if stood {
                t.moves += 1;
                t.draw_offer = None;
                t.refused = None;
            }
        }
        Output::Public { message } => public_in(t, message),
        Output::Note {
            note: ArbiterNote::Refused { .. },
        } => t.refused = Some(text.clone()),
        // Said again at the arbiter's request: logged, but no new try, move or result.
        _ => {}
    }
    if let Some(line) = render::log_line_of(o, &text) {
        t.log(at, heard, line);
    }
    if public && !matches!(o, Output::Repeated { .. }) {
        t.last_public = Some(text);
    }
}

/// What a public message changes beyond the log: a draw offer, the result, a refusal
/// answered, a move taken back.
fn public_in(t: &mut TableState, message: &PublicMessage) {
    match message {
        PublicMessage::DrawOffered(c) => t.draw_offer = Some(*c),
        PublicMessage::GameEnded(end) => {
            t.result = Some(end.result);
            t.draw_offer = None;
            if let Termination::TimeForfeit(c) = end.termination {
                t.flag_fallen = Some(c);
            }
        }
        PublicMessage::Paused
        | PublicMessage::Resumed
        | PublicMessage::PositionCorrected
        | PublicMessage::MoveTakenBack => t.refused = None,
        PublicMessage::BoardsSwapped
        | PublicMessage::SameBoardId(_)
        | PublicMessage::ClocksStarted(_) => {}
    }
    if matches!(message, PublicMessage::MoveTakenBack) {
        t.tries.clear();
        t.moves = t.moves.saturating_sub(1);
    }
}

/// A link event in words.
pub fn link_words(event: &LinkEvent) -> String {
    match event {
        LinkEvent::Connected {
            board_id, firmware, ..
        } => format!(
            "connected (board {board_id}, firmware {}.{}.{})",
            firmware[0], firmware[1], firmware[2]
        ),
        LinkEvent::Lift { square, .. } => format!("lift {}", square_name(*square)),
        LinkEvent::Place { square, .. } => format!("place {}", square_name(*square)),
        LinkEvent::Snapshot { .. } => "snapshot".to_owned(),
        LinkEvent::Resync { reason, .. } => format!("resync: {reason}"),
        LinkEvent::Disconnected { reason } => format!("disconnected: {reason}"),
        LinkEvent::Back => "heard again (what it kept follows)".to_owned(),
        // Each says itself: "cannot open /dev/…: …", or a port open where no board answers.
        LinkEvent::OpenFailed { error } => error.clone(),
        LinkEvent::VersionMismatch { local, remote } => {
            format!("protocol {remote} on the board, {local} here")
        }
        LinkEvent::Fault { code, .. } => format!("board fault: {}", code.name().replace('_', " ")),
    }
}

fn square_name(i: u8) -> String {
    if i < 64 {
        kriegspiel_referee::shakmaty::Square::new(u32::from(i)).to_string()
    } else {
        format!("#{i}")
    }
}

/// Takes a link event of `c`'s board in: the link's state, counters and last event; a
/// disconnection, and a networked board's return, go to the log too. What it changed for the window is returned.
pub(super) fn link_in(
    t: &mut TableState,
    c: Color,
    event: &LinkEvent,
    health: &Health,
    now: Instant,
) -> Change {
    let l = &mut t.links[c];
    // A snapshot that agrees with the occupancy, on a link already up with no problem, only
    // moves its counters (the board's position comes with the table's views).
    let confirms = matches!(event, LinkEvent::Snapshot { .. })
        && l.connected == Some(true)
        && l.problem.is_none();
    l.health = *health;
    l.heard_at = Some(now);
    l.last_event = link_words(event);
    match event {
        LinkEvent::Connected { board_id, .. } => {
            l.connected = Some(true);
            l.board_id = Some(*board_id);
            l.problem = None;
        }
        LinkEvent::Disconnected { .. } => l.connected = Some(false),
        LinkEvent::Back => l.connected = Some(true),
        LinkEvent::OpenFailed { .. } | LinkEvent::VersionMismatch { .. } => {
            l.connected = Some(false);
            l.problem = Some(l.last_event.clone());
        }
        LinkEvent::Lift { .. }
        | LinkEvent::Place { .. }
        | LinkEvent::Snapshot { .. }
        | LinkEvent::Resync { .. }
        | LinkEvent::Fault { .. } => {
            if l.connected.is_none() {
                l.connected = Some(true);
            }
        }
    }
    if matches!(event, LinkEvent::Disconnected { .. } | LinkEvent::Back) {
        let text = format!("{}'s board: {}", color_name(c), l.last_event);
        let at = t.view.as_ref().map_or(0, |v| v.at);
        t.log(at, ARBITER, text);
    }
    if confirms {
        Change::Counters
    } else {
        Change::Visible
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use kriegspiel_boardlink::{DisconnectReason, LinkEvent, ResyncReason};

    use super::link_words;

    /// A link's last event in words, never in the program's own notation.
    #[test]
    fn link_events_are_said_in_words() {
        let unheard = LinkEvent::Disconnected {
            reason: DisconnectReason::Unheard {
                timeout: Duration::from_millis(1500),
            },
        };
        assert_eq!(
            link_words(&unheard),
            "disconnected: not heard for 1.5 s (what it keeps comes when it is back)"
        );
        let stopped = LinkEvent::Disconnected {
            reason: DisconnectReason::Stopped,
        };
        assert_eq!(
            link_words(&stopped),
            "disconnected: its program stopped, everything delivered"
        );
        let gap = LinkEvent::Resync {
            occupancy: 0,
            board_ms: 0,
            reason: ResyncReason::Gap { missed: 3 },
        };
        assert_eq!(link_words(&gap), "resync: 3 frames lost on the way");
        let fault = LinkEvent::Fault {
            code: kriegspiel_boardlink::FaultCode::ScanError,
            board_ms: 0,
        };
        assert_eq!(link_words(&fault), "board fault: scan error");
    }
}
