//! A try typed as a chess player writes a move (`Nf3`, `exd5`, `e4`, `e8=Q`), read against
//! his own men only: the squares his men stand on are all he knows of the board, so which of
//! them is meant is found without a look at his opponent's (what the referee then says of
//! the try is the referee's).

use kriegspiel_referee::shakmaty::{Board, Castles, CastlingMode, Color, File, Rank, Role, Square};
use kriegspiel_referee::{own_board_targets_on, Try};

/// Why a move so written is no try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unread {
    /// Not written as a move at all.
    NotAMove,
    /// No man of his of that kind can go there, on his own men's board.
    NoMan(Role, Square),
    /// Several can: the squares they stand on.
    Which(Role, Vec<Square>),
}

/// The try `written` means on `board` for `color`'s men.
pub(super) fn read(written: &str, board: &Board, color: Color) -> Result<Try, Unread> {
    let written = written.trim().trim_end_matches(['+', '#', '!', '?']);
    let written = written
        .strip_suffix("e.p.")
        .or_else(|| written.strip_suffix("ep"))
        .map_or(written, str::trim_end);
    let chars: Vec<char> = written.chars().collect();
    // The piece's letter leads (a capital; "b" is first the b-file's pawn, then a bishop);
    // a pawn's move starts with its file.
    match chars.split_first() {
        Some((c @ ('K' | 'Q' | 'R' | 'B' | 'N' | 'k' | 'q' | 'r' | 'n'), rest)) => {
            let role = Role::from_char(c.to_ascii_lowercase()).ok_or(Unread::NotAMove)?;
            read_as(role, rest, board, color)
        }
        Some(('b', rest)) => match read_as(Role::Pawn, &chars, board, color) {
            Ok(t) => Ok(t),
            Err(pawn) => match read_as(Role::Bishop, rest, board, color) {
                Err(Unread::NotAMove | Unread::NoMan(..)) => Err(pawn),
                bishop => bishop,
            },
        },
        _ => read_as(Role::Pawn, &chars, board, color),
    }
}

/// The move of a `role` written `rest` (its letter taken off): `[file][rank][x|:|-]square`,
/// then a pawn's promotion (`=Q`, `Q`).
fn read_as(role: Role, rest: &[char], board: &Board, color: Color) -> Result<Try, Unread> {
    let mut chars: Vec<char> = rest.iter().map(char::to_ascii_lowercase).collect();
    let promotion = match chars.as_slice() {
        [.., rank, '=', p] | [.., rank, p] if rank.is_ascii_digit() && p.is_ascii_alphabetic() => {
            let role = Role::from_char(*p)
                .filter(|r| matches!(r, Role::Queen | Role::Rook | Role::Bishop | Role::Knight))
                .ok_or(Unread::NotAMove)?;
            let cut = if chars.len() >= 2 && chars[chars.len() - 2] == '=' {
                2
            } else {
                1
            };
            chars.truncate(chars.len() - cut);
            Some(role)
        }
        _ => None,
    };
    let [hint @ .., to_file, to_rank] = chars.as_slice() else {
        return Err(Unread::NotAMove);
    };
    let to = square(*to_file, *to_rank).ok_or(Unread::NotAMove)?;
    let (hint, between) = match hint {
        [h @ .., c @ ('x' | ':' | '-')] => (h, Some(*c)),
        h => (h, None),
    };
    let (file, rank) = match hint {
        [] => (None, None),
        [f, r] => (
            Some(File::from_char(*f).ok_or(Unread::NotAMove)?),
            Some(Rank::from_char(*r).ok_or(Unread::NotAMove)?),
        ),
        [c] => (File::from_char(*c), Rank::from_char(*c)),
        _ => return Err(Unread::NotAMove),
    };
    let takes = matches!(between, Some('x' | ':'));
    let long = between == Some('-');
    if (hint.len() == 1 && file.is_none() && rank.is_none())
        || (long && hint.len() != 2)
        || (promotion.is_some() && role != Role::Pawn)
    {
        return Err(Unread::NotAMove);
    }
    // A pawn's take names the file it takes from ("exd5", "ed5"); a pawn's step names no
    // file but in full ("e2-e4"): "xd5", "4xd5" or "dd5" are no pawn's move.
    if role == Role::Pawn
        && !long
        && (file.is_none() && (takes || rank.is_some()) || file.is_some_and(|f| f == to.file()))
    {
        return Err(Unread::NotAMove);
    }
    let mine = board.by_color(color);
    let from: Vec<Square> = (board.by_role(role) & mine)
        .into_iter()
        .filter(|sq| file.is_none_or(|f| sq.file() == f) && rank.is_none_or(|r| sq.rank() == r))
        .filter(|sq| reaches(board, *sq, to, color, takes || (file.is_some() && !long)))
        .collect();
    match from.as_slice() {
        [] => Err(Unread::NoMan(role, to)),
        [from] => Ok(Try {
            from: *from,
            to,
            promotion,
        }),
        _ => Err(Unread::Which(role, from)),
    }
}

fn square(file: char, rank: char) -> Option<Square> {
    Some(Square::from_coords(
        File::from_char(file)?,
        Rank::from_char(rank)?,
    ))
}

