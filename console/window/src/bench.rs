//! Measurements of the real window (docs/PERFORMANCE.md), asked by the environment:
//!
//! - `KRIEGSPIEL_WINDOW_BENCH=SECONDS`: frame times; the window repaints continuously for
//!   that long, then prints one line of figures on standard error and closes.
//! - `KRIEGSPIEL_WINDOW_BENCH=idle:SECONDS`: the CPU an idle round costs; the window waits
//!   until every table's game is over (the boards stay connected: their links' snapshots and
//!   heartbeats keep coming), 5 s more, then counts the frames drawn and the CPU time of the
//!   whole process (every thread: the window, the hall, the boards' links) for that long,
//!   prints them and closes. With `kriegspiel-console --demo --tables 16` that is 16 tables
//!   and 32 simulated boards sitting still.

use std::time::{Duration, Instant};

use crate::ArbiterApp;

/// The measurement asked for by the environment.
#[derive(Debug, Clone, Copy)]
pub struct Bench {
    pub length: Duration,
    /// The idle round's CPU, not frame times.
    pub idle: bool,
}

impl Bench {
    pub fn from_env() -> Option<Bench> {
        Bench::parse(&std::env::var("KRIEGSPIEL_WINDOW_BENCH").ok()?)
    }

    /// "SECONDS" or "idle:SECONDS".
    pub fn parse(text: &str) -> Option<Bench> {
        let (idle, secs) = match text.trim().strip_prefix("idle:") {
            Some(rest) => (true, rest),
            None => (false, text.trim()),
        };
        let secs: f64 = secs.parse().ok()?;
        (secs > 0.0 && secs < 3600.0).then(|| Bench {
            length: Duration::from_secs_f64(secs),
            idle,
        })
    }
}

/// Where the idle measurement is.
#[derive(Debug, Clone, Copy)]
enum Idle {
    /// Until every game is over (at most [`IDLE_WAIT_MAX`]).
    Waiting {
        since: Instant,
    },
    /// The games are over: a few seconds for the last events.
    Settling {
        since: Instant,
    },
    Measuring {
        since: Instant,
        cpu: Cpu,
        frames: u64,
    },
    Done,
}

const IDLE_WAIT_MAX: Duration = Duration::from_secs(900);
const IDLE_SETTLE: Duration = Duration::from_secs(5);

/// The process's CPU time so far: user + system ticks of `/proc/self/stat` (every thread,
/// ended ones too) and the run time of the live threads (`/proc/self/task/*/schedstat`,
/// nanoseconds). Linux only; zeros elsewhere.
#[derive(Debug, Clone, Copy, Default)]
struct Cpu {
    ticks: u64,
    run_ns: u64,
    /// The window's own threads: the main one (events, layout, painting; the GL driver's
    /// work when it does not spawn threads) and the event reader and waker.
    window_ns: u64,
}

impl Cpu {
    fn now() -> Cpu {
        let ticks = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| {
                // The fields after the command name (which may hold spaces) in parentheses.
                let rest = s.rsplit_once(')')?.1;
                let f: Vec<&str> = rest.split_whitespace().collect();
                // utime and stime are fields 14 and 15 of the line, 12 and 13 after ')'.
                Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
            })
            .unwrap_or(0);
        let main = std::process::id().to_string();
        let (mut run_ns, mut window_ns) = (0, 0);
        for task in std::fs::read_dir("/proc/self/task")
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = task.path();
            let ns = std::fs::read_to_string(path.join("schedstat"))
                .ok()
                .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .unwrap_or(0);
            let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
            run_ns += ns;
            if task.file_name().to_str() == Some(main.as_str())
                || comm.trim().starts_with("window-")
            {
                window_ns += ns;
            }
        }
        Cpu {
            ticks,
            run_ns,
            window_ns,
        }
    }
}

/// The app with a stopwatch around every frame.
#[derive(Debug)]
pub struct Measured {
    app: ArbiterApp,
    bench: Bench,
    start: Option<Instant>,
    last: Option<Instant>,
    frames: u64,
    /// Time in the window's own code (layout), per frame.
    ui: Vec<f64>,
    /// Time between the starts of two frames (layout, painting, presenting).
    interval: Vec<f64>,
    done: bool,
    idle: Idle,
}

impl Measured {
    pub fn new(app: ArbiterApp, bench: Bench) -> Measured {
        Measured {
            idle: Idle::Waiting {
                since: Instant::now(),
            },
            app,
            bench,
            start: None,
            last: None,
            frames: 0,
            ui: Vec::new(),
            interval: Vec::new(),
            done: false,
        }
    }
}

