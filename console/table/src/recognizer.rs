//! One player's board as the table sees it: the reconstructed occupancy, and where it
//! stands against his men's official squares (docs/OVER-THE-BOARD.md §3). The recognizer never
//! guesses: a board is either in sync, in one of the few shapes a try passes through,
//! or out of sync.

use kriegspiel_referee::Try;
use shakmaty::{Bitboard, CastlingSide, Chess, Color, Position, Role, Square};

use crate::input::BoardInput;
use crate::Millis;

/// A try standing on the board, complete once the board has been still for the settle window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Standing {
    /// Origin of the moved man and the square it stands on (castling: the king's move).
    pub tried: Try,
    /// Castling tried with both men moved: the rook's origin.
    pub rook: Option<Square>,
}

/// Where a board stands against the official position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Occupancy equals the official squares of his men.
    InSync,
    /// His turn: a man in hand, or one man of a castling still to come. Nothing to judge.
    Moving,
    /// His turn: one man moved to a new square (or both castling men moved).
    Standing(Standing),
    /// His turn: a captured man of his is still on his board; no try can complete.
    AwaitingRemoval(Square),
    /// Anything else: no verdict, guidance after the guidance delay.
    OutOfSync,
    /// The link is down: nothing is known about the board.
    Unknown,
}

impl Status {
    /// Whether the player should be guided once the board stays like this.
    pub(crate) const fn needs_guidance(self) -> bool {
        match self {
            Status::AwaitingRemoval(_) | Status::OutOfSync => true,
            Status::InSync | Status::Moving | Status::Standing(_) | Status::Unknown => false,
        }
    }
}

/// A refused try whose man has not yet come back to its origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Refused {
    tried: Try,
    /// The squares the men of the refused try must return to (king and rook for castling).
    origins: Bitboard,
}

/// One player's board and what he owes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recognizer {
    color: Color,
    occupancy: Bitboard,
    connected: bool,
    /// The last time a switch of this board changed (or the link came or went).
    last_change: Millis,
    /// The last time the board's standing changed without a switch (a verdict, a reminder).
    stirred: Millis,
    /// Touch-move: the man touched this turn (its official square), while the try is owed.
    touched: Option<Square>,
    refused: Option<Refused>,
    /// Strict touch-move: origins of men moved against it; out of sync until they are back.
    blocked: Bitboard,
    /// A captured man of his that must leave his board.
    removal: Option<Square>,
    /// His board has been in sync (his captured man aside) during his turn: only then can a
    /// try begin. A board still out of sync from the last turn never makes a try.
    armed: bool,
    /// The piece chosen beforehand for his next promotion; none means a queen.
    promotion: Option<Role>,
    /// The standing time for which guidance was last given.
    guided_for: Option<Millis>,
    /// Guidance was given and the board has not yet been put right.
    owes_back_in_sync: bool,
}

impl Recognizer {
    /// A board set up exactly as the official position: the console asks each board for a
    /// snapshot on connect, which corrects this if the board differs.
    pub(crate) fn new(color: Color, pos: &Chess, at: Millis) -> Recognizer {
        Recognizer {
            color,
            occupancy: pos.board().by_color(color),
            connected: true,
            last_change: at,
            stirred: at,
            touched: None,
            refused: None,
            blocked: Bitboard::EMPTY,
            removal: None,
            armed: true,
            promotion: None,
            guided_for: None,
            owes_back_in_sync: false,
        }
    }

    pub(crate) fn occupancy(&self) -> Bitboard {
        self.occupancy
    }

    /// Whether a snapshot of `occupancy` would tell it nothing new.
    pub(crate) fn shows(&self, occupancy: Bitboard) -> bool {
        self.connected && self.occupancy == occupancy
    }

    pub(crate) fn last_change(&self) -> Millis {
        self.last_change
    }

    pub(crate) fn touched(&self) -> Option<Square> {
        self.touched
    }

