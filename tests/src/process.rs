//! Child processes and socat cables shared by the end-to-end tests and the demo.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kriegspiel_table::kriegspiel_referee::shakmaty::Color;

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
    /// The run's folder: the table's journal, each board's stdout and stderr. Removed when
    /// the run is dropped (kept with KS_KEEP).
    pub folder: tempfile::TempDir,
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

    /// The table's journal.
    pub fn journal(&self) -> PathBuf {
        self.folder.path().join("journal.sqlite")
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
        /// The boards' ways to the broker (White's, Black's), when not `url`: proxies that
        /// can cut them off.
        boards_urls: Option<[&'a str; 2]>,
        restart_after: Option<usize>,
    },
}

/// The two `kriegspiel-board simulate` programs of a game being played: a test may kill
/// one (SIGKILL, as a board losing its power) and start it again where its men stand.
#[derive(Debug)]
pub struct Boards {
    /// White's, Black's.
    boards: Vec<BoardProgram>,
    /// The console's process, which a test may stall.
    console: u32,
}

/// One board's program, and how to start it again.
#[derive(Debug)]
struct BoardProgram {
    /// Everything but `--from-event`.
    command: Vec<std::ffi::OsString>,
    program: PathBuf,
    /// Its standard output and error go on at the end of these files.
    stdout: PathBuf,
    stderr: PathBuf,
    running: Option<Running>,
    /// The lifts and places the programs before the running one reported: its `--from-event`.
    done: usize,
}

/// A running board program and the lifts and places it reported so far.
#[derive(Debug)]
struct Running {
    child: ChildGuard,
    reported: std::sync::Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>,
    reader: std::thread::JoinHandle<()>,
}

impl BoardProgram {
    fn start(&mut self) -> Result<(), String> {
        use std::io::{BufRead, Write};
        let append = |path: &Path| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{}: {e}", path.display()))
        };
        let mut child = Command::new(&self.program)
            .args(&self.command)
            .arg("--from-event")
            .arg(self.done.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(append(&self.stderr)?)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.program.display()))?;
        let out = child.stdout.take().ok_or("no board stdout")?;
        let mut log = append(&self.stdout)?;
        let reported = std::sync::Arc::new((std::sync::Mutex::new(0), std::sync::Condvar::new()));
        let counter = reported.clone();
        // `lift e2 at 1012 ms`: one line per lift or place, once its frame is made.
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let _ = writeln!(log, "{line}");
                if line.starts_with("lift ") || line.starts_with("place ") {
                    let (count, changed) = &*counter;
                    *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                    changed.notify_all();
                }
            }
        });
        self.running = Some(Running {
            child: ChildGuard(child),
            reported,
            reader,
        });
        Ok(())
    }

    fn reported(&self) -> usize {
        self.done
            + self.running.as_ref().map_or(0, |r| {
                *r.reported.0.lock().unwrap_or_else(|p| p.into_inner())
            })
    }
}

impl Boards {
    fn board(&mut self, color: Color) -> &mut BoardProgram {
        &mut self.boards[usize::from(color == Color::Black)]
    }

    /// Stops the console (SIGSTOP) for `how_long` while the boards play on, as a machine
    /// too busy to run it would: what they send meanwhile waits to be read.
    pub fn stall_console(&self, how_long: Duration) -> Result<(), String> {
        stall(self.console, how_long)
    }

    /// The lifts and places `color`'s board has made so far (every program it ran).
    pub fn reported(&mut self, color: Color) -> usize {
        self.board(color).reported()
    }

    /// Waits until `color`'s board has made `n` lifts and places; false after `limit`.
    pub fn wait_reported(&mut self, color: Color, n: usize, limit: Duration) -> bool {
        let board = self.board(color);
        let Some(running) = &board.running else {
            return board.done >= n;
        };
        let (count, changed) = &*running.reported;
        let count = count.lock().unwrap_or_else(|p| p.into_inner());
        let (count, _) = changed
            .wait_timeout_while(count, limit, |c| board.done + *c < n)
            .unwrap_or_else(|p| p.into_inner());
        board.done + *count >= n
    }

    /// Kills `color`'s board program (SIGKILL: whatever it kept in memory is gone) and
    /// returns the lifts and places made, all told, when it died.
    pub fn kill(&mut self, color: Color) -> usize {
        let board = self.board(color);
        if let Some(mut running) = board.running.take() {
            let _ = running.child.0.kill();
            let _ = running.child.0.wait();
            // Its output ends with it: every line it printed is counted.
            let _ = running.reader.join();
            board.done += *running.reported.0.lock().unwrap_or_else(|p| p.into_inner());
        }
        board.done
    }

    /// Starts `color`'s board again as a rebooted board: a new program (a new epoch) with
    /// the men where the killed one left them (`--from-event`), the rest of the script at
    /// its times.
    pub fn start_again(&mut self, color: Color) -> Result<(), String> {
        let board = self.board(color);
        if board.running.is_some() {
            return Err(format!("{color}'s board is still running"));
        }
        board.start()
    }
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
    play_table_with(
        cabling,
        game,
        kriegspiel,
        board,
        table_args,
        first_input,
        limit,
        |v, _| on_line(v),
    )
}

