//! `kriegspiel player --voice` end to end: a running `kriegspiel table` with no boards, White
//! on the voice terminal (push-to-talk by Enter; each push hears the next `--mic-wav` file,
//! speech synthesised now with flite and festival; `--speak` on ALSA's null device), Black
//! typing on the plain terminal. White
//! asks for his men, says "any" too faintly to be asked at once (read back, then cancelled),
//! says a try and cancels it, says another and confirms it; only the
//! confirmed tries reach the table, and the game ends in the expected position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use kriegspiel_tests::console::{Console, Terminal};
use kriegspiel_tests::voices::synthesise;

const FINAL_FEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";

/// Push-to-talk: Enter, (he speaks: the next WAV), Enter.
fn talk(t: &mut Terminal) {
    t.say("");
    t.expect("(listening; Enter to stop)");
    t.say("");
}

#[test]
fn white_plays_by_voice_on_his_terminal_confirming_and_cancelling() {
    let dir = tempfile::tempdir().unwrap();
    let said = [
        ("flite:slt", "my men"),
        ("flite:rms", "any"),
        ("flite:slt", "cancel"),
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

    let mut table = Console::start(&dir.path().join("j.sqlite"), "cincinnati", &[], true);
    // Spoken too, on ALSA's null device (which does not play in real time: the terminal
    // still waits the speech's length before it listens).
    // PocketSphinx alone: the second ear, sure of rms's faint "any", would take it at once
    // (tests/tests/hear.rs, `a_faint_command_is_read_back`).
    let mut voice = vec![
        "--voice",
        "--no-moonshine",
        "--speak",
        "--speak-device",
        "null",
    ];
    for f in &wavs {
        voice.extend(["--mic-wav", f.to_str().unwrap()]);
    }
    let mut white = Terminal::start(&table.socket, "white", table.code("white"), &voice);
    white.expect("Connected to table 1");
    let mut black = Terminal::open(&table, "black");

    // "my men": the console reads him his men.
    talk(&mut white);
    let men = white.expect("Your men:");
    assert!(men.starts_with("Your men: king e1, queen d1"), "{men}");
    // A command heard faintly is read back, and dropped by "cancel": never asked.
    talk(&mut white);
    white.expect("any?");
    talk(&mut white);
    white.expect("Cancelled.");
    // A try, read back to him alone, then cancelled: the table never hears of it.
    talk(&mut white);
    white.expect("knight g1 to f3?");
    talk(&mut white);
    white.expect("Cancelled.");
    // A try confirmed.
    talk(&mut white);
    white.expect("pawn f2 to f3?");
    talk(&mut white);
    white.expect("White has moved.");
    black.expect("White has moved.");
    black.say("e7e5");
    white.expect("Black has moved.");
    talk(&mut white);
    white.expect("pawn g2 to g4?");
    talk(&mut white);
    black.expect("White has moved.");
    black.say("Qd8h4");
    let mate = white.expect("Checkmate");
    assert!(mate.contains("Black wins"), "{mate}");

    for private in ["knight g1 to f3?", "any?", "Cancelled.", "Your men:"] {
        assert!(
            !black.transcript.iter().any(|l| l.contains(private)),
            "Black heard '{private}': {:?}",
            black.transcript
        );
    }
    let status = table.child.0.wait().unwrap();
    assert!(status.success());
    let out: Vec<serde_json::Value> = table.lines.take().unwrap().iter().collect();
    let tries: Vec<&serde_json::Value> = out.iter().filter(|v| v.get("try").is_some()).collect();
    assert!(
        !tries.iter().any(|v| v["try"] == "g1f3"),
        "the cancelled try reached the table: {tries:?}"
    );
    assert!(
        !out.iter().any(|v| v.get("ask").is_some()),
        "the faint \"any\" read back and cancelled was asked: {out:?}"
    );
    let last = out.last().unwrap();
    assert_eq!(last["final_fen"], FINAL_FEN, "{out:?}");
    // White's terminal ends when the console closes the table; it could speak every line.
    assert!(white.exit().success());
    let said = white.drain(Duration::from_millis(200));
    assert!(!said.iter().any(|l| l.contains("cannot speak")), "{said:?}");
}

/// A private tmux server (its own socket name), killed when dropped.
struct Tmux {
    name: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("tmux")
            .args(["-L", &self.name])
            .args(args)
            .output()
            .expect("tmux runs (installed by the test set-up)");
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Presses keys in the pane, as tmux names them (`Enter`, `Escape`, `Space`).
    fn press(&self, key: &str) {
        self.run(&["send-keys", "-t", "player", key]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.name, "kill-server"])
            .output();
    }
}

