//! How a table is set up, as a round file or a command line describes it and as the journal
//! keeps it: plain words (rule-set ids, `25+10`), checked into a [`TableConfig`] with the
//! field named in every error.

use std::collections::BTreeMap;
use std::fmt;

use kriegspiel_referee::{GameConfig, Lang, Options, Referee, RuleSet};
use kriegspiel_table::{ClockStart, TableConfig, TimeControl, TouchMove, GUIDE_MS, SETTLE_MS};
use serde::{Deserialize, Serialize};

/// One table's game, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSetup {
    #[serde(default = "default_rules")]
    pub rules: String,
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default = "default_lang")]
    pub lang: String,
    #[serde(default = "default_touch_move")]
    pub touch_move: String,
    #[serde(default = "default_settle")]
    pub settle_ms: u32,
    #[serde(default = "default_guide")]
    pub guide_ms: u32,
    /// `MINUTES+SECONDS` or `none`.
    #[serde(default = "default_clock")]
    pub time_control: String,
    /// When a timed game's clocks start: `arbiter`, `boards` or `at-once`. A journal's game
    /// without it started them at once (as every game did before the choice existed).
    #[serde(
        default = "default_clock_start",
        skip_serializing_if = "starts_at_once"
    )]
    pub clock_start: String,
    #[serde(default)]
    pub white_player: Option<String>,
    #[serde(default)]
    pub black_player: Option<String>,
    /// The board ids each player's board should report.
    #[serde(default)]
    pub white_board_id: Option<u32>,
    #[serde(default)]
    pub black_board_id: Option<u32>,
    /// Players without a reed board: the table keeps their board and they try by keys or
    /// voice.
    #[serde(default)]
    pub white_without_board: bool,
    #[serde(default)]
    pub black_without_board: bool,
    /// The round or event the game belongs to (PGN `Event`).
    #[serde(default)]
    pub event: Option<String>,
}

fn default_rules() -> String {
    RuleSet::Cincinnati.id().to_owned()
}
fn default_lang() -> String {
    "en".to_owned()
}
fn default_touch_move() -> String {
    TouchMove::Strict.id().to_owned()
}
fn default_settle() -> u32 {
    SETTLE_MS
}
fn default_guide() -> u32 {
    GUIDE_MS
}
fn default_clock() -> String {
    "none".to_owned()
}

fn default_clock_start() -> String {
    ClockStart::AtOnce.id().to_owned()
}

fn starts_at_once(s: &str) -> bool {
    s == ClockStart::AtOnce.id()
}

/// What a console opened by a person asks when nothing is said: the clocks wait for the
/// arbiter, so that no clock runs before the round begins.
pub const CLOCK_START_FOR_PEOPLE: ClockStart = ClockStart::Arbiter;

impl Default for TableSetup {
    fn default() -> TableSetup {
        TableSetup {
            rules: default_rules(),
            options: BTreeMap::new(),
            fen: None,
            lang: default_lang(),
            touch_move: default_touch_move(),
            settle_ms: SETTLE_MS,
            guide_ms: GUIDE_MS,
            time_control: default_clock(),
            clock_start: default_clock_start(),
            white_player: None,
            black_player: None,
            white_board_id: None,
            black_board_id: None,
            white_without_board: false,
            black_without_board: false,
            event: None,
        }
    }
}

/// How a set-up asked at a restart differs from the one an unfinished game was journaled
/// with: the game goes on with its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Differences {
    /// Fields that make it another game (rules, options, start position): the console
    /// refuses to resume it silently.
    pub conflicts: Vec<String>,
    /// Fields the resumed game keeps from the journal, the asked value ignored.
    pub ignored: Vec<String>,
}

/// The position a FEN sets up (the start's for none); a FEN that does not read is itself.
fn start_of(fen: Option<&str>) -> Result<kriegspiel_referee::shakmaty::Setup, &str> {
    use kriegspiel_referee::shakmaty::{fen::Fen, Setup};
    match fen {
        None => Ok(Setup::initial()),
        Some(text) => text.parse::<Fen>().map(Fen::into_setup).map_err(|_| text),
    }
}

