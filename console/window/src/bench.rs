//! Frame-time measurement of the real window (docs/PERFORMANCE.md): with
//! `KRIEGSPIEL_WINDOW_BENCH=SECONDS` the window repaints continuously for that long, then
//! prints one line of figures on standard error and closes.

use std::time::{Duration, Instant};

use crate::ArbiterApp;

/// The measurement asked for by the environment.
#[derive(Debug, Clone, Copy)]
pub struct Bench {
    pub length: Duration,
}

impl Bench {
    pub fn from_env() -> Option<Bench> {
        let secs: f64 = std::env::var("KRIEGSPIEL_WINDOW_BENCH")
            .ok()?
            .parse()
            .ok()?;
        (secs > 0.0 && secs < 3600.0).then(|| Bench {
            length: Duration::from_secs_f64(secs),
        })
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
}

impl Measured {
    pub fn new(app: ArbiterApp, bench: Bench) -> Measured {
        Measured {
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

impl eframe::App for Measured {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
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
