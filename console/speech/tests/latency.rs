//! Verdict to first audio: a verdict published as the hall publishes it reaches the speech
//! subscriber, is routed and handed to an idle device speaker, and the first synthesised
//! audio goes to the device (an ALSA file PCM) within 150 ms. Prints the figures of
//! docs/PERFORMANCE.md's speech section.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use kriegspiel_hall::HallEvent;
use kriegspiel_referee::shakmaty::{Color, Square};
use kriegspiel_referee::{
    Checks, Lang, Options, PawnTries, Report, RuleSet, Try, Verdict, Wording,
};
use kriegspiel_speech::speaker::{CommandSpeaker, Sink, VoiceSettings};
use kriegspiel_speech::Speakers;
use kriegspiel_table::Output;

#[test]
fn verdict_to_first_audio_within_150_ms() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".asoundrc"),
        common::asoundrc(dir.path(), &["room"]),
    )
    .unwrap();
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
            fen: String::new(),
        })
        .unwrap();
    voice.join().unwrap();
    let audio = first_audio.lock().unwrap().clone();
    assert_eq!(
        audio.len(),
        sent.len(),
        "every verdict found the speaker idle"
    );
    let mut latencies: Vec<Duration> = sent
        .iter()
        .zip(&audio)
        .map(|(verdict, (_, first))| first.duration_since(*verdict))
        .collect();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "verdict -> first audio (espeak-ng -> aplay -D, idle): min {:.1} ms, median {:.1} ms, p95 {:.1} ms, max {:.1} ms over {}",
        ms(latencies[0]),
        ms(latencies[latencies.len() / 2]),
        ms(latencies[latencies.len() * 95 / 100]),
        ms(latencies[latencies.len() - 1]),
        latencies.len()
    );
    assert!(
        latencies[latencies.len() - 1] < Duration::from_millis(150),
        "{latencies:?}"
    );
}
