//! The model prepared for speed (src/prepare.rs) scores as the files as shipped do, is made
//! once, and a damaged prepared file is never a failure: the shipped files are heard instead
//! and it is made again. Needs the model (`bash console/voice/fetch-moonshine.sh`, which the
//! README's test command runs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use kriegspiel_moonshine::{Moonshine, DECODER, ENCODER, RUNTIME, TOKENIZER};

/// A folder of links to the installed model's files: what is prepared lands here.
fn model_copy() -> tempfile::TempDir {
    let installed = Moonshine::default_dir();
    let dir = tempfile::tempdir().unwrap();
    for name in [ENCODER, DECODER, TOKENIZER, RUNTIME] {
        let from = installed.join(name);
        assert!(
            from.is_file(),
            "{} is missing: bash console/voice/fetch-moonshine.sh installs the model",
            from.display()
        );
        std::os::unix::fs::symlink(&from, dir.path().join(name)).unwrap();
    }
    dir
}

fn prepared(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.is_symlink())
        .collect();
    files.sort();
    files
}

/// Half a second of two tones and a little noise: the scores' equality, not their meaning,
/// is what is tested.
fn utterance() -> Vec<i16> {
    let mut seed = 7u32;
    (0..24_000)
        .map(|i| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let t = i as f32 / 16_000.0;
            let noise = f32::from((seed >> 16) as u16 as i16) / 32768.0;
            ((t * 440.0 * std::f32::consts::TAU).sin() * 2000.0
                + (t * 1210.0 * std::f32::consts::TAU).sin() * 1200.0
                + noise * 300.0) as i16
        })
        .collect()
}

const PHRASES: [&str; 6] = [
    "Confirm.",
    "Cancel",
    "Yes!",
    "Pawn e four to d five.",
    "Knight golf one to foxtrot three.",
    "Where is the bathroom?",
];

fn scores(model: &mut Moonshine) -> Vec<(f32, f32)> {
    let heard = model.encode(&utterance()).unwrap();
    model
        .score(&heard, &PHRASES)
        .unwrap()
        .iter()
        .map(|s| (s.log_prob, s.doubt))
        .collect()
}

fn assert_same(a: &[(f32, f32)], b: &[(f32, f32)]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x.0 - y.0).abs() < 1e-3 && (x.1 - y.1).abs() < 1e-3,
            "{a:?} against {b:?}"
        );
    }
}

#[test]
fn the_prepared_model_scores_as_shipped_is_made_once_and_a_damaged_one_is_made_again() {
    let dir = model_copy();
    let shipped = scores(&mut Moonshine::open_as_shipped(dir.path(), 1).unwrap());
    assert!(
        prepared(dir.path()).is_empty(),
        "as shipped: nothing prepared"
    );

    let first = scores(&mut Moonshine::open(dir.path(), 1).unwrap());
    assert_same(&shipped, &first);
    let files = prepared(dir.path());
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        2,
        "one prepared file per model file, no scratch left: {names:?}"
    );
    assert!(
        names.iter().all(|n| n.ends_with(".prepared.onnx")),
        "{names:?}"
    );
    assert!(
        names[0].starts_with("decoder_model_merged.") && names[1].starts_with("encoder_model.")
    );

    // Opened again: the same files, not made anew.
    let made: Vec<_> = files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .collect();
    let again = scores(&mut Moonshine::open(dir.path(), 1).unwrap());
    assert_same(&shipped, &again);
    let now: Vec<_> = files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .collect();
    assert_eq!(made, now);

    // A prepared file cut short (a disk that filled): heard as shipped, the file dropped...
    let decoder = &files[0];
    let bytes = std::fs::read(decoder).unwrap();
    std::fs::write(decoder, &bytes[..4096]).unwrap();
    let damaged = scores(&mut Moonshine::open(dir.path(), 1).unwrap());
    assert_same(&shipped, &damaged);
    assert!(!decoder.exists(), "the damaged file is dropped");
    // ...and made again, whole, at the next start.
    let remade = scores(&mut Moonshine::open(dir.path(), 1).unwrap());
    assert_same(&shipped, &remade);
    assert_eq!(
        std::fs::metadata(decoder).unwrap().len(),
        bytes.len() as u64
    );
}
