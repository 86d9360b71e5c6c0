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
}

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
            .stderr(Stdio::null())
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
        Ok(Recording {
            child,
            reader: Some(reader),
        })
    }
}

impl Recording {
    /// Stops arecord (the key came up) and returns the 16 kHz mono samples.
    pub fn stop(mut self) -> Result<Vec<i16>, MicError> {
        // arecord has no clean stop on stdin; ending it loses at most the last period.
        let _ = self.child.kill();
        let _ = self.child.wait();
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
