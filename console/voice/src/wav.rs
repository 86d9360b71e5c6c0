//! Reading utterances from WAV files: 16 kHz mono 16-bit PCM is read directly; anything else
//! is converted with sox (`sox FILE -r 16000 -c 1 -b 16 -e signed-integer -t wav -`), or
//! refused with the reason when sox cannot.

use std::fmt;
use std::path::Path;
use std::process::Command;

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

/// Reads a WAV file as 16 kHz mono samples, converting other formats with sox.
pub fn read_wav(path: &Path) -> Result<Vec<i16>, WavError> {
    let bytes = std::fs::read(path).map_err(|e| WavError(format!("cannot read: {e}")))?;
    match samples_of(&bytes) {
        Ok(s) => Ok(s),
        Err(direct) => {
            let out = Command::new("sox")
                .arg(path)
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
                .output()
                .map_err(|e| {
                    WavError(format!(
                        "{direct}, and sox could not be run to convert it: {e}"
                    ))
                })?;
            if !out.status.success() {
                let why = String::from_utf8_lossy(&out.stderr);
                return Err(WavError(format!(
                    "{direct}, and sox could not convert it: {}",
                    why.trim()
                )));
            }
            samples_of(&out.stdout)
                .map_err(|e| WavError(format!("{direct}; sox's conversion: {e}")))
        }
    }
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
}
