//! [`VoiceChannel`]: one player's voice channel as a pure state machine (time passed in).
//! Every recognised try is echoed privately and waits; only "confirm" submits it as
//! `Input::Play`, "cancel" drops it, and a new try replaces it. Resigning and offering a
//! draw wait for "confirm" the same way (a misheard word must never end a game). Questions and
//! the promotion piece go to the hall at once when heard surely, and are read back like a try
//! when heard faintly ([`Heard::Unsure`]); "repeat" and "my men" are requests to the
//! player's own channel, returned for the front end. Whatever is heard while the console
//! speaks to this player is ignored ([`VoiceChannel::muted`]): the console's own voice in his
//! headset must not be taken for his.

use kriegspiel_referee::Try;
use kriegspiel_table::{Input, Millis};
use shakmaty::{Color, Role};

use crate::grammar::{Command, Heard, TurnGrammar};
use crate::words::role_word;

/// What the player's channel does with one recognition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Say this to the player alone and wait for "confirm" or "cancel".
    Echo(String),
    /// Send this input to the hall (`HallHandle::input`).
    Submit(Input),
    /// What waited (a try, a resignation, a draw offer, a faint command) was dropped: say so.
    Cancelled,
    /// "confirm" or "cancel" with nothing waiting.
    NothingPending,
    /// "repeat": say the last message to this player again.
    Repeat,
    /// "my men": tell this player where his men stand.
    MyMen,
    /// Not a try possible on his own board, nor a command: ask him to say it again.
    NotUnderstood,
    /// Heard while the console was speaking to him: dropped without a word.
    Ignored,
}

/// What waits for "confirm".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    Try(Try),
    Resign,
    Draw,
    /// A command heard too faintly to act on at once ([`Heard::Unsure`]).
    Command(Command),
}

#[derive(Debug, Clone)]
pub struct VoiceChannel {
    color: Color,
    pending: Option<Pending>,
    muted_until: Millis,
}

impl VoiceChannel {
    pub fn new(color: Color) -> VoiceChannel {
        VoiceChannel {
            color,
            pending: None,
            muted_until: 0,
        }
    }

    pub fn color(&self) -> Color {
        self.color
    }

    pub fn pending(&self) -> Option<Pending> {
        self.pending
    }

    /// The console speaks to this player until `until` (table time): ignore him till then.
    pub fn muted(&mut self, until: Millis) {
        self.muted_until = self.muted_until.max(until);
    }

    /// Drops whatever waits (the turn changed; the grammar it was heard with is stale).
    pub fn clear(&mut self) {
        self.pending = None;
    }

    /// "confirm", said or keyed (Enter): what waits goes to the hall.
    pub fn confirm(&mut self) -> Outcome {
        let color = self.color;
        match self.pending.take() {
            Some(Pending::Try(tried)) => Outcome::Submit(Input::Play { color, tried }),
            Some(Pending::Resign) => Outcome::Submit(Input::Resign { color }),
            Some(Pending::Draw) => Outcome::Submit(Input::Draw { color }),
            Some(Pending::Command(c)) => self.act(c),
            None => Outcome::NothingPending,
        }
    }

    /// "cancel", said or keyed (Escape): what waits is dropped.
    pub fn cancel(&mut self) -> Outcome {
        match self.pending.take() {
            Some(_) => Outcome::Cancelled,
            None => Outcome::NothingPending,
        }
    }

    /// One recognition at table time `at`, heard with this turn's `grammar` (for the echo's
    /// wording).
    pub fn heard(&mut self, at: Millis, grammar: &TurnGrammar, heard: Heard) -> Outcome {
        if at < self.muted_until {
            return Outcome::Ignored;
        }
        match heard {
            Heard::Rejected => Outcome::NotUnderstood,
            Heard::Try(t) => {
                self.pending = Some(Pending::Try(t));
                Outcome::Echo(echo(grammar.man(t), t))
            }
            Heard::Command(c) => {
                // A command said surely replaces a faint one read back (he said it again,
                // or said another): Space must not carry out the old one later.
                if matches!(self.pending, Some(Pending::Command(_)))
                    && !matches!(c, Command::Confirm | Command::Cancel)
                {
                    self.pending = None;
                }
                self.act(c)
            }
            // What waits stays: a faint word must not drop what was read back.
            Heard::Unsure(_) if self.pending.is_some() => Outcome::NotUnderstood,
            // Never made by the recogniser: an answer too faint is no answer.
            Heard::Unsure(Command::Confirm | Command::Cancel) => Outcome::NotUnderstood,
            Heard::Unsure(c @ (Command::Resign | Command::OfferDraw)) => self.act(c),
            Heard::Unsure(c) => self.wait(Pending::Command(c)),
        }
    }

