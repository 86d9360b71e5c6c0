//! The round's broker, for real: `kriegspiel broker-config` and `kriegspiel seats` write
//! their files, a private mosquitto runs with the password file and the ACL, and clients
//! with the seat files' credentials find that each user reaches its own topics and no
//! other, that another round's seat file and a wrong password are refused, and that the
//! written configuration (with TLS) is one mosquitto starts on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_frontend::credentials::{RoundSecret, SeatFile};
use kriegspiel_net::{BoardTopics, TableTopics};
use kriegspiel_tests::mosquitto::{free_port, CuttableProxy, Mosquitto};
use rumqttc::{
    Client, ConnectReturnCode, ConnectionError, Event, MqttOptions, Packet, QoS,
    SubscribeReasonCode,
};

const ROUND: &str = r#"
[broker]
url = "mqtt://127.0.0.1:1883"

[[table]]
name = "Board 1"
white = "board:7"
black = "board:8"
white_player = "Ann"

[[table]]
name = "2"
white = "board:9"
"#;

/// How long a message that may not come is waited for, once one sent after it has come.
const STRAGGLERS: Duration = Duration::from_millis(700);

fn kriegspiel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A round file in a folder of its own, with its broker's files and its seat files.
struct Round {
    _dir: tempfile::TempDir,
    file: PathBuf,
    broker: PathBuf,
    seats: PathBuf,
}

fn round(text_of_round: &str) -> Round {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("round.toml");
    std::fs::write(&file, text_of_round).unwrap();
    let broker = dir.path().join("broker");
    let seats = dir.path().join("seats");
    Round {
        file,
        broker,
        seats,
        _dir: dir,
    }
}

impl Round {
    fn configure(&self, extra: &[&str]) -> String {
        let mut args = vec![
            "broker-config",
            "--config",
            text(&self.file),
            "--out",
            text(&self.broker),
        ];
        args.extend_from_slice(extra);
        ok(kriegspiel(&args))
    }

    fn seat_files(&self) -> String {
        ok(kriegspiel(&[
            "seats",
            "--config",
            text(&self.file),
            "--out",
            text(&self.seats),
        ]))
    }

    fn seat(&self, name: &str) -> SeatFile {
        SeatFile::read(&self.seats.join(format!("{name}.seat"))).unwrap()
    }

    /// A private mosquitto with this round's password file and ACL.
    fn mosquitto(&self, dir: &Path) -> Mosquitto {
        let b = self.broker.display();
        Mosquitto::start(
            dir,
            &format!(
                "password_file {b}/passwd\nacl_file {b}/acl\nallow_anonymous false\nlog_type all"
            ),
        )
        .unwrap()
    }
}

/// What a client's connection brings.
#[derive(Debug)]
enum Got {
    Message(String, Vec<u8>),
    Subscribed(Vec<SubscribeReasonCode>),
}

/// A connected client, its connection driven on a thread of its own.
struct Peer {
    client: Client,
    got: mpsc::Receiver<Got>,
}

static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Connects as `user` with `password`; the broker's refusal is the error.
fn connect(port: u16, user: &str, password: &str) -> Result<Peer, Box<ConnectionError>> {
    let n = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut options = MqttOptions::new(format!("acl-test-{user}-{n}"), "127.0.0.1", port);
    options.set_credentials(user, password);
    options.set_keep_alive(Duration::from_secs(5));
    start(options)
}

fn start(options: MqttOptions) -> Result<Peer, Box<ConnectionError>> {
    let (client, mut connection) = Client::new(options, 100);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < deadline, "no answer to CONNECT");
        match connection.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => break,
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(Box::new(e)),
            Err(_) => panic!("no answer to CONNECT within 10 s"),
        }
    }
    let (tx, got) = mpsc::channel();
    std::thread::spawn(move || loop {
        let item = match connection.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                Got::Message(p.topic.clone(), p.payload.to_vec())
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(s)))) => Got::Subscribed(s.return_codes),
            Ok(Ok(_)) | Err(rumqttc::RecvTimeoutError::Timeout) => continue,
            Ok(Err(_)) | Err(rumqttc::RecvTimeoutError::Disconnected) => break,
        };
        if tx.send(item).is_err() {
            break;
        }
    });
    Ok(Peer { client, got })
}

impl Peer {
    fn of_seat(port: u16, seat: &SeatFile) -> Result<Peer, Box<ConnectionError>> {
        connect(port, &seat.username, &seat.password)
    }

    /// Subscribes and waits for the broker's answer.
    fn subscribe(&self, filter: &str) -> Vec<SubscribeReasonCode> {
        self.client.subscribe(filter, QoS::AtLeastOnce).unwrap();
        loop {
            match self.got.recv_timeout(Duration::from_secs(10)).unwrap() {
                Got::Subscribed(codes) => return codes,
                Got::Message(..) => {}
            }
        }
    }

    fn publish(&self, topic: &str, payload: &str) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload.as_bytes().to_vec())
            .unwrap();
    }

    /// Every message until `last` arrives on `topic`, and any that straggle in after it.
    fn messages_until(&self, topic: &str, last: &str) -> Vec<(String, String)> {
        let mut all = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut until = deadline;
        while Instant::now() < until {
            let left = until.saturating_duration_since(Instant::now());
            match self.got.recv_timeout(left) {
                Ok(Got::Message(t, p)) => {
                    let p = String::from_utf8(p).unwrap();
                    if t == topic && p == last && until == deadline {
                        until = Instant::now() + STRAGGLERS;
                    }
                    all.push((t, p));
                }
                Ok(Got::Subscribed(_)) => {}
                Err(_) => break,
            }
        }
        assert!(
            all.iter().any(|(t, p)| t == topic && p == last),
            "'{last}' on {topic} never came: {all:?}"
        );
        all
    }
}

fn console(round: &Round, port: u16) -> Peer {
    let secret = RoundSecret::of_round(&round.file).unwrap();
    connect(port, "console-main", &secret.password("console-main")).unwrap()
}

fn refused(result: Result<Peer, Box<ConnectionError>>, what: &str) {
    match result.map_err(|e| *e) {
        Err(ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        )) => {}
        Err(e) => panic!("{what}: refused for another reason: {e}"),
        Ok(_) => panic!("{what}: the broker let it in"),
    }
}

