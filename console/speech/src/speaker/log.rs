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
    /// Made readable by its owner only, an old log others could read too: it holds what
    /// each player alone heard. Never written through a link (one planted in a shared
    /// folder would send the lines to a file of the planter's choosing).
    pub fn write(&self, text: &str) {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        let line = format!("{}\t{}\n", self.label, text.replace(['\t', '\n'], " "));
        let no_follow = i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(no_follow)
            .open(&self.path)
            .and_then(|mut f| {
                // Another user's file stays as it is (and says nothing).
                if f.metadata()?.permissions().mode() & 0o077 != 0 {
                    let _ = f.set_permissions(std::fs::Permissions::from_mode(0o600));
                }
                f.write_all(line.as_bytes())
            });
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
        // An old log others could read is made private; a link planted as the log is not
        // followed (the line is not written, and said).
        std::fs::set_permissions(&log.path, std::fs::Permissions::from_mode(0o644)).unwrap();
        log.write("No.");
        let mode = std::fs::metadata(&log.path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let planted = SpeechLog {
            path: dir.path().join("planted.log"),
            label: "white".into(),
        };
        std::os::unix::fs::symlink(&victim, &planted.path).unwrap();
        planted.write("Your move.");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    }
}
