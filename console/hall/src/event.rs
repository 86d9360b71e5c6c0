//! What goes in and out of a hall: commands, and the typed events every subscriber reads.

use kriegspiel_boardlink::{Health, LinkEvent};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    Bitboard, ByColor, Chess, Color, EnPassantMode, Position, Square,
};
use kriegspiel_referee::{GameResult, Lang, Wording};
use kriegspiel_table::{Input, Millis, Output};

use crate::journal::GameId;
use crate::spec::{TableNo, TableSpec};

/// What a front end asks of the hall.
#[derive(Debug, Clone)]
pub enum HallCommand {
    /// A player's or the arbiter's input for a table.
    Input { table: TableNo, input: Input },
    /// Opens another table (a new game, or the unfinished game of that name resumed); it
    /// gets the next table number, announced by its `Opened` event.
    Open(Box<TableSpec>),
    /// Stops every table (everything already journaled stays).
    Shutdown,
}

/// A table's state as the arbiter sees it: typed, so that no subscriber parses it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableView {
    pub table: TableNo,
    pub at: Millis,
    /// The official position.
    pub position: Chess,
    pub paused: bool,
    pub result: Option<Option<GameResult>>,
    pub clocks: Option<(ByColor<Millis>, Option<Color>)>,
    /// A timed game whose clocks wait to be started (the overview says "waiting to start").
    pub clocks_waiting: bool,
    /// What each player's board shows.
    pub boards: ByColor<BoardSeen>,
    /// The man each player holds touched, if any.
    pub touched: ByColor<Option<Square>>,
    /// The draw offered and not yet answered: a window started again on a resumed game
    /// shows it, though the offer was said before it started.
    pub draw_offer: Option<Color>,
}

impl TableView {
    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.position.turn()
    }

    /// The official position in FEN, for lines printed to people and programs.
    pub fn fen(&self) -> String {
        fen(&self.position)
    }
}

/// A position in FEN as the console prints it (an en-passant square only when a capture
/// there is legal).
pub fn fen(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

/// What a player's board shows, and whether it matches the official position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSeen {
    pub occupancy: Bitboard,
    pub in_sync: bool,
}

/// What the hall publishes.
#[derive(Debug, Clone)]
pub enum HallEvent {
    /// A table is running: a new game, or an unfinished one resumed from the journal.
    Opened {
        table: TableNo,
        name: String,
        game: GameId,
        /// Journaled events replayed to resume; 0 for a new game.
        resumed_events: usize,
        wording: Wording,
        lang: Lang,
        /// Each player's seat code, which proves his seat to the players' channel.
        seats: ByColor<String>,
        /// When resumed: the last thing each player was meant to hear before the restart
        /// (what his `repeat` says).
        heard: ByColor<Option<Output>>,
        /// When resumed: settings asked now that differ from the game's, which it keeps.
        ignored: Vec<String>,
        /// A new game begun (`--new-game`) while this table's last game was unfinished:
        /// that game, kept in the journal to be taken up again (`--resume`).
        set_aside: Option<GameId>,
        /// A new game begun because this table's last game is over: that game (a restart
        /// after the end opens the next game at the table, and says which it follows).
        follows: Option<GameId>,
    },
    Output {
        table: TableNo,
        at: Millis,
        output: Output,
    },
    Link {
        table: TableNo,
        color: Color,
        event: LinkEvent,
        /// The link's counters right after the event.
        health: Health,
    },
    /// A table that could not be opened at run time (`HallCommand::Open`).
    OpenFailed {
        name: String,
        error: String,
    },
    View(Box<TableView>),
    /// The game is over (result `None`: voided).
    Ended {
        table: TableNo,
        result: Option<GameResult>,
        /// The final position.
        position: Box<Chess>,
    },
    /// The table stopped: its journal could not be written (nothing after this was applied).
    Failed {
        table: TableNo,
        error: String,
    },
    /// A player's seat on the players' channel: taken, left, refused, released.
    Seat(SeatNotice),
    /// The broker of the networked boards: reached, lost, refusing, or a message dropped.
    Broker(BrokerNotice),
}

