//! `kriegspiel-board`: see `docs/BOARD-FIRMWARE.md`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use kriegspiel_board::config::Config;
use kriegspiel_board::pi::PiScanner;
use kriegspiel_board::script::{Script, MAX_SCRIPT_BYTES};
use kriegspiel_board::selftest::{self, SimFaults};
use kriegspiel_board::serial;
use kriegspiel_board::simulate::{self, Sent};
use kriegspiel_board::stop::Stop;
use kriegspiel_board_core::{Board, BoardConfig, BoardError, Square};
use kriegspiel_net::{BoardTransport, Broker, BrokerUrl, TransportConfig, TransportWriter};
use std::sync::mpsc::Receiver;

/// Exit status for a bad script or argument value (nothing was sent).
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status when the self-test found faults.
const EXIT_SELF_TEST_FAILED: u8 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "kriegspiel-board",
    version,
    about = "Reed-switch chess board -> Kriegspiel console serial link"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read the board on a Raspberry Pi's GPIO and serve the console on a serial port.
    Run {
        /// TOML file: board id, scan rate, debounce, pins.
        #[arg(long)]
        config: PathBuf,
        #[command(flatten)]
        link: LinkArgs,
        /// The board's id on the broker (default: the config file's board_id).
        #[arg(long, requires = "broker")]
        board_id: Option<u32>,
    },
    /// Play a script of timed magnet moves on simulated pins and serve the console.
    Simulate {
        /// Script: `MILLISECONDS lift|place SQUARE` lines, optional first `occupied ...` line.
        #[arg(long)]
        script: PathBuf,
        #[command(flatten)]
        link: LinkArgs,
        /// The board's id (default: N of a broker user name board-N, else 1).
        #[arg(long)]
        board_id: Option<u32>,
        #[arg(long, default_value_t = BoardConfig::default().scan_hz)]
        scan_hz: u16,
        #[arg(long, default_value_t = BoardConfig::default().debounce_scans)]
        debounce_scans: u8,
        /// Print nothing on success (by default: a line per lift, place or fault sent, and a
        /// summary at the end).
        #[arg(long)]
        quiet: bool,
        /// Script time 0 at this wall-clock moment (Unix milliseconds), so that boards
        /// started one after another play one scripted game together (default: the start
        /// of this program).
        #[arg(long, value_name = "UNIX_MS", value_parser = kriegspiel_board::script::parse_unix_ms)]
        start_at: Option<std::time::SystemTime>,
        /// Start as a board rebooted mid-game: the script's first N events are taken as
        /// done, with the men standing where they left them, and the rest follow at their
        /// times (give the same --start-at as the run it continues; events already due
        /// follow at once, in order). What the earlier run sent is not sent again.
        #[arg(long, value_name = "N", default_value_t = 0)]
        from_event: usize,
    },
    /// Check every square: place a magnet on a1, b1, ... h8 in turn.
    SelfTest(SelfTestArgs),
    /// Emulate a DGT e-board on a pseudo-terminal, with faults (see docs/DGT.md).
    DgtEmulate(kriegspiel_board::dgt::cli::Args),
}

/// Where the console is: a serial line, or a broker on the room's network.
#[derive(Debug, Args)]
struct LinkArgs {
    /// Serial device or pseudo-terminal to the console (e.g. /dev/serial0, /dev/ttyGS0).
    #[arg(long, required_unless_present = "broker", conflicts_with = "broker")]
    port: Option<String>,
    /// MQTT broker instead of a serial line: mqtt://HOST:PORT, or mqtts://HOST:PORT with
    /// --ca-file (see docs/NETWORK.md).
    #[arg(long, value_name = "URL")]
    broker: Option<BrokerUrl>,
    /// User name on the broker (from the board's seat file).
    #[arg(long, requires = "broker")]
    username: Option<String>,
    /// File holding the broker password: the board's seat file, or a file whose first line
    /// is the password.
    #[arg(long, requires = "username", value_name = "FILE")]
    password_file: Option<PathBuf>,
    /// The round's CA certificate, for mqtts://.
    #[arg(long, requires = "broker", value_name = "FILE")]
    ca_file: Option<PathBuf>,
}

/// The open link: the board's frame writer and the console's bytes.
enum Link {
    Serial(serial::SerialWriter, Receiver<Vec<u8>>),
    Net(TransportWriter, Receiver<Vec<u8>>, BoardTransport),
}

impl LinkArgs {
    /// The port's or the broker's name, for messages.
    fn name(&self) -> String {
        match (&self.port, &self.broker) {
            (Some(port), _) => port.clone(),
            (None, Some(url)) => url.to_string(),
            (None, None) => String::new(),
        }
    }

