//! A built game: the two board scripts, the keypad commands and the answers a table must
//! print, with the hall table and the `kriegspiel table` arguments that play it.

use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_referee::{Lang, RuleSet};
use serde_json::Value;

use crate::{BoardScript, GameDef, Timing};

/// The board ids of the simulated boards.
pub const SIM_BOARD_IDS: ByColor<u32> = ByColor { white: 1, black: 2 };

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
            white_board_id: Some(SIM_BOARD_IDS.white),
            black_board_id: Some(SIM_BOARD_IDS.black),
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
            white: board(Color::White, SIM_BOARD_IDS.white),
            black: board(Color::Black, SIM_BOARD_IDS.black),
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
