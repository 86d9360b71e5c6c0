//! What the arbiter and the players can do besides tries, how a game ends at the table, and
//! the public words for both.

use kriegspiel_referee::{GameResult, Lang};
use shakmaty::{Color, Piece, Square};

use crate::Millis;

/// The longest reason an arbiter may give (adjudication, void); longer ones are cut.
pub const MAX_REASON: usize = 200;

/// An arbiter's action: journaled and replayed like a sensor event.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArbiterAction {
    /// Stops the clock; no try is adjudicated until `Resume`.
    Pause,
    Resume,
    /// Corrects the official position: a man on a square.
    Put {
        square: Square,
        piece: Piece,
    },
    /// Corrects the official position: that square empty.
    Remove {
        square: Square,
    },
    /// Corrects the official position as a whole.
    SetPosition {
        fen: String,
    },
    /// Takes back the last move that stood.
    TakeBack,
    /// Ends the game with this result.
    Adjudicate {
        result: GameResult,
        reason: String,
    },
    /// Ends the game without a result.
    Void {
        reason: String,
    },
    /// Says the last public announcement again.
    Repeat,
    /// Starts the clocks of a timed game that waits for them.
    StartClocks,
    /// The round starts: the clocks start if they wait; a table whose clocks run, or that
    /// has none, lets it pass without a word (`start all` reaches every table).
    StartAll,
}

impl ArbiterAction {
    /// The action's id (trace files, JSON lines, the journal).
    pub const fn id(&self) -> &'static str {
        match self {
            ArbiterAction::Pause => "pause",
            ArbiterAction::Resume => "resume",
            ArbiterAction::Put { .. } => "put",
            ArbiterAction::Remove { .. } => "remove",
            ArbiterAction::SetPosition { .. } => "fen",
            ArbiterAction::TakeBack => "takeback",
            ArbiterAction::Adjudicate { .. } => "adjudicate",
            ArbiterAction::Void { .. } => "void",
            ArbiterAction::Repeat => "repeat",
            ArbiterAction::StartClocks => "start",
            ArbiterAction::StartAll => "start-all",
        }
    }
}

/// How a game ended at the table, besides the referee's own endings (mate, stalemate, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Termination {
    Resignation(Color),
    /// That side's flag fell.
    TimeForfeit(Color),
    DrawAgreed,
    Adjudication {
        reason: String,
    },
    Voided {
        reason: String,
    },
}

impl Termination {
    /// The PGN `Termination` tag value.
    pub const fn pgn(&self) -> &'static str {
        match self {
            Termination::Resignation(_) | Termination::DrawAgreed => "normal",
            Termination::TimeForfeit(_) => "time forfeit",
            Termination::Adjudication { .. } => "adjudication",
            Termination::Voided { .. } => "abandoned",
        }
    }

    pub const fn id(&self) -> &'static str {
        match self {
            Termination::Resignation(_) => "resignation",
            Termination::TimeForfeit(_) => "time-forfeit",
            Termination::DrawAgreed => "draw-agreed",
            Termination::Adjudication { .. } => "adjudication",
            Termination::Voided { .. } => "voided",
        }
    }
}

/// The end of a game decided at the table; `None` result: voided.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableEnd {
    pub result: Option<GameResult>,
    pub termination: Termination,
}

/// Said aloud to both players (and shown to the arbiter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublicMessage {
    Paused,
    Resumed,
    PositionCorrected,
    MoveTakenBack,
    DrawOffered(Color),
    GameEnded(TableEnd),
    /// Each board is on the other player's port.
    BoardsSwapped,
    /// Both ports report the same board id.
    SameBoardId(u32),
    /// The clocks have started; that side is to move.
    ClocksStarted(Color),
}

