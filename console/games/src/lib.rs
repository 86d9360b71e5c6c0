//! Whole games for the end-to-end tests: a game definition (rules, options, start position
//! and plies of tries) becomes two board scripts with realistic physical handling, the
//! stdin commands a player would say, and the answers the table must print, all computed by
//! the real referee while the game is built (a definition the referee does not accept is an
//! error here, not a surprise in the end-to-end test).
//!
//! The definitions ship with the program (`console/games/games/*.json`, one per rule set):
//! `kriegspiel demo` plays them on simulated boards, and the end-to-end tests on real ones.
//!
//! Definition format (JSON):
//! ```json
//! {"name": "...", "rules": "cincinnati", "options": {"strict": "true"}, "fen": null, "lang": "en",
//!  "plies": [["e2e4"], ["ask:any", "e7f6?", "d7d5"], ["promote:n", "b7b8"]]}
//! ```
//! Each ply lists what the side to move does, in order: tries in UCI (a trailing `?` marks a
//! try the referee must refuse; the last try must be legal), `ask:any` / `ask:rebuffs`
//! (a question on the keypad) and `promote:q|r|b|n` (the piece chosen beforehand for the
//! next promotion). A promotion try carries no letter: the board cannot show one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    Bitboard, Chess, Color, EnPassantMode, Position, Rank, Role, Square,
};
use kriegspiel_referee::{
    GameConfig, Lang, OptionValue, Options, Question, Referee, RefusalKind, Reply, RuleSet, Try,
    Verdict, Wording,
};
use kriegspiel_table::{render, Output};
use serde::Deserialize;
use serde_json::{json, Value};

/// A game as written in `console/games/games/*.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameDef {
    pub name: String,
    pub rules: String,
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub lang: Option<String>,
    pub plies: Vec<Vec<String>>,
}

/// Why a definition cannot be built: the ply (0-based), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    pub ply: Option<usize>,
    pub message: String,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ply {
            Some(p) => write!(f, "ply {} (move {}): {}", p + 1, p / 2 + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for GameError {}

fn err(ply: Option<usize>, message: impl Into<String>) -> GameError {
    GameError {
        ply,
        message: message.into(),
    }
}

/// How fast the simulated players handle their men (milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Script time of the first action (the boards and the table need a moment to connect).
    pub start_ms: u64,
    /// Between two switch changes of one movement (lift, passing square, place).
    pub step_ms: u64,
    /// The table's settle window: the verdict comes this long after the last change.
    pub settle_ms: u64,
    /// After a verdict, before the same player touches his board again.
    pub after_verdict_ms: u64,
    /// After a verdict, before the other player starts (covers clock skew between boards).
    pub react_ms: u64,
    /// Extra time before a ply that starts with keypad commands (they travel over stdin).
    pub command_ms: u64,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            start_ms: 1200,
            step_ms: 20,
            settle_ms: 100,
            after_verdict_ms: 60,
            react_ms: 120,
            command_ms: 150,
        }
    }
}

/// One switch change in a board script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Lift,
    Place,
}

/// What one board does during the game, in script time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardScript {
    pub color: Color,
    /// The men on the board before the first action.
    pub initial: Bitboard,
    pub actions: Vec<(u64, Action, Square)>,
}

/// The board ids of the simulated boards: White's, Black's.
pub const SIM_BOARD_IDS: [u32; 2] = [1, 2];

impl BoardScript {
    /// The script for a board simulated inside the hall.
    pub fn sim_script(&self) -> kriegspiel_hall::sim::SimScript {
        kriegspiel_hall::sim::SimScript {
            initial: self.initial.0,
            actions: self
                .actions
                .iter()
                .map(|(at, action, sq)| kriegspiel_hall::sim::SimAction {
                    at: *at,
                    lift: *action == Action::Lift,
                    square: u8::try_from(u32::from(*sq)).unwrap_or(0),
                })
                .collect(),
        }
    }

    /// The `kriegspiel-board simulate --script` text: `occupied SQ...` then `MS lift|place SQ`.
    pub fn render(&self) -> String {
        let mut out = String::from("occupied");
        for sq in self.initial {
            out.push(' ');
            out.push_str(&sq.to_string());
        }
        out.push('\n');
        for (at, action, sq) in &self.actions {
            let verb = match action {
                Action::Lift => "lift",
                Action::Place => "place",
            };
            out.push_str(&format!("{at} {verb} {sq}\n"));
        }
        out
    }

