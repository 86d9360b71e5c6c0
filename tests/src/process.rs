//! Child processes and socat cables shared by the end-to-end tests and the demo.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Ends a child process when dropped, however the test or demo ends.
#[derive(Debug)]
pub struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A socat pseudo-terminal pair standing in for a board's cable: the board program opens
/// `DIR/NAME-board`, the console opens `DIR/NAME-console`.
pub fn socat_cable(dir: &Path, name: &str) -> Result<(ChildGuard, PathBuf, PathBuf), String> {
    let board = dir.join(format!("{name}-board"));
    let console = dir.join(format!("{name}-console"));
    let child = Command::new("socat")
        .arg(format!("pty,raw,echo=0,link={}", board.display()))
        .arg(format!("pty,raw,echo=0,link={}", console.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run socat ({e}): install it with `apt-get install socat`"))?;
    let guard = ChildGuard(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(board.exists() && console.exists()) {
        if Instant::now() > deadline {
            return Err(format!("socat did not create the {name} pseudo-terminals"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok((guard, board, console))
}

/// What `kriegspiel table` printed and did while playing a built game.
#[derive(Debug)]
pub struct TableRun {
    /// Every standard-output line, parsed, in order.
    pub lines: Vec<serde_json::Value>,
    /// Standard-error lines (warnings, bad keypad lines).
    pub stderr: Vec<String>,
    /// How many keypad lines of the game were sent.
    pub commands_sent: usize,
    pub status: std::process::ExitStatus,
}

impl TableRun {
    /// The lines that are referee answers (`new`, verdicts, replies).
    pub fn answers(&self) -> Vec<&serde_json::Value> {
        self.lines
            .iter()
            .filter(|v| v.get("answer").is_some())
            .collect()
    }

    /// The lines that carry `key` (`private`, `link`, `final_fen`, ...).
    pub fn with_key(&self, key: &str) -> Vec<&serde_json::Value> {
        self.lines.iter().filter(|v| v.get(key).is_some()).collect()
    }
}

/// Plays `game` for real: two socat cables, two `kriegspiel-board simulate` programs with
/// the game's scripts, and `kriegspiel table` with `table_args` added to the game's own; the
/// game's keypad lines go to the table's standard input once enough answers were printed,
/// after `first_input` (if any). `on_line` sees each output line as it comes. Ends when the
/// table exits, or with an error after `limit`.
pub fn play_table(
    game: &crate::games::BuiltGame,
    kriegspiel: &Path,
    board: &Path,
    table_args: &[String],
    first_input: Option<&str>,
    limit: Duration,
    on_line: impl FnMut(&serde_json::Value),
) -> Result<TableRun, String> {
    play_table_via(
        Cabling::Serial,
        game,
        kriegspiel,
        board,
        table_args,
        first_input,
        limit,
        on_line,
    )
}

/// How the boards reach the table.
#[derive(Debug, Clone, Copy)]
pub enum Cabling<'a> {
    /// A socat pseudo-terminal pair per board.
    Serial,
    /// Through the broker at `url` (`board:ID` at the table); with `restart_after`, the
    /// table is killed (SIGKILL) after that many answers and started again 2 s later on the
    /// same journal, as after a crash.
    Broker {
        url: &'a str,
        /// The boards' way to the broker, when not `url` (a proxy that can cut them off).
        boards_url: Option<&'a str>,
        restart_after: Option<usize>,
    },
}

/// As [`play_table`], with the boards cabled as `cabling` says.
#[allow(clippy::too_many_arguments)]
pub fn play_table_via(
    cabling: Cabling<'_>,
    game: &crate::games::BuiltGame,
    kriegspiel: &Path,
    board: &Path,
    table_args: &[String],
    first_input: Option<&str>,
    limit: Duration,
    mut on_line: impl FnMut(&serde_json::Value),
) -> Result<TableRun, String> {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::mpsc;

    use kriegspiel_table::kriegspiel_referee::shakmaty::Color;

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

    // The journal in memory-backed storage where there is one: the boards play an open-loop
    // script while the keypad commands follow the printed verdicts, and a verdict waits for
    // its commit, so another program's writes to the disk (a build beside the suite) could
    // hold a verdict back past the next scripted hand. The hall's own tests and benchmark
    // measure the journal on a disk.
    let shm = Path::new("/dev/shm");
    // KS_KEEP=FILE keeps the folder (journal, boards' stderr) and writes its path to FILE.
    let keep = std::env::var_os("KS_KEEP");
    let dir = tempfile::Builder::new()
        .disable_cleanup(keep.is_some())
        .tempdir_in(if shm.is_dir() {
            shm.to_owned()
        } else {
            std::env::temp_dir()
        })
        .map_err(|e| e.to_string())?;
    if let Some(keep) = keep {
        let _ = std::fs::write(keep, dir.path().display().to_string());
    }
    let ids = crate::games::SIM_BOARD_IDS;
    let mut cables = Vec::new();
    // Per board: what the board program is given, what the table is given.
    let mut ends: Vec<(Vec<String>, String)> = Vec::new();
    for (color, id) in ["white", "black"].into_iter().zip(ids) {
        match cabling {
            Cabling::Serial => {
                let (cable, board_end, console_end) = socat_cable(dir.path(), color)?;
                cables.push(cable);
                ends.push((
                    vec!["--port".to_owned(), board_end.display().to_string()],
                    console_end.display().to_string(),
                ));
            }
            Cabling::Broker {
                url, boards_url, ..
            } => ends.push((
                vec!["--broker".to_owned(), boards_url.unwrap_or(url).to_owned()],
                format!("board:{id}"),
            )),
        }
    }
    let start_table = || -> Result<_, String> {
        let mut table = Command::new(kriegspiel);
        table
            .arg("table")
            .arg("--white")
            .arg(&ends[0].1)
            .arg("--black")
            .arg(&ends[1].1);
        if let Cabling::Broker { url, .. } = cabling {
            table.arg("--broker").arg(url);
        }
        table
            .args(game.table_args())
            .arg("--journal")
            .arg(dir.path().join("journal.sqlite"))
            .args(table_args)
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
        let keypad = table.0.stdin.take().ok_or("no table stdin")?;
        Ok((table, out, err, keypad))
    };
    let (mut table, mut out, mut err, mut keypad) = start_table()?;
    let mut restart_after = match cabling {
        Cabling::Broker { restart_after, .. } => restart_after,
        Cabling::Serial => None,
    };

    // Both boards count their scripts from one moment, however far apart their programs
    // start on a loaded machine: the game's timing between the two hands holds.
    let start_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_millis()
        + 500;
    let mut boards = Vec::new();
    for ((color, (board_args, _)), id) in
        [Color::White, Color::Black].into_iter().zip(&ends).zip(ids)
    {
        let script = dir.path().join(format!("{color}.script"));
        let text = game
            .script(color)
            .with_hold(game.duration_ms + limit.as_millis() as u64)
            .render();
        std::fs::write(&script, text).map_err(|e| e.to_string())?;
        let child = Command::new(board)
            .arg("simulate")
            .arg("--script")
            .arg(&script)
            .args(board_args)
            .arg("--board-id")
            .arg(id.to_string())
            .arg("--start-at")
            .arg(start_at.to_string())
            .arg("--quiet")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(dir.path().join(format!("{color}.stderr")))
                    .map_err(|e| e.to_string())?,
            )
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", board.display()))?;
        boards.push(ChildGuard(child));
    }

    if let Some(line) = first_input {
        writeln!(keypad, "{line}").map_err(|e| e.to_string())?;
    }
    let deadline = Instant::now() + limit;
    let mut lines = Vec::new();
    let mut answers = 0;
    let mut sent = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match out.recv_timeout(left) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "timed out after {answers} answers; last lines: {:?}; stderr: {:?}",
                    &lines[lines.len().saturating_sub(8)..],
                    err.try_iter().collect::<Vec<_>>()
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("not a JSON line ({e}): {line}"))?;
        on_line(&v);
        if let Some(dump) = std::env::var_os("KS_DUMP") {
            use std::io::Write as _;
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dump)
            {
                let _ = writeln!(f, "{line}");
            }
        }
        // A restarted table says again what it may not have said: not a new answer.
        if v.get("answer").is_some() && v.get("repeat").is_none() {
            answers += 1;
            while let Some(c) = game.commands.get(sent) {
                if c.after_answers > answers {
                    break;
                }
                writeln!(keypad, "{}", c.line)
                    .and_then(|()| keypad.flush())
                    .map_err(|e| e.to_string())?;
                sent += 1;
            }
        }
        lines.push(v);
        if restart_after == Some(answers) {
            restart_after = None;
            let _ = table.0.kill();
            let _ = table.0.wait();
            std::thread::sleep(Duration::from_secs(2));
            (table, out, err, keypad) = start_table()?;
        }
    }
    let status = table.0.wait().map_err(|e| e.to_string())?;
    // stderr closes with the process; collect what is left.
    let stderr: Vec<String> = err.iter().collect();
    Ok(TableRun {
        lines,
        stderr,
        commands_sent: sent,
        status,
    })
}
