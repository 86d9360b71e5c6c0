//! What the tests of the real window share: a child process ended when dropped, the tools
//! from tests/system-packages.sh, and an Xvfb display of their own.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn tool(name: &str) -> Command {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "{name} is missing: run `source tests/system-packages.sh && ensure_packages`"
    );
    Command::new(name)
}

/// An X server of a test's own: ended with SIGTERM when dropped, so that it removes its
/// lock file and socket (a killed one leaves them, and the displays run out).
pub struct XServer(Child);

impl Drop for XServer {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Whether display `n` is taken: its lock file names a running process. The files of a
/// server that is gone are removed.
fn taken(n: u32) -> bool {
    let lock = format!("/tmp/.X{n}-lock");
    let socket = format!("/tmp/.X11-unix/X{n}");
    match std::fs::read_to_string(&lock) {
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(pid) if Path::new(&format!("/proc/{pid}")).exists() => true,
            Ok(_) => {
                let _ = std::fs::remove_file(&lock);
                let _ = std::fs::remove_file(&socket);
                false
            }
            // Being written by a server starting now.
            Err(_) => true,
        },
        Err(_) => Path::new(&socket).exists(),
    }
}

/// Starts Xvfb on the first free display from :91.
pub fn xvfb() -> (XServer, String) {
    for n in 91..140 {
        if taken(n) {
            continue;
        }
        let child = tool("Xvfb")
            .args([
                &format!(":{n}"),
                "-screen",
                "0",
                "1600x1000x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut x = XServer(child);
        let socket = format!("/tmp/.X11-unix/X{n}");
        let start = Instant::now();
        // Ours only when its lock names our server: two tests of one binary may start a
        // server on the same display at once, and the one refused must not take the
        // other's socket (it dies under the first when that test ends).
        let ours = |x: &XServer| {
            std::fs::read_to_string(format!("/tmp/.X{n}-lock"))
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
                == Some(x.0.id())
        };
        while start.elapsed() < Duration::from_secs(10) {
            if Path::new(&socket).exists() && ours(&x) {
                return (x, format!(":{n}"));
            }
            if let Ok(Some(_)) = x.0.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(x);
    }
    panic!("no free X display for Xvfb");
}
