//! The hall's events as the players' channel follows them: each table's wording and
//! position, and each output to the terminals of those who may hear it.

use std::sync::mpsc::TrySendError;

use kriegspiel_hall::{follower, HallEvent, SeatChange, Subscriber, TableNo, TableView};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::Verdict;
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::Output;
use kriegspiel_voice::grammar::own_board_fen;
use tokio::sync::broadcast;

use super::session::{tell_cut_off, Closing, State, TableState};
use super::words::{say, Said};
use super::{Players, OWN_BOARD};

impl Players {
    /// The players' channel as a hall subscriber: it follows the hall from the first event
    /// on a thread of its own (its own queue: a slow terminal costs no other subscriber).
    pub fn subscriber(&self) -> Box<dyn Subscriber> {
        let players = self.clone();
        follower("players", move |mut events| loop {
            match events.blocking_recv() {
                Ok(e) => players.observe(&e),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Only a starved machine gets here: what was missed cannot be known, so
                    // every terminal is asked to reconnect and hear it again.
                    players.close_all(
                        "the console fell behind; reconnect, then type repeat",
                        false,
                    );
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        })
    }

    /// Passes one hall event to the players who may hear it.
    pub fn observe(&self, e: &HallEvent) {
        let cut = {
            let Ok(mut guard) = self.shared.state.lock() else {
                return;
            };
            let state = &mut *guard;
            match e {
                HallEvent::Opened {
                    table,
                    wording,
                    lang,
                    seats,
                    heard,
                    ..
                } => {
                    let mut t = TableState {
                        wording: *wording,
                        lang: *lang,
                        position: None,
                        last: ByColor::default(),
                        codes: seats.clone(),
                        wrong: ByColor::default(),
                        over: false,
                        moved: None,
                    };
                    t.last = heard.as_ref().map(|o| o.as_ref().and_then(|o| t.text(o)));
                    state.tables.insert(*table, t);
                    Vec::new()
                }
                HallEvent::View(view) => {
                    see(state, view);
                    Vec::new()
                }
                HallEvent::Output { table, output, .. } => tell(state, *table, output),
                HallEvent::Link { .. }
                | HallEvent::Ended { .. }
                | HallEvent::Failed { .. }
                | HallEvent::OpenFailed { .. }
                | HallEvent::Seat(_)
                | HallEvent::Broker(_) => Vec::new(),
            }
        };
        for c in &cut {
            tell_cut_off(&c.session.stream, c.change.as_ref());
        }
        self.close(cut);
    }
}

/// Keeps a table's official position, and sends each voice terminal at it his own board
/// when his men have changed.
fn see(state: &mut State, view: &TableView) {
    if let Some(t) = state.tables.get_mut(&view.table) {
        t.position = Some(view.position.clone());
        t.over = view.result.is_some();
        t.moved = None;
    }
    for s in state
        .sessions
        .iter_mut()
        .filter(|s| s.voice && s.table == view.table)
    {
        let own = Some(own_board_fen(&view.position, s.color));
        if own.is_some() && own != s.own_board {
            if let Some(f) = &own {
                // A full queue is found and cut off by the next message.
                let _ = s.tx.try_send(format!("{OWN_BOARD}{f}"));
            }
            s.own_board = own;
        }
    }
}

/// Whether an output answers something `color` did (his try, his question, his command):
/// not his opponent's moves.
fn answers(output: &Output, color: Color) -> bool {
    match output {
        Output::Verdict { color: c, .. }
        | Output::Reply { color: c, .. }
        | Output::Private { color: c, .. } => *c == color,
        Output::Public { .. } | Output::Started { .. } => true,
        Output::Arbiter { .. }
        | Output::Note { .. }
        | Output::Repeated { .. }
        | Output::Clock { .. } => false,
    }
}

/// Queues an output's words for the terminals of those who hear it (and keeps them as the
/// last words each heard, for "repeat"); returns the sessions to cut off, whose queue is
/// full.
fn tell(state: &mut State, table: TableNo, output: &Output) -> Vec<Closing> {
    let mut cut = Vec::new();
    let Some(t) = state.tables.get_mut(&table) else {
        return cut;
    };
    if let Output::Verdict {
        color,
        verdict: Verdict::Moved(_),
        ..
    } = output
    {
        t.moved = Some(color.other());
    }
    let Some(hearer) = render::hearer(output) else {
        return cut;
    };
    let Some(text) = t.text(output) else {
        return cut;
    };
    let hears = |c: Color| hearer == Hearer::Both || hearer == Hearer::Player(c);
    for c in Color::ALL.into_iter().filter(|c| hears(*c)) {
        t.last[c] = Some(text.clone());
    }
    let lang = t.lang;
    let mut i = 0;
    while i < state.sessions.len() {
        let s = &mut state.sessions[i];
        if s.table != table || !hears(s.color) {
            i += 1;
            continue;
        }
        match s.tx.try_send(text.clone()) {
            Ok(()) => {
                if answers(output, s.color) {
                    s.heard += 1;
                }
                i += 1;
            }
            Err(TrySendError::Full(_)) => {
                // He does not read: cut off rather than held without end.
                cut.push(Closing {
                    session: state.sessions.remove(i),
                    last_words: None,
                    change: Some(SeatChange::CutOff {
                        reason: say(lang, Said::NotReading),
                    }),
                });
            }
            Err(TrySendError::Disconnected(_)) => {
                // He hung up; his reader says so.
                i += 1;
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use kriegspiel_referee::shakmaty::{Chess, Square};
    use kriegspiel_referee::{GameConfig, Lang, Options, Referee, RuleSet, Try, Wording};

    use super::*;
    use crate::players::words::Turn;

    /// A player told "Black's move." who asks whose turn it is before the position after the
    /// move has come is told it is his: the move that stood passed the turn.
    #[test]
    fn a_move_that_stood_passes_the_turn_before_its_position_comes() {
        let rules = RuleSet::Wild16;
        let mut state = State::default();
        state.tables.insert(
            1,
            TableState {
                wording: Wording::new(rules, Options::default(), Lang::En),
                lang: Lang::En,
                position: Some(Chess::default()),
                last: ByColor::default(),
                codes: ByColor::default(),
                wrong: ByColor::default(),
                over: false,
                moved: None,
            },
        );
        let mut referee = Referee::new(&GameConfig {
            rules,
            options: Options::default(),
            fen: None,
        })
        .unwrap();
        let turn = |state: &State, c| state.tables[&1].turn(c);
        assert_eq!(turn(&state, Color::Black), Some(Turn::Theirs));
        let refused = Try::from_uci("e2e5").unwrap();
        let verdict = referee.try_move(refused).unwrap();
        let output = |tried, verdict| Output::Verdict {
            color: Color::White,
            tried,
            verdict,
        };
        tell(&mut state, 1, &output(refused, verdict));
        assert_eq!(turn(&state, Color::Black), Some(Turn::Theirs));
        let stood = Try {
            from: Square::E2,
            to: Square::E4,
            promotion: None,
        };
        let verdict = referee.try_move(stood).unwrap();
        tell(&mut state, 1, &output(stood, verdict));
        assert_eq!(turn(&state, Color::Black), Some(Turn::Yours));
        assert_eq!(turn(&state, Color::White), Some(Turn::Theirs));
    }
}
