//! Two players at one table without boards, each on his own terminal (`kriegspiel player`
//! over the console's players' socket): each hears what he may hear and nothing else, and
//! a whole game is played by keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::process::ChildGuard;

struct Terminal {
    _child: ChildGuard,
    keys: ChildStdin,
    heard: mpsc::Receiver<String>,
    transcript: Vec<String>,
}

impl Terminal {
    fn open(socket: &std::path::Path, color: &str) -> Terminal {
        let mut child: Child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["player", "--table", "1", "--color", color, "--socket"])
            .arg(socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let keys = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, heard) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut t = Terminal {
            _child: ChildGuard(child),
            keys,
            heard,
            transcript: Vec::new(),
        };
        t.expect("Connected to table 1");
        t
    }

    fn say(&mut self, line: &str) {
        writeln!(self.keys, "{line}").unwrap();
    }

    /// Waits for a line containing `text`; returns it.
    fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .heard
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("never heard '{text}'; heard {:?}", self.transcript));
            self.transcript.push(line.clone());
            if line.contains(text) {
                return line;
            }
        }
    }
}

/// A keys-only table (wild16, no boards) serving players at `socket`.
fn table_at(journal: &std::path::Path, socket: &std::path::Path) -> ChildGuard {
    let table = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "wild16", "--no-speech", "--journal"])
        .arg(journal)
        .arg("--player-socket")
        .arg(socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ChildGuard(table)
}

fn wait_for(socket: &std::path::Path) {
    use std::os::unix::fs::FileTypeExt;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::symlink_metadata(socket).is_ok_and(|m| m.file_type().is_socket()) {
        assert!(Instant::now() < deadline, "the socket never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_players_play_by_keys_and_hear_only_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.sqlite");
    let socket = dir.path().join("players.sock");
    let mut table = table_at(&journal, &socket);
    wait_for(&socket);
    let mut white = Terminal::open(&socket, "white");
    let mut black = Terminal::open(&socket, "black");

    white.say("my men");
    let men = white.expect("Your men:");
    assert!(
        men.starts_with("Your men: king e1, queen d1, rook a1, rook h1"),
        "{men}"
    );
    assert!(!men.contains("e8"), "only his own men: {men}");
    white.say("f2f3");
    white.expect("Black's move.");
    black.expect("Black's move.");
    black.say("Bb8c6");
    black.expect("You have no bishop on b8.");
    black.say("e7e4");
    black.expect("Illegal move.");
    black.say("repeat");
    black.expect("Illegal move.");
    black.say("castle now");
    black.expect("Not understood: castle now.");
    black.say("e7e5");
    white.expect("White's move.");
    white.say("Pg2g4");
    black.expect("Black's move.");
    black.say("Qd8h4");
    let mate = white.expect("Checkmate");
    assert!(mate.contains("Black wins"), "{mate}");
    black.expect("Checkmate");

    // Black's illegal tries and his errors were his alone.
    for private in ["Illegal move.", "no bishop", "Not understood"] {
        assert!(
            !white.transcript.iter().any(|l| l.contains(private)),
            "White heard '{private}': {:?}",
            white.transcript
        );
    }
    let status = table.0.wait().unwrap();
    assert!(status.success());
    assert!(
        !socket.exists(),
        "the console removes its players' socket when it stops"
    );
    let mut err = String::new();
    std::io::Read::read_to_string(&mut table.0.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("players' terminals: kriegspiel player --socket"),
        "{err}"
    );
}

#[test]
fn a_player_with_no_console_or_a_wrong_seat_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "white", "--socket"])
        .arg(dir.path().join("none.sock"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no console answers at"));
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "green"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown colour 'green' (white, black)"));
    // A table the console does not have is named, with those it has.
    let socket = dir.path().join("players.sock");
    let _table = table_at(&dir.path().join("j.sqlite"), &socket);
    wait_for(&socket);
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--table", "7", "--color", "white", "--socket"])
        .arg(&socket)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("error: this console has no table 7 (its tables: 1)"),
        "{said}"
    );
}

/// When his keys end (Ctrl-D, or a script's last line), the terminal prints the answers
/// still coming and exits; the console plays on.
#[test]
fn a_terminal_whose_keys_end_answers_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("players.sock");
    let _table = table_at(&dir.path().join("j.sqlite"), &socket);
    wait_for(&socket);
    let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--table", "1", "--color", "white", "--socket"])
        .arg(&socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut keys = child.stdin.take().unwrap();
    writeln!(keys, "my men").unwrap();
    drop(keys);
    let mut child = ChildGuard(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the terminal did not exit at the end of its keys"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.0.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("Connected to table 1"), "{out}");
    assert!(
        out.contains("Your men: king e1"),
        "the last answer came first: {out}"
    );
}

/// A file that is not a socket at the players' socket path is someone's data: the console
/// leaves it as it is, says why, and referees without players' terminals.
#[test]
fn a_file_at_the_socket_path_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let precious = dir.path().join("notes.txt");
    std::fs::write(&precious, "not a socket\n").unwrap();
    let mut table = table_at(&dir.path().join("j.sqlite"), &precious);
    let mut keys = table.0.stdin.take().unwrap();
    writeln!(keys, r#"{{"color":"white","resign":true}}"#).unwrap();
    drop(keys);
    let status = table.0.wait().unwrap();
    assert!(status.success());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut table.0.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("exists and is not a socket") && err.contains("no players' terminals"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap(),
        "not a socket\n"
    );
}
