//! `kriegspiel-board simulate`: the whole board chain on simulated pins.
//!
//! The script moves magnets on a [`PinBoard`]; the REAL [`ReedMatrix`] driver scans its
//! pins, and the real [`Board`] debounces and sends frames, in real time.

use std::fmt;
use std::sync::mpsc::Receiver;
use std::time::SystemTime;

use kriegspiel_board_core::{Board, BoardConfig, BoardError, FrameWriter};
use kriegspiel_link::{square_name, BoardMsg, Decoder};
use reed_matrix::sim::{InstantDelay, PinBoard};
use reed_matrix::{MatrixConfig, ReedMatrix};

use crate::pacer::Pacer;
use crate::script::{Action, Script};

/// What the board sent, counted by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    pub hellos: u32,
    pub snapshots: u32,
    pub lifts: u32,
    pub places: u32,
    pub heartbeats: u32,
    pub faults: u32,
    /// Board time of the last message that carries one.
    pub last_board_ms: u32,
}

impl Sent {
    /// Counts `msg`; returns the line a person watching wants for it: one per lift, place
    /// or fault (hellos, snapshots and heartbeats are only counted).
    pub fn record(&mut self, msg: &BoardMsg) -> Option<String> {
        let name = |sq: u8| String::from_utf8_lossy(&square_name(sq)).into_owned();
        match *msg {
            BoardMsg::Hello { .. } => {
                self.hellos += 1;
                None
            }
            BoardMsg::Snapshot { board_ms, .. } => {
                self.snapshots += 1;
                self.last_board_ms = board_ms;
                None
            }
            BoardMsg::Heartbeat { board_ms } => {
                self.heartbeats += 1;
                self.last_board_ms = board_ms;
                None
            }
            BoardMsg::Lift { square, board_ms } => {
                self.lifts += 1;
                self.last_board_ms = board_ms;
                Some(format!("lift {} at {board_ms} ms", name(square)))
            }
            BoardMsg::Place { square, board_ms } => {
                self.places += 1;
                self.last_board_ms = board_ms;
                Some(format!("place {} at {board_ms} ms", name(square)))
            }
            BoardMsg::Fault { code, board_ms } => {
                self.faults += 1;
                self.last_board_ms = board_ms;
                Some(format!("fault {} at {board_ms} ms", code.name()))
            }
        }
    }
}

impl fmt::Display for Sent {
    /// The summary line: `sent 3 lifts, 3 places, 1 hello, 10 snapshots, 4 heartbeats,
    /// 0 faults in 4212 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |count: u32, one: &str, many: &str| {
            format!("{count} {}", if count == 1 { one } else { many })
        };
        write!(
            f,
            "sent {}, {}, {}, {}, {}, {} in {} ms",
            n(self.lifts, "lift", "lifts"),
            n(self.places, "place", "places"),
            n(self.hellos, "hello", "hellos"),
            n(self.snapshots, "snapshot", "snapshots"),
            n(self.heartbeats, "heartbeat", "heartbeats"),
            n(self.faults, "fault", "faults"),
            self.last_board_ms
        )
    }
}

/// A writer that tells `on_sent` each message it has sent (decoded from the frame bytes, so
/// it is exactly what went out).
struct Tap<W, F> {
    inner: W,
    decoder: Decoder<BoardMsg>,
    on_sent: F,
}

impl<W: fmt::Debug, F> fmt::Debug for Tap<W, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tap").field("inner", &self.inner).finish()
    }
}

impl<W: FrameWriter, F: FnMut(&BoardMsg)> FrameWriter for Tap<W, F> {
    type Error = W::Error;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), W::Error> {
        self.inner.write_all(bytes)?;
        let on_sent = &mut self.on_sent;
        self.decoder.feed(bytes, |frame| {
            if let Ok(frame) = frame {
                on_sent(&frame.body);
            }
        });
        Ok(())
    }
}

