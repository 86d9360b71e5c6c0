//! Round files: a TOML file with one `[[table]]` per table of a hall, read into the tables'
//! specs and their audio options, every error naming the file, the table and the field.

use std::path::{Path, PathBuf};

use kriegspiel_hall::{BoardSource, TableNo, TableSetup, TableSpec};
use kriegspiel_net::{Broker, BrokerUrl};
use kriegspiel_speech::{AudioKey, AudioOptions};
use serde::Deserialize;

use crate::args::SpeechArgs;

/// The most tables one hall runs.
const MAX_TABLES: usize = 64;

/// A round file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Round {
    /// The event's name, for every table that names none (PGN `Event`).
    #[serde(default)]
    event: Option<String>,
    /// One `[[table]]` each: `name`, the ports `white` and `black` (absent: no board,
    /// keypad only), and the game's fields (those of [`TableSetup`]).
    #[serde(default)]
    table: Vec<toml::Table>,
    /// The broker of the round's networked boards (`board:N`).
    #[serde(default)]
    broker: Option<BrokerSection>,
}

/// `[broker]`: where the round's networked boards meet the consoles.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BrokerSection {
    url: String,
    username: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
}

/// The round's `[broker]`, if it has one; relative files are read beside the round file.
pub fn read_round_broker(path: &Path) -> Result<Option<Broker>, String> {
    let name = path.display();
    let Some(b) = parse_round(path)?.broker else {
        return Ok(None);
    };
    let url = b
        .url
        .parse::<BrokerUrl>()
        .map_err(|e| format!("{name}: [broker] url: {e}"))?;
    let beside = |p: PathBuf| match path.parent() {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p,
    };
    Ok(Some(Broker {
        url,
        username: b.username,
        password_file: b.password_file.map(beside),
        password: None,
        ca_file: b.ca_file.map(beside),
    }))
}

/// One `[[table]]` of a round file.
struct RoundTable {
    name: String,
    console: String,
    white: Option<PathBuf>,
    black: Option<PathBuf>,
    setup: TableSetup,
    audio: SpeechArgs,
}

/// The keys of a `[[table]]`: its name, its boards' ports, the game's fields (those of
/// [`TableSetup`]) and the audio keys (those of `kriegspiel table`'s audio options).
fn table_keys() -> Vec<String> {
    let mut keys = vec![
        "name".to_owned(),
        "white".to_owned(),
        "black".to_owned(),
        "console".to_owned(),
    ];
    // Every field, those left out of the journal when they hold their default included.
    let every = TableSetup {
        clock_start: kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
            .id()
            .to_owned(),
        ..TableSetup::default()
    };
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(every) {
        keys.extend(
            fields
                .keys()
                .filter(|k| !k.ends_with("_without_board"))
                .cloned(),
        );
    }
    keys.extend(AudioKey::ALL.iter().map(|k| k.key().to_owned()));
    keys
}

/// The key meant by one a round file does not know: the command line's name for it
/// (`clock` for `time_control`, `settle-ms` for `settle_ms`), or a key a letter or two
/// away (`white_audoi`).
fn meant(unknown: &str, known: &[String]) -> Option<String> {
    let flag = unknown.trim_start_matches('-').replace('-', "_");
    if flag == "clock" {
        return Some("time_control".to_owned());
    }
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&flag, k), k))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k.clone())
}

impl RoundTable {
    /// Reads one table; the error names the field. `label` names the table.
    fn read(mut t: toml::Table) -> Result<RoundTable, (Option<String>, String)> {
        let mut text = |key: &str| -> Result<Option<String>, String> {
            match t.remove(key) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(format!("{key}: expected text, found {}", other.type_str())),
            }
        };
        let name = text("name")
            .map_err(|e| (None, e))?
            .ok_or((None, "name: a table needs a name".to_owned()))?;
        kriegspiel_hall::setup::check_name("name", &name).map_err(|e| (None, e.to_string()))?;
        let named = |e: String| (Some(bounded_lines::excerpt(&name)), e);
        let port = |key: &str, p: Option<String>| match p {
            Some(p) if p.trim().is_empty() => Err(named(format!(
                "{key}: an empty port; leave the key out for a player without a board"
            ))),
            p => Ok(p.map(PathBuf::from)),
        };
        let console = text("console").map_err(named)?;
        if let Some(c) = &console {
            crate::credentials::check_console_name(c)
                .map_err(|e| named(format!("console: {e}")))?;
        }
        let console = console.unwrap_or_else(|| crate::credentials::MAIN_CONSOLE.to_owned());
        let white = text("white").map_err(named)?;
        let white = port("white", white)?;
        let black = text("black").map_err(named)?;
        let black = port("black", black)?;
        let known = table_keys();
        if let Some(unknown) = t.keys().find(|k| !known.contains(k)) {
            let hint = meant(unknown, &known)
                .map(|k| format!("did you mean '{k}'? "))
                .unwrap_or_default();
            return Err(named(format!(
                "unknown key '{}' ({hint}keys: {})",
                bounded_lines::excerpt(unknown),
                known.join(", ")
            )));
        }
        let audio = SpeechArgs::from_round_table(&mut t).map_err(named)?;
        // A round's clocks wait for the arbiter unless the file says otherwise.
        t.entry("clock_start").or_insert_with(|| {
            toml::Value::String(
                kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
                    .id()
                    .to_owned(),
            )
        });
        // `options = { strict = true }` is the natural TOML for the rules' option texts.
        if let Some(toml::Value::Table(options)) = t.get_mut("options") {
            for (_, v) in options.iter_mut() {
                if let toml::Value::Boolean(_) | toml::Value::Integer(_) | toml::Value::Float(_) = v
                {
                    *v = toml::Value::String(v.to_string());
                }
            }
        }
        let setup = TableSetup::deserialize(toml::Value::Table(t.clone())).map_err(|e| {
            // Named by the first key that is refused on its own.
            let key = t.iter().find(|(k, v)| {
                let one = toml::Table::from_iter([((*k).clone(), (*v).clone())]);
                TableSetup::deserialize(toml::Value::Table(one)).is_err()
            });
            let msg = e.message().replace('\n', " ");
            named(match key {
                Some((k, _)) if !msg.starts_with(&format!("{k}:")) => format!("{k}: {msg}"),
                _ => msg,
            })
        })?;
        Ok(RoundTable {
            name,
            console,
            white,
            black,
            setup,
            audio,
        })
    }
}

