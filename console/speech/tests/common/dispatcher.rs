//! A private, headless speech-dispatcher (tests/tools/start-speechd.sh) whose ALSA default
//! is a WAV file. Shared by the speech crate's tests and bench and the app's hall tests
//! (`#[path]`), so it depends on std only.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Killed (by its pid) when dropped, also when stopped.
pub struct Dispatcher {
    pid: String,
    /// Where the tts client (libspeechd) finds it: `SPEECHD_ADDRESS`.
    pub address: String,
    /// Its recording.
    pub wav: PathBuf,
}

impl Dispatcher {
    pub fn start(dir: &Path) -> Dispatcher {
        let var = start_script("start-speechd.sh", &[dir.as_os_str()]);
        Dispatcher {
            pid: var("SPEECHD_PID"),
            address: var("SPEECHD_ADDRESS"),
            wav: PathBuf::from(var("SPEECHD_WAV")),
        }
    }

    /// Its process id, for a signal sent from another thread.
    pub fn pid(&self) -> &str {
        &self.pid
    }

    /// Sends `signal` (`-STOP`, `-CONT`, ...) to it.
    pub fn signal(&self, signal: &str) {
        let _ = Command::new("kill").args([signal, &self.pid]).status();
    }

    /// The recording's size in bytes.
    pub fn size(&self) -> u64 {
        std::fs::metadata(&self.wav).map(|m| m.len()).unwrap_or(0)
    }

    /// Waits until the recording has not grown for `quiet` (at most `limit`).
    pub fn wait_quiet(&self, quiet: Duration, limit: Duration) {
        let start = Instant::now();
        let (mut last, mut since) = (self.size(), Instant::now());
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
            let now = self.size();
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= quiet {
                return;
            }
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.signal("-KILL");
    }
}

/// Runs `tests/tools/NAME` (a private audio service's start script) with `args`; gives a
/// lookup of the `VAR=value` words it prints.
pub fn start_script(name: &str, args: &[&OsStr]) -> impl Fn(&str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/tools")
        .join(name);
    let out = Command::new("bash")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    move |var: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{var}=")))
            .unwrap_or_else(|| panic!("no {var} in {text}"))
            .to_owned()
    }
}
