//! The noise floor PocketSphinx hears every utterance over (the ear hears it as it is). A
//! microphone never gives digital silence; synthetic speech and gated recordings do
//! (espeak-ng's clips are a third exact zeros, and start speaking at their first sample).
//! PocketSphinx's features of exact zeros are far from anything its model heard, and its
//! per-utterance mean and noise estimate are pulled with them: clean espeak-ng commands were
//! heard 38 of 48 times, 47 with a faint hiss added (docs/VOICE.md, fourteenth round). So the
//! samples get one, as quiet as a good headset's own (about −59 dBFS), the same for every
//! hearing of the same samples.

use std::borrow::Cow;

/// The floor's peak amplitude: uniform noise in ±64 of 32,767 (RMS 37, about −59 dBFS).
pub const DEFAULT_NOISE_FLOOR: i16 = 64;

/// `samples` with uniform noise of `amplitude` added (clipped at full scale); unchanged when
/// `amplitude` is 0. The noise is the same sequence for every utterance (a fixed seed), so a
/// recording is always heard alike.
pub fn with_noise_floor(samples: &[i16], amplitude: i16) -> Cow<'_, [i16]> {
    if amplitude <= 0 {
        return Cow::Borrowed(samples);
    }
    let span = 2 * u32::from(amplitude.unsigned_abs()) + 1;
    let mut state: u32 = 0x9e37_79b9;
    Cow::Owned(
        samples
            .iter()
            .map(|&s| {
                // xorshift32: cheap, and the same everywhere (no platform generator).
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let noise = i32::try_from(state % span).unwrap_or(0) - i32::from(amplitude);
                let sum = (i32::from(s) + noise).clamp(i32::from(i16::MIN), i32::from(i16::MAX));
                i16::try_from(sum).unwrap_or(s)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_faint_bounded_and_the_same_every_time() {
        let silence = vec![0i16; 16_000];
        let a = with_noise_floor(&silence, DEFAULT_NOISE_FLOOR);
        let b = with_noise_floor(&silence, DEFAULT_NOISE_FLOOR);
        assert_eq!(a, b);
        assert!(a.iter().all(|&s| (-64..=64).contains(&s)));
        let rms = (a.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / 16_000.0).sqrt();
        assert!((30.0..45.0).contains(&rms), "rms {rms}");
        // No digital silence left: at most a few samples land on zero.
        assert!(a.iter().filter(|&&s| s == 0).count() < 400);
    }

    #[test]
    fn speech_keeps_its_shape_and_full_scale_clips() {
        let loud = vec![i16::MAX, i16::MIN, 1000, -1000];
        let out = with_noise_floor(&loud, DEFAULT_NOISE_FLOOR);
        for (&o, &s) in out.iter().zip(&loud) {
            assert!((i32::from(o) - i32::from(s)).abs() <= 64);
        }
        assert_eq!(with_noise_floor(&loud, 0), Cow::Borrowed(&loud[..]));
    }
}
