//! The referee: the one official position and every ruling of docs/RULES.md.

use shakmaty::attacks::{knight_attacks, pawn_attacks, ray};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Position, Role, Square,
};

use crate::announce::{
    Capture, CheckKind, Checks, End, EndReason, GameResult, Man, PawnTries, Question, Refusal,
    RefusalKind, Reply, Report, Try, Verdict,
};
use crate::own_board::own_board_targets;
use crate::rules::{Options, RuleSet, TrySquares};
use crate::setup::position_from_fen;
use crate::Error;

/// How a game starts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameConfig {
    pub rules: RuleSet,
    pub options: Options,
    /// `None`: the standard start position.
    pub fen: Option<String>,
}

/// Where the side to move stands with its one "Any?" of the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnyState {
    NotAsked,
    /// Answered yes: Berkeley+Any? allows only pawn captures; Russian owes one pawn-capture try.
    Yes,
    /// Answered no.
    No,
    /// Russian: the owed pawn-capture try was made; play is free, the question is spent.
    Settled,
}

/// Pawn captures available to the side to move, from its legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct PawnCaptures {
    /// One per (from, to), en passant included, promotions once.
    count: u8,
    destinations: Bitboard,
    sources: Bitboard,
}

/// The referee of one game. Every method leaves the game unchanged when it returns an error
/// or a refusal (apart from what a refusal itself counts: repeats and rebuffs).
#[derive(Debug, Clone)]
pub struct Referee {
    rules: RuleSet,
    options: Options,
    pos: Chess,
    /// Legal moves of the side to move: computed once per turn, so a refused try costs a scan.
    legal: MoveList,
    pawn_captures: PawnCaptures,
    report: Report,
    /// Position keys since the last irreversible move, for threefold repetition (earlier
    /// positions cannot recur). Empty in Berkeley games, which have no repetition rule.
    history: Vec<u64>,
    /// Normalised tries refused this turn.
    refused: Vec<Try>,
    any: AnyState,
    rebuffs_this_turn: u32,
    rebuffs_last_turn: u32,
}

impl Referee {
    /// Starts a game; the report is what the referee announces before the first try.
    pub fn new(config: &GameConfig) -> Result<Referee, Error> {
        let pos = position_from_fen(config.rules, config.fen.as_deref())?;
        Ok(Referee::from_position(config.rules, config.options, pos))
    }

    /// Starts a game from an already validated position (the arbiter's correction, tests).
    pub fn from_position(rules: RuleSet, options: Options, pos: Chess) -> Referee {
        let legal = pos.legal_moves();
        let pawn_captures = pawn_captures(&legal);
        let mut referee = Referee {
            rules,
            options,
            history: if rules.is_berkeley() {
                Vec::new()
            } else {
                vec![position_key(&pos)]
            },
            pos,
            legal,
            pawn_captures,
            report: Report {
                rules,
                mover: None,
                played: None,
                to_move: Color::White,
                capture: None,
                checks: Checks::default(),
                pawn_tries: PawnTries::Silent,
                promotion: None,
                end: None,
            },
            refused: Vec::with_capacity(16),
            any: AnyState::NotAsked,
            rebuffs_this_turn: 0,
            rebuffs_last_turn: 0,
        };
        referee.report = referee.announce(None, None, None, false);
        referee
    }

    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// The official position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The last report (the start of the game or the last legal try): what may be repeated.
    pub fn last_report(&self) -> &Report {
        &self.report
    }

    pub fn end(&self) -> Option<End> {
        self.report.end
    }

    /// How many positions the referee remembers for the repetition rule: those since the
    /// last capture or pawn move, and none at all in Berkeley games (no repetition rule), so
    /// a game's memory stays flat however long it lasts.
    pub fn remembered_positions(&self) -> usize {
        self.history.len()
    }

    /// Adjudicates a try by the side to move. A legal try is played at once.
    pub fn try_move(&mut self, t: Try) -> Result<Verdict, Error> {
        if self.report.end.is_some() {
            return Err(Error::GameOver);
        }
        let attempt = self.is_pawn_capture_attempt(t);
        if let Some(kind) = self.owed_refusal(attempt) {
            return Ok(self.refuse(t, kind));
        }
        if self.any == AnyState::Yes && self.rules == RuleSet::Russian {
            // The owed pawn-capture try is being made now; after it play is free.
            self.any = AnyState::Settled;
        }
        match self.find_legal(t) {
            Some(m) => Ok(Verdict::Moved(self.play(t, m))),
            None => {
                let kind = self.classify(t, attempt);
                Ok(self.refuse(t, kind))
            }
        }
    }

