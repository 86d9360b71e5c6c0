//! How far each game's outputs were said when its console stopped on purpose: a resumed
//! table says again only what a crash may have left unsaid.

use rusqlite::{params, OptionalExtension};

use super::{sql, GameId, Journal, JournalError};

impl Journal {
    fn said_table(&self) -> Result<(), JournalError> {
        self.per_game_table(
            "said",
            "seq INTEGER NOT NULL",
            "creating the journal's said table",
        )
    }

    /// Makes, if missing, a table added after schema 1 with one row per game: its `game`
    /// key, then `columns`.
    pub(super) fn per_game_table(
        &self,
        name: &str,
        columns: &str,
        doing: &'static str,
    ) -> Result<(), JournalError> {
        self.conn
            .execute_batch(&format!(
                "CREATE TABLE IF NOT EXISTS {name} (
                     game INTEGER PRIMARY KEY REFERENCES games(id),
                     {columns}
                 );"
            ))
            .map_err(sql(doing))
    }

    /// Records, in one commit, that every output of each game's events up to `seq` was
    /// said (a clean stop).
    pub fn set_said(&mut self, games: &[(GameId, i64)]) -> Result<(), JournalError> {
        self.said_table()?;
        let tx = self
            .conn
            .transaction()
            .map_err(sql("recording what was said"))?;
        for (game, seq) in games {
            tx.execute(
                "INSERT INTO said (game, seq) VALUES (?1, ?2)
                 ON CONFLICT (game) DO UPDATE SET seq = excluded.seq",
                params![game, seq],
            )
            .map_err(sql("recording what was said"))?;
        }
        tx.commit().map_err(sql("recording what was said"))
    }

    /// The event up to which `game`'s outputs were said at its last clean stop, if any.
    pub fn said_through(&self, game: GameId) -> Option<i64> {
        self.conn
            .query_row("SELECT seq FROM said WHERE game = ?1", params![game], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .ok()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn what_was_said_is_kept_per_game() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let mut j = Journal::open(&path).unwrap();
        let setup = crate::TableSetup::default();
        let a = j.new_game("a", &setup, 1).unwrap();
        let b = j.new_game("b", &setup, 1).unwrap();
        assert_eq!(j.said_through(a), None);
        j.set_said(&[(a, 7), (b, 2)]).unwrap();
        j.set_said(&[(a, 9)]).unwrap();
        drop(j);
        let j = Journal::open_read_only(&path).unwrap();
        assert_eq!((j.said_through(a), j.said_through(b)), (Some(9), Some(2)));
    }
}
