//! The window serves the same players' channel as `kriegspiel table` and `hall`: a table
//! opened in it can be played from a player's terminal, with its seat code; Ctrl-C or
//! SIGTERM stop it cleanly and remove the socket. The demo, given no journal, keeps its
//! own (and its socket beside it) in a new private folder, never the club's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{xvfb, Killed};

#[test]
fn a_table_in_the_window_is_played_from_a_players_terminal() {
    let (_x, display) = xvfb();
    let dir = tempfile::tempdir().unwrap();
    let (tmp, data) = (dir.path().join("tmp"), dir.path().join("data"));
    std::fs::create_dir(&tmp).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_kriegspiel-console"))
        .args(["--demo", "--no-speech"])
        .env("TMPDIR", &tmp)
        .env("XDG_DATA_HOME", &data)
        .env("HOME", dir.path())
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut app = Killed(child);
    let (tx, said) = mpsc::channel();
    let err = app.0.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    let (mut journal, mut socket) = (None, None);
    let code = loop {
        let line = said
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("no seat codes said: {seen:?}"));
        if let Some(rest) = line.split("seat codes: white ").nth(1) {
            break rest.split(',').next().unwrap().to_owned();
        }
        if let Some(rest) = line.strip_prefix("kriegspiel-console: journal ") {
            let (path, why) = rest.split_once(" (").unwrap();
            assert!(why.starts_with("this run's own"), "{line}");
            journal = Some(std::path::PathBuf::from(path));
        }
        if let Some(rest) = line.split("kriegspiel player --socket ").nth(1) {
            socket = Some(std::path::PathBuf::from(rest.split(' ').next().unwrap()));
        }
        seen.push(line);
    };
    let (journal, socket) = (journal.unwrap(), socket.unwrap());
    assert_eq!(journal.parent().unwrap().parent(), Some(tmp.as_path()));
    assert_eq!(socket, journal.with_extension("players.sock"));
    assert!(socket.exists(), "no players' socket beside the journal");
    assert!(!data.exists(), "the club's journal folder was made");
    let mut white = UnixStream::connect(&socket).unwrap();
    writeln!(white, "1 white {code}").unwrap();
    white
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut heard = BufReader::new(white.try_clone().unwrap());
    let mut first = String::new();
    heard.read_line(&mut first).unwrap();
    assert!(
        first.starts_with("Connected to table 1 as white"),
        "{first}"
    );
    // The arbiter hears of it.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let line = said
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the seat taken was said");
        if line.contains("table 1: white's terminal connected") {
            break;
        }
    }
    writeln!(white, "my men").unwrap();
    let mut men = String::new();
    while !men.starts_with("Your men:") {
        men.clear();
        heard.read_line(&mut men).unwrap();
    }
    // SIGTERM: stopped cleanly, the terminal told, the socket removed.
    let pid = app.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = app.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the window did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(143));
    // The window closed itself once the hall had stopped: the process was not cut short.
    std::thread::sleep(Duration::from_millis(200));
    let after: Vec<String> = said.try_iter().collect();
    assert!(
        !after.iter().any(|l| l.contains("did not close")),
        "{after:?}"
    );
    assert!(!socket.exists(), "the socket file was left behind");
    let mut rest = String::new();
    let mut last = String::new();
    while heard.read_line(&mut rest).unwrap_or(0) > 0 {
        last.clone_from(&rest);
        rest.clear();
    }
    assert!(last.contains("#closed"), "{last}");
}