/// As [`play_table_via`]; `on_line` may also kill a board program and start it again.
#[allow(clippy::too_many_arguments)]
pub fn play_table_with(
    cabling: Cabling<'_>,
    game: &crate::games::BuiltGame,
    kriegspiel: &Path,
    board: &Path,
    table_args: &[String],
    first_input: Option<&str>,
    limit: Duration,
    mut on_line: impl FnMut(&serde_json::Value, &mut Boards),
) -> Result<TableRun, String> {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::mpsc;

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
    for (i, (color, id)) in ["white", "black"].into_iter().zip(ids).enumerate() {
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
                url, boards_urls, ..
            } => ends.push((
                vec![
                    "--broker".to_owned(),
                    boards_urls.map_or(url, |u| u[i]).to_owned(),
                ],
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
            // The journal drops applied frames every 32 a board, not 4,096: a game's resume
            // and a board's new epoch meet a compacted journal.
            table
                .arg("--broker")
                .arg(url)
                .env("KRIEGSPIEL_INBOX_COMPACT_EVERY", "32");
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
    let mut boards = Boards {
        boards: Vec::new(),
        console: table.0.id(),
    };
    for ((color, (board_args, _)), id) in
        [Color::White, Color::Black].into_iter().zip(&ends).zip(ids)
    {
        let script = dir.path().join(format!("{color}.script"));
        let text = game
            .script(color)
            .with_hold(game.duration_ms + limit.as_millis() as u64)
            .render();
        std::fs::write(&script, text).map_err(|e| e.to_string())?;
        let mut command: Vec<std::ffi::OsString> =
            vec!["simulate".into(), "--script".into(), script.into()];
        command.extend(board_args.iter().map(Into::into));
        command.extend(
            [
                "--board-id".to_owned(),
                id.to_string(),
                "--start-at".to_owned(),
                start_at.to_string(),
            ]
            .map(Into::into),
        );
        let mut program = BoardProgram {
            command,
            program: board.to_owned(),
            stdout: dir.path().join(format!("{color}.stdout")),
            stderr: dir.path().join(format!("{color}.stderr")),
            running: None,
            done: 0,
        };
        program.start()?;
        boards.boards.push(program);
    }

    if let Some(line) = first_input {
        writeln!(keypad, "{line}").map_err(|e| e.to_string())?;
    }
    let deadline = Instant::now() + limit;
    let mut lines: Vec<serde_json::Value> = Vec::new();
    let mut answers = 0;
    let mut sent = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match out.recv_timeout(left) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // What the broker did to the console and the boards, for a game that stalled.
                let notices: Vec<_> = lines.iter().filter(|v| v.get("broker").is_some()).collect();
                let boards_said: Vec<String> = boards
                    .boards
                    .iter()
                    .map(|b| last_lines(&b.stderr, 6))
                    .collect();
                // Everything since the last answer (what the console told the boards), at
                // most 64 lines.
                let since = lines
                    .iter()
                    .rposition(|v| v.get("answer").is_some())
                    .map_or(0, |k| k + 1)
                    .max(lines.len().saturating_sub(64));
                return Err(format!(
                    "timed out after {answers} answers; the lines since the last answer: {:?}; broker notices: {notices:?}; the boards' last words: {boards_said:?}; stderr: {:?}",
                    &lines[since..],
                    err.try_iter().collect::<Vec<_>>()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("not a JSON line ({e}): {line}"))?;
        on_line(&v, &mut boards);
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
            boards.console = table.0.id();
        }
    }
    let status = table.0.wait().map_err(|e| e.to_string())?;
    // stderr closes with the process; collect what is left.
    let stderr: Vec<String> = err.iter().collect();
    drop(boards);
    Ok(TableRun {
        lines,
        stderr,
        commands_sent: sent,
        status,
        folder: dir,
    })
}

/// `kill SIGNAL PID`, said plainly when it fails.
pub(crate) fn signal(pid: u32, name: &str) -> Result<(), String> {
    let status = Command::new("kill")
        .args([name, &pid.to_string()])
        .status()
        .map_err(|e| format!("kill {name} {pid}: {e}"))?;
    status
        .success()
        .then_some(())
        .ok_or(format!("kill {name} {pid}: {status}"))
}

/// SIGSTOP for `how_long`, then SIGCONT: the process does nothing meanwhile, as on a
/// machine too busy to run it, and its files and connections stay open.
pub(crate) fn stall(pid: u32, how_long: Duration) -> Result<(), String> {
    signal(pid, "-STOP")?;
    std::thread::sleep(how_long);
    signal(pid, "-CONT")
}

/// The last `n` lines of the file at `path` (what a board program said before a game stalled).
fn last_lines(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(n)..].join(" | ")
}

/// The pipes of a table started by [`table_in`]: the process, its keys, its lines.
pub type TableIn = (
    ChildGuard,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
);

/// `kriegspiel table` with `args` and a journal of its own in `dir`, keys piped and its
/// lines read by [`lines_of`]; standard error is dropped.
pub fn table_in(dir: &Path, args: &[&std::ffi::OsStr]) -> Result<TableIn, String> {
    let mut child = Command::new(crate::link_util::cargo_bin("kriegspiel", "kriegspiel"))
        .arg("table")
        .args(args)
        .arg("--journal")
        .arg(dir.join("j.sqlite"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start kriegspiel table: {e}"))?;
    let (Some(keys), Some(out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("kriegspiel table without its pipes".to_owned());
    };
    Ok((ChildGuard(child), keys, lines_of(out)))
}

/// Each line `out` writes, on a channel, read on a thread of its own (so that a test can
/// wait for one with a timeout).
pub fn lines_of(out: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead as _;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
