//! `kriegspiel player --voice` end to end: a running `kriegspiel table` with no boards, White
//! on the voice terminal (push-to-talk by Enter; each push hears the next `--mic-wav` file,
//! speech synthesised now with flite and festival; `--speak` on ALSA's null device), Black
//! typing on the plain terminal. White
//! asks for his men, says a try and cancels it, says another and confirms it; only the
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
    let mut voice = vec!["--voice", "--speak", "--speak-device", "null"];
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

    for private in ["knight g1 to f3?", "Cancelled.", "Your men:"] {
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
    let last = out.last().unwrap();
    assert_eq!(last["final_fen"], FINAL_FEN, "{out:?}");
    // White's terminal ends when the console closes the table; it could speak every line.
    assert!(white.exit().success());
    let said = white.drain(Duration::from_millis(200));
    assert!(!said.iter().any(|l| l.contains("cannot speak")), "{said:?}");
}