    /// The men on the board after the last action.
    pub fn final_occupancy(&self) -> Bitboard {
        self.actions
            .iter()
            .fold(self.initial, |mut occ, (_, action, sq)| {
                match action {
                    Action::Lift => occ.discard(*sq),
                    Action::Place => occ.add(*sq),
                }
                occ
            })
    }

    /// The script with one more lift and re-place of a man at `at_ms`: the board program
    /// exits after its last event, and must stay connected until the table ends the game.
    pub fn with_hold(&self, at_ms: u64) -> BoardScript {
        let mut held = self.clone();
        let at_ms = self
            .actions
            .last()
            .map_or(at_ms, |(last, _, _)| at_ms.max(last + 1));
        if let Some(sq) = self.final_occupancy().first() {
            held.actions.push((at_ms, Action::Lift, sq));
            held.actions.push((at_ms + 100, Action::Place, sq));
        }
        held
    }

    fn push(
        &mut self,
        at: u64,
        action: Action,
        sq: Square,
        occ: &mut Bitboard,
    ) -> Result<(), String> {
        match action {
            Action::Lift if !occ.contains(sq) => {
                return Err(format!(
                    "{} would lift from the empty square {sq}",
                    self.color
                ))
            }
            Action::Place if occ.contains(sq) => {
                return Err(format!(
                    "{} would place on the occupied square {sq}",
                    self.color
                ))
            }
            Action::Lift => occ.discard(sq),
            Action::Place => occ.add(sq),
        }
        if let Some((last, _, _)) = self.actions.last() {
            if *last >= at {
                return Err(format!(
                    "{} board: actions out of order at {at} ms",
                    self.color
                ));
            }
        }
        self.actions.push((at, action, sq));
        Ok(())
    }
}

/// A line for the table's standard input, to be sent once `after_answers` answer lines were
/// printed; a simulated keypad sends it at `at_ms` (script time), before the ply's first move.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub after_answers: usize,
    pub at_ms: u64,
    pub line: Value,
    /// The same command as a table input.
    pub input: kriegspiel_table::Input,
}

/// What a built game covers (checked so that every game keeps exercising every feature).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub castlings: usize,
    pub promotions_chosen: usize,
    pub promotions_default: usize,
    pub en_passant: usize,
    pub captures: usize,
    pub checks: usize,
    pub illegal: usize,
    pub impossible: usize,
    pub questions: usize,
}

/// A definition turned into everything the end-to-end test needs.
#[derive(Debug, Clone)]
pub struct BuiltGame {
    pub def: GameDef,
    pub rules: RuleSet,
    pub lang: Lang,
    pub white: BoardScript,
    pub black: BoardScript,
    pub commands: Vec<Command>,
    /// The answer lines the table must print, in order, starting with `new`.
    pub expected: Vec<Value>,
    pub final_fen: String,
    pub coverage: Coverage,
    /// Script time of the last action.
    pub duration_ms: u64,
}