/// What the arbiter is told about the broker and the networked boards' intake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerNotice {
    Reached {
        url: String,
    },
    /// Unreachable; retried every second (`was_up`: it had been reached before).
    Down {
        url: String,
        why: String,
        was_up: bool,
    },
    /// The broker refused this console's credentials: not retried.
    Refused {
        url: String,
        why: String,
    },
    /// Envelopes dropped because the intake was full (the boards send them again).
    Dropped {
        count: u64,
    },
    /// Messages on a board's topic that are not envelopes of ours: dropped, `count` so far
    /// (said at each power of two), `why` of the last.
    Malformed {
        board: u32,
        count: u64,
        why: String,
    },
    /// Board frames could not be stored: they are not acknowledged, the boards keep them.
    Journal {
        why: String,
    },
    /// Another console acknowledges one of this console's boards: the same table runs on
    /// two consoles (a round started twice, on two journals).
    Shared {
        board: u32,
    },
}

impl std::fmt::Display for BrokerNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrokerNotice::Reached { url } => write!(f, "broker {url} reached"),
            BrokerNotice::Down { url, why, was_up } => {
                let lost = if *was_up { "lost" } else { "unreachable" };
                write!(
                    f,
                    "broker {url} {lost} ({why}); networked boards are down, retrying 4 times a second"
                )
            }
            BrokerNotice::Refused { url, why } => write!(
                f,
                "broker {url} refused this console: {why}; not retried. A round file's console is the user console-NAME, its password made from the round's secret: run `kriegspiel broker-config` for this round again (it adds consoles named since) and restart mosquitto with it, or check the [broker] user name and password file"
            ),
            BrokerNotice::Dropped { count } => write!(
                f,
                "{count} board messages dropped so far because the intake was full; the boards send them again"
            ),
            BrokerNotice::Malformed { board, count: 1, why } => {
                write!(f, "board {board} sent a message that is not a link envelope ({why}): dropped")
            }
            BrokerNotice::Malformed { board, count, why } => write!(
                f,
                "board {board} sent {count} messages so far that are not link envelopes (the last: {why}): dropped"
            ),
            BrokerNotice::Journal { why } => write!(
                f,
                "board frames cannot be stored in the journal ({why}); they are not acknowledged and the boards keep them"
            ),
            BrokerNotice::Shared { board } => write!(
                f,
                "board {board} is also taken by another console: its table runs twice (a round started on two consoles or two journals?); stop the other one, each table must run on one console only"
            ),
        }
    }
}

/// What happened to a seat of the players' channel, for the arbiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatNotice {
    pub table: TableNo,
    pub color: Color,
    pub change: SeatChange,
}

/// A change of a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatChange {
    /// A terminal proved the seat and holds it.
    Taken { voice: bool },
    /// Its terminal hung up; the seat is free.
    Left,
    /// The console closed its terminal (it did not read, or flooded); the seat is free.
    CutOff { reason: String },
    /// The arbiter released the seat; its terminal was closed.
    Released,
    /// A terminal asked for the seat and was refused (a wrong code, the seat taken).
    Refused { reason: String },
    /// A new terminal with the seat's file took the seat over from the one holding it
    /// (the player started his program again, or someone has his file); the old one was
    /// closed, and its leaving and the new one's taking follow.
    Replaced,
}

impl SeatChange {
    /// The change's name in JSON lines.
    pub fn id(&self) -> &'static str {
        match self {
            SeatChange::Taken { .. } => "taken",
            SeatChange::Left => "left",
            SeatChange::CutOff { .. } => "cut_off",
            SeatChange::Released => "released",
            SeatChange::Refused { .. } => "refused",
            SeatChange::Replaced => "replaced",
        }
    }
}

impl std::fmt::Display for SeatNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (t, c) = (self.table, self.color);
        match &self.change {
            SeatChange::Taken { voice: false } => write!(f, "table {t}: {c}'s terminal connected"),
            SeatChange::Taken { voice: true } => {
                write!(f, "table {t}: {c}'s voice terminal connected")
            }
            SeatChange::Left => write!(f, "table {t}: {c}'s terminal disconnected"),
            SeatChange::CutOff { reason } => {
                write!(f, "table {t}: {c}'s terminal was cut off: {reason}")
            }
            SeatChange::Released => write!(f, "table {t}: {c}'s seat released by the arbiter"),
            SeatChange::Refused { reason } => {
                write!(
                    f,
                    "table {t}: a terminal asking for {c}'s seat was refused: {reason}"
                )
            }
            SeatChange::Replaced => write!(
                f,
                "table {t}: {c}'s seat was taken over by a new terminal with the same seat file (the old one is closed; if the player did not start it, someone has his seat file)"
            ),
        }
    }
}
