//! Square numbering shared by the firmware, the console and the script format.

/// a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (firmware never depends on shakmaty).
pub type SquareIndex = u8;

/// The two ASCII bytes of a square's name (`b"e2"`); indices above 63 are masked to 0..=63
/// so that the function is total.
pub const fn square_name(sq: SquareIndex) -> [u8; 2] {
    let sq = sq & 63;
    [b'a' + (sq & 7), b'1' + (sq >> 3)]
}

/// Parses `"e2"` (lowercase or uppercase file) into its index; `None` for anything else.
pub fn parse_square(s: &str) -> Option<SquareIndex> {
    match s.as_bytes() {
        [file, rank] => {
            let file = file.to_ascii_lowercase();
            if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(rank) {
                Some((rank - b'1') * 8 + (file - b'a'))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `sq` is set in a 64-bit occupancy (bit `sq` = square `sq`); false for `sq > 63`.
pub const fn is_occupied(occupancy: u64, sq: SquareIndex) -> bool {
    sq < 64 && occupancy & (1u64 << sq) != 0
}

/// The occupancy with `sq` set (unchanged for `sq > 63`).
pub const fn with_square(occupancy: u64, sq: SquareIndex) -> u64 {
    if sq < 64 {
        occupancy | (1u64 << sq)
    } else {
        occupancy
    }
}

/// The occupancy with `sq` cleared (unchanged for `sq > 63`).
pub const fn without_square(occupancy: u64, sq: SquareIndex) -> u64 {
    if sq < 64 {
        occupancy & !(1u64 << sq)
    } else {
        occupancy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_parsing_round_trip() {
        for sq in 0..64u8 {
            let name = square_name(sq);
            let text = core::str::from_utf8(&name).unwrap();
            assert_eq!(parse_square(text), Some(sq));
        }
        assert_eq!(&square_name(0), b"a1");
        assert_eq!(&square_name(12), b"e2");
        assert_eq!(&square_name(63), b"h8");
        assert_eq!(parse_square("E4"), Some(28));
    }

    #[test]
    fn bad_square_names_are_rejected() {
        for bad in ["", "e", "e9", "i1", "a0", "e22", "11", "é2"] {
            assert_eq!(parse_square(bad), None, "{bad}");
        }
    }

    #[test]
    fn occupancy_bits() {
        let occ = with_square(0, 12);
        assert!(is_occupied(occ, 12));
        assert!(!is_occupied(occ, 13));
        assert_eq!(without_square(occ, 12), 0);
        assert_eq!(with_square(occ, 64), occ);
        assert!(!is_occupied(u64::MAX, 64));
    }
}
