//! Two players at one table without boards, each on his own terminal (`kriegspiel player`
//! over the console's players' socket): each hears what he may hear and nothing else, and
//! a whole game is played by keys. Seats are proven by their codes, a taken seat is refused
//! and every seat change is told to the arbiter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use kriegspiel_tests::console::{connect, read_lines, Console, Terminal};
use kriegspiel_tests::link_util::cargo_bin;

#[test]
fn two_players_play_by_keys_and_hear_only_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    table.expect_seat("taken", "white");
    let mut black = Terminal::open(&table, "black");
    table.expect_seat("taken", "black");

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
    let status = table.child.0.wait().unwrap();
    assert!(status.success());
    assert!(
        !table.socket.exists(),
        "the console removes its players' socket when it stops"
    );
    // The console closed the table: each terminal says so and ends well.
    for t in [&mut white, &mut black] {
        t.expect("The console has closed the table.");
        assert!(t.exit().success(), "{:?}", t.transcript);
    }
}

#[test]
fn a_player_with_no_console_or_a_wrong_seat_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "white", "--code", "1", "--socket"])
        .arg(dir.path().join("none.sock"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no console answers at"), "{said}");
    assert!(said.contains("(nothing is there)"), "{said}");
    // A file or a folder given for the socket is said to be one, not a stopped console.
    let journal = dir.path().join("club.sqlite");
    std::fs::write(&journal, "").unwrap();
    for (path, what) in [
        (&journal, "(it is a file, not a socket)"),
        (&dir.path().to_owned(), "(it is a folder, not a socket)"),
    ] {
        let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["player", "--color", "white", "--code", "1", "--socket"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(what) && !said.contains("stopped"), "{said}");
    }
    // Where to find the right socket: the console names it.
    assert!(
        said.contains(r#"give --socket the path its "players' terminals" line names"#),
        "{said}"
    );
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--table", "0", "--color", "white"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a table number is 1 or more"));
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "green"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown colour 'green' (white, black)"));
    // A table the console does not have is named, with those it has.
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--table", "7", "--color", "white", "--code"])
        .arg(table.code("white"))
        .arg("--socket")
        .arg(&table.socket)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("error: this console has no table 7 (its tables: 1)"),
        "{said}"
    );
    // No code on the command line and none typed: refused before connecting.
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "white", "--socket"])
        .arg(&table.socket)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no seat code typed"));
}

/// Black's terminal on `table`'s socket, its keys, lines and messages piped.
fn black_terminal(table: &Console, more: &[&str]) -> std::process::Child {
    Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "black", "--socket"])
        .arg(&table.socket)
        .args(more)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A terminal fed `keys`, then its keys ended: its status, what it printed, and its errors.
fn typed_into(
    mut child: std::process::Child,
    keys: &[u8],
) -> (std::process::ExitStatus, String, String) {
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(keys).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status, said, err)
}

/// The code is asked for on the terminal, and the player may take his time to type it.
#[test]
fn the_seat_code_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut child = black_terminal(&table, &[]);
    let mut keys = child.stdin.take().unwrap();
    // He takes his time: longer than the 5 s the console gives a connection to say its seat.
    std::thread::sleep(Duration::from_secs(6));
    writeln!(keys, "{}", table.code("black")).unwrap();
    writeln!(keys, "my men").unwrap();
    drop(keys);
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Connected to table 1 as black"), "{said}");
    assert!(said.contains("Your men: king e8"), "{said}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Seat code for table 1 black:"));
}

/// Tries typed as chess players write moves (`e4`, `Nf6`, `Qh5`) are read against the
/// player's own men: a move none of them can make is said so, and nothing is tried.
#[test]
fn tries_written_as_chess_players_write_moves_are_played() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    let mut black = Terminal::open(&table, "black");
    white.say("Qh5");
    white.expect("No queen of yours can go to h5.");
    white.say("e4");
    white.expect("Black's move.");
    black.say("Nf6");
    black.expect("White's move.");
    white.say("Qh5");
    white.expect("Black's move.");
    black.say("Nxh5");
    black.expect("White's move.");
    white.say("my men");
    let men = white.expect("Your men:");
    assert!(!men.contains("queen"), "{men}");
}

/// What he types right after a try is answered after the try's verdict: "turn" typed
/// ahead is never told the position before the try.
#[test]
fn commands_typed_ahead_are_answered_after_the_try() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    white.expect("Your move.");
    white.say("e2e4\nturn\nmy men");
    let men = white.expect("Your men:");
    assert!(men.contains("pawn e4"), "{men}");
    let said = &white.transcript;
    let verdict = said.iter().position(|l| l.contains("Black's move."));
    let turn = said
        .iter()
        .position(|l| l.contains("Your opponent's move."));
    assert!(
        verdict.is_some() && verdict < turn,
        "the turn was told before the verdict: {said:?}"
    );
    assert!(
        !said[verdict.unwrap()..].iter().any(|l| l == "Your move."),
        "{said:?}"
    );
}

