//! The journal a command uses: given, the club's in the user's data folder, or a demo's own.

use std::path::{Path, PathBuf};

/// Where a command's journal is when `--journal` is not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unnamed {
    /// `journal.sqlite` in the user's data folder: the next start resumes its unfinished
    /// games, so a console that stops loses nothing.
    Club,
    /// A new journal in a folder of its own, made for this run: a demo neither resumes
    /// another run's game nor mixes its games into the club's journal, and two demos run at
    /// once.
    ThisRun,
}

/// The journal a command uses: `--journal FILE`, else as `unnamed` says (the club's is
/// `journal.sqlite` in `$XDG_DATA_HOME/kriegspiel`, else `~/.local/share/kriegspiel`; a run's
/// own is `journal.sqlite` in a new `kriegspiel-demo-PID` folder of the temporary folder).
pub fn journal_path(given: Option<PathBuf>, unnamed: Unnamed) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p);
    }
    let dir = match unnamed {
        Unnamed::Club => {
            let data = std::env::var_os("XDG_DATA_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
                .ok_or("no --journal given and neither XDG_DATA_HOME nor HOME is set")?;
            let dir = data.join("kriegspiel");
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir
        }
        Unnamed::ThisRun => new_private_folder(&std::env::temp_dir())?,
    };
    Ok(dir.join("journal.sqlite"))
}

/// A folder no one else made or can read (0700), new in `parent`.
fn new_private_folder(parent: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let pid = std::process::id();
    for n in 0..100 {
        let dir = parent.join(match n {
            0 => format!("kriegspiel-demo-{pid}"),
            n => format!("kriegspiel-demo-{pid}-{n}"),
        });
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            // Left by an earlier process of the same number: never reused.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!(
        "cannot create a new kriegspiel-demo-{pid} folder in {}: 100 are there; give --journal FILE",
        parent.display()
    ))
}

/// Opens the journal a command uses (see [`journal_path`]) and says on standard error which.
pub fn open_journal(
    program: &str,
    given: Option<PathBuf>,
    unnamed: Unnamed,
) -> Result<(kriegspiel_hall::Journal, PathBuf), String> {
    let own = given.is_none() && unnamed == Unnamed::ThisRun;
    let path = journal_path(given, unnamed)?;
    if own {
        eprintln!(
            "{program}: journal {} (this run's own; --journal FILE keeps a demo to resume)",
            path.display()
        );
    } else {
        eprintln!("{program}: journal {}", path.display());
    }
    let journal = kriegspiel_hall::Journal::open(&path).map_err(|e| match e {
        kriegspiel_hall::JournalError::NotAJournal { .. } => format!(
            "{e}; `kriegspiel export --journal {}` reads what it can of a damaged journal",
            path.display()
        ),
        e => e.to_string(),
    })?;
    Ok((journal, path))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn each_run_gets_a_new_private_folder() {
        let parent = tempfile::tempdir().unwrap();
        let first = new_private_folder(parent.path()).unwrap();
        let second = new_private_folder(parent.path()).unwrap();
        assert_ne!(first, second);
        for dir in [&first, &second] {
            assert_eq!(dir.parent(), Some(parent.path()));
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
        // The second is not the first taken over (as a folder another process of the same
        // number left would not be): a number is added.
        assert!(first.ends_with(format!("kriegspiel-demo-{}", std::process::id())));
        assert!(second.ends_with(format!("kriegspiel-demo-{}-1", std::process::id())));
    }

    #[test]
    fn a_given_journal_is_used_whatever_the_default() {
        let given = PathBuf::from("/somewhere/j.sqlite");
        for unnamed in [Unnamed::Club, Unnamed::ThisRun] {
            assert_eq!(journal_path(Some(given.clone()), unnamed).unwrap(), given);
        }
    }

    #[test]
    fn no_folder_to_make_it_in_is_said_plainly() {
        let parent = tempfile::tempdir().unwrap();
        let missing = parent.path().join("gone");
        let e = new_private_folder(&missing).unwrap_err();
        assert!(e.starts_with("cannot create "), "{e}");
        assert!(e.contains("gone"), "{e}");
    }
}
