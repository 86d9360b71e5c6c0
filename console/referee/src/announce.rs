//! What the referee decides and says, as typed values; `wording` turns them into speech.

use core::fmt;
use core::str::FromStr;

use shakmaty::{Bitboard, Color, File, Rank, Role, Square};

use crate::rules::RuleSet;

/// One attempted move of the side to move, as the player made it on his board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Try {
    pub from: Square,
    pub to: Square,
    /// The piece chosen for a promotion; none means a queen.
    pub promotion: Option<Role>,
}

impl Try {
    pub const fn new(from: Square, to: Square) -> Try {
        Try {
            from,
            to,
            promotion: None,
        }
    }

    /// Parses lowercase UCI `[a-h][1-8][a-h][1-8][qrbn]?` (castling as the king's two-square move).
    pub fn from_uci(uci: &str) -> Result<Try, crate::Error> {
        let bad = || {
            crate::Error::BadMove(format!(
                "'{}' is not a move in lowercase UCI ([a-h][1-8][a-h][1-8][qrbn]?)",
                bounded_lines::excerpt(uci)
            ))
        };
        let b = uci.as_bytes();
        if b.len() != 4 && b.len() != 5 {
            return Err(bad());
        }
        let square = |f: u8, r: u8| -> Option<Square> {
            if (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r) {
                Some(Square::from_coords(
                    File::new(u32::from(f - b'a')),
                    Rank::new(u32::from(r - b'1')),
                ))
            } else {
                None
            }
        };
        let from = square(b[0], b[1]).ok_or_else(bad)?;
        let to = square(b[2], b[3]).ok_or_else(bad)?;
        let promotion = match b.get(4) {
            None => None,
            Some(b'q') => Some(Role::Queen),
            Some(b'r') => Some(Role::Rook),
            Some(b'b') => Some(Role::Bishop),
            Some(b'n') => Some(Role::Knight),
            Some(_) => return Err(bad()),
        };
        Ok(Try {
            from,
            to,
            promotion,
        })
    }

    /// The try a player makes to play `m`: castling is the king's two-square move.
    /// `None` for a drop, which chess has not.
    pub fn from_move(m: &shakmaty::Move) -> Option<Try> {
        match *m {
            shakmaty::Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_king_side(rook.file() > king.file());
                Some(Try::new(
                    king,
                    Square::from_coords(side.king_to_file(), king.rank()),
                ))
            }
            shakmaty::Move::Put { .. } => None,
            _ => Some(Try {
                from: m.from()?,
                to: m.to(),
                promotion: m.promotion(),
            }),
        }
    }

    pub fn to_uci(self) -> String {
        let mut s = format!("{}{}", self.from, self.to);
        if let Some(role) = self.promotion {
            s.push(role.char());
        }
        s
    }
}

/// Who hears an announcement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Audience {
    /// Both players (the table's speaker).
    Both,
    /// Only the player who made the try (wild16 refusals).
    Mover(Color),
    /// One player privately: reminders, guidance, prompts.
    Private(Color),
}

/// Direction of one check, relative to the checked king.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckKind {
    File,
    Rank,
    Long,
    Short,
    Knight,
}

impl CheckKind {
    pub const fn id(self) -> &'static str {
        match self {
            CheckKind::File => "file",
            CheckKind::Rank => "rank",
            CheckKind::Long => "long",
            CheckKind::Short => "short",
            CheckKind::Knight => "knight",
        }
    }

    /// Classifies the check of a man on `checker` against a king on `king`.
    pub fn between(king: Square, checker: Square) -> CheckKind {
        let (kf, kr) = (king.file() as i32, king.rank() as i32);
        let (cf, cr) = (checker.file() as i32, checker.rank() as i32);
        if kf == cf {
            CheckKind::File
        } else if kr == cr {
            CheckKind::Rank
        } else if (cf - kf).abs() == (cr - kr).abs() {
            // The diagonal along which file - rank is constant, and the other one.
            let main = 8 - (kf - kr).abs();
            let anti = 8 - (kf + kr - 7).abs();
            let (this, other) = if cf - kf == cr - kr {
                (main, anti)
            } else {
                (anti, main)
            };
            if this > other {
                CheckKind::Long
            } else {
                CheckKind::Short
            }
        } else {
            CheckKind::Knight
        }
    }
}

/// The checks on the king of the side to move, in announcement order (at most two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Checks {
    kinds: [Option<CheckKind>; 2],
}

impl Checks {
    pub fn of(king: Square, checkers: Bitboard) -> Checks {
        let mut kinds = [None, None];
        for (slot, sq) in kinds.iter_mut().zip(checkers) {
            *slot = Some(CheckKind::between(king, sq));
        }
        if let [Some(a), Some(b)] = kinds {
            if b < a {
                kinds = [Some(b), Some(a)];
            }
        }
        Checks { kinds }
    }

    pub fn iter(&self) -> impl Iterator<Item = CheckKind> + '_ {
        self.kinds.iter().flatten().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds[0].is_none()
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }
}

/// Whether a captured man was a pawn or a piece (the only distinction ever announced).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Man {
    Pawn,
    Piece,
}

