//! The two ends of a seat's numbered lines: what a console keeps of what it said to a
//! session ([`SaidLines`]), and a terminal's in-order intake of it ([`HeardLines`]).

use std::collections::{BTreeMap, VecDeque};

use crate::seat::{SessionId, ToConsole, ToSeat};

/// How many of a session's latest lines a console keeps to say again: more than a players'
/// socket queues for a terminal, so a terminal that was away a while misses nothing.
pub const KEPT_LINES: usize = 4096;

/// How many lines past a gap a terminal holds while it waits for the gap to fill.
pub const HELD_LINES: usize = 4096;

/// How often a terminal asks again for lines it misses, in milliseconds.
pub const ASK_EVERY_MS: u64 = 1000;

/// What a console said to one session, numbered from 0, its latest [`KEPT_LINES`] kept.
#[derive(Debug)]
pub struct SaidLines {
    session: SessionId,
    next: u64,
    kept: VecDeque<ToSeat>,
}

impl SaidLines {
    pub fn new(session: SessionId) -> SaidLines {
        SaidLines {
            session,
            next: 0,
            kept: VecDeque::new(),
        }
    }

    /// Numbers and keeps the next line; the message to send.
    pub fn say(&mut self, text: &str) -> ToSeat {
        let m = ToSeat::line(self.session, self.next, text);
        self.keep(m)
    }

    /// The session's last message: nothing follows it.
    pub fn end(&mut self) -> ToSeat {
        let m = ToSeat::End {
            session: self.session,
            seq: self.next,
        };
        self.keep(m)
    }

    fn keep(&mut self, m: ToSeat) -> ToSeat {
        self.next += 1;
        if self.kept.len() == KEPT_LINES {
            self.kept.pop_front();
        }
        self.kept.push_back(m.clone());
        m
    }

    /// The regular sign of life, with how many lines there are.
    pub fn alive(&self) -> ToSeat {
        ToSeat::Alive {
            session: self.session,
            next: self.next,
        }
    }

    /// Everything from line `from` on, to send again; led by a [`ToSeat::Skip`] when the
    /// first of them is no longer kept.
    pub fn from(&self, from: u64) -> Vec<ToSeat> {
        let oldest = self.next - self.kept.len() as u64;
        let mut again = Vec::new();
        if from < oldest {
            again.push(ToSeat::Skip {
                session: self.session,
                to: oldest,
            });
        }
        let skip = usize::try_from(from.saturating_sub(oldest)).unwrap_or(usize::MAX);
        again.extend(self.kept.iter().skip(skip).cloned());
        again
    }
}

/// What a terminal's intake hands on, in the console's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// A line to show or say.
    Line(String),
    /// Lines the console no longer had: `count` were lost.
    Lost(u64),
    /// The console ended the session.
    End,
    /// The console does not know the session (it restarted): the terminal must start again.
    Gone,
}

/// A terminal's intake of its session's lines: each once, in order; a gap is held until it
/// fills, and asked for again.
#[derive(Debug)]
pub struct HeardLines {
    session: SessionId,
    /// The next line to hand on.
    next: u64,
    /// How many lines the console has said, as far as is known.
    known: u64,
    /// Lines past a gap (`None`: the end).
    held: BTreeMap<u64, Option<String>>,
    ended: bool,
    asked_ms: Option<u64>,
}

impl HeardLines {
    pub fn new(session: SessionId) -> HeardLines {
        HeardLines {
            session,
            next: 0,
            known: 0,
            held: BTreeMap::new(),
            ended: false,
            asked_ms: None,
        }
    }

    /// Takes one message of the console; what can be handed on now, in order. Another
    /// session's messages and repeats are ignored.
    pub fn take(&mut self, m: ToSeat) -> Vec<Heard> {
        if m.session() != self.session || self.ended {
            return Vec::new();
        }
        match m {
            ToSeat::Line { seq, text, .. } => self.hold(seq, Some(text)),
            ToSeat::End { seq, .. } => self.hold(seq, None),
            ToSeat::Alive { next, .. } => self.known = self.known.max(next),
            ToSeat::Gone { .. } => {
                self.ended = true;
                return vec![Heard::Gone];
            }
            ToSeat::Skip { to, .. } if to > self.next => {
                let lost = to - self.next;
                self.next = to;
                self.held.retain(|seq, _| *seq >= to);
                let mut out = vec![Heard::Lost(lost)];
                out.extend(self.release());
                return out;
            }
            ToSeat::Skip { .. } => {}
        }
        self.release()
    }

    fn hold(&mut self, seq: u64, line: Option<String>) {
        self.known = self.known.max(seq + 1);
        let room = seq.saturating_sub(self.next) < HELD_LINES as u64;
        if seq >= self.next && room {
            self.held.insert(seq, line);
        }
    }

    fn release(&mut self) -> Vec<Heard> {
        let mut out = Vec::new();
        while let Some(line) = self.held.remove(&self.next) {
            self.next += 1;
            match line {
                Some(text) => out.push(Heard::Line(text)),
                None => {
                    self.ended = true;
                    self.held.clear();
                    out.push(Heard::End);
                    break;
                }
            }
        }
        out
    }

