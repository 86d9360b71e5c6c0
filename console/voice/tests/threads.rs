//! Recognisers on several threads at once, created and dropped while others decode, as two
//! voice players and `kriegspiel hear` do in one process. PocketSphinx keeps its log stream
//! in one process-wide variable; a decoder that redirected it on creation closed the stream
//! another thread was writing to, and the heap was corrupted (seen as an abort at thread
//! exit). The recognisers must share nothing that one of them can free.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_voice::{Model, Recognizer};
use shakmaty::{Chess, Color};

/// Half a second of a deterministic hiss: enough frames for every search to run and log.
fn hiss() -> Vec<i16> {
    let mut x: u32 = 12345;
    (0..8000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((x >> 16) as i16) / 8
        })
        .collect()
}

#[test]
fn recognisers_on_many_threads_share_nothing_they_free() {
    // The pronunciation dictionary is a temporary file only while a decoder is made: a
    // process killed later leaves nothing behind. (The only test of this binary, so no
    // other thread reads TMPDIR meanwhile.)
    let tmp = tempfile::tempdir().unwrap();
    std::env::set_var("TMPDIR", tmp.path());
    let r = Recognizer::new(&Model::default()).unwrap();
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    drop(r);
    let samples = hiss();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..6 {
                    let mut r = Recognizer::new(&Model::default()).unwrap();
                    r.set_turn(&Chess::default(), Color::White).unwrap();
                    for _ in 0..3 {
                        let rec = r.hear(&samples).unwrap();
                        assert!(rec.frames > 0);
                    }
                }
            });
        }
    });
}
