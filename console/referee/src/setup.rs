//! Starting positions: FEN parsing and the Russian "chess battle" set-up rules.

use core::fmt;

use bounded_lines::excerpt;
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, Rank, Role, Setup, Square};

use crate::rules::RuleSet;
use crate::Error;

/// Which Russian set-up rule a side broke, with the squares concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The side does not have exactly the standard sixteen men.
    WrongMen {
        color: Color,
        role: Role,
        expected: u32,
        found: u32,
    },
    /// A pawn stands outside its own 2nd and 3rd ranks.
    PawnRank { color: Color, square: Square },
    /// Two pawns on one file.
    PawnFile { color: Color, squares: [Square; 2] },
    /// A piece stands beyond its own first three ranks.
    PieceRank { color: Color, square: Square },
    /// Both bishops on squares of one colour.
    BishopColours { color: Color, squares: [Square; 2] },
    /// Black must not start to move.
    BlackToMove,
    /// The two set-ups together leave Black in check with White to move.
    Incompatible,
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::WrongMen {
                color,
                role,
                expected,
                found,
            } => write!(
                f,
                "{} must set up exactly the standard men: {expected} {role:?}(s) expected, {found} found",
                side(*color)
            ),
            SetupError::PawnRank { color, square } => write!(
                f,
                "{} pawn on {square}: every pawn must stand on its own 2nd or 3rd rank",
                side(*color)
            ),
            SetupError::PawnFile { color, squares } => write!(
                f,
                "{} pawns on {} and {}: one pawn per file",
                side(*color),
                squares[0],
                squares[1]
            ),
            SetupError::PieceRank { color, square } => write!(
                f,
                "{} piece on {square}: every piece must stand within its own first three ranks",
                side(*color)
            ),
            SetupError::BishopColours { color, squares } => write!(
                f,
                "{} bishops on {} and {}: the two bishops must stand on squares of opposite colours",
                side(*color),
                squares[0],
                squares[1]
            ),
            SetupError::BlackToMove => f.write_str("White moves first: the set-up must have White to move"),
            SetupError::Incompatible => f.write_str("incompatible set-ups: both players set up again"),
        }
    }
}

/// Parses a FEN and builds the referee's position for `rules`. Only standard chess FENs
/// are accepted: the parser also reads Crazyhouse pockets (`[Qq]`, or a ninth rank),
/// promoted markers (`Q~`) and Three-check counters (`3+3`, `+0+0`), which have no meaning
/// here and are refused rather than silently dropped.
pub fn position_from_fen(rules: RuleSet, fen: Option<&str>) -> Result<Chess, Error> {
    let mut setup = match fen {
        None => Setup::initial(),
        Some(text) => {
            let quoted = || excerpt(text);
            let fen: Fen = text
                .trim()
                .parse()
                .map_err(|e| Error::BadFen(format!("'{}': {e}", quoted())))?;
            let setup = fen.into_setup();
            let variant = if setup.pockets.is_some() {
                Some("Crazyhouse pockets are not standard chess")
            } else if setup.promoted.any() {
                Some("the promoted-piece marker '~' is Crazyhouse, not standard chess")
            } else if setup.remaining_checks.is_some() {
                Some("Three-check counters are not standard chess")
            } else {
                None
            };
            if let Some(what) = variant {
                return Err(Error::BadFen(format!("'{}': {what}", quoted())));
            }
            setup
        }
    };
    if rules == RuleSet::Russian {
        // No castling and no en passant in the chess battle, whatever the FEN says.
        setup.castling_rights = Bitboard::EMPTY;
        setup.ep_square = None;
        validate_russian(&setup).map_err(Error::BadSetup)?;
    }
    setup
        .position::<Chess>(CastlingMode::Standard)
        .map_err(|e| Error::BadFen(format!("not a legal chess position: {e}")))
}

const STANDARD: [(Role, u32); 6] = [
    (Role::King, 1),
    (Role::Queen, 1),
    (Role::Rook, 2),
    (Role::Bishop, 2),
    (Role::Knight, 2),
    (Role::Pawn, 8),
];

/// Checks each side's set-up, then the pair.
pub fn validate_russian(setup: &Setup) -> Result<(), SetupError> {
    for color in Color::ALL {
        validate_side(setup, color)?;
    }
    if setup.turn != Color::White {
        return Err(SetupError::BlackToMove);
    }
    let board = &setup.board;
    if let Some(king) = board.king_of(Color::Black) {
        if board.attacks_to(king, Color::White, board.occupied()).any() {
            return Err(SetupError::Incompatible);
        }
    }
    Ok(())
}

/// Rank `n` (1-based) counted from `color`'s own side.
fn own_rank(color: Color, n: u32) -> Rank {
    let r = Rank::new(n - 1);
    match color {
        Color::White => r,
        Color::Black => r.flip_vertical(),
    }
}

fn validate_side(setup: &Setup, color: Color) -> Result<(), SetupError> {
    let board = &setup.board;
    let ours = board.by_color(color);
    for (role, expected) in STANDARD {
        let found = (board.by_role(role) & ours).count() as u32;
        if found != expected {
            return Err(SetupError::WrongMen {
                color,
                role,
                expected,
                found,
            });
        }
    }
    let first_three = Bitboard::from_rank(own_rank(color, 1))
        | Bitboard::from_rank(own_rank(color, 2))
        | Bitboard::from_rank(own_rank(color, 3));
    let pawn_ranks =
        Bitboard::from_rank(own_rank(color, 2)) | Bitboard::from_rank(own_rank(color, 3));
    let pawns = board.pawns() & ours;
    if let Some(square) = (pawns & !pawn_ranks).first() {
        return Err(SetupError::PawnRank { color, square });
    }
    let mut seen: [Option<Square>; 8] = [None; 8];
    for sq in pawns {
        let slot = &mut seen[sq.file() as usize];
        if let Some(other) = *slot {
            return Err(SetupError::PawnFile {
                color,
                squares: [other, sq],
            });
        }
        *slot = Some(sq);
    }
    if let Some(square) = (ours & !pawns & !first_three).first() {
        return Err(SetupError::PieceRank { color, square });
    }
    let bishops = board.bishops() & ours;
    if let (Some(a), Some(b)) = (bishops.first(), bishops.last()) {
        if a.is_light() == b.is_light() {
            return Err(SetupError::BishopColours {
                color,
                squares: [a, b],
            });
        }
    }
    Ok(())
}
