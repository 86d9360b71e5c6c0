//! The one line that says, for all the tables that started together, who speaks and who
//! hears nothing.

use kriegspiel_hall::TableNo;

use super::check::Probe;
use super::options::AudioKey;

/// Who speaks a table's public announcements, for the start's summary ([`summary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Room {
    /// The table speaks nothing (`no_speech`).
    Off,
    /// Recorded into WAV files (`speech_wav`).
    Recorded,
    /// In the players' headsets only (`public_to = "headsets"`).
    HeadsetsOnly,
    /// A named device.
    Device(String),
    /// speech-dispatcher, with this voice.
    Dispatcher(String),
    /// The program (espeak-ng, else spd-say) on the default output; why not
    /// speech-dispatcher when this table's own connection failed.
    Program {
        program: &'static str,
        why: Option<String>,
    },
    /// Nobody: no program could be started.
    Unheard(String),
}

/// What one table's speakers are, for the start's summary ([`summary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub room: Room,
    /// Each player has a headset.
    pub white_headset: bool,
    pub black_headset: bool,
    /// Every output is the default one (no device named, nothing recorded): nobody hears
    /// it on a machine without audio output.
    pub default_output: bool,
}

/// The tables, as few words as may be: `table 3`, `tables 1–4`, `tables 1, 2, 4–6`.
pub fn table_list(tables: &[TableNo]) -> String {
    let mut sorted = tables.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(TableNo, TableNo)> = Vec::new();
    for t in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == t => *end = t,
            _ => runs.push((t, t)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else if a + 1 == b {
                format!("{a}, {b}")
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    match runs[..] {
        [(a, b)] if a == b => format!("table {a}"),
        _ => format!("tables {}", words.join(", ")),
    }
}

/// One line for all the tables that started together: why speech-dispatcher is not used
/// (once), who speaks each table's public announcements, the players without a headset,
/// and, on a machine without audio output, that nobody hears. `None` when no table speaks.
/// `hall`: name the tables and the round file's keys (else the command line's options).
pub fn summary(probe: &Probe, tables: &[(TableNo, Report)], hall: bool) -> Option<String> {
    let speaking: Vec<&(TableNo, Report)> =
        tables.iter().filter(|(_, r)| r.room != Room::Off).collect();
    if speaking.is_empty() {
        return None;
    }
    let at = |ts: &[TableNo]| {
        if hall {
            format!(" at {}", table_list(ts))
        } else {
            String::new()
        }
    };
    let named = |key: AudioKey| {
        if hall {
            key.key().to_owned()
        } else {
            key.flag()
        }
    };
    let mut clauses = Vec::new();
    if let Some(why) = &probe.no_audio {
        let unheard: Vec<TableNo> = speaking
            .iter()
            .filter(|(_, r)| r.default_output)
            .map(|(t, _)| *t)
            .collect();
        if !unheard.is_empty() {
            clauses.push(format!("warning{}: {why}", at(&unheard)));
        }
    }
    if let Some(Err(why)) = &probe.dispatcher {
        clauses.push(format!("speech-dispatcher not answering ({why})"));
    }
    // The rooms, grouped by who speaks them, in the tables' order.
    let mut rooms: Vec<(&Room, Vec<TableNo>)> = Vec::new();
    for (t, r) in &speaking {
        match rooms.iter_mut().find(|(room, _)| *room == &r.room) {
            Some((_, ts)) => ts.push(*t),
            None => rooms.push((&r.room, vec![*t])),
        }
    }
    for (room, ts) in rooms {
        let at = at(&ts);
        clauses.push(match room {
            Room::Off => continue,
            Room::Recorded => format!(
                "public announcements recorded ({}){at}",
                named(AudioKey::SpeechWav)
            ),
            Room::HeadsetsOnly => format!("public announcements in the headsets only{at}"),
            Room::Device(d) => format!("public announcements on {d}{at}"),
            Room::Dispatcher(voice) => {
                format!("public announcements through speech-dispatcher, voice {voice}{at}")
            }
            Room::Program { program, why } => format!(
                "public announcements by {program} on the default output{at}{}",
                why.as_ref().map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            Room::Unheard(why) => {
                format!("warning: nobody speaks the public announcements{at}: {why}")
            }
        });
    }
    let mut headsets: Vec<(&str, Vec<TableNo>)> = Vec::new();
    for (t, r) in &speaking {
        let which = match (r.white_headset, r.black_headset) {
            (true, true) => continue,
            (false, false) => "no headsets",
            (false, true) => "white has no headset",
            (true, false) => "black has no headset",
        };
        match headsets.iter_mut().find(|(w, _)| *w == which) {
            Some((_, ts)) => ts.push(*t),
            None => headsets.push((which, vec![*t])),
        }
    }
    for (which, ts) in headsets {
        let keys = match which {
            "no headsets" => format!(
                "{}, {}",
                named(AudioKey::WhiteAudio),
                named(AudioKey::BlackAudio)
            ),
            "white has no headset" => named(AudioKey::WhiteAudio),
            _ => named(AudioKey::BlackAudio),
        };
        clauses.push(format!(
            "{which}{} ({keys}): private messages reach only the text channels",
            at(&ts)
        ));
    }
    Some(clauses.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(room: Room, white: bool, black: bool, default_output: bool) -> Report {
        Report {
            room,
            white_headset: white,
            black_headset: black,
            default_output,
        }
    }

    fn espeak() -> Room {
        Room::Program {
            program: "espeak-ng",
            why: None,
        }
    }

    #[test]
    fn tables_are_named_in_runs() {
        assert_eq!(table_list(&[3]), "table 3");
        assert_eq!(table_list(&[1, 2, 3, 4]), "tables 1–4");
        assert_eq!(table_list(&[5, 1, 3, 4, 7]), "tables 1, 3–5, 7");
        assert_eq!(table_list(&[2, 2]), "table 2");
        assert_eq!(table_list(&[6, 5, 1, 2, 4]), "tables 1, 2, 4–6");
    }

    #[test]
    fn one_line_says_once_what_every_table_shares() {
        let probe = Probe {
            dispatcher: Some(Err("cannot reach speech-dispatcher: refused".to_owned())),
            no_audio: None,
        };
        let tables: Vec<(TableNo, Report)> = (1..=4)
            .map(|t| (t, report(espeak(), false, false, true)))
            .collect();
        let line = summary(&probe, &tables, true).unwrap();
        assert_eq!(
            line,
            "speech-dispatcher not answering (cannot reach speech-dispatcher: refused); \
             public announcements by espeak-ng on the default output at tables 1–4; \
             no headsets at tables 1–4 (white_audio, black_audio): private messages reach only the text channels"
        );
        assert_eq!(line.matches("speech-dispatcher not answering").count(), 1);

        // Tables differ: each kind once, with its tables; a silent table is not named, the
        // machine's missing output only for the tables that use the default one.
        let probe = Probe {
            dispatcher: Some(Ok(())),
            no_audio: Some("no sound card".to_owned()),
        };
        let tables = [
            (
                1,
                report(Room::Dispatcher("en (en-GB)".into()), true, true, false),
            ),
            (2, report(Room::Off, false, false, true)),
            (
                3,
                report(Room::Dispatcher("en (en-GB)".into()), false, true, true),
            ),
            (
                4,
                report(
                    Room::Device("ALSA device 'room'".into()),
                    true,
                    false,
                    false,
                ),
            ),
            (
                5,
                report(
                    Room::Program {
                        program: "espeak-ng",
                        why: Some("speech-dispatcher has no voice for fr-FR".into()),
                    },
                    false,
                    false,
                    true,
                ),
            ),
        ];
        assert_eq!(
            summary(&probe, &tables, true).unwrap(),
            "warning at tables 3, 5: no sound card; \
             public announcements through speech-dispatcher, voice en (en-GB) at tables 1, 3; \
             public announcements on ALSA device 'room' at table 4; \
             public announcements by espeak-ng on the default output at table 5 (speech-dispatcher has no voice for fr-FR); \
             white has no headset at table 3 (white_audio): private messages reach only the text channels; \
             black has no headset at table 4 (black_audio): private messages reach only the text channels; \
             no headsets at table 5 (white_audio, black_audio): private messages reach only the text channels"
        );

        // One table alone: the command line's options, no table numbers; nothing when silent.
        let one = [(1, report(espeak(), true, false, false))];
        assert_eq!(
            summary(&Probe::default(), &one, false).unwrap(),
            "public announcements by espeak-ng on the default output; \
             black has no headset (--black-audio): private messages reach only the text channels"
        );
        let silent = [(1, report(Room::Off, false, false, true))];
        assert_eq!(summary(&probe, &silent, false), None);
    }
}