/// A code he types wrong is said wrong and asked again, and the right one seats him; a wrong
/// `--code` (not typed at the terminal) ends it, status 1.
#[test]
fn a_seat_code_typed_wrong_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let right = table.code("black").to_owned();
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let mut given = black_terminal(&table, &["--code", wrong]);
    drop(given.stdin.take());
    let out = given.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("wrong seat code for table 1 black"), "{said}");
    assert!(!said.contains("#wrong-code"), "{said}");

    // An empty line, letters, Escape and an arrow, a line far too long: asked again, said
    // plainly (the long line once); spaces between groups of digits are his, not the code's.
    let spaced = format!("{} {}", &right[..3], &right[3..]);
    let long = "9".repeat(5000);
    let keys = format!("\nabc\n\x1b[A\x1b\n{long}\n{wrong}\n{spaced}\nmy men\n");
    let (status, said, err) = typed_into(black_terminal(&table, &[]), keys.as_bytes());
    assert!(status.success(), "{said}{err}");
    assert!(
        err.contains("Type the seat code the arbiter gave you, then Enter."),
        "{err}"
    );
    assert!(
        err.contains("A seat code is digits, as the arbiter gave it (not 'abc'): type it again."),
        "{err}"
    );
    assert!(!err.contains('\u{fffd}'), "{err}");
    assert_eq!(
        err.matches("That line was too long to be a seat code (5000 bytes")
            .count(),
        1,
        "{err}"
    );
    assert!(said.contains("wrong seat code for table 1 black"), "{said}");
    assert!(said.contains("Connected to table 1 as black"), "{said}");
    assert!(said.contains("Your men: king e8"), "{said}");
    assert!(!said.contains("#wrong-code"), "{said}");
    assert_eq!(
        err.matches("Seat code for table 1 black:").count(),
        6,
        "{err}"
    );
}

/// A line that is not text is said to him and goes no further; escape sequences he types
/// never come back raw (quoted in "not understood", they would be his screen's commands).
#[test]
fn a_line_not_sent_is_said_and_nothing_comes_back_raw() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let child = black_terminal(&table, &["--code", table.code("black")]);
    // Not UTF-8; a terminal's escape sequences; Escape, and an arrow key before a command
    // (keys, not words).
    let keys = b"\xff\xfe my men\n\x1b]0;owned\x07\x1b[2J\n\x1b\n\x1b[Amy men\nmy men\n";
    let (status, said, err) = typed_into(child, keys);
    assert!(status.success(), "{said}{err}");
    assert!(
        err.contains("that line was not sent: invalid UTF-8 after 0 bytes"),
        "{err}"
    );
    assert!(said.contains("Your men: king e8"), "{said}");
    assert!(
        said.contains("]0;owned"),
        "the escape line was not answered: {said}"
    );
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}'),
        "{said:?}"
    );
    assert_eq!(
        said.matches("Escape and the arrow keys do nothing on this terminal")
            .count(),
        1,
        "{said}"
    );
    assert_eq!(said.matches("Your men: king e8").count(), 2, "{said}");
    assert!(!said.contains("Not understood: \u{fffd}\n"), "{said}");
}

/// A second terminal for a seat that is held is refused and the arbiter told, and cannot
/// read or act for its player; a wrong code is refused; the arbiter's release frees the seat.
#[test]
fn a_seat_is_proven_and_held_by_one_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    table.expect_seat("taken", "white");

    // The impostor, with the right code even: the seat is taken.
    let impostor = connect(&table.socket, &format!("1 white {}", table.code("white")));
    let said = read_lines(&impostor, Duration::from_secs(5));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("error: table 1 white is taken"),
        "{said:?}"
    );
    let refused = table.expect_seat("refused", "white");
    assert!(
        refused["reason"].as_str().unwrap().contains("taken"),
        "{refused}"
    );

    // A wrong code, and none: refused, and said to the arbiter.
    let wrong = if table.code("black") == "000000" {
        "111111"
    } else {
        "000000"
    };
    let guess = connect(&table.socket, &format!("1 black {wrong}"));
    let said = read_lines(&guess, Duration::from_secs(5));
    assert!(
        said[0].contains("wrong seat code for table 1 black"),
        "{said:?}"
    );
    table.expect_seat("refused", "black");
    let bare = connect(&table.socket, "1 black");
    let said = read_lines(&bare, Duration::from_secs(5));
    assert!(said[0].contains("needs its seat code"), "{said:?}");
    // White's code does not open Black's seat.
    let crossed = connect(&table.socket, &format!("1 black {}", table.code("white")));
    assert!(read_lines(&crossed, Duration::from_secs(5))[0].contains("wrong seat code"));

    // White plays on, undisturbed.
    white.say("e2e4");
    white.expect("Black's move.");

    // The arbiter releases White's seat: his terminal is told, and another may take it.
    table.command(r#"{"arbiter":"release white"}"#);
    white.expect("the arbiter has released your seat; your game is kept: ask the arbiter, then start the terminal again");
    assert!(!white.exit().success());
    table.expect_seat("released", "white");
    let mut again = Terminal::open(&table, "white");
    table.expect_seat("taken", "white");
    again.say("repeat");
    again.expect("Black's move.");
}

