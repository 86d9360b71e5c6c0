//! Reading utterances from WAV files: 16 kHz mono 16-bit PCM is read directly; anything else
//! is converted with sox (`sox FILE -r 16000 -c 1 -b 16 -e signed-integer -t wav -`), or
//! refused with the reason when sox cannot.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

/// Why a file gave no samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WavError(pub String);

impl fmt::Display for WavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WavError {}

/// The format of a PCM WAV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavFormat {
    pub format_tag: u16,
    pub channels: u16,
    pub rate: u32,
    pub bits: u16,
}

impl WavFormat {
    pub fn is_decodable(&self) -> bool {
        self.format_tag == 1 && self.channels == 1 && self.rate == 16_000 && self.bits == 16
    }
}

impl fmt::Display for WavFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.format_tag == 1 {
            "PCM"
        } else {
            "non-PCM"
        };
        write!(
            f,
            "{} Hz, {} channel(s), {}-bit {kind}",
            self.rate, self.channels, self.bits
        )
    }
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        *b.get(i + 3)?,
    ]))
}

/// Parses a RIFF WAV: its format and its data bytes.
pub fn parse_wav(bytes: &[u8]) -> Result<(WavFormat, &[u8]), WavError> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(WavError("not a WAV file (no RIFF/WAVE header)".into()));
    }
    let mut i = 12;
    let mut format = None;
    while i + 8 <= bytes.len() {
        let id = &bytes[i..i + 4];
        let len = u32_at(bytes, i + 4).unwrap_or(0) as usize;
        let body = i + 8;
        if id == b"fmt " {
            let fmt = WavFormat {
                format_tag: u16_at(bytes, body)
                    .ok_or_else(|| WavError("truncated fmt chunk".into()))?,
                channels: u16_at(bytes, body + 2)
                    .ok_or_else(|| WavError("truncated fmt chunk".into()))?,
                rate: u32_at(bytes, body + 4)
                    .ok_or_else(|| WavError("truncated fmt chunk".into()))?,
                bits: u16_at(bytes, body + 14)
                    .ok_or_else(|| WavError("truncated fmt chunk".into()))?,
            };
            format = Some(fmt);
        } else if id == b"data" {
            let fmt = format.ok_or_else(|| WavError("data before the fmt chunk".into()))?;
            // sox writes 0xFFFFFFFF (unknown length) when it writes to a pipe.
            let end = if len == u32::MAX as usize {
                bytes.len()
            } else {
                (body + len).min(bytes.len())
            };
            return Ok((fmt, &bytes[body..end]));
        }
        i = body + len + (len & 1);
    }
    Err(WavError("no data chunk".into()))
}

/// The longest utterance heard: a try or a command takes a few seconds.
pub const MAX_SECONDS: usize = 60;

/// The largest file read (a minute of 48 kHz stereo 32-bit audio is 23 MiB).
pub const MAX_FILE_BYTES: u64 = 32 << 20;

/// Reads at most `limit` bytes, refusing more without holding them.
fn read_bounded(r: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, WavError> {
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| WavError(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(WavError(format!(
            "{what} is larger than {:.1} MiB; an utterance is a few seconds",
            limit as f64 / f64::from(1 << 20)
        )));
    }
    Ok(bytes)
}

/// The samples of a 16 kHz mono 16-bit PCM WAV held in memory.
pub fn samples_of(bytes: &[u8]) -> Result<Vec<i16>, WavError> {
    let (fmt, data) = parse_wav(bytes)?;
    if !fmt.is_decodable() {
        return Err(WavError(format!("{fmt}, not 16000 Hz mono 16-bit PCM")));
    }
    Ok(data
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect())
}

/// Samples no longer than an utterance may be.
fn utterance(samples: Vec<i16>) -> Result<Vec<i16>, WavError> {
    if samples.len() > MAX_SECONDS * 16_000 {
        return Err(WavError(format!(
            "{} s of audio; an utterance is at most {MAX_SECONDS} s",
            samples.len() / 16_000
        )));
    }
    Ok(samples)
}

/// Reads a WAV file as 16 kHz mono samples, converting other formats with sox.
pub fn read_wav(path: &Path) -> Result<Vec<i16>, WavError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    // Opened without waiting: a pipe with no writer would hold the open for ever.
    let no_wait = i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).unwrap_or(0);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(no_wait)
        .open(path)
        .map_err(|e| WavError(format!("cannot read: {e}")))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(WavError(
            "not a file (a pipe, a device or a folder): give a WAV file".into(),
        ));
    }
    let bytes = read_bounded(file, MAX_FILE_BYTES, "the file")?;
    match samples_of(&bytes) {
        Ok(s) => utterance(s),
        Err(direct) => converted(&bytes)
            .map_err(|e| WavError(format!("{direct}{e}")))
            .and_then(utterance),
    }
}

