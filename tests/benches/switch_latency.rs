//! From a reed switch changing to the console holding the event, across the whole chain:
//! `kriegspiel-board simulate` (scripted magnets on simulated pins, the real matrix driver,
//! debouncer and board loop at its default scan rate) -> socat pseudo-terminals -> the
//! console's `BoardLink`. Prints the distribution; figures go to docs/PERFORMANCE.md.
//!
//! Clocks: the board stamps each event with the tick of the first scan that saw the change,
//! and the first snapshot aligns the board's clock with the console's (its own delay is
//! only the link's, measured separately at ~17 µs), so
//! latency = (arrival − snapshot arrival) − (board_ms − snapshot board_ms).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use kriegspiel_boardlink::{BoardLink, LinkConfig, LinkEvent};
use kriegspiel_tests::link_util::{cargo_bin, Script};
use kriegspiel_tests::process::{socat_cable, ChildGuard};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(measure());
}

async fn measure() {
    let board_bin = cargo_bin("kriegspiel-board", "kriegspiel-board");
    let dir = tempfile::tempdir().unwrap();
    let (_cable, board_port, console_port) = socat_cable(dir.path(), "latency").unwrap();
    // 300 switch changes 40 ms apart (slower than any debounce window, like a hand).
    let script = Script::random(150, 5, 1000, 40, 0).with_tail(500);
    let script_path = dir.path().join("latency.script");
    std::fs::write(&script_path, script.to_text()).unwrap();

    let (_link, mut rx) = BoardLink::spawn(&console_port, LinkConfig::default());
    let _board = ChildGuard(
        std::process::Command::new(&board_bin)
            .args(["simulate", "--script"])
            .arg(&script_path)
            .arg("--port")
            .arg(&board_port)
            .arg("--quiet")
            .spawn()
            .unwrap(),
    );

    let mut origin: Option<(Instant, u32)> = None;
    let mut latencies: Vec<f64> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while latencies.len() < script.moves.len() && Instant::now() < deadline {
        let Ok(Some(report)) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await else {
            break;
        };
        let arrived = Instant::now();
        match report.event {
            LinkEvent::Snapshot { board_ms, .. } | LinkEvent::Resync { board_ms, .. }
                if origin.is_none() =>
            {
                origin = Some((arrived, board_ms));
            }
            LinkEvent::Lift { board_ms, .. } | LinkEvent::Place { board_ms, .. } => {
                if let Some((t0, b0)) = origin {
                    let console_ms = arrived.duration_since(t0).as_secs_f64() * 1000.0;
                    let board_elapsed = f64::from(board_ms.wrapping_sub(b0));
                    latencies.push(console_ms - board_elapsed);
                }
            }
            _ => {}
        }
    }
    assert!(
        latencies.len() >= 200,
        "only {} events arrived",
        latencies.len()
    );
    latencies.sort_by(f64::total_cmp);
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "switch change -> console event over {} events: median {:.1} ms, p95 {:.1} ms, max {:.1} ms, min {:.1} ms",
        latencies.len(),
        pick(0.5),
        pick(0.95),
        pick(1.0),
        pick(0.0)
    );
}