    pub(crate) fn promotion(&self) -> Option<Role> {
        self.promotion
    }

    pub(crate) fn choose_promotion(&mut self, role: Role) {
        self.promotion = Some(role);
    }

    /// Since when the board has stood as it stands now.
    pub(crate) fn standing_since(&self) -> Millis {
        self.last_change.max(self.stirred)
    }

    pub(crate) fn stir(&mut self, at: Millis) {
        self.stirred = self.stirred.max(at);
    }

    /// The official squares of his men.
    fn official(&self, pos: &Chess) -> Bitboard {
        pos.board().by_color(self.color)
    }

    fn pending_removal(&self, official: Bitboard) -> Option<Square> {
        self.removal
            .filter(|r| self.occupancy.contains(*r) && !official.contains(*r))
    }

    /// Applies one sensor report. Returns whether anything about the board changed.
    pub(crate) fn apply(
        &mut self,
        input: BoardInput,
        at: Millis,
        pos: &Chess,
        his_turn: bool,
        touch_move: bool,
    ) -> bool {
        let changed = match input {
            BoardInput::Lift(sq) => {
                if !self.occupancy.contains(sq) {
                    return false;
                }
                let official = self.official(pos);
                let pending = self.pending_removal(official);
                if pending == Some(sq) {
                    // Removing his captured man is not a touch.
                    self.removal = None;
                } else if his_turn
                    && touch_move
                    && self.connected
                    && self.touched.is_none()
                    && official.contains(sq)
                    && self.armed
                    && self.occupancy.without(Bitboard::from_iter(pending)) == official
                {
                    self.touched = Some(sq);
                }
                self.occupancy.discard(sq);
                true
            }
            BoardInput::Place(sq) => {
                if self.occupancy.contains(sq) {
                    return false;
                }
                self.occupancy.add(sq);
                true
            }
            BoardInput::Snapshot(bb) => {
                let was_connected = self.connected;
                self.connected = true;
                // A board known to stand on the official squares that a snapshot shows with
                // a man where none of his stands (its first at a new game, or one whose lift
                // and place were both lost) is out of sync until put right: that man was
                // never seen to start, and is no try. A man only missing (in his hand when
                // the board came back) is a try begun as usual. A board left one move on from the last game made
                // that move for its player (club trial).
                let official = self.official(pos);
                if self.occupancy == official && !(bb & !official).is_empty() {
                    self.armed = false;
                }
                if bb == self.occupancy && was_connected {
                    return false;
                }
                self.occupancy = bb;
                true
            }
            // The board stays unknown until the snapshot it sends on connecting.
            BoardInput::Connected { .. } => false,
            BoardInput::Disconnected => core::mem::replace(&mut self.connected, false),
        };
        if changed {
            self.last_change = self.last_change.max(at);
            self.tidy();
            self.arm(pos);
        }
        changed
    }

    /// Arms the board once it is in sync, apart from a captured man still to remove.
    fn arm(&mut self, pos: &Chess) {
        let official = self.official(pos);
        let pending = self.pending_removal(official);
        if self.occupancy.without(Bitboard::from_iter(pending)) == official {
            self.armed = true;
        }
    }

    /// Forgets what the board has put right.
    fn tidy(&mut self) {
        if self
            .refused
            .is_some_and(|r| r.origins.is_subset(self.occupancy))
        {
            self.refused = None;
        }
        if self.blocked.is_subset(self.occupancy) {
            self.blocked = Bitboard::EMPTY;
        }
        if self.removal.is_some_and(|r| !self.occupancy.contains(r)) {
            self.removal = None;
        }
    }