impl TableSetup {
    /// What differs between `self` (asked now) and `kept` (the journal's), field by field,
    /// each as "FIELD: VALUE asked, the game keeps VALUE".
    pub fn differences(&self, kept: &TableSetup) -> Differences {
        /// A field's value as the round file writes it, without its quotes.
        fn show<T: Serialize>(v: &T) -> String {
            fn words(v: &serde_json::Value) -> String {
                match v {
                    serde_json::Value::Null => "none".to_owned(),
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Object(m) if m.is_empty() => "none".to_owned(),
                    serde_json::Value::Object(m) => m
                        .iter()
                        .map(|(k, v)| format!("{k} = {}", words(v)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    other => other.to_string(),
                }
            }
            serde_json::to_value(v).map_or_else(|_| "?".to_owned(), |v| words(&v))
        }
        let mut d = Differences::default();
        let mut field = |name: &str, asked: String, kept: String, conflict: bool| {
            if asked != kept {
                let line = format!("{name}: {asked} asked, the game keeps {kept}");
                if conflict {
                    d.conflicts.push(line);
                } else {
                    d.ignored.push(line);
                }
            }
        };
        field("rules", show(&self.rules), show(&kept.rules), true);
        field("options", show(&self.options), show(&kept.options), true);
        // The same position however it is written: the start's FEN for none, counters or not.
        if start_of(self.fen.as_deref()) != start_of(kept.fen.as_deref()) {
            field("fen", show(&self.fen), show(&kept.fen), true);
        }
        field("lang", show(&self.lang), show(&kept.lang), false);
        field(
            "touch_move",
            show(&self.touch_move),
            show(&kept.touch_move),
            false,
        );
        field(
            "settle_ms",
            show(&self.settle_ms),
            show(&kept.settle_ms),
            false,
        );
        field(
            "guide_ms",
            show(&self.guide_ms),
            show(&kept.guide_ms),
            false,
        );
        field(
            "time_control",
            show(&self.time_control),
            show(&kept.time_control),
            false,
        );
        field(
            "clock_start",
            show(&self.clock_start),
            show(&kept.clock_start),
            false,
        );
        field(
            "white_player",
            show(&self.white_player),
            show(&kept.white_player),
            false,
        );
        field(
            "black_player",
            show(&self.black_player),
            show(&kept.black_player),
            false,
        );
        field(
            "white_board_id",
            show(&self.white_board_id),
            show(&kept.white_board_id),
            false,
        );
        field(
            "black_board_id",
            show(&self.black_board_id),
            show(&kept.black_board_id),
            false,
        );
        field("event", show(&self.event), show(&kept.event), false);
        // Boards: a game played on a board cannot go on without it (a port forgotten at
        // the restart); a port given for a player who plays without a board is not used.
        for (side, option, asked, kept) in [
            (
                "White",
                "white",
                self.white_without_board,
                kept.white_without_board,
            ),
            (
                "Black",
                "black",
                self.black_without_board,
                kept.black_without_board,
            ),
        ] {
            match (asked, kept) {
                (true, false) => d.conflicts.push(format!(
                    "{side} plays on a board in this game, and this start names no port for it (--{option} PORT, or {option} = \"PORT\" in the round file)"
                )),
                (false, true) => d.ignored.push(format!(
                    "{side} plays without a board in this game: the port given for him is not used"
                )),
                _ => {}
            }
        }
        d
    }
}

/// A set-up field that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SetupError {}

fn field(field: &'static str) -> impl Fn(String) -> SetupError {
    move |message| SetupError { field, message }
}

/// The most characters a name may have: a table's, a player's, an event's.
pub const MAX_NAME: usize = 100;

/// Refuses a name that is not one short line: control characters (a newline, a tab...) or
/// more than [`MAX_NAME`] characters. `field` names it in the error.
pub fn check_name(field: &'static str, name: &str) -> Result<(), SetupError> {
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(SetupError {
            field,
            message: format!(
                "a name is one line, without control characters (found {})",
                match c {
                    '\n' => "a line break".to_owned(),
                    '\r' => "a carriage return".to_owned(),
                    '\t' => "a tab".to_owned(),
                    c => format!("U+{:04X}", u32::from(c)),
                }
            ),
        });
    }
    if name.trim().is_empty() {
        return Err(SetupError {
            field,
            message: "a name cannot be empty or only spaces (leave the key out for none)"
                .to_owned(),
        });
    }
    let n = name.chars().count();
    if n > MAX_NAME {
        return Err(SetupError {
            field,
            message: format!("a name of {n} characters; at most {MAX_NAME}"),
        });
    }
    Ok(())
}

impl TableSetup {
    /// Refuses player and event names that are not one short line (see [`check_name`]).
    pub fn check_names(&self) -> Result<(), SetupError> {
        for (name, value) in [
            ("white_player", &self.white_player),
            ("black_player", &self.black_player),
            ("event", &self.event),
        ] {
            if let Some(v) = value {
                check_name(name, v)?;
            }
        }
        Ok(())
    }