    /// Answers a question of the side to move.
    pub fn ask(&mut self, q: Question) -> Result<Reply, Error> {
        if self.report.end.is_some() {
            return Err(Error::GameOver);
        }
        let asker = self.pos.turn();
        let refused = Reply::Refused(Refusal {
            rules: self.rules,
            kind: self.impossible_kind(),
            mover: asker,
        });
        Ok(match q {
            Question::Any => {
                if !self.rules.has_any_question() || self.any != AnyState::NotAsked {
                    return Ok(refused);
                }
                let yes = self.pawn_captures.count > 0;
                self.any = if yes { AnyState::Yes } else { AnyState::No };
                Reply::PawnCaptures {
                    rules: self.rules,
                    asker,
                    yes,
                }
            }
            Question::Rebuffs => {
                if self.rules != RuleSet::Rand {
                    return Ok(refused);
                }
                // Nothing has been played since the game was set up: the opponent has had no
                // turn whose rebuffs could be counted.
                let opponent_moved = self.report.played.is_some();
                Reply::Rebuffs {
                    rules: self.rules,
                    asker,
                    count: opponent_moved.then_some(self.rebuffs_last_turn),
                }
            }
        })
    }

    /// The refusal a rule set gives where it has no "impossible": its one kind.
    fn impossible_kind(&self) -> RefusalKind {
        if self.rules.distinguishes_impossible() {
            RefusalKind::Impossible
        } else {
            RefusalKind::Illegal
        }
    }

    /// A refusal that holds even for a legal try: the consequences of "Any?".
    fn owed_refusal(&self, attempt: bool) -> Option<RefusalKind> {
        match (self.rules, self.any, attempt) {
            (RuleSet::BerkeleyAny, AnyState::Yes, false) => Some(RefusalKind::Impossible),
            (RuleSet::BerkeleyAny, AnyState::No, true) => Some(RefusalKind::Impossible),
            (RuleSet::Russian, AnyState::Yes, false) => Some(RefusalKind::Illegal),
            _ => None,
        }
    }

    fn refuse(&mut self, t: Try, kind: RefusalKind) -> Verdict {
        let key = self.normalise(t);
        if !self.refused.contains(&key) {
            self.refused.push(key);
        }
        self.rebuffs_this_turn = self.rebuffs_this_turn.saturating_add(1);
        Verdict::Refused(Refusal {
            rules: self.rules,
            kind,
            mover: self.pos.turn(),
        })
    }

    /// `e7e8` and `e7e8q` are the same try.
    fn normalise(&self, t: Try) -> Try {
        let turn = self.pos.turn();
        let is_pawn = (self.pos.our(Role::Pawn)).contains(t.from);
        if is_pawn && t.to.rank() == last_rank(turn) {
            Try {
                promotion: Some(t.promotion.unwrap_or(Role::Queen)),
                ..t
            }
        } else {
            t
        }
    }

    fn find_legal(&self, t: Try) -> Option<Move> {
        let wanted = Some(self.normalise(t));
        self.legal
            .iter()
            .copied()
            .find(|m| Try::from_move(m) == wanted)
    }

    /// A diagonal one-step forward pawn move onto a square not holding an own man.
    fn is_pawn_capture_attempt(&self, t: Try) -> bool {
        let turn = self.pos.turn();
        self.pos.our(Role::Pawn).contains(t.from)
            && pawn_attacks(turn, t.from).contains(t.to)
            && !self.pos.us().contains(t.to)
            && promotion_fits(turn, t)
    }

    /// Possible on the own board (docs/RULES.md §3.1): a target of the shared own-board
    /// generator, with a promotion letter only on a pawn's move to the last rank.
    fn possible_on_own_board(&self, t: Try) -> bool {
        let turn = self.pos.turn();
        let is_pawn = self.pos.our(Role::Pawn).contains(t.from);
        let letter_fits = if is_pawn {
            promotion_fits(turn, t)
        } else {
            t.promotion.is_none()
        };
        letter_fits && own_board_targets(&self.pos, turn, t.from).contains(t.to)
    }

    /// Whether a try disregards the check the referee announced (docs/RULES.md §3.5), judged
    /// only from what the mover knows: the check kinds and his own men. Never from the
    /// en-passant square, which would tell him whether the opponent just double-stepped.
    fn ignores_check(&self, t: Try) -> bool {
        let turn = self.pos.turn();
        let checkers = self.pos.checkers();
        let Some(checker) = checkers.first() else {
            return false;
        };
        let Some(king) = self.pos.board().king_of(turn) else {
            return false;
        };
        if t.from == king {
            return castling_side(t).is_some();
        }
        if checkers.more_than_one() {
            return true;
        }
        let kind = CheckKind::between(king, checker);
        let line = match kind {
            CheckKind::Knight => knight_attacks(king),
            _ => ray(king, checker),
        };
        if line.contains(t.to) {
            return false;
        }
        let diagonal = matches!(kind, CheckKind::Long | CheckKind::Short);
        !(diagonal && self.is_en_passant_shaped(t, line, king))
    }