fn configured() -> (Round, tempfile::TempDir, Mosquitto) {
    let r = round(ROUND);
    r.configure(&[]);
    r.seat_files();
    let dir = tempfile::tempdir().unwrap();
    let m = r.mosquitto(dir.path());
    (r, dir, m)
}

#[test]
fn a_board_writes_and_reads_only_its_own_topics() {
    let (r, _dir, m) = configured();
    let console = console(&r, m.port);
    assert_eq!(
        console.subscribe("kriegspiel/#"),
        [SubscribeReasonCode::Success(QoS::AtLeastOnce)]
    );
    let board7 = Peer::of_seat(m.port, &r.seat("board-7")).unwrap();
    board7.subscribe("#");
    let (own, other) = (BoardTopics::new(7), BoardTopics::new(8));
    // MQTT 3.1.1 has no refusal of a PUBLISH: the broker drops it without a word, so what
    // the console receives is the proof.
    board7.publish(&other.events, "forged events");
    board7.publish(&other.status, "forged status");
    board7.publish(&TableTopics::new(1).input.white, "forged try");
    board7.publish(&own.status, "online 1");
    board7.publish(&own.events, "own events");
    let heard = console.messages_until(&own.events, "own events");
    assert_eq!(
        heard,
        [
            (own.status.clone(), "online 1".to_owned()),
            (own.events.clone(), "own events".to_owned())
        ]
    );
    // The console's commands: the board hears its own only.
    console.publish(&other.cmd, "for 8");
    console.publish(&other.ack, "for 8");
    console.publish(&own.events, "not for a board");
    console.publish(&own.ack, "ack 7");
    console.publish(&own.cmd, "cmd 7");
    let heard = board7.messages_until(&own.cmd, "cmd 7");
    assert_eq!(
        heard,
        [
            (own.ack.clone(), "ack 7".to_owned()),
            (own.cmd.clone(), "cmd 7".to_owned())
        ]
    );
}

/// The console says "said" on every topic of tables 1 and 2, of board 7 and on its status.
fn say_on_every_topic(console: &Peer) {
    let mut every = Vec::new();
    for no in [1, 2] {
        let t = TableTopics::new(no);
        every.extend([t.public, t.summary, t.arbiter]);
        every.extend([
            t.private.white,
            t.private.black,
            t.input.white,
            t.input.black,
        ]);
    }
    let b = BoardTopics::new(7);
    every.extend([b.cmd, b.ack, b.events]);
    every.push(kriegspiel_net::round::console_status("main"));
    for topic in &every {
        console.publish(topic, "said");
    }
}

#[test]
fn a_player_hears_only_his_tables_public_channel_and_his_own() {
    let (r, _dir, m) = configured();
    let console = console(&r, m.port);
    console.subscribe("kriegspiel/#");
    let seat = r.seat("table-1-white");
    assert_eq!(seat.username, "seat-1-white");
    let ann = Peer::of_seat(m.port, &seat).unwrap();
    ann.subscribe("#");
    say_on_every_topic(&console);
    let t1 = TableTopics::new(1);
    console.publish(&t1.public, "last");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (topic, _) in ann.messages_until(&t1.public, "last") {
        *counts.entry(topic).or_default() += 1;
    }
    assert_eq!(
        counts,
        BTreeMap::from([(t1.public.clone(), 2), (t1.private.white.clone(), 1)])
    );
    // He writes his own input, and nothing else.
    ann.publish(&t1.input.black, "forged try");
    ann.publish(&t1.public, "forged announcement");
    ann.publish(&TableTopics::new(2).input.white, "forged try");
    ann.publish(&t1.input.white, "e2e4");
    let heard: Vec<(String, String)> = console
        .messages_until(&t1.input.white, "e2e4")
        .into_iter()
        .filter(|(_, p)| p != "said" && p != "last")
        .collect();
    assert_eq!(heard, [(t1.input.white.clone(), "e2e4".to_owned())]);
}

#[test]
fn an_onlooker_hears_every_tables_public_channel_and_nothing_else() {
    let (r, _dir, m) = configured();
    let console = console(&r, m.port);
    console.subscribe("kriegspiel/#");
    let seat = r.seat("onlooker");
    let onlooker = Peer::of_seat(m.port, &seat).unwrap();
    onlooker.subscribe("#");
    say_on_every_topic(&console);
    let t2 = TableTopics::new(2);
    console.publish(&t2.public, "last");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (topic, _) in onlooker.messages_until(&t2.public, "last") {
        *counts.entry(topic).or_default() += 1;
    }
    assert_eq!(
        counts,
        BTreeMap::from([(TableTopics::new(1).public, 1), (t2.public.clone(), 2)])
    );
    // He writes nothing: not a try, not an announcement, not an arbiter's action.
    let t1 = TableTopics::new(1);
    for topic in [&t1.input.white, &t1.public, &t1.arbiter, &t1.summary] {
        onlooker.publish(topic, "forged");
    }
    console.publish(&t1.input.black, "end");
    let heard: Vec<(String, String)> = console
        .messages_until(&t1.input.black, "end")
        .into_iter()
        .filter(|(_, p)| p != "said" && p != "last")
        .collect();
    assert_eq!(heard, [(t1.input.black.clone(), "end".to_owned())]);
}

