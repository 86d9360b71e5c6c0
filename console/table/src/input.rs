//! What reaches the table: sensor events of both boards, time, and the players' channels.

use kriegspiel_referee::{Question, Try};
use shakmaty::{Bitboard, Color, Role, Square};

use crate::game::ArbiterAction;
use crate::Millis;

/// What one player's board reports: occupancy only, never which man.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardInput {
    /// A magnet left the square.
    Lift(Square),
    /// A magnet arrived on the square.
    Place(Square),
    /// The whole occupancy as the board sees it (on connect, on request, twice a second).
    Snapshot(Bitboard),
    /// The link is up again, with the id the board gave; the board counts as unknown until
    /// its next snapshot.
    Connected { board_id: Option<u32> },
    /// The link is down: the board's occupancy is unknown until the next snapshot.
    Disconnected,
}

/// Every input that changes the game: the journal stores these; replaying them rebuilds the table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    Board {
        color: Color,
        input: BoardInput,
    },
    /// Time passes with nothing else happening (settle and guidance timers fire on it).
    Tick,
    /// The piece a player chose beforehand for his next promotion (keypad / voice).
    Promote {
        color: Color,
        role: Role,
    },
    /// A question from a player's keypad/voice channel.
    Ask {
        color: Color,
        question: Question,
    },
    /// A try made without moving a man (keys or voice): judged at once, with the same
    /// touch-move and referee rules as a try on the board.
    Play {
        color: Color,
        tried: Try,
    },
    /// A player resigns (keypad / voice).
    Resign {
        color: Color,
    },
    /// A player offers a draw, or accepts the opponent's open offer.
    Draw {
        color: Color,
    },
    /// An arbiter's action.
    Arbiter(ArbiterAction),
    /// The console came back after being down this long. `counted`: that time counted on
    /// the clocks (networked boards kept what was played meanwhile, timed as played);
    /// otherwise it never counts.
    Restarted {
        down_ms: Millis,
        counted: bool,
    },
}

/// One input at one table time.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Event {
    pub at: Millis,
    pub input: Input,
}

impl Event {
    pub const fn new(at: Millis, input: Input) -> Event {
        Event { at, input }
    }

    pub const fn tick(at: Millis) -> Event {
        Event {
            at,
            input: Input::Tick,
        }
    }

    pub const fn lift(at: Millis, color: Color, square: Square) -> Event {
        Event {
            at,
            input: Input::Board {
                color,
                input: BoardInput::Lift(square),
            },
        }
    }

    pub const fn place(at: Millis, color: Color, square: Square) -> Event {
        Event {
            at,
            input: Input::Board {
                color,
                input: BoardInput::Place(square),
            },
        }
    }
}
