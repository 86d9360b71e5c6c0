//! Recording into WAV files: the folder, a file per utterance and the transcript.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::SpeechError;

/// Makes the recording folder `dir` (a file there is refused) with an empty
/// `transcript.tsv`.
pub(super) fn prepare(dir: &Path) -> Result<(), SpeechError> {
    if dir.exists() && !dir.is_dir() {
        return Err(SpeechError::Folder(format!(
            "{}: it is a file",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join("transcript.tsv"), ""))
        .map_err(|e| SpeechError::Folder(format!("{}: {e}", dir.display())))
}

/// The file of the utterance numbered `i` from 0: `dir/0001.wav` for the first.
pub(super) fn file(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("{:04}.wav", i + 1))
}

/// One line of the recording's transcript: the file name, a tab, the text.
pub(super) fn append_transcript(dir: &Path, wav: &Path, text: &str) -> std::io::Result<()> {
    let name = wav
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("transcript.tsv"))?;
    writeln!(f, "{name}\t{}", text.replace(['\t', '\n'], " "))
}
