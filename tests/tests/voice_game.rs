//! A whole game through the hall where White plays by voice and Black on a simulated reed
//! board (the real board logic behind the real link, in real time). White's utterances are
//! synthesised at test time (flite and festival voices, resampled to 16 kHz with sox),
//! recognised by the real PocketSphinx decoder through the grammar of each turn, built from
//! the position the hall publishes, and fed to a `VoiceChannel`: every try is echoed to him
//! alone and reaches the hall only on a spoken "confirm". On the way: a try cancelled before
//! "confirm" (the hall never sees it), a confirmed try the referee refuses, and a "confirm"
//! said while the console is speaking to him, which is ignored. The game ends in mate and the
//! final position is asserted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kriegspiel_hall::sim::{SimAction, SimScript};
use kriegspiel_hall::{
    start, BoardSource, HallCommand, HallEvent, Journal, TableSetup, TableSpec, TimeMode,
};
use kriegspiel_referee::shakmaty::{Chess, Color, Square};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{Input, Output};
use kriegspiel_tests::voices::synthesise;
use kriegspiel_voice::{wav, Command as Said, Heard, Model, Outcome, Recognizer, VoiceChannel};
use tokio::sync::broadcast::error::TryRecvError;

const FINAL_FEN: &str = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4";

/// Black's moves on his board, one every `BLACK_EVERY_MS` of table time: White has that long
/// to say (and the decoder to hear) each of his turns.
const BLACK_MOVES: [(&str, &str); 3] = [("e7", "e5"), ("b8", "c6"), ("g8", "f6")];
const BLACK_EVERY_MS: u64 = 9_000;

/// One thing White says, and what his voice channel must make of it.
#[derive(Debug, Clone)]
struct Line {
    voice: &'static str,
    text: &'static str,
    wav: PathBuf,
}

/// What the hall published that White may hear, and the table state.
struct Table {
    events: tokio::sync::broadcast::Receiver<HallEvent>,
    wording: Option<(kriegspiel_referee::Wording, kriegspiel_referee::Lang)>,
    position: Option<Chess>,
    to_move: Color,
    /// What White heard (public and his private words), in order.
    white_heard: Vec<String>,
    /// White's verdicts: (try, moved?).
    white_verdicts: Vec<(String, bool)>,
    /// Table time of White's last legal move.
    white_moved_at: Vec<u64>,
    ended: Option<String>,
}

impl Table {
    /// Takes every event published so far; returns the words White heard among them.
    fn pump(&mut self) -> Vec<String> {
        let mut new = Vec::new();
        loop {
            let e = match self.events.try_recv() {
                Ok(e) => e,
                Err(TryRecvError::Empty) => return new,
                Err(e) => panic!("hall events: {e}"),
            };
            match e {
                HallEvent::Opened { wording, lang, .. } => self.wording = Some((wording, lang)),
                HallEvent::View(v) => {
                    self.position = Some(v.position.clone());
                    self.to_move = v.to_move();
                }
                HallEvent::Output { output, at, .. } => {
                    let (w, lang) = self.wording.unwrap();
                    let v = render::json(&w, lang, &output);
                    if let Output::Verdict { color, tried, .. } = &output {
                        if *color == Color::White {
                            let moved = v["answer"] == "moved";
                            self.white_verdicts.push((tried.to_uci(), moved));
                            if moved {
                                self.white_moved_at.push(at);
                            }
                        }
                    }
                    let hears = matches!(
                        render::hearer(&output),
                        Some(Hearer::Both | Hearer::Player(Color::White))
                    );
                    let text = render::text(&w, lang, &output).filter(|t| hears && !t.is_empty());
                    if let Some(text) = text {
                        self.white_heard.push(text.clone());
                        new.push(text);
                    }
                }
                HallEvent::Ended { position, .. } => {
                    self.ended = Some(kriegspiel_hall::fen(&position));
                }
                HallEvent::Failed { error, .. } => panic!("table failed: {error}"),
                HallEvent::OpenFailed { error, .. } => panic!("open failed: {error}"),
                HallEvent::Link { .. } | HallEvent::Seat(_) | HallEvent::Broker(_) => {}
            }
        }
    }

