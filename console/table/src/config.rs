//! How a table is set up: the game, the language and the recognizer's timing rules.

use core::ops::RangeInclusive;

use kriegspiel_referee::{GameConfig, Lang};
use shakmaty::ByColor;

use crate::clock::TimeControl;

use crate::Error;

/// The default settle window (docs/OVER-THE-BOARD.md §3).
pub const SETTLE_MS: u32 = 300;
/// The settle window an event may configure.
pub const SETTLE_RANGE: RangeInclusive<u32> = 100..=1500;
/// The default delay before an out-of-sync board is guided square by square.
pub const GUIDE_MS: u32 = 3000;
/// The guidance delay a table accepts: never shorter than a settle window, at most ten minutes.
pub const GUIDE_RANGE: RangeInclusive<u32> = 100..=600_000;

/// Touch-move: whether a touched man owes the next try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum TouchMove {
    /// A try with another man is not adjudicated; the player is reminded privately.
    #[default]
    Strict,
    /// The other try is adjudicated; the breach is logged for the arbiter only.
    Warn,
    /// Touching commits to nothing.
    Off,
}

impl TouchMove {
    pub const fn id(self) -> &'static str {
        match self {
            TouchMove::Strict => "strict",
            TouchMove::Warn => "warn",
            TouchMove::Off => "off",
        }
    }
}

impl core::str::FromStr for TouchMove {
    type Err = Error;

    fn from_str(s: &str) -> Result<TouchMove, Error> {
        match s {
            "strict" => Ok(TouchMove::Strict),
            "warn" => Ok(TouchMove::Warn),
            "off" => Ok(TouchMove::Off),
            _ => Err(Error::BadTouchMove(s.to_owned())),
        }
    }
}

/// When a timed game's clocks start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ClockStart {
    /// When the table opens (games journaled before the choice existed, simulated demos).
    #[default]
    AtOnce,
    /// When the arbiter starts them (`start` action): the round begins when he says so.
    Arbiter,
    /// When both players' boards are connected and show the official position (or the
    /// arbiter starts them first).
    Boards,
}

impl ClockStart {
    pub const fn id(self) -> &'static str {
        match self {
            ClockStart::AtOnce => "at-once",
            ClockStart::Arbiter => "arbiter",
            ClockStart::Boards => "boards",
        }
    }
}

impl core::str::FromStr for ClockStart {
    type Err = Error;

    fn from_str(s: &str) -> Result<ClockStart, Error> {
        match s {
            "at-once" => Ok(ClockStart::AtOnce),
            "arbiter" => Ok(ClockStart::Arbiter),
            "boards" => Ok(ClockStart::Boards),
            _ => Err(Error::BadClockStart(s.to_owned())),
        }
    }
}

/// Everything a table needs before the first event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableConfig {
    /// Rules, options and start position.
    pub game: GameConfig,
    pub lang: Lang,
    pub touch_move: TouchMove,
    /// How long a board must stay still before a try is complete (100..=1500).
    pub settle_ms: u32,
    /// How long a board may stay out of sync before the player is guided.
    pub guide_ms: u32,
    /// Base time and increment; `None` plays without a clock.
    pub time_control: TimeControl,
    /// When the clocks start.
    pub clock_start: ClockStart,
    /// The board id each player's board should report (none: learnt at its first connection).
    pub board_ids: ByColor<Option<u32>>,
    /// Players without a reed board: the table keeps their board (it follows the official
    /// position) and they try by keys or voice.
    pub without_board: ByColor<bool>,
}

impl Default for TableConfig {
    fn default() -> TableConfig {
        TableConfig::new(GameConfig::default())
    }
}

impl TableConfig {
    /// A table for `game` with every default of docs/OVER-THE-BOARD.md.
    pub fn new(game: GameConfig) -> TableConfig {
        TableConfig {
            game,
            lang: Lang::En,
            touch_move: TouchMove::Strict,
            settle_ms: SETTLE_MS,
            guide_ms: GUIDE_MS,
            time_control: TimeControl::None,
            clock_start: ClockStart::AtOnce,
            board_ids: ByColor::default(),
            without_board: ByColor::default(),
        }
    }

    /// Refuses timings outside the ranges the contract allows.
    pub fn validate(&self) -> Result<(), Error> {
        if !SETTLE_RANGE.contains(&self.settle_ms) {
            return Err(Error::SettleOutOfRange(self.settle_ms));
        }
        if !GUIDE_RANGE.contains(&self.guide_ms) {
            return Err(Error::GuideOutOfRange(self.guide_ms));
        }
        Ok(())
    }
}
