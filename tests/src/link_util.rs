//! Helpers for the board-link end-to-end tests: building the workspace's programs and
//! generating board scripts with their expected outcome.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use kriegspiel_link::{is_occupied, square_name, with_square, without_square, SquareIndex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .map_or_else(|| here.to_path_buf(), Path::to_path_buf)
}

/// Builds `bin` of `package` (debug profile) once per test process and returns its path.
/// Panics with cargo's output when the build fails: the test cannot run without it.
pub fn cargo_bin(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    let mut built = built
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, path)) = built.iter().find(|(name, _)| name == bin) {
        return path.clone();
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["build", "--quiet", "-p", package, "--bin", bin])
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build {bin}: {e}"));
    assert!(
        output.status.success(),
        "building {bin} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let path = target.join("debug").join(bin);
    assert!(
        path.exists(),
        "{} missing after a successful build",
        path.display()
    );
    built.push((bin.to_owned(), path.clone()));
    path
}

/// One scripted magnet move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub at_ms: u32,
    pub place: bool,
    pub square: SquareIndex,
}

/// A board script and what it must produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub initial: u64,
    pub moves: Vec<Move>,
}

/// The standard starting position's occupancy (ranks 1, 2, 7, 8).
pub const START: u64 = 0xFFFF_0000_0000_FFFF;

pub fn name(square: SquareIndex) -> String {
    String::from_utf8_lossy(&square_name(square)).into_owned()
}

impl Script {
    /// `pairs` lift/place pairs starting at `first_ms`, `step_ms` apart (plus up to
    /// `jitter_ms`), never touching a square again within the last 16 moves so that
    /// debouncing cannot merge two changes of one switch.
    pub fn random(pairs: usize, seed: u64, first_ms: u32, step_ms: u32, jitter_ms: u32) -> Script {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut occupancy = START;
        let mut recent: Vec<SquareIndex> = Vec::new();
        let mut moves = Vec::with_capacity(pairs * 2);
        let mut at_ms = first_ms;
        for _ in 0..pairs * 2 {
            let place = moves.len() % 2 == 1;
            let candidates: Vec<SquareIndex> = (0..64u8)
                .filter(|&sq| is_occupied(occupancy, sq) != place && !recent.contains(&sq))
                .collect();
            let square = candidates[rng.gen_range(0..candidates.len())];
            occupancy = if place {
                with_square(occupancy, square)
            } else {
                without_square(occupancy, square)
            };
            moves.push(Move {
                at_ms,
                place,
                square,
            });
            recent.push(square);
            if recent.len() > 16 {
                recent.remove(0);
            }
            at_ms += step_ms + rng.gen_range(0..=jitter_ms);
        }
        Script {
            initial: START,
            moves,
        }
    }

    /// Appends a lift and a re-place of a square untouched by the last moves, `after_ms`
    /// after the last move: keeps the board program alive (it exits after its last move)
    /// so that trailing frames reveal any gap.
    pub fn with_tail(mut self, after_ms: u32) -> Script {
        let last = self.moves.last().map_or(0, |m| m.at_ms);
        let occupancy = self.final_occupancy();
        let recent: Vec<SquareIndex> = self.moves.iter().rev().take(16).map(|m| m.square).collect();
        if let Some(square) =
            (0..64u8).find(|&sq| is_occupied(occupancy, sq) && !recent.contains(&sq))
        {
            self.moves.push(Move {
                at_ms: last + after_ms,
                place: false,
                square,
            });
            self.moves.push(Move {
                at_ms: last + after_ms + 100,
                place: true,
                square,
            });
        }
        self
    }

    /// The `kriegspiel-board simulate` script text.
    pub fn to_text(&self) -> String {
        let mut text = String::from("occupied");
        for sq in (0..64u8).filter(|&sq| is_occupied(self.initial, sq)) {
            text.push(' ');
            text.push_str(&name(sq));
        }
        text.push('\n');
        for m in &self.moves {
            let action = if m.place { "place" } else { "lift" };
            text.push_str(&format!("{} {action} {}\n", m.at_ms, name(m.square)));
        }
        text
    }