/// A capture as announced: where the man was removed, and what it was where the rules say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Capture {
    pub square: Square,
    pub man: Option<Man>,
}

/// The pawn-capture information a rule set gives the side now to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PawnTries {
    /// Berkeley and Russian: nothing unless asked.
    Silent,
    /// Cincinnati: whether at least one exists.
    Exists(bool),
    /// Wild 16: how many (one per pawn and target square).
    Count(u8),
    /// Traditional and RAND: the squares (destination or source, per option).
    Squares(Bitboard),
}

impl PawnTries {
    /// The squares in announcement order: by file, then rank.
    pub fn squares(&self) -> impl Iterator<Item = Square> {
        let bb = match self {
            PawnTries::Squares(bb) => *bb,
            _ => Bitboard::EMPTY,
        };
        File::ALL.into_iter().flat_map(move |f| {
            Rank::ALL
                .into_iter()
                .map(move |r| Square::from_coords(f, r))
                .filter(move |sq| bb.contains(*sq))
        })
    }
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub const fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// Why the game ended, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
    Repetition,
}

impl EndReason {
    pub const fn id(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::InsufficientMaterial => "insufficient-material",
            EndReason::FiftyMoves => "fifty-moves",
            EndReason::Repetition => "repetition",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct End {
    pub result: GameResult,
    pub reason: EndReason,
}

/// What the referee announces at the start of a game or after a legal try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Report {
    pub rules: RuleSet,
    /// Who just moved; `None` for the announcement of a new game.
    pub mover: Option<Color>,
    /// The move that was played (never announced; kept for the arbiter and the journal).
    pub played: Option<Try>,
    pub to_move: Color,
    pub capture: Option<Capture>,
    pub checks: Checks,
    pub pawn_tries: PawnTries,
    /// RAND only: whether a pawn promoted.
    pub promotion: Option<bool>,
    pub end: Option<End>,
}

/// How a refused try is classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusalKind {
    /// Could be legal given the player's own men: refused because of the unseen enemy.
    Illegal,
    /// The player should know it cannot be legal.
    Impossible,
}

impl RefusalKind {
    pub const fn id(self) -> &'static str {
        match self {
            RefusalKind::Illegal => "illegal",
            RefusalKind::Impossible => "impossible",
        }
    }
}

/// A refused try (or a refused question): nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Refusal {
    pub rules: RuleSet,
    pub kind: RefusalKind,
    /// The side whose try was refused (still to move).
    pub mover: Color,
}

impl Refusal {
    pub const fn audience(&self) -> Audience {
        match self.rules {
            RuleSet::Wild16 => Audience::Mover(self.mover),
            _ => Audience::Both,
        }
    }
}

/// The referee's decision on a try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    Moved(Report),
    Refused(Refusal),
}

/// A question the side to move may ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Question {
    /// "Any?": are there pawn captures?
    Any,
    /// RAND: the opponent's rebuffs on his last move.
    Rebuffs,
}

impl Question {
    pub const ALL: [Question; 2] = [Question::Any, Question::Rebuffs];

    /// The protocol id: `any`, `rebuffs`.
    pub const fn id(self) -> &'static str {
        match self {
            Question::Any => "any",
            Question::Rebuffs => "rebuffs",
        }
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Question {
    type Err = UnknownQuestion;

    fn from_str(s: &str) -> Result<Question, UnknownQuestion> {
        Question::ALL
            .into_iter()
            .find(|q| q.id() == s)
            .ok_or_else(|| UnknownQuestion(s.to_owned()))
    }
}

/// A question id that is neither `any` nor `rebuffs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownQuestion(pub String);

impl fmt::Display for UnknownQuestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown question '{}' (any, rebuffs)",
            bounded_lines::excerpt(&self.0)
        )
    }
}

impl std::error::Error for UnknownQuestion {}

/// The answer to a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reply {
    PawnCaptures {
        rules: RuleSet,
        asker: Color,
        yes: bool,
    },
    /// RAND: the opponent's rebuffs during his last turn; `None` when he has not moved yet
    /// in this game.
    Rebuffs {
        rules: RuleSet,
        asker: Color,
        count: Option<u32>,
    },
    Refused(Refusal),
}

/// Anything the referee says, with its audience; rendered by [`crate::Wording`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Announcement {
    Report(Report),
    Refusal(Refusal),
    Reply(Reply),
}

impl Announcement {
    pub const fn audience(&self) -> Audience {
        match self {
            Announcement::Report(_) => Audience::Both,
            Announcement::Refusal(r) | Announcement::Reply(Reply::Refused(r)) => r.audience(),
            Announcement::Reply(_) => Audience::Both,
        }
    }
}

impl From<Verdict> for Announcement {
    fn from(v: Verdict) -> Announcement {
        match v {
            Verdict::Moved(r) => Announcement::Report(r),
            Verdict::Refused(r) => Announcement::Refusal(r),
        }
    }
}

impl From<Reply> for Announcement {
    fn from(r: Reply) -> Announcement {
        Announcement::Reply(r)
    }
}
