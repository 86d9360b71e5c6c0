//! `kriegspiel board-monitor PATH`: shows what a board sends, one JSON line per link event.
//!
//! The lines an operator needs stand out: lifts, places, connections, resyncs, faults.
//! Snapshots (the board sends one every 450 ms) are printed only when they differ from the
//! occupancy the monitor knew, or all of them with `--verbose`. The health counters ride on
//! the lines that have them; a counter that has no line of its own (bad frames, gaps,
//! duplicates, mismatches, skipped events) gets a `health` line when it changes, and
//! `--health` adds a `health` line every second. A second `disconnected` without a
//! `connected` in between is not printed again.
//!
//! A DGT e-board (`dgt:PATH`, `dgt:auto`) is watched by [`crate::dgt_monitor`] instead.
//!
//! A port that cannot be opened is not fatal: like the link itself after an unplug, the
//! monitor keeps retrying every 250 ms, printing an `open_failed` line (and a message on
//! stderr) once per distinct error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_boardlink::{
    BoardLink, DisconnectReason, Health, LinkConfig, LinkEvent, Report, ResyncReason,
};
use kriegspiel_link::{is_occupied, square_name, with_square, without_square, SquareIndex};
use serde_json::{json, Value};

/// How often `--health` prints the counters.
const HEALTH_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The board's serial port (e.g. /dev/ttyACM0, /dev/serial0, or a pty path); a DGT
    /// e-board as dgt:PATH or dgt:auto (docs/DGT.md).
    path: PathBuf,
    /// Line speed (ignored by USB serial and pseudo-terminals).
    #[arg(long, default_value_t = 115_200, value_parser = clap::value_parser!(u32).range(
        i64::from(*kriegspiel_link::BAUD_RANGE.start())..=i64::from(*kriegspiel_link::BAUD_RANGE.end())
    ))]
    baud: u32,
    /// Print every snapshot, also those that only confirm the known occupancy.
    #[arg(long)]
    verbose: bool,
    /// Print a `health` line with the link's counters every second.
    #[arg(long)]
    health: bool,
}

