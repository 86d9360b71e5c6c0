//! The speech log: what was sent to each output, one line per utterance.

use std::io::Write;
use std::path::PathBuf;

/// Appends "LABEL<tab>TEXT" lines: what was sent to each output, for tests and the arbiter.
#[derive(Debug, Clone)]
pub struct SpeechLog {
    pub path: PathBuf,
    pub label: String,
}

impl SpeechLog {
    pub fn write(&self, text: &str) {
        let line = format!("{}\t{}\n", self.label, text.replace(['\t', '\n'], " "));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("kriegspiel: speech log {}: {e}", self.path.display());
        }
    }
}
