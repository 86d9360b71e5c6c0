//! What a DGT board says stands on a field: its piece codes, and which square a field is.
//!
//! The board numbers its 64 fields in reading order with the connector on the player's left:
//! field 0 is a8, 7 is h8, 8 is a7 … 63 is h1. It never rotates that numbering, so a board
//! set up the other way round (connector on the right) reports h1 as field 0: see
//! [`Orientation`].

use shakmaty::{Color, Piece, Role, Square};

/// A field's code on the wire: 0 empty, 1–6 white P R N B K Q, 7–12 black p r n b k q,
/// 13–15 DGT's three "magic" result pieces. Only the low four bits carry the code.
pub type Code = u8;

/// The empty field's code.
pub const EMPTY: Code = 0;

/// The roles in code order (white 1–6, black 7–12).
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Rook,
    Role::Knight,
    Role::Bishop,
    Role::King,
    Role::Queen,
];

/// What stands on one square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Content {
    Empty,
    /// A chess man of either colour.
    Man(Piece),
    /// Something the board sees that is no chess man: one of DGT's magic pieces (codes
    /// 13–15), or a code no board should send. Never to be taken for a man.
    Foreign(Code),
}

impl Content {
    /// Reads a wire code; bits above the low four are ignored (the protocol header reserves
    /// one of them, undocumented).
    pub fn from_code(code: Code) -> Content {
        match code & 0x0f {
            0 => Content::Empty,
            c @ 1..=12 => {
                let index = usize::from((c - 1) % 6);
                let color = if c <= 6 { Color::White } else { Color::Black };
                Content::Man(Piece {
                    color,
                    role: ROLES[index],
                })
            }
            c => Content::Foreign(c),
        }
    }

    /// The wire code of this content.
    pub fn code(self) -> Code {
        match self {
            Content::Empty => EMPTY,
            Content::Man(piece) => piece_code(piece),
            Content::Foreign(code) => code & 0x0f,
        }
    }

    /// The man on the square; `None` for an empty square and a foreign object alike.
    pub fn man(self) -> Option<Piece> {
        match self {
            Content::Man(piece) => Some(piece),
            Content::Empty | Content::Foreign(_) => None,
        }
    }
}

/// The wire code of a man.
pub fn piece_code(piece: Piece) -> Code {
    let base = match piece.role {
        Role::Pawn => 1,
        Role::Rook => 2,
        Role::Knight => 3,
        Role::Bishop => 4,
        Role::King => 5,
        Role::Queen => 6,
    };
    match piece.color {
        Color::White => base,
        Color::Black => base + 6,
    }
}

/// Which way round a board stands: where its field 0 is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Orientation {
    /// Connector on White's left: field 0 is a8.
    #[default]
    Normal,
    /// Turned 180°: field 0 is h1.
    Rotated,
}

impl Orientation {
    /// The square a field stands for (`None` for a field number above 63).
    pub fn square(self, field: u8) -> Option<Square> {
        if field >= 64 {
            return None;
        }
        // Normal: field = (7 - rank) * 8 + file, so the square index is field ^ 56;
        // rotated 180°, square s becomes 63 - s.
        let index = match self {
            Orientation::Normal => field ^ 56,
            Orientation::Rotated => field ^ 7,
        };
        Some(Square::new(u32::from(index)))
    }

    /// The field that reports a square.
    pub fn field(self, square: Square) -> u8 {
        // `Square` is 0..=63, so the cast keeps it; the maps are their own inverses.
        let index = u8::try_from(u32::from(square)).unwrap_or(0);
        match self {
            Orientation::Normal => index ^ 56,
            Orientation::Rotated => index ^ 7,
        }
    }

    /// The other way round.
    pub fn flipped(self) -> Orientation {
        match self {
            Orientation::Normal => Orientation::Rotated,
            Orientation::Rotated => Orientation::Normal,
        }
    }

