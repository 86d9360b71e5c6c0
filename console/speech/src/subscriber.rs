//! A hall subscriber that speaks one table: every output routed by [`crate::hear`] to the
//! outputs that may hear it.

use std::time::Duration;

use kriegspiel_hall::{HallEvent, Subscriber, TableNo};
use kriegspiel_referee::shakmaty::Color;
use tokio::sync::broadcast;

use crate::route::{hear, Positions, Utterance};
use crate::setup::{PublicTo, Speakers};
use kriegspiel_referee::shakmaty::Position;
use kriegspiel_table::render::Hearer;

/// Sends one utterance to the outputs that may hear it. Private words go to their
/// player's headset or nowhere; never to the room or the other player.
pub fn deliver(speakers: &mut Speakers, u: &Utterance) {
    match u.hearer {
        Hearer::Both => {
            if speakers.public_to != PublicTo::Headsets {
                if let Some(room) = &mut speakers.room {
                    room.say(&u.text);
                }
            }
            if speakers.public_to != PublicTo::Room {
                for c in [Color::White, Color::Black] {
                    if let Some(s) = speakers.player(c) {
                        s.say(&u.text);
                    }
                }
            }
        }
        Hearer::Player(c) => {
            if let Some(s) = speakers.player(c) {
                s.say(&u.text);
            }
        }
    }
}

/// Speaks one table, as a hall subscriber: from the table's first event, on a thread of its
/// own, so that speech never holds the table back. Ends when the hall stops or the game
/// ends; then waits at most `finish` for the last words.
#[derive(Debug)]
pub struct Speaking {
    pub table: TableNo,
    pub speakers: Speakers,
    pub finish: Duration,
}

impl Subscriber for Speaking {
    fn name(&self) -> String {
        format!("speech {}", self.table)
    }

    fn follow(self: Box<Self>, events: broadcast::Receiver<HallEvent>) {
        let Speaking {
            table,
            speakers,
            finish,
        } = *self;
        speak(events, table, speakers, finish);
    }
}

/// Speaks table `table` from `events` on a thread of its own (a [`Speaking`] for a
/// subscription taken by hand).
pub fn spawn(
    events: broadcast::Receiver<HallEvent>,
    table: TableNo,
    speakers: Speakers,
    finish: Duration,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || speak(events, table, speakers, finish))
}

fn speak(
    mut events: broadcast::Receiver<HallEvent>,
    table: TableNo,
    mut speakers: Speakers,
    finish: Duration,
) {
    let mut wording = None;
    let mut known = Positions::default();
    loop {
        match events.blocking_recv() {
            Ok(HallEvent::Opened {
                table: t,
                wording: w,
                lang,
                ..
            }) if t == table => wording = Some((w, lang)),
            Ok(HallEvent::View(v)) if v.table == table => known.record(v.position.board()),
            Ok(HallEvent::Output {
                table: t, output, ..
            }) if t == table => {
                if let Some((w, lang)) = wording {
                    if let Some(u) = hear(&w, lang, &output, &known) {
                        deliver(&mut speakers, &u);
                    }
                }
            }
            Ok(HallEvent::Ended { table: t, .. }) if t == table => break,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(n)) => {
                eprintln!("kriegspiel: the speaker fell {n} events behind; they were not spoken");
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
    // One deadline for all the table's outputs: each drains on its own thread at once,
    // so a hung one (a stopped speech-dispatcher) costs the others nothing.
    let deadline = std::time::Instant::now() + finish;
    let mut outputs: Vec<_> = [
        speakers.room.as_mut(),
        speakers.white.as_mut(),
        speakers.black.as_mut(),
    ]
    .into_iter()
    .flatten()
    .collect();
    for s in &mut outputs {
        s.close();
    }
    // The headsets first: the room's speech-dispatcher is the one that may never answer.
    for s in outputs.iter_mut().rev() {
        s.finish(deadline.saturating_duration_since(std::time::Instant::now()));
    }
}
