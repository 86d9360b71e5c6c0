//! Pseudo-terminal pairs standing in for serial cables.

use std::io;
use std::path::{Path, PathBuf};

use tokio_serial::{SerialPort, SerialStream};

/// A pty pair: the test holds the master end, a program opens `path` (the slave end) as its
/// serial port. The slave is also held open here so that the master never sees a hang-up
/// while the program closes and reopens its port.
#[derive(Debug)]
pub struct Pty {
    pub master: SerialStream,
    _slave: SerialStream,
    pub path: PathBuf,
}

impl Pty {
    /// A fresh pair (needs a tokio runtime).
    pub fn open() -> io::Result<Pty> {
        let (master, slave) = SerialStream::pair().map_err(io::Error::other)?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .ok_or_else(|| io::Error::other("the pty slave has no name"))?;
        Ok(Pty {
            master,
            _slave: slave,
            path,
        })
    }

    /// A fresh pair whose slave is also reachable through the symlink `link` (replacing an
    /// older link atomically), so a "replugged" cable shows up at the same path.
    pub fn open_linked(link: &Path) -> io::Result<Pty> {
        let pty = Pty::open()?;
        let tmp = link.with_extension("new");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&pty.path, &tmp)?;
        std::fs::rename(&tmp, link)?;
        Ok(pty)
    }
}
