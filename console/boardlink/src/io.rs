//! The tokio task that owns the serial port and feeds [`LinkCore`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_serial::{SerialPort, SerialPortBuilderExt, SerialStream};

use crate::core::{LinkCore, Timing};
use crate::event::{DisconnectReason, Health, Report};
use crate::progress::Progress;

/// How the link talks to one board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// Line speed; ignored by pseudo-terminals and USB CDC serial.
    pub baud: u32,
    pub timing: Timing,
    /// Pause between attempts to (re)open the port.
    pub reopen_interval: Duration,
    /// How often the core's clocks are checked (timeouts, retries). Well under 500 ms: a
    /// look at the clock that long after the one before is taken for a console held up, and
    /// its gap is not counted as the board's silence.
    pub tick_interval: Duration,
    /// Reports buffered for a slow consumer before the link waits for it (nothing is dropped).
    pub channel_capacity: usize,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            baud: 115_200,
            timing: Timing::default(),
            reopen_interval: Duration::from_millis(250),
            tick_interval: Duration::from_millis(50),
            channel_capacity: 1024,
        }
    }
}

/// Starts links to boards.
#[derive(Debug)]
pub struct BoardLink;

impl BoardLink {
    /// Starts a link to the board at `path` on the current tokio runtime. The link keeps
    /// (re)opening the port until the handle is dropped or the receiver is closed.
    pub fn spawn(
        path: impl Into<PathBuf>,
        config: LinkConfig,
    ) -> (BoardLinkHandle, mpsc::Receiver<Report>) {
        let path = path.into();
        let baud = config.baud;
        // A port's bytes wait unread while the console is held up: its tables are told how
        // far the board's stream has come, and wait for the rest.
        let (progress_tx, progress_rx) = watch::channel(Progress::default());
        let (mut handle, reports) = Self::spawn_inner(
            move || open(&path, baud).map_err(|e| format!("cannot open {}: {e}", path.display())),
            config,
            Some(progress_tx),
        );
        handle.progress = Some(progress_rx);
        (handle, reports)
    }

    /// Starts a link over any byte stream that `open` (re)opens: a simulated board in the
    /// same process. The same link logic as for a serial port, with no [`Progress`]: no
    /// table waits for such a link (a board in the same process is never late).
    pub fn spawn_with<P, F>(
        open: F,
        config: LinkConfig,
    ) -> (BoardLinkHandle, mpsc::Receiver<Report>)
    where
        P: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: FnMut() -> Result<P, String> + Send + 'static,
    {
        Self::spawn_inner(open, config, None)
    }

