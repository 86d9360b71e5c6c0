//! Plays a built game on two emulated DGT boards (`kriegspiel-board dgt-emulate` behind
//! pseudo-terminals of their own) into `kriegspiel table --white dgt:PTY --black dgt:PTY`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kriegspiel_table::kriegspiel_referee::shakmaty::Color;
use kriegspiel_table::Input;

use crate::dgt_games::{dgt_script, DgtPlan, SCAN_MS, SETTLE_MS, TABLE_SETTLE_MS};
use crate::games::BuiltGame;
use crate::process::ChildGuard;

/// What the table printed, each line with when it came.
#[derive(Debug)]
pub struct DgtRun {
    pub lines: Vec<(Instant, serde_json::Value)>,
    pub stderr: Vec<String>,
    /// Keypad lines sent (the game's, but for the promotion choices: the boards give them).
    pub commands_sent: usize,
    pub status: std::process::ExitStatus,
    /// When script time 0 was, on this process's clock.
    pub origin: Instant,
    /// The folder of the run: scripts, the emulators' output, the journal.
    pub folder: tempfile::TempDir,
}

impl DgtRun {
    /// The referee's answers, in order.
    pub fn answers(&self) -> Vec<&serde_json::Value> {
        self.lines
            .iter()
            .map(|(_, v)| v)
            .filter(|v| v.get("answer").is_some())
            .collect()
    }

    /// The lines that carry `key`.
    pub fn with_key(&self, key: &str) -> Vec<&serde_json::Value> {
        self.lines
            .iter()
            .map(|(_, v)| v)
            .filter(|v| v.get(key).is_some())
            .collect()
    }
}

fn lines_of(reader: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The two emulated boards of a run, started on `dir` with their scripts.
fn start_boards(
    game: &BuiltGame,
    plan: &DgtPlan,
    board: &Path,
    dir: &Path,
    start_at: u128,
) -> Result<Vec<ChildGuard>, String> {
    let mut boards = Vec::new();
    for (color, serial) in [(Color::White, "10001"), (Color::Black, "20002")] {
        let script = dir.join(format!("{color}.dgt"));
        std::fs::write(&script, dgt_script(game, color, plan)?).map_err(|e| e.to_string())?;
        let out = std::fs::File::create(dir.join(format!("{color}.stdout")))
            .map_err(|e| e.to_string())?;
        let child = Command::new(board)
            .arg("dgt-emulate")
            .arg("--script")
            .arg(&script)
            .arg("--port")
            .arg(dir.join(format!("{color}-dgt")))
            .args(["--serial", serial, "--scan-ms", &SCAN_MS.to_string()])
            .args(["--start-at", &start_at.to_string()])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", board.display()))?;
        boards.push(ChildGuard(child));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !["white", "black"]
        .iter()
        .all(|c| dir.join(format!("{c}-dgt")).exists())
    {
        if Instant::now() > deadline {
            return Err("the DGT emulators made no pseudo-terminals".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(boards)
}

/// Plays `game` on two emulated DGT boards as `plan` says; ends when the table exits, or
/// with an error after `limit`.
pub fn play_dgt_game(
    game: &BuiltGame,
    plan: &DgtPlan,
    kriegspiel: &Path,
    board: &Path,
    limit: Duration,
) -> Result<DgtRun, String> {
    let shm = Path::new("/dev/shm");
    let dir = tempfile::Builder::new()
        .disable_cleanup(std::env::var_os("KS_KEEP").is_some())
        .tempdir_in(if shm.is_dir() {
            shm.to_owned()
        } else {
            std::env::temp_dir()
        })
        .map_err(|e| e.to_string())?;
    let lead = Duration::from_millis(800);
    let start_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_millis()
        + lead.as_millis();
    let origin = Instant::now() + lead;
    let boards = start_boards(game, plan, board, dir.path(), start_at)?;
    let port = |c: &str| format!("dgt:{}", dir.path().join(format!("{c}-dgt")).display());
    let mut table = Command::new(kriegspiel);
    table
        .arg("table")
        .args(["--white", &port("white"), "--black", &port("black")])
        .args(game.table_args())
        .arg("--journal")
        .arg(dir.path().join("journal.sqlite"))
        .args(["--settle-ms", &TABLE_SETTLE_MS.to_string(), "--no-speech"])
        .env("KRIEGSPIEL_DGT_SETTLE_MS", SETTLE_MS.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut table = ChildGuard(
        table
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", kriegspiel.display()))?,
    );
    let out = lines_of(table.0.stdout.take().ok_or("no table stdout")?);
    let err = lines_of(table.0.stderr.take().ok_or("no table stderr")?);
    let mut keypad = table.0.stdin.take().ok_or("no table stdin")?;
    // The boards give the promotions: the keypad sends the rest.
    let commands: Vec<_> = game
        .commands
        .iter()
        .filter(|c| !matches!(c.input, Input::Promote { .. }))
        .collect();
    let deadline = Instant::now() + limit;
    let (mut lines, mut answers, mut sent) = (Vec::new(), 0, 0);
    // Every line the table printed, for a run kept with KS_KEEP.
    let mut log = std::fs::File::create(dir.path().join("table.stdout")).ok();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match out.recv_timeout(left) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let last: Vec<_> = lines.iter().rev().take(8).map(|(_, v)| v).collect();
                return Err(format!(
                    "{}: timed out after {answers} answers; last lines (newest first): {last:?}; stderr: {:?}",
                    game.def.name,
                    err.try_iter().collect::<Vec<_>>()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("not a JSON line ({e}): {line}"))?;
        if v.get("answer").is_some() {
            answers += 1;
            while let Some(c) = commands.get(sent).filter(|c| c.after_answers <= answers) {
                writeln!(keypad, "{}", c.line)
                    .and_then(|()| keypad.flush())
                    .map_err(|e| e.to_string())?;
                sent += 1;
            }
        }
        if let Some(log) = log.as_mut() {
            let _ = writeln!(log, "{line}");
        }
        lines.push((Instant::now(), v));
    }
    let status = table.0.wait().map_err(|e| e.to_string())?;
    let stderr: Vec<String> = err.iter().collect();
    drop(boards);
    Ok(DgtRun {
        lines,
        stderr,
        commands_sent: sent,
        status,
        origin,
        folder: dir,
    })
}
