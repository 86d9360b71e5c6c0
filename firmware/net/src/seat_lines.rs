//! The two ends of a seat's numbered lines, both ways. The console keeps what it said to a
//! session ([`SaidLines`]) and the terminal takes it in order ([`HeardLines`]); the terminal
//! keeps what it typed until the console counts it ([`TypedLines`]) and the console takes
//! each of those once, in order ([`TakenLines`]). Either side may be away from the broker
//! while the other publishes (a broker restarted, one side reconnecting first), and the
//! broker keeps nothing for a client that is not there.

use std::collections::{BTreeMap, VecDeque};

use crate::seat::{SessionId, ToConsole, ToSeat};

/// How many of a session's latest lines a console keeps to say again: more than a players'
/// socket queues for a terminal, so a terminal that was away a while misses nothing.
pub const KEPT_LINES: usize = 4096;

/// How many lines past a gap a terminal holds while it waits for the gap to fill.
pub const HELD_LINES: usize = 4096;

/// How often a terminal asks again for lines it misses, in milliseconds.
pub const ASK_EVERY_MS: u64 = 1000;

/// How often a terminal says it is still there, in milliseconds: a console that missed its
/// "back" (it reconnected to the broker later than the terminal) hears it within this, well
/// inside the 15 s it keeps a vanished terminal's session.
pub const HERE_EVERY_MS: u64 = 4000;

/// How long a typed line waits for the console to count it before it is sent again, in
/// milliseconds: longer than the console's 2 s between signs of life, so that a line on its
/// way is rarely sent twice (twice is harmless: the console takes it once).
pub const RESEND_TYPED_MS: u64 = 3000;

/// How many typed lines a terminal keeps that the console has not counted: a player types
/// a few a minute, so this many means the console has been away a long while.
pub const UNTAKEN_LINES: usize = 64;

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

    /// The regular sign of life, with how many lines there are and how many of the
    /// terminal's the console has `taken`.
    pub fn alive(&self, taken: &TakenLines) -> ToSeat {
        ToSeat::Alive {
            session: self.session,
            next: self.next,
            taken: taken.next,
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
            // Before the console said anything, its "no such session" only means the hello
            // has not reached it yet (it is sent again).
            ToSeat::Gone { .. } if self.known == 0 => {}
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

    /// What the terminal says when its connection is back, and every [`HERE_EVERY_MS`]: it
    /// is still here, and wants what it has not heard (the console keeps a session whose
    /// terminal vanished only a while, unless it speaks again).
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

/// What a terminal typed to its session, numbered from 0 (the hello), kept until the
/// console's sign of life counts it, and sent again meanwhile.
#[derive(Debug)]
pub struct TypedLines {
    session: SessionId,
    next: u64,
    /// Not yet counted by the console: each line's number, message, and when it was last
    /// sent.
    untaken: VecDeque<(u64, ToConsole, u64)>,
}

/// The console has not counted the last [`UNTAKEN_LINES`] lines: a new one is not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyUntaken;

impl std::fmt::Display for TooManyUntaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the console has not taken your last {UNTAKEN_LINES} lines; this one was not sent"
        )
    }
}

impl std::error::Error for TooManyUntaken {}

impl TypedLines {
    pub fn new(session: SessionId) -> TypedLines {
        TypedLines {
            session,
            next: 0,
            untaken: VecDeque::new(),
        }
    }

    /// Numbers and keeps the next line, sent at `now_ms`; the message to send.
    pub fn type_line(&mut self, text: &str, now_ms: u64) -> Result<ToConsole, TooManyUntaken> {
        if self.untaken.len() >= UNTAKEN_LINES {
            return Err(TooManyUntaken);
        }
        let m = ToConsole::line(self.session, self.next, text);
        self.untaken.push_back((self.next, m.clone(), now_ms));
        self.next += 1;
        Ok(m)
    }

    /// Takes the console's message: its sign of life says which lines it has.
    pub fn heard(&mut self, m: &ToSeat) {
        if let ToSeat::Alive { session, taken, .. } = m {
            if *session == self.session {
                self.untaken.retain(|(seq, _, _)| seq >= taken);
            }
        }
    }

    /// Every line not counted, in order, when the oldest has waited [`RESEND_TYPED_MS`]
    /// since it was last sent; `now_ms` on the clock of [`TypedLines::type_line`].
    pub fn again(&mut self, now_ms: u64) -> Vec<ToConsole> {
        let due = self
            .untaken
            .front()
            .is_some_and(|(_, _, sent)| now_ms.saturating_sub(*sent) >= RESEND_TYPED_MS);
        if !due {
            return Vec::new();
        }
        self.untaken
            .iter_mut()
            .map(|(_, line, sent)| {
                *sent = now_ms;
                line.clone()
            })
            .collect()
    }

    /// Whether the console has counted every line typed.
    pub fn all_taken(&self) -> bool {
        self.untaken.is_empty()
    }
}