    /// N of a broker user name `board-N`: the only board that user may send as.
    fn users_board(&self) -> Option<u32> {
        self.username
            .as_deref()?
            .strip_prefix("board-")?
            .parse()
            .ok()
    }

    /// Refuses a board id the broker user may not send as: the broker would drop every
    /// frame without a word.
    fn check_id(&self, board_id: u32) -> Result<(), ExitCode> {
        match (self.users_board(), &self.broker) {
            (Some(user), Some(_)) if user != board_id => Err(fail(
                EXIT_BAD_INPUT,
                format!(
                    "the broker user board-{user} may send only as board {user}, not as \
                     board {board_id}: give --board-id {user} (or board_id = {user} in the \
                     config file)"
                ),
            )),
            _ => Ok(()),
        }
    }

    fn open(&self, baud: u32, board_id: u32) -> Result<Link, ExitCode> {
        self.check_id(board_id)?;
        match (&self.port, &self.broker) {
            (Some(port), _) => serial::open(port, baud)
                .map(|(w, r)| Link::Serial(w, r))
                .map_err(|e| fail(1, e)),
            (None, Some(url)) => {
                let broker = Broker {
                    url: url.clone(),
                    username: self.username.clone(),
                    password_file: self.password_file.clone(),
                    password: None,
                    ca_file: self.ca_file.clone(),
                };
                BoardTransport::start(TransportConfig::new(board_id, broker))
                    .map(|(w, r, t)| Link::Net(w, r, t))
                    .map_err(|e| fail(EXIT_BAD_INPUT, e))
            }
            (None, None) => Err(fail(EXIT_BAD_INPUT, "give --port or --broker")),
        }
    }
}

#[derive(Debug, Args)]
struct SelfTestArgs {
    /// Config file of the real board (interactive, on a Raspberry Pi).
    #[arg(
        long,
        required_unless_present = "simulate",
        conflicts_with = "simulate"
    )]
    config: Option<PathBuf>,
    /// Run on simulated pins driven by --script, without prompting.
    #[arg(long, requires = "script")]
    simulate: bool,
    /// Script walking the magnet over the squares (with --simulate).
    #[arg(long)]
    script: Option<PathBuf>,
    /// Simulated fault: this switch never closes (repeatable).
    #[arg(long, value_parser = parse_square, requires = "simulate")]
    dead: Vec<Square>,
    /// Simulated fault: these two squares are shorted, e.g. b2:c2 (repeatable).
    #[arg(long, value_parser = parse_pair, requires = "simulate")]
    short: Vec<(Square, Square)>,
    /// Simulated fault: this switch chatters while closed (repeatable).
    #[arg(long, value_parser = parse_square, requires = "simulate")]
    chatter: Vec<Square>,
}

fn parse_square(s: &str) -> Result<Square, String> {
    Square::parse(s).ok_or_else(|| format!("'{s}' is not a square (a1 to h8)"))
}

fn parse_pair(s: &str) -> Result<(Square, Square), String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| format!("'{s}' is not a pair like b2:c2"))?;
    let (a, b) = (parse_square(a)?, parse_square(b)?);
    if a == b {
        return Err(format!("'{s}' names one square twice: a short joins two"));
    }
    Ok((a, b))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            config,
            link,
            board_id,
        } => run(&config, &link, board_id),
        Command::Simulate {
            script,
            link,
            board_id,
            scan_hz,
            debounce_scans,
            quiet,
            start_at,
            from_event,
        } => {
            let config = BoardConfig {
                board_id: board_id.or(link.users_board()).unwrap_or(1),
                debounce_scans,
                scan_hz,
            };
            simulate_cmd(&script, &link, config, (start_at, from_event), quiet)
        }
        Command::SelfTest(args) => self_test(args),
        Command::DgtEmulate(args) => kriegspiel_board::dgt::cli::main(args),
    }
}

fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("kriegspiel-board: {msg}");
    ExitCode::from(code)
}

fn load_script(path: &std::path::Path) -> Result<Script, ExitCode> {
    Script::load(path, MAX_SCRIPT_BYTES).map_err(|e| fail(EXIT_BAD_INPUT, e))
}

/// A line on standard output; a closed or full stdout never stops the board.
fn say(line: impl std::fmt::Display) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

