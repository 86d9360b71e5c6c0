//! The journal a command uses: given, or in the user's data folder.

use std::path::PathBuf;

/// The journal a command uses: `--journal FILE`, or `journal.sqlite` in the user's data
/// folder (`$XDG_DATA_HOME/kriegspiel`, else `~/.local/share/kriegspiel`).
pub fn journal_path(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .ok_or("no --journal given and neither XDG_DATA_HOME nor HOME is set")?;
    let dir = data.join("kriegspiel");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.join("journal.sqlite"))
}

/// Opens the journal a command uses (see [`journal_path`]) and says on standard error which.
pub fn open_journal(
    program: &str,
    given: Option<PathBuf>,
) -> Result<kriegspiel_hall::Journal, String> {
    let path = journal_path(given)?;
    eprintln!("{program}: journal {}", path.display());
    kriegspiel_hall::Journal::open(&path).map_err(|e| match e {
        kriegspiel_hall::JournalError::NotAJournal { .. } => format!(
            "{e}; `kriegspiel export --journal {}` reads what it can of a damaged journal",
            path.display()
        ),
        e => e.to_string(),
    })
}
