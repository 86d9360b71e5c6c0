//! `kriegspiel hall --config round.toml`: every table of a round in one process, JSON lines
//! tagged with the table, commands for any table on standard input, one journal.

use std::path::PathBuf;
use std::process::ExitCode;

use kriegspiel_frontend::args::broker_unusable;
use kriegspiel_frontend::{
    open_journal, play, read_round_broker, read_round_with_audio, tables_of, BrokerArgs, Probing,
    RoundEntry, Unnamed,
};
use kriegspiel_hall::TableSpec;
use kriegspiel_speech::setup;
use kriegspiel_speech::AudioOptions;

const PROGRAM: &str = "kriegspiel hall";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round: a TOML file with one [[table]] per table (see docs/HALL.md).
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
    #[command(flatten)]
    broker: BrokerArgs,
}

pub fn run(args: Args) -> ExitCode {
    let entries = match read_round_with_audio(&args.config)
        .and_then(|e| tables_of(e, &args.broker.console))
    {
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
    let broker = match read_round_broker(&args.config) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let network = args.broker.network(broker, Some(&args.config));
    if let Some(e) = broker_unusable(network.as_ref(), entries.iter().map(|e| &e.spec)) {
        eprintln!("{PROGRAM}: {e}");
        return ExitCode::from(2);
    }
    // speech-dispatcher is asked once for the whole hall, while the devices are checked and
    // the journal opens; the speakers are built from its answer.
    let wants_dispatcher = entries.iter().any(|e| e.audio.wants_dispatcher());
    let probing = Probing::start(wants_dispatcher);
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
    let journal = match open_journal(PROGRAM, args.journal, Unnamed::Club) {
        Ok((j, _)) => j,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let speakers = match table_speakers(&entries, checked, || probing.answer()) {
        Ok(built) => {
            if let Some(line) = built.summary {
                eprintln!("{PROGRAM}: speech: {line}");
            }
            built.speakers
        }
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            // Nothing began: a journal made for this start is not left behind.
            journal.close_refused();
            return ExitCode::from(2);
        }
    };
    let specs = entries
        .into_iter()
        .map(|e| {
            let spec = TableSpec {
                resume: kriegspiel_hall::Resume::unless_new(args.new_game),
                ..e.spec
            };
            (e.no, spec)
        })
        .collect();
    // A hall's lines name their table, however many it has.
    play(
        journal,
        specs,
        speakers,
        args.player_socket,
        PROGRAM,
        true,
        network,
    )
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
    for (e, c) in entries.iter().zip(checked) {
        let lang = e
            .spec
            .setup
            .config()
            .map_err(|err| format!("{}: {err}", e.label))?
            .lang;
        tables.push((e.no, lang, c));
    }
    setup::build_all(&tables, probe).map_err(|(table, err)| {
        let label = entries
            .iter()
            .find(|e| e.no == table)
            .map_or_else(|| format!("table {table}"), |e| e.label.clone());
        format!("{label}: {}", err.in_round_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