    /// What the terminal says when its connection is back: it is still here, and wants
    /// what it has not heard (the console keeps a session whose terminal vanished only a
    /// while, unless it speaks again).
    pub fn back(&self) -> ToConsole {
        ToConsole::Resend {
            session: self.session,
            from: self.next,
        }
    }

    /// Whether the session ended (its last line handed on, or the console forgot it).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The request for what is missing, at most once every [`ASK_EVERY_MS`]; `now_ms` on
    /// any steady clock.
    pub fn ask(&mut self, now_ms: u64) -> Option<ToConsole> {
        if self.ended || self.next >= self.known {
            return None;
        }
        if self
            .asked_ms
            .is_some_and(|at| now_ms.saturating_sub(at) < ASK_EVERY_MS)
        {
            return None;
        }
        self.asked_ms = Some(now_ms);
        Some(ToConsole::Resend {
            session: self.session,
            from: self.next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SessionId = SessionId(7);

    fn lines(heard: &[Heard]) -> Vec<String> {
        heard
            .iter()
            .map(|h| match h {
                Heard::Line(t) => t.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn lines_come_out_in_order_once_whatever_order_they_arrive_in() {
        let mut said = SaidLines::new(S);
        let sent: Vec<ToSeat> = ["a", "b", "c", "d"].iter().map(|t| said.say(t)).collect();
        let end = said.end();
        let mut heard = HeardLines::new(S);
        let mut out = Vec::new();
        for m in [
            &sent[1], &sent[0], &sent[0], &sent[3], &sent[2], &end, &sent[2],
        ] {
            out.extend(heard.take(m.clone()));
        }
        assert_eq!(lines(&out), ["a", "b", "c", "d", "End"]);
        assert!(heard.ended());
    }

    #[test]
    fn a_gap_is_asked_for_once_a_second_and_filled_from_what_the_console_kept() {
        let mut said = SaidLines::new(S);
        let first = said.say("first");
        let _lost = said.say("lost on the way");
        let third = said.say("third");
        let mut heard = HeardLines::new(S);
        assert_eq!(lines(&heard.take(first)), ["first"]);
        assert_eq!(heard.take(third), Vec::new());
        let ask = heard.ask(10_000);
        assert_eq!(
            ask,
            Some(ToConsole::Resend {
                session: S,
                from: 1
            })
        );
        assert_eq!(heard.ask(10_500), None, "asked again too soon");
        assert!(heard.ask(11_000).is_some());
        let mut out = Vec::new();
        for m in said.from(1) {
            out.extend(heard.take(m));
        }
        assert_eq!(lines(&out), ["lost on the way", "third"]);
        assert_eq!(heard.ask(20_000), None, "nothing is missing");
    }

    #[test]
    fn a_lost_last_line_is_found_by_the_consoles_sign_of_life() {
        let mut said = SaidLines::new(S);
        let _lost = said.say("your try is illegal");
        let mut heard = HeardLines::new(S);
        assert_eq!(heard.ask(0), None);
        assert_eq!(heard.take(said.alive()), Vec::new());
        assert_eq!(
            heard.ask(0),
            Some(ToConsole::Resend {
                session: S,
                from: 0
            })
        );
    }

    #[test]
    fn lines_no_longer_kept_are_said_to_be_lost_and_the_rest_follow() {
        let mut said = SaidLines::new(S);
        for i in 0..KEPT_LINES + 3 {
            said.say(&i.to_string());
        }
        let again = said.from(0);
        assert_eq!(again.first(), Some(&ToSeat::Skip { session: S, to: 3 }));
        assert_eq!(again.len(), KEPT_LINES + 1);
        let mut heard = HeardLines::new(S);
        let out: Vec<Heard> = again.into_iter().flat_map(|m| heard.take(m)).collect();
        assert_eq!(out.first(), Some(&Heard::Lost(3)));
        assert_eq!(out.get(1), Some(&Heard::Line("3".to_owned())));
        assert_eq!(out.len(), KEPT_LINES + 1);
    }

    #[test]
    fn another_sessions_lines_and_a_forgotten_session() {
        let mut other = SaidLines::new(SessionId(8));
        let mut heard = HeardLines::new(S);
        assert_eq!(heard.take(other.say("not yours")), Vec::new());
        assert_eq!(heard.take(ToSeat::Gone { session: S }), vec![Heard::Gone]);
        assert!(heard.ended());
        assert_eq!(heard.ask(0), None);
    }

    #[test]
    fn a_flood_of_lines_far_past_a_gap_is_not_held() {
        let mut heard = HeardLines::new(S);
        let far = ToSeat::line(S, HELD_LINES as u64 + 5, "far ahead");
        assert_eq!(heard.take(far), Vec::new());
        assert!(heard.held.is_empty());
        assert!(heard.ask(0).is_some(), "the gap is still asked for");
    }
}
