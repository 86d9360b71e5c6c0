//! A DGT board's settled placements as a table's inputs: pure, no I/O, no clock.
//!
//! Only the owner's colour codes are his men. Each settled placement is compared with the
//! last one: a square his man left is a lift, a square his man came to a place, and a
//! vacated square is paired with the new square of the same man so that a move is given
//! as lift-from then place-to (a castling king's move before its rook's; a man of a refused
//! try going back before the next try). A man of his colour other than a pawn put on his
//! last rank as his pawn leaves the rank before it is a promotion to that piece. The
//! opponent's colour (guess men) and foreign objects never make an input: they are notices
//! for the arbiter.

use kriegspiel_dgt::{Content, Placement};
use kriegspiel_referee::shakmaty::{Bitboard, Color, Piece, Rank, Role, Square};
use kriegspiel_table::{BoardInput, BoardNotice};

/// What a placement gives the table, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fed {
    /// A lift, a place, or the whole occupancy (after a (re)connection).
    Board(BoardInput),
    /// The piece his next promotion becomes: read from the man he put on the last rank.
    Promote(Role),
    /// For the arbiter only.
    Notice(BoardNotice),
}

/// Men lifted and not yet put down that the reader keeps in mind: more is no move.
const MAX_HAND: usize = 32;

/// One DGT board's reader: the last placement and the men in the owner's hand.
#[derive(Debug, Clone)]
pub struct DgtReader {
    owner: Color,
    /// The last placement read; none until the first of a connection.
    last: Option<[Content; 64]>,
    /// His men lifted (square left, role), oldest first, not yet paired with a new square.
    hand: Vec<(Square, Role)>,
    /// The last move read (from, to): the same man going back is paired first.
    last_move: Option<(Square, Square)>,
    /// Squares of his men the opponent captured, still standing on his board when last read.
    dead: Bitboard,
}

/// One pairing of a square his man left with the square it came to.
#[derive(Debug, Clone, Copy)]
struct Pair {
    from: Square,
    to: Square,
    /// The lift is new (not given with an earlier placement).
    fresh: bool,
    promote: Option<Role>,
    undo: bool,
    king: bool,
}

impl DgtReader {
    pub fn new(owner: Color) -> DgtReader {
        DgtReader {
            owner,
            last: None,
            hand: Vec::new(),
            last_move: None,
            dead: Bitboard::EMPTY,
        }
    }

    /// The opponent captured his men on `squares`: each stays on his board until he takes
    /// it off. He may take it off and put another man of his on its square before the board
    /// settles: the square then shows a man of his both times, and only the man missing
    /// elsewhere tells that it is another.
    ///
    /// Read after the placement that shows it (the board settled before the table's verdict
    /// reached the reader): a captured man's square already empty drops it from the hand;
    /// one showing a man of his while a man of that piece is in his hand is read as the
    /// captured man taken off and that man put there.
    pub fn captured(&mut self, squares: Bitboard) -> Vec<Fed> {
        let mut out = Vec::new();
        for d in squares {
            let here = match self.last.as_ref().map(|l| l[usize::from(d)]) {
                Some(Content::Man(p)) if p.color == self.owner => Some(p.role),
                _ => None,
            };
            match here {
                None => self.hand.retain(|&(s, _)| s != d),
                Some(role) => match self.hand.iter().rposition(|&(s, r)| s != d && r == role) {
                    Some(i) => {
                        self.hand.remove(i);
                        out.push(Fed::Board(BoardInput::Lift(d)));
                        out.push(Fed::Board(BoardInput::Place(d)));
                    }
                    None => self.dead.add(d),
                },
            }
        }
        out
    }

    /// Whose board it is.
    pub fn owner(&self) -> Color {
        self.owner
    }

    /// The board is gone: its next placement is read afresh, as a whole occupancy.
    pub fn lost(&mut self) {
        self.last = None;
        self.hand.clear();
        self.last_move = None;
        self.dead = Bitboard::EMPTY;
    }

    /// The owner's men in a placement.
    pub fn occupancy(&self, placement: &Placement) -> Bitboard {
        placement
            .iter()
            .filter(|(_, c)| matches!(c, Content::Man(p) if p.color == self.owner))
            .map(|(sq, _)| sq)
            .collect()
    }

