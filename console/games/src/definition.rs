//! Game definitions: the JSON a game is written in, the ones shipped with the program and
//! the folder they are read from, and why one cannot be built.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{build, BuiltGame, Timing};

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

pub(crate) fn err(ply: Option<usize>, message: impl Into<String>) -> GameError {
    GameError {
        ply,
        message: message.into(),
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