/// For the arbiter only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArbiterNote {
    /// The action was refused; the game is unchanged.
    Refused {
        action: &'static str,
        reason: String,
    },
    /// The console was down this long (since the table's last journaled event or heartbeat).
    Restarted {
        down_ms: Millis,
        /// Whether the game has clocks (without, the note says nothing about them).
        clocks: bool,
        /// Whether that time ran on the clocks: a networked table's boards kept what was
        /// played meanwhile, timed as played; else it did not.
        counted: bool,
    },
    /// A player's e-board shows something that is not his men (guess men, a foreign
    /// object, a promotion piece of the wrong colour): never an input, shown to the arbiter.
    Board {
        color: Color,
        notice: crate::board_notice::BoardNotice,
    },
}

impl PublicMessage {
    pub fn id(&self) -> &'static str {
        match self {
            PublicMessage::Paused => "paused",
            PublicMessage::Resumed => "resumed",
            PublicMessage::PositionCorrected => "position-corrected",
            PublicMessage::MoveTakenBack => "move-taken-back",
            PublicMessage::DrawOffered(_) => "draw-offered",
            PublicMessage::GameEnded(_) => "game-ended",
            PublicMessage::BoardsSwapped => "boards-swapped",
            PublicMessage::SameBoardId(_) => "same-board-id",
            PublicMessage::ClocksStarted(_) => "clocks-started",
        }
    }

    /// The message's arguments as words, for trace files.
    pub fn args(&self) -> Vec<String> {
        match self {
            PublicMessage::DrawOffered(c) => vec![c.to_string()],
            PublicMessage::GameEnded(end) => vec![
                end.result.map_or("*", GameResult::pgn).to_owned(),
                end.termination.id().to_owned(),
            ],
            PublicMessage::SameBoardId(id) => vec![id.to_string()],
            PublicMessage::ClocksStarted(c) => vec![c.to_string()],
            PublicMessage::Paused
            | PublicMessage::Resumed
            | PublicMessage::PositionCorrected
            | PublicMessage::MoveTakenBack
            | PublicMessage::BoardsSwapped => Vec::new(),
        }
    }

    pub fn text(&self, lang: Lang) -> String {
        let side = |c: Color| color_name(c, lang);
        match (self, lang) {
            (PublicMessage::Paused, Lang::En) => "The arbiter has paused the game.".into(),
            (PublicMessage::Paused, Lang::Fr) => "L'arbitre a interrompu la partie.".into(),
            (PublicMessage::Paused, Lang::Ru) => "Арбитр остановил партию.".into(),
            (PublicMessage::Resumed, Lang::En) => "The game goes on.".into(),
            (PublicMessage::Resumed, Lang::Fr) => "La partie reprend.".into(),
            (PublicMessage::Resumed, Lang::Ru) => "Партия продолжается.".into(),
            (PublicMessage::PositionCorrected, Lang::En) => {
                "The arbiter has corrected the position. Check your board.".into()
            }
            (PublicMessage::PositionCorrected, Lang::Fr) => {
                "L'arbitre a corrigé la position. Vérifiez votre échiquier.".into()
            }
            (PublicMessage::PositionCorrected, Lang::Ru) => {
                "Арбитр исправил позицию. Проверьте свою доску.".into()
            }
            (PublicMessage::MoveTakenBack, Lang::En) => {
                "The arbiter has taken back the last move.".into()
            }
            (PublicMessage::MoveTakenBack, Lang::Fr) => {
                "L'arbitre a annulé le dernier coup.".into()
            }
            (PublicMessage::MoveTakenBack, Lang::Ru) => "Арбитр отменил последний ход.".into(),
            (PublicMessage::DrawOffered(c), Lang::En) => format!("{} offers a draw.", side(*c)),
            (PublicMessage::DrawOffered(c), Lang::Fr) => {
                format!("{} proposent la nulle.", side(*c))
            }
            (PublicMessage::DrawOffered(c), Lang::Ru) => format!("{} предлагают ничью.", side(*c)),
            (PublicMessage::GameEnded(end), _) => end_text(end, lang),
            (PublicMessage::BoardsSwapped, Lang::En) => {
                "The boards are swapped: each board is on the other player's port.".into()
            }
            (PublicMessage::BoardsSwapped, Lang::Fr) => {
                "Les échiquiers sont inversés : chacun est branché sur le port de l'autre joueur."
                    .into()
            }
            (PublicMessage::BoardsSwapped, Lang::Ru) => {
                "Доски перепутаны: каждая подключена к порту другого игрока.".into()
            }
            (PublicMessage::SameBoardId(id), Lang::En) => format!("Both boards report id {id}."),
            (PublicMessage::SameBoardId(id), Lang::Fr) => {
                format!("Les deux échiquiers portent le numéro {id}.")
            }
            (PublicMessage::SameBoardId(id), Lang::Ru) => {
                format!("Обе доски сообщают один номер: {id}.")
            }
            (PublicMessage::ClocksStarted(c), Lang::En) => {
                format!("The clocks are started. {} to move.", side(*c))
            }
            (PublicMessage::ClocksStarted(c), Lang::Fr) => {
                format!("Les pendules sont lancées. {} jouent.", side(*c))
            }
            (PublicMessage::ClocksStarted(c), Lang::Ru) => {
                format!("Часы пущены. Ходят {}.", side(*c).to_lowercase())
            }
        }
    }
}