#[test]
fn another_rounds_seat_file_and_wrong_passwords_are_refused() {
    let (r, _dir, m) = configured();
    // The same tables in another round file: another secret, other passwords.
    let other = round(ROUND);
    other.seat_files();
    let theirs = other.seat("table-1-white");
    let ours = r.seat("table-1-white");
    assert_eq!(theirs.username, ours.username);
    assert_ne!(theirs.round, ours.round);
    assert_ne!(theirs.password, ours.password);
    refused(Peer::of_seat(m.port, &theirs), "another round's seat");
    refused(
        Peer::of_seat(m.port, &other.seat("board-7")),
        "another round's board",
    );
    refused(
        connect(m.port, "seat-1-white", "wrongwrongwrongwrong"),
        "a wrong password",
    );
    let board = r.seat("board-7");
    refused(
        connect(m.port, "seat-1-white", &board.password),
        "another user's password",
    );
    refused(
        connect(m.port, "seat-3-white", &board.password),
        "a user outside the round",
    );
    let anonymous = MqttOptions::new("acl-test-anonymous", "127.0.0.1", m.port);
    refused(start(anonymous), "no user name");
    // The round's own seat goes in.
    assert!(Peer::of_seat(m.port, &ours).is_ok());
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_round_reached_by_the_rooms_network_gets_a_broker_on_every_interface() {
    let r = round(&ROUND.replace("mqtt://127.0.0.1:1883", "mqtt://hall.local:1884"));
    let said = r.configure(&[]);
    assert!(
        said.contains("It listens on port 1884 of every network interface"),
        "{said}"
    );
    let conf = std::fs::read_to_string(r.broker.join("mosquitto.conf")).unwrap();
    assert!(conf.lines().any(|l| l == "listener 1884"), "{conf}");
    // And the loopback round's says it is reached from this machine alone.
    let local = round(ROUND);
    let said = local.configure(&[]);
    assert!(
        said.contains("It listens on 127.0.0.1 port 1883 only")
            && said.contains("other machines cannot reach it"),
        "{said}"
    );
}

#[test]
fn the_written_configuration_starts_mosquitto_with_tls_and_keeps_messages() {
    let r = round(&ROUND.replace("mqtt://127.0.0.1:1883", "mqtts://localhost:8883"));
    let said = r.configure(&["--tls", "--host", "localhost"]);
    assert!(said.contains("sudo chown -R mosquitto:"), "{said}");
    assert!(said.contains("/mosquitto.conf"), "{said}");
    assert!(said.contains("its log is "), "{said}");
    // The url is this machine's loopback: no one else in the room may knock.
    assert!(
        said.contains("It listens on localhost port 8883 only"),
        "{said}"
    );
    for (name, m) in [
        ("passwd", 0o600),
        ("ca.key", 0o600),
        ("server.key", 0o600),
        ("ca.crt", 0o644),
    ] {
        assert_eq!(mode(&r.broker.join(name)), m, "{name}");
    }
    assert_eq!(mode(&r.broker), 0o700);
    let secret_file = r.file.with_file_name("round.toml.secret");
    assert_eq!(mode(&secret_file), 0o600);
    let conf = std::fs::read_to_string(r.broker.join("mosquitto.conf")).unwrap();
    for line in [
        "persistence true",
        "autosave_interval 1",
        "allow_anonymous false",
        "listener 8883 localhost",
        "require_certificate false",
        "max_packet_size 65536",
        &format!("log_dest file {}/mosquitto.log", r.broker.display()),
    ] {
        assert!(conf.lines().any(|l| l == line), "{line}: {conf}");
    }
    let acl = std::fs::read_to_string(r.broker.join("acl")).unwrap();
    assert!(!acl.contains("pattern"), "{acl}");
    // The written configuration, on a free port instead of 8883.
    let tls_port = free_port().unwrap();
    let conf = conf.replace(
        "listener 8883 localhost",
        &format!("listener {tls_port} localhost"),
    );
    let dir = tempfile::tempdir().unwrap();
    let m = Mosquitto::start(dir.path(), &conf).unwrap();
    let password = dir.path().join("arbiter.password");
    let secret = RoundSecret::of_round(&r.file).unwrap();
    std::fs::write(&password, secret.password("arbiter")).unwrap();
    let broker = kriegspiel_net::Broker {
        url: format!("mqtts://localhost:{tls_port}").parse().unwrap(),
        username: Some("arbiter".to_owned()),
        password_file: Some(password),
        password: None,
        ca_file: Some(r.broker.join("ca.crt")),
    };
    let arbiter = start(broker.options("acl-test-tls").unwrap())
        .unwrap_or_else(|e| panic!("{e}: {}", m.log_text()));
    arbiter.subscribe("kriegspiel/#");
    arbiter.publish("kriegspiel/table/1/public", "over TLS");
    arbiter.messages_until("kriegspiel/table/1/public", "over TLS");
    // Kept on disk within the second.
    let db = r.broker.join("mosquitto.db");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !db.is_file() {
        assert!(Instant::now() < deadline, "no {}", db.display());
        std::thread::sleep(Duration::from_millis(100));
    }
    // Made again, the round keeps its CA and its passwords.
    let ca = std::fs::read(r.broker.join("ca.crt")).unwrap();
    r.seat_files();
    let seat = std::fs::read(r.seats.join("table-2-black.seat")).unwrap();
    r.configure(&["--tls", "--host", "localhost"]);
    r.seat_files();
    assert_eq!(std::fs::read(r.broker.join("ca.crt")).unwrap(), ca);
    assert_eq!(
        std::fs::read(r.seats.join("table-2-black.seat")).unwrap(),
        seat
    );
}

#[test]
fn seat_files_are_private_and_say_whose_they_are() {
    let r = round(ROUND);
    let said = r.seat_files();
    assert!(said.contains("8 seat files"), "{said}");
    let mut names: Vec<String> = std::fs::read_dir(&r.seats)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = ["board-7", "board-8", "board-9", "onlooker"]
        .into_iter()
        .map(str::to_owned)
        .chain(
            [1, 2]
                .into_iter()
                .flat_map(|no| ["white", "black"].map(|c| format!("table-{no}-{c}"))),
        )
        .flat_map(|stem| [format!("{stem}.seat"), format!("{stem}.svg")])
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    for name in &names {
        assert_eq!(mode(&r.seats.join(name)), 0o600, "{name}");
    }
    let ann = std::fs::read_to_string(r.seats.join("table-1-white.seat")).unwrap();
    let first = ann.lines().next().unwrap();
    assert!(
        first.starts_with("# Kriegspiel seat: round ")
            && first.ends_with(", table 1 ('Board 1'), White (Ann). Keep it to yourself."),
        "{first}"
    );
    assert!(
        ann.contains("\nbroker = \"mqtt://127.0.0.1:1883\"\n"),
        "{ann}"
    );
    assert!(ann.contains("\nusername = \"seat-1-white\"\n"), "{ann}");
    assert!(ann.contains("\ntable = 1\ncolor = \"white\"\n"), "{ann}");
    let board = r.seat("board-9");
    assert_eq!(board.username, "board-9");
    let onlooker = std::fs::read_to_string(r.seats.join("onlooker.seat")).unwrap();
    assert!(
        onlooker.starts_with("# Kriegspiel onlookers: round ")
            && onlooker.contains("\nusername = \"onlooker\"\n")
            && onlooker.ends_with("\nonlooker = true\ntables = 2\n"),
        "{onlooker}"
    );
    let svg = std::fs::read_to_string(r.seats.join("board-9.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.ends_with("</svg>"));
}

#[test]
fn a_round_without_a_broker_or_with_a_secret_others_read_is_refused() {
    let r = round("[[table]]\nname = \"1\"\n");
    let out = kriegspiel(&["seats", "--config", text(&r.file), "--out", text(&r.seats)]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("round.toml: no [broker]"), "{e}");
    assert!(!r.seats.exists());
    // A secret others may read is refused by both commands, with the way out.
    let r = round(ROUND);
    r.seat_files();
    let secret = r.file.with_file_name("round.toml.secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    for command in ["seats", "broker-config"] {
        let out = kriegspiel(&[command, "--config", text(&r.file), "--out", text(&r.broker)]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("round.toml.secret: others may read"), "{e}");
        assert!(e.contains("chmod 600"), "{e}");
    }
    // --tls and the round's url disagree: said before anything is written.
    let out = kriegspiel(&[
        "broker-config",
        "--config",
        text(&r.file),
        "--out",
        text(&r.broker),
        "--tls",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("[broker] url: mqtt://127.0.0.1:1883 is not TLS"),
        "{e}"
    );
    assert!(!r.broker.exists());
}

/// A round of one table without boards, its players at their terminals.
const ROUND_OF_PLAYERS: &str = r#"
[broker]
url = "mqtt://127.0.0.1:PORT"

[[table]]
name = "Board 1"
rules = "wild16"
"#;

/// The round `template` (its broker's port `PORT`), its broker running, its seat files
/// naming that broker.
fn round_on_broker(template: &str) -> (Round, tempfile::TempDir, Mosquitto) {
    let r = round(&template.replace("PORT", "1883"));
    r.configure(&[]);
    let dir = tempfile::tempdir().unwrap();
    let m = r.mosquitto(dir.path());
    // The round names the broker the test started (its secret, hence every password, is
    // unchanged), and its seat files say so.
    std::fs::write(&r.file, template.replace("PORT", &m.port.to_string())).unwrap();
    r.seat_files();
    (r, dir, m)
}

/// `kriegspiel hall --console east` on the round, with its own journal in `dir`.
fn east_hall(r: &Round, dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kriegspiel"));
    c.args(["hall", "--no-speech", "--console", "east", "--config"])
        .arg(&r.file)
        .arg("--journal")
        .arg(dir.join("east.sqlite"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    c
}

/// `kriegspiel hall` on a round, its standard error read until it serves seats on the
/// broker.
fn hall(round: &Round, journal: &Path) -> kriegspiel_tests::process::ChildGuard {
    hall_heard(round, journal).0
}

/// The hall's lines from `notes` until one holds `what` (returned last), within 20 s.
fn heard_until(notes: &mpsc::Receiver<String>, what: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut heard = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = notes
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("never said '{what}': {heard:?}"));
        let found = line.contains(what);
        heard.push(line);
        if found {
            return heard;
        }
    }
}

/// `kriegspiel hall` on `round` with `journal`, without speech.
fn hall_command(round: &Round, journal: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kriegspiel"));
    c.args([
        "hall",
        "--no-speech",
        "--config",
        text(&round.file),
        "--journal",
    ])
    .arg(journal);
    c
}

/// The hall, and what it says on standard error from its ready line on.
fn hall_heard(
    round: &Round,
    journal: &Path,
) -> (
    kriegspiel_tests::process::ChildGuard,
    mpsc::Receiver<String>,
) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
        .args(["hall", "--no-speech", "--config", text(&round.file)])
        .arg("--journal")
        .arg(journal)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            eprintln!("[hall] {line}");
            let _ = tx.send(line);
        }
    });
    let guard = kriegspiel_tests::process::ChildGuard(child);
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the hall never said it serves seats on the broker");
        if line.contains("players' terminals over the broker") {
            assert!(line.contains("kriegspiel seats writes them"), "{line}");
            return (guard, rx);
        }
    }
}

