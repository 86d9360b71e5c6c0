//! Building a game: every ply of a definition played through the real referee, with the
//! hands that move the men on both boards, the keypad commands, and the answers the table
//! must print.

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    Bitboard, ByColor, Chess, Color, EnPassantMode, Position, Rank, Role, Square,
};
use kriegspiel_referee::{
    GameConfig, Lang, OptionValue, Options, Question, Referee, RefusalKind, Reply, Report, RuleSet,
    Try, Verdict, Wording,
};
use kriegspiel_table::{render, Output};
use serde_json::{json, Value};

use crate::definition::err;
use crate::ply::{parse_step, Step};
use crate::{Action, BoardScript, BuiltGame, Command, Coverage, GameDef, GameError, Timing};

/// Where a man stands after a refused try: it is still on the refused square.
#[derive(Debug, Clone, Copy)]
struct Stray {
    origin: Square,
    at: Square,
}

/// The builder's running state.
struct Builder {
    timing: Timing,
    referee: Referee,
    wording: Wording,
    scripts: ByColor<BoardScript>,
    occ: ByColor<Bitboard>,
    /// When each board is next free to act.
    free: ByColor<u64>,
    /// The captured man each board must still remove.
    removal: ByColor<Option<Square>>,
    expected: Vec<Value>,
    commands: Vec<Command>,
    coverage: Coverage,
}

/// The side to move's part of one ply, as it goes on.
struct Turn {
    side: Color,
    /// When his hands may start the next try.
    at: u64,
    /// When his keypad commands are sent.
    command_at: u64,
    /// The piece chosen for his next promotion.
    chosen: Option<Role>,
    /// The man of his last refused try, not yet brought back.
    stray: Option<Stray>,
}

/// Squares a sliding man crosses on the way (the first one is where a hand passes over).
fn first_passing(from: Square, to: Square) -> Option<Square> {
    let between = kriegspiel_referee::shakmaty::attacks::between(from, to);
    let df = (to.file() as i32 - from.file() as i32).signum();
    let dr = (to.rank() as i32 - from.rank() as i32).signum();
    let next = Square::from_coords(
        kriegspiel_referee::shakmaty::File::new((from.file() as i32 + df) as u32),
        Rank::new((from.rank() as i32 + dr) as u32),
    );
    between.contains(next).then_some(next)
}

/// Builds a definition: validates every ply with the referee and computes scripts and answers.
pub fn build(def: GameDef, timing: Timing) -> Result<BuiltGame, GameError> {
    let rules: RuleSet = def.rules.parse().map_err(|e| err(None, format!("{e}")))?;
    let lang = match &def.lang {
        Some(l) => parse_lang(l)?,
        None => Lang::En,
    };
    let mut options = Options::default();
    for (k, v) in &def.options {
        options
            .set(rules, k, OptionValue::Text(v))
            .map_err(|e| err(None, e.to_string()))?;
    }
    let referee = Referee::new(&GameConfig {
        rules,
        options,
        fen: def.fen.clone(),
    })
    .map_err(|e| err(None, e.to_string()))?;
    if referee.end().is_some() {
        return Err(err(None, "the start position is already over"));
    }
    let mut b = Builder::new(timing, referee, Wording::new(rules, options, lang));
    let mut turn_at = timing.start_ms;
    for (n, ply) in def.plies.iter().enumerate() {
        turn_at = b.ply(ply, turn_at).map_err(|m| err(Some(n), m))?;
    }
    if b.referee.end().is_none() {
        return Err(err(None, "the game does not end after its last ply"));
    }
    Ok(b.built(def, rules, lang))
}

fn parse_lang(s: &str) -> Result<Lang, GameError> {
    s.parse::<Lang>().map_err(|e| err(None, e.to_string()))
}

impl Builder {
    /// Both boards with the start position's men; the first answer is the referee's `new`.
    fn new(timing: Timing, referee: Referee, wording: Wording) -> Builder {
        let start = referee.position().clone();
        let initial = |c: Color| start.board().by_color(c);
        Builder {
            timing,
            scripts: ByColor::new_with(|color| BoardScript {
                color,
                initial: initial(color),
                actions: Vec::new(),
            }),
            occ: ByColor::new_with(initial),
            free: ByColor::new_with(|_| timing.start_ms),
            removal: ByColor::default(),
            expected: vec![render::json(
                &wording,
                wording.lang,
                &Output::Started {
                    report: *referee.last_report(),
                },
            )],
            commands: Vec::new(),
            coverage: Coverage::default(),
            wording,
            referee,
        }
    }

