//! `kriegspiel board-monitor dgt:PATH` (or `dgt:auto`): what a DGT e-board's driver
//! reports, one JSON line per event (docs/DGT.md).
//!
//! `connected` / `back` with the board's serial numbers and firmware, `position` each time
//! the board settles in a new placement (FEN board, foreign objects, orientation), `lost`,
//! and `waiting` while no board answers (also on stderr, once per reason). `--health` adds
//! the driver's counters every second; `--verbose` the raw bytes both ways.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_dgt::{
    Counters, DgtBoard, DgtEvent, DgtOptions, DgtPort, Direction, Identity, LostReason, RawEntry,
    Report,
};
use serde_json::{json, Value};

/// How often `--health` prints the counters and `--verbose` the raw bytes.
const EVERY: Duration = Duration::from_secs(1);
const RAW_EVERY: Duration = Duration::from_millis(200);

/// Runs the monitor on `spec` (`dgt:PATH` or `dgt:auto`).
pub fn run(spec: &str, verbose: bool, health: bool) -> ExitCode {
    let port = match DgtPort::parse(spec) {
        Ok(port) => port,
        Err(error) => {
            eprintln!("board-monitor: {error}");
            return ExitCode::from(2);
        }
    };
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
    runtime.block_on(monitor(port, verbose, health))
}

async fn monitor(port: DgtPort, verbose: bool, health: bool) -> ExitCode {
    let (handle, mut reports) = DgtBoard::open(port, DgtOptions::default());
    let start = tokio::time::Instant::now();
    let mut health_timer = tokio::time::interval_at(start + EVERY, EVERY);
    let mut raw_timer = tokio::time::interval_at(start + RAW_EVERY, RAW_EVERY);
    let mut raw_seen = 0;
    loop {
        let lines = tokio::select! {
            report = reports.recv() => {
                let Some(report) = report else { break };
                if let DgtEvent::Waiting(why) = &report.event {
                    eprintln!("board-monitor: {why} (retrying)");
                }
                vec![report_json(&report)]
            }
            _ = health_timer.tick(), if health => vec![counters_json(&handle.counters())],
            _ = raw_timer.tick(), if verbose => {
                let entries = handle.raw_log_since(raw_seen);
                raw_seen = entries.last().map_or(raw_seen, |e| e.seq);
                entries.iter().map(raw_json).collect()
            }
        };
        let mut out = std::io::stdout().lock();
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

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn identity_json(event: &str, id: &Identity, at: Duration) -> Value {
    json!({
        "event": event,
        "serial": id.serial,
        "long_serial": id.long_serial,
        "firmware": format!("{}.{:02}", id.version.0, id.version.1),
        "at_ms": ms(at),
    })
}

/// One report as a line.
pub fn report_json(report: &Report) -> Value {
    let at = report.at;
    match &report.event {
        DgtEvent::Connected(id) => identity_json("connected", id, at),
        DgtEvent::Back(id) => identity_json("back", id, at),
        DgtEvent::Position(placement) => {
            let foreign: Vec<Value> = placement
                .foreign()
                .map(|(square, code)| json!({"square": square.to_string(), "code": code}))
                .collect();
            json!({
                "event": "position",
                "board": placement.board().to_string(),
                "foreign": foreign,
                "orientation": placement.orientation().name(),
                "orientation_known": placement.orientation_known(),
                "at_ms": ms(at),
            })
        }
        DgtEvent::Lost(reason) => {
            let mut line = json!({"event": "lost", "reason": reason.name(), "at_ms": ms(at)});
            match reason {
                LostReason::Silent { missed } => line["missed"] = json!(missed),
                LostReason::Io(error) => line["error"] = json!(error),
                LostReason::Closed => {}
            }
            line
        }
        DgtEvent::Waiting(why) => json!({"event": "waiting", "why": why, "at_ms": ms(at)}),
    }
}

/// The driver's counters as a line.
pub fn counters_json(c: &Counters) -> Value {
    json!({
        "event": "counters",
        "frames": c.frames,
        "field_updates": c.field_updates,
        "dumps": c.dumps,
        "settled_dumps": c.settled_dumps,
        "positions": c.positions,
        "stray_bytes": c.stray_bytes,
        "truncated": c.truncated,
        "bad_length": c.bad_length,
        "oversize": c.oversize,
        "ee_moves": c.ee_moves,
        "commands": c.commands,
        "lost": c.lost,
    })
}

/// Raw bytes as a line: `{"event":"raw","dir":"in","bytes":"8e 00 05 24 01",...}`.
pub fn raw_json(entry: &RawEntry) -> Value {
    let dir = match entry.direction {
        Direction::FromBoard => "in",
        Direction::ToBoard => "out",
    };
    let bytes: Vec<String> = entry.bytes.iter().map(|b| format!("{b:02x}")).collect();
    json!({"event": "raw", "dir": dir, "bytes": bytes.join(" "), "at_ms": ms(entry.at)})
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_dgt::{Orientation, Placement};

    fn report(event: DgtEvent) -> Report {
        Report {
            at: Duration::from_millis(1234),
            event,
        }
    }

    #[test]
    fn lines_for_each_event() {
        let id = Identity {
            version: (1, 2),
            serial: "47740".into(),
            long_serial: Some("3000147740".into()),
        };
        assert_eq!(
            report_json(&report(DgtEvent::Back(id))),
            json!({"event": "back", "serial": "47740", "long_serial": "3000147740", "firmware": "1.02", "at_ms": 1234})
        );
        let mut fields = [0u8; 64];
        fields[60] = 5; // e1: a white king
        fields[36] = 14; // e4: a magic piece
        let placement = Placement::from_fields(&fields, Orientation::Normal, false);
        let line = report_json(&report(DgtEvent::Position(placement)));
        assert_eq!(line["board"], "8/8/8/8/8/8/8/4K3");
        assert_eq!(line["foreign"], json!([{"square": "e4", "code": 14}]));
        assert_eq!(line["orientation"], "normal");
        assert_eq!(line["orientation_known"], false);
        let line = report_json(&report(DgtEvent::Lost(LostReason::Silent { missed: 2 })));
        assert_eq!(
            (line["reason"].as_str(), line["missed"].as_u64()),
            (Some("silent"), Some(2))
        );
        let line = report_json(&report(DgtEvent::Lost(LostReason::Io("gone".into()))));
        assert_eq!(line["error"], "gone");
        let line = report_json(&report(DgtEvent::Waiting("no board".into())));
        assert_eq!(line["why"], "no board");
    }

    #[test]
    fn raw_and_counter_lines() {
        let entry = RawEntry {
            seq: 1,
            at: Duration::from_millis(5),
            direction: Direction::FromBoard,
            bytes: vec![0x8e, 0, 5, 36, 1],
        };
        assert_eq!(
            raw_json(&entry),
            json!({"event": "raw", "dir": "in", "bytes": "8e 00 05 24 01", "at_ms": 5})
        );
        let line = counters_json(&Counters {
            truncated: 3,
            ..Counters::default()
        });
        assert_eq!(line["truncated"], 3);
    }
}
