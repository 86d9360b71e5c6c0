//! The board's TOML configuration file (for `run` and `self-test` on a Raspberry Pi).
//!
//! ```toml
//! board_id = 1          # tells the console whose board this is
//! scan_hz = 1000        # 200..=2000
//! debounce_scans = 5    # 1..=16
//! baud = 115200         # UART speed (ignored by a USB gadget)
//!
//! [matrix]              # either a diode matrix ...
//! rows = [5, 6, 13, 19, 26, 16, 20, 21]   # BCM numbers, rank 1 .. rank 8 (driven)
//! cols = [4, 17, 27, 22, 23, 24, 25, 12]  # BCM numbers, file a .. file h (pull-ups)
//! settle_us = 10
//!
//! # [shift_register]    # ... or a 74HC165 chain
//! # load = 25
//! # clk = 11
//! # data = 9
//! # pulse_ns = 500
//! ```

use std::fmt;
use std::path::Path;

use kriegspiel_board_core::{BoardConfig, DEBOUNCE_SCANS_RANGE, SCAN_HZ_RANGE};
use serde::Deserialize;

use crate::serial::DEFAULT_BAUD;

/// Highest BCM GPIO number on the 40-pin header.
pub const MAX_BCM: u8 = 27;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    board_id: u32,
    #[serde(default = "default_scan_hz")]
    scan_hz: u16,
    #[serde(default = "default_debounce")]
    debounce_scans: u8,
    #[serde(default = "default_baud")]
    baud: u32,
    matrix: Option<FileMatrix>,
    shift_register: Option<ShiftPins>,
}

fn default_scan_hz() -> u16 {
    BoardConfig::default().scan_hz
}
fn default_debounce() -> u8 {
    BoardConfig::default().debounce_scans
}
fn default_baud() -> u32 {
    DEFAULT_BAUD
}
fn default_settle_us() -> u32 {
    reed_matrix::MatrixConfig::default().settle_us
}
fn default_pulse_ns() -> u32 {
    reed_matrix::ShiftConfig::default().pulse_ns
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMatrix {
    rows: Vec<u8>,
    cols: Vec<u8>,
    #[serde(default = "default_settle_us")]
    settle_us: u32,
}

/// BCM pins of a diode matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixPins {
    /// Rank 1 first.
    pub rows: [u8; 8],
    /// File a first.
    pub cols: [u8; 8],
    pub settle_us: u32,
}

/// BCM pins of a 74HC165 chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShiftPins {
    pub load: u8,
    pub clk: u8,
    pub data: u8,
    #[serde(default = "default_pulse_ns")]
    pub pulse_ns: u32,
}

/// How the switches are wired to the Pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wiring {
    Matrix(MatrixPins),
    ShiftRegister(ShiftPins),
}

/// A checked configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub board: BoardConfig,
    pub baud: u32,
    pub wiring: Wiring,
}

/// The largest configuration file read (a real one is a few hundred bytes; the limit is the
/// project's one for files read whole).
pub const MAX_CONFIG_BYTES: u64 = bounded_lines::MAX_FILE;

/// Why the configuration file cannot be used. Messages quote at most a short excerpt of
/// the file.
#[derive(Debug)]
pub enum ConfigError {
    Read {
        path: String,
        source: bounded_lines::FileError,
    },
    /// Not TOML, or not the keys and types a config has; `message` names the line and
    /// column.
    Parse {
        path: String,
        message: String,
    },
    Invalid {
        path: String,
        reason: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, source } => {
                write!(f, "cannot read config file {path}: {source}")
            }
            ConfigError::Parse { path, message } => write!(f, "config file {path}: {message}"),
            ConfigError::Invalid { path, reason } => write!(f, "config file {path}: {reason}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Read { source, .. } => Some(source),
            ConfigError::Parse { .. } | ConfigError::Invalid { .. } => None,
        }
    }
}

