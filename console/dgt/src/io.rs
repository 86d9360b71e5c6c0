//! The tokio task that owns a board's serial port and feeds [`DgtCore`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shakmaty::Color;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_serial::{SerialPort, SerialPortBuilderExt, SerialStream};

use crate::codes::Orientation;
use crate::core::{DgtCore, Settings};
use crate::event::{Counters, DgtEvent, LostReason, Orientations, Report};
use crate::frame::{Command, Decoder, Message};
use crate::policy::{Backoff, LinkKind, Timing};
use crate::rawlog::{Direction, RawEntry, RawLog};

/// DGT boards talk at 9600 baud, 8N1, no handshake.
pub const BAUD: u32 = 9600;

/// How long `dgt:auto` waits for a port's version reply.
pub const PROBE_WAIT: Duration = Duration::from_secs(1);

/// The folders and name prefixes `dgt:auto` looks at.
const AUTO_PREFIXES: [&str; 3] = ["ttyACM", "ttyUSB", "rfcomm"];

/// Where the board is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DgtPort {
    /// A serial device (or pseudo-terminal) path.
    Path(PathBuf),
    /// The first of `/dev/ttyACM*`, `/dev/ttyUSB*`, `/dev/rfcomm*` that answers a version
    /// request within a second; looked for again at every reconnection.
    Auto,
}

/// A board name that is not `dgt:PATH` or `dgt:auto`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortSpecError(pub String);

impl fmt::Display for PortSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.0.chars().take(80).collect();
        write!(
            f,
            "'{shown}' is not a DGT board: expected dgt:PATH or dgt:auto"
        )
    }
}

impl std::error::Error for PortSpecError {}

impl DgtPort {
    /// Reads `dgt:auto` or `dgt:PATH` (as tables and round files name a DGT board).
    pub fn parse(spec: &str) -> Result<DgtPort, PortSpecError> {
        match spec.strip_prefix("dgt:") {
            Some("auto") => Ok(DgtPort::Auto),
            Some(path) if !path.is_empty() => Ok(DgtPort::Path(PathBuf::from(path))),
            _ => Err(PortSpecError(spec.to_owned())),
        }
    }
}

impl fmt::Display for DgtPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DgtPort::Path(path) => write!(f, "dgt:{}", path.display()),
            DgtPort::Auto => f.write_str("dgt:auto"),
        }
    }
}

/// How the driver treats one board. `Default` suits a USB board whose orientation is
/// assumed normal.
#[derive(Debug, Clone)]
pub struct DgtOptions {
    /// USB or Bluetooth; `None`: told from the path (`/dev/rfcomm*` is Bluetooth).
    pub link: Option<LinkKind>,
    /// The clocks; `None`: those of the link kind.
    pub timing: Option<Timing>,
    /// Whose men tell the orientation: the board is taken to stand the way that puts this
    /// colour's king and rooks on their start squares.
    pub owner: Option<Color>,
    /// A fixed orientation (no detection).
    pub orientation: Option<Orientation>,
    /// Orientations remembered by serial number; share one between drivers and save it.
    pub orientations: Orientations,
    /// Reports held for a slow reader before the driver waits for it.
    pub channel_capacity: usize,
    /// Bytes of raw traffic kept for [`DgtHandle::raw_log`].
    pub raw_log_bytes: usize,
}

impl Default for DgtOptions {
    fn default() -> Self {
        DgtOptions {
            link: None,
            timing: None,
            owner: None,
            orientation: None,
            orientations: Orientations::default(),
            channel_capacity: 256,
            raw_log_bytes: RawLog::DEFAULT_CAPACITY,
        }
    }
}

/// How often the core's clocks are looked at: a fifth of the command pace.
const TICK: Duration = Duration::from_millis(10);

/// Starts drivers.
#[derive(Debug)]
pub struct DgtBoard;

impl DgtBoard {
    /// Starts driving the board at `port` on the current tokio runtime (call from within
    /// one). The driver keeps (re)opening the port until the handle is dropped or the
    /// receiver closed.
    pub fn open(port: DgtPort, options: DgtOptions) -> (DgtHandle, mpsc::Receiver<Report>) {
        let link = options.link.unwrap_or(match &port {
            DgtPort::Path(path) => LinkKind::of_path(path),
            DgtPort::Auto => LinkKind::Usb,
        });
        let settings = Settings {
            timing: options.timing.unwrap_or(Timing::for_link(link)),
            owner: options.owner,
            orientation: options.orientation,
            orientations: options.orientations.clone(),
        };
        let (reports_tx, reports_rx) = mpsc::channel(options.channel_capacity.max(1));
        let (counters_tx, counters_rx) = watch::channel(Counters::default());
        let (commands_tx, commands_rx) = mpsc::channel(4);
        let raw = Arc::new(Mutex::new(RawLog::new(options.raw_log_bytes)));
        let started = Instant::now();
        let task = tokio::spawn(run(
            port,
            settings,
            Channels {
                reports: reports_tx,
                counters: counters_tx,
                commands: commands_rx,
                raw: Arc::clone(&raw),
                start: started,
            },
        ));
        (
            DgtHandle {
                task,
                counters: counters_rx,
                commands: commands_tx,
                raw,
                started,
            },
            reports_rx,
        )
    }
}

