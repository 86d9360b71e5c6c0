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
    assert_eq!(a.public_to, kriegspiel_speech::PublicTo::Both);
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
        ("[[table]]\nname = \"1\"\ncolour = \"white\"\n", "table 1 ('1'): unknown key 'colour' (keys: name, white, black, console, black_board_id,"),
        ("[[table]]\nname = \"1\"\nwhite_audoi = \"w\"\n", "table 1 ('1'): unknown key 'white_audoi' (did you mean 'white_audio'? keys: name, white, black, "),
        ("[[table]]\nname = \"1\"\nclock = \"25+10\"\n", "table 1 ('1'): unknown key 'clock' (did you mean 'time_control'? keys: name, "),
        ("[[table]]\nname = \"1\"\nsettle-ms = 300\n", "table 1 ('1'): unknown key 'settle-ms' (did you mean 'settle_ms'? keys: name, "),
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
fn networked_boards_a_broker_and_consoles_come_from_the_round_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("round.toml");
    std::fs::write(
        &p,
        r#"[broker]
url = "mqtt://192.168.1.10:1884"
username = "console-east"
password_file = "east.pass"
[[table]]
name = "1"
white = "board:7"
black = "board:8"
console = "east"
[[table]]
name = "2"
white = "/dev/ttyACM0"
black = "dgt:/dev/dgt-12345"
"#,
    )
    .unwrap();
    let entries = read_round_with_audio(&p).unwrap();
    assert!(matches!(entries[0].spec.white, BoardSource::Network(7)));
    assert!(matches!(entries[0].spec.black, BoardSource::Network(8)));
    assert!(matches!(entries[1].spec.white, BoardSource::Serial(_)));
    assert!(
        matches!(&entries[1].spec.black, BoardSource::Dgt(port)
            if port.to_string() == "dgt:/dev/dgt-12345"),
        "a DGT board: {:?}",
        entries[1].spec.black
    );
    assert_eq!(entries[0].console, "east");
    assert_eq!(entries[1].console, "main");
    let broker = read_round_broker(&p).unwrap().unwrap();
    assert_eq!(broker.url.port, 1884);
    assert_eq!(broker.password_file, Some(dir.path().join("east.pass")));
    let east = tables_of(read_round_with_audio(&p).unwrap(), "east").unwrap();
    assert_eq!(east.len(), 1);
    assert_eq!(east[0].spec.name, "1");
    let e = tables_of(entries, "west").unwrap_err();
    assert!(
        e.contains("console 'west' (its consoles: east, main)"),
        "{e}"
    );
    for (bad, says) in [
        ("white = \"board:x\"", "is not a networked board"),
        (
            "console = \"East!\"",
            "console: 'East!' is not a console's name",
        ),
        (
            "white = \"board:1\"\nblack = \"board:1\"",
            "board board:1 is also used by",
        ),
    ] {
        std::fs::write(&p, format!("[[table]]\nname = \"1\"\n{bad}\n")).unwrap();
        let e = read_round_with_audio(&p).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
    std::fs::write(
        &p,
        "[broker]\nurl = \"http://x\"\n[[table]]\nname = \"1\"\n",
    )
    .unwrap();
    let e = read_round_broker(&p).unwrap_err();
    assert!(e.contains("[broker] url: broker 'http://x'"), "{e}");
}

/// A console on a round whose secret is beside it derives its own broker password: the
/// one `kriegspiel broker-config` wrote into the broker's password file.
#[test]
fn a_console_takes_its_password_from_the_rounds_secret() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("round.toml");
    std::fs::write(
        &p,
        "[broker]\nurl = \"mqtt://127.0.0.1:1883\"\n[[table]]\nname = \"1\"\nwhite = \"board:7\"\n",
    )
    .unwrap();
    let args = crate::BrokerArgs {
        console: "east".to_owned(),
        ..crate::BrokerArgs::default()
    };
    let without = args
        .network(read_round_broker(&p).unwrap(), Some(&p))
        .unwrap();
    assert_eq!(without.hall.broker.username, None, "no secret, no user");
    let secret = crate::credentials::RoundSecret::of_round(&p).unwrap();
    let with = args
        .network(read_round_broker(&p).unwrap(), Some(&p))
        .unwrap();
    assert_eq!(with.hall.broker.username.as_deref(), Some("console-east"));
    assert_eq!(
        with.hall.broker.password,
        Some(kriegspiel_net::Password(secret.password("console-east")))
    );
    assert_eq!(
        format!("{:?}", with.hall.broker.password),
        "Some(Password(..))"
    );
    assert_eq!(with.hall.console, "east");
    assert!(without.round_secret.is_none() && with.round_secret.is_some());
}