impl BuiltGame {
    pub fn script(&self, color: Color) -> &BoardScript {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The table set-up that plays this game, with the settle window of `timing`.
    pub fn table_setup(&self, timing: &Timing) -> kriegspiel_hall::TableSetup {
        kriegspiel_hall::TableSetup {
            rules: self.rules.id().to_owned(),
            options: self.def.options.clone(),
            fen: self.def.fen.clone(),
            lang: self.lang.to_string(),
            settle_ms: u32::try_from(timing.settle_ms).unwrap_or(u32::MAX),
            white_player: Some("Simulated White".to_owned()),
            black_player: Some("Simulated Black".to_owned()),
            white_board_id: Some(SIM_BOARD_IDS[0]),
            black_board_id: Some(SIM_BOARD_IDS[1]),
            event: Some(format!("Kriegspiel demo: {}", self.def.name)),
            ..kriegspiel_hall::TableSetup::default()
        }
    }

    /// A hall table that plays this game on two simulated boards, with the keypad commands
    /// sent at their script times.
    pub fn table_spec(&self, name: &str, timing: &Timing) -> kriegspiel_hall::TableSpec {
        let board = |c: Color, id: u32| kriegspiel_hall::BoardSource::Simulated {
            script: std::sync::Arc::new(self.script(c).sim_script()),
            board_id: id,
        };
        kriegspiel_hall::TableSpec {
            name: name.to_owned(),
            setup: self.table_setup(timing),
            white: board(Color::White, SIM_BOARD_IDS[0]),
            black: board(Color::Black, SIM_BOARD_IDS[1]),
            scripted: self
                .commands
                .iter()
                .map(|c| (c.at_ms, c.input.clone()))
                .collect(),
            resume: kriegspiel_hall::Resume::Last,
        }
    }

    /// The `kriegspiel table` arguments that describe this game (no ports, no timing).
    pub fn table_args(&self) -> Vec<String> {
        let mut args = vec![
            "--rules".to_owned(),
            self.rules.id().to_owned(),
            "--lang".to_owned(),
            self.lang.to_string(),
        ];
        for (k, v) in &self.def.options {
            args.push("--option".to_owned());
            args.push(format!("{k}={v}"));
        }
        if let Some(fen) = &self.def.fen {
            args.push("--fen".to_owned());
            args.push(fen.clone());
        }
        args
    }
}

/// The definitions that ship with the program, by name (the rule-set id).
pub const BUILTIN: [(&str, &str); 7] = [
    ("berkeley", include_str!("../games/berkeley.json")),
    ("berkeley-any", include_str!("../games/berkeley-any.json")),
    ("cincinnati", include_str!("../games/cincinnati.json")),
    ("rand", include_str!("../games/rand.json")),
    ("russian", include_str!("../games/russian.json")),
    ("traditional", include_str!("../games/traditional.json")),
    ("wild16", include_str!("../games/wild16.json")),
];

/// Builds the shipped game `name`.
pub fn builtin(name: &str, timing: Timing) -> Result<BuiltGame, GameError> {
    let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| {
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        err(
            None,
            format!("no game '{name}' (known: {})", names.join(", ")),
        )
    })?;
    let def: GameDef = serde_json::from_str(text).map_err(|e| err(None, format!("{name}: {e}")))?;
    build(def, timing)
}

/// The folder of the game definitions.
pub fn games_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("games")
}

/// Reads and builds `console/games/games/NAME.json`.
pub fn load(name: &str, timing: Timing) -> Result<BuiltGame, GameError> {
    let path = games_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| err(None, format!("reading {}: {e}", path.display())))?;
    let def: GameDef =
        serde_json::from_str(&text).map_err(|e| err(None, format!("{}: {e}", path.display())))?;
    build(def, timing)
}

/// One parsed entry of a ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Try { tried: Try, refused: bool },
    Ask(Question),
    Promote(Role),
}

fn parse_step(s: &str) -> Result<Step, String> {
    if let Some(q) = s.strip_prefix("ask:") {
        return match q {
            "any" => Ok(Step::Ask(Question::Any)),
            "rebuffs" => Ok(Step::Ask(Question::Rebuffs)),
            _ => Err(format!("unknown question '{q}' (any, rebuffs)")),
        };
    }
    if let Some(p) = s.strip_prefix("promote:") {
        return match p {
            "q" => Ok(Step::Promote(Role::Queen)),
            "r" => Ok(Step::Promote(Role::Rook)),
            "b" => Ok(Step::Promote(Role::Bishop)),
            "n" => Ok(Step::Promote(Role::Knight)),
            _ => Err(format!("unknown promotion piece '{p}' (q, r, b, n)")),
        };
    }
    let (uci, refused) = match s.strip_suffix('?') {
        Some(u) => (u, true),
        None => (s, false),
    };
    let tried = Try::from_uci(uci).map_err(|e| e.to_string())?;
    if tried.promotion.is_some() {
        return Err(format!(
            "'{s}': a board cannot show a promotion letter; write 'promote:X' before the try"
        ));
    }
    Ok(Step::Try { tried, refused })
}

fn parse_lang(s: &str) -> Result<Lang, GameError> {
    s.parse::<Lang>().map_err(|e| err(None, e.to_string()))
}

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
    scripts: [BoardScript; 2],
    occ: [Bitboard; 2],
    /// When each board is next free to act.
    free: [u64; 2],
    /// The captured man each board must still remove.
    removal: [Option<Square>; 2],
    expected: Vec<Value>,
    commands: Vec<Command>,
    coverage: Coverage,
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
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