impl ArbiterNote {
    pub fn id(&self) -> &'static str {
        match self {
            ArbiterNote::Refused { .. } => "refused",
            ArbiterNote::Restarted { .. } => "restarted",
            ArbiterNote::Board { .. } => "board",
        }
    }

    pub fn args(&self) -> Vec<String> {
        match self {
            ArbiterNote::Refused { action, .. } => vec![(*action).to_owned()],
            ArbiterNote::Restarted { down_ms, .. } => vec![down_ms.to_string()],
            ArbiterNote::Board { color, notice } => {
                vec![color.to_string(), notice.id().to_owned()]
            }
        }
    }

    /// The arbiter reads English, French or Russian like the table.
    pub fn text(&self, lang: Lang) -> String {
        match (self, lang) {
            (ArbiterNote::Board { color, notice }, lang) => notice.text(*color, lang),
            (ArbiterNote::Refused { action, reason }, Lang::En) => {
                format!("Arbiter action '{action}' refused: {reason}.")
            }
            (ArbiterNote::Refused { action, reason }, Lang::Fr) => {
                format!("Action d'arbitre « {action} » refusée : {reason}.")
            }
            (ArbiterNote::Refused { action, reason }, Lang::Ru) => {
                format!("Действие арбитра «{action}» отклонено: {reason}.")
            }
            (
                ArbiterNote::Restarted {
                    down_ms,
                    clocks,
                    counted,
                },
                lang,
            ) => {
                let s = down_ms / 1000;
                match (lang, clocks, counted) {
                    (Lang::En, true, false) => format!(
                        "The console restarted after {s} s down; that time did not count on the clocks."
                    ),
                    (Lang::En, true, true) => format!(
                        "The console restarted after {s} s down; the boards kept what was played meanwhile, and that time counted on the clocks as it was played."
                    ),
                    (Lang::En, false, _) => format!("The console restarted after {s} s down."),
                    (Lang::Fr, true, false) => format!(
                        "La console a redémarré après {s} s d'arrêt ; ce temps n'a pas compté aux pendules."
                    ),
                    (Lang::Fr, true, true) => format!(
                        "La console a redémarré après {s} s d'arrêt ; les échiquiers ont gardé ce qui a été joué entre-temps, et ce temps a compté aux pendules comme il a été joué."
                    ),
                    (Lang::Fr, false, _) => {
                        format!("La console a redémarré après {s} s d'arrêt.")
                    }
                    (Lang::Ru, true, false) => format!(
                        "Консоль перезапущена после {s} с простоя; это время не учтено на часах."
                    ),
                    (Lang::Ru, true, true) => format!(
                        "Консоль перезапущена после {s} с простоя; доски сохранили сыгранное за это время, и оно учтено на часах так, как было сыграно."
                    ),
                    (Lang::Ru, false, _) => format!("Консоль перезапущена после {s} с простоя."),
                }
            }
        }
    }
}

pub(crate) fn color_name(c: Color, lang: Lang) -> &'static str {
    match (c, lang) {
        (Color::White, Lang::En) => "White",
        (Color::Black, Lang::En) => "Black",
        (Color::White, Lang::Fr) => "Les Blancs",
        (Color::Black, Lang::Fr) => "Les Noirs",
        (Color::White, Lang::Ru) => "Белые",
        (Color::Black, Lang::Ru) => "Чёрные",
    }
}

