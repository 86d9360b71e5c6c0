//! How a voice speaks, and those settings on speech-dispatcher's scales.

/// How a voice speaks: its name (else the table's language decides), its rate in words per
/// minute and its volume in percent of normal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VoiceSettings {
    pub voice: Option<String>,
    pub rate: Option<u32>,
    pub volume: Option<u32>,
}

/// The normal rate of espeak-ng, in words per minute.
pub const NORMAL_RATE: u32 = 175;
/// The rates a table may ask for.
pub const RATE_RANGE: std::ops::RangeInclusive<u32> = 80..=450;

/// A rate in words per minute as speech-dispatcher's -100..100 (0: espeak-ng's normal 175).
pub fn dispatcher_rate(wpm: u32) -> i32 {
    let wpm = i64::from(wpm.clamp(*RATE_RANGE.start(), *RATE_RANGE.end()));
    let normal = i64::from(NORMAL_RATE);
    let r = if wpm <= normal {
        (wpm - normal) * 100 / (normal - i64::from(*RATE_RANGE.start()))
    } else {
        (wpm - normal) * 100 / (i64::from(*RATE_RANGE.end()) - normal)
    };
    i32::try_from(r).unwrap_or(0)
}

/// A volume in percent of normal (0..=200) as speech-dispatcher's -100..100 (100: normal).
pub fn dispatcher_volume(percent: u32) -> i32 {
    let p = i32::try_from(percent.min(100)).unwrap_or(100);
    2 * p - 100
}
