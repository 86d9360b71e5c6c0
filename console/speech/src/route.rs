//! The one place that decides, for each table output, who hears it and what is said.

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Board, Color, Role, Square};
use kriegspiel_referee::{Announcement, Audience, Lang, Wording};
use kriegspiel_table::{render, Output, PrivateMessage};

use crate::words::speakable;

/// Who may hear an utterance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hearer {
    /// Both players: the room speaker (and the headsets, when configured).
    Public,
    /// One player only: his own headset, never a public output.
    Player(Color),
}

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

    /// Records the official position of a table view (its FEN); a bad FEN is ignored.
    pub fn record_fen(&mut self, fen: &str) {
        if let Ok(f) = fen.parse::<Fen>() {
            let board = f.into_setup().board;
            if self.boards.last() != Some(&board) {
                self.boards.push(board);
                if self.boards.len() > Self::KEPT {
                    self.boards.remove(0);
                }
            }
        }
    }

    /// Records a position directly.
    pub fn record(&mut self, board: Board) {
        self.boards.push(board);
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
    let announced = |a: Announcement| {
        let hearer = match a.audience() {
            Audience::Both => Hearer::Public,
            Audience::Mover(c) | Audience::Private(c) => Hearer::Player(c),
        };
        (hearer, w.speech(&a))
    };
    let (hearer, text) = match output {
        Output::Started { report } => announced(Announcement::Report(*report)),
        Output::Verdict { verdict, .. } => announced(Announcement::from(*verdict)),
        Output::Reply { reply, .. } => announced(Announcement::Reply(*reply)),
        Output::Public { message } => (Hearer::Public, message.text(lang)),
        Output::Private { color, message } => {
            let man = match message {
                PrivateMessage::MustMoveTouched(sq) | PrivateMessage::ManMissing(sq) => {
                    known.man_now(*sq, *color)
                }
                PrivateMessage::RemoveCaptured(sq) => known.man_last_seen(*sq, *color),
                _ => None,
            };
            (Hearer::Player(*color), message.speech(lang, man))
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