/// Someone guessing Black's code runs the seat out of guesses, and then even the right code
/// waits; the player asks the arbiter, whose release clears the guesses: the right code
/// takes the seat at once.
#[test]
fn the_arbiters_release_lets_the_right_code_in_after_wrong_guesses() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let right = table.code("black").to_owned();
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let mut last = String::new();
    for _ in 0..8 {
        let guess = connect(&table.socket, &format!("1 black {wrong}"));
        last = read_lines(&guess, Duration::from_secs(5)).join(" ");
    }
    assert!(last.contains("too many wrong seat codes"), "{last}");
    let refused = connect(&table.socket, &format!("1 black {right}"));
    let said = read_lines(&refused, Duration::from_secs(5)).join(" ");
    assert!(said.contains("too many wrong seat codes"), "{said}");
    table.command(r#"{"arbiter":"release black"}"#);
    let mut black = Terminal::start(&table.socket, "black", &right, &[]);
    black.expect("Connected to table 1 as black");
}

/// When his keys end (Ctrl-D, or a script's last line), the terminal prints the answers
/// still coming and exits; the console plays on.
#[test]
fn a_terminal_whose_keys_end_answers_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut t = Terminal::start(&table.socket, "white", table.code("white"), &[]);
    t.say("my men");
    // A try typed just before his keys end: its verdict still reaches him.
    t.say("e2e4");
    drop(t.keys.take());
    assert!(t.exit().success());
    let said = t.drain(Duration::from_millis(200));
    assert!(
        said.iter().any(|l| l.contains("Connected to table 1")),
        "{said:?}"
    );
    assert!(
        said.iter().any(|l| l.contains("Your men: king e1")),
        "the last answer came first: {said:?}"
    );
    assert!(
        said.iter().any(|l| l.contains("Black's move.")),
        "the try's verdict was lost: {said:?}"
    );
    assert!(
        said.last()
            .is_some_and(|l| l.contains("This terminal is closed")),
        "his terminal said it closed: {said:?}"
    );
    table.expect_seat("left", "white");
    // The voice terminal likewise (it listens to no microphone here: none is asked).
    let mut v = Terminal::start(
        &table.socket,
        "black",
        table.code("black"),
        &["--voice", "--no-moonshine"],
    );
    v.expect("Connected to table 1 as black");
    v.say("my men");
    drop(v.keys.take());
    let status = v.exit();
    let said = v.drain(Duration::from_millis(200));
    assert!(status.success(), "{said:?}");
    assert!(
        said.iter().any(|l| l.contains("Your men: king e8")),
        "{said:?}"
    );
    assert!(
        said.last()
            .is_some_and(|l| l.contains("This terminal is closed")),
        "{said:?}"
    );
    table.expect_seat("left", "black");
}

/// A line too long to be a command is refused, and the terminal plays on: the plain one
/// (the console refuses it) and the voice one (refused before it is sent; its missing
/// microphone said first).
#[test]
fn a_line_too_long_is_refused_and_the_terminal_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let long = "x".repeat(3000);
    let mut plain = Terminal::start(&table.socket, "white", table.code("white"), &[]);
    plain.expect("Connected to table 1 as white");
    plain.say(&long);
    let refused = plain.expect("That line was not taken");
    assert!(refused.contains("too long"), "{refused}");
    plain.say("my men");
    plain.expect("Your men: king e1");
    let mut voice = Terminal::start(
        &table.socket,
        "black",
        table.code("black"),
        &["--voice", "--no-moonshine", "--mic", "nosuchdevice"],
    );
    // A microphone that is not there is said at once, before he speaks into it.
    let none = voice.expect("No microphone: ");
    assert!(none.contains("nosuchdevice"), "{none}");
    voice.expect("Connected to table 1 as black");
    voice.say(&long);
    voice.expect("That line was too long to be a command");
    voice.say("my men");
    voice.expect("Your men: king e8");
}