    /// The en-passant-shaped try of docs/RULES.md §3.5: a pawn-capture attempt from the
    /// pawn's fifth rank whose en-passant victim square (beside the pawn, behind the
    /// destination) is on the announced diagonal `line`, diagonally in front of the king:
    /// where an enemy pawn would give that check. Whether the opponent double-stepped does
    /// not enter.
    fn is_en_passant_shaped(&self, t: Try, line: Bitboard, king: Square) -> bool {
        let turn = self.pos.turn();
        let fifth = match turn {
            Color::White => shakmaty::Rank::Fifth,
            Color::Black => shakmaty::Rank::Fourth,
        };
        if t.from.rank() != fifth || !self.is_pawn_capture_attempt(t) {
            return false;
        }
        let victim = Square::from_coords(t.to.file(), t.from.rank());
        line.contains(victim) && pawn_attacks(turn, king).contains(victim)
    }

    /// Illegal or impossible, for a try that is not legal (docs/RULES.md §3).
    fn classify(&self, t: Try, attempt: bool) -> RefusalKind {
        use RefusalKind::{Illegal, Impossible};
        let rules = self.rules;
        if !rules.distinguishes_impossible() {
            return Illegal;
        }
        let repeats_impossible = matches!(
            rules,
            RuleSet::Cincinnati | RuleSet::Berkeley | RuleSet::BerkeleyAny
        );
        if repeats_impossible && self.refused.contains(&self.normalise(t)) {
            return Impossible;
        }
        if !self.possible_on_own_board(t) {
            return Impossible;
        }
        if attempt {
            let caps = self.pawn_captures;
            let unannounced = match rules {
                RuleSet::Cincinnati => caps.count == 0,
                RuleSet::Traditional => !caps.destinations.contains(t.to),
                RuleSet::Rand => match self.options.try_squares {
                    TrySquares::Destination => !caps.destinations.contains(t.to),
                    TrySquares::Source => !caps.sources.contains(t.from),
                },
                _ => false,
            };
            if unannounced {
                return Impossible;
            }
        }
        let check_rule_strict =
            rules == RuleSet::Rand || (rules == RuleSet::Cincinnati && self.options.strict);
        if check_rule_strict && self.ignores_check(t) {
            return Impossible;
        }
        Illegal
    }

    fn play(&mut self, t: Try, m: Move) -> Report {
        let mover = self.pos.turn();
        let capture = match m {
            Move::Normal {
                capture: Some(role),
                to,
                ..
            } => Some((to, role)),
            Move::EnPassant { from, to } => {
                Some((Square::from_coords(to.file(), from.rank()), Role::Pawn))
            }
            _ => None,
        };
        let promoted = m.is_promotion();
        self.pos.play_unchecked(m);
        self.legal = self.pos.legal_moves();
        self.pawn_captures = pawn_captures(&self.legal);
        if !self.rules.is_berkeley() {
            if self.pos.halfmoves() == 0 {
                self.history.clear();
            }
            self.history.push(position_key(&self.pos));
        }
        self.refused.clear();
        self.any = AnyState::NotAsked;
        self.rebuffs_last_turn = self.rebuffs_this_turn;
        self.rebuffs_this_turn = 0;
        let played = Try {
            promotion: m.promotion(),
            ..t
        };
        self.report = self.announce(Some(mover), Some(played), capture, promoted);
        self.report
    }

    /// The report for the current position: after a move by `mover`, or at the start.
    fn announce(
        &self,
        mover: Option<Color>,
        played: Option<Try>,
        capture: Option<(Square, Role)>,
        promoted: bool,
    ) -> Report {
        let rules = self.rules;
        let to_move = self.pos.turn();
        let checks = match self.pos.board().king_of(to_move) {
            Some(king) => Checks::of(king, self.pos.checkers()),
            None => Checks::default(),
        };
        let caps = self.pawn_captures;
        let pawn_tries = match rules {
            RuleSet::Cincinnati => PawnTries::Exists(caps.count > 0),
            RuleSet::Wild16 => PawnTries::Count(caps.count),
            RuleSet::Traditional => PawnTries::Squares(caps.destinations),
            RuleSet::Rand => PawnTries::Squares(match self.options.try_squares {
                TrySquares::Destination => caps.destinations,
                TrySquares::Source => caps.sources,
            }),
            RuleSet::Berkeley | RuleSet::BerkeleyAny | RuleSet::Russian => PawnTries::Silent,
        };
        let man_told = matches!(
            rules,
            RuleSet::Cincinnati | RuleSet::Wild16 | RuleSet::Traditional | RuleSet::Rand
        );
        Report {
            rules,
            mover,
            played,
            to_move,
            capture: capture.map(|(square, role)| Capture {
                square,
                man: man_told.then_some(if role == Role::Pawn {
                    Man::Pawn
                } else {
                    Man::Piece
                }),
            }),
            checks,
            pawn_tries,
            promotion: (rules == RuleSet::Rand).then_some(promoted),
            end: self.detect_end(),
        }
    }