/// The key whose value starts where `before` ends (`event = 5`: `event`), if the value is
/// on the key's line.
fn key_before(before: &str) -> Option<&str> {
    let line = before.rsplit('\n').next().unwrap_or(before);
    let (key, rest) = line.rsplit_once('=')?;
    let key = key.rsplit(['{', ',']).next().unwrap_or(key).trim();
    let bare = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    (rest.trim().is_empty() && !key.is_empty() && key.chars().all(bare)).then_some(key)
}

/// The tables a round file describes, or an error naming the file, the table and the field.
pub fn read_round(path: &Path) -> Result<Vec<TableSpec>, String> {
    Ok(read_round_with_audio(path)?
        .into_iter()
        .map(|t| t.spec)
        .collect())
}

/// One table of a round: what the hall plays, and how it speaks.
#[derive(Debug)]
pub struct RoundEntry {
    /// The table's number: its place in the round file, from 1, whichever console runs it.
    pub no: TableNo,
    pub spec: TableSpec,
    /// The table's audio keys (checked: ranges, device names, no headset shared).
    pub audio: AudioOptions,
    /// `round.toml: table 1 ('1')`, for messages about this table.
    pub label: String,
    /// The console that runs this table (`console = "east"`; `main` when none is named).
    pub console: String,
}

/// The tables of a round that console `console` runs (`console = "NAME"` in their
/// `[[table]]`; `main` runs those that name none). None is an error naming the consoles
/// the round has.
pub fn tables_of(entries: Vec<RoundEntry>, console: &str) -> Result<Vec<RoundEntry>, String> {
    let mut consoles: Vec<String> = Vec::new();
    for e in &entries {
        if !consoles.contains(&e.console) {
            consoles.push(e.console.clone());
        }
    }
    let mine: Vec<RoundEntry> = entries
        .into_iter()
        .filter(|e| e.console == console)
        .collect();
    if mine.is_empty() {
        return Err(format!(
            "no table of the round belongs to console '{}' (its consoles: {}); give --console NAME",
            bounded_lines::excerpt(console),
            consoles.join(", ")
        ));
    }
    Ok(mine)
}

/// As [`read_round`], with each table's audio options. Two tables never share a headset or
/// a speech log.
pub fn read_round_with_audio(path: &Path) -> Result<Vec<RoundEntry>, String> {
    let name = path.display();
    let round = parse_round(path)?;
    let mut specs: Vec<RoundEntry> = Vec::with_capacity(round.table.len());
    let mut taken = Taken::default();
    for (i, t) in round.table.into_iter().enumerate() {
        let t = RoundTable::read(t).map_err(|(table, e)| match table {
            Some(n) => format!(
                "{name}: table {} ('{}'): {e}",
                i + 1,
                bounded_lines::excerpt(&n)
            ),
            None => format!("{name}: table {}: {}", i + 1, bounded_lines::excerpt(&e)),
        })?;
        let label = format!(
            "{name}: table {} ('{}')",
            i + 1,
            bounded_lines::excerpt(&t.name)
        );
        let audio = t.audio.options();
        taken.outputs(&label, &t.name, &audio)?;
        if t.name.trim().is_empty() {
            return Err(format!("{label}: name: a table needs a name"));
        }
        if specs.iter().any(|s| s.spec.name == t.name) {
            return Err(format!("{label}: name: another table has this name"));
        }
        taken.ports(&label, &t)?;
        specs.push(t.entry(i + 1, audio, label, round.event.as_ref())?);
    }
    Ok(specs)
}