fn ms(v: &mut [f64]) -> (f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let p95 = v[(v.len() * 95 / 100).min(v.len() - 1)];
    (mean, p95, v[v.len() - 1])
}

impl Measured {
    /// One frame of the idle measurement: the window draws only what it would anyway.
    fn idle_frame(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        eframe::App::ui(&mut self.app, ui, frame);
        let now = Instant::now();
        let ctx = ui.ctx().clone();
        let (tables, over) = {
            let s = crate::app::lock(self.app.store());
            (
                s.tables.len(),
                s.tables.values().filter(|t| t.is_over()).count(),
            )
        };
        self.idle = match self.idle {
            Idle::Waiting { since } => {
                let waited = now - since;
                if (tables > 0 && over == tables) || waited >= IDLE_WAIT_MAX {
                    eprintln!(
                        "window idle bench: {over} of {tables} games over after {:.0} s; settling {} s",
                        waited.as_secs_f64(),
                        IDLE_SETTLE.as_secs()
                    );
                    ctx.request_repaint_after(IDLE_SETTLE);
                    Idle::Settling { since: now }
                } else {
                    ctx.request_repaint_after(Duration::from_secs(1));
                    Idle::Waiting { since }
                }
            }
            Idle::Settling { since } if now - since >= IDLE_SETTLE => {
                ctx.request_repaint_after(self.bench.length);
                Idle::Measuring {
                    since: now,
                    cpu: Cpu::now(),
                    frames: 0,
                }
            }
            Idle::Settling { since } => {
                ctx.request_repaint_after(IDLE_SETTLE.saturating_sub(now - since));
                Idle::Settling { since }
            }
            Idle::Measuring { since, cpu, frames } if now - since >= self.bench.length => {
                let end = Cpu::now();
                let secs = (now - since).as_secs_f64();
                let ticks = end.ticks.saturating_sub(cpu.ticks);
                let run_ms = end.run_ns.saturating_sub(cpu.run_ns) as f64 / 1e6;
                let window_ms = end.window_ns.saturating_sub(cpu.window_ns) as f64 / 1e6;
                eprintln!(
                    "window idle bench: {tables} tables ({over} over), {} frames in {secs:.1} s; the window's threads {window_ms:.1} ms = {:.3} % of a core; the process {run_ms:.0} ms = {:.2} % of a core (live threads' run time), {ticks} ticks of {:.0} in /proc/self/stat",
                    frames,
                    window_ms / 10.0 / secs,
                    run_ms / 10.0 / secs,
                    secs * 100.0
                );
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                Idle::Done
            }
            Idle::Measuring { since, cpu, frames } => {
                ctx.request_repaint_after(
                    (since + self.bench.length).saturating_duration_since(now),
                );
                Idle::Measuring {
                    since,
                    cpu,
                    frames: frames + 1,
                }
            }
            Idle::Done => Idle::Done,
        };
    }
}

impl eframe::App for Measured {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        if self.bench.idle {
            self.idle_frame(ui, frame);
            return;
        }
        let begin = Instant::now();
        let start = *self.start.get_or_insert(begin);
        if let Some(last) = self.last {
            self.interval.push((begin - last).as_secs_f64() * 1000.0);
        }
        self.last = Some(begin);
        eframe::App::ui(&mut self.app, ui, frame);
        self.ui.push(begin.elapsed().as_secs_f64() * 1000.0);
        self.frames += 1;
        if begin - start >= self.bench.length && !self.done {
            self.done = true;
            let (ui_mean, ui_p95, ui_max) = ms(&mut self.ui);
            let (fr_mean, fr_p95, fr_max) = ms(&mut self.interval);
            eprintln!(
                "window bench: {} frames in {:.1} s; ui {ui_mean:.2}/{ui_p95:.2}/{ui_max:.2} ms (mean/p95/max); frame interval {fr_mean:.2}/{fr_p95:.2}/{fr_max:.2} ms",
                self.frames,
                (begin - start).as_secs_f64()
            );
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        ui.ctx().request_repaint();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_and_idle_benches_are_told_apart() {
        let b = Bench::parse("15").map(|b| (b.idle, b.length.as_secs()));
        assert_eq!(b, Some((false, 15)));
        let b = Bench::parse("idle:30").map(|b| (b.idle, b.length.as_secs()));
        assert_eq!(b, Some((true, 30)));
        assert!(Bench::parse("idle:").is_none());
        assert!(Bench::parse("0").is_none());
    }
}
