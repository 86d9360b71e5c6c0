//! `kriegspiel-board self-test`: the per-square check of `hardware/README.md`.

use std::io::{self, Write};
use std::sync::mpsc::{self, TryRecvError};
use std::time::Duration;

use bounded_lines::LineReader;
use kriegspiel_board_core::{Occupancy, Prompt, Scanner, SelfTest, SelfTestReport, Square};
use reed_matrix::sim::PinBoard;

use crate::pacer::Pacer;
use crate::script::{Action, Script};

/// Faults to build into the simulated board, to see the self-test catch them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimFaults {
    pub dead: Vec<Square>,
    pub shorts: Vec<(Square, Square)>,
    pub chatter: Vec<Square>,
}

/// Runs the script against simulated pins in virtual time (no waiting) and returns the
/// findings. Scans every `1000 / scan_hz` ms, like the board would.
pub fn run_simulated(
    script: &Script,
    faults: &SimFaults,
    debounce_scans: u8,
    scan_hz: u16,
) -> SelfTestReport {
    let pins = PinBoard::new();
    pins.set_magnets(script.initial);
    pins.set_dead(faults.dead.iter().copied().collect());
    pins.set_chatter(faults.chatter.iter().copied().collect());
    for &(a, b) in &faults.shorts {
        pins.add_short(a, b);
    }
    let mut scanner = crate::simulate::sim_matrix(&pins);
    let mut test = SelfTest::new(debounce_scans);
    let period_us = 1_000_000 / u64::from(scan_hz.max(1));
    let last_ms = script.events.last().map_or(0, |e| u64::from(e.at_ms));
    // Run on past the last event long enough for it to be debounced.
    let end_us = (last_ms + 100) * 1000 + period_us * u64::from(debounce_scans);
    let mut next_event = 0;
    let mut t_us = 0u64;
    while t_us <= end_us {
        let t_ms = t_us / 1000;
        while let Some(e) = script
            .events
            .get(next_event)
            .filter(|e| u64::from(e.at_ms) <= t_ms)
        {
            pins.set_magnet(e.square, e.action == Action::Place);
            next_event += 1;
        }
        match scanner.scan() {
            Ok(raw) => {
                test.observe(raw, t_ms as u32);
            }
            Err(infallible) => match infallible {},
        }
        t_us += period_us;
    }
    test.report()
}

/// Walks the operator through the 64 squares on real hardware. Enter skips a square that
/// does not respond, `q` + Enter stops early. Returns the findings.
pub fn run_interactive<S: Scanner>(
    scanner: &mut S,
    debounce_scans: u8,
    scan_hz: u16,
    out: &mut impl Write,
) -> Result<SelfTestReport, S::Error> {
    let (tx, stdin_lines) = mpsc::channel();
    std::thread::spawn(move || {
        // Bounded lines: a line too long or not UTF-8 counts as Enter (skip the square).
        let mut lines = LineReader::new(io::stdin().lock());
        while let Ok(Some(line)) = lines.next_line() {
            if tx.send(line.unwrap_or_default().to_owned()).is_err() {
                return;
            }
        }
    });
    let mut test = SelfTest::new(debounce_scans);
    let pacer = Pacer::new();
    let period = Duration::from_micros(1_000_000 / u64::from(scan_hz.max(1)));
    let _ = writeln!(
        out,
        "Self-test: clear the board, then follow the prompts (Enter = skip a square, q = stop)."
    );
    let mut shown = None;
    loop {
        let raw = scanner.scan()?;
        let before = test.prompt();
        let prompt = test.observe(raw, pacer.now_ms());
        if let (Prompt::Place(wanted), Prompt::LiftAll { .. }) = (before, prompt) {
            if let Some(got) = test.report().instead[usize::from(wanted.index())] {
                let _ = writeln!(out, "  ! {got} closed, but {wanted} was asked for");
            }
        }
        match stdin_lines.try_recv() {
            Ok(line) if line.trim().eq_ignore_ascii_case("q") => break,
            Ok(_) => {
                test.skip();
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => {}
        }
        let prompt = test.prompt();
        if shown != Some(prompt) {
            let _ = match prompt {
                Prompt::Place(sq) => writeln!(out, "Place a magnet on {sq}"),
                Prompt::LiftAll { .. } => writeln!(out, "  ok, lift it"),
                Prompt::Done => writeln!(out, "All 64 squares visited."),
            };
            let _ = out.flush();
            shown = Some(prompt);
        }
        if prompt == Prompt::Done {
            break;
        }
        std::thread::sleep(period);
    }
    Ok(test.report())
}

/// Writes the findings for a person; says PASS or FAIL on the last line.
pub fn write_report(report: &SelfTestReport, out: &mut impl Write) -> io::Result<()> {
    let list = |occ: Occupancy| {
        occ.squares()
            .map(|sq| sq.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let bad = report.never_closed.bits() | report.ghosted().bits() | report.chatter().bits();
    let good = 64 - bad.count_ones();
    writeln!(out, "squares that closed cleanly: {good} of 64")?;
    if !report.never_closed.is_empty() {
        writeln!(out, "never closed: {}", list(report.never_closed))?;
    }
    let ghosted = report.ghosted();
    if !ghosted.is_empty() {
        writeln!(out, "closed together (ghosting or a short):")?;
        for sq in ghosted.squares() {
            writeln!(
                out,
                "  {sq} with {}",
                list(report.together[usize::from(sq.index())])
            )?;
        }
    }
    for (wanted, got) in Square::all().zip(report.instead) {
        if let Some(got) = got {
            writeln!(out, "asked for {wanted}, {got} closed instead")?;
        }
    }
    let chatter = report.chatter();
    if !chatter.is_empty() {
        let items: Vec<String> = chatter
            .squares()
            .map(|sq| format!("{sq} ({} flips)", report.glitches[usize::from(sq.index())]))
            .collect();
        writeln!(
            out,
            "chatter (flips the debouncer filtered): {}",
            items.join(" ")
        )?;
    }
    writeln!(out, "{}", if report.passed() { "PASS" } else { "FAIL" })
}