    /// Pumps until `done` holds (or fails after 30 s, saying what White heard).
    fn wait(&mut self, what: &str, done: impl Fn(&Table) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            self.pump();
            if done(self) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited in vain for {what}; White heard {:?}, verdicts {:?}",
                self.white_heard,
                self.white_verdicts
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Black's reed board: his men, and each move a lift and a place at table times.
fn black_board() -> SimScript {
    let mut actions = Vec::new();
    for (i, (from, to)) in BLACK_MOVES.iter().enumerate() {
        let at = BLACK_EVERY_MS * (i as u64 + 1);
        let sq = |s: &str| u8::try_from(u32::from(s.parse::<Square>().unwrap())).unwrap();
        actions.push(SimAction {
            at,
            lift: true,
            square: sq(from),
        });
        actions.push(SimAction {
            at: at + 400,
            lift: false,
            square: sq(to),
        });
    }
    SimScript {
        initial: 0xFFFF_0000_0000_0000,
        actions,
    }
}

#[test]
fn white_plays_a_whole_game_by_voice_against_a_reed_board() {
    let dir = tempfile::tempdir().unwrap();
    // Everything White will say, synthesised first (two threads), so the turns are timed by
    // the decoder alone.
    let said = [
        ("flite:slt", "golf one to foxtrot three"),
        ("flite:rms", "cancel"),
        ("flite:slt", "echo two to echo four"),
        ("flite:rms", "confirm"),
        ("festival:kal_diphone", "echo four to echo five"),
        ("flite:awb", "confirm"),
        ("flite:slt", "bishop foxtrot one to charlie four"),
        ("flite:awb", "confirm"),
        ("flite:kal16", "queen delta one to hotel five"),
        ("festival:kal_diphone", "confirm"),
        ("flite:rms", "queen takes foxtrot seven"),
        ("flite:slt", "confirm"),
    ];
    let lines: Vec<Line> = said
        .iter()
        .enumerate()
        .map(|(i, (voice, text))| Line {
            voice,
            text,
            wav: dir.path().join(format!("{i:02}.wav")),
        })
        .collect();
    std::thread::scope(|s| {
        for half in lines.chunks(lines.len().div_ceil(2)) {
            s.spawn(move || {
                for l in half {
                    synthesise(l.voice, l.text, &l.wav);
                }
            });
        }
    });
    let mut recognizer = Recognizer::new(&Model::default()).unwrap();

    let setup = TableSetup {
        white_without_board: true,
        ..TableSetup::default()
    };
    let spec = TableSpec {
        name: "voice".into(),
        setup,
        white: BoardSource::Absent,
        black: BoardSource::Simulated {
            script: Arc::new(black_board()),
            board_id: 2,
        },
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::New,
    };
    let running = start(
        Journal::open(&dir.path().join("j.sqlite")).unwrap(),
        vec![spec],
        TimeMode::Real,
        Vec::new(),
    )
    .unwrap();
    let hall = running.handle.clone();
    let mut table = Table {
        events: running.events,
        wording: None,
        position: None,
        to_move: Color::White,
        white_heard: Vec::new(),
        white_verdicts: Vec::new(),
        white_moved_at: Vec::new(),
        ended: None,
    };
    table.wait("the table to open", |t| t.position.is_some());
    let t0 = Instant::now();
    let now = || u64::try_from(t0.elapsed().as_millis()).unwrap();
    let mut channel = VoiceChannel::new(Color::White);
    let mut lines = lines.into_iter();

    // Says the next line; returns what his channel did with it.
    let mut say = |recognizer: &mut Recognizer, channel: &mut VoiceChannel, table: &Table| {
        let line = lines.next().unwrap();
        let pos: Chess = table.position.clone().unwrap();
        // The grammar of this turn, from the position the hall published.
        recognizer.set_turn(&pos, Color::White).unwrap();
        let samples = wav::read_wav(&line.wav).unwrap();
        let rec = recognizer.hear(&samples).unwrap();
        let grammar = recognizer.grammar().unwrap().clone();
        let outcome = channel.heard(now(), &grammar, rec.heard);
        if let Outcome::Submit(input) = &outcome {
            hall.input(1, input.clone()).unwrap();
        }
        (line.text, rec.heard, outcome)
    };

    // Move 1: Nf3 said, echoed, cancelled; e4 said, echoed, confirmed.
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("knight g1 to f3?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(out, Outcome::Cancelled, "{text}: {heard:?}");
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("pawn e2 to e4?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert!(
        matches!(out, Outcome::Submit(Input::Play { tried, .. }) if tried.to_uci() == "e2e4"),
        "{text}: {heard:?} -> {out:?}"
    );
    table.wait("1. e4", |t| t.white_moved_at.len() == 1);
    table.wait("1... e5 on Black's board", |t| t.to_move == Color::White);

    // Move 2: e4-e5 is possible on his own board but Black's pawn stands there: refused.
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("pawn e4 to e5?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert!(
        matches!(out, Outcome::Submit(_)),
        "{text}: {heard:?} -> {out:?}"
    );
    table.wait("the referee's answer to e4-e5", |t| {
        t.white_verdicts.len() == 2
    });
    assert_eq!(table.white_verdicts[1], ("e4e5".to_owned(), false));
    let refusal = table.white_heard.last().unwrap().clone();
    assert_eq!(refusal, "No.", "{:?}", table.white_heard);
    // The console now says "No." to him: while it speaks, he is not listened to. The length
    // of that speech is the synthesiser's.
    let speech = dir.path().join("no.wav");
    synthesise("espeak:en-us", &refusal, &speech);
    let speaking_ms = wav::read_wav(&speech).unwrap().len() as u64 / 16;
    assert!(speaking_ms > 200, "{speaking_ms} ms");
    let heard_at = now();
    channel.muted(heard_at + speaking_ms);
    let g = recognizer.grammar().unwrap().clone();
    assert_eq!(
        channel.heard(heard_at + 1, &g, Heard::Command(Said::Confirm)),
        Outcome::Ignored
    );
    // He speaks again once the console has stopped.
    std::thread::sleep(Duration::from_millis(
        (heard_at + speaking_ms).saturating_sub(now()),
    ));
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("bishop f1 to c4?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert!(
        matches!(out, Outcome::Submit(_)),
        "{text}: {heard:?} -> {out:?}"
    );
    table.wait("2. Bc4", |t| t.white_moved_at.len() == 2);
    table.wait("2... Nc6 on Black's board", |t| t.to_move == Color::White);

    // Move 3: Qh5.
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("queen d1 to h5?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert!(
        matches!(out, Outcome::Submit(_)),
        "{text}: {heard:?} -> {out:?}"
    );
    table.wait("3. Qh5", |t| t.white_moved_at.len() == 3);
    table.wait("3... Nf6 on Black's board", |t| t.to_move == Color::White);

    // Move 4: "queen takes foxtrot seven", the one queen try to f7: mate.
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert_eq!(
        out,
        Outcome::Echo("queen h5 to f7?".into()),
        "{text}: {heard:?}"
    );
    let (text, heard, out) = say(&mut recognizer, &mut channel, &table);
    assert!(
        matches!(out, Outcome::Submit(_)),
        "{text}: {heard:?} -> {out:?}"
    );
    table.wait("the end of the game", |t| t.ended.is_some());

    assert_eq!(table.ended.as_deref(), Some(FINAL_FEN));
    assert_eq!(
        table.white_verdicts,
        [
            ("e2e4".to_owned(), true),
            ("e4e5".to_owned(), false),
            ("f1c4".to_owned(), true),
            ("d1h5".to_owned(), true),
            ("h5f7".to_owned(), true),
        ],
        "the cancelled g1-f3 never reached the hall"
    );
    // Each of White's moves came before Black's board moved again (the test's timing held).
    for (i, at) in table.white_moved_at.iter().enumerate() {
        assert!(
            *at < BLACK_EVERY_MS * (i as u64 + 1),
            "White's move {} came at {at} ms: decoding was too slow for the board's script",
            i + 1
        );
    }
    assert!(
        table.white_heard.iter().any(|l| l.contains("Checkmate")),
        "{:?}",
        table.white_heard
    );
    hall.send(HallCommand::Shutdown).unwrap();
    running.thread.join().unwrap();
}