    /// `pending` now waits for "confirm": read it back.
    fn wait(&mut self, pending: Pending) -> Outcome {
        self.pending = Some(pending);
        Outcome::Echo(read_back(pending))
    }

    /// What a command heard surely (or confirmed) does.
    fn act(&mut self, c: Command) -> Outcome {
        let color = self.color;
        match c {
            Command::Confirm => self.confirm(),
            Command::Cancel => self.cancel(),
            Command::Resign => self.wait(Pending::Resign),
            Command::OfferDraw => self.wait(Pending::Draw),
            Command::Promote(role) => Outcome::Submit(Input::Promote { color, role }),
            Command::Any | Command::Rebuffs => match c.question() {
                Some(question) => Outcome::Submit(Input::Ask { color, question }),
                None => Outcome::NotUnderstood,
            },
            Command::Repeat => Outcome::Repeat,
            Command::MyMen => Outcome::MyMen,
        }
    }
}

/// What the player hears read back for what waits, but a try ([`echo`], which needs the man):
/// "resign?", "offer a draw?", "any?", "promote to rook?".
fn read_back(pending: Pending) -> String {
    match pending {
        Pending::Try(t) => echo(None, t),
        Pending::Resign => "resign?".into(),
        Pending::Draw => "offer a draw?".into(),
        Pending::Command(Command::Promote(role)) => format!("promote to {}?", role_word(role)),
        Pending::Command(c) => format!("{}?", c.words()),
    }
}