    /// The table's inputs and the arbiter's notices for one settled placement.
    pub fn read(&mut self, placement: &Placement) -> Vec<Fed> {
        let now: [Content; 64] = std::array::from_fn(|i| placement.get(square(i)));
        let Some(before) = self.last.replace(now) else {
            // The first placement of a connection: the whole occupancy, and what else stands.
            let mut out = vec![Fed::Board(BoardInput::Snapshot(self.occupancy(placement)))];
            out.extend(self.notices(&[Content::Empty; 64], &now));
            return out;
        };
        let (replaced, taken_off) = self.replaced_dead(&before, &now);
        let gone = replaced | taken_off;
        let own = |c: Content| match c {
            Content::Man(p) if p.color == self.owner => Some(p.role),
            Content::Man(_) | Content::Empty | Content::Foreign(_) => None,
        };
        let changed = |i: usize| own(before[i]) != own(now[i]) || replaced.contains(square(i));
        let vacated: Vec<(Square, Role)> = (0..64)
            .filter(|&i| changed(i))
            .filter_map(|i| own(before[i]).map(|r| (square(i), r)))
            .collect();
        let mut arrived: Vec<(Square, Role)> = (0..64)
            .filter(|&i| changed(i))
            .filter_map(|i| own(now[i]).map(|r| (square(i), r)))
            .collect();
        // A king first: castling is the king's move, then the rook's.
        arrived.sort_by_key(|&(sq, r)| (r != Role::King, sq));
        let mut fresh_from = self.hand.len();
        self.hand
            .extend(vacated.iter().filter(|&&(sq, _)| !gone.contains(sq)));
        let mut pairs = Vec::new();
        let mut unpaired_places = Vec::new();
        for (to, role) in arrived {
            match self.partner(to, role, fresh_from, replaced.contains(to)) {
                Some((i, promote, undo)) => {
                    let (from, _) = self.hand.remove(i);
                    if i < fresh_from {
                        fresh_from -= 1;
                    }
                    let fresh = vacated.iter().any(|&(sq, _)| sq == from);
                    pairs.push(Pair {
                        from,
                        to,
                        fresh,
                        promote,
                        undo,
                        king: role == Role::King,
                    });
                }
                None => unpaired_places.push(to),
            }
        }
        let mut out = Vec::new();
        // Lifts nothing came of yet (a captured man taken off, a man in the hand) first.
        for &(sq, _) in &vacated {
            if !pairs.iter().any(|p| p.from == sq) {
                out.push(Fed::Board(BoardInput::Lift(sq)));
            }
        }
        pairs.sort_by_key(|p| (!p.undo, !p.king));
        for p in &pairs {
            if let Some(role) = p.promote {
                out.push(Fed::Promote(role));
            }
            if p.fresh {
                out.push(Fed::Board(BoardInput::Lift(p.from)));
            }
            out.push(Fed::Board(BoardInput::Place(p.to)));
        }
        self.last_move = pairs.iter().rev().find(|p| !p.undo).map(|p| (p.from, p.to));
        out.extend(
            unpaired_places
                .into_iter()
                .map(|sq| Fed::Board(BoardInput::Place(sq))),
        );
        if self.hand.len() > MAX_HAND {
            let extra = self.hand.len() - MAX_HAND;
            self.hand.drain(..extra);
        }
        out.extend(self.notices(&before, &now));
        out
    }

    /// Squares of captured men of his that show a man of his again, and a man of that piece
    /// is missing from elsewhere (left in this placement, or held): the captured man was
    /// taken off and that man put there. The others are forgotten once their square is
    /// empty.
    /// Also the squares whose captured men were taken off (gone for good: never in hand).
    fn replaced_dead(
        &mut self,
        before: &[Content; 64],
        now: &[Content; 64],
    ) -> (Bitboard, Bitboard) {
        let own = |c: Content| match c {
            Content::Man(p) if p.color == self.owner => Some(p.role),
            Content::Man(_) | Content::Empty | Content::Foreign(_) => None,
        };
        let mut replaced = Bitboard::EMPTY;
        for d in self.dead {
            let i = usize::from(d);
            let (Some(_), Some(role)) = (own(before[i]), own(now[i])) else {
                continue;
            };
            let left_now = (0..64)
                .any(|j| j != i && own(before[j]) == Some(role) && own(now[j]) != Some(role));
            let held = self.hand.iter().any(|&(s, r)| s != d && r == role);
            if left_now || held {
                replaced.add(d);
            }
        }
        let empty: Bitboard = (0..64)
            .filter(|&i| own(now[i]).is_none())
            .map(square)
            .collect();
        let taken_off = self.dead & empty;
        self.dead = self.dead & !empty & !replaced;
        (replaced, taken_off)
    }

