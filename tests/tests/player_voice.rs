//! `kriegspiel player --voice` end to end: a running `kriegspiel table` with no boards, White
//! on the voice terminal (push-to-talk by Enter; each push hears the next `--mic-wav` file,
//! speech synthesised now with flite and festival; `--speak` on ALSA's null device), Black
//! typing on the plain terminal. White
//! asks for his men, says a try and cancels it, says another and confirms it; only the
//! confirmed tries reach the table, and the game ends in the expected position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::process::ChildGuard;

const FINAL_FEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";

fn run(cmd: &mut Command) {
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (tests/system-packages.sh installs it)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `text` said by a flite or festival voice, as a 16 kHz mono WAV at `out`.
fn synthesise(voice: &str, text: &str, out: &Path) {
    let raw = out.with_extension("raw.wav");
    match voice.split_once(':').unwrap() {
        ("flite", name) => run(Command::new("flite")
            .args(["-voice", name, "-t", text, "-o"])
            .arg(&raw)),
        ("festival", name) => {
            let text_file = out.with_extension("txt");
            std::fs::write(&text_file, text).unwrap();
            run(Command::new("text2wave")
                .args(["-eval", &format!("(voice_{name})"), "-o"])
                .arg(&raw)
                .arg(&text_file));
        }
        _ => panic!("unknown voice {voice}"),
    }
    run(Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(out));
}

struct Terminal {
    child: ChildGuard,
    keys: ChildStdin,
    heard: mpsc::Receiver<String>,
    transcript: Vec<String>,
}

impl Terminal {
    fn open(socket: &Path, color: &str, code: &str, extra: &[PathBuf]) -> Terminal {
        let mut cmd = Command::new(cargo_bin("kriegspiel", "kriegspiel"));
        cmd.args(["player", "--table", "1", "--color", color, "--code", code])
            .arg("--socket")
            .arg(socket);
        if !extra.is_empty() {
            // Spoken too, on ALSA's null device (which does not play in real time: the
            // terminal still waits the speech's length before it listens).
            cmd.args(["--voice", "--speak", "--speak-device", "null"]);
            for f in extra {
                cmd.arg("--mic-wav").arg(f);
            }
        }
        let mut child: Child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
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
            child: ChildGuard(child),
            keys,
            heard,
            transcript: Vec::new(),
        };
        t.expect("Connected to table 1");
        t
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.keys, "{line}").unwrap();
    }

    /// Push-to-talk: Enter, (he speaks: the next WAV), Enter.
    fn talk(&mut self) {
        self.type_line("");
        self.expect("(listening; Enter to stop)");
        self.type_line("");
    }

    /// Waits for a line containing `text`; returns it.
    fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
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

#[test]
fn white_plays_by_voice_on_his_terminal_confirming_and_cancelling() {
    let dir = tempfile::tempdir().unwrap();
    let said = [
        ("flite:slt", "my men"),
        ("flite:rms", "golf one to foxtrot three"),
        ("festival:kal_diphone", "cancel"),
        ("flite:slt", "foxtrot two to foxtrot three"),
        ("flite:awb", "confirm"),
        ("flite:kal16", "golf two to golf four"),
        ("flite:slt", "confirm"),
    ];
    let wavs: Vec<PathBuf> = (0..said.len())
        .map(|i| dir.path().join(format!("{i:02}.wav")))
        .collect();
    std::thread::scope(|s| {
        for (i, (voice, text)) in said.iter().enumerate() {
            let out = &wavs[i];
            s.spawn(move || synthesise(voice, text, out));
        }
    });

    let journal = dir.path().join("j.sqlite");
    let socket = dir.path().join("players.sock");
    let table = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
        .args(["table", "cincinnati", "--no-speech", "--journal"])
        .arg(&journal)
        .arg("--player-socket")
        .arg(&socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut table = ChildGuard(table);
    // Its first line names the table and each seat's code.
    let mut table_out = BufReader::new(table.0.stdout.take().unwrap());
    let mut opened = String::new();
    table_out.read_line(&mut opened).unwrap();
    let opened: serde_json::Value = serde_json::from_str(&opened).unwrap();
    let code = |c: &str| opened["seats"][c].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the socket never appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut white = Terminal::open(&socket, "white", &code("white"), &wavs);
    let mut black = Terminal::open(&socket, "black", &code("black"), &[]);

    // "my men": the console reads him his men.
    white.talk();
    let men = white.expect("Your men:");
    assert!(men.starts_with("Your men: king e1, queen d1"), "{men}");
    // A try, read back to him alone, then cancelled: the table never hears of it.
    white.talk();
    white.expect("knight g1 to f3?");
    white.talk();
    white.expect("Cancelled.");
    // A try confirmed.
    white.talk();
    white.expect("pawn f2 to f3?");
    white.talk();
    white.expect("White has moved.");
    black.expect("White has moved.");
    black.type_line("e7e5");
    white.expect("Black has moved.");
    white.talk();
    white.expect("pawn g2 to g4?");
    white.talk();
    black.expect("White has moved.");
    black.type_line("Qd8h4");
    let mate = white.expect("Checkmate");
    assert!(mate.contains("Black wins"), "{mate}");

    for private in ["knight g1 to f3?", "Cancelled.", "Your men:"] {
        assert!(
            !black.transcript.iter().any(|l| l.contains(private)),
            "Black heard '{private}': {:?}",
            black.transcript
        );
    }
    let status = table.0.wait().unwrap();
    assert!(status.success());
    let mut out = String::new();
    table_out.read_to_string(&mut out).unwrap();
    let tries: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v["try"].as_str().map(|_| l)
        })
        .collect();
    assert!(
        !out.contains("\"g1f3\""),
        "the cancelled try reached the table: {tries:?}"
    );
    let last = out.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(v["final_fen"], FINAL_FEN, "{out}");
    // White's terminal ends when the console hangs up; it could speak every line.
    let status = white.child.0.wait().unwrap();
    assert!(status.success());
    let mut err = String::new();
    white
        .child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("cannot speak"), "{err}");
}