    /// The built game, once every ply is played.
    fn built(self, def: GameDef, rules: RuleSet, lang: Lang) -> BuiltGame {
        let final_fen =
            Fen::from_position(self.referee.position(), EnPassantMode::Legal).to_string();
        let duration_ms = self
            .scripts
            .iter()
            .filter_map(|s| s.actions.last().map(|a| a.0))
            .max()
            .unwrap_or(self.timing.start_ms);
        let ByColor { white, black } = self.scripts;
        BuiltGame {
            def,
            rules,
            lang,
            white,
            black,
            commands: self.commands,
            expected: self.expected,
            final_fen,
            coverage: self.coverage,
            duration_ms,
        }
    }

    /// The answer line the table prints for this output.
    fn rendered(&self, o: &Output) -> Value {
        render::json(&self.wording, self.wording.lang, o)
    }

    fn act(&mut self, color: Color, at: u64, action: Action, sq: Square) -> Result<(), String> {
        self.scripts[color].push(at, action, sq, &mut self.occ[color])?;
        self.free[color] = at + self.timing.step_ms;
        Ok(())
    }

    /// Moves a man by hand from `from` to `to`, passing over the first square on the way
    /// when that square is empty; returns the time of the final place.
    fn carry(&mut self, color: Color, at: u64, from: Square, to: Square) -> Result<u64, String> {
        let step = self.timing.step_ms;
        self.act(color, at, Action::Lift, from)?;
        let mut t = at + step;
        if let Some(pass) = first_passing(from, to) {
            if !self.occ[color].contains(pass) {
                self.act(color, t, Action::Place, pass)?;
                self.act(color, t + step, Action::Lift, pass)?;
                t += 2 * step;
            }
        }
        self.act(color, t, Action::Place, to)?;
        Ok(t)
    }

    fn official(&self, color: Color) -> Bitboard {
        self.referee.position().board().by_color(color)
    }

    /// Plays one ply of the side to move; returns when the other side may start.
    fn ply(&mut self, ply: &[String], mut turn_at: u64) -> Result<u64, String> {
        if self.referee.end().is_some() {
            return Err("the game is already over".into());
        }
        let steps = ply
            .iter()
            .map(|s| parse_step(s))
            .collect::<Result<Vec<_>, _>>()?;
        if !matches!(steps.last(), Some(Step::Try { refused: false, .. })) {
            return Err("a ply must end with a legal try (no '?')".into());
        }
        let timing = self.timing;
        let side = self.referee.turn();
        let mut t = turn_at.max(self.free[side]);
        let command_at = t + timing.command_ms / 3;
        if steps
            .iter()
            .any(|s| matches!(s, Step::Ask(_) | Step::Promote(_)))
        {
            t += timing.command_ms;
        }
        if let Some(sq) = self.removal[side].take() {
            self.act(side, t, Action::Lift, sq)?;
            t += 2 * timing.step_ms;
        }
        let mut turn = Turn {
            side,
            at: t,
            command_at,
            chosen: None,
            stray: None,
        };
        for step in steps {
            match step {
                Step::Promote(role) => {
                    turn.chosen = Some(role);
                    self.commands.push(Command {
                        after_answers: self.expected.len(),
                        at_ms: command_at,
                        line: json!({"color": side.to_string(), "promote": role.char().to_string()}),
                        input: kriegspiel_table::Input::Promote { color: side, role },
                    });
                }
                Step::Ask(q) => self.ask(&turn, q)?,
                Step::Try { tried, refused } => {
                    if let Some(other_at) = self.play_try(&mut turn, tried, refused)? {
                        turn_at = other_at;
                    }
                }
            }
        }
        if self.occ[side] != self.official(side) {
            return Err(format!(
                "after the ply, {}'s board does not match the official position",
                side
            ));
        }
        Ok(turn_at)
    }

    /// A question on the keypad, and the referee's reply.
    fn ask(&mut self, turn: &Turn, q: Question) -> Result<(), String> {
        let side = turn.side;
        self.commands.push(Command {
            after_answers: self.expected.len(),
            at_ms: turn.command_at,
            line: json!({"color": side.to_string(), "ask": q.to_string()}),
            input: kriegspiel_table::Input::Ask {
                color: side,
                question: q,
            },
        });
        let reply = self.referee.ask(q).map_err(|x| x.to_string())?;
        let v = self.rendered(&Output::Reply {
            color: side,
            question: q,
            reply,
        });
        match reply {
            Reply::PawnCaptures { .. } | Reply::Rebuffs { .. } => self.coverage.questions += 1,
            Reply::Refused(r) => count_refusal(&mut self.coverage, r.kind),
        }
        self.expected.push(v);
        Ok(())
    }

