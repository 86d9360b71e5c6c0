//! The speaker subscribers: each speaking table's speakers, fed from a hall subscription
//! of their own (kriegspiel-speech), and what building them takes.

use std::time::Duration;

use kriegspiel_hall::{Subscriber, TableNo};
use kriegspiel_referee::Lang;
use kriegspiel_speech::subscriber::Speaking;
use kriegspiel_speech::{setup, AudioOptions, Speakers};

/// The speakers the options ask for (none: silent).
pub fn speaker(
    program: &str,
    lang: Lang,
    options: &AudioOptions,
) -> Result<Option<Speakers>, String> {
    let speakers = setup::build(program, lang, options).map_err(|e| e.to_string())?;
    Ok((!speakers.is_silent()).then_some(speakers))
}

/// Speaks one table as a subscriber of the hall (kriegspiel-speech: public words to the
/// room, private words to their player's headset only), so that speech never holds the
/// table back. Ends when the hall stops or the game ends; then waits at most `finish` for
/// the last words.
pub fn speaking(table: TableNo, speakers: Speakers, finish: Duration) -> Box<dyn Subscriber> {
    Box::new(Speaking {
        table,
        speakers,
        finish,
    })
}

/// speech-dispatcher asked once for a whole hall, on a thread of its own while the devices
/// are checked and the journal opens ([`setup::probe`]).
#[derive(Debug)]
pub struct Probing(std::thread::JoinHandle<setup::Probe>);

impl Probing {
    /// Starts the probe (`wants_dispatcher`: whether any table would use speech-dispatcher).
    pub fn start(wants_dispatcher: bool) -> Probing {
        Probing(std::thread::spawn(move || setup::probe(wants_dispatcher)))
    }

    /// Its answer, once it has one.
    pub fn answer(self) -> setup::Probe {
        self.0.join().unwrap_or_else(|_| setup::Probe {
            dispatcher: Some(Err("the probe failed".to_owned())),
            no_audio: None,
        })
    }
}
