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