/// Another WAV encoding (8 kHz, stereo, float, a-law...) converted by sox, given the bytes
/// already read: no second open of a file that may have changed, and no file name sox
/// could take for an option. The error goes on from "the file is not 16 kHz mono".
fn converted(bytes: &[u8]) -> Result<Vec<i16>, String> {
    let mut sox = Command::new("sox")
        .args(["-t", "wav", "-"])
        .args([
            "-r",
            "16000",
            "-c",
            "1",
            "-b",
            "16",
            "-e",
            "signed-integer",
            "-t",
            "wav",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!(", and sox could not be run to convert it: {e}"))?;
    let feeding = sox.stdin.take().map(|mut stdin| {
        let bytes = bytes.to_vec();
        // sox may stop reading early (a bad header): the broken pipe is its answer.
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut stdin, &bytes);
        })
    });
    // The conversion is bounded like the file: a minute of 16 kHz audio and room for its
    // header.
    let converted = match sox.stdout.take() {
        Some(out) => read_bounded(out, (MAX_SECONDS * 32_000) as u64 + 4096, "sox's output"),
        None => Err(WavError("sox gave no output".into())),
    };
    if converted.is_err() {
        let _ = sox.kill();
    }
    let done = sox
        .wait_with_output()
        .map_err(|e| format!(", and sox failed: {e}"))?;
    if let Some(feeding) = feeding {
        let _ = feeding.join();
    }
    let converted = converted.map_err(|e| format!("; {e}"))?;
    if !done.status.success() {
        let why = String::from_utf8_lossy(&done.stderr);
        let why: String = why.trim().chars().take(200).collect();
        return Err(format!(", and sox could not convert it: {why}"));
    }
    samples_of(&converted).map_err(|e| format!("; sox's conversion: {e}"))
}

/// A 16 kHz mono 16-bit WAV file's bytes (for recordings and tests).
pub fn wav_bytes(samples: &[i16]) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut b = Vec::with_capacity(44 + samples.len() * 2);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data_len).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&16_000u32.to_le_bytes());
    b.extend_from_slice(&32_000u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let s: Vec<i16> = (0..1000).map(|i| (i * 7 % 300) as i16 - 150).collect();
        assert_eq!(samples_of(&wav_bytes(&s)).unwrap(), s);
        assert!(samples_of(b"hello").unwrap_err().0.contains("not a WAV"));
        let mut stereo = wav_bytes(&s);
        stereo[22] = 2;
        assert!(samples_of(&stereo).unwrap_err().0.contains("2 channel(s)"));
    }

    #[test]
    fn a_file_or_an_utterance_too_long_is_refused_without_being_held() {
        let err = read_wav(Path::new("/dev/zero")).unwrap_err().0;
        assert!(err.starts_with("not a file (a pipe, a device"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let huge = dir.path().join("huge.wav");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        let err = read_wav(&huge).unwrap_err().0;
        assert!(err.contains("larger than 32.0 MiB"), "{err}");
        let long = dir.path().join("long.wav");
        std::fs::write(&long, wav_bytes(&vec![0; (MAX_SECONDS + 1) * 16_000])).unwrap();
        let err = read_wav(&long).unwrap_err().0;
        assert!(err.contains("61 s of audio"), "{err}");
        let minute = dir.path().join("minute.wav");
        std::fs::write(&minute, wav_bytes(&vec![1; MAX_SECONDS * 16_000])).unwrap();
        assert_eq!(read_wav(&minute).unwrap().len(), MAX_SECONDS * 16_000);
        // At 8 kHz the file is small but sox's conversion is two minutes long.
        let mut slow = wav_bytes(&vec![1; 2 * MAX_SECONDS * 8_000]);
        slow[24..28].copy_from_slice(&8_000u32.to_le_bytes());
        slow[28..32].copy_from_slice(&16_000u32.to_le_bytes());
        let slow_path = dir.path().join("slow.wav");
        std::fs::write(&slow_path, slow).unwrap();
        let err = read_wav(&slow_path).unwrap_err().0;
        assert!(err.contains("sox's output is larger than"), "{err}");
    }
}
