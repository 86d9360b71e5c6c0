//! A `kriegspiel table` process serving players' terminals, as the end-to-end tests of the
//! players' channel start it: its JSON lines read on a thread of their own (or not read at
//! all, to stall it), its seat codes, and terminals (`kriegspiel player`) or raw
//! connections to its socket.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::link_util::cargo_bin;
use crate::process::ChildGuard;

/// A keys-only table serving players at its socket.
#[derive(Debug)]
pub struct Console {
    pub child: ChildGuard,
    pub keys: Option<ChildStdin>,
    /// Its JSON lines, when they are read.
    pub lines: Option<mpsc::Receiver<Value>>,
    /// Its standard output, when it is left unread.
    pub unread: Option<ChildStdout>,
    pub socket: PathBuf,
    pub journal: PathBuf,
    /// Each seat's code (white, black).
    pub codes: (String, String),
    /// Lines seen while waiting.
    pub seen: Vec<Value>,
}

impl Console {
    /// Starts `kriegspiel table RULES --no-speech` on `journal` with its socket in the same
    /// folder, reads its seat codes and waits for its socket. With `read_stdout` false its
    /// standard output is never read after the codes (a stalled arbiter's terminal).
    pub fn start(journal: &Path, rules: &str, extra: &[&str], read_stdout: bool) -> Console {
        let socket = journal.with_extension("players.sock");
        let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .args(["table", rules, "--no-speech", "--journal"])
            .arg(journal)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let keys = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let err = child.stderr.take().unwrap();
        // Standard error is drained always (a full pipe would stall the console).
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("[console] {line}");
            }
        });
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let opened: Value = serde_json::from_str(&first).unwrap();
        let codes = (
            opened["seats"]["white"].as_str().unwrap().to_owned(),
            opened["seats"]["black"].as_str().unwrap().to_owned(),
        );
        let (lines, unread) = if read_stdout {
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                for line in out.lines().map_while(Result::ok) {
                    let Ok(v) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            });
            (Some(rx), None)
        } else {
            (None, Some(out.into_inner()))
        };
        let console = Console {
            child: ChildGuard(child),
            keys,
            lines,
            unread,
            socket,
            journal: journal.to_owned(),
            codes,
            seen: vec![opened],
        };
        console.wait_for_socket();
        console
    }

    fn wait_for_socket(&self) {
        use std::os::unix::fs::FileTypeExt;
        let deadline = Instant::now() + Duration::from_secs(20);
        while !std::fs::symlink_metadata(&self.socket).is_ok_and(|m| m.file_type().is_socket()) {
            assert!(Instant::now() < deadline, "the socket never appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The code of a seat.
    pub fn code(&self, color: &str) -> &str {
        if color == "white" {
            &self.codes.0
        } else {
            &self.codes.1
        }
    }

    /// Sends one command line to its standard input.
    pub fn command(&mut self, line: &str) {
        writeln!(self.keys.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Waits for a JSON line for which `pick` holds.
    pub fn expect(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        let rx = self.lines.as_ref().expect("its lines are read");
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("never saw {what}; saw {:?}", self.seen));
            self.seen.push(v.clone());
            if pick(&v) {
                return v;
            }
        }
    }

    /// Waits for the `seat` line of a change (`taken`, `left`, `refused`, ...) of `color`.
    pub fn expect_seat(&mut self, change: &str, color: &str) -> Value {
        self.expect(&format!("seat {change} {color}"), |v| {
            v["seat"] == change && v["color"] == color
        })
    }

    /// Resident memory of the console process, in kB.
    pub fn rss_kb(&self) -> u64 {
        proc_status(self.child.0.id(), "VmRSS:")
    }

    /// Threads of the console process.
    pub fn threads(&self) -> u64 {
        proc_status(self.child.0.id(), "Threads:")
    }

    /// CPU time the console process has used (user + system), in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.0.id())).unwrap();
        // The fields after the command name, which is in parentheses.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split(' ').collect();
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    }
}

fn proc_status(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// A player's terminal program (`kriegspiel player`), what it prints read on a thread.
#[derive(Debug)]
pub struct Terminal {
    pub child: ChildGuard,
    pub keys: Option<ChildStdin>,
    pub heard: mpsc::Receiver<String>,
    pub transcript: Vec<String>,
}

impl Terminal {
    /// Starts `kriegspiel player --table 1 --color COLOR --code CODE --socket SOCKET EXTRA`.
    pub fn start(socket: &Path, color: &str, code: &str, extra: &[&str]) -> Terminal {
        let socket = socket.to_str().unwrap();
        let mut args = vec!["--table", "1", "--color", color, "--code", code];
        args.extend(["--socket", socket]);
        args.extend_from_slice(extra);
        Terminal::with_args(&args)
    }

    /// Starts `kriegspiel player ARGS`.
    pub fn with_args(args: &[&str]) -> Terminal {
        let mut child = Command::new(cargo_bin("kriegspiel", "kriegspiel"))
            .arg("player")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let keys = child.stdin.take();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        let (tx, heard) = mpsc::channel();
        let tx_err = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx_err.send(format!("stderr: {line}")).is_err() {
                    return;
                }
            }
        });
        Terminal {
            child: ChildGuard(child),
            keys,
            heard,
            transcript: Vec::new(),
        }
    }

    /// A terminal that has connected ("Connected to table 1").
    pub fn open(console: &Console, color: &str) -> Terminal {
        let mut t = Terminal::start(&console.socket, color, console.code(color), &[]);
        t.expect("Connected to table 1");
        t
    }

    pub fn say(&mut self, line: &str) {
        writeln!(self.keys.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Waits for a line containing `text`; returns it.
    pub fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .heard
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("never heard '{text}'; heard {:?}", self.transcript));
            self.transcript.push(line.clone());
            if line.contains(text) {
                return line;
            }
        }
    }

    /// Its exit status, waited for at most 20 s.
    pub fn exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(s) = self.child.0.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "the terminal did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything it printed until now (waiting `settle` for more).
    pub fn drain(&mut self, settle: Duration) -> Vec<String> {
        while let Ok(l) = self.heard.recv_timeout(settle) {
            self.transcript.push(l);
        }
        self.transcript.clone()
    }
}

/// A raw connection to a players' socket that says `hello` first.
pub fn connect(socket: &Path, hello: &str) -> UnixStream {
    let mut s = UnixStream::connect(socket).unwrap();
    writeln!(s, "{hello}").unwrap();
    s
}

/// The lines a raw connection receives within `wait` (until it closes).
pub fn read_lines(s: &UnixStream, wait: Duration) -> Vec<String> {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut lines = Vec::new();
    let mut r = BufReader::new(s);
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        let mut l = String::new();
        match r.read_line(&mut l) {
            Ok(0) | Err(_) => break,
            Ok(_) => lines.push(l.trim_end().to_owned()),
        }
    }
    lines
}
