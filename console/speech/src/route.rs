//! The one place that decides, for each table output, who hears it and what is said.

use kriegspiel_referee::shakmaty::{Board, Color, Role, Square};
use kriegspiel_referee::{Announcement, Lang, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{Output, PrivateMessage};

use crate::words::speakable;

/// One thing to say, to whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utterance {
    pub hearer: Hearer,
    /// Words for the synthesiser (no notation; see [`crate::words::misreading`]).
    pub text: String,
}

/// The official positions seen so far (from the hall's views), to name a player's men.
#[derive(Debug, Clone, Default)]
pub struct Positions {
    boards: Vec<Board>,
}

impl Positions {
    /// How many positions are remembered: enough to name a man captured some moves ago.
    const KEPT: usize = 16;

    /// Records the official position of a table view.
    pub fn record(&mut self, board: &Board) {
        if self.boards.last() == Some(board) {
            return;
        }
        self.boards.push(board.clone());
        if self.boards.len() > Self::KEPT {
            self.boards.remove(0);
        }
    }

    /// The role of `color`'s man on `sq` now.
    pub fn man_now(&self, sq: Square, color: Color) -> Option<Role> {
        let p = self.boards.last()?.piece_at(sq)?;
        (p.color == color).then_some(p.role)
    }

    /// The role of `color`'s man most recently seen on `sq` (a captured man).
    pub fn man_last_seen(&self, sq: Square, color: Color) -> Option<Role> {
        self.boards
            .iter()
            .rev()
            .filter_map(|b| b.piece_at(sq))
            .find(|p| p.color == color)
            .map(|p| p.role)
    }
}

/// Who hears `output` and the words said: public announcements to both players, wild16
/// refusals to the mover alone, private messages to their player alone; nothing for the
/// arbiter's notes, clocks and touch-move breaches (the text channels carry those).
pub fn hear(w: &Wording, lang: Lang, output: &Output, known: &Positions) -> Option<Utterance> {
    // Who hears it: the table's own decision (render::hearer), shared with the players'
    // terminals.
    let hearer = render::hearer(output)?;
    let text = match output {
        Output::Repeated { output } => return hear(w, lang, output, known),
        Output::Started { report } => w.speech(&Announcement::Report(*report)),
        Output::Verdict { verdict, .. } => w.speech(&Announcement::from(*verdict)),
        Output::Reply { reply, .. } => w.speech(&Announcement::Reply(*reply)),
        Output::Public { message } => message.text(lang),
        Output::Private { color, message } => {
            let man = match message {
                PrivateMessage::MustMoveTouched(sq) | PrivateMessage::ManMissing(sq) => {
                    known.man_now(*sq, *color)
                }
                PrivateMessage::RemoveCaptured(sq) => known.man_last_seen(*sq, *color),
                _ => None,
            };
            message.speech(lang, man)
        }
        Output::Arbiter { .. } | Output::Note { .. } | Output::Clock { .. } => return None,
    };
    let text = speakable(lang, &text);
    (!text.trim().is_empty()).then_some(Utterance { hearer, text })
}

/// The public text as [`render::spoken`] gives it (for callers that want the old form).
pub fn public_text(w: &Wording, lang: Lang, output: &Output) -> Option<String> {
    render::spoken(w, lang, output).map(|t| speakable(lang, &t))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use kriegspiel_referee::shakmaty::{Piece, Square};
    use kriegspiel_referee::{Options, Refusal, RefusalKind, RuleSet, Try, Verdict};

    fn start() -> Positions {
        let mut p = Positions::default();
        p.record(&Board::default());
        p
    }

    #[test]
    fn private_words_name_the_man_and_go_to_their_player() {
        let w = Wording::new(RuleSet::Cincinnati, Options::default(), Lang::En);
        let known = start();
        let said = |color, message| {
            hear(&w, Lang::En, &Output::Private { color, message }, &known).unwrap()
        };
        let u = said(Color::White, PrivateMessage::ManMissing(Square::G1));
        assert_eq!(u.hearer, Hearer::Player(Color::White));
        assert_eq!(u.text, "Your knight on gee 1 is missing.");
        let u = said(
            Color::White,
            PrivateMessage::SquareShouldBeEmpty(Square::E4),
        );
        assert_eq!(u.text, "Ee 4 should be empty.");
        let u = said(Color::Black, PrivateMessage::MustMoveTouched(Square::A7));
        assert_eq!(u.hearer, Hearer::Player(Color::Black));
        assert_eq!(u.text, "You touched your pawn on eh 7: move it.");
        // A white man is not Black's: no name.
        let u = said(Color::Black, PrivateMessage::ManMissing(Square::G1));
        assert_eq!(u.text, "A man is missing on gee 1.");
        // A captured man is named from an earlier position.
        let mut known = start();
        let mut b = Board::empty();
        b.set_piece_at(
            Square::D1,
            Piece {
                color: Color::White,
                role: kriegspiel_referee::shakmaty::Role::Queen,
            },
        );
        known.record(&b);
        known.record(&Board::empty());
        let u = hear(
            &w,
            Lang::En,
            &Output::Private {
                color: Color::White,
                message: PrivateMessage::RemoveCaptured(Square::D1),
            },
            &known,
        )
        .unwrap();
        assert_eq!(
            u.text,
            "Your queen on dee 1 was captured: take it off your board."
        );
        let ru = Wording::new(RuleSet::Cincinnati, Options::default(), Lang::Ru);
        let u = hear(
            &ru,
            Lang::Ru,
            &Output::Private {
                color: Color::White,
                message: PrivateMessage::ManMissing(Square::G1),
            },
            &start(),
        )
        .unwrap();
        assert_eq!(u.text, "На поле же 1 не хватает коня.");
    }

    #[test]
    fn refusals_are_heard_as_the_rules_say() {
        for (rules, hearer) in [
            (RuleSet::Wild16, Hearer::Player(Color::Black)),
            (RuleSet::Cincinnati, Hearer::Both),
        ] {
            let w = Wording::new(rules, Options::default(), Lang::En);
            let o = Output::Verdict {
                color: Color::Black,
                tried: Try::new(Square::E7, Square::E4),
                verdict: Verdict::Refused(Refusal {
                    rules,
                    kind: RefusalKind::Impossible,
                    mover: Color::Black,
                }),
            };
            assert_eq!(hear(&w, Lang::En, &o, &start()).unwrap().hearer, hearer);
        }
    }
}