#[test]
fn players_play_through_the_broker_with_their_seat_files_and_hear_only_their_own() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, m) = round_on_broker(ROUND_OF_PLAYERS);
    let journal = dir.path().join("j.sqlite");
    let _hall = hall(&r, &journal);
    // Someone holding White's seat file listens to everything he may.
    let white_seat = r.seat("table-1-white");
    let spy = Peer::of_seat(m.port, &white_seat).unwrap();
    spy.subscribe("#");
    let seat_file = |name: &str| r.seats.join(format!("{name}.seat"));
    let white_file = seat_file("table-1-white");
    let black_file = seat_file("table-1-black");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    let mut black = Terminal::with_args(&["--seat-file", text(&black_file)]);
    black.expect("Connected to table 1 as black");

    white.say("my men");
    white.expect("Your men: king e1, queen d1");
    white.say("f2f3");
    white.expect("Black's move.");
    black.expect("Black's move.");
    black.say("my men");
    black.expect("Your men: king e8, queen d8");
    black.say("e7e4");
    black.expect("Illegal move.");
    black.say("e7e5");
    white.expect("White's move.");
    white.say("g2g4");
    black.expect("Black's move.");
    black.say("Qd8h4");
    let mate = white.expect("Checkmate");
    assert!(mate.contains("Black wins"), "{mate}");
    black.expect("Checkmate");
    white.expect("The console has closed the table.");
    black.expect("The console has closed the table.");
    assert!(white.exit().success(), "{:?}", white.transcript);
    assert!(black.exit().success(), "{:?}", black.transcript);

    // Each heard his own men and errors, never the other's.
    assert!(!white
        .transcript
        .iter()
        .any(|l| l.contains("king e8") || l.contains("Illegal move.")));
    assert!(!black.transcript.iter().any(|l| l.contains("king e1")));
    // White's seat file, listening to '#', got White's lines and nothing of Black's.
    let t = TableTopics::new(1);
    let mut topics: BTreeMap<String, usize> = BTreeMap::new();
    let mut payloads = String::new();
    while let Ok(got) = spy.got.recv_timeout(Duration::from_millis(500)) {
        if let Got::Message(topic, payload) = got {
            *topics.entry(topic).or_default() += 1;
            payloads.push_str(&String::from_utf8_lossy(&payload));
            payloads.push('\n');
        }
    }
    assert!(topics.contains_key(&t.private.white), "{topics:?}");
    assert!(
        topics
            .keys()
            .all(|k| *k == t.private.white || *k == t.public),
        "{topics:?}"
    );
    assert!(payloads.contains("king e1") && !payloads.contains("king e8"));
    assert!(!payloads.contains("Illegal move."), "{payloads}");
}