    /// Short lowercase name (`normal`, `rotated`), for files and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Orientation::Normal => "normal",
            Orientation::Rotated => "rotated",
        }
    }

    /// Reads [`Orientation::name`]'s words back.
    pub fn from_name(name: &str) -> Option<Orientation> {
        match name {
            "normal" => Some(Orientation::Normal),
            "rotated" => Some(Orientation::Rotated),
            _ => None,
        }
    }

    /// Which way round the board stands, told from a dump of `fields` taken with the owner's
    /// men in their start position: his king and both his rooks must stand on their start
    /// squares in exactly one of the two readings. Other men (his pawns moved, the
    /// opponent's guess men) do not matter. `None` when neither or both readings fit.
    pub fn detect(fields: &[Code; 64], owner: Color) -> Option<Orientation> {
        let back = owner.fold_wb(shakmaty::Rank::First, shakmaty::Rank::Eighth);
        let wants = [
            (shakmaty::File::E, Role::King),
            (shakmaty::File::A, Role::Rook),
            (shakmaty::File::H, Role::Rook),
        ];
        let fits = |o: Orientation| {
            wants.iter().all(|&(file, role)| {
                let field = o.field(Square::from_coords(file, back));
                Content::from_code(fields[usize::from(field)])
                    == Content::Man(Piece { color: owner, role })
            })
        };
        match (fits(Orientation::Normal), fits(Orientation::Rotated)) {
            (true, false) => Some(Orientation::Normal),
            (false, true) => Some(Orientation::Rotated),
            _ => None,
        }
    }
}

/// A whole board as the driver reports it: what stands on each square, read from a dump
/// through the board's orientation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Indexed by shakmaty square (a1 = 0 … h8 = 63).
    squares: [Content; 64],
    orientation: Orientation,
    orientation_known: bool,
}

impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Placement")
            .field("board", &self.to_string())
            .field("orientation", &self.orientation)
            .field("orientation_known", &self.orientation_known)
            .finish()
    }
}

impl Placement {
    /// Reads a dump's 64 codes (field order) through `orientation`; `orientation_known`
    /// says whether it was detected or given rather than assumed.
    pub fn from_fields(
        fields: &[Code; 64],
        orientation: Orientation,
        orientation_known: bool,
    ) -> Placement {
        let mut squares = [Content::Empty; 64];
        for (field, &code) in (0u8..).zip(fields.iter()) {
            if let Some(square) = orientation.square(field) {
                squares[usize::from(square)] = Content::from_code(code);
            }
        }
        Placement {
            squares,
            orientation,
            orientation_known,
        }
    }

    /// An empty board, normal orientation assumed.
    pub fn empty() -> Placement {
        Placement {
            squares: [Content::Empty; 64],
            orientation: Orientation::Normal,
            orientation_known: false,
        }
    }

    /// What stands on `square`.
    pub fn get(&self, square: Square) -> Content {
        self.squares[usize::from(square)]
    }

    /// The man on `square` (`None` for empty and foreign alike).
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        self.get(square).man()
    }

    /// Every square's content, a1 first.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Content)> + '_ {
        (0u32..)
            .zip(self.squares.iter())
            .map(|(i, &c)| (Square::new(i), c))
    }

    /// The squares holding something that is no man, with its code.
    pub fn foreign(&self) -> impl Iterator<Item = (Square, Code)> + '_ {
        self.iter().filter_map(|(sq, c)| match c {
            Content::Foreign(code) => Some((sq, code)),
            Content::Empty | Content::Man(_) => None,
        })
    }

    /// The men as a shakmaty board (foreign objects left out).
    pub fn board(&self) -> shakmaty::Board {
        let mut board = shakmaty::Board::empty();
        for (square, content) in self.iter() {
            if let Content::Man(piece) = content {
                board.set_piece_at(square, piece);
            }
        }
        board
    }

    /// The field order codes this placement came from (what the board would dump).
    pub fn fields(&self) -> [Code; 64] {
        let mut fields = [EMPTY; 64];
        for (square, content) in self.iter() {
            fields[usize::from(self.orientation.field(square))] = content.code();
        }
        fields
    }

    /// The orientation the dump was read with.
    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    /// Whether the orientation was detected, remembered or given (else it is assumed normal).
    pub fn orientation_known(&self) -> bool {
        self.orientation_known
    }
}

