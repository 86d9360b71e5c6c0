//! `kriegspiel hall --config round.toml`: every table of a round in one process, JSON lines
//! tagged with the table, commands for any table on standard input, one journal.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kriegspiel_hall::{BoardSource, TableSetup, TableSpec};
use serde::Deserialize;

use crate::frontend::{open_journal, SpeechArgs};
use crate::speech::{setup, AudioKey, AudioOptions};
use crate::table_cmd::play;

const PROGRAM: &str = "kriegspiel hall";

/// The most tables one hall runs.
const MAX_TABLES: usize = 64;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round: a TOML file with one [[table]] per table (see the README).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The journal; default: journal.sqlite in the user's data folder.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// The players' terminals' socket (`kriegspiel player`); default: beside the journal.
    #[arg(long, value_name = "PATH")]
    player_socket: Option<PathBuf>,
    /// Start new games at every table even if the journal holds unfinished ones.
    #[arg(long)]
    new_game: bool,
    /// Speak nothing at any table, whatever the round file says (the JSON lines still carry
    /// every word).
    #[arg(long)]
    no_speech: bool,
}

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
}

/// One `[[table]]` of a round file.
struct RoundTable {
    name: String,
    white: Option<PathBuf>,
    black: Option<PathBuf>,
    setup: TableSetup,
    audio: SpeechArgs,
}

