//! What the table says or decides, in order, and the words of its private messages.

use kriegspiel_referee::{Lang, Question, Reply, Report, Try, Verdict, Wording};
use shakmaty::{ByColor, Color, Role, Square};

use crate::game::{ArbiterNote, PublicMessage};
use crate::Millis;

/// What the table says or decides, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// The start of the game (the referee's `new` report).
    Started { report: Report },
    /// A try was completed and adjudicated; the verdict carries its own audience.
    Verdict {
        color: Color,
        tried: Try,
        verdict: Verdict,
    },
    /// A question was answered.
    Reply {
        color: Color,
        question: Question,
        reply: Reply,
    },
    /// Private to one player (and shown to the arbiter): reminders, guidance, prompts.
    Private {
        color: Color,
        message: PrivateMessage,
    },
    /// For the arbiter only, never for a player: touch-move breaches in `warn` mode.
    Arbiter {
        color: Color,
        message: PrivateMessage,
    },
    /// Said aloud to both players: arbiter actions, resignations, results, board mix-ups.
    Public { message: PublicMessage },
    /// For the arbiter only, about the table: refused actions, restarts.
    Note { note: ArbiterNote },
    /// The arbiter's "repeat": the last announcement heard by both, said again. Kept apart
    /// so that no reader takes it for a new move.
    Repeated { output: Box<Output> },
    /// The clocks after a change (a move that stood, a pause, a correction).
    Clock {
        remaining: ByColor<Millis>,
        running: Option<Color>,
    },
}

/// A message for one player (or about him, for the arbiter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivateMessage {
    /// Strict touch-move: the try was made with another man and was not adjudicated.
    MustMoveTouched(Square),
    /// Warn touch-move: the man on `touched` was touched, the try was made from `moved`.
    TouchMoveIgnored { touched: Square, moved: Square },
    /// Guidance: an occupied square that should be empty.
    SquareShouldBeEmpty(Square),
    /// Guidance: an official square of his men that the board sees empty.
    ManMissing(Square),
    /// Guidance: his man captured there is still on his board.
    RemoveCaptured(Square),
    /// The piece he chose for his next promotion.
    PromotionChoice(Role),
    /// A promotion choice of a pawn or a king: refused.
    BadPromotionChoice(Role),
    /// His board is in sync again after guidance.
    BackInSync,
    /// A question asked while the opponent is to move.
    NotYourTurn,
    /// A question or a try after the end of the game.
    GameOver,
    /// A try by keys or voice while the arbiter has paused the game.
    GamePaused,
    /// The referee refused the request for another reason (kept for the arbiter).
    RefereeError(kriegspiel_referee::Error),
    /// His clock has passed this many seconds left.
    LowTime(u64),
    /// A draw offer made while none is open is an offer; this one had nothing to accept.
    NothingToAccept,
}