/// A console that dies leaves its terminals saying so, and failing.
#[test]
fn a_terminal_whose_console_dies_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut t = Terminal::open(&table, "black");
    table.child.0.kill().unwrap();
    t.expect("Lost the console");
    assert_eq!(t.exit().code(), Some(1));
}

/// The socket is the user's alone, whatever the umask: mode 0600.
#[test]
fn the_socket_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mode = std::fs::metadata(&table.socket)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // No temporary folder is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A file that is not a socket at the players' socket path is someone's data: the console
/// leaves it as it is, says why, and referees without players' terminals.
#[test]
fn a_file_at_the_socket_path_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let precious = dir.path().join("notes.txt");
    std::fs::write(&precious, "not a socket\n").unwrap();
    let mut table = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "wild16", "--no-speech", "--journal"])
        .arg(dir.path().join("j.sqlite"))
        .arg("--player-socket")
        .arg(&precious)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut keys = table.stdin.take().unwrap();
    writeln!(keys, r#"{{"color":"white","resign":true}}"#).unwrap();
    drop(keys);
    let out = table.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exists and is not a socket") && err.contains("no players' terminals"),
        "{err}"
    );
    let mut kept = String::new();
    std::fs::File::open(&precious)
        .unwrap()
        .read_to_string(&mut kept)
        .unwrap();
    assert_eq!(kept, "not a socket\n");
}

/// Ctrl-C, SIGTERM or SIGHUP (the arbiter's terminal closed) stop the console cleanly: the
/// time up to the stop is journaled, the terminals are told their game is kept, the socket
/// file is removed.
#[test]
fn a_signal_stops_the_console_cleanly() {
    for (signal, code) in [("-TERM", 143), ("-INT", 130), ("-HUP", 129)] {
        let dir = tempfile::tempdir().unwrap();
        let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
        let mut white = Terminal::open(&table, "white");
        let pid = table.child.0.id().to_string();
        std::thread::sleep(Duration::from_millis(300));
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        let status = table.child.0.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{signal}");
        assert!(!table.socket.exists(), "{signal}: the socket file is left");
        // Its game unfinished, he is told it is kept.
        white.expect(
            "The console has stopped. Your game is kept and goes on when it runs again: connect then.",
        );
        assert!(white.exit().success());
        let j = kriegspiel_hall::Journal::open_read_only(&table.journal).unwrap();
        let game = j.games().unwrap()[0].id;
        assert!(
            j.last_beat(game).is_some(),
            "{signal}: no clean stop journaled"
        );
    }
}

/// Ctrl-C (or SIGTERM, or his window closed) in a seated player's terminal says where his
/// game stands, as Ctrl-D does, and exits with 128 + the signal; the console plays on and
/// takes him back. It ended without a word.
#[test]
fn ctrl_c_in_a_players_terminal_says_his_game_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let mut white = Terminal::open(&table, "white");
        white.expect("Your move.");
        let pid = white.child.0.id().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        white.expect("This terminal is closed. A game still under way goes on at the console");
        assert_eq!(white.exit().code(), Some(code), "{signal}");
    }
    let mut again = Terminal::open(&table, "white");
    again.expect("Your move.");
}

/// Whose move it is, told to a player who connects (or comes back) and on "turn"; help
/// names only the questions of the table's rule set.
#[test]
fn a_player_is_told_whose_move_it_is_and_help_fits_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    white.expect("Your move.");
    let mut black = Terminal::open(&table, "black");
    black.expect("Your opponent's move.");
    white.say("help");
    let help = white.expect("Commands:");
    assert!(
        !help.contains("any (") && !help.contains("rebuffs"),
        "{help}"
    );
    assert!(help.contains("castle kingside"), "{help}");
    white.say("castle kingside");
    white.expect("Illegal move.");
    white.say("e2e4");
    black.expect("Black's move.");
    black.say("whose turn");
    black.expect("Your move.");
    // Black's terminal stops, and comes back: told where the game stands.
    drop(black);
    let mut again = Terminal::open(&table, "black");
    again.expect("Said to you last");
    again.expect("Your move.");
}

/// A console that takes the connection and never answers (stuck, or something else at the
/// socket) is said after 20 s, status 1: the terminal does not wait in silence for ever.
#[test]
fn a_console_that_never_answers_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("stuck.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let out = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["player", "--color", "white", "--code", "123456", "--socket"])
        .arg(&socket)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the console took the connection but did not answer in 20 s"),
        "{err}"
    );
}
