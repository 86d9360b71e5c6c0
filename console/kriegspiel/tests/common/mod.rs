//! What the `kriegspiel hall` tests share: the program started on a round file, its
//! standard output read line by line as it comes, its standard error kept whole.
#![allow(dead_code, clippy::unwrap_used)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

pub use kriegspiel_tests::process::ChildGuard as Guard;

/// A running `kriegspiel hall`: the process (killed when dropped), its standard output's
/// lines, and its whole standard error once it ends.
pub struct Running {
    pub hall: Guard,
    pub lines: mpsc::Receiver<String>,
    pub stderr: JoinHandle<String>,
}

/// `kriegspiel hall --config ROUND --journal JOURNAL ARGS` with `env`, its input piped.
pub fn hall<K, V>(
    round: &Path,
    journal: &Path,
    args: &[&str],
    env: impl IntoIterator<Item = (K, V)>,
) -> Running
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let mut hall = Guard(
        Command::new(env!("CARGO_BIN_EXE_kriegspiel"))
            .arg("hall")
            .arg("--config")
            .arg(round)
            .arg("--journal")
            .arg(journal)
            .args(args)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let (tx, lines) = mpsc::channel::<String>();
    let stdout = hall.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let mut stderr_pipe = hall.0.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    Running {
        hall,
        lines,
        stderr,
    }
}