/// Plays `script` on simulated pins and sends the board's frames to `writer`, answering
/// console bytes from `incoming`; `on_sent` sees every message as it goes out. Script time
/// 0 is `start` (several boards given one start play one scripted game together, however
/// far apart their programs started), or now. Returns once every event has been reported
/// and a final snapshot sent.
pub fn run<W: FrameWriter + fmt::Debug>(
    script: &Script,
    config: BoardConfig,
    start: Option<SystemTime>,
    writer: W,
    incoming: &Receiver<Vec<u8>>,
    on_sent: impl FnMut(&BoardMsg),
    stop: &crate::stop::Stop,
) -> Result<(), BoardError<W::Error>> {
    let pins = PinBoard::new();
    pins.set_magnets(script.initial);
    let matrix = ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    );
    let tap = Tap {
        inner: writer,
        decoder: Decoder::new(),
        on_sent,
    };
    let mut board = Board::new(matrix, tap, config);
    let mut pacer = Pacer::new();
    // Board time (from the pacer's start) of script time 0; before it if `start` is past.
    let origin_ms: i64 = start.map_or(0, |start| match start.duration_since(SystemTime::now()) {
        Ok(ahead) => i64::try_from(ahead.as_millis()).unwrap_or(i64::MAX),
        Err(past) => -i64::try_from(past.duration().as_millis()).unwrap_or(i64::MAX),
    });
    let mut next_event = 0;
    // A scripted change waits until the board has reported the one before (its debounced
    // occupancy matches the magnets): a scan loop the machine held up, or a program started
    // after `start`, catches up one reported change at a time, so the changes go out in the
    // script's order (changes seen by one scan would go in square order) and a touch (a
    // man lifted and put back) is never swallowed by the debounce. On time, the script's
    // changes are further apart than a debounce and never wait. The first scan sees the
    // script's starting men.
    loop {
        if stop.asked().is_some() {
            return Ok(());
        }
        let now_ms = pacer.now_ms();
        if board.occupancy() == Some(pins.magnets()) {
            if let Some(event) = script
                .events
                .get(next_event)
                .filter(|e| i64::from(e.at_ms).saturating_add(origin_ms) <= i64::from(now_ms))
            {
                pins.set_magnet(event.square, event.action == Action::Place);
                next_event += 1;
            }
        }
        board.tick(now_ms)?;
        if next_event == script.events.len() && board.occupancy() == Some(pins.magnets()) {
            return board.snapshot_now_or_soon(now_ms);
        }
        pacer.wait(&mut board, incoming)?;
    }
}