    /// Where the board stands. `his_turn` is false once the game is over.
    pub(crate) fn status(&self, pos: &Chess, his_turn: bool) -> Status {
        if !self.connected {
            return Status::Unknown;
        }
        let official = self.official(pos);
        if self.occupancy == official {
            return Status::InSync;
        }
        if !his_turn || !self.armed || !self.blocked.is_subset(self.occupancy) {
            return Status::OutOfSync;
        }
        let pending = self.pending_removal(official);
        let seen = self.occupancy.without(Bitboard::from_iter(pending));
        let missing = official & !seen;
        let extra = seen & !official;
        let shape = match (missing.count(), extra.count()) {
            (0, 0) => Status::InSync,
            (1, 0) => Status::Moving,
            (1, 1) => match (missing.first(), extra.first()) {
                (Some(from), Some(to)) => Status::Standing(Standing {
                    tried: Try::new(from, to),
                    rook: None,
                }),
                _ => Status::OutOfSync,
            },
            (2, 1) | (2, 2) => castling_shape(pos, self.color, missing, extra),
            _ => Status::OutOfSync,
        };
        let shape = match (shape, self.refused) {
            // After a refusal only the same man may try again, from the same origin, and
            // only on another square.
            (Status::Standing(s), Some(r))
                if s.tried.from != r.tried.from || s.tried.to == r.tried.to =>
            {
                Status::OutOfSync
            }
            (shape, _) => shape,
        };
        match (pending, shape) {
            (_, Status::OutOfSync) => Status::OutOfSync,
            (Some(r), _) => Status::AwaitingRemoval(r),
            (None, shape) => shape,
        }
    }

    /// The square-by-square guidance for a board that needs it.
    pub(crate) fn guidance(&self, pos: &Chess, status: Status) -> Vec<crate::PrivateMessage> {
        use crate::PrivateMessage::{ManMissing, RemoveCaptured, SquareShouldBeEmpty};
        if let Status::AwaitingRemoval(r) = status {
            return vec![RemoveCaptured(r)];
        }
        let official = self.official(pos);
        (official ^ self.occupancy)
            .into_iter()
            .map(|sq| {
                if !self.occupancy.contains(sq) {
                    ManMissing(sq)
                } else if self.removal == Some(sq) {
                    RemoveCaptured(sq)
                } else {
                    SquareShouldBeEmpty(sq)
                }
            })
            .collect()
    }

    /// Whether guidance is due for the board's current standing, and when.
    pub(crate) fn guidance_due(&self, status: Status, guide_ms: u32) -> Option<Millis> {
        let since = self.standing_since();
        (status.needs_guidance() && self.guided_for != Some(since))
            .then(|| since.saturating_add(Millis::from(guide_ms)))
    }

    pub(crate) fn mark_guided(&mut self) {
        self.guided_for = Some(self.standing_since());
        self.owes_back_in_sync = true;
    }

    /// Whether to tell the player his board is right again (once, after guidance).
    pub(crate) fn take_back_in_sync(&mut self, status: Status) -> bool {
        let right = match status {
            Status::InSync | Status::Moving | Status::Standing(_) => true,
            Status::AwaitingRemoval(_) | Status::OutOfSync | Status::Unknown => false,
        };
        right && core::mem::replace(&mut self.owes_back_in_sync, false)
    }

    /// Strict touch-move: the try was not adjudicated; its men must go back.
    pub(crate) fn block(&mut self, standing: Standing) {
        self.blocked = Bitboard::from(standing.tried.from) | Bitboard::from_iter(standing.rook);
    }

    /// A refused try: the man goes back, or tries again from the same origin.
    pub(crate) fn refused(
        &mut self,
        standing: Standing,
        castling_rook: Option<Square>,
        releases_touch: bool,
    ) {
        self.refused = Some(Refused {
            tried: standing.tried,
            origins: Bitboard::from(standing.tried.from) | Bitboard::from_iter(castling_rook),
        });
        if releases_touch {
            self.touched = None;
        }
        self.tidy();
    }

    /// His legal try was played: a new turn for the opponent.
    pub(crate) fn moved(&mut self, promoted: bool) {
        self.touched = None;
        self.refused = None;
        self.blocked = Bitboard::EMPTY;
        if promoted {
            self.promotion = None;
        }
    }