    /// One try on the board: the man carried (a refused try's man first brought back, or
    /// straight on), then the referee's verdict. Returns, for a legal try, when the other
    /// side may start.
    fn play_try(
        &mut self,
        turn: &mut Turn,
        tried: Try,
        refused: bool,
    ) -> Result<Option<u64>, String> {
        let timing = self.timing;
        let side = turn.side;
        let own = self.occ[side];
        if !own.contains(tried.from) && turn.stray.map(|s| s.origin) != Some(tried.from) {
            return Err(format!(
                "{}: no man of the mover on {}",
                tried.to_uci(),
                tried.from
            ));
        }
        // Bring the man of a refused try back, or straight on to this try's square.
        let t = turn.at;
        let placed = match turn.stray.take() {
            Some(s) if s.origin == tried.from => self.carry(side, t, s.at, tried.to)?,
            Some(s) => {
                let back = self.carry(side, t, s.at, s.origin)?;
                self.carry(side, back + 2 * timing.step_ms, tried.from, tried.to)?
            }
            None => self.carry(side, t, tried.from, tried.to)?,
        };
        let is_promotion = self.referee.position().board().role_at(tried.from) == Some(Role::Pawn)
            && tried.to.rank() == side.fold_wb(Rank::Eighth, Rank::First);
        let full = Try {
            promotion: if is_promotion { turn.chosen } else { None },
            ..tried
        };
        let before = self.referee.position().clone();
        let verdict = self.referee.try_move(full).map_err(|x| x.to_string())?;
        let v = self.rendered(&Output::Verdict {
            color: side,
            tried: full,
            verdict,
        });
        self.expected.push(v);
        let verdict_at = placed + timing.settle_ms;
        match verdict {
            Verdict::Refused(r) => {
                if !refused {
                    return Err(format!(
                        "{} was refused ({}) but is not marked '?'",
                        tried.to_uci(),
                        r.kind.id()
                    ));
                }
                count_refusal(&mut self.coverage, r.kind);
                turn.stray = Some(Stray {
                    origin: tried.from,
                    at: tried.to,
                });
                turn.at = verdict_at + timing.after_verdict_ms;
                Ok(None)
            }
            Verdict::Moved(report) => {
                if refused {
                    return Err(format!("{} is legal but marked '?'", tried.to_uci()));
                }
                let after = verdict_at + timing.after_verdict_ms;
                self.after_move(turn, after, &before, full, is_promotion, &report)?;
                Ok(Some(verdict_at + timing.react_ms))
            }
        }
    }

    /// After a legal move, from `at`: the castling rook follows, a promoted pawn is swapped
    /// for its piece, and a captured man is left for his owner to remove.
    fn after_move(
        &mut self,
        turn: &Turn,
        at: u64,
        before: &Chess,
        full: Try,
        is_promotion: bool,
        report: &Report,
    ) -> Result<(), String> {
        let (side, step_ms) = (turn.side, self.timing.step_ms);
        let mut after = at;
        if let Some((rook_from, rook_to)) = castling_rook(before, full) {
            self.coverage.castlings += 1;
            let placed = self.carry(side, after, rook_from, rook_to)?;
            after = placed + step_ms;
        }
        if is_promotion {
            // Swap the pawn for the promoted man: an adjustment, not a try.
            self.act(side, after, Action::Lift, full.to)?;
            self.act(side, after + 2 * step_ms, Action::Place, full.to)?;
            match turn.chosen {
                Some(_) => self.coverage.promotions_chosen += 1,
                None => self.coverage.promotions_default += 1,
            }
        }
        if let Some(c) = report.capture {
            self.coverage.captures += 1;
            if before.board().role_at(full.from) == Some(Role::Pawn)
                && before.board().piece_at(full.to).is_none()
            {
                self.coverage.en_passant += 1;
            }
            self.removal[!side] = Some(c.square);
        }
        if !report.checks.is_empty() {
            self.coverage.checks += 1;
        }
        Ok(())
    }
}

fn count_refusal(c: &mut Coverage, kind: RefusalKind) {
    match kind {
        RefusalKind::Illegal => c.illegal += 1,
        RefusalKind::Impossible => c.impossible += 1,
    }
}

/// The rook's move that follows a legal castling try (king two files along its rank).
fn castling_rook(before: &Chess, t: Try) -> Option<(Square, Square)> {
    if before.board().role_at(t.from) != Some(Role::King) || t.from.rank() != t.to.rank() {
        return None;
    }
    let rank = t.from.rank();
    let sq = |f: u32| Square::from_coords(kriegspiel_referee::shakmaty::File::new(f), rank);
    match t.to.file() as i32 - t.from.file() as i32 {
        2 => Some((sq(7), sq(5))),
        -2 => Some((sq(0), sq(3))),
        _ => None,
    }
}
