//! The games: one row per game (its table's name, set-up and start), checksummed.

use rusqlite::params;

use super::bounds::{bounded, sql_len, MAX_NAME_BYTES, MAX_SETUP};
use super::{sql, GameId, Journal, JournalError, CRC};
use crate::setup::{check_name, SetupError, TableSetup};

/// A game as the journal holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub id: GameId,
    /// The table's name (the same name resumes the same table).
    pub name: String,
    pub setup: TableSetup,
    /// Wall-clock time the game started (Unix milliseconds).
    pub started_wall_ms: i64,
}

impl Journal {
    /// Starts a new game of the table `name`.
    pub fn new_game(
        &mut self,
        name: &str,
        setup: &TableSetup,
        wall_ms: i64,
    ) -> Result<GameId, JournalError> {
        check_name("name", name).map_err(JournalError::BadGame)?;
        setup.check_names().map_err(JournalError::BadGame)?;
        let setup_json = serde_json::to_string(setup)
            .map_err(|e| JournalError::BadEvent(format!("table setup: {e}")))?;
        if setup_json.len() > MAX_SETUP {
            return Err(JournalError::BadGame(SetupError {
                field: "setup",
                message: format!(
                    "a set-up of {} bytes; at most {MAX_SETUP}",
                    setup_json.len()
                ),
            }));
        }
        let crc = game_crc(name, &setup_json, wall_ms);
        self.conn
            .execute(
                "INSERT INTO games (name, setup, started_wall_ms, crc) VALUES (?1, ?2, ?3, ?4)",
                params![name, setup_json, wall_ms, crc],
            )
            .map_err(sql("starting a game"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Every game, oldest first. A damaged game row ends the list with its error; a name or
    /// set-up longer than this program writes is damage, and is not read.
    pub fn games(&self) -> Result<Vec<GameRecord>, JournalError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id,
                        CASE WHEN octet_length(name) <= ?1 THEN name END, octet_length(name),
                        CASE WHEN octet_length(setup) <= ?2 THEN setup END, octet_length(setup),
                        started_wall_ms, crc
                 FROM games ORDER BY id",
            )
            .map_err(sql("reading the games"))?;
        let mut rows = stmt
            .query(params![sql_len(MAX_NAME_BYTES), sql_len(MAX_SETUP)])
            .map_err(sql("reading the games"))?;
        let mut games = Vec::new();
        while let Some(row) = rows.next().map_err(sql("reading the games"))? {
            let id: i64 = row.get(0).map_err(sql("reading a game"))?;
            let damaged = |what: String| JournalError::Damaged {
                game: id,
                seq: 0,
                what,
            };
            let name = bounded(row, 1, "a name", MAX_NAME_BYTES).map_err(damaged)?;
            let setup_json = bounded(row, 3, "a set-up", MAX_SETUP).map_err(damaged)?;
            let read = |row: &rusqlite::Row<'_>| -> rusqlite::Result<(i64, u32)> {
                Ok((row.get(5)?, row.get(6)?))
            };
            let (started, crc) =
                read(row).map_err(|e| damaged(format!("unreadable game row: {e}")))?;
            if game_crc(&name, &setup_json, started) != crc {
                return Err(damaged(
                    "the game's set-up does not match its checksum".to_owned(),
                ));
            }
            let setup: TableSetup = serde_json::from_str(&setup_json)
                .map_err(|e| damaged(format!("unreadable set-up: {e}")))?;
            games.push(GameRecord {
                id,
                name,
                setup,
                started_wall_ms: started,
            });
        }
        Ok(games)
    }
}

fn game_crc(name: &str, setup: &str, wall_ms: i64) -> u32 {
    let mut d = CRC.digest();
    d.update(name.as_bytes());
    d.update(&[0]);
    d.update(setup.as_bytes());
    d.update(&wall_ms.to_le_bytes());
    d.finalize()
}
