//! A player's board simulated in this process: scripted magnets under the real board logic
//! (`kriegspiel-board-core`: debounce, frames, snapshots, heartbeats), talking to the real
//! console link over an in-memory byte stream. With the hall's simulated clock a whole game
//! runs in a fraction of a second; with the real clock it runs at the script's pace.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kriegspiel_board_core::{Board, BoardConfig, FrameWriter, Occupancy, Scanner};
use kriegspiel_table::Millis;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use crate::clock::TableClock;

/// One switch change, in table time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimAction {
    pub at: Millis,
    /// True: a magnet leaves the square; false: one arrives.
    pub lift: bool,
    /// a1 = 0 … h8 = 63.
    pub square: u8,
}

/// What a simulated board does: the men it starts with and its timed switch changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimScript {
    pub initial: u64,
    pub actions: Vec<SimAction>,
}

impl SimScript {
    /// The magnets on the board at table time `at`, and the index of the next action.
    pub fn state_at(&self, at: Millis) -> (u64, usize) {
        let mut occ = self.initial;
        let mut next = 0;
        for a in self.actions.iter().take_while(|a| a.at <= at) {
            occ = apply(occ, a);
            next += 1;
        }
        (occ, next)
    }

    /// Table time of the last action.
    pub fn end(&self) -> Millis {
        self.actions.last().map_or(0, |a| a.at)
    }
}

fn apply(occ: u64, a: &SimAction) -> u64 {
    let bit = 1u64 << (a.square & 63);
    if a.lift {
        occ & !bit
    } else {
        occ | bit
    }
}

/// Scans the scripted magnets.
#[derive(Debug)]
struct Magnets(Arc<AtomicU64>);

impl Scanner for Magnets {
    type Error = Infallible;
    fn scan(&mut self) -> Result<Occupancy, Infallible> {
        Ok(Occupancy(self.0.load(Ordering::Relaxed)))
    }
}

/// Collects the board's frames for the stream.
#[derive(Debug, Default, Clone)]
struct Frames(Arc<Mutex<Vec<u8>>>);

impl Frames {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl FrameWriter for Frames {
    type Error = Infallible;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Infallible> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(bytes);
        }
        Ok(())
    }
}

/// After a switch change the board scans at its full rate for the debounce's scans and two
/// more; the rest of the time a slower beat keeps its snapshots and heartbeats (scans of
/// still magnets change nothing, and each costs a wake-up).
const BUSY_EXTRA_SCANS: u64 = 2;
const IDLE_BEAT: Duration = Duration::from_millis(50);

/// The board clock is the table clock, wrapped as a board's would be.
fn board_time(at: Millis) -> u32 {
    (at & u64::from(u32::MAX)) as u32
}

/// Applies the script's actions due by `at`; gives the index of the next one.
fn move_magnets(
    script: &SimScript,
    mut next: usize,
    at: Millis,
    magnets: &AtomicU64,
    last_change: &mut Millis,
) -> usize {
    while let Some(a) = script.actions.get(next).filter(|a| a.at <= at) {
        magnets.store(apply(magnets.load(Ordering::Relaxed), a), Ordering::Relaxed);
        *last_change = at;
        next += 1;
    }
    next
}

/// Connects a new simulated board: returns the console's end of its byte stream. The board
/// starts with the magnets the script has at this moment, as a board plugged in again would.
pub fn connect(script: Arc<SimScript>, board_id: u32, clock: TableClock) -> DuplexStream {
    let (console_end, board_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(run(script, board_id, clock, board_end));
    console_end
}

async fn run(script: Arc<SimScript>, board_id: u32, clock: TableClock, mut stream: DuplexStream) {
    let (occ, mut next) = script.state_at(clock.now());
    let magnets = Arc::new(AtomicU64::new(occ));
    let config = BoardConfig {
        board_id,
        ..BoardConfig::default()
    };
    let frames = Frames::default();
    let mut board = Board::new(Magnets(magnets.clone()), frames.clone(), config);
    let scan = Duration::from_micros(u64::from(board.scan_period_us()));
    let period_ms: Millis = (u64::from(board.scan_period_us()) / 1000).max(1);
    let busy_ms = period_ms * (u64::from(config.debounce_scans) + BUSY_EXTRA_SCANS);
    let mut last_change: Millis = 0;
    let mut last_scan: Millis = clock.now();
    let mut buf = [0u8; 1024];
    loop {
        let now = clock.now();
        // While men move, the scans a real board would have made since the last wake-up
        // (tokio's timer wakes at a millisecond's end, often a millisecond late): the
        // debounce counts scans, so skipping them would make the board slower than one.
        // A wake-up late past several actions replays them scan by scan from the first, so
        // they are reported in the script's order, not together in square order.
        let mut t = last_scan + period_ms;
        while t < now {
            if t.saturating_sub(last_change) >= busy_ms {
                match script.actions.get(next) {
                    Some(a) if a.at < now => t = t.max(a.at),
                    _ => break,
                }
            }
            next = move_magnets(&script, next, t, &magnets, &mut last_change);
            if board.tick(board_time(t)).is_err() {
                return;
            }
            t += period_ms;
        }
        next = move_magnets(&script, next, now, &magnets, &mut last_change);
        last_scan = now;
        let board_ms = board_time(now);
        if board.tick(board_ms).is_err() {
            return;
        }
        let bytes = frames.take();
        if !bytes.is_empty() && stream.write_all(&bytes).await.is_err() {
            return; // the console closed the stream
        }
        let busy = now.saturating_sub(last_change) < busy_ms;
        let beat = if busy { scan } else { IDLE_BEAT };
        let wake = match script.actions.get(next) {
            Some(a) => clock.instant_at(a.at).min(clock.instant_at(now) + beat),
            None => clock.instant_at(now) + beat,
        };
        tokio::select! {
            read = stream.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if board.receive(&buf[..n], board_ms).is_err() {
                        return;
                    }
                }
            },
            () = tokio::time::sleep_until(wake) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_link::{BoardMsg, Decoder};

    /// Lifts 8 ms apart, later squares first, and a wake-up 600 ms late (the clock jumps
    /// past all three at once, as a starved runtime's would): the board still reports them
    /// in the script's order.
    #[test]
    fn a_late_wake_up_replays_the_script_in_order() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let lifts = runtime.block_on(async {
            let lift = |at, square| SimAction {
                at,
                lift: true,
                square,
            };
            let script = SimScript {
                initial: 0xFFFF,
                actions: vec![lift(1000, 8), lift(1008, 15), lift(1016, 11)],
            };
            let mut console = connect(Arc::new(script), 1, TableClock::starting_at(0));
            tokio::time::sleep(Duration::from_millis(500)).await;
            tokio::time::advance(Duration::from_millis(600)).await;
            let mut decoder = Decoder::<BoardMsg>::new();
            let mut lifts = Vec::new();
            let mut buf = [0u8; 1024];
            while lifts.len() < 3 {
                let n = tokio::time::timeout(Duration::from_secs(5), console.read(&mut buf))
                    .await
                    .unwrap()
                    .unwrap();
                decoder.feed(&buf[..n], |frame| {
                    if let Ok(frame) = frame {
                        if let BoardMsg::Lift { square, .. } = frame.body {
                            lifts.push(square);
                        }
                    }
                });
            }
            lifts
        });
        assert_eq!(lifts, [8, 15, 11]);
    }
}