impl PrivateMessage {
    /// The message's protocol id (trace files, logs).
    pub const fn id(&self) -> &'static str {
        match self {
            PrivateMessage::MustMoveTouched(_) => "must-move-touched",
            PrivateMessage::TouchMoveIgnored { .. } => "touch-move-ignored",
            PrivateMessage::SquareShouldBeEmpty(_) => "square-should-be-empty",
            PrivateMessage::ManMissing(_) => "man-missing",
            PrivateMessage::RemoveCaptured(_) => "remove-captured",
            PrivateMessage::PromotionChoice(_) => "promotion-choice",
            PrivateMessage::BadPromotionChoice(_) => "bad-promotion-choice",
            PrivateMessage::BackInSync => "back-in-sync",
            PrivateMessage::NotYourTurn => "not-your-turn",
            PrivateMessage::GameOver => "game-over",
            PrivateMessage::GamePaused => "game-paused",
            PrivateMessage::RefereeError(_) => "referee-error",
            PrivateMessage::LowTime(_) => "low-time",
            PrivateMessage::NothingToAccept => "nothing-to-accept",
        }
    }

    /// The message's arguments as words (squares, piece letters), for trace files.
    pub fn args(&self) -> Vec<String> {
        match self {
            PrivateMessage::MustMoveTouched(sq)
            | PrivateMessage::SquareShouldBeEmpty(sq)
            | PrivateMessage::ManMissing(sq)
            | PrivateMessage::RemoveCaptured(sq) => vec![sq.to_string()],
            PrivateMessage::TouchMoveIgnored { touched, moved } => {
                vec![touched.to_string(), moved.to_string()]
            }
            PrivateMessage::PromotionChoice(role) | PrivateMessage::BadPromotionChoice(role) => {
                vec![role.char().to_string()]
            }
            PrivateMessage::BackInSync
            | PrivateMessage::NotYourTurn
            | PrivateMessage::GameOver
            | PrivateMessage::GamePaused
            | PrivateMessage::NothingToAccept => Vec::new(),
            PrivateMessage::LowTime(s) => vec![s.to_string()],
            PrivateMessage::RefereeError(e) => vec![e.code().to_owned()],
        }
    }

    /// The words shown (and spoken privately) to the player, in the table's language.
    pub fn text(&self, lang: Lang) -> String {
        match (self, lang) {
            (PrivateMessage::MustMoveTouched(sq), Lang::En) => {
                format!("You touched the man on {sq}: your try must be made with it.")
            }
            (PrivateMessage::MustMoveTouched(sq), Lang::Fr) => {
                format!("Pièce touchée en {sq} : vous devez jouer cette pièce.")
            }
            (PrivateMessage::MustMoveTouched(sq), Lang::Ru) => {
                format!("Вы тронули фигуру на поле {sq}: ходите этой фигурой.")
            }
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::En) => {
                format!(
                    "Touch-move: the man on {touched} was touched, the man on {moved} was tried."
                )
            }
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::Fr) => format!(
                "Pièce touchée : la pièce en {touched} a été touchée, celle en {moved} a été jouée."
            ),
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::Ru) => format!(
                "Взялся — ходи: тронута фигура на поле {touched}, ход сделан с поля {moved}."
            ),
            (PrivateMessage::SquareShouldBeEmpty(sq), Lang::En) => format!("{sq} should be empty."),
            (PrivateMessage::SquareShouldBeEmpty(sq), Lang::Fr) => {
                format!("La case {sq} doit être vide.")
            }
            (PrivateMessage::SquareShouldBeEmpty(sq), Lang::Ru) => {
                format!("Поле {sq} должно быть пустым.")
            }
            (PrivateMessage::ManMissing(sq), Lang::En) => format!("A man is missing on {sq}."),
            (PrivateMessage::ManMissing(sq), Lang::Fr) => format!("Il manque une pièce en {sq}."),
            (PrivateMessage::ManMissing(sq), Lang::Ru) => {
                format!("На поле {sq} не хватает фигуры.")
            }
            (PrivateMessage::RemoveCaptured(sq), Lang::En) => {
                format!("Remove your captured man from {sq}.")
            }
            (PrivateMessage::RemoveCaptured(sq), Lang::Fr) => {
                format!("Retirez votre pièce prise en {sq}.")
            }
            (PrivateMessage::RemoveCaptured(sq), Lang::Ru) => {
                format!("Уберите свою взятую фигуру с поля {sq}.")
            }
            (PrivateMessage::PromotionChoice(role), lang) => match lang {
                Lang::En => format!("Your next promotion: {}.", role_name(*role, lang)),
                Lang::Fr => format!("Votre prochaine promotion : {}.", role_name(*role, lang)),
                Lang::Ru => format!("Следующее превращение: {}.", role_name(*role, lang)),
            },
            (PrivateMessage::BadPromotionChoice(_), Lang::En) => {
                "A pawn promotes to a queen, a rook, a bishop or a knight only.".to_owned()
            }
            (PrivateMessage::BadPromotionChoice(_), Lang::Fr) => {
                "Un pion se promeut seulement en dame, tour, fou ou cavalier.".to_owned()
            }
            (PrivateMessage::BadPromotionChoice(_), Lang::Ru) => {
                "Пешка превращается только в ферзя, ладью, слона или коня.".to_owned()
            }
            (PrivateMessage::BackInSync, Lang::En) => "Your board is in order again.".to_owned(),
            (PrivateMessage::BackInSync, Lang::Fr) => {
                "Votre échiquier est de nouveau en ordre.".to_owned()
            }
            (PrivateMessage::BackInSync, Lang::Ru) => "Ваша доска снова в порядке.".to_owned(),
            (PrivateMessage::NotYourTurn, Lang::En) => "It is not your turn.".to_owned(),
            (PrivateMessage::NotYourTurn, Lang::Fr) => "Ce n'est pas votre tour.".to_owned(),
            (PrivateMessage::NotYourTurn, Lang::Ru) => "Сейчас не ваш ход.".to_owned(),
            (PrivateMessage::GameOver, Lang::En) => "The game is over.".to_owned(),
            (PrivateMessage::GameOver, Lang::Fr) => "La partie est terminée.".to_owned(),
            (PrivateMessage::GameOver, Lang::Ru) => "Партия окончена.".to_owned(),
            (PrivateMessage::GamePaused, Lang::En) => {
                "The game is paused: wait for the arbiter.".to_owned()
            }
            (PrivateMessage::GamePaused, Lang::Fr) => {
                "La partie est interrompue : attendez l'arbitre.".to_owned()
            }
            (PrivateMessage::GamePaused, Lang::Ru) => {
                "Партия остановлена: дождитесь арбитра.".to_owned()
            }
            (PrivateMessage::RefereeError(e), Lang::En) => format!("The referee refused: {e}."),
            (PrivateMessage::RefereeError(e), Lang::Fr) => format!("L'arbitre refuse : {e}."),
            (PrivateMessage::RefereeError(e), Lang::Ru) => format!("Судья отказал: {e}."),
            (PrivateMessage::LowTime(s), Lang::En) => format!("{s} seconds left on your clock."),
            (PrivateMessage::LowTime(s), Lang::Fr) => {
                format!("Il vous reste {s} secondes à la pendule.")
            }
            (PrivateMessage::LowTime(s), Lang::Ru) => {
                format!("На ваших часах осталось {s} секунд.")
            }
            (PrivateMessage::NothingToAccept, Lang::En) => {
                "There is no draw offer to accept.".to_owned()
            }
            (PrivateMessage::NothingToAccept, Lang::Fr) => {
                "Il n'y a pas de proposition de nulle à accepter.".to_owned()
            }
            (PrivateMessage::NothingToAccept, Lang::Ru) => "Ничья не предлагалась.".to_owned(),
        }
    }
}

