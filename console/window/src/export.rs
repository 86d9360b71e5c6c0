//! A table's game as a PGN file: its proposed name, the path as shown and as typed, and
//! the export itself (read from the journal, read-only).

use std::path::{Path, PathBuf};

use kriegspiel_hall::{private_file, GameId, Journal};

use crate::store::TableState;

/// A PGN file name for a table's game: "club-night_table-2_game-7.pgn" (the event, or
/// "kriegspiel", and the table's name, each in lower-case letters, digits and dashes and
/// at most 28 characters).
pub fn pgn_file_name(event: Option<&str>, table: &str, game: GameId) -> String {
    let clean = |s: &str| {
        let mut out = String::new();
        for c in s.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                out.push(c);
            } else if !out.ends_with('-') && !out.is_empty() {
                out.push('-');
            }
        }
        // At most 28 characters, cut at a dash if there is one to cut at.
        let out = out.trim_end_matches('-');
        if out.chars().count() <= 28 {
            return out.to_owned();
        }
        let cut: String = out.chars().take(28).collect();
        match cut.rfind('-') {
            Some(i) if i > 0 => cut[..i].to_owned(),
            _ => cut,
        }
    };
    let event = Some(clean(event.unwrap_or_default()))
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "kriegspiel".to_owned());
    let table = match clean(table) {
        t if t.is_empty() || t.chars().all(|c| c.is_ascii_digit()) => format!("table-{t}"),
        t => t,
    };
    let table = table.trim_end_matches('-');
    format!("{event}_{table}_game-{game}.pgn")
}

/// A path as shown: a leading home folder as "~".
pub fn tilde(path: &Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !home.as_deref().is_some_and(|h| h.as_os_str().is_empty()) => {
            Path::new("~").join(rest).display().to_string()
        }
        _ => path.display().to_string(),
    }
}

/// A path as typed: a leading "~/" is the home folder.
pub fn untilde(text: &str) -> PathBuf {
    match (text.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => PathBuf::from(home).join(rest),
        _ => PathBuf::from(text),
    }
}

/// Writes the PGN of the table's game, read from the journal (read-only), to `path`; a
/// file already there is replaced only if `replace` (else it is an error).
pub fn export(
    journal: &Path,
    t: &TableState,
    path: &Path,
    replace: bool,
) -> Result<String, String> {
    if path.as_os_str().is_empty() {
        return Err("give a file name".to_owned());
    }
    let j = Journal::open_read_only(journal).map_err(|e| e.to_string())?;
    let games = j.games().map_err(|e| e.to_string())?;
    let record = games
        .iter()
        .find(|g| g.id == t.game)
        .ok_or_else(|| format!("game {} is not in {}", t.game, journal.display()))?;
    let read = j.events(record.id);
    let text = kriegspiel_hall::pgn::pgn(record, &read.events, read.damage.as_ref())
        .map_err(|e| e.to_string())?;
    let journal_files = kriegspiel_hall::journal::files_of(journal);
    let sources: Vec<&Path> = journal_files.iter().map(PathBuf::as_path).collect();
    let existing = if replace {
        private_file::Existing::Replace
    } else {
        private_file::Existing::Refuse
    };
    private_file::write_private(path, text.as_bytes(), existing, &sources)
        .map_err(|e| e.to_string())?;
    let damage = read
        .damage
        .map(|d| format!(" (journal damaged: {d}; the events before it)"))
        .unwrap_or_default();
    Ok(format!(
        "Table {}: PGN of game {} written to {}{damage}.",
        t.no,
        t.game,
        tilde(path)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_file_names_say_the_event_the_table_and_the_game_in_safe_characters() {
        assert_eq!(
            pgn_file_name(Some("Club night"), "table-2", 7),
            "club-night_table-2_game-7.pgn"
        );
        assert_eq!(
            pgn_file_name(None, "demo-cincinnati", 1),
            "kriegspiel_demo-cincinnati_game-1.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("../../etc/passwd"), "  Ann / Bob: 1st  ", 3),
            "etc-passwd_ann-bob-1st_game-3.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("***"), "4", 9),
            "kriegspiel_table-4_game-9.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("Kriegspiel demo: cincinnati game, seed 1003"), "t", 1),
            "kriegspiel-demo-cincinnati_t_game-1.pgn"
        );
        assert_eq!(
            pgn_file_name(Some("Турнир"), "", 2),
            "турнир_table_game-2.pgn"
        );
    }
}