/// "knight g1 to f3?", "pawn b7 to b8, knight?".
pub fn echo(man: Option<Role>, t: Try) -> String {
    let mut s = String::new();
    if let Some(role) = man {
        s.push_str(role_word(role));
        s.push(' ');
    }
    s.push_str(&format!("{} to {}", t.from, t.to));
    if let Some(p) = t.promotion {
        s.push_str(", ");
        s.push_str(role_word(p));
    }
    s.push('?');
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kriegspiel_referee::Question;
    use shakmaty::{Chess, Square};

    fn g() -> TurnGrammar {
        TurnGrammar::new(&Chess::default(), Color::White)
    }

    #[test]
    fn a_try_is_echoed_and_submitted_only_on_confirm() {
        let g = g();
        let mut ch = VoiceChannel::new(Color::White);
        let nf3 = Try::new(Square::G1, Square::F3);
        assert_eq!(
            ch.heard(0, &g, Heard::Try(nf3)),
            Outcome::Echo("knight g1 to f3?".into())
        );
        assert_eq!(
            ch.heard(10, &g, Heard::Command(Command::Confirm)),
            Outcome::Submit(Input::Play {
                color: Color::White,
                tried: nf3
            })
        );
        assert_eq!(
            ch.heard(20, &g, Heard::Command(Command::Confirm)),
            Outcome::NothingPending
        );
        ch.heard(30, &g, Heard::Try(nf3));
        assert_eq!(
            ch.heard(40, &g, Heard::Command(Command::Cancel)),
            Outcome::Cancelled
        );
        assert_eq!(
            ch.heard(50, &g, Heard::Command(Command::Confirm)),
            Outcome::NothingPending
        );
    }

    #[test]
    fn muted_while_the_console_speaks() {
        let g = g();
        let mut ch = VoiceChannel::new(Color::White);
        ch.heard(0, &g, Heard::Try(Try::new(Square::E2, Square::E4)));
        ch.muted(1000);
        assert_eq!(
            ch.heard(500, &g, Heard::Command(Command::Confirm)),
            Outcome::Ignored
        );
        assert_eq!(
            ch.heard(999, &g, Heard::Command(Command::Any)),
            Outcome::Ignored
        );
        assert!(matches!(
            ch.heard(1000, &g, Heard::Command(Command::Confirm)),
            Outcome::Submit(_)
        ));
    }

    #[test]
    fn commands_map_to_inputs_and_requests() {
        let g = g();
        let w = Color::White;
        let mut ch = VoiceChannel::new(w);
        let mut say = |c| ch.heard(0, &g, Heard::Command(c));
        assert_eq!(
            say(Command::Any),
            Outcome::Submit(Input::Ask {
                color: w,
                question: Question::Any
            })
        );
        assert_eq!(
            say(Command::Rebuffs),
            Outcome::Submit(Input::Ask {
                color: w,
                question: Question::Rebuffs
            })
        );
        assert_eq!(
            say(Command::Promote(Role::Knight)),
            Outcome::Submit(Input::Promote {
                color: w,
                role: Role::Knight
            })
        );
        assert_eq!(say(Command::Repeat), Outcome::Repeat);
        assert_eq!(say(Command::MyMen), Outcome::MyMen);
        assert_eq!(say(Command::Resign), Outcome::Echo("resign?".into()));
        assert_eq!(
            say(Command::Confirm),
            Outcome::Submit(Input::Resign { color: w })
        );
        assert_eq!(
            say(Command::OfferDraw),
            Outcome::Echo("offer a draw?".into())
        );
        assert_eq!(
            say(Command::Confirm),
            Outcome::Submit(Input::Draw { color: w })
        );
        assert_eq!(ch.heard(0, &g, Heard::Rejected), Outcome::NotUnderstood);
    }

    #[test]
    fn a_faint_command_is_read_back_and_never_drops_what_waits() {
        let g = g();
        let w = Color::White;
        let mut ch = VoiceChannel::new(w);
        assert_eq!(
            ch.heard(0, &g, Heard::Unsure(Command::Any)),
            Outcome::Echo("any?".into())
        );
        assert_eq!(ch.pending(), Some(Pending::Command(Command::Any)));
        assert_eq!(
            ch.confirm(),
            Outcome::Submit(Input::Ask {
                color: w,
                question: Question::Any
            })
        );
        assert_eq!(
            ch.heard(0, &g, Heard::Unsure(Command::Promote(Role::Rook))),
            Outcome::Echo("promote to rook?".into())
        );
        assert_eq!(ch.cancel(), Outcome::Cancelled);
        assert_eq!(
            ch.heard(0, &g, Heard::Unsure(Command::MyMen)),
            Outcome::Echo("my men?".into())
        );
        assert_eq!(
            ch.heard(0, &g, Heard::Command(Command::Confirm)),
            Outcome::MyMen
        );
        // Said surely, a command replaces the faint one read back: Space does nothing after.
        ch.heard(0, &g, Heard::Unsure(Command::Promote(Role::Rook)));
        assert_eq!(
            ch.heard(0, &g, Heard::Command(Command::Promote(Role::Queen))),
            Outcome::Submit(Input::Promote {
                color: w,
                role: Role::Queen
            })
        );
        assert_eq!(ch.confirm(), Outcome::NothingPending);
        // A try read back stays read back.
        let nf3 = Try::new(Square::G1, Square::F3);
        ch.heard(0, &g, Heard::Try(nf3));
        for c in [Command::Any, Command::Resign, Command::Repeat] {
            assert_eq!(ch.heard(0, &g, Heard::Unsure(c)), Outcome::NotUnderstood);
        }
        assert_eq!(
            ch.confirm(),
            Outcome::Submit(Input::Play {
                color: w,
                tried: nf3
            })
        );
        // Resigning is read back whether heard surely or not.
        assert_eq!(
            ch.heard(0, &g, Heard::Unsure(Command::Resign)),
            Outcome::Echo("resign?".into())
        );
        assert_eq!(ch.cancel(), Outcome::Cancelled);
        // An answer is never taken faintly.
        for c in [Command::Confirm, Command::Cancel] {
            assert_eq!(ch.heard(0, &g, Heard::Unsure(c)), Outcome::NotUnderstood);
            assert_eq!(ch.pending(), None);
        }
    }

    /// Over random sequences: every `Input::Play` answers a "confirm" and carries the try
    /// echoed last, with no "cancel", resignation or draw offer in between.
    #[test]
    fn no_try_without_confirmation() {
        let g = g();
        let tries: Vec<Try> = g.tries().collect();
        let mut seed: u64 = 5;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        for _ in 0..200 {
            let mut ch = VoiceChannel::new(Color::White);
            let mut last_echoed: Option<Try> = None;
            for step in 0..50u64 {
                let heard = match next(5) {
                    0 => Heard::Rejected,
                    1 => Heard::Try(tries[next(tries.len())]),
                    2 => Heard::Unsure(Command::ALL[next(Command::ALL.len())]),
                    _ => Heard::Command(Command::ALL[next(Command::ALL.len())]),
                };
                if next(10) == 0 {
                    ch.muted(step * 10 + 15);
                }
                let out = ch.heard(step * 10, &g, heard);
                match (&out, heard) {
                    (Outcome::Ignored, _) => {}
                    (
                        Outcome::Submit(Input::Play { tried, .. }),
                        Heard::Command(Command::Confirm),
                    ) => {
                        assert_eq!(Some(*tried), last_echoed.take());
                    }
                    (Outcome::Submit(Input::Play { .. }), _) => panic!("a try without confirm"),
                    (Outcome::Submit(input), Heard::Unsure(_)) => {
                        panic!("a faint command acted on at once: {input:?}")
                    }
                    (Outcome::Echo(_), Heard::Try(t)) => last_echoed = Some(t),
                    (
                        _,
                        Heard::Command(
                            Command::Cancel
                            | Command::Confirm
                            | Command::Resign
                            | Command::OfferDraw,
                        ),
                    ) => last_echoed = None,
                    _ => {}
                }
            }
        }
    }
}