impl PrivateMessage {
    /// The words spoken into the player's own ear: phrased for a listener, squares as
    /// words ([`Wording::spoken_square`]), and the man named when the official
    /// position knows it (`man`: the role of his man on the message's square, or of the man
    /// captured there). [`PrivateMessage::text`] stays the written form.
    pub fn speech(&self, lang: Lang, man: Option<Role>) -> String {
        let sq = |s: Square| Wording::spoken_square(lang, s);
        match (self, lang) {
            (PrivateMessage::MustMoveTouched(s), Lang::En) => match man {
                Some(r) => format!(
                    "You touched your {} on {}: move it.",
                    role_name(r, lang),
                    sq(*s)
                ),
                None => format!("You touched the man on {}: move it.", sq(*s)),
            },
            (PrivateMessage::MustMoveTouched(s), Lang::Fr) => match man {
                Some(r) => format!(
                    "Vous avez touché votre {} en {} : jouez cette pièce.",
                    role_name(r, lang),
                    sq(*s)
                ),
                None => format!(
                    "Vous avez touché la pièce en {} : jouez cette pièce.",
                    sq(*s)
                ),
            },
            (PrivateMessage::MustMoveTouched(s), Lang::Ru) => match man {
                Some(r) => format!(
                    "Вы тронули {} на поле {}: ходите этой фигурой.",
                    ru_forms(r).0,
                    sq(*s)
                ),
                None => format!("Вы тронули фигуру на поле {}: ходите этой фигурой.", sq(*s)),
            },
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::En) => format!(
                "Touch move: the man on {} was touched, the man on {} was tried.",
                sq(*touched),
                sq(*moved)
            ),
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::Fr) => format!(
                "Pièce touchée : la pièce en {} a été touchée, celle en {} a été jouée.",
                sq(*touched),
                sq(*moved)
            ),
            (PrivateMessage::TouchMoveIgnored { touched, moved }, Lang::Ru) => format!(
                "Взялся — ходи: тронута фигура на поле {}, ход сделан с поля {}.",
                sq(*touched),
                sq(*moved)
            ),
            (PrivateMessage::SquareShouldBeEmpty(s), Lang::En) => {
                format!("{} should be empty.", capitalised(&sq(*s)))
            }
            (PrivateMessage::SquareShouldBeEmpty(s), Lang::Fr) => {
                format!("La case {} doit être vide.", sq(*s))
            }
            (PrivateMessage::SquareShouldBeEmpty(s), Lang::Ru) => {
                format!("Поле {} должно быть пустым.", sq(*s))
            }
            (PrivateMessage::ManMissing(s), Lang::En) => match man {
                Some(r) => format!("Your {} on {} is missing.", role_name(r, lang), sq(*s)),
                None => format!("A man is missing on {}.", sq(*s)),
            },
            (PrivateMessage::ManMissing(s), Lang::Fr) => match man {
                Some(r) => format!("Il manque votre {} en {}.", role_name(r, lang), sq(*s)),
                None => format!("Il manque une pièce en {}.", sq(*s)),
            },
            (PrivateMessage::ManMissing(s), Lang::Ru) => match man {
                Some(r) => format!("На поле {} не хватает {}.", sq(*s), ru_forms(r).1),
                None => format!("На поле {} не хватает фигуры.", sq(*s)),
            },
            (PrivateMessage::RemoveCaptured(s), Lang::En) => match man {
                Some(r) => format!(
                    "Your {} on {} was captured: take it off your board.",
                    role_name(r, lang),
                    sq(*s)
                ),
                None => format!("Remove your captured man from {}.", sq(*s)),
            },
            (PrivateMessage::RemoveCaptured(s), Lang::Fr) => match man {
                Some(r) => format!(
                    "Votre {} en {} a été pris : retirez-le de l'échiquier.",
                    role_name(r, lang),
                    sq(*s)
                ),
                None => format!("Retirez votre pièce prise en {}.", sq(*s)),
            },
            (PrivateMessage::RemoveCaptured(s), Lang::Ru) => match man {
                Some(r) => format!(
                    "Уберите с поля {} взятую фигуру: {}.",
                    sq(*s),
                    role_name(r, lang)
                ),
                None => format!("Уберите свою взятую фигуру с поля {}.", sq(*s)),
            },
            (PrivateMessage::RefereeError(_), Lang::En) => "The referee refused that.".to_owned(),
            (PrivateMessage::RefereeError(_), Lang::Fr) => "L'arbitre refuse.".to_owned(),
            (PrivateMessage::RefereeError(_), Lang::Ru) => "Судья отказал.".to_owned(),
            (
                PrivateMessage::PromotionChoice(_)
                | PrivateMessage::BadPromotionChoice(_)
                | PrivateMessage::BackInSync
                | PrivateMessage::NotYourTurn
                | PrivateMessage::GameOver
                | PrivateMessage::GamePaused
                | PrivateMessage::LowTime(_)
                | PrivateMessage::NothingToAccept,
                _,
            ) => self.text(lang),
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A Russian man's name in the accusative and the genitive.
fn ru_forms(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::Queen => ("ферзя", "ферзя"),
        Role::Rook => ("ладью", "ладьи"),
        Role::Bishop => ("слона", "слона"),
        Role::Knight => ("коня", "коня"),
        Role::King => ("короля", "короля"),
        Role::Pawn => ("пешку", "пешки"),
    }
}