    /// A refused try by keys or voice with the touched man: he is free again.
    pub(crate) fn release_touch(&mut self) {
        self.touched = None;
    }

    /// A board the table keeps itself: it shows the official position, always.
    pub(crate) fn follow(&mut self, pos: &Chess) {
        self.occupancy = self.official(pos);
        self.connected = true;
        self.refused = None;
        self.blocked = Bitboard::EMPTY;
        self.removal = None;
        self.armed = true;
        self.owes_back_in_sync = false;
    }

    /// The official position changed under him (an arbiter's correction or take-back): he
    /// owes nothing, and his board must first match the new position.
    pub(crate) fn reset(&mut self, pos: &Chess, at: Millis) {
        self.touched = None;
        self.refused = None;
        self.blocked = Bitboard::EMPTY;
        self.removal = None;
        self.armed = false;
        self.guided_for = None;
        self.stir(at);
        self.arm(pos);
    }

    /// The opponent's legal try was played: his turn begins, maybe with a man to remove.
    pub(crate) fn opponent_moved(&mut self, captured: Option<Square>, pos: &Chess) {
        self.touched = None;
        self.refused = None;
        self.blocked = Bitboard::EMPTY;
        self.removal = captured.filter(|sq| self.occupancy.contains(*sq));
        self.armed = false;
        self.arm(pos);
    }
}

/// The castling rook of a king's two-square try along its rank, where the right exists.
pub(crate) fn castling_rook(pos: &Chess, color: Color, tried: Try) -> Option<Square> {
    let board = pos.board();
    if board.king_of(color) != Some(tried.from) || tried.from.rank() != tried.to.rank() {
        return None;
    }
    let side = match tried.to.file() as i32 - tried.from.file() as i32 {
        2 => CastlingSide::KingSide,
        -2 => CastlingSide::QueenSide,
        _ => return None,
    };
    let castles = pos.castles();
    castles
        .rook(color, side)
        .filter(|_| castles.has(color, side))
}

/// Both castling men moved (a try), or one of them on its castled square and the other in
/// hand (still moving). Anything else with two men off their squares is out of sync.
fn castling_shape(pos: &Chess, color: Color, missing: Bitboard, extra: Bitboard) -> Status {
    let Some(king) = pos.board().king_of(color) else {
        return Status::OutOfSync;
    };
    let castles = pos.castles();
    for side in CastlingSide::ALL {
        let Some(rook) = castles
            .rook(color, side)
            .filter(|_| castles.has(color, side))
        else {
            continue;
        };
        if missing != Bitboard::from(king) | Bitboard::from(rook) {
            continue;
        }
        let king_to = side.king_to(color);
        let rook_to = side.rook_to(color);
        let both = Bitboard::from(king_to) | Bitboard::from(rook_to);
        if extra == both {
            return Status::Standing(Standing {
                tried: Try::new(king, king_to),
                rook: Some(rook),
            });
        }
        if extra == Bitboard::from(king_to) || extra == Bitboard::from(rook_to) {
            return Status::Moving;
        }
    }
    Status::OutOfSync
}

/// Whether a try is made with the touched man (castling is a move of the king and the rook).
pub(crate) fn made_with(pos: &Chess, color: Color, tried: Try, touched: Square) -> bool {
    tried.from == touched || castling_rook(pos, color, tried) == Some(touched)
}

/// The promotion a try carries: the chosen piece when a pawn reaches the last rank.
pub(crate) fn with_promotion(pos: &Chess, color: Color, tried: Try, chosen: Option<Role>) -> Try {
    let is_pawn = pos.board().role_at(tried.from) == Some(Role::Pawn)
        && pos.board().by_color(color).contains(tried.from);
    let last = match color {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    };
    Try {
        promotion: if is_pawn && tried.to.rank() == last {
            chosen
        } else {
            None
        },
        ..tried
    }
}
