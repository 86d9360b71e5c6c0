//! The demo's pace: the scripted games played at a human pace, in the `demo` subcommand and
//! in the window program's demo tables alike; and the demo on networked boards (`--broker`),
//! whose boards are `kriegspiel-board simulate --broker` programs playing the scripts
//! `kriegspiel demo --write-scripts` writes.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kriegspiel_games::{BuiltGame, Timing, SIM_BOARD_IDS};
use kriegspiel_hall::{BoardSource, TableSpec};
use kriegspiel_referee::shakmaty::Color;

/// The demo's pace with the board's settle time the command line asks (`--settle-ms`).
pub fn demo_timing(settle_ms: Option<u32>) -> Timing {
    Timing {
        settle_ms: settle_ms.map_or(Timing::HUMAN.settle_ms, u64::from),
        ..Timing::HUMAN
    }
}

/// The quickest pace of boards that play in real time (the end-to-end tests'), with the
/// settle time asked: `kriegspiel demo --fast` on networked boards.
pub fn quick_timing(settle_ms: Option<u32>) -> Timing {
    let quick = Timing::default();
    Timing {
        settle_ms: settle_ms.map_or(quick.settle_ms, u64::from),
        ..quick
    }
}

/// A demo table's boards taken from the network instead of simulated in this process:
/// White's is networked board 1 (`board:1`), Black's board 2, as the game's set-up says.
/// Its scripted keypad commands stay: the console sends them at their times.
pub fn on_network(spec: &mut TableSpec) {
    spec.white = BoardSource::Network(SIM_BOARD_IDS.white);
    spec.black = BoardSource::Network(SIM_BOARD_IDS.black);
}

/// Moves a networked demo table's scripted keypad commands so that they count from
/// `start_at` (the boards' `--start-at`) rather than from the table's start. Called just
/// before the hall starts, whose table clock begins within a few milliseconds: then the
/// commands fall between the boards' moves as in the demo on simulated boards, however
/// long the programs took to start.
pub fn count_from(spec: &mut TableSpec, start_at: SystemTime) {
    let now = SystemTime::now();
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    for (at, _) in &mut spec.scripted {
        *at = match start_at.duration_since(now) {
            Ok(later) => at.saturating_add(ms(later)),
            Err(earlier) => at.saturating_sub(ms(earlier.duration())),
        };
    }
}

/// A wall-clock moment given in Unix milliseconds (`date +%s%3N`), within a day of now, as
/// `kriegspiel-board simulate --start-at` takes it.
pub fn parse_unix_ms(s: &str) -> Result<SystemTime, String> {
    const DAY: Duration = Duration::from_secs(24 * 3600);
    let hint = "milliseconds since 1970 within a day of now (date +%s%3N)";
    let ms: u64 = s.parse().map_err(|_| format!("expected {hint}"))?;
    let at = UNIX_EPOCH
        .checked_add(Duration::from_millis(ms))
        .ok_or_else(|| format!("out of range: expected {hint}"))?;
    let off = match at.duration_since(SystemTime::now()) {
        Ok(d) => d,
        Err(e) => e.duration(),
    };
    if off > DAY {
        return Err(format!("more than a day from now: expected {hint}"));
    }
    Ok(at)
}

/// How long after the game a networked demo board stays on, as a real board stays on the
/// table after the game: its script ends with one more lift and place of a man this long
/// after the game's last action, so that its program stays connected (and the console
/// shows its link up) until whoever started it stops it.
pub const BOARD_STAYS_ON_MS: u64 = 12 * 3600 * 1000;

/// Writes the game's two board scripts into `dir` (`white.script`, `black.script`), as
/// `kriegspiel-board simulate --script` reads them, each board staying on after the game
/// ([`BOARD_STAYS_ON_MS`]); returns their paths. Each appears whole under its name
/// (written aside, then renamed), so a program that waits for the file reads all of it.
pub fn write_scripts(game: &BuiltGame, dir: &Path) -> Result<[PathBuf; 2], String> {
    let write = |color: Color| -> Result<PathBuf, String> {
        let path = dir.join(format!("{color}.script"));
        let part = dir.join(format!(".{color}.script.part"));
        let script = game
            .script(color)
            .with_hold(game.duration_ms + BOARD_STAYS_ON_MS);
        std::fs::write(&part, script.render())
            .and_then(|()| std::fs::rename(&part, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    };
    Ok([write(Color::White)?, write(Color::Black)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_count_from_the_boards_start() {
        let game = kriegspiel_games::builtin("cincinnati", Timing::HUMAN).unwrap();
        let mut spec = game.table_spec("demo", &Timing::HUMAN);
        let before: Vec<u64> = spec.scripted.iter().map(|(at, _)| *at).collect();
        assert!(!before.is_empty());
        on_network(&mut spec);
        assert!(spec.has_networked_board());
        count_from(&mut spec, SystemTime::now() + Duration::from_secs(5));
        for ((after, _), before) in spec.scripted.iter().zip(&before) {
            let shift = after - before;
            assert!((4900..=5000).contains(&shift), "{shift}");
        }
        // Boards that started earlier: the commands come earlier.
        let mut spec = game.table_spec("demo", &Timing::HUMAN);
        count_from(&mut spec, SystemTime::now() - Duration::from_secs(1));
        for ((after, _), before) in spec.scripted.iter().zip(&before) {
            let shift = before - after;
            assert!((1000..=1100).contains(&shift), "{shift}");
        }
    }

    #[test]
    fn start_moments_are_milliseconds_near_now() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        assert!(parse_unix_ms(&(now + 3000).to_string()).is_ok());
        // Seconds (date +%s) are half a century ago.
        assert!(parse_unix_ms(&(now / 1000).to_string())
            .unwrap_err()
            .contains("more than a day"));
        assert!(parse_unix_ms("soon").is_err());
    }

    #[test]
    fn the_scripts_are_the_boards_own() {
        let dir = tempfile::tempdir().unwrap();
        let game = kriegspiel_games::builtin("rand", Timing::HUMAN).unwrap();
        let [white, black] = write_scripts(&game, dir.path()).unwrap();
        let white = std::fs::read_to_string(white).unwrap();
        // The game's own script, then the board stays on: one man lifted and put back.
        let game_part = game.white.render();
        assert!(white.starts_with(&game_part), "{white}");
        let after: Vec<&str> = white[game_part.len()..].lines().collect();
        assert_eq!(after.len(), 2, "{after:?}");
        let at: u64 = after[0].split(' ').next().unwrap().parse().unwrap();
        assert_eq!(at, game.duration_ms + BOARD_STAYS_ON_MS);
        assert!(after[0].contains(" lift ") && after[1].contains(" place "));
        assert!(std::fs::read_to_string(black)
            .unwrap()
            .starts_with("occupied a7"));
    }
}