/// The name of a kind of man in the table's language (lower case).
pub fn role_name(role: Role, lang: Lang) -> &'static str {
    match (role, lang) {
        (Role::Queen, Lang::En) => "queen",
        (Role::Rook, Lang::En) => "rook",
        (Role::Bishop, Lang::En) => "bishop",
        (Role::Knight, Lang::En) => "knight",
        (Role::King, Lang::En) => "king",
        (Role::Pawn, Lang::En) => "pawn",
        (Role::Queen, Lang::Fr) => "dame",
        (Role::Rook, Lang::Fr) => "tour",
        (Role::Bishop, Lang::Fr) => "fou",
        (Role::Knight, Lang::Fr) => "cavalier",
        (Role::King, Lang::Fr) => "roi",
        (Role::Pawn, Lang::Fr) => "pion",
        (Role::Queen, Lang::Ru) => "ферзь",
        (Role::Rook, Lang::Ru) => "ладья",
        (Role::Bishop, Lang::Ru) => "слон",
        (Role::Knight, Lang::Ru) => "конь",
        (Role::King, Lang::Ru) => "король",
        (Role::Pawn, Lang::Ru) => "пешка",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_has_words_in_every_language() {
        let messages = [
            PrivateMessage::MustMoveTouched(Square::G1),
            PrivateMessage::TouchMoveIgnored {
                touched: Square::G1,
                moved: Square::E2,
            },
            PrivateMessage::SquareShouldBeEmpty(Square::E4),
            PrivateMessage::ManMissing(Square::G1),
            PrivateMessage::RemoveCaptured(Square::E5),
            PrivateMessage::PromotionChoice(Role::Knight),
            PrivateMessage::BadPromotionChoice(Role::King),
            PrivateMessage::BackInSync,
            PrivateMessage::NotYourTurn,
            PrivateMessage::GameOver,
            PrivateMessage::RefereeError(kriegspiel_referee::Error::GameOver),
            PrivateMessage::LowTime(60),
            PrivateMessage::NothingToAccept,
            PrivateMessage::GamePaused,
        ];
        for m in &messages {
            let [en, fr, ru] = [Lang::En, Lang::Fr, Lang::Ru].map(|l| m.text(l));
            assert!(!en.is_empty() && !fr.is_empty() && !ru.is_empty(), "{m:?}");
            assert!(
                en != fr && en != ru && fr != ru,
                "{m:?}: {en} / {fr} / {ru}"
            );
            for sq in m.args().iter().filter(|a| a.len() == 2) {
                for text in [&en, &fr, &ru] {
                    assert!(text.contains(sq.as_str()), "{m:?}: '{text}' lacks {sq}");
                }
            }
        }
        let ids: std::collections::BTreeSet<_> = messages.iter().map(PrivateMessage::id).collect();
        assert_eq!(ids.len(), messages.len());
    }
}