    /// The man in hand that came to `to` as `role`: its index, the promotion it makes, and
    /// whether it is the last move's man going back. `replaced`: a captured man of his was
    /// taken off `to`, and is not the man that came.
    fn partner(
        &self,
        to: Square,
        role: Role,
        fresh_from: usize,
        replaced: bool,
    ) -> Option<(usize, Option<Role>, bool)> {
        if let Some((from, at)) = self.last_move {
            if to == from {
                if let Some(i) = self.hand.iter().position(|&(s, r)| s == at && r == role) {
                    return Some((i, None, true));
                }
            }
        }
        // A man of the same piece lifted in this placement, else a pawn promoting, else one
        // held since an earlier placement (a captured man taken off stays in the hand for
        // good): the nearest of each.
        let same = |fresh: bool| {
            self.hand
                .iter()
                .enumerate()
                .filter(|&(i, &(s, r))| {
                    r == role && !(replaced && s == to) && (i >= fresh_from) == fresh
                })
                .min_by_key(|&(_, &(s, _))| s.distance(to))
                .map(|(i, _)| (i, None, false))
        };
        let promotable = matches!(role, Role::Queen | Role::Rook | Role::Bishop | Role::Knight);
        let promoting = || {
            (promotable && to.rank() == self.last_rank())
                .then(|| self.promoting_pawn(to))
                .flatten()
                .map(|i| (i, Some(role), false))
        };
        same(true).or_else(promoting).or_else(|| same(false))
    }

    /// His rank of promotion.
    fn last_rank(&self) -> Rank {
        self.owner.fold_wb(Rank::Eighth, Rank::First)
    }

    /// The pawn in his hand that may have gone to `to` on the last rank.
    fn promoting_pawn(&self, to: Square) -> Option<usize> {
        let seventh = self.owner.fold_wb(Rank::Seventh, Rank::Second);
        self.hand.iter().position(|&(s, r)| {
            r == Role::Pawn && s.rank() == seventh && s.file().distance(to.file()) <= 1
        })
    }

    /// What the arbiter is told about what is new on the board and is not his men.
    fn notices(&self, before: &[Content; 64], now: &[Content; 64]) -> Vec<Fed> {
        let mut out = Vec::new();
        let mut guesses = Vec::new();
        for i in 0..64 {
            if before[i] == now[i] {
                continue;
            }
            let sq = square(i);
            match now[i] {
                Content::Foreign(code) => {
                    out.push(Fed::Notice(BoardNotice::Foreign { square: sq, code }))
                }
                Content::Man(piece) if piece.color != self.owner => {
                    if self.wrong_promotion(sq, piece) {
                        out.push(Fed::Notice(BoardNotice::WrongPromotion {
                            square: sq,
                            piece,
                        }));
                    } else {
                        guesses.push((sq, piece));
                    }
                }
                Content::Man(_) | Content::Empty => {}
            }
        }
        if !guesses.is_empty() {
            let on_board = now
                .iter()
                .filter(|c| matches!(c, Content::Man(p) if p.color != self.owner))
                .count();
            out.insert(
                0,
                Fed::Notice(BoardNotice::GuessMen {
                    placed: guesses,
                    on_board,
                }),
            );
        }
        out
    }

    /// A man of the other colour put on his last rank while his pawn is off the rank before.
    fn wrong_promotion(&self, sq: Square, piece: Piece) -> bool {
        !matches!(piece.role, Role::Pawn | Role::King)
            && sq.rank() == self.last_rank()
            && self.promoting_pawn(sq).is_some()
    }
}

fn square(i: usize) -> Square {
    Square::new(u32::try_from(i).unwrap_or(0) & 63)
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