fn check_timing(config: BoardConfig) -> Result<(), ExitCode> {
    use kriegspiel_board_core::{DEBOUNCE_SCANS_RANGE, SCAN_HZ_RANGE};
    if !SCAN_HZ_RANGE.contains(&config.scan_hz) {
        return Err(fail(
            EXIT_BAD_INPUT,
            format!(
                "--scan-hz {} is outside {}..={}",
                config.scan_hz,
                SCAN_HZ_RANGE.start(),
                SCAN_HZ_RANGE.end()
            ),
        ));
    }
    if !DEBOUNCE_SCANS_RANGE.contains(&config.debounce_scans) {
        return Err(fail(
            EXIT_BAD_INPUT,
            format!(
                "--debounce-scans {} is outside {}..={}",
                config.debounce_scans,
                DEBOUNCE_SCANS_RANGE.start(),
                DEBOUNCE_SCANS_RANGE.end()
            ),
        ));
    }
    Ok(())
}

fn simulate_cmd(
    script_path: &std::path::Path,
    link: &LinkArgs,
    config: BoardConfig,
    (start, from_event): (Option<std::time::SystemTime>, usize),
    quiet: bool,
) -> ExitCode {
    let script = match load_script(script_path).and_then(|s| check_timing(config).map(|()| s)) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let Some(script) = script.from_event(from_event) else {
        return fail(
            EXIT_BAD_INPUT,
            format!(
                "--from-event {from_event}: {} has only {} events",
                script_path.display(),
                script.events.len()
            ),
        );
    };
    let mut sent = Sent::default();
    let mut on_sent = |msg: &_| {
        if let Some(line) = sent.record(msg) {
            if !quiet {
                say(line);
            }
        }
    };
    let name = link.name();
    let stop = Stop::on_signals();
    let result = match link.open(serial::DEFAULT_BAUD, config.board_id) {
        Err(code) => return code,
        Ok(Link::Serial(writer, incoming)) => simulate::run(
            &script,
            config,
            start,
            writer,
            &incoming,
            &mut on_sent,
            &stop,
        )
        .map_err(|e| e.to_string()),
        Ok(Link::Net(writer, incoming, transport)) => simulate::run(
            &script,
            config,
            start,
            writer,
            &incoming,
            &mut on_sent,
            &stop,
        )
        .map_err(|e| e.to_string())
        .and_then(|()| match stop.asked() {
            None => flush(&transport, config.board_id),
            Some(_) => {
                stopping(&transport, config.board_id);
                Ok(())
            }
        }),
    };
    match (result, stop.asked()) {
        (Ok(()), None) => {
            if !quiet {
                say(sent);
            }
            ExitCode::SUCCESS
        }
        (Ok(()), Some((number, name))) => {
            if !quiet {
                say(sent);
            }
            stopped_by(number, name)
        }
        (Err(e), _) => fail(1, format!("{name}: {e}")),
    }
}

/// How long a board stopped by a signal waits for the console to hold its last events:
/// long enough for a console on the room's network, short enough for `systemctl stop`.
const STOP_FLUSH_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// A board stopped by a signal gives the console a moment to hold its last events; the
/// transport, dropped after, says "stopped" when it holds them all, else "offline".
fn stopping(transport: &BoardTransport, board_id: u32) {
    if let Err(left) = transport.flush(STOP_FLUSH_LIMIT) {
        eprintln!(
            "kriegspiel-board: board {board_id}: {left} events were not yet held by the console; they are lost with this program (the console resyncs the board from its next start)"
        );
    }
}

/// The exit of a board stopped by a signal, said.
fn stopped_by(number: i32, name: &str) -> ExitCode {
    eprintln!("kriegspiel-board: {name}: stopped");
    ExitCode::from(u8::try_from(128 + number).unwrap_or(1))
}

/// How long a simulated board waits at its end for the console to hold its last events.
const FLUSH_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Waits until the console has acknowledged every event: a board that stopped earlier would
/// take them with it.
fn flush(transport: &BoardTransport, board_id: u32) -> Result<(), String> {
    if transport.unacknowledged() > 0 {
        eprintln!(
            "kriegspiel-board: board {board_id}: script done; waiting for the console to acknowledge {} events",
            transport.unacknowledged()
        );
    }
    match transport.flush(FLUSH_LIMIT) {
        Ok(()) => Ok(()),
        Err(left) => Err(transport.fatal().map_or_else(
            || {
                format!(
                    "{left} events were never acknowledged by the console within {} s (is the console running with this board in its round?)",
                    FLUSH_LIMIT.as_secs()
                )
            },
            |e| e.to_string(),
        )),
    }
}