/// Whether his man on `from` goes to `to` on his own board (the referee's one move
/// generator for it; castling is typed as such, not as a king's move). A pawn that `takes`
/// (named by its file: `exd5`) goes aside; one named by its target alone (`e4`) steps.
fn reaches(board: &Board, from: Square, to: Square, color: Color, takes: bool) -> bool {
    let no_castling = Castles::empty(CastlingMode::Standard);
    own_board_targets_on(board, &no_castling, color, from).contains(to)
        && (board.role_at(from) != Some(Role::Pawn) || takes == (from.file() != to.file()))
}

#[cfg(test)]
mod tests {
    use kriegspiel_referee::shakmaty::fen::Fen;
    use kriegspiel_referee::shakmaty::{CastlingMode, Chess, Position};

    use super::*;

    fn board(fen: &str) -> Board {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        pos.board().clone()
    }

    fn uci(r: Result<Try, Unread>) -> String {
        r.map(Try::to_uci).unwrap_or_else(|e| format!("{e:?}"))
    }

    #[test]
    fn a_move_as_a_chess_player_writes_it_is_his_try() {
        let start = Board::default();
        let white = |s| uci(read(s, &start, Color::White));
        assert_eq!(white("e4"), "e2e4");
        assert_eq!(white("e3"), "e2e3");
        assert_eq!(white("Nf3"), "g1f3");
        assert_eq!(white("nc3"), "b1c3");
        assert_eq!(white("Nf3+"), "g1f3");
        assert_eq!(white("NF3"), "g1f3");
        assert_eq!(white("NXf3"), "g1f3");
        assert_eq!(white("c2-c4"), "c2c4");
        assert_eq!(white("Ng1-f3"), "g1f3");
        assert_eq!(
            white("Bb1"),
            format!("{:?}", Unread::NoMan(Role::Bishop, Square::B1))
        );
        assert_eq!(white("EXD3"), "e2d3");
        // A pawn's take is tried whatever stands there: he cannot know.
        assert_eq!(white("exd3"), "e2d3");
        assert_eq!(white("ed3"), "e2d3");
        assert_eq!(uci(read("e5", &start, Color::Black)), "e7e5");
        assert_eq!(uci(read("Nf6", &start, Color::Black)), "g8f6");
    }

    #[test]
    fn his_own_men_alone_decide_which_man_is_meant() {
        // Two white knights reach d2 (b1 and f3); his own bishop on e2 blocks the queen.
        let b = board("4k3/8/8/8/8/5N2/4B3/1N1QK3 w - - 0 1");
        let white = |s| uci(read(s, &b, Color::White));
        assert_eq!(
            white("Nd2"),
            format!(
                "{:?}",
                Unread::Which(Role::Knight, vec![Square::B1, Square::F3])
            )
        );
        assert_eq!(white("Nbd2"), "b1d2");
        assert_eq!(white("N3d2"), "f3d2");
        assert_eq!(white("Nfd2"), "f3d2");
        assert_eq!(white("Qd4"), "d1d4");
        // Through his own bishop: no.
        assert_eq!(
            white("Qf3"),
            format!("{:?}", Unread::NoMan(Role::Queen, Square::F3))
        );
        // Onto his own man: no.
        assert_eq!(
            white("Ke2"),
            format!("{:?}", Unread::NoMan(Role::King, Square::E2))
        );
        // A man he does not have.
        assert_eq!(
            white("Rd1"),
            format!("{:?}", Unread::NoMan(Role::Rook, Square::D1))
        );
    }

    #[test]
    fn a_small_b_is_a_pawn_or_else_a_bishop() {
        // White: bishop c1, pawns b2 and d2 gone; "bc3" is the pawn's take, "be3" the bishop.
        let b = board("4k3/8/8/8/8/8/1P6/2B1K3 w - - 0 1");
        let white = |s| uci(read(s, &b, Color::White));
        assert_eq!(white("bc3"), "b2c3");
        assert_eq!(white("bxc3"), "b2c3");
        assert_eq!(white("be3"), "c1e3");
        assert_eq!(white("bb4"), format!("{:?}", Unread::NotAMove));
        assert_eq!(
            uci(read(
                "exd6 e.p.",
                &board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"),
                Color::White
            )),
            "e5d6"
        );
    }

    #[test]
    fn pawns_step_take_and_promote() {
        let b = board("4k3/3P4/8/8/4p3/8/5P2/4K3 b - - 0 1");
        assert_eq!(uci(read("e3", &b, Color::Black)), "e4e3");
        assert_eq!(uci(read("exf3", &b, Color::Black)), "e4f3");
        assert_eq!(uci(read("d8=Q", &b, Color::White)), "d7d8q");
        assert_eq!(uci(read("d8N", &b, Color::White)), "d7d8n");
        assert_eq!(uci(read("dxc8=R+", &b, Color::White)), "d7c8r");
        assert_eq!(uci(read("f4", &b, Color::White)), "f2f4");
        // Two steps over his own man: no.
        let blocked = board("4k3/8/8/8/8/5N2/5P2/4K3 w - - 0 1");
        assert_eq!(
            uci(read("f4", &blocked, Color::White)),
            format!("{:?}", Unread::NoMan(Role::Pawn, Square::F4))
        );
        assert_eq!(
            uci(read("d8=K", &b, Color::White)),
            format!("{:?}", Unread::NotAMove)
        );
    }

    #[test]
    fn what_is_no_move_is_not_read_as_one() {
        let start = Board::default();
        for s in [
            "", "hello", "z9", "Nf", "N", "e9", "e2e4e5", "Nb1c3d", "Kd1=Q",
        ] {
            assert_eq!(read(s, &start, Color::White), Err(Unread::NotAMove), "{s}");
        }
    }
}
