//! The players' channel and the table under misuse: a terminal that floods and never
//! reads, a stalled arbiter's terminal, a thousand idle connections, a try flood, an
//! arbiter's line too long to journal. None may cost the console unbounded memory or CPU,
//! make another terminal wait or lose anything, or stop a table.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use kriegspiel_tests::console::{connect, read_lines, Console, Terminal};

/// A terminal that sends `help` as fast as it can and never reads costs the console no
/// more memory than a bounded queue: its commands beyond the rate are dropped.
#[test]
fn a_flooding_terminal_that_never_reads_costs_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut flood = connect(&table.socket, &format!("1 white {}", table.code("white")));
    table.expect_seat("taken", "white");
    let before = table.rss_kb();
    let until = Instant::now() + Duration::from_secs(8);
    let mut sent = 0u64;
    flood
        .set_write_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    while Instant::now() < until {
        if flood.write_all(&b"help\n".repeat(1000)).is_ok() {
            sent += 1000;
        }
    }
    let after = table.rss_kb();
    assert!(sent > 100_000, "only {sent} lines were sent");
    assert!(
        after < before + 16 * 1024,
        "the console grew from {before} kB to {after} kB under {sent} unread commands"
    );
    // Black is served as ever.
    let mut black = Terminal::open(&table, "black");
    black.say("my men");
    black.expect("Your men: king e8");
    // The flooder, when he reads at last, was told why his commands were not taken.
    let said = read_lines(&flood, Duration::from_secs(2));
    assert!(
        said.iter().any(|l| l.starts_with("Too many commands")),
        "{:?}",
        &said[..said.len().min(5)]
    );
}

/// With the arbiter's standard output stalled (Ctrl-S, a pipe nobody reads), the players'
/// terminals still hear every word meant for them: each subscriber has its own queue.
#[test]
fn a_stalled_standard_output_makes_no_terminal_lose_anything() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], false);
    let white = Terminal::open(&table, "white");
    let mut black = Terminal::open(&table, "black");
    // Each ask makes an answer (and a view): more events than the printer's queue holds,
    // and far more lines than the unread pipe takes.
    const ASKS: usize = 5_000;
    {
        let keys = table.keys.as_mut().unwrap();
        let mut lines = String::new();
        for _ in 0..ASKS {
            lines.push_str("{\"color\":\"white\",\"ask\":\"any\"}\n");
        }
        lines.push_str("{\"color\":\"white\",\"resign\":true}\n");
        keys.write_all(lines.as_bytes()).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut illegal = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = white
            .heard
            .recv_timeout(left)
            .expect("White heard everything");
        if line.contains("Illegal move.") {
            illegal += 1;
        }
        if line.contains("White resigns") {
            break;
        }
    }
    assert_eq!(illegal, ASKS, "White heard every answer meant for him");
    black.expect("White resigns");
    assert!(
        !black.transcript.iter().any(|l| l.contains("Illegal")),
        "White's answers were his alone"
    );
    drop(table.unread.take());
}

/// A second connection, a thousand idle ones: the console stays responsive and idle, and
/// its threads bounded; a connection that never says its seat is closed.
#[test]
fn idle_connections_are_bounded_and_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let idle: Vec<UnixStream> = (0..500)
        .map(|_| UnixStream::connect(&table.socket).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        table.threads() < 200,
        "{} threads for idle connections",
        table.threads()
    );
    let ticks = table.cpu_ticks();
    std::thread::sleep(Duration::from_secs(2));
    let used = table.cpu_ticks() - ticks;
    assert!(
        used < 40,
        "{used} ticks of CPU in 2 s with idle connections"
    );
    // Those beyond the bound were told at once; those within it are closed when their
    // handshake time is up.
    let told = read_lines(&idle[499], Duration::from_secs(1));
    assert!(
        told.iter()
            .any(|l| l.contains("terminals are connected to this console already")),
        "{told:?}"
    );
    let late = read_lines(&idle[0], Duration::from_secs(8));
    assert!(
        late.iter().any(|l| l.contains("no seat was said in time")),
        "{late:?}"
    );
    drop(idle);
    // Then a player connects as ever.
    std::thread::sleep(Duration::from_millis(300));
    let mut white = Terminal::open(&table, "white");
    white.say("my men");
    white.expect("Your men: king e1");
}

/// One seat sending a flood of tries is limited and told so; the other seat's move
/// reaches him at once.
#[test]
fn a_try_flood_is_limited_and_the_other_seat_feels_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut white = Terminal::open(&table, "white");
    let mut black = Terminal::open(&table, "black");
    table.expect_seat("taken", "black");
    // Black floods while it is White's move.
    let mut flood = String::new();
    for _ in 0..20_000 {
        flood.push_str("e7e5\n");
    }
    black.say(flood.trim_end());
    black.expect("Too many commands");
    let start = Instant::now();
    white.say("e2e4");
    black.expect("Black's move.");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "White's move reached Black after {:?}",
        start.elapsed()
    );
}

/// A 5,000-character FEN from the arbiter is refused with its reason; the table plays on.
#[test]
fn an_arbiter_line_too_long_to_journal_is_refused_and_the_table_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let fen = format!("{}/8/8/8/8/8/8/8 w - - 0 1", "1".repeat(5000));
    table.command(&format!(r#"{{"arbiter":"fen {fen}"}}"#));
    table.command(r#"{"color":"white","try":"e2e4"}"#);
    table.expect("White's move stands", |v| {
        v["try"] == "e2e4" && v["answer"] == "moved"
    });
    table.command(r#"{"color":"black","resign":true}"#);
    table.expect("the result", |v| v["result"] == "1-0");
    assert!(table.child.0.wait().unwrap().success());
}

/// A first line too long, or not said in time, is answered with the reason, not dropped.
#[test]
fn a_bad_handshake_is_answered_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let mut long = UnixStream::connect(&table.socket).unwrap();
    // Written on a thread: the console stops reading after the bound.
    let mut writer = long.try_clone().unwrap();
    std::thread::spawn(move || {
        let _ = writer.write_all(&vec![b'1'; 1 << 20]);
    });
    let said = read_lines(&long, Duration::from_secs(5));
    assert!(
        said.iter()
            .any(|l| l.starts_with("error: the first line is too long")),
        "{said:?}"
    );
    let _ = long.flush();
    let garbled = connect(&table.socket, "hello there");
    let said = read_lines(&garbled, Duration::from_secs(5));
    assert!(
        said[0].contains("start with the table number, your colour and your seat code"),
        "{said:?}"
    );
}

/// A socket of another user's at --socket is not the console's (one planted where the
/// console's goes would collect seat codes): the terminal refuses it and sends nothing.
#[test]
fn a_terminal_sends_no_seat_code_to_another_users_socket() {
    use kriegspiel_tests::link_util::cargo_bin;
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0;
    // As root: a listening socket given to another user; as anyone else: a file of root's.
    let (socket, listener) = if root {
        let path = dir.path().join("planted.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        (path, Some(listener))
    } else {
        (std::path::PathBuf::from("/"), None)
    };
    let out = std::process::Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args([
            "player", "--table", "1", "--color", "white", "--code", "030142", "--socket",
        ])
        .arg(&socket)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("belongs to another user: it is not your console's socket"),
        "{err}"
    );
    if let Some(listener) = listener {
        match listener.accept() {
            Ok((mut s, _)) => {
                let mut heard = String::new();
                let _ = s.read_to_string(&mut heard);
                panic!("the terminal connected and sent {heard:?}");
            }
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
        }
    }
}
