//! Prints what the recogniser makes of WAV files in the initial position (for tuning):
//! `cargo run -p kriegspiel-voice --example scores -- FILE...`
#![allow(clippy::unwrap_used)]
use kriegspiel_voice::{wav, Model, Recognizer};
use shakmaty::{Chess, Color};

fn main() {
    let mut r = Recognizer::new(&Model::default()).unwrap();
    r.set_turn(&Chess::default(), Color::White).unwrap();
    for f in std::env::args().skip(1) {
        let s = wav::read_wav(std::path::Path::new(&f)).unwrap();
        let rec = r.hear(&s).unwrap();
        let reply = r.hear_reply(&s).unwrap();
        println!(
            "{f} in a read-back: {:?} answer ratio {:?}",
            reply.heard, reply.answer_ratio
        );
        println!(
            "{f}: {:?} '{}' ratio {} span {} answer {:?} frames {} {:?}",
            rec.heard, rec.words, rec.ratio, rec.span_ratio, rec.answer_ratio, rec.frames, rec.took
        );
    }
}
