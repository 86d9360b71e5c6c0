//! Utterances for the voice tests: real synthetic voices (flite, festival, espeak-ng)
//! resampled as the recogniser hears a microphone.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs a helper program; panics with its error output if it fails.
pub fn run(cmd: &mut Command) {
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (tests/system-packages.sh installs it)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `text` said by `voice` ("flite:slt", "festival:kal_diphone", "espeak:en-us") as a 16 kHz
/// mono 16-bit WAV at `out`.
pub fn synthesise(voice: &str, text: &str, out: &Path) {
    let raw = out.with_extension("raw.wav");
    match voice.split_once(':') {
        Some(("flite", name)) => run(Command::new("flite")
            .args(["-voice", name, "-t", text, "-o"])
            .arg(&raw)),
        Some(("festival", name)) => {
            let text_file = out.with_extension("txt");
            std::fs::write(&text_file, text).unwrap_or_else(|e| panic!("{text_file:?}: {e}"));
            run(Command::new("text2wave")
                .args(["-eval", &format!("(voice_{name})"), "-o"])
                .arg(&raw)
                .arg(&text_file));
        }
        Some(("espeak", name)) => run(Command::new("espeak-ng")
            .args(["-v", name, "-w"])
            .arg(&raw)
            .arg(text)),
        _ => panic!("unknown voice {voice}"),
    }
    run(Command::new("sox")
        .arg(&raw)
        .args(["-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer"])
        .arg(out));
}
