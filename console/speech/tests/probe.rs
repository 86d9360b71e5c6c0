//! speech-dispatcher is probed once for all the tables that start together, and a table's
//! named devices are checked whether or not it speaks. Real components: the `tts` crate's
//! connection to a speech-dispatcher address where nothing listens, espeak-ng speakers,
//! aplay opening an ALSA PCM of a test `.asoundrc`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::cell::Cell;
use std::time::{Duration, Instant};

use kriegspiel_referee::Lang;
use kriegspiel_speech::setup::{self, build_all, check_devices, Probe, Room};
use kriegspiel_speech::{AudioKey, AudioOptions};

/// One test function, so that the environment it sets is read by no other thread.
#[test]
fn one_probe_for_every_table_and_devices_checked_when_silent() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens here: speech-dispatcher is absent (and the client does not start one
    // for an address that is not its configured one).
    std::env::set_var(
        "SPEECHD_ADDRESS",
        format!("unix_socket:{}", dir.path().join("absent.sock").display()),
    );
    std::env::set_var("HOME", dir.path());
    std::fs::write(
        dir.path().join(".asoundrc"),
        common::asoundrc(dir.path(), &["headset"]),
    )
    .unwrap();

    // The probe itself: speech-dispatcher does not answer, and says why.
    let probe = setup::probe(true);
    match &probe.dispatcher {
        Some(Err(why)) => assert!(why.contains("speech-dispatcher"), "{why}"),
        other => panic!("speech-dispatcher answered at an absent address: {other:?}"),
    }
    assert_eq!(setup::probe(false).dispatcher, None);

    // Four tables, each of whose rooms would speak through speech-dispatcher: one probe.
    let langs = [Lang::En, Lang::Fr, Lang::Ru, Lang::En];
    let tables: Vec<_> = langs
        .iter()
        .enumerate()
        .map(|(i, lang)| {
            let options = AudioOptions::default();
            assert!(options.wants_dispatcher());
            (i + 1, *lang, check_devices(&options).unwrap())
        })
        .collect();
    let calls = Cell::new(0);
    let start = Instant::now();
    let built = build_all(&tables, || {
        calls.set(calls.get() + 1);
        setup::probe(true)
    })
    .unwrap();
    assert_eq!(
        calls.get(),
        1,
        "speech-dispatcher was probed more than once"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // Every table speaks through the espeak-ng program, and the line says so once.
    let (speakers, line) = (built.speakers, built.summary);
    assert_eq!(
        speakers.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert!(speakers.iter().all(|(_, s)| s.room.is_some()));
    let line = line.unwrap();
    assert_eq!(
        line.matches("speech-dispatcher not answering").count(),
        1,
        "{line}"
    );
    assert!(
        line.contains("public announcements by espeak-ng on the default output at tables 1–4"),
        "{line}"
    );
    assert!(line.contains("no headsets at tables 1–4"), "{line}");

    // A table of its own builds what the probe allows: with speech-dispatcher absent, the
    // program on the default output without a try of its own.
    let (_, report) = setup::build_checked(
        Lang::En,
        &check_devices(&AudioOptions::default()).unwrap(),
        &Probe {
            dispatcher: Some(Err("absent".into())),
            no_audio: None,
        },
    )
    .unwrap();
    assert_eq!(
        report.room,
        Room::Program {
            program: "espeak-ng",
            why: None
        }
    );

    // A silent table's devices are checked all the same: a missing one is refused by its
    // setting, an existing one is taken.
    let silent = |white: &str| AudioOptions {
        off: true,
        white_device: Some(white.to_owned()),
        ..AudioOptions::default()
    };
    let e = check_devices(&silent("hedset")).unwrap_err();
    assert_eq!(e.key, AudioKey::WhiteAudio);
    assert!(
        e.message
            .starts_with("ALSA device 'hedset' cannot be opened (unknown PCM;"),
        "{e}"
    );
    let err = setup::build("test", Lang::En, &silent("hedset")).unwrap_err();
    assert_eq!(err, e);
    let ok = setup::build("test", Lang::En, &silent("headset")).unwrap();
    assert!(ok.is_silent());

    // A device several tables name (a shared room speaker) is opened once for them all:
    // aplay, behind a wrapper that counts its runs.
    let aplay = kriegspiel_speech::speaker::on_path("aplay").expect("aplay");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let runs = dir.path().join("aplay-runs");
    let wrapper = bin.join("aplay");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            runs.display(),
            aplay.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin.clone()];
    dirs.extend(std::env::split_paths(&path));
    std::env::set_var("PATH", std::env::join_paths(dirs).unwrap());
    let room = |off: bool| AudioOptions {
        off,
        public_device: Some("headset".to_owned()),
        ..AudioOptions::default()
    };
    let (a, b, c) = (room(false), room(true), room(false));
    let checked = setup::check_all(&[&a, &b, &c]);
    assert!(checked.iter().all(Result::is_ok), "{checked:?}");
    let opened = std::fs::read_to_string(&runs).unwrap();
    assert_eq!(opened.lines().count(), 1, "{opened}");
    assert!(opened.contains("-D headset"), "{opened}");
}