impl std::fmt::Display for Placement {
    /// The FEN board part, with `?` for a foreign object (FEN has no letter for one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        for rank in (0..8u32).rev() {
            let mut gap = 0;
            for file in 0..8u32 {
                match self.squares[(rank * 8 + file) as usize] {
                    Content::Empty => gap += 1,
                    other => {
                        if gap > 0 {
                            write!(f, "{gap}")?;
                            gap = 0;
                        }
                        match other {
                            Content::Man(piece) => f.write_char(piece.char())?,
                            _ => f.write_char('?')?,
                        }
                    }
                }
            }
            if gap > 0 {
                write!(f, "{gap}")?;
            }
            if rank > 0 {
                f.write_char('/')?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_protocol_table() {
        let letters: String = (0..=15u8)
            .map(|c| match Content::from_code(c) {
                Content::Empty => '.',
                Content::Man(p) => p.char(),
                Content::Foreign(_) => 'x',
            })
            .collect();
        assert_eq!(letters, ".PRNBKQprnbkqxxx");
        for code in 0..=15u8 {
            assert_eq!(Content::from_code(code).code(), code);
        }
        // High bits are not part of the code.
        assert_eq!(
            Content::from_code(0x43),
            Content::Man(Piece::from_char('N').unwrap())
        );
        assert_eq!(Content::from_code(0x0d).man(), None);
        assert_eq!(piece_code(Piece::from_char('q').unwrap()), 12);
        assert_eq!(piece_code(Piece::from_char('P').unwrap()), 1);
    }

    #[test]
    fn fields_run_from_a8_to_h1_and_turn_round_when_rotated() {
        let name = |o: Orientation, f: u8| o.square(f).unwrap().to_string();
        assert_eq!(
            [0, 7, 8, 36, 52, 56, 63].map(|f| name(Orientation::Normal, f)),
            ["a8", "h8", "a7", "e4", "e2", "a1", "h1"]
        );
        assert_eq!(
            [0, 7, 56, 63, 3].map(|f| name(Orientation::Rotated, f)),
            ["h1", "a1", "h8", "a8", "e1"]
        );
        assert_eq!(Orientation::Normal.square(64), None);
        for o in [Orientation::Normal, Orientation::Rotated] {
            for f in 0..64 {
                assert_eq!(o.field(o.square(f).unwrap()), f);
            }
        }
    }

    fn fields_of(fen: &str, orientation: Orientation) -> [Code; 64] {
        let board: shakmaty::Board = fen.parse().unwrap();
        let mut fields = [EMPTY; 64];
        for (sq, piece) in board {
            fields[usize::from(orientation.field(sq))] = piece_code(piece);
        }
        fields
    }

    #[test]
    fn orientation_is_told_by_the_owners_king_and_rooks() {
        let white_only = "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let black_only = "rnbqkbnr/pppppppp/8/8/8/8/8/8";
        for o in [Orientation::Normal, Orientation::Rotated] {
            let f = fields_of(white_only, o);
            assert_eq!(Orientation::detect(&f, Color::White), Some(o));
            assert_eq!(Orientation::detect(&f, Color::Black), None);
            let f = fields_of(black_only, o);
            assert_eq!(Orientation::detect(&f, Color::Black), Some(o));
            // Guess men of the other colour do not confuse it.
            let f = fields_of("rnbqkbnr/pppppppp/8/8/8/4n3/PPPPPPPP/RNBQKBNR", o);
            assert_eq!(Orientation::detect(&f, Color::White), Some(o));
            assert_eq!(Orientation::detect(&f, Color::Black), Some(o));
        }
        // A king off its square: not a start position, nothing told.
        let f = fields_of("8/8/8/8/8/8/PPPPPPPP/RNBQ1BNR", Orientation::Normal);
        assert_eq!(Orientation::detect(&f, Color::White), None);
        assert_eq!(Orientation::detect(&[EMPTY; 64], Color::White), None);
    }

    #[test]
    fn a_placement_reads_a_dump_through_its_orientation() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        for o in [Orientation::Normal, Orientation::Rotated] {
            let mut fields = fields_of(start, o);
            fields[usize::from(o.field(Square::E4))] = 0x0e;
            let p = Placement::from_fields(&fields, o, true);
            assert_eq!(
                p.to_string(),
                "rnbqkbnr/pppppppp/8/8/4?3/8/PPPPPPPP/RNBQKBNR"
            );
            assert_eq!(p.piece_at(Square::E1), Piece::from_char('K'));
            assert_eq!(p.piece_at(Square::E4), None);
            assert_eq!(p.get(Square::E4), Content::Foreign(14));
            assert_eq!(p.foreign().collect::<Vec<_>>(), [(Square::E4, 14)]);
            assert_eq!(p.board().to_string(), start);
            assert_eq!(p.fields(), fields);
        }
    }
}