/// How many of a session's typed lines a console has taken: each once, in order.
#[derive(Debug, Default)]
pub struct TakenLines {
    next: u64,
}

impl TakenLines {
    pub fn new() -> TakenLines {
        TakenLines::default()
    }

    /// Whether line `seq` is the next one, to hand on now. A repeat is not; nor is one past
    /// a gap: the terminal sends the gap and what follows again, in order.
    pub fn take(&mut self, seq: u64) -> bool {
        let next = seq == self.next;
        if next {
            self.next += 1;
        }
        next
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
        assert_eq!(heard.take(said.alive(&TakenLines::new())), Vec::new());
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
        // Before the console said a word, "gone" is its answer to a line that overtook the
        // hello: the hello is on its way again.
        assert_eq!(heard.take(ToSeat::Gone { session: S }), Vec::new());
        assert!(!heard.ended());
        let mut said = SaidLines::new(S);
        assert_eq!(lines(&heard.take(said.say("hello"))), ["hello"]);
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

    /// The console hands on what reaches it through a broker that drops every message whose
    /// number is in `lost` the first time it is sent.
    fn through_a_lossy_broker(lost: &[u64], typed: &[&str]) -> (Vec<String>, TypedLines) {
        let mut terminal = TypedLines::new(S);
        let mut taken = TakenLines::new();
        let said = SaidLines::new(S);
        let mut sent_once = std::collections::HashSet::new();
        let mut handed_on = Vec::new();
        let mut deliver = |m: ToConsole, taken: &mut TakenLines, handed_on: &mut Vec<String>| {
            let ToConsole::Line { seq, text, .. } = m else {
                panic!("a line")
            };
            if lost.contains(&seq) && sent_once.insert(seq) {
                return;
            }
            if taken.take(seq) {
                handed_on.push(text);
            }
        };
        let mut now = 0;
        for text in typed {
            let m = terminal.type_line(text, now).unwrap();
            deliver(m, &mut taken, &mut handed_on);
            now += 500;
        }
        for _ in 0..10 {
            terminal.heard(&said.alive(&taken));
            for m in terminal.again(now) {
                deliver(m, &mut taken, &mut handed_on);
            }
            now += 1000;
        }
        terminal.heard(&said.alive(&taken));
        (handed_on, terminal)
    }

    #[test]
    fn typed_lines_lost_on_the_way_are_sent_again_and_taken_once_in_order() {
        let typed = ["1 white 123456", "e2e4", "my men", "d2d4"];
        let (handed_on, terminal) = through_a_lossy_broker(&[1, 2], &typed);
        assert_eq!(handed_on, typed);
        assert!(terminal.all_taken());
        let (handed_on, terminal) = through_a_lossy_broker(&[], &typed);
        assert_eq!(handed_on, typed);
        assert!(terminal.all_taken());
        let (handed_on, terminal) = through_a_lossy_broker(&[0, 3], &typed);
        assert_eq!(handed_on, typed);
        assert!(terminal.all_taken());
    }

    #[test]
    fn a_typed_line_is_sent_again_only_after_its_wait_and_not_once_counted() {
        let mut terminal = TypedLines::new(S);
        let first = terminal.type_line("1 white 123456", 0).unwrap();
        assert_eq!(terminal.again(RESEND_TYPED_MS - 1), Vec::new());
        assert_eq!(terminal.again(RESEND_TYPED_MS), vec![first.clone()]);
        assert_eq!(terminal.again(RESEND_TYPED_MS + 1), Vec::new(), "just sent");
        // Another session's sign of life counts nothing of this one's.
        let mut taken = TakenLines::new();
        assert!(taken.take(0));
        terminal.heard(&SaidLines::new(SessionId(8)).alive(&taken));
        assert!(!terminal.all_taken());
        terminal.heard(&SaidLines::new(S).alive(&taken));
        assert!(terminal.all_taken());
        assert_eq!(terminal.again(10 * RESEND_TYPED_MS), Vec::new());
    }

    #[test]
    fn a_terminal_keeps_a_bounded_number_of_lines_the_console_has_not_counted() {
        let mut terminal = TypedLines::new(S);
        for i in 0..UNTAKEN_LINES {
            assert!(terminal.type_line(&i.to_string(), 0).is_ok());
        }
        assert_eq!(terminal.type_line("one more", 0), Err(TooManyUntaken));
        assert!(TooManyUntaken.to_string().contains("not sent"));
        let mut taken = TakenLines::new();
        assert!(taken.take(0) && !taken.take(0) && !taken.take(2) && taken.take(1));
        terminal.heard(&SaidLines::new(S).alive(&taken));
        // The next line keeps its own number: the refused one took none.
        let Ok(ToConsole::Line { seq, .. }) = terminal.type_line("again", 0) else {
            panic!("room for one")
        };
        assert_eq!(seq, UNTAKEN_LINES as u64);
    }
}