/// Waits until `file` has a line containing `text`.
fn wait_for(file: &std::path::Path, text: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let seen = std::fs::read_to_string(file).unwrap_or_default();
        if let Some(line) = seen.lines().find(|l| l.contains(text)) {
            return line.to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never saw '{text}'; the terminal printed: {seen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// On a real terminal (a tmux pane), each read-back is answered by one key, with no Enter
/// after it: Escape cancels, Space confirms. Enter stays push-to-talk, and a line typed
/// while a read-back waits (cut by the terminal at each space) still arrives whole. The
/// terminal is put back as it was when the program ends.
#[test]
fn a_read_back_is_answered_by_one_key_on_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let said = ["golf one to foxtrot three", "foxtrot two to foxtrot three"];
    let wavs: Vec<PathBuf> = (0..said.len())
        .map(|i| dir.path().join(format!("{i:02}.wav")))
        .collect();
    for (text, out) in said.iter().zip(&wavs) {
        synthesise("flite:slt", text, out);
    }
    let mut table = Console::start(&dir.path().join("j.sqlite"), "cincinnati", &[], true);
    let transcript = dir.path().join("white.txt");
    let stty = dir.path().join("stty.txt");
    let mut command = format!(
        "{} player --table 1 --color white --code {} --socket {} --voice",
        kriegspiel_tests::link_util::cargo_bin("kriegspiel", "kriegspiel").display(),
        table.code("white"),
        table.socket.display()
    );
    for f in &wavs {
        command.push_str(&format!(" --mic-wav {}", f.display()));
    }
    // What he reads goes to a file; his keys come from the pane's terminal. After the
    // program, the terminal's settings, to show they were put back.
    let shell = format!(
        "{command} > {t} 2>&1; stty -a > {s}; sleep 30",
        t = transcript.display(),
        s = stty.display()
    );
    let tmux = Tmux {
        name: format!("kriegspiel-test-{}", std::process::id()),
    };
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "player",
        "-x",
        "120",
        "-y",
        "30",
        &shell,
    ]);
    wait_for(&transcript, "Connected to table 1");
    let mut black = Terminal::open(&table, "black");
    // His help says the keys too.
    tmux.run(&["send-keys", "-t", "player", "-l", "help"]);
    tmux.press("Enter");
    wait_for(&transcript, "Space confirms and Escape cancels");
    // After the console's commands, as he would read them: what he may say, then the keys.
    let seen = std::fs::read_to_string(&transcript).unwrap();
    let (commands, voice) = (seen.find("Commands:"), seen.find("Voice: Enter"));
    assert!(commands.is_some() && commands < voice, "{seen}");
    assert!(seen.contains("castle kingside or queenside"), "{seen}");

    tmux.press("Enter");
    wait_for(&transcript, "(listening; Enter to stop)");
    tmux.press("Enter");
    let read_back = wait_for(&transcript, "knight g1 to f3?");
    assert!(
        read_back.contains("Space confirms, Escape cancels."),
        "{read_back}"
    );
    tmux.press("Escape");
    wait_for(&transcript, "Cancelled.");

    tmux.press("Enter");
    tmux.press("Enter");
    wait_for(&transcript, "pawn f2 to f3?");
    // A question typed while the read-back waits arrives whole, spaces and all.
    tmux.run(&["send-keys", "-t", "player", "-l", "any  "]);
    tmux.press("Enter");
    tmux.press("Space");
    black.expect("White has moved.");
    wait_for(&transcript, "White has moved.");

    let out: Vec<serde_json::Value> = {
        black.say("resign");
        black.expect("Black resigns");
        table.child.0.wait().unwrap();
        table.lines.take().unwrap().iter().collect()
    };
    let tries: Vec<&serde_json::Value> = out.iter().filter(|v| v.get("try").is_some()).collect();
    assert_eq!(
        tries
            .iter()
            .map(|v| v["try"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["f2f3"],
        "only the confirmed try reached the table: {tries:?}"
    );
    assert!(
        out.iter().any(|v| v.to_string().contains("\"any\"")),
        "the question typed during the read-back reached the table: {out:?}"
    );
    // The terminal as it was: Escape and Space are no longer ends of lines.
    wait_for(&stty, "eol2");
    let settings = std::fs::read_to_string(&stty).unwrap();
    assert!(settings.contains("eol = <undef>"), "{settings}");
    assert!(settings.contains("eol2 = <undef>"), "{settings}");
}

/// Ctrl-C ends the voice terminal with his terminal put back as it was: Escape no longer
/// ends his shell's lines.
#[test]
fn ctrl_c_puts_his_terminal_back() {
    let dir = tempfile::tempdir().unwrap();
    let table = Console::start(&dir.path().join("j.sqlite"), "wild16", &[], true);
    let transcript = dir.path().join("white.txt");
    let stty = dir.path().join("stty.txt");
    let command = format!(
        "{} player --table 1 --color white --code {} --socket {} --voice --no-moonshine",
        kriegspiel_tests::link_util::cargo_bin("kriegspiel", "kriegspiel").display(),
        table.code("white"),
        table.socket.display()
    );
    let shell = format!(
        "{command} > {t} 2>&1; echo status $? >> {t}; stty -a > {s}; sleep 30",
        t = transcript.display(),
        s = stty.display()
    );
    let tmux = Tmux {
        name: format!("kriegspiel-test-c-{}", std::process::id()),
    };
    tmux.run(&["new-session", "-d", "-s", "player", &shell]);
    wait_for(&transcript, "Connected to table 1");
    tmux.press("C-c");
    let status = wait_for(&transcript, "status ");
    assert_eq!(status, "status 130");
    wait_for(&stty, "eol2");
    let settings = std::fs::read_to_string(&stty).unwrap();
    assert!(settings.contains("eol = <undef>"), "{settings}");
}
