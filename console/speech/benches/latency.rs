//! Verdict to first audio, the figures of docs/PERFORMANCE.md's speech section:
//! `cargo bench -p kriegspiel-speech --bench latency`.
//!
//! 1. A verdict published as the hall publishes it reaches the speech subscriber, is routed
//!    and handed to an idle device speaker (espeak-ng -> aplay -D, an ALSA file PCM).
//! 2. `say` on an idle speech-dispatcher speaker (a private, headless one whose ALSA default
//!    is a file) to the first audio in its recording.
//!
//! A measurement, not a test: the goal (150 ms) is compared here and in the docs, never
//! asserted, so a loaded machine cannot fail a build.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use kriegspiel_hall::HallEvent;
use kriegspiel_referee::shakmaty::{Color, Square};
use kriegspiel_referee::{
    Checks, Lang, Options, PawnTries, Report, RuleSet, Try, Verdict, Wording,
};
use kriegspiel_speech::dispatcher::TtsSpeaker;
use kriegspiel_speech::speaker::{CommandSpeaker, Sink, Speaker, VoiceSettings};
use kriegspiel_speech::Speakers;
use kriegspiel_table::Output;

const GOAL: Duration = Duration::from_millis(150);

fn main() {
    let device = verdict_to_first_audio();
    report(
        "verdict -> first audio (espeak-ng -> aplay -D, idle speaker)",
        device,
        20,
    );
    let dispatcher = say_to_first_audio();
    report(
        "speech-dispatcher: say -> first audio in its recording (idle)",
        dispatcher,
        10,
    );
}

/// Prints min, median, p95 and max of `latencies` against the goal.
fn report(what: &str, mut latencies: Vec<Duration>, tried: usize) {
    if latencies.is_empty() {
        println!("{what}: no measurement (the speaker was never idle; is the machine loaded?)");
        return;
    }
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let max = latencies[latencies.len() - 1];
    println!(
        "{what}: min {:.1} ms, median {:.1} ms, p95 {:.1} ms, max {:.1} ms over {} of {tried} ({})",
        ms(latencies[0]),
        ms(latencies[latencies.len() / 2]),
        ms(latencies[latencies.len() * 95 / 100]),
        ms(max),
        latencies.len(),
        if max < GOAL {
            "all under the 150 ms goal"
        } else {
            "OVER the 150 ms goal"
        }
    );
}

/// Twenty verdicts 400 ms apart through the speech subscriber to a device speaker; the
/// latency of each that found the speaker idle.
fn verdict_to_first_audio() -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let home = common::alsa_home(dir.path(), &["room"]);
    std::env::set_var("HOME", &home);
    let room = CommandSpeaker::device(
        Lang::En,
        Sink::Alsa("room".into()),
        VoiceSettings::default(),
        None,
    )
    .unwrap();
    let first_audio = room.latencies();
    let speakers = Speakers {
        room: Some(Box::new(room)),
        ..Speakers::default()
    };
    let (events, subscription) = tokio::sync::broadcast::channel(64);
    let voice =
        kriegspiel_speech::subscriber::spawn(subscription, 1, speakers, Duration::from_secs(20));
    let wording = Wording::new(RuleSet::Cincinnati, Options::default(), Lang::En);
    events
        .send(HallEvent::Opened {
            table: 1,
            name: "latency".into(),
            game: 1,
            resumed_events: 0,
            wording,
            lang: Lang::En,
            seats: Default::default(),
            heard: Default::default(),
            ignored: Vec::new(),
            set_aside: None,
            follows: None,
        })
        .unwrap();
    let mut sent = Vec::new();
    for i in 0..20u64 {
        // Idle: the previous announcement has long been synthesised.
        std::thread::sleep(Duration::from_millis(400));
        let mover = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let report = Report {
            rules: RuleSet::Cincinnati,
            mover: Some(mover),
            played: Some(Try::new(Square::E2, Square::E4)),
            to_move: !mover,
            capture: None,
            checks: Checks::default(),
            pawn_tries: PawnTries::Exists(i % 3 == 0),
            promotion: None,
            end: None,
        };
        sent.push(Instant::now());
        events
            .send(HallEvent::Output {
                table: 1,
                at: i * 1000,
                output: Output::Verdict {
                    color: mover,
                    tried: Try::new(Square::E2, Square::E4),
                    verdict: Verdict::Moved(report),
                },
            })
            .unwrap();
    }
    std::thread::sleep(Duration::from_millis(400));
    events
        .send(HallEvent::Ended {
            table: 1,
            result: None,
            position: Box::default(),
        })
        .unwrap();
    voice.join().unwrap();
    let audio = first_audio.lock().unwrap().clone();
    // Each utterance measured from the verdict it speaks: the last one sent before its `say`.
    audio
        .iter()
        .filter_map(|(said, first)| {
            let verdict = sent.iter().rev().find(|v| **v <= *said)?;
            Some(first.duration_since(*verdict))
        })
        .collect()
}

/// Ten `say`s on an idle speech-dispatcher speaker, each to the recording's first growth.
fn say_to_first_audio() -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let speechd = common::Dispatcher::start(&dir.path().join("speechd"));
    std::env::set_var("SPEECHD_ADDRESS", &speechd.address);
    let mut room = TtsSpeaker::start(Lang::En, VoiceSettings::default(), None).unwrap();
    let mut latencies = Vec::new();
    for _ in 0..10 {
        speechd.wait_quiet(Duration::from_millis(700), Duration::from_secs(20));
        let before = speechd.size();
        let t = Instant::now();
        room.say("Black's move. Pawn tries on ee 4, dee 5.");
        while speechd.size() == before && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_micros(500));
        }
        if speechd.size() != before {
            latencies.push(t.elapsed());
        }
    }
    room.finish(Duration::from_millis(100));
    latencies
}
