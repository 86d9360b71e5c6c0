//! Scripted games on DGT e-boards: a built game's reed-board scripts turned into
//! `kriegspiel-board dgt-emulate` scripts (men instead of magnets, the opponent's men kept
//! as guess men, promotions as the piece put on the last rank, faults at quiet moments),
//! and the runner that plays them into `kriegspiel table --white dgt:PTY --black dgt:PTY`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use kriegspiel_table::kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_table::kriegspiel_referee::shakmaty::{
    Bitboard, Board, Color, Piece, Rank, Role, Square,
};
use kriegspiel_table::Input;

use crate::games::{Action, BuiltGame, Timing};

/// The pace for games on emulated DGT boards scanning every [`SCAN_MS`] with the driver's
/// settle time at [`SETTLE_MS`]: a board reports a move some 80 ms after the hand (a scan,
/// the settle time, the dump), and the table judges it [`TABLE_SETTLE_MS`] later; the
/// simulated players wait for the verdict with a margin for a loaded machine.
pub const TIMING: Timing = Timing {
    start_ms: 2500,
    step_ms: 20,
    settle_ms: 360,
    after_verdict_ms: 60,
    react_ms: 150,
    command_ms: 150,
};

/// The emulated boards' scan period (`dgt-emulate --scan-ms`).
pub const SCAN_MS: u32 = 20;
/// The driver's settle time for them (`KRIEGSPIEL_DGT_SETTLE_MS`).
pub const SETTLE_MS: u32 = 50;
/// The table's settle window (`--settle-ms`).
pub const TABLE_SETTLE_MS: u32 = 100;

/// A fault the emulator is told to make, at a quiet moment of its board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// `flicker SQ SCANS` on this many squares whose men never move, his own first (an
    /// even number of scans: the man is there at the end): a field-update storm.
    Storm(usize, u32),
    Garbage(usize),
    Truncated,
    Eeprom,
    /// A guess man moved from one square to another (none of his men ever goes there
    /// meanwhile: it is lifted first when one does).
    GuessMove(Square, Square),
}

/// How a game is put on DGT boards.
#[derive(Debug, Clone, Default)]
pub struct DgtPlan {
    /// Faults per board, each at the next quiet moment of at least a second after the
    /// previous one.
    pub faults: BTreeMap<bool, Vec<Fault>>,
    /// `(at_ms, pause_ms)`: every action from `at_ms` on comes `pause_ms` later on both
    /// boards (room to unplug a board); `at_ms` is moved to a quiet moment of both.
    pub pause: Option<(u64, u64)>,
}

/// One DGT script line: its time and text.
type Line = (u64, String);

/// The start position's board of a built game.
pub fn start_board(game: &BuiltGame) -> Result<Board, String> {
    match &game.def.fen {
        None => Ok(Board::default()),
        Some(fen) => Fen::from_ascii(fen.as_bytes())
            .map(|f| f.as_setup().board.clone())
            .map_err(|e| format!("{}: bad FEN ({e})", game.def.name)),
    }
}

/// The promotion choices a keypad would give, per colour, at their script times.
fn choices(game: &BuiltGame, color: Color) -> Vec<(u64, Role)> {
    game.commands
        .iter()
        .filter_map(|c| match c.input {
            Input::Promote { color: c2, role } if c2 == color => Some((c.at_ms, role)),
            _ => None,
        })
        .collect()
}

/// Where a pause of `plan` really starts: the first action at or after the asked time
/// that follows a quiet second on both boards.
pub fn pause_start(game: &BuiltGame, asked: u64) -> Option<u64> {
    let mut times: Vec<u64> = [Color::White, Color::Black]
        .iter()
        .flat_map(|&c| game.script(c).actions.iter().map(|a| a.0))
        .collect();
    times.sort_unstable();
    times
        .windows(2)
        .find(|w| w[1] >= asked && w[1] - w[0] >= 500)
        .map(|w| w[1])
}