    /// Occupancy after the first `n` moves.
    pub fn occupancy_after(&self, n: usize) -> u64 {
        self.moves[..n.min(self.moves.len())]
            .iter()
            .fold(self.initial, |occ, m| {
                if m.place {
                    with_square(occ, m.square)
                } else {
                    without_square(occ, m.square)
                }
            })
    }

    pub fn final_occupancy(&self) -> u64 {
        self.occupancy_after(self.moves.len())
    }
}

/// What [`check_reports`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// Lifts/places delivered, all matching the script in order.
    pub delivered: usize,
    /// Script moves not delivered, each covered by a resync that restored the occupancy.
    pub covered_by_resync: usize,
    pub resyncs: usize,
}

/// Checks a link's reports against the script the board played: every delivered lift/place
/// is the next script move (nothing invented, nothing reordered), moves are only ever
/// skipped across a snapshot/resync whose occupancy is exactly the board's occupancy at
/// some point of the script, and every snapshot equals the occupancy at that point.
pub fn check_reports(
    script: &Script,
    reports: &[kriegspiel_boardlink::Report],
) -> Result<Checked, String> {
    use kriegspiel_boardlink::LinkEvent;
    // Script positions (number of moves applied) consistent with everything seen so far.
    let mut positions: Vec<usize> = vec![0];
    let mut in_sync = false;
    let mut checked = Checked {
        delivered: 0,
        covered_by_resync: 0,
        resyncs: 0,
    };
    for (i, report) in reports.iter().enumerate() {
        match &report.event {
            LinkEvent::Lift { square, .. } | LinkEvent::Place { square, .. } => {
                let place = matches!(report.event, LinkEvent::Place { .. });
                if !in_sync {
                    return Err(format!(
                        "report {i}: {report:?} delivered before any snapshot"
                    ));
                }
                let Some(&at) = positions.iter().find(|&&p| {
                    script
                        .moves
                        .get(p)
                        .is_some_and(|m| m.place == place && m.square == *square)
                }) else {
                    let expected: Vec<_> = positions
                        .iter()
                        .filter_map(|&p| script.moves.get(p))
                        .collect();
                    return Err(format!(
                        "report {i}: {report:?} is not the next scripted move (expected one of {expected:?}): invented, reordered or lost without resync"
                    ));
                };
                checked.delivered += 1;
                positions = vec![at + 1];
            }
            LinkEvent::Snapshot { occupancy, .. } | LinkEvent::Resync { occupancy, .. } => {
                let from = positions.iter().copied().min().unwrap_or(0);
                let resync = matches!(report.event, LinkEvent::Resync { .. });
                let matching: Vec<usize> = (from..=script.moves.len())
                    .filter(|&k| script.occupancy_after(k) == *occupancy)
                    .collect();
                if matching.is_empty() {
                    return Err(format!(
                        "report {i}: {report:?}: occupancy {occupancy:016x} is no state of the script from move {from} on"
                    ));
                }
                if !resync && !matching.iter().any(|k| positions.contains(k)) {
                    return Err(format!(
                        "report {i}: snapshot {occupancy:016x} delivered as agreeing but moves were skipped"
                    ));
                }
                if resync {
                    checked.resyncs += 1;
                }
                in_sync = true;
                positions = matching;
            }
            LinkEvent::Disconnected { .. } => in_sync = false,
            LinkEvent::Connected { .. }
            | LinkEvent::Back
            | LinkEvent::OpenFailed { .. }
            | LinkEvent::VersionMismatch { .. }
            | LinkEvent::Fault { .. } => {}
        }
    }
    if !positions.contains(&script.moves.len()) {
        return Err(format!(
            "the reports end at script position(s) {positions:?}, not at the end ({})",
            script.moves.len()
        ));
    }
    checked.covered_by_resync = script.moves.len() - checked.delivered;
    Ok(checked)
}