/// Reads a round file: its text, its TOML (an error says the line, and the key when the
/// value is on the key's line), and one to [`MAX_TABLES`] tables.
fn parse_round(path: &Path) -> Result<Round, String> {
    let name = path.display();
    let text = bounded_lines::read_text(path, bounded_lines::MAX_FILE)
        .map_err(|e| format!("{name}: {e}"))?;
    let round: Round = toml::from_str(&text).map_err(|e| {
        let msg = e.message().replace('\n', " ");
        let at = e
            .span()
            .map(|s| {
                let before = text.get(..s.start).unwrap_or(&text);
                let line = before.matches('\n').count() + 1;
                match key_before(before) {
                    Some(key) => format!(" (line {line}, {key})"),
                    None => format!(" (line {line})"),
                }
            })
            .unwrap_or_default();
        format!("{name}{at}: {}", bounded_lines::excerpt(&msg))
    })?;
    if round.table.is_empty() {
        return Err(format!(
            "{name}: no [[table]]: a round needs at least one table"
        ));
    }
    if round.table.len() > MAX_TABLES {
        return Err(format!(
            "{name}: {} tables; one hall runs at most {MAX_TABLES}",
            round.table.len()
        ));
    }
    Ok(round)
}

/// What the round's tables read so far use: board ports, and audio outputs (a device, a
/// speech log, a recording folder), each with whose it is.
#[derive(Default)]
struct Taken {
    ports: Vec<(PathBuf, String)>,
    outputs: Vec<(String, String, AudioKey)>,
}

impl Taken {
    /// Takes the audio outputs of table `name`: a headset, a log or a recording folder
    /// belongs to one table; only a room speaker may be shared (public words are public).
    fn outputs(&mut self, label: &str, name: &str, audio: &AudioOptions) -> Result<(), String> {
        for (key, value) in [
            (AudioKey::PublicAudio, audio.public_device.clone()),
            (AudioKey::WhiteAudio, audio.white_device.clone()),
            (AudioKey::BlackAudio, audio.black_device.clone()),
            (
                AudioKey::SpeechLog,
                audio.log.as_ref().map(|p| p.display().to_string()),
            ),
            (
                AudioKey::SpeechWav,
                audio.wav.as_ref().map(|p| p.display().to_string()),
            ),
        ] {
            let Some(value) = value else { continue };
            let value = match key {
                AudioKey::PublicAudio | AudioKey::WhiteAudio | AudioKey::BlackAudio => {
                    kriegspiel_speech::Sink::parse(&value).to_string()
                }
                _ => value,
            };
            if let Some((_, other, _)) = self.outputs.iter().find(|(v, _, k)| {
                *v == value && !(key == AudioKey::PublicAudio && *k == AudioKey::PublicAudio)
            }) {
                return Err(format!(
                    "{label}: {}: {} is also {other}",
                    key.key(),
                    bounded_lines::excerpt(&value)
                ));
            }
            self.outputs.push((
                value,
                format!("table '{}' {}", bounded_lines::excerpt(name), key.key()),
                key,
            ));
        }
        Ok(())
    }

    /// Takes the board ports of a table: a port belongs to one board.
    fn ports(&mut self, label: &str, t: &RoundTable) -> Result<(), String> {
        for port in [&t.white, &t.black].into_iter().flatten() {
            if let Some((_, other)) = self.ports.iter().find(|(p, _)| p == port) {
                return Err(format!(
                    "{label}: board {} is also used by {other}",
                    port.display()
                ));
            }
            self.ports
                .push((port.clone(), format!("table '{}'", t.name)));
        }
        Ok(())
    }
}

impl RoundTable {
    /// The hall's table (`event`: the round's, for a table that names none), checked.
    fn entry(
        self,
        no: TableNo,
        audio: AudioOptions,
        label: String,
        event: Option<&String>,
    ) -> Result<RoundEntry, String> {
        let mut setup = self.setup;
        // A player without a board port plays by keys (or voice): the table keeps his board.
        setup.white_without_board |= self.white.is_none();
        setup.black_without_board |= self.black.is_none();
        if setup.event.is_none() {
            setup.event = event.cloned();
        }
        setup.config().map_err(|e| format!("{label}: {e}"))?;
        let board = |p: Option<PathBuf>| match p {
            None => Ok(BoardSource::Absent),
            Some(p) => {
                BoardSource::parse(&p.to_string_lossy()).map_err(|e| format!("{label}: {e}"))
            }
        };
        let (white, black) = (board(self.white)?, board(self.black)?);
        Ok(RoundEntry {
            no,
            spec: TableSpec {
                name: self.name,
                setup,
                white,
                black,
                scripted: Vec::new(),
                resume: kriegspiel_hall::Resume::Last,
            },
            audio,
            label,
            console: self.console,
        })
    }
}

#[cfg(test)]
mod tests;
