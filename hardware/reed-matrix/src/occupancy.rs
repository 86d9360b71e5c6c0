use core::fmt;

/// One square of the board: index 0..64, a1 = 0, b1 = 1, …, h1 = 7, a2 = 8, …, h8 = 63.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The first square (index 0).
    pub const A1: Square = Square(0);
    /// The last square (index 63).
    pub const H8: Square = Square(63);

    /// The square with this index, or `None` when `index >= 64`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), or `None` off the board.
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// Parses a square name such as `e2` (lower or upper case).
    pub fn parse(name: &str) -> Option<Square> {
        match name.as_bytes() {
            [f, r] => {
                let file = f.to_ascii_lowercase().wrapping_sub(b'a');
                let rank = r.wrapping_sub(b'1');
                Square::from_coords(file, rank)
            }
            _ => None,
        }
    }

    /// Index 0..64 (a1 = 0).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// File 0..8 (a = 0); also the matrix column.
    pub const fn file(self) -> u8 {
        self.0 % 8
    }

    /// Rank 0..8 (rank 1 = 0); also the matrix row.
    pub const fn rank(self) -> u8 {
        self.0 / 8
    }

    /// The two-letter name, e.g. `*b"e2"`.
    pub const fn name(self) -> [u8; 2] {
        [b'a' + self.file(), b'1' + self.rank()]
    }

    /// Every square, a1 first, h8 last.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [file, rank] = self.name();
        write!(f, "{}{}", file as char, rank as char)
    }
}

/// Which squares hold a magnet: bit i set = square i occupied (a1 = bit 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Occupancy(pub u64);

impl Occupancy {
    /// No magnet anywhere.
    pub const EMPTY: Occupancy = Occupancy(0);
    /// Both sides in their start squares (ranks 1, 2, 7 and 8).
    pub const START: Occupancy = Occupancy(0xFFFF_0000_0000_FFFF);
    /// White's own men at the start: on a player's board only his own men are magnetised.
    pub const WHITE_START: Occupancy = Occupancy(0x0000_0000_0000_FFFF);
    /// Black's own men at the start.
    pub const BLACK_START: Occupancy = Occupancy(0xFFFF_0000_0000_0000);

    /// The raw bits (bit i = square i).
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Is there a magnet on `square`?
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.0) != 0
    }

    /// This occupancy with `square` occupied.
    #[must_use]
    pub const fn with(self, square: Square) -> Occupancy {
        Occupancy(self.0 | (1 << square.0))
    }

    /// This occupancy with `square` empty.
    #[must_use]
    pub const fn without(self, square: Square) -> Occupancy {
        Occupancy(self.0 & !(1 << square.0))
    }

    /// Occupies or empties `square` in place.
    pub fn set(&mut self, square: Square, occupied: bool) {
        *self = if occupied {
            self.with(square)
        } else {
            self.without(square)
        };
    }

    /// Number of occupied squares.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when no square is occupied.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Squares occupied here and not in `before` (placed since).
    pub const fn placed_since(self, before: Occupancy) -> Occupancy {
        Occupancy(self.0 & !before.0)
    }

    /// Squares occupied in `before` and not here (lifted since).
    pub const fn lifted_since(self, before: Occupancy) -> Occupancy {
        Occupancy(before.0 & !self.0)
    }

    /// The occupied squares, a1 first.
    pub const fn squares(self) -> Squares {
        Squares(self.0)
    }

    /// The 8 switches of matrix row `rank` (rank 1 = 0) as a byte, bit f = file f.
    pub const fn rank_bits(self, rank: u8) -> u8 {
        (self.0 >> (8 * (rank as u32 % 8))) as u8
    }
}

impl fmt::Display for Occupancy {
    /// A diagram, rank 8 at the top, `#` for a magnet, `.` for an empty square.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..8u8 {
                let occupied = Square::from_coords(file, rank).is_some_and(|sq| self.contains(sq));
                f.write_str(if occupied { "#" } else { "." })?;
            }
            f.write_str("\n")?;
        }
        f.write_str("  abcdefgh")
    }
}

impl FromIterator<Square> for Occupancy {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter().fold(Occupancy::EMPTY, Occupancy::with)
    }
}

/// Iterator over the occupied squares of an [`Occupancy`], a1 first.
#[derive(Debug, Clone)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            let name = sq.name();
            let text = core::str::from_utf8(&name).unwrap();
            assert_eq!(Square::parse(text), Some(sq));
        }
        assert_eq!(Square::parse("a1").map(Square::index), Some(0));
        assert_eq!(Square::parse("H8").map(Square::index), Some(63));
        assert_eq!(Square::parse("e2").map(Square::index), Some(12));
        for bad in ["", "e", "e9", "i1", "e22", "1e", "e0"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn start_position_has_32_men_on_the_right_ranks() {
        assert_eq!(Occupancy::START.count(), 32);
        assert_eq!(
            Occupancy(Occupancy::WHITE_START.0 | Occupancy::BLACK_START.0),
            Occupancy::START
        );
        let e2 = Square::parse("e2").unwrap();
        let e4 = Square::parse("e4").unwrap();
        assert!(Occupancy::WHITE_START.contains(e2));
        assert!(!Occupancy::WHITE_START.contains(e4));
        let after = Occupancy::WHITE_START.without(e2).with(e4);
        assert_eq!(
            after
                .lifted_since(Occupancy::WHITE_START)
                .squares()
                .collect::<Occupancy>(),
            Occupancy::EMPTY.with(e2)
        );
        assert_eq!(
            after.placed_since(Occupancy::WHITE_START),
            Occupancy::EMPTY.with(e4)
        );
        assert_eq!(Occupancy::WHITE_START.rank_bits(1), 0xFF);
        assert_eq!(Occupancy::WHITE_START.rank_bits(2), 0);
    }

    #[test]
    fn squares_iterate_in_index_order() {
        let occ: Occupancy = [63u8, 0, 12]
            .iter()
            .filter_map(|&i| Square::new(i))
            .collect();
        let got: [u8; 3] = {
            let mut it = occ.squares().map(Square::index);
            [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
        };
        assert_eq!(got, [0, 12, 63]);
        assert_eq!(occ.squares().len(), 3);
    }
}
