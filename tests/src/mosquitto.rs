//! A private mosquitto for a test: on 127.0.0.1, on a free port, in a temporary folder,
//! killed with the test (never the system's service). It can be killed with SIGKILL and
//! started again on the same port, as a crashed broker would be.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::{signal, stall, ChildGuard};

/// A running (or killed) private broker.
#[derive(Debug)]
pub struct Mosquitto {
    child: Option<ChildGuard>,
    pub port: u16,
    conf: PathBuf,
    log: PathBuf,
}

/// A port nobody listens on now.
pub fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

impl Mosquitto {
    /// Starts mosquitto in `dir` with `extra` configuration lines (password and ACL files,
    /// TLS), anonymous clients allowed unless `extra` says otherwise.
    pub fn start(dir: &Path, extra: &str) -> Result<Mosquitto, String> {
        let port = free_port()?;
        let conf = dir.join("mosquitto.conf");
        let anonymous = if extra.contains("allow_anonymous") {
            ""
        } else {
            "allow_anonymous true\n"
        };
        // Root would drop to the `mosquitto` user, which cannot read a test's folder.
        let user = if is_root() { "user root\n" } else { "" };
        std::fs::write(
            &conf,
            format!(
                "listener {port} 127.0.0.1\n{anonymous}{user}persistence false\nmax_queued_messages 100000\nlog_dest stderr\n{extra}\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let mut m = Mosquitto {
            child: None,
            port,
            conf,
            log: dir.join("mosquitto.log"),
        };
        m.restart()?;
        Ok(m)
    }

    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// Starts it (again) on its port and waits until it takes connections.
    pub fn restart(&mut self) -> Result<(), String> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(|e| e.to_string())?;
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(&self.conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| {
                format!("cannot run mosquitto ({e}): install it with `apt-get install mosquitto`")
            })?;
        self.child = Some(ChildGuard(child));
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if Instant::now() > deadline {
                return Err(format!("mosquitto did not listen: {}", self.log_text()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// SIGTERM, as a service manager stops it: it closes every connection, saying each
    /// client's last will first.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            if signal(c.0.id(), "-TERM").is_err() {
                let _ = c.0.kill();
            }
            let _ = c.0.wait();
        }
    }

    /// SIGSTOP for `how_long`, then SIGCONT: its connections stay open and nothing moves
    /// through them, as with an overloaded room server or a Wi-Fi hiccup; what was sent
    /// meanwhile goes on at once.
    pub fn stall(&self, how_long: Duration) -> Result<(), String> {
        let Some(c) = &self.child else {
            return Err("the broker is not running".into());
        };
        stall(c.0.id(), how_long)
    }

    /// SIGKILL: whatever it held is gone, as in a crash.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.0.kill();
            let _ = c.0.wait();
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false)
}

/// A TCP proxy in the test process between clients and the broker, which can cut every
/// connection for a while, as a pulled network cable or a dead switch would: connections
/// open are closed, new ones refused until the cut ends.
#[derive(Debug, Clone)]
pub struct CuttableProxy {
    pub port: u16,
    state: std::sync::Arc<ProxyState>,
}

#[derive(Debug, Default)]
struct ProxyState {
    cut: std::sync::atomic::AtomicBool,
    open: std::sync::Mutex<Vec<TcpStream>>,
}

impl CuttableProxy {
    /// Forwards 127.0.0.1:`port` (a free one) to 127.0.0.1:`upstream`.
    pub fn start(upstream: u16) -> Result<CuttableProxy, String> {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let state = std::sync::Arc::new(ProxyState::default());
        let s = state.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if s.cut.load(Ordering::SeqCst) {
                    continue; // dropped: refused while cut
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let pairs = [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ];
                if let Ok(mut open) = s.open.lock() {
                    open.extend(client.try_clone());
                    open.extend(server.try_clone());
                }
                for (from, to) in pairs {
                    if let (Ok(mut from), Ok(mut to)) = (from, to) {
                        std::thread::spawn(move || {
                            let _ = std::io::copy(&mut from, &mut to);
                            let _ = to.shutdown(std::net::Shutdown::Both);
                        });
                    }
                }
            }
        });
        Ok(CuttableProxy { port, state })
    }

    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// Cuts every connection now and refuses new ones for `how_long`.
    pub fn cut_for(&self, how_long: Duration) {
        self.cut();
        std::thread::sleep(how_long);
        self.restore();
    }

    /// Cuts every connection now and refuses new ones until [`CuttableProxy::restore`]:
    /// nothing sent after this returns gets through.
    pub fn cut(&self) {
        use std::sync::atomic::Ordering;
        self.state.cut.store(true, Ordering::SeqCst);
        if let Ok(mut open) = self.state.open.lock() {
            for s in open.drain(..) {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    /// Takes new connections again.
    pub fn restore(&self) {
        use std::sync::atomic::Ordering;
        self.state.cut.store(false, Ordering::SeqCst);
    }
}
