//! The `dgt-emulate` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use super::model::Config;
use super::run::{self, Options};
use super::script::{check_serial, DgtScript};

/// The script format and the faults, for `--help`.
pub const SCRIPT_HELP: &str = "\
Emulates a DGT e-board behind a pseudo-terminal of its own: --port PATH becomes a
symbolic link to it (PATH must not exist, or be a link), and an unplug removes both.
The board powers up in bus mode, keeps 10 bytes of input (more is lost), answers
version, serial numbers, bus address, trademark, dumps and the update modes, and scans
every 225 ms (450 with --bluetooth), sending field updates in field order.

Script: the `simulate` format with men; blank lines and # comments allowed.
  occupied start|white|black|SQ|SQ=P ...   first line: squares and their men
  fen PLACEMENT                            first line, instead: a FEN board
  MS lift SQ                               the man goes into the hand
  MS place SQ [P]                          P: a FEN letter (X Y Z: magic pieces);
                                           without it, the man last lifted
  MS flicker SQ [SCANS]                    reads empty every other scan (default 4)
  MS garbage [N]                           N bytes of line noise (default 16)
  MS truncated                             the first 23 bytes of a dump, no more
  MS eeprom                                an unasked 8 KB move log (0x8f)
  MS silence DURATION                      no answer, no message for DURATION ms
  MS unplug                                the pseudo-terminal and PATH go away
  MS replug [SERIAL]                       back at PATH, in bus mode, optionally as
                                           another board
Prints a line per scripted event, field update, dump, mode change and input
overflow (--quiet: none). Serves until killed, or --exit-after MS after the last
event. Exit status: 0, 1 (pseudo-terminal or link), 2 (bad script or argument).";

#[derive(Debug, clap::Args)]
#[command(after_help = SCRIPT_HELP)]
pub struct Args {
    /// The script of men and faults.
    #[arg(long)]
    pub script: PathBuf,
    /// The path to link to the board's pseudo-terminal (the PC opens this).
    #[arg(long)]
    pub port: PathBuf,
    /// Serial number: up to 5 characters, or 6 to 10 for a board with a long serial
    /// number (whose last 5 are the short one).
    #[arg(long, default_value = "12345", value_parser = parse_serial)]
    pub serial: String,
    /// Firmware version MAJOR.MINOR.
    #[arg(long, default_value = "1.02", value_parser = super::parse_version)]
    pub firmware: (u8, u8),
    /// A Bluetooth board: scans at half speed, answers the battery request.
    #[arg(long)]
    pub bluetooth: bool,
    /// Time between scans in ms (default 225, or 450 with --bluetooth).
    #[arg(long, value_parser = clap::value_parser!(u32).range(10..=5000))]
    pub scan_ms: Option<u32>,
    /// The board stands turned round: field 0 is h1.
    #[arg(long)]
    pub rotated: bool,
    /// Stop this many ms after the last scripted event.
    #[arg(long, value_name = "MS")]
    pub exit_after: Option<u32>,
    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
    /// Script time 0 at this wall-clock moment (Unix milliseconds, within a day of now),
    /// so that boards started one after another play one scripted game together (default:
    /// the start of this program). The board answers from the start.
    #[arg(long, value_name = "UNIX_MS", value_parser = crate::script::parse_unix_ms)]
    pub start_at: Option<std::time::SystemTime>,
}

fn parse_serial(s: &str) -> Result<String, String> {
    check_serial(s).map(|()| s.to_owned())
}

/// Runs the emulator; errors are one line on standard error.
pub fn main(args: Args) -> ExitCode {
    let script = match DgtScript::load(&args.script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kriegspiel-board: {e}");
            return ExitCode::from(2);
        }
    };
    let mut config = Config {
        version: args.firmware,
        bluetooth: args.bluetooth,
        scan_ms: args
            .scan_ms
            .unwrap_or(if args.bluetooth { 450 } else { 225 }),
        rotated: args.rotated,
        ..Config::default()
    };
    config.set_serial(&args.serial);
    let options = Options {
        port: args.port,
        config,
        exit_after_ms: args.exit_after,
        start_at: args.start_at,
    };
    let quiet = args.quiet;
    let say = |line: String| {
        if !quiet {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        }
    };
    match run::run(&script, &options, say) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kriegspiel-board: {e}");
            ExitCode::from(1)
        }
    }
}
