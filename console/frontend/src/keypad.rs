//! Commands on standard input: a player's keypad or the arbiter's desk, one JSON object a
//! line (bounded, one bad line is one error), sent to the hall or to the players' channel.

use bounded_lines::{excerpt, LineReader};
use kriegspiel_hall::{HallHandle, TableNo};
use kriegspiel_referee::shakmaty::{Color, Role};
use kriegspiel_referee::Question;
use kriegspiel_table::arbiter_words::parse_action;
use kriegspiel_table::Input;
use serde_json::{Map, Value};

use crate::players::Players;

/// Reads an object's keys, refusing a key given twice (the last would silently win).
fn object(line: &str) -> Result<Map<String, Value>, String> {
    struct Unique(Map<String, Value>);
    impl<'de> serde::Deserialize<'de> for Unique {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Unique;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut a: A,
                ) -> Result<Unique, A::Error> {
                    let mut map = Map::new();
                    while let Some((k, v)) = a.next_entry::<String, Value>()? {
                        if map.contains_key(&k) {
                            return Err(serde::de::Error::custom(format!(
                                "duplicate key '{}'",
                                excerpt(&k)
                            )));
                        }
                        map.insert(k, v);
                    }
                    Ok(Unique(map))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_str::<Unique>(line)
        .map(|u| u.0)
        .map_err(|e| format!("not a JSON object: {e}"))
}

/// What a command line asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An input for the table (journaled).
    Input(Input),
    /// The arbiter frees a seat of the players' channel (`{"arbiter":"release white"}`).
    Release(Color),
    /// The arbiter starts every table's clocks (`{"arbiter":"start all"}`).
    StartAll,
}

/// One command line from a player's keypad or the arbiter's desk: the table it is for
/// (default 1) and what it asks.
pub fn parse_command(line: &str) -> Result<(TableNo, Command), String> {
    let obj = object(line)?;
    let table = match obj.get("table") {
        None => 1,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                format!(
                    "bad table {}: a table number from 1",
                    excerpt(&v.to_string())
                )
            })?,
    };
    if let Some(action) = obj.get("arbiter") {
        if let Some(k) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "table" | "arbiter"))
        {
            return Err(format!("unknown key '{}' with \"arbiter\"", excerpt(k)));
        }
        let words = action
            .as_str()
            .ok_or("\"arbiter\" takes the action as text, e.g. \"pause\" or \"put e4 Q\"")?;
        let words: Vec<&str> = words.split_whitespace().collect();
        if let ["start", "all"] = words.as_slice() {
            return Ok((table, Command::StartAll));
        }
        if let ["release", color] = words.as_slice() {
            let color = color.parse::<Color>().map_err(|_| {
                format!(
                    "release whom? 'release white' or 'release black' (not '{}')",
                    excerpt(color)
                )
            })?;
            return Ok((table, Command::Release(color)));
        }
        let action = parse_action(&words)?;
        // A void cannot be taken back: a bare "void" (a slip, a half-typed line) is asked
        // for its reason rather than ending the game with none.
        if matches!(&action, kriegspiel_table::ArbiterAction::Void { reason } if reason.trim().is_empty())
        {
            return Err(
                "void needs its reason (void REASON, e.g. void players swapped colours): a voided game cannot be taken back"
                    .into(),
            );
        }
        let input = Input::Arbiter(action);
        // Refused here, with its reason, rather than by the journal.
        kriegspiel_hall::check_input(&input)?;
        return Ok((table, Command::Input(input)));
    }
    let color = match obj.get("color").and_then(Value::as_str) {
        Some(c) => c
            .parse::<Color>()
            .map_err(|_| format!("unknown color '{}' (white, black)", excerpt(c)))?,
        None => return Err("missing \"color\": \"white\" or \"black\" (or \"arbiter\")".into()),
    };
    const KEYS: &str = "table, color, try, promote, ask, resign, draw, arbiter";
    let mut wanted = obj
        .keys()
        .filter(|k| !matches!(k.as_str(), "table" | "color"));
    let (Some(key), None) = (wanted.next(), wanted.next()) else {
        return Err(format!(
            "one of promote, ask, resign or draw per line (keys: {KEYS})"
        ));
    };
    let value = &obj[key.as_str()];
    let input = match key.as_str() {
        "promote" => {
            let role = match value.as_str() {
                Some("q" | "queen") => Role::Queen,
                Some("r" | "rook") => Role::Rook,
                Some("b" | "bishop") => Role::Bishop,
                Some("n" | "knight") => Role::Knight,
                _ => {
                    return Err(format!(
                        "bad promotion piece {} (q, r, b, n)",
                        excerpt(&value.to_string())
                    ))
                }
            };
            Input::Promote { color, role }
        }
        "ask" => {
            let question = match value.as_str() {
                Some("any") => Question::Any,
                Some("rebuffs") => Question::Rebuffs,
                _ => {
                    return Err(format!(
                        "unknown question {} (any, rebuffs)",
                        excerpt(&value.to_string())
                    ))
                }
            };
            Input::Ask { color, question }
        }
        "try" => {
            let uci = value
                .as_str()
                .ok_or("\"try\" takes the move in UCI, e.g. \"g1f3\"")?;
            let tried = kriegspiel_referee::Try::from_uci(uci)
                .map_err(|e| format!("bad try '{}': {e}", excerpt(uci)))?;
            Input::Play { color, tried }
        }
        "resign" | "draw" if value != &Value::Bool(true) => {
            return Err(format!("\"{key}\" takes true"));
        }
        "resign" => Input::Resign { color },
        "draw" => Input::Draw { color },
        other => return Err(format!("unknown key '{}' ({KEYS})", excerpt(other))),
    };
    Ok((table, Command::Input(input)))
}

