//! Why a hall could not start or open a table.

use crate::journal::{GameId, JournalError};
use crate::setup::SetupError;

/// Why the hall could not start.
#[derive(Debug)]
pub enum HallError {
    Journal(JournalError),
    /// A table's set-up is wrong.
    Setup {
        table: String,
        error: SetupError,
    },
    /// A game in the journal cannot be resumed.
    Resume {
        table: String,
        error: String,
    },
    /// `--fast` (simulated time) with a real board.
    SimulatedTimeNeedsSimulatedBoards {
        table: String,
    },
    Runtime(std::io::Error),
    NoTables,
    /// Two tables were given the same number.
    SameNumber {
        table: usize,
    },
    /// Two tables were given the same name: each would take up the other's game.
    SameName {
        name: String,
    },
    /// A table has a networked board (`board:N`) but the hall was given no broker.
    NoBroker {
        table: String,
    },
    /// The table's unfinished game was set up as another game (rules, options, position).
    Conflict {
        table: String,
        game: GameId,
        conflicts: Vec<String>,
    },
}

impl std::fmt::Display for HallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HallError::Journal(e) => e.fmt(f),
            HallError::Setup { table, error } => write!(f, "table '{table}': {error}"),
            HallError::NoBroker { table } => write!(
                f,
                "table '{table}' has a networked board (board:N) but no broker was given: add --broker mqtt://HOST:PORT, or [broker] url = ... to the round file"
            ),
            HallError::Resume { table, error } => {
                write!(f, "table '{table}': cannot resume its game: {error}")
            }
            HallError::SimulatedTimeNeedsSimulatedBoards { table } => write!(
                f,
                "table '{table}': simulated time works with simulated boards only"
            ),
            HallError::Runtime(e) => write!(f, "cannot start the hall's runtime: {e}"),
            HallError::NoTables => f.write_str("a hall needs at least one table"),
            HallError::SameNumber { table } => {
                write!(f, "two tables were given the number {table}")
            }
            HallError::SameName { name } => write!(
                f,
                "two tables are named '{name}': a table takes up the unfinished game of its name, so each name may be used once (rename one)"
            ),
            HallError::Conflict {
                table,
                game,
                conflicts,
            } => write!(
                f,
                "table '{table}': the journal holds its unfinished game {game}, set up otherwise ({}); start with the game's own settings to resume it, or with --new-game to start afresh (game {game} stays in the journal)",
                conflicts.join("; ")
            ),
        }
    }
}

impl std::error::Error for HallError {}

impl From<JournalError> for HallError {
    fn from(e: JournalError) -> HallError {
        HallError::Journal(e)
    }
}
