//! A quiet utterance raised before it is heard. PocketSphinx's decisions depend on the level:
//! the held-out clips (their peaks 5,300 to full scale) scaled down to a peak of 1,000
//! (−30 dBFS) changed 19 of 96 hearings, most to a rejection, and at 250, 64 of 96; at 4,000,
//! 6, as many one way as the other (docs/VOICE.md, seventeenth round). A microphone whose
//! level is set low must not cost a blind player his words, so an utterance whose peak is
//! under [`QUIET_PEAK`] is raised to it, at most [`MAX_GAIN`] times, before both judges hear
//! it (and before the noise floor is added). A louder one is heard as it is.

use std::borrow::Cow;

/// The peak a quiet utterance is raised to: 4,000 of 32,767 (about −18 dBFS).
pub const QUIET_PEAK: i16 = 4000;

/// The most an utterance is raised: 64 times (36 dB). Room hiss alone, a good microphone's at
/// about −60 dBFS, is not made into a shout.
pub const MAX_GAIN: f32 = 64.0;

/// An utterance as it is heard, and how much it was raised.
#[derive(Debug, Clone, PartialEq)]
pub struct Raised<'a> {
    pub samples: Cow<'a, [i16]>,
    /// In decibels: 0 when it was loud enough (or silent).
    pub gain_db: f32,
}

/// `samples` raised to [`QUIET_PEAK`] when their peak is under it (at most [`MAX_GAIN`]
/// times); borrowed unchanged otherwise, and when they are all zeros.
pub fn raise_quiet(samples: &[i16]) -> Raised<'_> {
    let peak = samples.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0);
    if peak == 0 || peak >= QUIET_PEAK.unsigned_abs() {
        return Raised {
            samples: Cow::Borrowed(samples),
            gain_db: 0.0,
        };
    }
    let gain = (f32::from(QUIET_PEAK) / f32::from(peak)).min(MAX_GAIN);
    let raised = samples
        .iter()
        .map(|&s| {
            // |s| × gain ≤ QUIET_PEAK: no sample leaves the i16 range.
            let v = (f32::from(s) * gain).round();
            v.clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        })
        .collect();
    Raised {
        samples: Cow::Owned(raised),
        gain_db: 20.0 * gain.log10(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_utterance_is_raised_to_the_quiet_peak() {
        let quiet: Vec<i16> = (0..1600).map(|i| ((i % 40) as i16 - 20) * 10).collect();
        let r = raise_quiet(&quiet);
        let peak = r
            .samples
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap_or(0);
        assert_eq!(peak, 4000);
        assert!((r.gain_db - 26.02).abs() < 0.01, "{}", r.gain_db);
        // Its shape is kept: every sample times the same gain.
        assert!(r.samples.iter().zip(&quiet).all(|(&o, &s)| o == s * 20));
    }

    #[test]
    fn a_loud_or_silent_utterance_is_heard_as_it_is() {
        let loud = vec![0, 4000, -4001, 12];
        let r = raise_quiet(&loud);
        assert_eq!(r.samples, Cow::Borrowed(&loud[..]));
        assert_eq!(r.gain_db, 0.0);
        let silent = vec![0i16; 100];
        assert_eq!(raise_quiet(&silent).samples, Cow::Borrowed(&silent[..]));
        assert_eq!(raise_quiet(&[]).gain_db, 0.0);
        // Full scale negative: its magnitude is no overflow.
        assert_eq!(raise_quiet(&[i16::MIN]).gain_db, 0.0);
    }

    #[test]
    fn hiss_is_raised_at_most_max_gain_times() {
        let hiss = vec![3i16, -3, 2, 0];
        let r = raise_quiet(&hiss);
        assert_eq!(r.samples.as_ref(), &[192, -192, 128, 0]);
        assert!((r.gain_db - 36.12).abs() < 0.01, "{}", r.gain_db);
    }
}
