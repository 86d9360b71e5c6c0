//! What a hall is asked to run: its tables, their boards and games, and its time.

use std::path::PathBuf;
use std::sync::Arc;

use kriegspiel_dgt::DgtPort;
use kriegspiel_table::{Input, Millis};

use crate::journal::GameId;
use crate::setup::TableSetup;
use crate::sim::SimScript;

/// Where a player's board is.
#[derive(Debug, Clone)]
pub enum BoardSource {
    /// A serial port or pseudo-terminal.
    Serial(PathBuf),
    /// A DGT e-board (`dgt:/dev/ttyACM0`, or `dgt:auto` for the first that answers): only
    /// the owner's colour is his men (docs/DGT.md).
    Dgt(DgtPort),
    /// A board simulated in this process, playing a script in table time.
    Simulated {
        script: Arc<SimScript>,
        board_id: u32,
    },
    /// A board on the room's network, by its id, through the hall's broker.
    Network(u32),
    /// No board (a player on keypad or voice only, or a table being set up).
    Absent,
}

impl BoardSource {
    /// A board as a table names it: `board:7` is networked board 7, `dgt:PATH` or
    /// `dgt:auto` a DGT e-board, anything else a serial port's path.
    pub fn parse(text: &str) -> Result<BoardSource, String> {
        if text.starts_with("dgt:") {
            return DgtPort::parse(text)
                .map(BoardSource::Dgt)
                .map_err(|e| format!("{e}, e.g. dgt:/dev/ttyACM0"));
        }
        match text.strip_prefix("board:") {
            Some(id) => id
                .parse::<u32>()
                .ok()
                .filter(|_| !id.starts_with('+') && (id == "0" || !id.starts_with('0')))
                .map(BoardSource::Network)
                .ok_or_else(|| {
                    format!(
                        "'{}' is not a networked board: write board:ID with the board's number, e.g. board:7",
                        text.chars().take(40).collect::<String>()
                    )
                }),
            None => Ok(BoardSource::Serial(PathBuf::from(text))),
        }
    }
}

impl TableSpec {
    /// Whether a board of this table is on the network (it needs the hall's broker).
    pub fn has_networked_board(&self) -> bool {
        [&self.white, &self.black]
            .iter()
            .any(|s| matches!(s, BoardSource::Network(_)))
    }
}

/// One table of the round.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// The table's name: the journal resumes the unfinished game of the same name.
    pub name: String,
    pub setup: TableSetup,
    pub white: BoardSource,
    pub black: BoardSource,
    /// Inputs the table receives at set table times, as a player's keypad would send them
    /// (the demo's promotion choices and questions). Journaled like any input.
    pub scripted: Vec<(Millis, Input)>,
    /// Which game the table plays: its unfinished one from the journal, a new one, or a
    /// game named by its number.
    pub resume: Resume,
}

/// Which game a table opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// A new game, even if the journal holds an unfinished one of this table (`--new-game`).
    New,
    /// The table's last game when it is unfinished (with the settings it was journaled
    /// with), else a new one.
    Last,
    /// This unfinished game of the journal, whatever its table's name and whatever newer
    /// game was started meanwhile (`--resume GAME`).
    Game(GameId),
}

impl Resume {
    /// `Last`, or `New` when a new game is asked for.
    pub fn unless_new(new_game: bool) -> Resume {
        if new_game {
            Resume::New
        } else {
            Resume::Last
        }
    }
}

/// How the hall's time passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeMode {
    Real,
    /// Simulated time: no real waits; only for simulated boards.
    Simulated,
}

/// The hall's table number: 1, 2, … in the order of the round.
pub type TableNo = usize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_named_as_a_port_a_networked_board_or_a_dgt_board() {
        assert!(matches!(
            BoardSource::parse("dgt:/dev/ttyACM0"),
            Ok(BoardSource::Dgt(DgtPort::Path(p))) if p == std::path::Path::new("/dev/ttyACM0")
        ));
        assert!(matches!(
            BoardSource::parse("dgt:auto"),
            Ok(BoardSource::Dgt(DgtPort::Auto))
        ));
        let err = BoardSource::parse("dgt:").err().unwrap_or_default();
        assert!(err.contains("expected dgt:PATH or dgt:auto"), "{err}");
        assert!(matches!(
            BoardSource::parse("board:7"),
            Ok(BoardSource::Network(7))
        ));
        assert!(matches!(
            BoardSource::parse("/dev/ttyUSB0"),
            Ok(BoardSource::Serial(_))
        ));
    }
}