    /// The table this set-up describes, checked as far as the referee checks a game, and
    /// its names (see [`TableSetup::check_names`]).
    pub fn config(&self) -> Result<TableConfig, SetupError> {
        self.check_names()?;
        let rules: RuleSet = self
            .rules
            .parse()
            .map_err(|e| field("rules")(format!("{e}")))?;
        let lang: Lang = self
            .lang
            .parse()
            .map_err(|e| field("lang")(format!("{e}")))?;
        let touch_move: TouchMove = self
            .touch_move
            .parse()
            .map_err(|e| field("touch_move")(format!("{e}")))?;
        let time_control: TimeControl = self
            .time_control
            .parse()
            .map_err(|e| field("time_control")(format!("{e}")))?;
        let clock_start: ClockStart = self
            .clock_start
            .parse()
            .map_err(|e| field("clock_start")(format!("{e}")))?;
        let mut options = Options::default();
        for (k, v) in &self.options {
            options
                .set_pair(rules, &format!("{k}={v}"))
                .map_err(|e| field("options")(format!("{e}")))?;
        }
        if self.white_board_id.is_some() && self.white_board_id == self.black_board_id {
            return Err(field("black_board_id")(
                "both players' boards have the same id".to_owned(),
            ));
        }
        let config = TableConfig {
            game: GameConfig {
                rules,
                options,
                fen: self.fen.clone(),
            },
            lang,
            touch_move,
            settle_ms: self.settle_ms,
            guide_ms: self.guide_ms,
            time_control,
            clock_start,
            board_ids: shakmaty_by_color(self.white_board_id, self.black_board_id),
            without_board: kriegspiel_referee::shakmaty::ByColor {
                white: self.white_without_board,
                black: self.black_without_board,
            },
        };
        config.validate().map_err(|e| {
            let name = match e {
                kriegspiel_table::Error::GuideOutOfRange(_) => "guide_ms",
                _ => "settle_ms",
            };
            field(name)(e.to_string())
        })?;
        Referee::new(&config.game).map_err(|e| field("fen")(e.to_string()))?;
        Ok(config)
    }
}

fn shakmaty_by_color(
    white: Option<u32>,
    black: Option<u32>,
) -> kriegspiel_referee::shakmaty::ByColor<Option<u32>> {
    kriegspiel_referee::shakmaty::ByColor { white, black }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_restart_that_forgets_a_board_is_a_conflict_and_a_port_too_many_is_ignored() {
        let on_boards = TableSetup::default();
        let forgot = TableSetup {
            white_without_board: true,
            time_control: "5+0".to_owned(),
            ..TableSetup::default()
        };
        let d = forgot.differences(&on_boards);
        assert_eq!(d.conflicts.len(), 1, "{d:?}");
        assert!(
            d.conflicts[0].starts_with("White plays on a board in this game"),
            "{d:?}"
        );
        assert!(d.conflicts[0].contains("--white PORT"), "{d:?}");
        assert_eq!(
            d.ignored,
            vec!["time_control: 5+0 asked, the game keeps none".to_owned()]
        );
        let d = on_boards.differences(&forgot);
        assert!(d.conflicts.is_empty());
        assert!(d
            .ignored
            .iter()
            .any(|i| i.starts_with("White plays without a board in this game")));
        assert_eq!(on_boards.differences(&on_boards), Differences::default());
        // Values as the round file writes them, never in the program's own notation.
        let other = TableSetup {
            rules: "wild16".to_owned(),
            options: BTreeMap::from([("pawn_tries".to_owned(), "off".to_owned())]),
            white_board_id: Some(7),
            ..TableSetup::default()
        };
        let d = other.differences(&on_boards);
        assert_eq!(
            d.conflicts,
            vec![
                "rules: wild16 asked, the game keeps cincinnati".to_owned(),
                "options: pawn_tries = off asked, the game keeps none".to_owned()
            ]
        );
        assert_eq!(
            d.ignored,
            vec!["white_board_id: 7 asked, the game keeps none".to_owned()]
        );
    }

    /// The start written out, or without its counters, is the start: no conflict.
    #[test]
    fn a_fen_is_compared_as_the_position_it_sets_up() {
        let with = |fen: Option<&str>| TableSetup {
            fen: fen.map(str::to_owned),
            ..TableSetup::default()
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let no_counters = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        for (asked, kept) in [
            (None, Some(start)),
            (Some(start), None),
            (Some(no_counters), Some(start)),
        ] {
            let d = with(asked).differences(&with(kept));
            assert_eq!(d, Differences::default(), "{asked:?} {kept:?}");
        }
        let other = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        let d = with(Some(other)).differences(&with(None));
        assert_eq!(
            d.conflicts,
            vec![format!("fen: {other} asked, the game keeps none")]
        );
    }

    #[test]
    fn names_are_one_short_line() {
        let with = |white: &str, black: &str, event: &str| TableSetup {
            white_player: Some(white.to_owned()),
            black_player: Some(black.to_owned()),
            event: Some(event.to_owned()),
            ..TableSetup::default()
        };
        let refused = |s: TableSetup| s.config().unwrap_err().to_string();
        assert_eq!(
            refused(with("Ann\nBob", "Cy", "Open")),
            "white_player: a name is one line, without control characters (found a line break)"
        );
        assert_eq!(
            refused(with("Ann", "Cy", "Open\t2026")),
            "event: a name is one line, without control characters (found a tab)"
        );
        assert_eq!(
            refused(with("Ann", &"é".repeat(101), "Open")),
            "black_player: a name of 101 characters; at most 100"
        );
        assert!(with(&"é".repeat(100), "Cy", "Open 2026").config().is_ok());
        assert_eq!(check_name("name", "table 1"), Ok(()));
        assert_eq!(check_name("name", "t\r").unwrap_err().field, "name");
        assert!(check_name("name", "bell\u{7}")
            .unwrap_err()
            .message
            .ends_with("(found U+0007)"));
        for blank in ["", "   "] {
            assert!(check_name("name", blank)
                .unwrap_err()
                .message
                .contains("cannot be empty"));
        }
    }
}