fn run(config_path: &std::path::Path, link: &LinkArgs, board_id: Option<u32>) -> ExitCode {
    let mut config = match Config::load(config_path) {
        Ok(c) => c,
        Err(e) => return fail(EXIT_BAD_INPUT, e),
    };
    if let Some(id) = board_id {
        config.board.board_id = id;
    }
    if let Err(code) = link.check_id(config.board.board_id) {
        return code;
    }
    let scanner = match PiScanner::open(&config.wiring) {
        Ok(s) => s,
        Err(e) => return fail(1, e),
    };
    let name = link.name();
    eprintln!(
        "kriegspiel-board: board {} scanning at {} Hz, serving {name}",
        config.board.board_id, config.board.scan_hz
    );
    let stop = Stop::on_signals();
    let board_id = config.board.board_id;
    match link.open(config.baud, board_id) {
        Err(code) => code,
        Ok(Link::Serial(writer, incoming)) => {
            match scan(scanner, writer, &incoming, &config, &name, &stop) {
                Ok((number, signal)) => stopped_by(number, signal),
                Err(code) => code,
            }
        }
        Ok(Link::Net(writer, incoming, transport)) => {
            match scan(scanner, writer, &incoming, &config, &name, &stop) {
                Ok((number, signal)) => {
                    stopping(&transport, board_id);
                    // Says "stopped" on the broker when the console holds every event.
                    drop(transport);
                    stopped_by(number, signal)
                }
                Err(code) => code,
            }
        }
    }
}

/// Scans until a signal stops it; a console that is away is complained about every 5 s, a
/// refusal by the broker stops the board.
fn scan<W: kriegspiel_board_core::FrameWriter>(
    scanner: PiScanner,
    writer: W,
    incoming: &Receiver<Vec<u8>>,
    config: &Config,
    name: &str,
    stop: &Stop,
) -> Result<(i32, &'static str), ExitCode>
where
    W::Error: std::fmt::Display + Fatal,
{
    let mut board = Board::new(scanner, writer, config.board);
    let mut pacer = kriegspiel_board::pacer::Pacer::new();
    let mut last_complaint: Option<u32> = None;
    loop {
        if let Some(signal) = stop.asked() {
            return Ok(signal);
        }
        let now = pacer.now_ms();
        let result = board
            .tick(now)
            .and_then(|()| pacer.wait(&mut board, incoming));
        match result {
            Err(BoardError::Write(e)) if e.is_fatal() => {
                return Err(fail(1, format!("{name}: {e}")))
            }
            Err(e) => {
                // The console end may be unplugged: keep scanning, it reconnects with a Hello.
                if last_complaint.is_none_or(|at| now.wrapping_sub(at) >= 5000) {
                    eprintln!("kriegspiel-board: {name}: {e} (still scanning)");
                    last_complaint = Some(now);
                }
            }
            Ok(()) => {}
        }
    }
}

/// Whether a link error means the board must stop rather than retry.
trait Fatal {
    fn is_fatal(&self) -> bool;
}

impl Fatal for std::io::Error {
    fn is_fatal(&self) -> bool {
        false
    }
}

impl Fatal for kriegspiel_net::TransportError {
    fn is_fatal(&self) -> bool {
        true
    }
}

fn self_test(args: SelfTestArgs) -> ExitCode {
    let report = if args.simulate {
        let Some(path) = args.script.as_deref() else {
            return fail(EXIT_BAD_INPUT, "--simulate needs --script FILE");
        };
        let script = match load_script(path) {
            Ok(s) => s,
            Err(code) => return code,
        };
        let faults = SimFaults {
            dead: args.dead,
            shorts: args.short,
            chatter: args.chatter,
        };
        let defaults = BoardConfig::default();
        selftest::run_simulated(&script, &faults, defaults.debounce_scans, defaults.scan_hz)
    } else {
        let Some(path) = args.config.as_deref() else {
            return fail(
                EXIT_BAD_INPUT,
                "self-test needs --config FILE or --simulate --script FILE",
            );
        };
        let config = match Config::load(path) {
            Ok(c) => c,
            Err(e) => return fail(EXIT_BAD_INPUT, e),
        };
        let mut scanner = match PiScanner::open(&config.wiring) {
            Ok(s) => s,
            Err(e) => return fail(1, e),
        };
        let mut out = std::io::stdout();
        match selftest::run_interactive(
            &mut scanner,
            config.board.debounce_scans,
            config.board.scan_hz,
            &mut out,
        ) {
            Ok(report) => report,
            Err(e) => return fail(1, format!("scan failed: {e}")),
        }
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = selftest::write_report(&report, &mut out) {
        return fail(1, format!("writing the report: {e}"));
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_SELF_TEST_FAILED)
    }
}