/// A [`Scanner`](kriegspiel_board_core::Scanner) reading simulated pins through the real
/// matrix driver.
pub fn sim_matrix(
    pins: &PinBoard,
) -> ReedMatrix<reed_matrix::sim::RowPin<'_>, reed_matrix::sim::ColPin<'_>, InstantDelay> {
    ReedMatrix::new(
        pins.rows(),
        pins.cols(),
        InstantDelay,
        MatrixConfig::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_link::FaultCode;

    #[test]
    fn lifts_places_and_faults_get_a_line_the_rest_is_counted() {
        let mut sent = Sent::default();
        let hello = BoardMsg::Hello {
            protocol: 1,
            firmware: [0, 1, 0],
            board_id: 1,
        };
        assert_eq!(sent.record(&hello), None);
        assert_eq!(
            sent.record(&BoardMsg::Snapshot {
                occupancy: 0xFFFF,
                board_ms: 0
            }),
            None
        );
        assert_eq!(
            sent.record(&BoardMsg::Lift {
                square: 12,
                board_ms: 1012
            })
            .as_deref(),
            Some("lift e2 at 1012 ms")
        );
        assert_eq!(
            sent.record(&BoardMsg::Place {
                square: 28,
                board_ms: 1412
            })
            .as_deref(),
            Some("place e4 at 1412 ms")
        );
        assert_eq!(
            sent.record(&BoardMsg::Fault {
                code: FaultCode::BadFrame,
                board_ms: 1500
            })
            .as_deref(),
            Some("fault bad_frame at 1500 ms")
        );
        assert_eq!(sent.record(&BoardMsg::Heartbeat { board_ms: 1700 }), None);
        assert_eq!(
            sent.to_string(),
            "sent 1 lift, 1 place, 1 hello, 1 snapshot, 1 heartbeat, 1 fault in 1700 ms"
        );
    }

    /// Frames land in a vector.
    #[derive(Debug, Default)]
    struct Wire(Vec<u8>);

    impl FrameWriter for Wire {
        type Error = std::convert::Infallible;
        fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
    }

    #[test]
    fn run_reports_every_message_it_sends() {
        let script = Script::parse("occupied white\n20 lift e2\n60 place e4\n").unwrap();
        let (_tx, incoming) = std::sync::mpsc::channel();
        let mut seen = Vec::new();
        let config = BoardConfig {
            board_id: 3,
            ..BoardConfig::default()
        };
        let never = crate::stop::Stop::never();
        run(
            &script,
            config,
            None,
            Wire::default(),
            &incoming,
            |m| seen.push(*m),
            &never,
        )
        .unwrap();
        assert!(
            matches!(seen[0], BoardMsg::Hello { board_id: 3, .. }),
            "{seen:?}"
        );
        let moves: Vec<String> = seen
            .iter()
            .filter_map(|m| Sent::default().record(m))
            .map(|line| line.split(" at ").next().unwrap_or("").to_owned())
            .collect();
        assert_eq!(moves, ["lift e2", "place e4"]);
        assert!(
            matches!(seen.last(), Some(BoardMsg::Snapshot { occupancy, .. }) if *occupancy == 0xEFFF | (1 << 28)),
            "{seen:?}"
        );
    }

    /// Moves 8 ms apart, later squares first: a scan loop held up for 60 ms (here by the
    /// first frame's writer) must still report them in the script's order, one per scan.
    /// A stop asked before the script ends ends the run at the next scan, with what was
    /// sent so far, and sends nothing more.
    #[test]
    fn a_stop_ends_the_run_at_the_next_scan() {
        let script = Script::parse("occupied white\n20 lift e2\n600000 place e4\n").unwrap();
        let (_tx, incoming) = std::sync::mpsc::channel();
        let stop = crate::stop::Stop::never();
        let mut lifted = false;
        let mut placed = false;
        run(
            &script,
            BoardConfig::default(),
            None,
            Wire::default(),
            &incoming,
            |m| match m {
                BoardMsg::Lift { .. } => {
                    lifted = true;
                    stop.ask(15);
                }
                BoardMsg::Place { .. } => placed = true,
                _ => {}
            },
            &stop,
        )
        .unwrap();
        assert!(lifted && !placed);
    }

    #[test]
    fn a_held_up_scan_loop_delays_the_script_instead_of_reordering_it() {
        let script =
            Script::parse("occupied white\n20 lift a2\n28 lift h2\n36 lift d2\n44 lift b2\n")
                .unwrap();
        let (_tx, incoming) = std::sync::mpsc::channel();
        let mut lifts = Vec::new();
        run(
            &script,
            BoardConfig::default(),
            None,
            Wire::default(),
            &incoming,
            |m| {
                if let BoardMsg::Lift { square, .. } = *m {
                    if lifts.is_empty() {
                        std::thread::sleep(std::time::Duration::from_millis(60));
                    }
                    lifts.push(String::from_utf8_lossy(&square_name(square)).into_owned());
                }
            },
            &crate::stop::Stop::never(),
        )
        .unwrap();
        assert_eq!(lifts, ["a2", "h2", "d2", "b2"]);
    }

    /// The lifts and places sent, each with the wall-clock time it went out, the script
    /// played from `start`.
    fn sent_at(text: &str, start: SystemTime) -> Vec<(String, SystemTime)> {
        let script = Script::parse(text).unwrap();
        let (_tx, incoming) = std::sync::mpsc::channel();
        let mut sent = Vec::new();
        run(
            &script,
            BoardConfig::default(),
            Some(start),
            Wire::default(),
            &incoming,
            |m| {
                if let Some(line) = Sent::default().record(m) {
                    let what = line.split(" at ").next().unwrap_or("").to_owned();
                    sent.push((what, SystemTime::now()));
                }
            },
            &crate::stop::Stop::never(),
        )
        .unwrap();
        sent
    }

    #[test]
    fn a_start_ahead_delays_the_script_and_a_start_past_plays_what_fell_due_in_order() {
        use std::time::Duration;
        let ahead = SystemTime::now() + Duration::from_millis(300);
        let sent = sent_at("occupied white\n20 lift e2\n", ahead);
        assert_eq!(sent.len(), 1);
        assert!(sent[0].1 >= ahead + Duration::from_millis(20), "{sent:?}");

        // Started 2 s late: a touch (g1 lifted and put back 2 ms later) and two moves fell
        // due; they go out first, in order, none swallowed; the last change at its time.
        let past = SystemTime::now() - Duration::from_secs(2);
        let sent = sent_at(
            "occupied white\n20 lift g1\n22 place g1\n500 lift a2\n1000 lift d2\n2600 lift b2\n",
            past,
        );
        let what: Vec<&str> = sent.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            what,
            ["lift g1", "place g1", "lift a2", "lift d2", "lift b2"]
        );
        assert!(sent[3].1 < past + Duration::from_millis(2600), "{sent:?}");
        assert!(sent[4].1 >= past + Duration::from_millis(2600), "{sent:?}");
    }
}
