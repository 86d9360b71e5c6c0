//! A DGT board feeding its table: the driver's reports read by a [`DgtReader`] into what a
//! serial board's link would report (connected, lifts, places, the occupancy, lost), plus
//! the promotions read from the board and the arbiter's notices.

use std::time::Duration;

use kriegspiel_boardlink::{DisconnectReason, Health, LinkEvent, Report, ResyncReason};
use kriegspiel_dgt::{DgtBoard, DgtEvent, DgtHandle, DgtOptions, DgtPort, Identity, LostReason};
use kriegspiel_referee::shakmaty::{Bitboard, Color, Role};
use kriegspiel_table::{BoardInput, BoardNotice};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::convert::{DgtReader, Fed};

/// What a DGT board gives its table, timed on the driver's clock.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DgtItem {
    /// What a serial board's link would have reported.
    Link(Report),
    /// The promotion read from the piece put on the last rank.
    Promote { at: Duration, role: Role },
    /// For the arbiter.
    Notice { at: Duration, notice: BoardNotice },
}

impl DgtItem {
    /// When the bytes it came from reached the driver.
    pub(crate) fn at(&self) -> Duration {
        match self {
            DgtItem::Link(r) => r.at,
            DgtItem::Promote { at, .. } | DgtItem::Notice { at, .. } => *at,
        }
    }
}

/// Items a table has not taken yet; beyond, the feed waits (and the driver with it).
const QUEUE: usize = 256;

/// A running DGT board feed; dropping it stops the driver and closes the port.
#[derive(Debug)]
pub(crate) struct DgtFeed {
    driver: DgtHandle,
    task: JoinHandle<()>,
    /// The squares of the owner's men the opponent captured, for the reader.
    captures: mpsc::Sender<Bitboard>,
}

impl Drop for DgtFeed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl DgtFeed {
    /// Starts driving the board at `port` for `owner`'s men (on the current runtime).
    pub(crate) fn spawn(port: DgtPort, owner: Color) -> (DgtFeed, mpsc::Receiver<DgtItem>) {
        let mut options = DgtOptions {
            owner: Some(owner),
            ..DgtOptions::default()
        };
        if let Some(settle) = settle_override() {
            let mut timing = kriegspiel_dgt::Timing::for_link(match &port {
                DgtPort::Path(p) => kriegspiel_dgt::LinkKind::of_path(p),
                DgtPort::Auto => kriegspiel_dgt::LinkKind::Usb,
            });
            timing.settle = settle;
            options.timing = Some(timing);
        }
        let (driver, mut reports) = DgtBoard::open(port, options);
        let started = driver.started();
        let (tx, rx) = mpsc::channel(QUEUE);
        let (captures, mut captured) = mpsc::channel::<Bitboard>(QUEUE);
        let task = tokio::spawn(async move {
            let mut reader = DgtReader::new(owner);
            loop {
                tokio::select! {
                    // A capture is read before the placement that may take its man off.
                    biased;
                    Some(squares) = captured.recv() => {
                        let fed = reader.captured(squares);
                        if send_all(&tx, fed_items(fed, started.elapsed())).await.is_err() {
                            return;
                        }
                    }
                    report = reports.recv() => {
                        let Some(report) = report else { return };
                        let items = items(&mut reader, report.at, report.event);
                        if send_all(&tx, items).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
        (
            DgtFeed {
                driver,
                task,
                captures,
            },
            rx,
        )
    }

    /// The opponent captured the owner's men on `squares`.
    pub(crate) fn captured(&self, squares: Bitboard) {
        // A full queue: hundreds of captures unread; the reader then reads the board
        // without knowing this one (the captured man's square as a plain square).
        let _ = self.captures.try_send(squares);
    }

    /// The origin of the items' times.
    pub(crate) fn started(&self) -> Instant {
        self.driver.started()
    }
}

/// `KRIEGSPIEL_DGT_SETTLE_MS`: a shorter settle time for emulated boards that scan faster
/// than a real one (the tests' and benches'); a real board needs the default.
fn settle_override() -> Option<Duration> {
    let ms: u64 = std::env::var("KRIEGSPIEL_DGT_SETTLE_MS")
        .ok()?
        .parse()
        .ok()?;
    Some(Duration::from_millis(ms.clamp(20, 2000)))
}

/// The board's number for the table's mix-up checks: its serial number when it is one (the
/// five digits every board has, or the long one), else a hash of it.
pub fn board_number(identity: &Identity) -> u32 {
    let key = identity.key();
    key.parse::<u32>().unwrap_or_else(|_| {
        // FNV-1a: stable across runs and versions.
        key.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
    })
}

/// What one driver event gives the table, read through `reader`.
pub(crate) fn items(reader: &mut DgtReader, at: Duration, event: DgtEvent) -> Vec<DgtItem> {
    let link = |event| link_item(event, at);
    match event {
        DgtEvent::Connected(identity) | DgtEvent::Back(identity) => {
            reader.lost();
            vec![link(LinkEvent::Connected {
                protocol: 0,
                firmware: [identity.version.0, identity.version.1, 0],
                board_id: board_number(&identity),
            })]
        }
        DgtEvent::Position(placement) => fed_items(reader.read(&placement), at),
        DgtEvent::Lost(reason) => {
            reader.lost();
            vec![link(LinkEvent::Disconnected {
                reason: match reason {
                    LostReason::Silent { missed } => DisconnectReason::Silence {
                        timeout: Duration::from_millis(500) * missed,
                    },
                    LostReason::Closed => DisconnectReason::Closed,
                    LostReason::Io(error) => DisconnectReason::Io { error },
                },
            })]
        }
        DgtEvent::Waiting(error) => vec![link(LinkEvent::OpenFailed { error })],
    }
}

/// A link event of the board's, at board time `at`, as a serial board's link reports it.
fn link_item(event: LinkEvent, at: Duration) -> DgtItem {
    DgtItem::Link(Report {
        event,
        health: Health::default(),
        seq: None,
        key: None,
        at,
    })
}

fn square_index(sq: kriegspiel_referee::shakmaty::Square) -> u8 {
    u8::try_from(u32::from(sq)).unwrap_or(0)
}

async fn send_all(tx: &mpsc::Sender<DgtItem>, items: Vec<DgtItem>) -> Result<(), ()> {
    for item in items {
        tx.send(item).await.map_err(|_| ())?;
    }
    Ok(())
}

/// The reader's inputs as the table's items, at board time `at`.
pub(crate) fn fed_items(fed: Vec<Fed>, at: Duration) -> Vec<DgtItem> {
    let board_ms = u32::try_from(at.as_millis()).unwrap_or(u32::MAX);
    let link = |event| link_item(event, at);
    fed.into_iter()
        .filter_map(|fed| match fed {
            Fed::Board(BoardInput::Lift(sq)) => Some(link(LinkEvent::Lift {
                square: square_index(sq),
                board_ms,
            })),
            Fed::Board(BoardInput::Place(sq)) => Some(link(LinkEvent::Place {
                square: square_index(sq),
                board_ms,
            })),
            Fed::Board(BoardInput::Snapshot(bb)) => Some(link(LinkEvent::Resync {
                occupancy: bb.0,
                board_ms,
                reason: ResyncReason::Connected,
            })),
            // The reader gives lifts, places and snapshots only.
            Fed::Board(BoardInput::Connected { .. } | BoardInput::Disconnected) => None,
            Fed::Promote(role) => Some(DgtItem::Promote { at, role }),
            Fed::Notice(notice) => Some(DgtItem::Notice { at, notice }),
        })
        .collect()
}