/// A player's terminal stopped for 17 s (Ctrl-Z, a debugger), longer than the 15 s of
/// silence after which it gives the console up, then continued: the console ran all along
/// and still keeps his session (the broker took his terminal for gone only after its
/// keep-alive), so he plays on, and is never told he lost the console.
#[test]
fn a_terminal_stopped_for_a_while_plays_on_when_continued() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, _m) = round_on_broker(ROUND_OF_PLAYERS);
    let _hall = hall(&r, &dir.path().join("j.sqlite"));
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    let pid = white.child.0.id().to_string();
    let kill = |sig: &str| {
        assert!(Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success());
    };
    kill("-STOP");
    std::thread::sleep(Duration::from_secs(17));
    kill("-CONT");
    white.say("my men");
    white.expect("Your men: king e1");
    never_said(&white, &["Lost the console", "no longer knows"]);
}

/// `t` was never told any of `words`.
fn never_said(t: &kriegspiel_tests::console::Terminal, words: &[&str]) {
    assert!(
        !t.transcript
            .iter()
            .any(|l| words.iter().any(|w| l.contains(w))),
        "{:?}",
        t.transcript
    );
}

/// A round on its broker whose console reaches the broker through a proxy the test can cut,
/// and its hall (its own journal): a player's terminal, on the broker directly, can then be
/// on the broker while the console is not, whichever reconnects first.
fn hall_behind_a_proxy(
    template: &str,
) -> (
    Round,
    tempfile::TempDir,
    Mosquitto,
    CuttableProxy,
    (
        kriegspiel_tests::process::ChildGuard,
        mpsc::Receiver<String>,
    ),
) {
    let (r, dir, m) = round_on_broker(template);
    let proxy = CuttableProxy::start(m.port).unwrap();
    // The seat files name the broker itself; the console's round names the proxy.
    std::fs::write(&r.file, template.replace("PORT", &proxy.port.to_string())).unwrap();
    let hall = hall_heard(&r, &dir.path().join("j.sqlite"));
    (r, dir, m, proxy, hall)
}

/// The broker restarted as a service restarts it (SIGTERM: it says every client's last
/// will, so the console hears that White's terminal vanished), and the console back on it
/// seconds after White's terminal, whose "I am back" found nobody listening: White, saying
/// nothing, keeps his session past the console's grace for a vanished one. His seat file started again takes the seat, and the first terminal is told why.
#[test]
fn a_player_keeps_his_seat_through_a_broker_restart_and_a_second_terminal_takes_it_plainly() {
    use kriegspiel_tests::console::Terminal;
    let (r, _dir, mut m, proxy, _hall) = hall_behind_a_proxy(ROUND_OF_PLAYERS);
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    // The will reaches the console as the broker stops; the console stays away after.
    m.stop();
    proxy.cut();
    std::thread::sleep(Duration::from_secs(2));
    m.restart().unwrap();
    white.expect("(the network is back)");
    std::thread::sleep(Duration::from_secs(4));
    proxy.restore();
    // He says nothing: that he is there reaches the console all the same.
    std::thread::sleep(Duration::from_secs(17));
    white.say("my men");
    white.expect("Your men: king e1");
    never_said(&white, &["Lost the console"]);
    let mut again = Terminal::with_args(&["--seat-file", text(&white_file)]);
    again.expect("Connected to table 1 as white");
    white.expect("error: this seat was taken by another terminal with the same seat file");
    assert_eq!(white.exit().code(), Some(1));
    again.say("my men");
    again.expect("Your men: king e1");
}

/// A second terminal started with White's seat file takes the seat over: the first is told
/// why, and the arbiter is told it was taken over (not only that one left and one came).
#[test]
fn a_seat_taken_over_with_its_seat_file_is_said_to_the_arbiter() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, _m) = round_on_broker(ROUND_OF_PLAYERS);
    let (_hall, notes) = hall_heard(&r, &dir.path().join("j.sqlite"));
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    let mut again = Terminal::with_args(&["--seat-file", text(&white_file)]);
    again.expect("Connected to table 1 as white");
    white.expect("error: this seat was taken by another terminal with the same seat file");
    let heard = heard_until(&notes, "taken over");
    let line = heard.last().unwrap();
    assert!(
        line.contains(
            "table 1: white's seat was taken over by a new terminal with the same seat file"
        ),
        "{line}"
    );
}

/// Two consoles started together both pass the check at start; the one running learns of
/// the other as soon as it comes online (another console of its name, or another console
/// publishing one of its tables), and says so plainly, once each.
#[test]
fn a_console_says_a_second_console_of_its_name_or_tables_once_it_appears() {
    let (r, dir, m) = round_on_broker(ROUND_OF_PLAYERS);
    let (_hall, notes) = hall_heard(&r, &dir.path().join("j.sqlite"));
    let twin = console(&r, m.port);
    // What was said before the line that holds `what`.
    let expect = |what: &str| {
        let mut heard = heard_until(&notes, what);
        heard.pop();
        heard
    };
    // Its own presence echoed back is no twin: a twin's comes with another epoch.
    std::thread::sleep(Duration::from_secs(1));
    twin.publish("kriegspiel/console/main/status", "online 12345");
    let before = expect("another console named 'main' has come online on this round's broker");
    assert!(
        !before.iter().any(|l| l.contains("another console")),
        "{before:?}"
    );
    let east = kriegspiel_hall::TableSummary::new(1, "Board 1", "east", None);
    twin.publish(
        &TableTopics::new(1).summary,
        &String::from_utf8(east.encode()).unwrap(),
    );
    expect("table 1 is also run by console 'east'");
    // Said once each.
    twin.publish("kriegspiel/console/main/status", "online 12346");
    twin.publish(
        &TableTopics::new(1).summary,
        &String::from_utf8(east.encode()).unwrap(),
    );
    std::thread::sleep(Duration::from_secs(2));
    let again: Vec<String> = notes.try_iter().collect();
    assert!(
        !again
            .iter()
            .any(|l| l.contains("also run by") || l.contains("another console named")),
        "{again:?}"
    );
}