/// The `dgt-emulate` script of `color`'s board.
pub fn dgt_script(game: &BuiltGame, color: Color, plan: &DgtPlan) -> Result<String, String> {
    let board = start_board(game)?;
    let script = game.script(color);
    if board.by_color(color) != script.initial {
        return Err(format!(
            "{}: the start position's {color} men are not the script's",
            game.def.name
        ));
    }
    // His men (true role, the piece standing for it) and the guess men.
    let mut own: BTreeMap<Square, (Role, Role)> = board
        .by_color(color)
        .into_iter()
        .filter_map(|sq| board.role_at(sq).map(|r| (sq, (r, r))))
        .collect();
    let mut guess: BTreeMap<Square, Piece> = board
        .by_color(!color)
        .into_iter()
        .filter_map(|sq| board.piece_at(sq).map(|p| (sq, p)))
        .collect();
    let mut head = String::from("fen ");
    head.push_str(&fen_board(&own, &guess, color));
    let pause = plan
        .pause
        .and_then(|(at, ms)| pause_start(game, at).map(|t| (t, ms)));
    let shift = |t: u64| match pause {
        Some((from, ms)) if t >= from => t + ms,
        _ => t,
    };
    let choices = choices(game, color);
    let mut chosen: Option<Role> = None;
    let mut next_choice = 0;
    let mut hand: Vec<(Role, Role)> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let actions = &script.actions;
    let last_rank = color.fold_wb(Rank::Eighth, Rank::First);
    let mut i = 0;
    while i < actions.len() {
        let (t, action, sq) = actions[i];
        while let Some(&(_, role)) = choices.get(next_choice).filter(|c| c.0 <= t) {
            chosen = Some(role);
            next_choice += 1;
        }
        // A man lifted and put straight back on his square: nothing on a DGT board. After
        // a promotion it is the pawn swapped for the piece: the piece is the man now.
        let back = actions
            .get(i + 1)
            .is_some_and(|n| n.1 == Action::Place && n.2 == sq);
        if action == Action::Lift && back {
            if let Some(man) = own.get_mut(&sq) {
                if man.0 == Role::Pawn && sq.rank() == last_rank {
                    man.0 = man.1;
                    chosen = None;
                }
            }
            i += 2;
            continue;
        }
        let at = shift(t);
        match action {
            Action::Lift => {
                let man = own
                    .remove(&sq)
                    .ok_or_else(|| format!("{color} lifts from {sq}: no man of his there"))?;
                hand.push(man);
                lines.push((at, format!("lift {sq}")));
            }
            Action::Place => {
                let (role, _) = hand
                    .pop()
                    .ok_or_else(|| format!("{color} places on {sq}: nothing in hand"))?;
                let shown = if role == Role::Pawn && sq.rank() == last_rank {
                    chosen.unwrap_or(Role::Queen)
                } else {
                    role
                };
                if guess.remove(&sq).is_some() {
                    // His guess man there goes off the board first.
                    lines.push((at, format!("lift {sq}")));
                }
                own.insert(sq, (role, shown));
                let piece = Piece { color, role: shown };
                lines.push((at, format!("place {sq} {}", piece.char())));
            }
        }
        i += 1;
    }
    let visited: Bitboard = actions.iter().map(|a| a.2).collect();
    let still = script.initial.without(visited);
    add_faults(
        &mut lines,
        plan.faults.get(&(color == Color::White)),
        &mut guess,
        (visited, still),
    );
    if let Some((from, ms)) = pause {
        if color == Color::White {
            lines.push((from + 300, "unplug".to_owned()));
            lines.push((from + ms / 3, "replug".to_owned()));
        }
    }
    lines.sort_by_key(|l| l.0);
    let mut out = head;
    out.push('\n');
    for (at, text) in lines {
        let _ = writeln!(out, "{at} {text}");
    }
    Ok(out)
}

/// Puts each fault at the next quiet moment of the board (a second with no action), a
/// second after the previous fault at least.
fn add_faults(
    lines: &mut Vec<Line>,
    faults: Option<&Vec<Fault>>,
    guess: &mut BTreeMap<Square, Piece>,
    (visited, still): (Bitboard, Bitboard),
) {
    let Some(faults) = faults else { return };
    let times: Vec<u64> = lines.iter().map(|l| l.0).collect();
    let mut quiet = times
        .windows(2)
        .filter(|w| w[1] - w[0] >= 1000)
        .map(|w| w[0] + 200)
        .collect::<Vec<_>>()
        .into_iter();
    let mut last = 0;
    for fault in faults {
        let Some(at) = quiet.by_ref().find(|&t| t >= last + 1000) else {
            return;
        };
        last = at;
        match fault {
            Fault::Storm(n, scans) => {
                let guesses = guess.keys().copied().filter(|sq| !visited.contains(*sq));
                for sq in still.into_iter().chain(guesses).take(*n) {
                    lines.push((at, format!("flicker {sq} {scans}")));
                }
            }
            Fault::Garbage(n) => lines.push((at, format!("garbage {n}"))),
            Fault::Truncated => lines.push((at, "truncated".to_owned())),
            Fault::Eeprom => lines.push((at, "eeprom".to_owned())),
            Fault::GuessMove(from, to) => {
                if visited.contains(*to) || guess.contains_key(to) {
                    continue;
                }
                if let Some(p) = guess.remove(from) {
                    lines.push((at, format!("lift {from}")));
                    lines.push((at + 40, format!("place {to} {}", p.char())));
                    guess.insert(*to, p);
                }
            }
        }
    }
}

/// The FEN board of his men (as they stand) and the guess men.
fn fen_board(
    own: &BTreeMap<Square, (Role, Role)>,
    guess: &BTreeMap<Square, Piece>,
    color: Color,
) -> String {
    let mut board = Board::empty();
    for (&sq, &(_, shown)) in own {
        board.set_piece_at(sq, Piece { color, role: shown });
    }
    for (&sq, &p) in guess {
        board.set_piece_at(sq, p);
    }
    board.to_string()
}

/// The men of `color` on his board at the end of its script, per the emulator's script
/// (for checks): every square of the script's final occupancy.
pub fn final_men(game: &BuiltGame, color: Color) -> Bitboard {
    game.script(color).final_occupancy()
}