/// Controls a running driver; dropping it stops the driver and closes the port.
#[derive(Debug)]
pub struct DgtHandle {
    task: JoinHandle<()>,
    counters: watch::Receiver<Counters>,
    commands: mpsc::Sender<Command>,
    raw: Arc<Mutex<RawLog>>,
    started: Instant,
}

impl DgtHandle {
    /// The origin of the reports' `at`.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The counters as of the last step.
    pub fn counters(&self) -> Counters {
        *self.counters.borrow()
    }

    /// Ask the board for a dump now; a `Position` follows if it differs from the last.
    pub fn request_position(&self) {
        // A full queue already holds a request; a closed one has no board to ask.
        let _ = self.commands.try_send(Command::SendBoard);
    }

    /// The last bytes exchanged with the board, oldest first.
    pub fn raw_log(&self) -> Vec<RawEntry> {
        self.raw_log_since(0)
    }

    /// The entries of the raw log after the one numbered `seq` (those still held).
    pub fn raw_log_since(&self, seq: u64) -> Vec<RawEntry> {
        let log = self.raw.lock().unwrap_or_else(|p| p.into_inner());
        log.since(seq).cloned().collect()
    }
}

impl Drop for DgtHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Channels {
    reports: mpsc::Sender<Report>,
    counters: watch::Sender<Counters>,
    commands: mpsc::Receiver<Command>,
    raw: Arc<Mutex<RawLog>>,
    start: Instant,
}

impl Channels {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn log(&self, direction: Direction, bytes: &[u8]) {
        let mut log = self.raw.lock().unwrap_or_else(|p| p.into_inner());
        log.record(self.now(), direction, bytes);
    }
}

/// Why a session ended.
enum End {
    PortLost,
    ConsumerGone,
}

async fn run(port: DgtPort, settings: Settings, mut channels: Channels) {
    let mut backoff = Backoff::new(&settings.timing);
    let mut core = DgtCore::new(settings);
    loop {
        let opened = match &port {
            DgtPort::Path(path) => open_port(path),
            DgtPort::Auto => find_board().await.map(|(_, port)| port),
        };
        match opened {
            Ok(mut serial) => {
                core.opened(channels.now());
                match session(&mut core, &mut serial, &mut channels, &mut backoff).await {
                    End::PortLost => {}
                    End::ConsumerGone => return,
                }
            }
            Err(error) => {
                core.open_failed(error, channels.now());
                if !deliver(&mut core, &channels).await {
                    return;
                }
            }
        }
        tokio::time::sleep(backoff.next_pause()).await;
    }
}

/// Opens a board's port: raw 9600 8N1, exclusive, DTR raised where the port has one.
pub fn open_port(path: &Path) -> Result<SerialStream, String> {
    let fail = |e: &dyn fmt::Display| format!("cannot open {}: {e}", path.display());
    // A file or a folder given as the port would fail with the system's "Not a typewriter".
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return Err(fail(&"it is a regular file, not a serial port")),
        Ok(m) if m.is_dir() => return Err(fail(&"it is a folder, not a serial port")),
        _ => {}
    }
    let mut port = tokio_serial::new(path.to_string_lossy(), BAUD)
        .data_bits(tokio_serial::DataBits::Eight)
        .parity(tokio_serial::Parity::None)
        .stop_bits(tokio_serial::StopBits::One)
        .flow_control(tokio_serial::FlowControl::None)
        .open_native_async()
        .map_err(|e| fail(&e))?;
    // Some USB adapters want DTR; a pseudo-terminal has none and refuses: no matter.
    let _ = port.write_data_terminal_ready(true);
    // Bytes queued before we opened belong to no request of ours.
    let _ = port.clear(tokio_serial::ClearBuffer::All);
    Ok(port)
}

/// The candidate ports of `dgt:auto`, in name order.
pub fn auto_candidates(dev: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dev) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            AUTO_PREFIXES.iter().any(|p| name.starts_with(p))
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Whether a DGT board answers on `port`: sends a version request and waits up to
/// [`PROBE_WAIT`] for the version message.
pub async fn probe(port: &mut SerialStream) -> bool {
    if port
        .write_all(&[Command::SendVersion.byte()])
        .await
        .is_err()
    {
        return false;
    }
    let mut decoder = Decoder::new();
    let mut buf = [0u8; 256];
    let deadline = Instant::now() + PROBE_WAIT;
    loop {
        let read = tokio::time::timeout_at(deadline, port.read(&mut buf)).await;
        let Ok(Ok(n)) = read else { return false };
        if n == 0 {
            return false;
        }
        let mut answered = false;
        decoder.feed(&buf[..n], |m| {
            answered |= matches!(m, Ok(Message::Version { .. }));
        });
        if answered {
            return true;
        }
    }
}