/// A console restarted with its journal forgotten would begin new games beside the game
/// under way on the round's broker: refused, naming --journal; with the right journal it
/// resumes, and --new-game begins afresh on purpose.
#[test]
fn a_console_restarted_without_the_journal_of_its_game_under_way_is_refused() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, _m) = round_on_broker(ROUND_OF_PLAYERS);
    let journal = dir.path().join("j.sqlite");
    let first = hall(&r, &journal);
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    white.say("e2e4");
    white.expect("Black's move.");
    // The summary after the move reaches the broker, then the console dies.
    std::thread::sleep(Duration::from_secs(1));
    drop(first);
    drop(white);
    let mut forgotten = hall_command(&r, &dir.path().join("forgotten.sqlite"));
    forgotten.stdin(std::process::Stdio::null());
    // Its last will says it is offline within the broker's keep-alive.
    let deadline = Instant::now() + Duration::from_secs(30);
    let said = loop {
        let out = within_20_s(&mut forgotten);
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        if !said.contains("already runs") || Instant::now() > deadline {
            assert_eq!(out.status.code(), Some(1), "{said}");
            break said;
        }
        std::thread::sleep(Duration::from_secs(2));
    };
    assert!(
        said.contains("table 1's game is under way on this round's broker (console 'main' left it unfinished), and the journal given does not hold it: was --journal forgotten?"),
        "{said}"
    );
    nothing_left_of(&dir.path().join("forgotten.sqlite"));
    // With its journal: resumed, not refused.
    let _again = hall(&r, &journal);
}

/// The broker down for longer than a terminal's patience with a silent console (20 s, as a
/// machine rebooting): the terminal waits for the network instead of giving the console
/// up, a try typed meanwhile is taken once the broker is back, and the console keeps the
/// session, counting its grace from its own return.
#[test]
fn a_broker_down_for_twenty_seconds_loses_no_session_and_no_typed_line() {
    use kriegspiel_tests::console::Terminal;
    let (r, _dir, mut m, _proxy, (_hall, notes)) = hall_behind_a_proxy(ROUND_OF_PLAYERS);
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    m.stop();
    white.expect("(the network is down; waiting for it");
    std::thread::sleep(Duration::from_secs(3));
    white.say("e2e4");
    std::thread::sleep(Duration::from_secs(17));
    m.restart().unwrap();
    white.expect("(the network is back)");
    white.expect("Black's move.");
    white.say("my men");
    white.expect("Your men: king e1");
    never_said(&white, &["Lost the console", "no longer knows"]);
    // The arbiter was told the round's broker was lost, and then that it is back.
    let lost = heard_until(&notes, "the round's broker: ");
    let lost = lost.last().unwrap();
    assert!(
        lost.contains("(stopped, killed or restarted)") && lost.contains("until it answers again"),
        "{lost}"
    );
    heard_until(&notes, "the round's broker answers again");
}

/// The console away from the broker for a few seconds (its network cut) while the player
/// types: the broker keeps nothing for a client that is not there, and his lines are sent
/// again until the console counts them, then answered once each, in order.
#[test]
fn lines_typed_while_the_console_is_away_from_the_broker_are_answered_once_it_is_back() {
    use kriegspiel_tests::console::Terminal;
    let (r, _dir, _m, proxy, _hall) = hall_behind_a_proxy(ROUND_OF_PLAYERS);
    let white_file = r.seats.join("table-1-white.seat");
    let mut white = Terminal::with_args(&["--seat-file", text(&white_file)]);
    white.expect("Connected to table 1 as white");
    proxy.cut();
    std::thread::sleep(Duration::from_millis(500));
    white.say("my men");
    white.say("help");
    std::thread::sleep(Duration::from_secs(4));
    proxy.restore();
    white.expect("Your men: king e1");
    white.expect("Commands:");
    white.say("my men");
    white.expect("Your men: king e1");
    let answers: Vec<&String> = white
        .transcript
        .iter()
        .filter(|l| l.contains("Your men") || l.contains("Commands:"))
        .collect();
    assert_eq!(
        answers.len(),
        3,
        "each answered once: {:?}",
        white.transcript
    );
    // His keys end: the console answers what it has, ends the session, and he is done at
    // once (not after the console's grace for a vanished terminal).
    let ended = Instant::now();
    drop(white.keys.take());
    assert_eq!(white.exit().code(), Some(0));
    assert!(
        ended.elapsed() < Duration::from_secs(10),
        "{:?}",
        ended.elapsed()
    );
}

#[test]
fn a_seat_file_proves_its_seat_on_the_local_socket_too_and_nobody_elses() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, _broker) = round_on_broker(ROUND_OF_PLAYERS);
    let journal = dir.path().join("j.sqlite");
    let _hall = hall(&r, &journal);
    let socket = journal.with_extension("players.sock");
    let white_file = r.seats.join("table-1-white.seat");
    // White's file is no proof of Black's seat, on the socket or on the broker.
    let mut wrong = Terminal::with_args(&["--seat-file", text(&white_file), "--color", "black"]);
    wrong.expect("is the seat file of white, not black");
    assert_eq!(wrong.exit().code(), Some(2));
    let white = r.seat("table-1-white");
    let stream =
        kriegspiel_tests::console::connect(&socket, &format!("1 black {} ", white.password));
    let said = kriegspiel_tests::console::read_lines(&stream, Duration::from_secs(5));
    assert!(
        said.iter().any(|l| l.contains("wrong seat code")),
        "{said:?}"
    );
    let mut on_socket =
        Terminal::with_args(&["--seat-file", text(&white_file), "--socket", text(&socket)]);
    on_socket.expect("Connected to table 1 as white");
    on_socket.say("my men");
    on_socket.expect("Your men: king e1");
    // Held on the socket, the seat is refused to a second terminal over the broker.
    let mut second = Terminal::with_args(&["--seat-file", text(&white_file)]);
    let refused = second.expect("error:");
    assert!(refused.contains("taken"), "{refused}");
    assert_eq!(second.exit().code(), Some(1));
}

