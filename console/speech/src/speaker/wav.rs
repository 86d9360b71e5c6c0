//! Recording into WAV files: the folder, a file per utterance and the transcript.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::SpeechError;

/// Makes the recording folder `dir` (a file there is refused) with an empty
/// `transcript.tsv`. A new folder is its owner's only: it holds what each player alone heard.
pub(super) fn prepare(dir: &Path) -> Result<(), SpeechError> {
    use std::os::unix::fs::DirBuilderExt as _;
    if dir.exists() && !dir.is_dir() {
        return Err(SpeechError::Folder(format!(
            "{}: it is a file",
            dir.display()
        )));
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
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
    // One write: a reader never finds half a line (`writeln!` writes it in pieces).
    let line = format!("{name}\t{}\n", text.replace(['\t', '\n'], " "));
    f.write_all(line.as_bytes())
}
