//! The serial line to the console: a UART, a USB gadget's ttyGS0, or a pseudo-terminal.

use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

use kriegspiel_board_core::FrameWriter;
use serialport::{DataBits, FlowControl, Parity, StopBits, TTYPort};

/// Default line speed (a pty or a USB gadget ignores it).
pub const DEFAULT_BAUD: u32 = 115_200;

/// Why the port could not be opened.
#[derive(Debug)]
pub struct OpenError {
    pub path: String,
    pub source: serialport::Error,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot open serial port {}: {}", self.path, self.source)
    }
}

impl std::error::Error for OpenError {}

/// The sending half: whole frames, flushed at once so events are not held back.
#[derive(Debug)]
pub struct SerialWriter(TTYPort);

impl FrameWriter for SerialWriter {
    type Error = io::Error;
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)?;
        self.0.flush()
    }
}

/// Opens `path` raw 8N1 and starts a reader thread; bytes from the console arrive on the
/// returned channel.
pub fn open(path: &str, baud: u32) -> Result<(SerialWriter, Receiver<Vec<u8>>), OpenError> {
    let wrap = |source| OpenError {
        path: path.to_string(),
        source,
    };
    // A file or a folder given as the port would fail with the system's "Not a typewriter".
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() || m.is_dir() => {
            let what = if m.is_dir() {
                "a folder"
            } else {
                "a regular file"
            };
            return Err(wrap(serialport::Error::new(
                serialport::ErrorKind::InvalidInput,
                format!("it is {what}, not a serial port"),
            )));
        }
        _ => {}
    }
    let port = serialport::new(path, baud)
        .data_bits(DataBits::Eight)
        .parity(Parity::None)
        .stop_bits(StopBits::One)
        .flow_control(FlowControl::None)
        .timeout(Duration::from_millis(50))
        .open_native()
        .map_err(wrap)?;
    let reader = port.try_clone_native().map_err(wrap)?;
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("serial-reader".into())
        .spawn(move || read_loop(reader, tx))
        .map_err(|e| wrap(e.into()))?;
    Ok((SerialWriter(port), rx))
}

fn read_loop(mut port: TTYPort, tx: mpsc::Sender<Vec<u8>>) {
    let mut buf = [0u8; 256];
    loop {
        match port.read(&mut buf) {
            Ok(0) => thread::sleep(Duration::from_millis(20)),
            Ok(n) => {
                if tx.send(buf[..n].to_vec()).is_err() {
                    return; // the board loop has ended
                }
            }
            Err(e)
                if e.kind() == io::ErrorKind::TimedOut
                    || e.kind() == io::ErrorKind::Interrupted => {}
            // No peer on the other end of a pty, a USB host gone: wait for it to come back.
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}
