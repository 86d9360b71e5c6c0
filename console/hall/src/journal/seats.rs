//! Seat codes: a short secret per player and game that proves his seat to the players'
//! channel. Kept in the journal (readable by its owner only), so that a restarted console
//! asks the same codes and a player reconnects with the code he was given.

use kriegspiel_referee::shakmaty::ByColor;
use rusqlite::{params, OptionalExtension};

use super::{sql, GameId, Journal, JournalError};

/// Digits in a seat code: short enough to read out and type, and the players' channel
/// limits wrong guesses.
pub const SEAT_CODE_DIGITS: usize = 6;

impl Journal {
    /// The seat codes of `game`, made (and stored) on first asking.
    pub fn seat_codes(&mut self, game: GameId) -> Result<ByColor<String>, JournalError> {
        self.per_game_table(
            "seats",
            "white TEXT NOT NULL, black TEXT NOT NULL",
            "creating the journal's seat table",
        )?;
        let stored: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT substr(white, 1, 16), substr(black, 1, 16) FROM seats WHERE game = ?1",
                params![game],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sql("reading seat codes"))?;
        if let Some((white, black)) = stored.filter(|(w, b)| is_code(w) && is_code(b)) {
            return Ok(ByColor { white, black });
        }
        let codes = loop {
            let codes = ByColor::new_with(|_| new_code());
            if codes.white != codes.black {
                break codes;
            }
        };
        self.conn
            .execute(
                "INSERT OR REPLACE INTO seats (game, white, black) VALUES (?1, ?2, ?3)",
                params![game, codes.white, codes.black],
            )
            .map_err(sql("storing seat codes"))?;
        Ok(codes)
    }
}

impl Journal {
    /// The number of the table `game` is played at: the one stored, or `no`, stored now (a
    /// game begun before numbers were kept takes the one it resumes at). A round file whose
    /// tables were put in another order would otherwise resume each game under another
    /// number, which players' seat files and the arbiter's commands name (attack review).
    pub fn table_number(&mut self, game: GameId, no: usize) -> Result<usize, JournalError> {
        self.per_game_table(
            "table_numbers",
            "no INTEGER NOT NULL",
            "creating the journal's table numbers",
        )?;
        let stored: Option<i64> = self
            .conn
            .query_row(
                "SELECT no FROM table_numbers WHERE game = ?1",
                params![game],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql("reading a game's table number"))?;
        if let Some(was) = stored.and_then(|n| usize::try_from(n).ok()) {
            return Ok(was);
        }
        self.conn
            .execute(
                "INSERT OR REPLACE INTO table_numbers (game, no) VALUES (?1, ?2)",
                params![game, i64::try_from(no).unwrap_or(i64::MAX)],
            )
            .map_err(sql("storing a game's table number"))?;
        Ok(no)
    }
}

impl Journal {
    /// The table number stored for `game`, if any (none in a journal older than numbers).
    pub fn stored_table_number(&self, game: GameId) -> Option<usize> {
        self.conn
            .query_row(
                "SELECT no FROM table_numbers WHERE game = ?1",
                params![game],
                |r| r.get::<_, i64>(0),
            )
            .ok()
            .and_then(|n| usize::try_from(n).ok())
    }
}

fn is_code(s: &str) -> bool {
    s.len() == SEAT_CODE_DIGITS && s.bytes().all(|b| b.is_ascii_digit())
}

/// A fresh code from the system's random source (the clock, should that be missing: a
/// console without /dev/urandom still plays, with weaker codes).
fn new_code() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    let n = match random {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            u64::try_from(t % u128::from(u64::MAX)).unwrap_or(0) ^ u64::from(std::process::id())
        }
    };
    format!("{:06}", n % 1_000_000)
}

/// Whether `given` is `code` (digits only; spaces and dashes a player may type are ignored).
pub fn code_matches(code: &str, given: &str) -> bool {
    let typed: String = given.chars().filter(|c| c.is_ascii_digit()).collect();
    let other = given
        .chars()
        .any(|c| !c.is_ascii_digit() && c != ' ' && c != '-');
    // Compare every digit, so that the time taken says nothing of how many were right.
    let same = typed.len() == code.len()
        && typed
            .bytes()
            .zip(code.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    same && !other
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn codes_are_kept_per_game_and_differ_between_seats() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let setup = crate::TableSetup::default();
        let (a, codes_a) = {
            let mut j = Journal::open(&path).unwrap();
            let a = j.new_game("t", &setup, 1).unwrap();
            (a, j.seat_codes(a).unwrap())
        };
        assert!(is_code(&codes_a.white) && is_code(&codes_a.black));
        assert_ne!(codes_a.white, codes_a.black);
        let mut j = Journal::open(&path).unwrap();
        assert_eq!(
            j.seat_codes(a).unwrap(),
            codes_a,
            "a restart asks the same codes"
        );
        let b = j.new_game("t", &setup, 2).unwrap();
        assert_ne!(j.seat_codes(b).unwrap(), codes_a);
    }

    #[test]
    fn a_code_matches_only_itself() {
        assert!(code_matches("123456", "123456"));
        assert!(code_matches("123456", "123 456"));
        assert!(code_matches("123456", "123-456"));
        for wrong in ["12345", "1234567", "123457", "", "12345a6", "abcdef"] {
            assert!(!code_matches("123456", wrong), "{wrong}");
        }
    }
}
