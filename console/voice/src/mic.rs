//! Push-to-talk capture, kept thin: `arecord -D DEVICE -f S16_LE -r 16000 -c 1 -t raw`
//! (alsa-utils) runs while the player's key is held; releasing it stops arecord and the
//! samples go to [`crate::Recognizer::hear`]. Devices are ALSA PCM names as `arecord -L`
//! lists them (`plughw:CARD=Headset,DEV=0`, `default`, or a name from an .asoundrc); each
//! player's headset is one device.

use std::fmt;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

#[derive(Debug)]
pub struct MicError(pub String);

impl fmt::Display for MicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MicError {}

/// The capture devices `arecord -L` lists, by name.
pub fn devices() -> Result<Vec<String>, MicError> {
    let out = Command::new("arecord")
        .arg("-L")
        .output()
        .map_err(|e| MicError(format!("cannot run arecord (install alsa-utils): {e}")))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
        .map(str::to_owned)
        .collect())
}

/// One player's microphone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Microphone {
    pub device: String,
}

/// A capture in progress (the key is held).
#[derive(Debug)]
pub struct Recording {
    child: Child,
    reader: Option<JoinHandle<std::io::Result<Vec<u8>>>>,
    /// What arecord said (its first kilobytes), for a device it could not open.
    errors: Option<JoinHandle<Vec<u8>>>,
    device: String,
}

/// The most of arecord's error output kept.
const MAX_ERRORS: u64 = 4096;

impl Microphone {
    pub fn new(device: &str) -> Microphone {
        Microphone {
            device: device.to_owned(),
        }
    }

    /// Starts arecord (the key went down).
    pub fn start(&self) -> Result<Recording, MicError> {
        let mut child = Command::new("arecord")
            .args([
                "-q",
                "-D",
                &self.device,
                "-f",
                "S16_LE",
                "-r",
                "16000",
                "-c",
                "1",
                "-t",
                "raw",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                MicError(format!(
                    "cannot run arecord on {} (install alsa-utils): {e}",
                    self.device
                ))
            })?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| MicError("arecord has no output".into()))?;
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            stdout.read_to_end(&mut bytes).map(|_| bytes)
        });
        let errors = child.stderr.take().map(|stderr| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = stderr.take(MAX_ERRORS).read_to_end(&mut bytes);
                bytes
            })
        });
        Ok(Recording {
            child,
            reader: Some(reader),
            errors,
            device: self.device.clone(),
        })
    }
}

/// How long a device that cannot be opened takes at most to make arecord fail (it loads
/// ALSA's configuration first, slowly on a busy machine).
const OPENS_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

impl Microphone {
    /// Whether the device records at all: said when the terminal starts, not after the
    /// player has spoken into a microphone that is not there.
    pub fn check(&self) -> Result<(), MicError> {
        let mut r = self.start()?;
        let deadline = std::time::Instant::now() + OPENS_WITHIN;
        while std::time::Instant::now() < deadline {
            if matches!(r.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        r.stop().map(drop)
    }
}

impl Recording {
    /// Stops arecord (the key came up) and returns the 16 kHz mono samples.
    pub fn stop(mut self) -> Result<Vec<i16>, MicError> {
        // Ended already, and not by us: the device could not be opened (or went away).
        let failed = matches!(self.child.try_wait(), Ok(Some(status)) if !status.success());
        // arecord has no clean stop on stdin; ending it loses at most the last period.
        let _ = self.child.kill();
        let _ = self.child.wait();
        if failed {
            let said = self
                .errors
                .take()
                .and_then(|e| e.join().ok())
                .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
                .unwrap_or_default();
            let said = said.lines().last().unwrap_or("no reason given");
            return Err(MicError(format!(
                "arecord could not record from {}: {said} (arecord -L lists the devices)",
                self.device
            )));
        }
        let bytes = match self.reader.take().map(JoinHandle::join) {
            Some(Ok(Ok(bytes))) => bytes,
            Some(Ok(Err(e))) => return Err(MicError(format!("reading arecord: {e}"))),
            _ => return Err(MicError("the capture thread failed".into())),
        };
        Ok(bytes
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if self.reader.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A device arecord cannot open is said with arecord's reason, not heard as silence
    /// (a player would repeat himself into a microphone that is not there).
    #[test]
    fn a_device_that_cannot_record_is_said_not_heard_as_silence() {
        let wait_for_exit = || std::thread::sleep(std::time::Duration::from_millis(400));
        let r = Microphone::new("nosuchdevice").start().unwrap();
        wait_for_exit();
        let e = r.stop().unwrap_err().to_string();
        assert!(
            e.starts_with("arecord could not record from nosuchdevice: ")
                && e.contains("arecord -L"),
            "{e}"
        );
        // ALSA's null device opens: what it gives, no error.
        let r = Microphone::new("null").start().unwrap();
        wait_for_exit();
        assert!(r.stop().is_ok());
        // And the same is found before any capture.
        let e = Microphone::new("nosuchdevice").check().unwrap_err();
        assert!(e.to_string().contains("nosuchdevice"), "{e}");
        assert!(Microphone::new("null").check().is_ok());
    }
}