/// A round of two tables, the second on console "east".
const ROUND_OF_TWO_CONSOLES: &str = r#"
[broker]
url = "mqtt://127.0.0.1:PORT"

[[table]]
name = "Main's"
rules = "wild16"

[[table]]
name = "East's"
rules = "wild16"
white_player = "Ann"
console = "east"
"#;

/// What `c` printed and how it ended; one still running after 20 s is killed (and fails
/// the caller's status check).
fn within_20_s(c: &mut Command) -> Output {
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            rx.recv().unwrap().unwrap()
        }
    }
}

/// A table runs on one console only: with main running (its round file giving it both
/// tables), a second main (the journal forgotten) and an east that also names table 2 are
/// refused before they begin a game, saying which console runs what.
/// No journal file, nor its `-wal`, `-shm` or lock, at `journal`.
fn nothing_left_of(journal: &Path) {
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let mut name = journal.as_os_str().to_owned();
        name.push(suffix);
        assert!(!Path::new(&name).exists(), "{name:?} was left");
    }
}

#[test]
fn a_console_or_table_already_running_on_the_broker_is_refused() {
    let (r, dir, m) = round_on_broker(ROUND_OF_TWO_CONSOLES);
    let secret = RoundSecret::of_round(&r.file).unwrap();
    let original = std::fs::read_to_string(&r.file).unwrap();
    std::fs::write(&r.file, original.replace("console = \"east\"\n", "")).unwrap();
    let main = hall(&r, &dir.path().join("main.sqlite"));
    std::fs::write(&r.file, &original).unwrap();
    // Main's summary of table 2 is on the broker.
    let arbiter = connect(m.port, "arbiter", &secret.password("arbiter")).unwrap();
    arbiter.subscribe(&TableTopics::new(2).summary);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match arbiter.got.recv_timeout(left) {
            Ok(Got::Message(_, p))
                if String::from_utf8_lossy(&p).contains("\"console\":\"main\"") =>
            {
                break
            }
            Ok(_) => {}
            Err(_) => panic!("main published no summary of table 2"),
        }
    }
    let again = within_20_s(&mut hall_command(&r, &dir.path().join("forgotten.sqlite")));
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{said}");
    assert!(
        said.contains("console 'main' already runs on this round's broker"),
        "{said}"
    );
    let east = within_20_s(east_hall(&r, dir.path()).stdin(std::process::Stdio::null()));
    let said = String::from_utf8_lossy(&east.stderr);
    assert_eq!(east.status.code(), Some(1), "{said}");
    assert!(
        said.contains("table 2 already runs on console 'main'"),
        "{said}"
    );
    // Neither began a game, and neither left the journal it made for one: a later start
    // with the same --journal begins afresh.
    nothing_left_of(&dir.path().join("forgotten.sqlite"));
    nothing_left_of(&dir.path().join("east.sqlite"));
    // Main restarted with table 2 given to east: the summary it left of table 2 is cleared,
    // and east may run it while main runs table 1.
    drop(main);
    let _main = hall(&r, &dir.path().join("main.sqlite"));
    let mut east = east_hall(&r, dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let running = east.try_wait().unwrap().is_none();
    let _ = east.kill();
    let out = east.wait_with_output().unwrap();
    assert!(running, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_console_keeps_its_tables_summaries_on_the_broker_and_takes_the_arbiters_actions() {
    let (r, dir, m) = round_on_broker(ROUND_OF_TWO_CONSOLES);
    let secret = RoundSecret::of_round(&r.file).unwrap();
    let arbiter = connect(m.port, "arbiter", &secret.password("arbiter")).unwrap();
    arbiter.subscribe(kriegspiel_net::round::SUMMARIES);
    arbiter.subscribe(kriegspiel_net::round::CONSOLES);
    let mut east = east_hall(&r, dir.path()).spawn().unwrap();
    let summary_topic = TableTopics::new(2).summary;
    let status_topic = kriegspiel_net::round::console_status("east");
    // Waits for a message on `topic` that `pick` accepts; its payload.
    let wait_for = |topic: &str, pick: &dyn Fn(&str) -> bool| -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match arbiter.got.recv_timeout(left) {
                Ok(Got::Message(t, p)) => {
                    let p = String::from_utf8(p).unwrap();
                    if t == topic && pick(&p) {
                        return p;
                    }
                }
                Ok(Got::Subscribed(_)) => {}
                Err(_) => panic!("nothing on {topic} that fits came within 20 s"),
            }
        }
    };
    wait_for(&status_topic, &|p| p.starts_with("online "));
    let first = wait_for(&summary_topic, &|p| p.contains("\"fen\":\""));
    let summary = kriegspiel_hall::TableSummary::decode(first.as_bytes()).unwrap();
    assert_eq!((summary.table, summary.name.as_str()), (2, "East's"));
    assert_eq!(summary.console, "east");
    assert_eq!(
        summary
            .setup
            .as_ref()
            .and_then(|s| s.white_player.as_deref()),
        Some("Ann")
    );
    assert!(!summary.over);
    // Table 1 is main's: east publishes nothing of it and takes no action for it.
    arbiter.publish(
        &TableTopics::new(1).arbiter,
        r#"{"arbiter":"adjudicate 0-1 not east's table"}"#,
    );
    // A player's input on the arbiter's topic is not taken; the arbiter's action is.
    arbiter.publish(
        &TableTopics::new(2).arbiter,
        r#"{"color":"white","resign":true}"#,
    );
    arbiter.publish(
        &TableTopics::new(2).arbiter,
        r#"{"arbiter":"adjudicate 1-0 Black did not come"}"#,
    );
    let over = wait_for(&summary_topic, &|p| p.contains("\"over\":true"));
    let over = kriegspiel_hall::TableSummary::decode(over.as_bytes()).unwrap();
    assert_eq!(over.result.as_deref(), Some("1-0"), "{over:?}");
    // The console ran its only table to its end and stopped: it says so.
    assert!(east.wait().unwrap().success());
    wait_for(&status_topic, &|p| p == "stopped");
    // A window that comes later still finds the retained summary and the console's state.
    let late = connect(m.port, "arbiter", &secret.password("arbiter")).unwrap();
    late.subscribe("kriegspiel/#");
    let mut seen = BTreeMap::new();
    while let Ok(Got::Message(t, p)) = late.got.recv_timeout(Duration::from_secs(2)) {
        seen.insert(t, String::from_utf8(p).unwrap());
    }
    assert_eq!(
        seen.get(&status_topic).map(String::as_str),
        Some("stopped"),
        "{}",
        m.log_text()
    );
    assert!(
        seen[&summary_topic].contains("\"result\":\"1-0\""),
        "{seen:?}"
    );
    assert!(
        !seen.contains_key(&TableTopics::new(1).summary),
        "no console ran table 1: {seen:?}"
    );
}