    /// The end of the game in the current position, by precedence.
    fn detect_end(&self) -> Option<End> {
        let to_move = self.pos.turn();
        let winner = GameResult::win_for(!to_move);
        if self.legal.is_empty() {
            return Some(if self.pos.is_check() {
                End {
                    result: winner,
                    reason: EndReason::Checkmate,
                }
            } else {
                End {
                    result: if self.rules == RuleSet::Rand && self.options.ladder {
                        winner
                    } else {
                        GameResult::Draw
                    },
                    reason: EndReason::Stalemate,
                }
            });
        }
        let draw = |reason| {
            Some(End {
                result: GameResult::Draw,
                reason,
            })
        };
        if self.dead_material() {
            return draw(EndReason::InsufficientMaterial);
        }
        if self.rules.is_berkeley() {
            return None;
        }
        if self.pos.halfmoves() >= 100 {
            return draw(EndReason::FiftyMoves);
        }
        if self.repetitions() >= 3 {
            return draw(EndReason::Repetition);
        }
        None
    }

    fn dead_material(&self) -> bool {
        let board = self.pos.board();
        if (board.pawns() | board.rooks() | board.queens()).any() {
            return false;
        }
        if self.rules.is_berkeley() {
            // Neither side has two minor pieces.
            return Color::ALL
                .into_iter()
                .all(|c| ((board.knights() | board.bishops()) & board.by_color(c)).count() < 2);
        }
        let knights = board.knights().count();
        let bishops = board.bishops();
        (knights == 0
            && (bishops.is_subset(Bitboard::LIGHT_SQUARES)
                || bishops.is_subset(Bitboard::DARK_SQUARES)))
            || (knights == 1 && bishops.is_empty())
    }

    /// How often the current position has occurred (positions before the last irreversible
    /// move cannot recur, so only those since are compared).
    fn repetitions(&self) -> usize {
        let Some((&current, earlier)) = self.history.split_last() else {
            return 0;
        };
        let window = (self.pos.halfmoves() as usize).min(earlier.len());
        1 + earlier[earlier.len() - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == current)
            .count()
    }
}

/// FIDE identity of a position: men, side to move, castling rights, and the e.p. square only
/// when an e.p. capture is legal.
fn position_key(pos: &Chess) -> u64 {
    let Zobrist64(k) = pos.zobrist_hash(EnPassantMode::Legal);
    k
}

fn pawn_captures(legal: &MoveList) -> PawnCaptures {
    // A pawn captures towards the a-side or the h-side: one bit per (pawn, side) counts each
    // (from, to) pair once, however many promotion pieces it offers.
    let (mut towards_a, mut towards_h) = (Bitboard::EMPTY, Bitboard::EMPTY);
    let mut caps = PawnCaptures::default();
    for m in legal {
        if m.role() != Role::Pawn || !m.is_capture() {
            continue;
        }
        let Some(from) = m.from() else { continue };
        let to = m.to();
        if to.file() < from.file() {
            towards_a.add(from);
        } else {
            towards_h.add(from);
        }
        caps.destinations.add(to);
        caps.sources.add(from);
    }
    caps.count = (towards_a.count() + towards_h.count()) as u8;
    caps
}

fn last_rank(color: Color) -> shakmaty::Rank {
    match color {
        Color::White => shakmaty::Rank::Eighth,
        Color::Black => shakmaty::Rank::First,
    }
}

/// A promotion letter only on a pawn move to the last rank.
fn promotion_fits(turn: Color, t: Try) -> bool {
    t.promotion.is_none() || t.to.rank() == last_rank(turn)
}

/// The king's two-square move along its rank: how castling is tried.
fn castling_side(t: Try) -> Option<CastlingSide> {
    if t.from.rank() != t.to.rank() {
        return None;
    }
    match t.to.file() as i32 - t.from.file() as i32 {
        2 => Some(CastlingSide::KingSide),
        -2 => Some(CastlingSide::QueenSide),
        _ => None,
    }
}
