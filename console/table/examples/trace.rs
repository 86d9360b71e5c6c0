//! Plays a trace file and prints what the table said, then whether it matched:
//! `cargo run -p kriegspiel-table --example trace -- tests/traces/001-quiet-move.trace`.

use std::process::ExitCode;

use kriegspiel_table::trace::Trace;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: trace FILE.trace");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let trace = match Trace::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    match trace.run() {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    }
    match trace.check() {
        Ok(Ok(())) => {
            eprintln!("{path}: as expected");
            ExitCode::SUCCESS
        }
        Ok(Err(mismatch)) => {
            eprintln!("{path}: {mismatch}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(2)
        }
    }
}