/// Reads commands from standard input on a thread of its own and sends them to the hall
/// (a seat release to the players' channel). A bad line is reported and skipped; the end
/// of input ends only the reading.
pub fn spawn_keypad(
    hall: HallHandle,
    program: &'static str,
    tables: Vec<TableNo>,
    players: Option<Players>,
) {
    std::thread::spawn(move || {
        let mut reader = LineReader::new(std::io::stdin());
        loop {
            let line = match reader.next_line() {
                Ok(Some(Ok(l))) => l.trim().to_owned(),
                Ok(Some(Err(e))) => {
                    eprintln!(
                        "{program}: standard input line {}: {e}; skipped",
                        reader.line_number()
                    );
                    continue;
                }
                Ok(None) => return,
                Err(e) => {
                    eprintln!("{program}: standard input: {e}; commands are no longer read");
                    return;
                }
            };
            if line.is_empty() {
                continue;
            }
            match parse_command(&line) {
                Ok((table, _)) if !tables.contains(&table) => eprintln!(
                    "{program}: standard input line {}: no table {table} (this console's: {})",
                    reader.line_number(),
                    tables
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Ok((table, Command::Input(input))) => match hall.input(table, input) {
                    Ok(()) => {}
                    Err(kriegspiel_hall::InputError::Refused(why)) => eprintln!(
                        "{program}: standard input line {}: {why}",
                        reader.line_number()
                    ),
                    Err(kriegspiel_hall::InputError::Gone(_)) => return,
                },
                Ok((_, Command::StartAll)) => {
                    for &table in &tables {
                        let start = Input::Arbiter(kriegspiel_table::ArbiterAction::StartAll);
                        if hall.input(table, start).is_err() {
                            return;
                        }
                    }
                }
                Ok((table, Command::Release(color))) => {
                    let released = players.as_ref().is_some_and(|p| p.release(table, color));
                    if !released {
                        eprintln!(
                            "{program}: standard input line {}: no terminal holds table {table} {color} (its wrong codes are forgotten: its code may be tried at once)",
                            reader.line_number()
                        );
                    }
                }
                Err(e) => eprintln!(
                    "{program}: bad command on standard input line {}: {e}",
                    reader.line_number()
                ),
            }
        }
    });
}

#[cfg(test)]
mod tests;
