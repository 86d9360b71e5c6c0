//! `kriegspiel board-monitor PATH`: shows what a board sends, one JSON line per link event.
//!
//! A port that cannot be opened is not fatal: like the link itself after an unplug, the
//! monitor keeps retrying every 250 ms, printing an `open_failed` line (and a message on
//! stderr) once per distinct error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use kriegspiel_boardlink::{
    BoardLink, DisconnectReason, Health, LinkConfig, LinkEvent, Report, ResyncReason,
};
use kriegspiel_link::{is_occupied, square_name, SquareIndex};
use serde_json::{json, Value};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The board's serial port (e.g. /dev/ttyACM0, /dev/serial0, or a pty path).
    path: PathBuf,
    /// Line speed (ignored by USB serial and pseudo-terminals).
    #[arg(long, default_value_t = 115_200)]
    baud: u32,
}

pub fn run(args: Args) -> ExitCode {
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
    let (_link, mut reports) = BoardLink::spawn(args.path, config);
    let stdout = std::io::stdout();
    while let Some(report) = reports.recv().await {
        if let LinkEvent::OpenFailed { error } = &report.event {
            eprintln!("board-monitor: {error} (retrying every 250 ms)");
        }
        if let LinkEvent::VersionMismatch { local, remote } = &report.event {
            eprintln!("board-monitor: the board speaks protocol version {remote}, this console version {local}; its events are ignored until a compatible board is connected");
        }
        let mut out = stdout.lock();
        let line = report_json(&report).to_string();
        // A closed stdout (e.g. `| head`) ends the monitor normally.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
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
                DisconnectReason::Silence { timeout } => {
                    value["silence_ms"] =
                        json!(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
                }
                DisconnectReason::Io { error } => value["error"] = json!(error),
                DisconnectReason::Closed => {}
            }
            value
        }
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
        }
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
