//! Shared by the speech tests: a game with private messages of both players played through
//! the hall, measurements of recordings with espeak-ng and sox (`audio.rs`), and a private
//! speech-dispatcher (`dispatcher.rs`). The latency bench uses it too.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use kriegspiel_hall::{BoardSource, HallEvent, Journal, TableSetup, TableSpec, TimeMode};
use kriegspiel_referee::shakmaty::Position;
use kriegspiel_speech::{hear, Hearer, Positions, Speakers};
use kriegspiel_table::event_text::parse_event;

mod audio;
pub mod dispatcher;
#[allow(unused_imports)] // not every test binary measures audio
pub use audio::{
    alsa_home, asoundrc, espeak, espeak_samples, espeak_total, logged, measure, rms, samples,
};
#[allow(unused_imports)] // not every test binary starts one
pub use dispatcher::Dispatcher;

/// Wild 16 with strict touch-move: both players touch one man and try another (reminders,
/// then guidance), each makes a refused try (heard by him alone), White chooses a
/// promotion piece, Black asks out of turn, Black resigns.
pub const SCENARIO: &str = include_str!("../scenario.txt");

/// What the test expects each output to hear, in order.
#[derive(Debug, Default, Clone)]
pub struct Expected {
    pub public: Vec<String>,
    pub white: Vec<String>,
    pub black: Vec<String>,
}

impl Expected {
    /// What the output of this speech-log label hears: `public`, `white` or `black`.
    pub fn of(&self, label: &str) -> &[String] {
        match label {
            "public" => &self.public,
            "white" => &self.white,
            _ => &self.black,
        }
    }
}

/// Plays the scenario through the hall (simulated time, boards absent, their lifts and
/// places as scripted inputs), with `speakers` fed by the speech subscriber; returns what
/// each output must have been sent, from the test's own routing of the same events.
pub fn play(journal: &Path, speakers: Speakers, lang: &str) -> Expected {
    let scripted = SCENARIO
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let e = parse_event(l).unwrap();
            (e.at, e.input)
        })
        .collect();
    let setup = TableSetup {
        rules: "wild16".into(),
        lang: lang.into(),
        touch_move: "strict".into(),
        ..TableSetup::default()
    };
    let spec = TableSpec {
        name: "speech".into(),
        setup,
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted,
        resume: kriegspiel_hall::Resume::New,
    };
    // The speaker follows the hall from its first event, as the programs' speakers do.
    let speaking = kriegspiel_speech::subscriber::Speaking {
        table: 1,
        speakers,
        finish: Duration::from_secs(60),
    };
    let mut hall = kriegspiel_hall::start(
        Journal::open(journal).unwrap(),
        vec![spec],
        TimeMode::Simulated,
        vec![Box::new(speaking)],
    )
    .unwrap();
    let events = &mut hall.events;
    let mut expected = Expected::default();
    let mut wording = None;
    let mut known = Positions::default();
    loop {
        let e = events.blocking_recv().unwrap();
        match e {
            HallEvent::Opened {
                wording: w, lang, ..
            } => wording = Some((w, lang)),
            HallEvent::View(v) => known.record(v.position.board()),
            HallEvent::Output { output, .. } => {
                let (w, lang) = wording.unwrap();
                if let Some(u) = hear(&w, lang, &output, &known) {
                    match u.hearer {
                        Hearer::Both => expected.public.push(u.text),
                        Hearer::Player(c) if c.is_white() => expected.white.push(u.text),
                        Hearer::Player(_) => expected.black.push(u.text),
                    }
                }
            }
            HallEvent::Ended { .. } => break,
            _ => {}
        }
    }
    let _ = hall.handle.send(kriegspiel_hall::HallCommand::Shutdown);
    hall.join();
    expected
}
