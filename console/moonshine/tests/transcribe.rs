//! What the model writes itself ([`Moonshine::transcribe`]): one word, complete, with the
//! probability of writing it; a sentence cut where its second word would begin. Needs the
//! model (`bash console/voice/fetch-moonshine.sh`) and flite.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use kriegspiel_moonshine::Moonshine;

/// flite's `slt` saying `text`: 16 kHz mono 16-bit, after flite's canonical 44-byte header.
fn say(text: &str) -> Vec<i16> {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("u.wav");
    let ok = Command::new("flite")
        .args(["-voice", "slt", "-t", text, "-o"])
        .arg(&wav)
        .status()
        .expect("flite is installed by tests/system-packages.sh")
        .success();
    assert!(ok);
    let bytes = std::fs::read(&wav).unwrap();
    assert_eq!(&bytes[36..40], b"data", "flite's header");
    assert_eq!(
        u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]),
        16_000
    );
    bytes[44..]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

#[test]
fn a_word_is_written_whole_and_a_sentence_is_cut_after_its_first() {
    let mut model = Moonshine::open(&Moonshine::default_dir(), 1).unwrap_or_else(|e| panic!("{e}"));
    let word = model.encode(&say("conference")).unwrap();
    let written = model.transcribe(&word, 1).unwrap();
    println!("{written:?}");
    assert!(written.complete, "{written:?}");
    assert!(
        written.text.to_lowercase().starts_with("conference"),
        "{written:?}"
    );
    assert!(
        written.log_prob < 0.0 && written.log_prob > -3.0,
        "{written:?}"
    );
    // Written out, the word scores at least as well as "Confirm." does.
    let scored = model.score(&word, &["Confirm."]).unwrap();
    assert!(scored[0].log_prob < written.log_prob - 3.0, "{scored:?}");

    let sentence = model.encode(&say("where is the bathroom")).unwrap();
    let first = model.transcribe(&sentence, 1).unwrap();
    println!("{first:?}");
    assert!(!first.complete, "{first:?}");
    assert!(first.text.to_lowercase().starts_with("where"), "{first:?}");
    let whole = model.transcribe(&sentence, 6).unwrap();
    assert!(whole.complete, "{whole:?}");
    assert!(whole.text.to_lowercase().contains("bathroom"), "{whole:?}");
}
