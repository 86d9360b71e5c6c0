//! Every player hears his own words and nobody else's: three ALSA `type file` PCMs (the
//! room, White's headset, Black's headset) from a test configuration; after a Wild 16 game
//! with touch-move reminders, guidance, refusals heard by the mover alone, a promotion
//! choice and a question out of turn, each file holds exactly what was sent to it
//! (sample for sample up to aplay's last period, measured against espeak-ng and non-silent per sox), and the speech
//! log shows no private word reached the room or the other player.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use kriegspiel_referee::Lang;
use kriegspiel_speech::setup::build;
use kriegspiel_speech::speaker::espeak_voice;
use kriegspiel_speech::AudioOptions;

/// The most silence aplay adds when it ends (one ALSA period at 22050 Hz).
const PADDING: u64 = 11025;

#[test]
fn each_output_hears_exactly_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let home = common::alsa_home(dir.path(), &["room", "white", "black"]);
    // aplay, a child of this test, reads $HOME/.asoundrc. Only this test runs in this binary.
    std::env::set_var("HOME", &home);
    let log = dir.path().join("sent.tsv");
    for (lang, code) in [(Lang::En, "en"), (Lang::Ru, "ru")] {
        let _ = std::fs::remove_file(&log);
        let options = AudioOptions {
            public_device: Some("room".into()),
            white_device: Some("white".into()),
            black_device: Some("black".into()),
            log: Some(log.clone()),
            ..AudioOptions::default()
        };
        let speakers = build("test", lang, &options).unwrap();
        let expected = common::play(&dir.path().join(format!("j-{code}.sqlite")), speakers, code);
        assert!(
            expected.white.len() >= 8 && expected.black.len() >= 8,
            "{expected:?}"
        );
        let sent = |label| common::logged(&log, label);
        assert_eq!(sent("public"), expected.public, "{code}: room");
        assert_eq!(sent("white"), expected.white, "{code}: white");
        assert_eq!(sent("black"), expected.black, "{code}: black");
        // No private word anywhere else: the refusals and reminders are not in the room's
        // list, and each player's list holds no public announcement.
        for private in expected.white.iter().chain(&expected.black) {
            assert!(
                !expected.public.contains(private),
                "{code}: '{private}' in public"
            );
        }
        for (name, texts) in [
            ("room", &expected.public),
            ("white", &expected.white),
            ("black", &expected.black),
        ] {
            let wav = dir.path().join(format!("{name}.wav"));
            let (samples, rms) = common::measure(&wav);
            let want = common::espeak_total(espeak_voice(lang), texts);
            // aplay pads its last period with silence when its input closes.
            assert!(
                (want..=want + PADDING).contains(&samples),
                "{code}: {name}.wav holds {samples} samples, not the {want} of its {} utterances",
                texts.len()
            );
            assert!(rms > 0.01, "{code}: {name}.wav is silent (RMS {rms})");
        }
        // White's headset would hold Black's words if any crossed over: their lengths differ.
        let white_samples = common::espeak_total(espeak_voice(lang), &expected.white);
        let black_samples = common::espeak_total(espeak_voice(lang), &expected.black);
        assert!(white_samples.abs_diff(black_samples) > PADDING);
    }
}
