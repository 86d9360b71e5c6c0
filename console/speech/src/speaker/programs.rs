//! Finding programs on the PATH, and running a helper program (aplay, pactl) for a limited
//! time.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a device check ([`super::Sink::probe`]) waits for aplay or pactl.
pub const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// Runs `cmd` (stdin and stdout closed) for at most [`PROBE_LIMIT`]: whether it succeeded,
/// and its standard error.
pub(super) fn run_limited(mut cmd: Command, name: &str) -> Result<(bool, String), String> {
    cmd.stdout(Stdio::null());
    let out = limited_output(cmd, name)?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// `cmd`'s output, killing it after [`PROBE_LIMIT`]. At most 64 KiB of each stream is kept.
pub(super) fn limited_output(mut cmd: Command, name: &str) -> Result<std::process::Output, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let _ = r.take(64 * 1024).read_to_end(&mut buf);
            }
            buf
        })
    };
    let stdout = read(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = read(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + PROBE_LIMIT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{name} did not answer within {} s",
                    PROBE_LIMIT.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for {name}: {e}")),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Looks for `program` in the directories of `path` (a PATH value).
pub fn find_program(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// Looks for `program` on the PATH.
pub fn on_path(program: &str) -> Option<PathBuf> {
    find_program(program, &std::env::var_os("PATH").unwrap_or_default())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::speaker::SpeechError;

    #[test]
    fn missing_program_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_program("espeak-ng", dir.path().as_os_str()), None);
        assert!(SpeechError::NoProgram.to_string().contains("espeak-ng"));
    }
}