#[test]
fn a_console_that_dies_is_shown_down_by_its_last_will() {
    let (r, dir, m) = round_on_broker(ROUND_OF_TWO_CONSOLES);
    let secret = RoundSecret::of_round(&r.file).unwrap();
    let arbiter = connect(m.port, "arbiter", &secret.password("arbiter")).unwrap();
    arbiter.subscribe(kriegspiel_net::round::CONSOLES);
    let mut east =
        kriegspiel_tests::process::ChildGuard(east_hall(&r, dir.path()).spawn().unwrap());
    let status = kriegspiel_net::round::console_status("east");
    let statuses = |until: &str| -> Vec<String> {
        let mut all = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if let Ok(Got::Message(t, p)) = arbiter.got.recv_timeout(left) {
                if t == status {
                    all.push(String::from_utf8(p).unwrap());
                    if all.last().is_some_and(|s| s.starts_with(until)) {
                        return all;
                    }
                }
            }
        }
        panic!("the console's status never became '{until}': {all:?}");
    };
    statuses("online ");
    east.0.kill().unwrap();
    east.0.wait().unwrap();
    statuses("offline");
}

#[test]
fn a_window_on_another_console_follows_the_round_and_sends_its_actions() {
    use kriegspiel_hall::RoundNews;
    let (r, dir, m) = round_on_broker(ROUND_OF_TWO_CONSOLES);
    let secret = RoundSecret::of_round(&r.file).unwrap();
    let _east = kriegspiel_tests::process::ChildGuard(east_hall(&r, dir.path()).spawn().unwrap());
    // What the main console's window uses, with the main console's credentials.
    let main = kriegspiel_net::Broker {
        url: m.url().parse().unwrap(),
        username: Some("console-main".to_owned()),
        password_file: None,
        password: Some(kriegspiel_net::Password(secret.password("console-main"))),
        ca_file: None,
    };
    let (actions, news) = kriegspiel_frontend::round_broker::watch_round(&main, "main").unwrap();
    let next = |pick: &dyn Fn(&RoundNews) -> bool| -> RoundNews {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let n = news.recv_timeout(left).expect("no such news within 20 s");
            if pick(&n) {
                return n;
            }
        }
    };
    let online = next(&|n| matches!(n, RoundNews::Console { name, .. } if name == "east"));
    assert!(
        matches!(
            online,
            RoundNews::Console {
                status: kriegspiel_net::Status::Online { .. },
                ..
            }
        ),
        "{online:?}"
    );
    next(&|n| matches!(n, RoundNews::Summary(s) if s.table == 2 && s.fen.is_some()));
    assert!(actions.send(2, r#"{"arbiter":"pause"}"#));
    next(&|n| matches!(n, RoundNews::Summary(s) if s.table == 2 && s.paused));
    assert!(actions.send(2, r#"{"arbiter":"resume"}"#));
    next(&|n| matches!(n, RoundNews::Summary(s) if s.table == 2 && !s.paused));
}

#[test]
fn an_onlooker_follows_one_tables_announcements_from_its_console() {
    use kriegspiel_tests::console::Terminal;
    let (r, dir, m) = round_on_broker(ROUND_OF_TWO_CONSOLES);
    let secret = RoundSecret::of_round(&r.file).unwrap();
    let arbiter = connect(m.port, "arbiter", &secret.password("arbiter")).unwrap();
    arbiter.subscribe(kriegspiel_net::round::SUMMARIES);
    let onlookers = r.seats.join("onlooker.seat");
    // An onlooker only listens, to one table.
    for (table, said) in [
        (&[][..], "it follows one table; give --table N, 1 to 2"),
        (
            &["--table", "0"][..],
            "a table number is 1 or more, as the arbiter gave it",
        ),
        // Not left waiting in silence for a table the round has not.
        (
            &["--table", "3"][..],
            "there is no table 3 in this round; give --table N, 1 to 2",
        ),
    ] {
        let mut args = vec!["--seat-file", text(&onlookers)];
        args.extend(table);
        let mut no_table = Terminal::with_args(&args);
        no_table.expect(said);
        assert_eq!(no_table.exit().code(), Some(2));
    }
    let mut as_player = Terminal::with_args(&[
        "--seat-file",
        text(&onlookers),
        "--table",
        "2",
        "--color",
        "white",
    ]);
    as_player.expect("--color is a player's option");
    assert_eq!(as_player.exit().code(), Some(2));
    let _east = kriegspiel_tests::process::ChildGuard(east_hall(&r, dir.path()).spawn().unwrap());
    // East's table is running once its summary is on the broker.
    while let Ok(Got::Message(_, p)) = arbiter.got.recv_timeout(Duration::from_secs(20)) {
        if String::from_utf8_lossy(&p).contains("\"fen\":\"") {
            break;
        }
    }
    let mut onlooker = Terminal::with_args(&["--seat-file", text(&onlookers), "--table", "2"]);
    onlooker.expect("following table 2's public announcements");
    arbiter.publish(
        &TableTopics::new(2).arbiter,
        r#"{"arbiter":"adjudicate 1-0 Black did not come"}"#,
    );
    let said = onlooker.expect("The arbiter adjudicates the game. White wins.");
    assert!(!said.starts_with("stderr:"), "{said}");
    // What he heard is what both players hear, and no more.
    let rest = onlooker.drain(Duration::from_millis(700));
    assert!(
        rest.iter()
            .all(|l| !l.contains("Your men") && !l.contains("Illegal")),
        "{rest:?}"
    );
}