fn end_text(end: &TableEnd, lang: Lang) -> String {
    let side = |c: Color| color_name(c, lang);
    let how = match (&end.termination, lang) {
        (Termination::Resignation(c), Lang::En) => format!("{} resigns.", side(*c)),
        (Termination::Resignation(c), Lang::Fr) => format!("{} abandonnent.", side(*c)),
        (Termination::Resignation(c), Lang::Ru) => format!("{} сдаются.", side(*c)),
        (Termination::TimeForfeit(c), Lang::En) => format!("{}'s flag has fallen.", side(*c)),
        (Termination::TimeForfeit(c), Lang::Fr) => {
            format!("{} ont dépassé le temps.", side(*c))
        }
        (Termination::TimeForfeit(c), Lang::Ru) => format!("У {} упал флажок.", genitive(*c)),
        (Termination::DrawAgreed, Lang::En) => "Draw agreed.".into(),
        (Termination::DrawAgreed, Lang::Fr) => "Nulle par accord mutuel.".into(),
        (Termination::DrawAgreed, Lang::Ru) => "Ничья по соглашению.".into(),
        (Termination::Adjudication { .. }, Lang::En) => "The arbiter adjudicates the game.".into(),
        (Termination::Adjudication { .. }, Lang::Fr) => "L'arbitre arbitre la partie.".into(),
        (Termination::Adjudication { .. }, Lang::Ru) => "Арбитр присуждает результат.".into(),
        (Termination::Voided { .. }, Lang::En) => "The arbiter has voided the game.".into(),
        (Termination::Voided { .. }, Lang::Fr) => "L'arbitre a annulé la partie.".into(),
        (Termination::Voided { .. }, Lang::Ru) => "Арбитр аннулировал партию.".into(),
    };
    let result = match (end.result, lang) {
        (None, _) => return how,
        (Some(GameResult::Draw), Lang::En) => "Draw.",
        (Some(GameResult::Draw), Lang::Fr) => "Partie nulle.",
        (Some(GameResult::Draw), Lang::Ru) => "Ничья.",
        (Some(GameResult::WhiteWins), Lang::En) => "White wins.",
        (Some(GameResult::WhiteWins), Lang::Fr) => "Les Blancs gagnent.",
        (Some(GameResult::WhiteWins), Lang::Ru) => "Белые выиграли.",
        (Some(GameResult::BlackWins), Lang::En) => "Black wins.",
        (Some(GameResult::BlackWins), Lang::Fr) => "Les Noirs gagnent.",
        (Some(GameResult::BlackWins), Lang::Ru) => "Чёрные выиграли.",
    };
    if matches!(end.termination, Termination::DrawAgreed) {
        how
    } else {
        format!("{how} {result}")
    }
}

fn genitive(c: Color) -> &'static str {
    match c {
        Color::White => "белых",
        Color::Black => "чёрных",
    }
}

/// An arbiter's reason as typed, as it is kept (see [`clean_reason`]), or why it is
/// refused: one longer than [`MAX_REASON`] characters is said, not cut without a word.
pub fn typed_reason(reason: &str) -> Result<String, String> {
    let kept = reason
        .split(|c: char| c.is_whitespace() || c.is_control() || c == '#')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match kept.chars().count() {
        n if n > MAX_REASON => Err(format!(
            "the reason is {n} characters long, at most {MAX_REASON}: say it shorter"
        )),
        _ => Ok(kept),
    }
}

/// An arbiter's reason as it is kept: one line, single spaces, no `#` (the trace and
/// journal comment mark), at most [`MAX_REASON`] characters.
pub fn clean_reason(reason: &str) -> String {
    let cut: String = reason
        .chars()
        .map(|c| if c.is_control() || c == '#' { ' ' } else { c })
        .take(MAX_REASON)
        .collect();
    cut.split_whitespace().collect::<Vec<_>>().join(" ")
}