impl Builder {
    /// The answer line the table prints for this output.
    fn rendered(&self, o: &Output) -> Value {
        render::json(&self.wording, self.wording.lang, o)
    }

    fn act(&mut self, color: Color, at: u64, action: Action, sq: Square) -> Result<(), String> {
        let i = idx(color);
        self.scripts[i].push(at, action, sq, &mut self.occ[i])?;
        self.free[i] = at + self.timing.step_ms;
        Ok(())
    }

    /// Moves a man by hand from `from` to `to`, passing over the first square on the way
    /// when that square is empty; returns the time of the final place.
    fn carry(&mut self, color: Color, at: u64, from: Square, to: Square) -> Result<u64, String> {
        let step = self.timing.step_ms;
        self.act(color, at, Action::Lift, from)?;
        let mut t = at + step;
        if let Some(pass) = first_passing(from, to) {
            if !self.occ[idx(color)].contains(pass) {
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
    let wording = Wording::new(rules, options, lang);
    let start = referee.position().clone();
    let initial = |c: Color| start.board().by_color(c);
    let mut b = Builder {
        timing,
        wording,
        scripts: [
            BoardScript {
                color: Color::White,
                initial: initial(Color::White),
                actions: Vec::new(),
            },
            BoardScript {
                color: Color::Black,
                initial: initial(Color::Black),
                actions: Vec::new(),
            },
        ],
        occ: [initial(Color::White), initial(Color::Black)],
        free: [timing.start_ms; 2],
        removal: [None; 2],
        expected: vec![render::json(
            &wording_for(rules, options, lang),
            lang,
            &Output::Started {
                report: *referee.last_report(),
            },
        )],
        commands: Vec::new(),
        coverage: Coverage::default(),
        referee,
    };
    let mut turn_at = timing.start_ms;
    let plies = def.plies.clone();
    for (n, ply) in plies.iter().enumerate() {
        let e = |m: String| err(Some(n), m);
        if b.referee.end().is_some() {
            return Err(e("the game is already over".into()));
        }
        let steps = ply
            .iter()
            .map(|s| parse_step(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?;
        if !matches!(steps.last(), Some(Step::Try { refused: false, .. })) {
            return Err(e("a ply must end with a legal try (no '?')".into()));
        }
        let side = b.referee.turn();
        let other = !side;
        let i = idx(side);
        let mut t = turn_at.max(b.free[i]);
        let command_at = t + timing.command_ms / 3;
        if steps
            .iter()
            .any(|s| matches!(s, Step::Ask(_) | Step::Promote(_)))
        {
            t += timing.command_ms;
        }
        if let Some(sq) = b.removal[i].take() {
            b.act(side, t, Action::Lift, sq).map_err(e)?;
            t += 2 * timing.step_ms;
        }
        let mut chosen: Option<Role> = None;
        let mut stray: Option<Stray> = None;
        for step in steps {
            match step {
                Step::Promote(role) => {
                    chosen = Some(role);
                    b.commands.push(Command {
                        after_answers: b.expected.len(),
                        at_ms: command_at,
                        line: json!({"color": side.to_string(), "promote": role.char().to_string()}),
                        input: kriegspiel_table::Input::Promote { color: side, role },
                    });
                }
                Step::Ask(q) => {
                    b.commands.push(Command {
                        after_answers: b.expected.len(),
                        at_ms: command_at,
                        line: json!({"color": side.to_string(), "ask": q.to_string()}),
                        input: kriegspiel_table::Input::Ask {
                            color: side,
                            question: q,
                        },
                    });
                    let reply = b.referee.ask(q).map_err(|x| e(x.to_string()))?;
                    let v = b.rendered(&Output::Reply {
                        color: side,
                        question: q,
                        reply,
                    });
                    match reply {
                        Reply::PawnCaptures { .. } | Reply::Rebuffs { .. } => {
                            b.coverage.questions += 1
                        }
                        Reply::Refused(r) => count_refusal(&mut b.coverage, r.kind),
                    }
                    b.expected.push(v);
                }
                Step::Try { tried, refused } => {
                    let own = b.occ[i];
                    if !own.contains(tried.from) && stray.map(|s| s.origin) != Some(tried.from) {
                        return Err(e(format!(
                            "{}: no man of the mover on {}",
                            tried.to_uci(),
                            tried.from
                        )));
                    }
                    // Bring the man of a refused try back, or straight on to this try's square.
                    let placed = match stray.take() {
                        Some(s) if s.origin == tried.from => {
                            b.carry(side, t, s.at, tried.to).map_err(e)?
                        }
                        Some(s) => {
                            let back = b.carry(side, t, s.at, s.origin).map_err(e)?;
                            b.carry(side, back + 2 * timing.step_ms, tried.from, tried.to)
                                .map_err(e)?
                        }
                        None => b.carry(side, t, tried.from, tried.to).map_err(e)?,
                    };
                    let is_promotion = b.referee.position().board().role_at(tried.from)
                        == Some(Role::Pawn)
                        && tried.to.rank() == side.fold_wb(Rank::Eighth, Rank::First);
                    let full = Try {
                        promotion: if is_promotion { chosen } else { None },
                        ..tried
                    };
                    let before = b.referee.position().clone();
                    let verdict = b.referee.try_move(full).map_err(|x| e(x.to_string()))?;
                    let v = b.rendered(&Output::Verdict {
                        color: side,
                        tried: full,
                        verdict,
                    });
                    b.expected.push(v);
                    let verdict_at = placed + timing.settle_ms;
                    match verdict {
                        Verdict::Refused(r) => {
                            if !refused {
                                return Err(e(format!(
                                    "{} was refused ({}) but is not marked '?'",
                                    tried.to_uci(),
                                    r.kind.id()
                                )));
                            }
                            count_refusal(&mut b.coverage, r.kind);
                            stray = Some(Stray {
                                origin: tried.from,
                                at: tried.to,
                            });
                            t = verdict_at + timing.after_verdict_ms;
                        }
                        Verdict::Moved(report) => {
                            if refused {
                                return Err(e(format!(
                                    "{} is legal but marked '?'",
                                    tried.to_uci()
                                )));
                            }
                            let mut after = verdict_at + timing.after_verdict_ms;
                            if let Some((rook_from, rook_to)) = castling_rook(&before, full) {
                                b.coverage.castlings += 1;
                                let placed = b.carry(side, after, rook_from, rook_to).map_err(e)?;
                                after = placed + timing.step_ms;
                            }
                            if is_promotion {
                                // Swap the pawn for the promoted man: an adjustment, not a try.
                                b.act(side, after, Action::Lift, tried.to).map_err(e)?;
                                b.act(side, after + 2 * timing.step_ms, Action::Place, tried.to)
                                    .map_err(e)?;
                                match chosen {
                                    Some(_) => b.coverage.promotions_chosen += 1,
                                    None => b.coverage.promotions_default += 1,
                                }
                            }
                            if let Some(c) = report.capture {
                                b.coverage.captures += 1;
                                if before.board().role_at(tried.from) == Some(Role::Pawn)
                                    && before.board().piece_at(tried.to).is_none()
                                {
                                    b.coverage.en_passant += 1;
                                }
                                b.removal[idx(other)] = Some(c.square);
                            }
                            if !report.checks.is_empty() {
                                b.coverage.checks += 1;
                            }
                            turn_at = verdict_at + timing.react_ms;
                        }
                    }
                }
            }
        }
        if b.occ[i] != b.official(side) {
            return Err(e(format!(
                "after the ply, {}'s board does not match the official position",
                side
            )));
        }
    }
    if b.referee.end().is_none() {
        return Err(err(None, "the game does not end after its last ply"));
    }
    let final_fen = Fen::from_position(b.referee.position(), EnPassantMode::Legal).to_string();
    let duration_ms = b
        .scripts
        .iter()
        .filter_map(|s| s.actions.last().map(|a| a.0))
        .max()
        .unwrap_or(timing.start_ms);
    let [white, black] = b.scripts;
    Ok(BuiltGame {
        def,
        rules,
        lang,
        white,
        black,
        commands: b.commands,
        expected: b.expected,
        final_fen,
        coverage: b.coverage,
        duration_ms,
    })
}

fn wording_for(rules: RuleSet, options: Options, lang: Lang) -> Wording {
    Wording::new(rules, options, lang)
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

/// The names of every game definition in `console/games/games`.
pub fn all_names() -> Result<Vec<String>, GameError> {
    let dir = games_dir();
    let mut names = Vec::new();
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| err(None, format!("reading {}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry.map_err(|e| err(None, e.to_string()))?.path();
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_owned());
            }
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(rules: &str, fen: Option<&str>, plies: &[&[&str]]) -> GameDef {
        GameDef {
            name: "t".into(),
            rules: rules.into(),
            options: BTreeMap::new(),
            fen: fen.map(str::to_owned),
            lang: None,
            plies: plies
                .iter()
                .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
                .collect(),
        }
    }

    #[test]
    fn every_definition_ships_with_the_program() {
        let shipped: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        assert_eq!(all_names().unwrap(), shipped);
        for (name, _) in BUILTIN {
            let game = builtin(name, Timing::default()).unwrap();
            assert_eq!(game.rules.id(), name);
            // Keypad commands come before the ply's first switch change.
            for c in &game.commands {
                assert!(c.at_ms >= Timing::default().start_ms, "{name}: {c:?}");
            }
        }
        assert!(builtin("chess", Timing::default())
            .unwrap_err()
            .to_string()
            .contains("known: berkeley, berkeley-any, cincinnati"));
    }

    #[test]
    fn every_game_builds_and_covers_every_feature() {
        let names = all_names().unwrap();
        for rules in RuleSet::ALL {
            assert!(names.iter().any(|n| n == rules.id()), "no game for {rules}");
        }
        for name in names {
            let g = load(&name, Timing::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let c = g.coverage;
            assert!(
                g.def.plies.len() >= 60,
                "{name}: {} plies",
                g.def.plies.len()
            );
            if g.rules != RuleSet::Russian {
                assert!(c.castlings >= 1, "{name}: no castling");
            }
            assert!(
                c.promotions_chosen >= 1,
                "{name}: no promotion to a chosen piece"
            );
            assert!(
                c.promotions_default >= 1,
                "{name}: no promotion without a choice"
            );
            assert!(c.en_passant >= 1, "{name}: no en passant");
            assert!(c.captures >= 4, "{name}: {c:?}");
            assert!(c.checks >= 3, "{name}: {c:?}");
            assert!(c.illegal >= 2, "{name}: {c:?}");
            if g.rules.distinguishes_impossible() {
                assert!(c.impossible >= 2, "{name}: {c:?}");
            }
            if g.rules.has_any_question() || g.rules == RuleSet::Rand {
                assert!(c.questions >= 2, "{name}: {c:?}");
            }
            assert!(g.expected.last().unwrap()["end"]["reason"].is_string());
        }
    }

    #[test]
    fn scripts_replay_to_the_final_position() {
        let g = load("cincinnati", Timing::default()).unwrap();
        let pos: Chess = g
            .final_fen
            .parse::<Fen>()
            .unwrap()
            .into_position(kriegspiel_referee::shakmaty::CastlingMode::Standard)
            .unwrap();
        for color in [Color::White, Color::Black] {
            let s = g.script(color);
            let mut occ = s.initial;
            for (_, a, sq) in &s.actions {
                match a {
                    Action::Lift => occ.discard(*sq),
                    Action::Place => occ.add(*sq),
                }
            }
            let mine = pos.board().by_color(color);
            // The loser of the last ply may still owe the removal of a captured man.
            assert!((occ ^ mine).count() <= 1, "{color:?}");
            assert!(s.actions.windows(2).all(|w| w[0].0 < w[1].0));
        }
        let text = g.white.render();
        assert!(text.starts_with("occupied a1 b1 c1 d1 e1 f1 g1 h1 a2"));
        assert!(text.lines().nth(1).unwrap().ends_with("lift e2") || text.lines().count() > 2);
    }

    #[test]
    fn expected_answers_come_from_the_referee() {
        // Fool's mate with a refused try and a refused promotion-less detail.
        let g = build(
            def(
                "cincinnati",
                None,
                &[&["f2f3"], &["e7e5"], &["c1b3?", "g2g4"], &["d8h4"]],
            ),
            Timing::default(),
        )
        .unwrap();
        let answers: Vec<&str> = g
            .expected
            .iter()
            .map(|v| v["answer"].as_str().unwrap())
            .collect();
        assert_eq!(
            answers,
            ["new", "moved", "moved", "impossible", "moved", "moved"]
        );
        assert_eq!(g.expected[3]["try"], "c1b3");
        assert_eq!(g.expected[3]["color"], "white");
        assert_eq!(g.expected[5]["end"]["reason"], "checkmate");
        assert_eq!(g.expected[5]["checks"], json!(["short"]));
        // The refused bishop goes back to c1 before the g-pawn moves.
        let w: Vec<_> = g
            .white
            .actions
            .iter()
            .map(|(_, a, s)| (*a, s.to_string()))
            .collect();
        let refused_at = w
            .iter()
            .position(|x| x == &(Action::Place, "b3".to_owned()))
            .unwrap();
        assert_eq!(w[refused_at + 1], (Action::Lift, "b3".to_owned()));
        assert_eq!(w[refused_at + 2], (Action::Place, "c1".to_owned()));
        assert_eq!(
            g.final_fen,
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
        );
    }

    #[test]
    fn bad_definitions_are_refused_with_the_ply() {
        let t = Timing::default();
        let e = build(def("cincinnati", None, &[&["e2e5"]]), t).unwrap_err();
        assert_eq!(e.ply, Some(0));
        assert!(e.message.contains("refused"), "{e}");
        let e = build(def("cincinnati", None, &[&["e2e4?"]]), t).unwrap_err();
        assert!(e.message.contains("must end with a legal try"), "{e}");
        let e = build(def("cincinnati", None, &[&["e2e3?", "e2e4"]]), t).unwrap_err();
        assert!(e.message.contains("legal but marked"), "{e}");
        let e = build(def("cincinnati", None, &[&["e3e4"]]), t).unwrap_err();
        assert!(e.message.contains("no man"), "{e}");
        let e = build(def("cincinnati", None, &[&["e1e2?"]]), t).unwrap_err();
        assert!(e.message.contains("legal try"), "{e}");
        let e = build(def("cincinnati", None, &[&["d1e1?", "e2e4"]]), t).unwrap_err();
        assert!(e.message.contains("occupied square e1"), "{e}");
        let e = build(def("cincinnati", None, &[&["e2e4"]]), t).unwrap_err();
        assert!(e.message.contains("does not end"), "{e}");
        let e = build(def("nope", None, &[&["e2e4"]]), t).unwrap_err();
        assert_eq!(e.ply, None);
        let e = build(def("cincinnati", None, &[&["a7a8q"]]), t).unwrap_err();
        assert!(e.message.contains("promote:X"), "{e}");
    }

    #[test]
    fn castling_promotion_and_en_passant_handling() {
        // White castles (rook after the verdict), takes en passant (Black removes d5),
        // promotes to a chosen knight (pawn swapped after the verdict) and mates on f8.
        let g = build(
            def(
                "cincinnati",
                Some("k7/pp1p2P1/8/4P3/8/8/8/4K2R w K - 0 1"),
                &[
                    &["e1g1"],
                    &["d7d5"],
                    &["e5d6"],
                    &["a8b8"],
                    &["promote:n", "g7g8"],
                    &["b8a8"],
                    &["f1f8"],
                ],
            ),
            Timing::default(),
        );
        let g = match g {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        };
        let w: Vec<_> = g
            .white
            .actions
            .iter()
            .map(|(_, a, s)| (*a, s.to_string()))
            .collect();
        let pos = |a: Action, s: &str| w.iter().position(|x| x == &(a, s.to_owned())).unwrap();
        assert!(pos(Action::Place, "g1") < pos(Action::Lift, "h1"));
        let rook_placed = w
            .iter()
            .rposition(|x| *x == (Action::Place, "f1".to_owned()))
            .unwrap();
        assert!(pos(Action::Lift, "h1") < rook_placed);
        let b: Vec<_> = g
            .black
            .actions
            .iter()
            .map(|(_, a, s)| (*a, s.to_string()))
            .collect();
        // d5 is lifted twice: the double step, then the removal after e.p.
        assert_eq!(
            b.iter()
                .filter(|x| **x == (Action::Lift, "d5".to_owned()))
                .count(),
            1
        );
        assert_eq!(g.coverage.en_passant, 1);
        assert_eq!(g.coverage.castlings, 1);
        assert_eq!(g.coverage.promotions_chosen, 1);
        assert_eq!(g.commands.len(), 1);
        assert_eq!(g.commands[0].line, json!({"color":"white","promote":"n"}));
        assert_eq!(g.commands[0].after_answers, 5);
        assert_eq!(g.final_fen, "k4RN1/pp6/3P4/8/8/8/8/6K1 b - - 2 4");
    }
}