/// The keys of a `[[table]]`: its name, its boards' ports, the game's fields (those of
/// [`TableSetup`]) and the audio keys (those of `kriegspiel table`'s audio options).
fn table_keys() -> Vec<String> {
    let mut keys = vec!["name".to_owned(), "white".to_owned(), "black".to_owned()];
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
        let white = text("white").map_err(named)?;
        let white = port("white", white)?;
        let black = text("black").map_err(named)?;
        let black = port("black", black)?;
        let known = table_keys();
        if let Some(unknown) = t.keys().find(|k| !known.contains(k)) {
            return Err(named(format!(
                "unknown key '{}' (keys: {})",
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
    pub spec: TableSpec,
    /// The table's audio keys (checked: ranges, device names, no headset shared).
    pub audio: AudioOptions,
    /// `round.toml: table 1 ('1')`, for messages about this table.
    pub label: String,
}

/// As [`read_round`], with each table's audio options. Two tables never share a headset or
/// a speech log.
pub fn read_round_with_audio(path: &Path) -> Result<Vec<RoundEntry>, String> {
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
    let mut specs = Vec::with_capacity(round.table.len());
    let mut ports: Vec<(PathBuf, String)> = Vec::new();
    let mut outputs: Vec<(String, String, AudioKey)> = Vec::new();
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
        // A headset, a room device or a speech log belongs to one table.
        let audio = t.audio.options();
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
            // Only a room speaker may be shared (public words are public); a headset, a
            // log or a recording folder is one table's.
            if let Some((_, other, _)) = outputs.iter().find(|(v, _, k)| {
                *v == value && !(key == AudioKey::PublicAudio && *k == AudioKey::PublicAudio)
            }) {
                return Err(format!(
                    "{label}: {}: {} is also {other}",
                    key.key(),
                    bounded_lines::excerpt(&value)
                ));
            }
            outputs.push((
                value,
                format!("table '{}' {}", bounded_lines::excerpt(&t.name), key.key()),
                key,
            ));
        }
        if t.name.trim().is_empty() {
            return Err(format!("{label}: name: a table needs a name"));
        }
        if specs.iter().any(|s: &RoundEntry| s.spec.name == t.name) {
            return Err(format!("{label}: name: another table has this name"));
        }
        for port in [&t.white, &t.black].into_iter().flatten() {
            if let Some((_, other)) = ports.iter().find(|(p, _)| p == port) {
                return Err(format!(
                    "{label}: port {} is also used by {other}",
                    port.display()
                ));
            }
            ports.push((port.clone(), format!("table '{}'", t.name)));
        }
        let mut setup = t.setup;
        // A player without a board port plays by keys (or voice): the table keeps his board.
        setup.white_without_board |= t.white.is_none();
        setup.black_without_board |= t.black.is_none();
        if setup.event.is_none() {
            setup.event.clone_from(&round.event);
        }
        setup.config().map_err(|e| format!("{label}: {e}"))?;
        let board = |p: Option<PathBuf>| p.map_or(BoardSource::Absent, BoardSource::Serial);
        specs.push(RoundEntry {
            spec: TableSpec {
                name: t.name,
                setup,
                white: board(t.white),
                black: board(t.black),
                scripted: Vec::new(),
                resume: kriegspiel_hall::Resume::Last,
            },
            audio,
            label,
        });
    }
    Ok(specs)
}

pub fn run(args: Args) -> ExitCode {
    let entries = match read_round_with_audio(&args.config) {
        Ok(mut s) => {
            if args.no_speech {
                for e in &mut s {
                    e.audio.off = true;
                }
            }
            s
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    // speech-dispatcher is asked once for the whole hall, while the devices are checked and
    // the journal opens; the speakers are built from its answer.
    let wants_dispatcher = entries.iter().any(|e| e.audio.wants_dispatcher());
    let probing = std::thread::spawn(move || setup::probe(wants_dispatcher));
    // Every named device is opened once, whatever the speech options (--no-speech,
    // no_speech): a round file naming a missing device is refused either way.
    let audio: Vec<&AudioOptions> = entries.iter().map(|e| &e.audio).collect();
    let mut checked = Vec::with_capacity(entries.len());
    for (entry, c) in entries.iter().zip(setup::check_all(&audio)) {
        match c {
            Ok(c) => checked.push(c),
            Err(e) => {
                eprintln!("{PROGRAM}: {}: {}", entry.label, e.in_round_file());
                return ExitCode::from(2);
            }
        }
    }
    let journal = match open_journal(PROGRAM, args.journal) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let speakers = match table_speakers(&entries, checked, || {
        probing.join().unwrap_or_else(|_| setup::Probe {
            dispatcher: Some(Err("the probe failed".to_owned())),
            no_audio: None,
        })
    }) {
        Ok(built) => {
            if let Some(line) = built.summary {
                eprintln!("{PROGRAM}: speech: {line}");
            }
            built.speakers
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let specs = entries
        .into_iter()
        .map(|e| TableSpec {
            resume: kriegspiel_hall::Resume::unless_new(args.new_game),
            ..e.spec
        })
        .collect();
    // A hall's lines name their table, however many it has.
    play(journal, specs, speakers, args.player_socket, PROGRAM, true)
}

/// Every table's speakers, from its checked options (`checked`, in the tables' order) and
/// one probe for the whole hall (`probe`, called once: speech-dispatcher absent or hung
/// costs the hall one try, not one per table), and the one summary line for the hall
/// ([`setup::summary`]). The error names the file, the table and the key.
fn table_speakers(
    entries: &[RoundEntry],
    checked: Vec<setup::Checked>,
    probe: impl FnOnce() -> setup::Probe,
) -> Result<setup::Built, String> {
    let mut tables = Vec::with_capacity(entries.len());
    for (i, (e, c)) in entries.iter().zip(checked).enumerate() {
        let lang = e
            .spec
            .setup
            .config()
            .map_err(|err| format!("{}: {err}", e.label))?
            .lang;
        tables.push((i + 1, lang, c));
    }
    setup::build_all(&tables, probe).map_err(|(table, err)| {
        let label = entries
            .get(table.saturating_sub(1))
            .map_or_else(|| format!("table {table}"), |e| e.label.clone());
        format!("{label}: {}", err.in_round_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str) -> Result<Vec<TableSpec>, String> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("round.toml");
        std::fs::write(&p, text).unwrap();
        read_round(&p)
    }

    #[test]
    fn a_round_file_names_the_file_the_table_and_the_field() {
        let ok = round(
            r#"event = "Club night"
[[table]]
name = "1"
white = "/dev/ttyACM0"
black = "/dev/ttyACM1"
rules = "rand"
time_control = "25+10"
white_player = "Ann"
[[table]]
name = "2"
rules = "wild16"
lang = "fr"
"#,
        )
        .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].setup.event.as_deref(), Some("Club night"));
        assert_eq!(ok[1].setup.lang, "fr");
        // Option values may be written as TOML booleans and numbers.
        let typed =
            round("[[table]]\nname = \"1\"\nrules = \"cincinnati\"\noptions = { strict = true }\n")
                .unwrap();
        assert_eq!(
            typed[0].setup.options.get("strict").map(String::as_str),
            Some("true")
        );
        assert!(matches!(ok[1].white, BoardSource::Absent));
        // The audio keys of `kriegspiel table`, by the same names; a room speaker may be
        // shared, a headset not.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("round.toml");
        std::fs::write(
            &p,
            r#"[[table]]
name = "1"
public_audio = "pulse:room"
white_audio = "plughw:1,0"
black_audio = "alsa:black1"
public_to = "both"
voice = "en-us"
rate = 200
volume = 80
speech_log = "t1.tsv"
no_speech_dispatcher = true
[[table]]
name = "2"
lang = "ru"
public_audio = "pulse:room"
white_audio = "pulse:white2"
no_speech = true
"#,
        )
        .unwrap();
        let tables = read_round_with_audio(&p).unwrap();
        let a = &tables[0].audio;
        assert_eq!(a.public_device.as_deref(), Some("pulse:room"));
        assert_eq!(a.white_device.as_deref(), Some("plughw:1,0"));
        assert_eq!(a.black_device.as_deref(), Some("alsa:black1"));
        assert_eq!(a.public_to, crate::speech::PublicTo::Both);
        assert_eq!(a.voice.voice.as_deref(), Some("en-us"));
        assert_eq!((a.voice.rate, a.voice.volume), (Some(200), Some(80)));
        assert_eq!(a.log.as_deref(), Some(Path::new("t1.tsv")));
        assert!(a.no_dispatcher && !a.off);
        assert!(tables[1].audio.off);
        assert_eq!(tables[1].label, format!("{}: table 2 ('2')", p.display()));
        assert_eq!(tables[1].spec.setup.lang, "ru");
        for (text, says) in [
            ("[[table]]\nname = \"1\"\nrules = \"chess\"\n", "table 1 ('1'): rules:"),
            ("[[table]]\nname = \"1\"\n[[table]]\nname = \"2\"\ntime_control = \"soon\"\n", "table 2 ('2'): time_control:"),
            ("[[table]]\nname = \"1\"\ncolour = \"white\"\n", "table 1 ('1'): unknown key 'colour' (keys: name, white, black, black_board_id,"),
            ("[[table]]\nname = \"1\"\nwhite_audoi = \"w\"\n", "table 1 ('1'): unknown key 'white_audoi' (keys: name, white, black, "),
            ("[[table]]\nname = \"1\"\nrate = 20\n", "table 1 ('1'): rate: 20: from 80 to 450 words per minute"),
            ("[[table]]\nname = \"1\"\nrate = \"fast\"\n", "table 1 ('1'): rate: invalid type: string \"fast\""),
            ("[[table]]\nname = \"1\"\nvolume = 300\n", "table 1 ('1'): volume: 300: from 0 to 200"),
            ("[[table]]\nname = \"1\"\npublic_to = \"hall\"\nwhite_audio = \"w\"\n", "table 1 ('1'): public_to: unknown public output 'hall' (room, headsets, both)"),
            ("[[table]]\nname = \"1\"\npublic_to = \"both\"\n", "table 1 ('1'): public_to: headsets/both needs white_audio"),
            ("[[table]]\nname = \"1\"\nwhite_audio = \"\"\n", "table 1 ('1'): white_audio: an empty device name"),
            ("[[table]]\nname = \"1\"\nblack_audio = \"pulse:\"\n", "table 1 ('1'): black_audio: pulse: needs a sink name"),
            ("[[table]]\nname = \"1\"\nblack_audio = \"plug hw\"\n", "table 1 ('1'): black_audio: bad device name 'plug hw'"),
            ("[[table]]\nname = \"1\"\nwhite_audio = \"hs\"\nblack_audio = \"alsa:hs\"\n", "table 1 ('1'): black_audio: ALSA device 'hs' is also white_audio"),
            ("[[table]]\nname = \"1\"\nno_speech = \"yes\"\n", "table 1 ('1'): no_speech: invalid type: string \"yes\", expected a boolean"),
            ("[[table]]\nname = \"1\"\nwhite_audio = \"pulse:a\"\n[[table]]\nname = \"2\"\nblack_audio = \"pulse:a\"\n", "table 2 ('2'): black_audio: PulseAudio sink 'a' is also table '1' white_audio"),
            ("[[table]]\nname = \"1\"\nspeech_log = \"s.tsv\"\n[[table]]\nname = \"2\"\nspeech_log = \"s.tsv\"\n", "table 2 ('2'): speech_log: s.tsv is also table '1' speech_log"),
            ("[[table]]\nrules = \"rand\"\n", "table 1: name: a table needs a name"),
            ("[[table]]\nname = 3\n", "table 1: name: expected text"),
            ("[[table]]\nname = \"1\"\nwhite = \"\"\n", "table 1 ('1'): white: an empty port"),
            ("[[table]]\nname = \"one\\ntwo\"\n", "table 1: name: a name is one line"),
            ("[[table]]\nname = \"1\"\n[[table]]\nname = \"1\"\n", "another table has this name"),
            ("[[table]]\nname = \"1\"\nwhite = \"/dev/a\"\n[[table]]\nname = \"2\"\nblack = \"/dev/a\"\n", "also used by table '1'"),
            ("event = \"x\"\n", "at least one table"),
            ("[[table]]\nname = \"1\"\nsettle_ms = -4\n", "table 1 ('1'): settle_ms: invalid value: integer `-4`"),
            ("[[table]]\nname = \"1\"\nrules = \"rand\"\noptions = { any = 3 }\n", "table 1 ('1'): options: unknown option"),
            ("event = 5\n[[table]]\nname = \"1\"\n", "round.toml (line 1, event): invalid type: integer `5`"),
            ("[[table]\n", "line 1"),
        ] {
            let e = round(text).unwrap_err();
            assert!(e.contains("round.toml"), "{e}");
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn every_table_speaks_from_one_probe_and_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("round.toml");
        std::fs::write(
            &p,
            "[[table]]\nname = \"1\"\n[[table]]\nname = \"2\"\nlang = \"fr\"\n[[table]]\nname = \"3\"\nno_speech = true\n[[table]]\nname = \"4\"\nlang = \"ru\"\n[[table]]\nname = \"5\"\n",
        )
        .unwrap();
        let entries = read_round_with_audio(&p).unwrap();
        let audio: Vec<&AudioOptions> = entries.iter().map(|e| &e.audio).collect();
        let checked: Vec<_> = setup::check_all(&audio)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let calls = std::cell::Cell::new(0);
        let built = table_speakers(&entries, checked, || {
            calls.set(calls.get() + 1);
            setup::Probe {
                dispatcher: Some(Err("not answering".to_owned())),
                no_audio: None,
            }
        })
        .unwrap();
        assert_eq!(calls.get(), 1);
        // The speaking tables have their room speaker (espeak-ng, not speech-dispatcher:
        // no table tried it again); the silent one none.
        let tables: Vec<_> = built.speakers.iter().map(|(t, _)| *t).collect();
        assert_eq!(tables, [1, 2, 4, 5]);
        assert!(built.speakers.iter().all(|(_, s)| s.room.is_some()));
        assert_eq!(
            built.summary.as_deref(),
            Some(
                "speech-dispatcher not answering (not answering); \
                 public announcements by espeak-ng on the default output at tables 1, 2, 4, 5; \
                 no headsets at tables 1, 2, 4, 5 (white_audio, black_audio): private messages reach only the text channels"
            )
        );
    }
}