/// `dgt:auto`: the first candidate port where a DGT board answers, opened.
pub async fn find_board() -> Result<(PathBuf, SerialStream), String> {
    let candidates = auto_candidates(Path::new("/dev"));
    if candidates.is_empty() {
        return Err("dgt:auto: no /dev/ttyACM*, /dev/ttyUSB* or /dev/rfcomm* port".into());
    }
    for path in &candidates {
        // A port held by another program (another table's board) is busy: skip it.
        let Ok(mut port) = open_port(path) else {
            continue;
        };
        if probe(&mut port).await {
            return Ok((path.clone(), port));
        }
    }
    let names: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "dgt:auto: no DGT board answered on {}",
        names.join(", ")
    ))
}

/// Sends pending reports; false when nobody listens any more.
async fn deliver(core: &mut DgtCore, channels: &Channels) -> bool {
    let step = core.take_step(channels.now());
    channels.counters.send_replace(core.counters());
    for report in step.reports {
        if channels.reports.send(report).await.is_err() {
            return false;
        }
    }
    true
}

async fn session(
    core: &mut DgtCore,
    port: &mut SerialStream,
    channels: &mut Channels,
    backoff: &mut Backoff,
) -> End {
    let mut buf = [0u8; 512];
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut commands_open = true;
    loop {
        let step = core.take_step(channels.now());
        if !step.outgoing.is_empty() && !step.close {
            channels.log(Direction::ToBoard, &step.outgoing);
            let write =
                tokio::time::timeout(Duration::from_secs(1), port.write_all(&step.outgoing)).await;
            let error = match write {
                Ok(Ok(())) => None,
                Ok(Err(error)) => Some(error.to_string()),
                Err(_) => Some("write timed out".to_owned()),
            };
            if let Some(error) = error {
                core.port_lost(LostReason::Io(error), channels.now());
            }
        }
        let close = step.close || !core.is_open();
        channels.counters.send_replace(core.counters());
        for report in step.reports {
            if matches!(report.event, DgtEvent::Connected(_) | DgtEvent::Back(_)) {
                backoff.reset();
            }
            if channels.reports.send(report).await.is_err() {
                return End::ConsumerGone;
            }
        }
        if close {
            if !deliver(core, channels).await {
                return End::ConsumerGone;
            }
            return End::PortLost;
        }
        tokio::select! {
            read = port.read(&mut buf) => match read {
                Ok(0) => core.port_lost(LostReason::Closed, channels.now()),
                Ok(n) => {
                    channels.log(Direction::FromBoard, &buf[..n]);
                    core.received(&buf[..n], channels.now());
                }
                Err(error) => core.port_lost(LostReason::Io(error.to_string()), channels.now()),
            },
            _ = ticker.tick() => core.tick(channels.now()),
            command = channels.commands.recv(), if commands_open => match command {
                Some(_) => core.request_position(channels.now()),
                None => commands_open = false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_names() {
        assert_eq!(DgtPort::parse("dgt:auto"), Ok(DgtPort::Auto));
        assert_eq!(
            DgtPort::parse("dgt:/dev/ttyACM0"),
            Ok(DgtPort::Path("/dev/ttyACM0".into()))
        );
        assert_eq!(
            DgtPort::parse("dgt:/dev/ttyACM0").unwrap().to_string(),
            "dgt:/dev/ttyACM0"
        );
        for bad in ["dgt:", "/dev/ttyACM0", "board:3"] {
            let err = DgtPort::parse(bad).unwrap_err();
            assert!(err.to_string().contains("dgt:PATH or dgt:auto"), "{err}");
        }
    }

    #[test]
    fn auto_looks_at_usb_acm_and_rfcomm_ports_only() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["ttyUSB1", "ttyACM0", "rfcomm0", "ttyS0", "null", "ttyACM10"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let names: Vec<String> = auto_candidates(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["rfcomm0", "ttyACM0", "ttyACM10", "ttyUSB1"]);
        assert!(auto_candidates(Path::new("/nonexistent")).is_empty());
    }

    #[test]
    fn a_regular_file_is_no_port() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board");
        std::fs::write(&path, b"").unwrap();
        let err = open_port(&path).unwrap_err();
        assert!(
            err.ends_with("it is a regular file, not a serial port"),
            "{err}"
        );
    }
}
