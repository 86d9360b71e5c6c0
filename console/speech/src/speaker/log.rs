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
    /// Made readable by its owner only: it holds what each player alone heard.
    pub fn write(&self, text: &str) {
        use std::os::unix::fs::OpenOptionsExt as _;
        let line = format!("{}\t{}\n", self.label, text.replace(['\t', '\n'], " "));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("kriegspiel: speech log {}: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    /// Another user at the next terminal cannot read what a player alone heard.
    #[test]
    fn the_log_is_its_owners_only() {
        let dir = tempfile::tempdir().unwrap();
        let log = SpeechLog {
            path: dir.path().join("speech.log"),
            label: "black".into(),
        };
        log.write("Illegal move.");
        let mode = std::fs::metadata(&log.path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        assert_eq!(
            std::fs::read_to_string(&log.path).unwrap(),
            "black\tIllegal move.\n"
        );
    }
}
