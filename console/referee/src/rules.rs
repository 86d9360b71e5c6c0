//! Rule sets, their options and the table's language.

use core::fmt;
use core::str::FromStr;

use bounded_lines::excerpt;

use crate::Error;

/// The seven rule sets of docs/RULES.md, by their protocol id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RuleSet {
    /// The default: the rules most clubs know.
    #[default]
    Cincinnati,
    Wild16,
    Traditional,
    Rand,
    Berkeley,
    BerkeleyAny,
    Russian,
}

impl RuleSet {
    pub const ALL: [RuleSet; 7] = [
        RuleSet::Cincinnati,
        RuleSet::Wild16,
        RuleSet::Traditional,
        RuleSet::Rand,
        RuleSet::Berkeley,
        RuleSet::BerkeleyAny,
        RuleSet::Russian,
    ];

    pub const fn id(self) -> &'static str {
        match self {
            RuleSet::Cincinnati => "cincinnati",
            RuleSet::Wild16 => "wild16",
            RuleSet::Traditional => "traditional",
            RuleSet::Rand => "rand",
            RuleSet::Berkeley => "berkeley",
            RuleSet::BerkeleyAny => "berkeley-any",
            RuleSet::Russian => "russian",
        }
    }

    /// Berkeley games have neither the fifty-move nor the repetition draw, and their own
    /// dead-material rule.
    pub const fn is_berkeley(self) -> bool {
        matches!(self, RuleSet::Berkeley | RuleSet::BerkeleyAny)
    }

    /// Whether "Any?" exists in this rule set.
    pub const fn has_any_question(self) -> bool {
        matches!(self, RuleSet::BerkeleyAny | RuleSet::Russian)
    }

    /// Whether a try that cannot be legal on the player's own board is called impossible
    /// ("Nonsense", "Hell no") rather than merely illegal.
    pub const fn distinguishes_impossible(self) -> bool {
        !matches!(self, RuleSet::Wild16 | RuleSet::Russian)
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for RuleSet {
    type Err = Error;

    fn from_str(s: &str) -> Result<RuleSet, Error> {
        RuleSet::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| Error::UnknownRules(s.to_owned()))
    }
}

/// Which pawns RAND names in its pawn-try announcement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrySquares {
    /// The squares the pawns can capture on (the default).
    #[default]
    Destination,
    /// The squares of the pawns that can capture.
    Source,
}

/// How squares are spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notation {
    #[default]
    Algebraic,
    /// RAND rule 17: "king's bishop eight", relative to the mover.
    Descriptive,
}

/// Per-game options; each belongs to one rule set and is refused elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// RAND ladder games: the stalemated side loses.
    pub ladder: bool,
    /// Cincinnati: a try that ignores an announced check is impossible, not illegal.
    pub strict: bool,
    /// RAND: destination (default) or source squares in pawn-try announcements.
    pub try_squares: TrySquares,
    /// RAND: algebraic (default) or descriptive square names.
    pub notation: Notation,
}

/// The option keys and the rule set each belongs to.
const OPTION_OWNERS: [(&str, RuleSet); 4] = [
    ("ladder", RuleSet::Rand),
    ("strict", RuleSet::Cincinnati),
    ("rand-try-squares", RuleSet::Rand),
    ("notation", RuleSet::Rand),
];

/// An option value before it is checked: JSON booleans and strings both occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionValue<'a> {
    Bool(bool),
    Text(&'a str),
}

impl Options {
    /// Applies one `key=value`, refusing unknown keys, bad values and another rule set's
    /// options. On error `self` is unchanged.
    pub fn set(&mut self, rules: RuleSet, key: &str, value: OptionValue<'_>) -> Result<(), Error> {
        let owner = OPTION_OWNERS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| *r)
            .ok_or_else(|| Error::BadOption(format!("unknown option '{}'", excerpt(key))))?;
        if owner != rules {
            return Err(Error::BadOption(format!(
                "option '{key}' belongs to the {owner} rules, not {rules}"
            )));
        }
        let bad = |expected: &str| {
            Error::BadOption(format!("option '{key}' takes {expected}, not {value}"))
        };
        match key {
            "ladder" | "strict" => {
                let b = match value {
                    OptionValue::Bool(b) => b,
                    OptionValue::Text("true") => true,
                    OptionValue::Text("false") => false,
                    OptionValue::Text(_) => return Err(bad("true or false")),
                };
                if key == "ladder" {
                    self.ladder = b;
                } else {
                    self.strict = b;
                }
            }
            "rand-try-squares" => {
                self.try_squares = match value {
                    OptionValue::Text("destination") => TrySquares::Destination,
                    OptionValue::Text("source") => TrySquares::Source,
                    _ => return Err(bad("destination or source")),
                }
            }
            _ => {
                self.notation = match value {
                    OptionValue::Text("algebraic") => Notation::Algebraic,
                    OptionValue::Text("descriptive") => Notation::Descriptive,
                    _ => return Err(bad("algebraic or descriptive")),
                }
            }
        }
        Ok(())
    }

    /// Parses a command-line `KEY=VALUE`.
    pub fn set_pair(&mut self, rules: RuleSet, pair: &str) -> Result<(), Error> {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| Error::BadOption(format!("'{}' is not KEY=VALUE", excerpt(pair))))?;
        self.set(rules, key, OptionValue::Text(value))
    }
}

impl fmt::Display for OptionValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Text(t) => write!(f, "'{}'", excerpt(t)),
        }
    }
}

/// The language announcements are spoken and shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Lang {
    #[default]
    En,
    Fr,
    Ru,
}

impl FromStr for Lang {
    type Err = Error;

    fn from_str(s: &str) -> Result<Lang, Error> {
        match s {
            "en" => Ok(Lang::En),
            "fr" => Ok(Lang::Fr),
            "ru" => Ok(Lang::Ru),
            _ => Err(Error::BadLang(s.to_owned())),
        }
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Lang {
    pub const fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
            Lang::Ru => "ru",
        }
    }
}