/// The longest message a TOML error may add (the parts quoting the file are cut first).
const MAX_MESSAGE_CHARS: usize = 200;

/// A TOML error on one line, quoting at most an excerpt of the file.
fn toml_message(text: &str, error: &toml::de::Error) -> String {
    let mut message = error.message().replace('\n', "; ");
    let mut place = String::new();
    if let Some(span) = error.span() {
        let before = text.get(..span.start).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        place = format!("line {line}, column {column}: ");
        // The message quotes the offending key or value: keep an excerpt of it.
        if let Some(quoted) = text.get(span) {
            if quoted.chars().count() > bounded_lines::QUOTE_CHARS {
                message = message.replace(quoted, &bounded_lines::excerpt(quoted));
            }
        }
    }
    if let Some((cut, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    place + &message
}

/// The waits of one scan must fit in it (a mistyped `settle_us` would make a scan take
/// minutes): the matrix waits `settle_us` once per row, the shift register `pulse_ns` 128
/// times (LOAD and 63 clock pulses, each low and high).
fn check_waits(wiring: &Wiring, scan_hz: u16) -> Result<(), String> {
    let period_ns = 1_000_000_000 / u64::from(scan_hz.max(1));
    let (key, value, each_ns, waits) = match wiring {
        Wiring::Matrix(m) => ("settle_us", m.settle_us, 1000, 8),
        Wiring::ShiftRegister(s) => ("pulse_ns", s.pulse_ns, 1, 128),
    };
    let most = period_ns / (each_ns * waits);
    if u64::from(value) > most {
        return Err(format!(
            "{key} = {value}: its {waits} waits would not fit in one scan at scan_hz = {scan_hz} ({} µs); at most {most}",
            period_ns / 1000
        ));
    }
    Ok(())
}

impl Config {
    /// Reads and checks a configuration file (at most [`MAX_CONFIG_BYTES`], lines of at
    /// most [`bounded_lines::MAX_LINE`] bytes, a leading byte-order mark skipped).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let text = bounded_lines::read_text(path, MAX_CONFIG_BYTES).map_err(|source| {
            ConfigError::Read {
                path: shown.clone(),
                source,
            }
        })?;
        Config::parse(&text).map_err(|e| match e {
            ConfigError::Parse { message, .. } => ConfigError::Parse {
                path: shown.clone(),
                message,
            },
            ConfigError::Invalid { reason, .. } => ConfigError::Invalid {
                path: shown.clone(),
                reason,
            },
            other @ ConfigError::Read { .. } => other,
        })
    }

    /// Parses and checks configuration text.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let invalid = |reason: String| ConfigError::Invalid {
            path: String::new(),
            reason,
        };
        for (index, line) in text.split('\n').enumerate() {
            if line.len() > bounded_lines::MAX_LINE {
                return Err(invalid(format!(
                    "line {} too long ({} bytes; the limit is {})",
                    index + 1,
                    line.len(),
                    bounded_lines::MAX_LINE
                )));
            }
        }
        let file: FileConfig = toml::from_str(text).map_err(|error| ConfigError::Parse {
            path: String::new(),
            message: toml_message(text, &error),
        })?;
        if !SCAN_HZ_RANGE.contains(&file.scan_hz) {
            return Err(invalid(format!(
                "scan_hz = {} is outside {}..={}",
                file.scan_hz,
                SCAN_HZ_RANGE.start(),
                SCAN_HZ_RANGE.end()
            )));
        }
        if !kriegspiel_link::BAUD_RANGE.contains(&file.baud) {
            return Err(invalid(format!(
                "baud = {} is outside {}..={}",
                file.baud,
                kriegspiel_link::BAUD_RANGE.start(),
                kriegspiel_link::BAUD_RANGE.end()
            )));
        }
        if !DEBOUNCE_SCANS_RANGE.contains(&file.debounce_scans) {
            return Err(invalid(format!(
                "debounce_scans = {} is outside {}..={}",
                file.debounce_scans,
                DEBOUNCE_SCANS_RANGE.start(),
                DEBOUNCE_SCANS_RANGE.end()
            )));
        }
        let (wiring, pins): (Wiring, Vec<u8>) = match (file.matrix, file.shift_register) {
            (Some(m), None) => {
                let eight = |name: &str, pins: &[u8]| {
                    <[u8; 8]>::try_from(pins).map_err(|_| {
                        invalid(format!(
                            "[matrix] {name} needs 8 BCM pins, found {}",
                            pins.len()
                        ))
                    })
                };
                let rows = eight("rows", &m.rows)?;
                let cols = eight("cols", &m.cols)?;
                let pins = rows.iter().chain(&cols).copied().collect();
                (
                    Wiring::Matrix(MatrixPins {
                        rows,
                        cols,
                        settle_us: m.settle_us,
                    }),
                    pins,
                )
            }
            (None, Some(s)) => (Wiring::ShiftRegister(s), vec![s.load, s.clk, s.data]),
            (None, None) => {
                return Err(invalid(
                    "needs a [matrix] or a [shift_register] section".into(),
                ))
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "has both [matrix] and [shift_register]; keep the one that is wired".into(),
                ))
            }
        };
        check_waits(&wiring, file.scan_hz).map_err(invalid)?;
        for (i, &pin) in pins.iter().enumerate() {
            if pin > MAX_BCM {
                return Err(invalid(format!(
                    "BCM pin {pin} does not exist (0..={MAX_BCM})"
                )));
            }
            if pins[..i].contains(&pin) {
                return Err(invalid(format!("BCM pin {pin} is used twice")));
            }
        }
        Ok(Config {
            board: BoardConfig {
                board_id: file.board_id,
                debounce_scans: file.debounce_scans,
                scan_hz: file.scan_hz,
            },
            baud: file.baud,
            wiring,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATRIX: &str = "board_id = 1\n[matrix]\nrows = [5, 6, 13, 19, 26, 16, 20, 21]\ncols = [4, 17, 27, 22, 23, 24, 25, 12]\n";

    #[test]
    fn matrix_config_with_defaults() {
        let c = Config::parse(MATRIX).unwrap();
        assert_eq!(
            c.board,
            BoardConfig {
                board_id: 1,
                ..BoardConfig::default()
            }
        );
        assert_eq!(c.baud, 115_200);
        let Wiring::Matrix(m) = c.wiring else {
            panic!("{c:?}")
        };
        assert_eq!(m.rows[0], 5);
        assert_eq!(m.cols[7], 12);
        assert_eq!(m.settle_us, 10);
    }

    #[test]
    fn shift_register_config() {
        let c = Config::parse("board_id = 2\nscan_hz = 500\ndebounce_scans = 6\n[shift_register]\nload = 25\nclk = 11\ndata = 9\n").unwrap();
        assert_eq!(
            c.board,
            BoardConfig {
                board_id: 2,
                debounce_scans: 6,
                scan_hz: 500
            }
        );
        assert_eq!(
            c.wiring,
            Wiring::ShiftRegister(ShiftPins {
                load: 25,
                clk: 11,
                data: 9,
                pulse_ns: 500
            })
        );
    }

    #[test]
    fn the_example_configs_parse() {
        let m = Config::parse(include_str!("../examples/board-matrix.toml")).unwrap();
        assert_eq!(m.board.board_id, 1);
        assert!(matches!(m.wiring, Wiring::Matrix(p) if p.cols == [4, 17, 27, 22, 23, 24, 25, 12]));
        let s = Config::parse(include_str!("../examples/board-74hc165.toml")).unwrap();
        assert_eq!(
            s.wiring,
            Wiring::ShiftRegister(ShiftPins {
                load: 25,
                clk: 11,
                data: 9,
                pulse_ns: 500
            })
        );
    }

    #[test]
    fn bad_configs_say_why() {
        let cases = [
            ("board_id = 1\n", "needs a [matrix] or a [shift_register]"),
            (
                &format!("{MATRIX}[shift_register]\nload = 1\nclk = 2\ndata = 3\n"),
                "has both",
            ),
            (&MATRIX.replace("21]", "28]"), "BCM pin 28 does not exist"),
            (&MATRIX.replace("21]", "5]"), "BCM pin 5 is used twice"),
            (
                &MATRIX.replace("board_id = 1", "board_id = 1\nbaud = 0"),
                "baud = 0 is outside 50..=4000000",
            ),
            (
                &MATRIX.replace("board_id = 1", "board_id = 1\nscan_hz = 50"),
                "scan_hz = 50 is outside 200..=2000",
            ),
            (
                &MATRIX.replace("board_id = 1", "board_id = 1\ndebounce_scans = 0"),
                "debounce_scans = 0",
            ),
            (&MATRIX.replace("board_id", "bord_id"), "unknown field"),
            (
                &format!("{MATRIX}settle_us = 4294967295\n"),
                "settle_us = 4294967295: its 8 waits would not fit in one scan at scan_hz = 1000 (1000 µs); at most 125",
            ),
            (
                "board_id = 2\nscan_hz = 2000\n[shift_register]\nload = 25\nclk = 11\ndata = 9\npulse_ns = 4000\n",
                "pulse_ns = 4000: its 128 waits would not fit in one scan at scan_hz = 2000 (500 µs); at most 3906",
            ),
            (
                &MATRIX.replace("13, ", ""),
                "[matrix] rows needs 8 BCM pins, found 7",
            ),
            (
                &MATRIX.replace("12]", "12, 18]"),
                "[matrix] cols needs 8 BCM pins, found 9",
            ),
        ];
        for (text, want) in cases {
            let msg = Config::parse(text).unwrap_err().to_string();
            assert!(msg.contains(want), "{msg:?} should contain {want:?}");
        }
    }
    #[test]
    fn toml_errors_are_one_line_with_line_and_column() {
        let msg = Config::parse(&MATRIX.replace("board_id", "bord_id"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "config file : line 1, column 1: unknown field `bord_id`, expected one of `board_id`, `scan_hz`, `debounce_scans`, `baud`, `matrix`, `shift_register`"
        );
        let msg = Config::parse(&format!("{MATRIX}settle_us = = 3\n"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("config file : line 5, column 13: "),
            "{msg}"
        );
        assert!(!msg.contains('\n'), "{msg}");
    }

    #[test]
    fn errors_quote_only_an_excerpt_of_the_file() {
        let long = "k".repeat(5000);
        for text in [
            format!("board_id = 1\n{long} = 2\n"),
            format!("board_id = \"{long}\"\n"),
            format!("board_id = 1\n[matrix]\nrows = [{long}]\n"),
        ] {
            let msg = Config::parse(&text).unwrap_err().to_string();
            assert!(msg.chars().count() < 260, "{} chars: {msg}", msg.len());
        }
        let msg = Config::parse(&format!("board_id = 1\n{long} = 2\n"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("line 2, column 1: unknown field `kkkk"),
            "{msg}"
        );
        assert!(msg.contains("kkk…`"), "{msg}");
    }

    #[test]
    fn a_line_over_64_kib_is_refused_naming_the_line() {
        let text = format!("{MATRIX}# {}\n", "x".repeat(70_000));
        let msg = Config::parse(&text).unwrap_err().to_string();
        assert_eq!(
            msg,
            "config file : line 5 too long (70002 bytes; the limit is 65536)"
        );
    }

    #[test]
    fn load_skips_a_bom_and_limits_the_file_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board.toml");
        std::fs::write(&path, format!("\u{feff}{MATRIX}")).unwrap();
        assert_eq!(Config::load(&path).unwrap().board.board_id, 1);
        let start = std::time::Instant::now();
        let msg = Config::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            msg,
            "cannot read config file /dev/zero: file too large (the limit is 4194304 bytes)"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