    fn spawn_inner<P, F>(
        open: F,
        config: LinkConfig,
        progress: Option<watch::Sender<Progress>>,
    ) -> (BoardLinkHandle, mpsc::Receiver<Report>)
    where
        P: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: FnMut() -> Result<P, String> + Send + 'static,
    {
        let (reports_tx, reports_rx) = mpsc::channel(config.channel_capacity.max(1));
        let (health_tx, health_rx) = watch::channel(Health::default());
        let (commands_tx, commands_rx) = mpsc::unbounded_channel();
        let started = Instant::now();
        let task = tokio::spawn(run(
            open,
            config,
            Channels {
                reports: reports_tx,
                health: health_tx,
                commands: commands_rx,
                start: started,
                progress,
                read_at: None,
            },
        ));
        (
            BoardLinkHandle {
                task,
                health: health_rx,
                commands: commands_tx,
                started,
                progress: None,
            },
            reports_rx,
        )
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Command {
    RequestSnapshot,
}

/// Controls a running link; dropping it stops the link and closes the port.
#[derive(Debug)]
pub struct BoardLinkHandle {
    pub(crate) task: JoinHandle<()>,
    pub(crate) health: watch::Receiver<Health>,
    pub(crate) commands: mpsc::UnboundedSender<Command>,
    pub(crate) started: Instant,
    /// How far the board's stream has come (none for a board in the same process).
    pub(crate) progress: Option<watch::Receiver<Progress>>,
}

impl BoardLinkHandle {
    /// The counters as of the last processed input.
    pub fn health(&self) -> Health {
        *self.health.borrow()
    }

    /// The origin of the link's clock: a report's `at` is the time since this instant.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// How far a serial or networked board's stream has come; `None` for a board in the
    /// same process, whose events are never late.
    pub fn progress(&self) -> Option<Progress> {
        self.progress.as_ref().map(|p| *p.borrow())
    }

    /// Asks the board for a snapshot (delivered as a Snapshot or Resync report).
    pub fn request_snapshot(&self) {
        // Fails only when the task has ended, and then there is no board to ask.
        let _ = self.commands.send(Command::RequestSnapshot);
    }
}

impl Drop for BoardLinkHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Channels {
    reports: mpsc::Sender<Report>,
    health: watch::Sender<Health>,
    commands: mpsc::UnboundedReceiver<Command>,
    start: Instant,
    progress: Option<watch::Sender<Progress>>,
    /// When the latest bytes whose reports are being delivered were read.
    read_at: Option<Duration>,
}

impl Channels {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// Once the reports of the bytes read are handed over: how far the board's stream has
    /// come (never before, or a table would wait for nothing or run ahead of them).
    fn delivered(&mut self, core: &LinkCore) {
        if let (Some(progress), Some(read)) = (&self.progress, self.read_at.take()) {
            progress.send_replace(Progress::delivered(core.made_through(), read));
        }
    }

    /// The port is open anew (nothing of it read yet), or gone with whatever it held.
    fn restarted(&mut self, stopped: bool) {
        self.read_at = None;
        if let Some(progress) = &self.progress {
            progress.send_replace(Progress {
                stopped,
                ..Progress::default()
            });
        }
    }
}

/// Why a session ended.
enum End {
    /// The port is gone; try to reopen it.
    PortLost,
    /// Nobody listens any more.
    ConsumerGone,
}

async fn run<P, F>(mut open: F, config: LinkConfig, mut channels: Channels)
where
    P: AsyncRead + AsyncWrite + Unpin,
    F: FnMut() -> Result<P, String>,
{
    let mut core = LinkCore::new(config.timing);
    loop {
        match open() {
            Ok(mut port) => {
                core.opened(channels.now());
                channels.restarted(false);
                match session(&mut core, &mut port, &config, &mut channels).await {
                    End::PortLost => channels.restarted(true),
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
        tokio::time::sleep(config.reopen_interval).await;
    }
}

fn open(path: &Path, baud: u32) -> Result<SerialStream, String> {
    // A file or a folder given as the port would fail with the system's "Not a typewriter".
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return Err("it is a regular file, not a serial port".into()),
        Ok(m) if m.is_dir() => return Err("it is a folder, not a serial port".into()),
        _ => {}
    }
    let port = tokio_serial::new(path.to_string_lossy(), baud)
        .open_native_async()
        .map_err(|e| e.to_string())?;
    // Bytes queued before we opened belong to nobody's frame; losing them at worst costs one
    // bad frame, so a failure to clear is not worth refusing the port.
    let _ = port.clear(tokio_serial::ClearBuffer::Input);
    Ok(port)
}

/// Sends pending reports; false when the consumer is gone.
async fn deliver(core: &mut LinkCore, channels: &Channels) -> bool {
    let step = core.take_step();
    channels.health.send_replace(core.health());
    for report in step.reports {
        if channels.reports.send(report).await.is_err() {
            return false;
        }
    }
    true
}

async fn session<P: AsyncRead + AsyncWrite + Unpin>(
    core: &mut LinkCore,
    port: &mut P,
    config: &LinkConfig,
    channels: &mut Channels,
) -> End {
    let mut buf = [0u8; 512];
    let mut ticker = tokio::time::interval(config.tick_interval);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut commands_open = true;
    loop {
        // Write what the core wants sent; a failed or stuck write means the port is gone.
        let step = core.take_step();
        if !step.outgoing.is_empty() && !step.close {
            let write = tokio::time::timeout(
                config.timing.silence_timeout,
                port.write_all(&step.outgoing),
            )
            .await;
            let error = match write {
                Ok(Ok(())) => None,
                Ok(Err(error)) => Some(error.to_string()),
                Err(_) => Some("write timed out".to_owned()),
            };
            if let Some(error) = error {
                core.port_lost(DisconnectReason::Io { error }, channels.now());
            }
        }
        let close = step.close || !core.is_open();
        channels.health.send_replace(core.health());
        for report in step.reports {
            if channels.reports.send(report).await.is_err() {
                return End::ConsumerGone;
            }
        }
        channels.delivered(core);
        if close {
            // Reports produced by a failed write above.
            if !deliver(core, channels).await {
                return End::ConsumerGone;
            }
            return End::PortLost;
        }
        tokio::select! {
            read = port.read(&mut buf) => match read {
                Ok(0) => core.port_lost(DisconnectReason::Closed, channels.now()),
                Ok(n) => {
                    let now = channels.now();
                    if core.received(&buf[..n], now) {
                        channels.read_at = Some(now);
                    }
                }
                Err(error) => core.port_lost(DisconnectReason::Io { error: error.to_string() }, channels.now()),
            },
            _ = ticker.tick() => core.tick(channels.now()),
            command = channels.commands.recv(), if commands_open => match command {
                Some(Command::RequestSnapshot) => core.request_snapshot(channels.now()),
                None => commands_open = false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::core::tests::Board;
    use kriegspiel_link::BoardMsg;

    async fn settle() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    /// What a table waits for: noise says nothing of how far the board has come, a frame
    /// does once its reports are handed over, a closed port leaves nothing on its way, and
    /// the next port starts from nothing (noise on it does not bring back the last one's).
    #[test]
    fn progress_moves_with_frames_taken_and_ends_with_the_port() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let (first, mut board_end) = tokio::io::duplex(4096);
            let (second, mut next_board_end) = tokio::io::duplex(4096);
            let mut ports = vec![second, first];
            let (tx, rx) = watch::channel(Progress::default());
            let (mut link, mut reports) = BoardLink::spawn_inner(
                move || ports.pop().ok_or_else(|| "unplugged".to_owned()),
                LinkConfig::default(),
                Some(tx),
            );
            link.progress = Some(rx);
            let progress = |link: &BoardLinkHandle| link.progress().unwrap();
            // Noise and half a frame: no frame, no progress.
            let mut board = Board::new();
            let hello = board.hello();
            board_end.write_all(&[7, 7, 7]).await.unwrap();
            board_end.write_all(&hello[..3]).await.unwrap();
            settle().await;
            assert_eq!(progress(&link), Progress::default());
            board_end.write_all(&[0]).await.unwrap();
            board_end.write_all(&hello).await.unwrap();
            let snapshot = board.frame(BoardMsg::Snapshot {
                occupancy: 0xFFFF,
                board_ms: 1_000,
            });
            board_end.write_all(&snapshot).await.unwrap();
            settle().await;
            let p = progress(&link);
            assert!(p.through.is_some() && !p.stopped, "{p:?}");
            // Every report it speaks of was handed over first.
            let mut latest = None;
            while let Ok(r) = reports.try_recv() {
                latest = Some(r.at);
            }
            assert!(
                latest.is_some_and(|at| Some(at) <= p.through),
                "{latest:?} {p:?}"
            );
            // The cable pulled: nothing is on its way.
            drop(board_end);
            settle().await;
            assert!(progress(&link).stopped);
            // Another port (opened 250 ms later), noise on it: nothing of the last one.
            tokio::time::sleep(Duration::from_millis(250)).await;
            next_board_end.write_all(&[7, 7, 7, 0]).await.unwrap();
            settle().await;
            assert_eq!(progress(&link), Progress::default());
        });
    }
}