pub fn run(args: Args) -> ExitCode {
    if let Some(spec) = args.path.to_str().filter(|p| p.starts_with("dgt:")) {
        return crate::dgt_monitor::run(spec, args.verbose, args.health);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("board-monitor: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(monitor(args))
}

async fn monitor(args: Args) -> ExitCode {
    let config = LinkConfig {
        baud: args.baud,
        ..LinkConfig::default()
    };
    let (link, mut reports) = BoardLink::spawn(args.path, config);
    let mut filter = Filter::new(args.verbose);
    let mut health_timer =
        tokio::time::interval_at(tokio::time::Instant::now() + HEALTH_EVERY, HEALTH_EVERY);
    health_timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let stdout = std::io::stdout();
    let mut refused = std::collections::BTreeSet::new();
    loop {
        let lines = tokio::select! {
            report = reports.recv() => {
                let Some(report) = report else { break };
                if let LinkEvent::OpenFailed { error } = &report.event {
                    eprintln!("board-monitor: {error} (retrying)");
                }
                match &report.event {
                    // Once per version between two connections: a board flooding
                    // alternating versions fills no terminal (its lines are on stdout).
                    LinkEvent::VersionMismatch { local, remote } if refused.insert(*remote) => {
                        eprintln!("board-monitor: the board speaks protocol version {remote}, this console version {local}; its events are ignored until a compatible board is connected");
                    }
                    LinkEvent::Connected { .. } => refused.clear(),
                    _ => {}
                }
                filter.lines(&report)
            }
            _ = health_timer.tick(), if args.health => vec![filter.health_line(&link.health())],
        };
        let mut out = stdout.lock();
        for line in lines {
            // A closed stdout (e.g. `| head`) ends the monitor normally.
            if writeln!(out, "{line}").is_err() {
                return ExitCode::SUCCESS;
            }
        }
        if out.flush().is_err() {
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}

/// Decides which reports become lines: what an operator watching the board needs, without
/// the periodic confirmations.
#[derive(Debug)]
pub struct Filter {
    verbose: bool,
    /// The occupancy as the printed lines tell it; `None` when unknown.
    known: Option<u64>,
    /// A `disconnected` line was printed and no `connected` since.
    disconnected_shown: bool,
    /// The counters as last printed.
    shown: Health,
}

/// The counters an operator follows (`frames` and `last_heard_ms` change all the time).
/// The first [`QUIET`] change without a line of their own: resyncs, board faults,
/// disconnects and reconnects each come with an event line that carries the counters.
fn counters(h: &Health) -> [(&'static str, u64); 12] {
    [
        ("crc_errors", h.crc_errors),
        ("cobs_errors", h.cobs_errors),
        ("decode_errors", h.decode_errors),
        ("gaps", h.gaps),
        ("missed_frames", h.missed_frames),
        ("duplicates", h.duplicates),
        ("mismatches", h.mismatches),
        ("skipped_events", h.skipped_events),
        ("resyncs", h.resyncs),
        ("board_faults", h.board_faults),
        ("disconnects", h.disconnects),
        ("reconnects", h.reconnects),
    ]
}

/// How many of [`counters`] change silently.
const QUIET: usize = 8;

impl Filter {
    pub fn new(verbose: bool) -> Self {
        Filter {
            verbose,
            known: None,
            disconnected_shown: false,
            shown: Health::default(),
        }
    }

    /// The lines to print for one report (none, the event's, and/or a `health` line).
    pub fn lines(&mut self, report: &Report) -> Vec<Value> {
        let mut lines = Vec::new();
        let print = match &report.event {
            LinkEvent::Snapshot { occupancy, .. } => {
                let differs = self.known != Some(*occupancy);
                self.known = Some(*occupancy);
                self.verbose || differs
            }
            LinkEvent::Resync { occupancy, .. } => {
                self.known = Some(*occupancy);
                true
            }
            LinkEvent::Lift { square, .. } => {
                self.known = self.known.map(|occ| without_square(occ, *square));
                true
            }
            LinkEvent::Place { square, .. } => {
                self.known = self.known.map(|occ| with_square(occ, *square));
                true
            }
            LinkEvent::Connected { .. } => {
                self.disconnected_shown = false;
                self.known = None;
                true
            }
            LinkEvent::Disconnected { .. } => {
                self.known = None;
                !std::mem::replace(&mut self.disconnected_shown, true)
            }
            LinkEvent::Back => {
                self.disconnected_shown = false;
                true
            }
            LinkEvent::OpenFailed { .. }
            | LinkEvent::VersionMismatch { .. }
            | LinkEvent::Fault { .. } => true,
        };
        if print {
            let line = report_json(report);
            let carries_health = line.get("health").is_some();
            lines.push(line);
            if carries_health {
                self.shown = report.health;
                return lines;
            }
        }
        if counters(&report.health)[..QUIET] != counters(&self.shown)[..QUIET] {
            lines.push(self.health_line(&report.health));
        }
        lines
    }

    /// A `health` line naming the counters that changed since they were last printed.
    pub fn health_line(&mut self, health: &Health) -> Value {
        let changed: Vec<&str> = counters(health)
            .iter()
            .zip(counters(&self.shown))
            .filter(|(now, before)| now.1 != before.1)
            .map(|(now, _)| now.0)
            .collect();
        self.shown = *health;
        json!({"event": "health", "changed": changed, "health": health_json(health)})
    }
}

fn square(sq: SquareIndex) -> String {
    String::from_utf8_lossy(&square_name(sq)).into_owned()
}

fn occupancy_fields(occupancy: u64) -> (String, Vec<String>) {
    let squares = (0..64u8)
        .filter(|&sq| is_occupied(occupancy, sq))
        .map(square)
        .collect();
    (format!("{occupancy:016x}"), squares)
}

fn health_json(h: &Health) -> Value {
    json!({
        "frames": h.frames,
        "crc_errors": h.crc_errors,
        "cobs_errors": h.cobs_errors,
        "decode_errors": h.decode_errors,
        "gaps": h.gaps,
        "missed_frames": h.missed_frames,
        "duplicates": h.duplicates,
        "mismatches": h.mismatches,
        "resyncs": h.resyncs,
        "skipped_events": h.skipped_events,
        "board_faults": h.board_faults,
        "disconnects": h.disconnects,
        "reconnects": h.reconnects,
        "last_heard_ms": h.last_heard_ms,
    })
}

/// One output line.
pub fn report_json(report: &Report) -> Value {
    let health = health_json(&report.health);
    match &report.event {
        LinkEvent::Connected {
            protocol,
            firmware,
            board_id,
        } => json!({
            "event": "connected",
            "protocol": protocol,
            "firmware": format!("{}.{}.{}", firmware[0], firmware[1], firmware[2]),
            "board_id": board_id,
            "health": health,
        }),
        LinkEvent::Lift {
            square: sq,
            board_ms,
        } => json!({"event": "lift", "square": square(*sq), "board_ms": board_ms}),
        LinkEvent::Place {
            square: sq,
            board_ms,
        } => {
            json!({"event": "place", "square": square(*sq), "board_ms": board_ms})
        }
        LinkEvent::Snapshot {
            occupancy,
            board_ms,
        } => {
            let (hex, squares) = occupancy_fields(*occupancy);
            json!({"event": "snapshot", "occupancy": hex, "squares": squares, "board_ms": board_ms, "health": health})
        }
        LinkEvent::Resync {
            occupancy,
            board_ms,
            reason,
        } => {
            let (hex, squares) = occupancy_fields(*occupancy);
            let mut value = json!({
                "event": "resync",
                "reason": reason.name(),
                "occupancy": hex,
                "squares": squares,
                "board_ms": board_ms,
                "health": health,
            });
            match reason {
                ResyncReason::Gap { missed } => value["missed"] = json!(missed),
                ResyncReason::Mismatch { reconstructed } => {
                    value["reconstructed"] = json!(format!("{reconstructed:016x}"));
                }
                ResyncReason::Connected
                | ResyncReason::SenderRestart
                | ResyncReason::BoardFault => {}
            }
            value
        }
        LinkEvent::Disconnected { reason } => {
            let mut value =
                json!({"event": "disconnected", "reason": reason.name(), "health": health});
            match reason {
                DisconnectReason::Silence { timeout } | DisconnectReason::Unheard { timeout } => {
                    value["silence_ms"] =
                        json!(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
                }
                DisconnectReason::Io { error } => value["error"] = json!(error),
                DisconnectReason::Closed | DisconnectReason::Stopped => {}
            }
            value
        }
        LinkEvent::Back => json!({"event": "reconnected", "health": health}),
        LinkEvent::OpenFailed { error } => {
            json!({"event": "open_failed", "error": error, "retry_ms": 250})
        }
        LinkEvent::VersionMismatch { local, remote } => json!({
            "event": "version_mismatch",
            "local": local,
            "remote": remote,
            "error": format!("protocol version mismatch: console speaks {local}, board speaks {remote}"),
            "health": health,
        }),
        LinkEvent::Fault { code, board_ms } => {
            json!({"event": "fault", "code": code.name(), "board_ms": board_ms, "health": health})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_link::FaultCode;

    fn report(event: LinkEvent) -> Report {
        Report {
            event,
            health: Health {
                frames: 3,
                ..Health::default()
            },
            seq: None,
            key: None,
            at: std::time::Duration::ZERO,
        }
    }

    fn at(event: LinkEvent, health: Health) -> Report {
        Report {
            event,
            health,
            seq: None,
            key: None,
            at: std::time::Duration::ZERO,
        }
    }

    fn events(lines: &[Value]) -> Vec<&str> {
        lines.iter().filter_map(|l| l["event"].as_str()).collect()
    }

    const START: u64 = 0xFFFF_0000_0000_FFFF;

    #[test]
    fn snapshots_that_confirm_the_known_occupancy_are_not_printed() {
        let mut filter = Filter::new(false);
        let h = Health::default();
        let connected = LinkEvent::Connected {
            protocol: 1,
            firmware: [0, 1, 0],
            board_id: 1,
        };
        let snapshot = |occupancy, board_ms| LinkEvent::Snapshot {
            occupancy,
            board_ms,
        };
        let mut printed = Vec::new();
        for event in [
            connected,
            LinkEvent::Resync {
                occupancy: START,
                board_ms: 0,
                reason: ResyncReason::Connected,
            },
            // The answers to the console's opening requests, then periodic ones.
            snapshot(START, 0),
            snapshot(START, 0),
            snapshot(START, 450),
            LinkEvent::Lift {
                square: 12,
                board_ms: 500,
            },
            snapshot(START & !(1 << 12), 900),
            LinkEvent::Place {
                square: 28,
                board_ms: 1000,
            },
            snapshot((START & !(1 << 12)) | (1 << 28), 1350),
        ] {
            printed.extend(filter.lines(&at(event, h)));
        }
        assert_eq!(events(&printed), ["connected", "resync", "lift", "place"]);

        // A snapshot the monitor could not have known (after a disconnect) is shown.
        let lines = filter.lines(&at(
            LinkEvent::Disconnected {
                reason: DisconnectReason::Closed,
            },
            h,
        ));
        assert_eq!(events(&lines), ["disconnected"]);
        let lines = filter.lines(&at(snapshot(START, 2000), h));
        assert_eq!(events(&lines), ["snapshot"]);

        // --verbose shows them all.
        let mut verbose = Filter::new(true);
        let lines = verbose.lines(&at(snapshot(START, 0), h));
        assert_eq!(events(&lines), ["snapshot"]);
        let lines = verbose.lines(&at(snapshot(START, 450), h));
        assert_eq!(events(&lines), ["snapshot"]);
    }

    #[test]
    fn a_second_disconnected_without_connected_between_is_not_printed() {
        let mut filter = Filter::new(false);
        let gone = |reason| LinkEvent::Disconnected { reason };
        let mut h = Health {
            disconnects: 1,
            ..Health::default()
        };
        let lines = filter.lines(&at(
            gone(DisconnectReason::Silence {
                timeout: Duration::from_millis(1500),
            }),
            h,
        ));
        assert_eq!(events(&lines), ["disconnected"]);
        h.disconnects = 2;
        let lines = filter.lines(&at(
            gone(DisconnectReason::Io {
                error: "Input/output error".into(),
            }),
            h,
        ));
        assert!(lines.is_empty(), "{lines:?}");
        let lines = filter.lines(&at(
            LinkEvent::Connected {
                protocol: 1,
                firmware: [0, 1, 0],
                board_id: 1,
            },
            h,
        ));
        assert_eq!(lines[0]["health"]["disconnects"], 2);
        h.disconnects = 3;
        let lines = filter.lines(&at(gone(DisconnectReason::Closed), h));
        assert_eq!(events(&lines), ["disconnected"]);
    }

    #[test]
    fn a_counter_without_its_own_line_gets_a_health_line_when_it_changes() {
        let mut filter = Filter::new(false);
        let snapshot = LinkEvent::Snapshot {
            occupancy: START,
            board_ms: 0,
        };
        let resync = LinkEvent::Resync {
            occupancy: START,
            board_ms: 0,
            reason: ResyncReason::Connected,
        };
        let mut h = Health {
            resyncs: 1,
            frames: 2,
            ..Health::default()
        };
        assert_eq!(events(&filter.lines(&at(resync, h))), ["resync"]);
        // Frames and last_heard_ms change all the time: no line for them.
        h.frames = 50;
        h.last_heard_ms = Some(4000);
        assert!(filter.lines(&at(snapshot.clone(), h)).is_empty());
        // Two damaged frames, noticed at the next (suppressed) snapshot.
        h.crc_errors = 1;
        h.cobs_errors = 1;
        let lines = filter.lines(&at(snapshot.clone(), h));
        assert_eq!(events(&lines), ["health"]);
        assert_eq!(lines[0]["changed"], json!(["crc_errors", "cobs_errors"]));
        assert_eq!(lines[0]["health"]["crc_errors"], 1);
        assert!(filter.lines(&at(snapshot.clone(), h)).is_empty());
        // After a lift line (which carries no counters) too.
        h.duplicates = 1;
        let lines = filter.lines(&at(
            LinkEvent::Lift {
                square: 12,
                board_ms: 10,
            },
            h,
        ));
        assert_eq!(events(&lines), ["lift", "health"]);
        assert_eq!(lines[1]["changed"], json!(["duplicates"]));
        // The periodic line (--health) is printed whatever changed.
        let line = filter.health_line(&h);
        assert_eq!(line["changed"], json!([]));
        assert_eq!(line["health"]["duplicates"], 1);
    }

    #[test]
    fn lift_line_names_the_square() {
        let line = report_json(&report(LinkEvent::Lift {
            square: 12,
            board_ms: 1200,
        }));
        assert_eq!(
            line,
            json!({"event": "lift", "square": "e2", "board_ms": 1200})
        );
    }

    #[test]
    fn resync_line_has_reason_occupancy_and_health() {
        let line = report_json(&report(LinkEvent::Resync {
            occupancy: 0b1_0000_0001,
            board_ms: 5,
            reason: ResyncReason::Gap { missed: 2 },
        }));
        assert_eq!(line["reason"], "gap");
        assert_eq!(line["missed"], 2);
        assert_eq!(line["occupancy"], "0000000000000101");
        assert_eq!(line["squares"], json!(["a1", "a2"]));
        assert_eq!(line["health"]["frames"], 3);
    }

    #[test]
    fn other_lines() {
        let line = report_json(&report(LinkEvent::Disconnected {
            reason: DisconnectReason::Silence {
                timeout: std::time::Duration::from_secs(2),
            },
        }));
        assert_eq!(
            (
                line["event"].as_str(),
                line["reason"].as_str(),
                line["silence_ms"].as_u64()
            ),
            (Some("disconnected"), Some("silence"), Some(2000))
        );
        let line = report_json(&report(LinkEvent::Fault {
            code: FaultCode::ScanError,
            board_ms: 1,
        }));
        assert_eq!(line["code"], "scan_error");
        let line = report_json(&report(LinkEvent::VersionMismatch {
            local: 1,
            remote: 2,
        }));
        assert_eq!(line["remote"], 2);
        let line = report_json(&report(LinkEvent::OpenFailed {
            error: "cannot open x".into(),
        }));
        assert_eq!(line["error"], "cannot open x");
    }
}
