//! `draw [DIR]`: writes every drawing as DIR/NAME.svg (default `hardware/drawings/out`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(hardware_drawings::out_dir);
    if args.next().is_some() {
        eprintln!("usage: draw [DIR]");
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("draw: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for d in hardware_drawings::drawings() {
        let path = dir.join(d.file);
        if let Err(e) = std::fs::write(&path, d.svg) {
            eprintln!("draw: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
