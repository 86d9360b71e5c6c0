//! The loud part of an utterance: what commands and answers are judged on, and how much of it
//! the words heard account for.

use super::SPAN_MARGIN;
use crate::ffi::Hypothesis;

/// The shortest run of loud frames that counts as speech: 30 ms. The click of the key he
/// presses to talk, a breath or a swing of room hiss is a frame or two, and taken for speech
/// it made a "confirm" said a second after it too long to be an answer (docs/VOICE.md,
/// seventeenth round).
const MIN_RUN: usize = 3;

/// The first and last frame of speech: of the first and the last run of at least [`MIN_RUN`]
/// loud frames, or of any loud frame when no run is that long (`None` when none is loud).
fn speech_bounds(loud: &[bool]) -> Option<(usize, usize)> {
    let mut bounds: Option<(usize, usize)> = None;
    let mut start = None;
    for (i, &l) in loud.iter().chain(std::iter::once(&false)).enumerate() {
        match (l, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= MIN_RUN {
                    bounds = Some((bounds.map_or(s, |b| b.0), i - 1));
                }
                start = None;
            }
            _ => {}
        }
    }
    bounds.or_else(|| {
        Some((
            loud.iter().position(|&l| l)?,
            loud.iter().rposition(|&l| l)?,
        ))
    })
}

/// The most silence (10 ms frames) kept either side of speech before an utterance is heard:
/// 0.7 s. PocketSphinx's second decoder keeps silence, and a long one pulls its cepstral mean
/// away from the speech: espeak-ng's "confirm" after 0.8 s of silence was rejected in a
/// read-back, after 0.7 s heard. The bench's clips carry at most 0.72 s (docs/VOICE.md,
/// seventeenth round).
const KEPT_SILENCE: usize = 70;

/// `samples` without what lies more than [`KEPT_SILENCE`] before or after its speech
/// ([`speech_bounds`]); all of it when none is loud. A player presses a key, waits, speaks and
/// waits again: what he said is heard as if he had not waited.
pub(super) fn without_long_silence(samples: &[i16]) -> &[i16] {
    let Some((first, last)) = speech_bounds(&loud_frames(samples)) else {
        return samples;
    };
    let from = first.saturating_sub(KEPT_SILENCE).saturating_mul(160);
    let to = (last + 1 + KEPT_SILENCE)
        .saturating_mul(160)
        .min(samples.len());
    samples.get(from..to).unwrap_or(samples)
}

/// Frames from the first of speech to the last ([`speech_bounds`]; 0 when none is loud).
pub(super) fn loud_length(loud: &[bool]) -> usize {
    speech_bounds(loud).map_or(0, |(first, last)| last + 1 - first)
}

/// Which 10 ms frames of an utterance are loud: at least 8 dB over its quietest fifth (or
/// 45 dB under its loudest frame, in silence).
pub(super) fn loud_frames(samples: &[i16]) -> Vec<bool> {
    let energy: Vec<f64> = samples
        .chunks(160)
        .map(|c| c.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() / 160.0)
        .collect();
    let mut sorted = energy.clone();
    sorted.sort_by(f64::total_cmp);
    let floor = sorted.get(sorted.len() / 5).copied().unwrap_or(0.0);
    let peak = sorted.last().copied().unwrap_or(0.0);
    let threshold = (floor * 10f64.powf(0.8))
        .max(peak * 10f64.powf(-4.5))
        .max(1.0);
    energy.iter().map(|&e| e >= threshold).collect()
}

/// How many loud frames (see [`loud_frames`]) the words `said` heard cannot account for:
/// the loud frames beyond the words' own frames and [`SPAN_MARGIN`] either side of each.
/// Speech the grammar could only explain as silence. (Counts, not positions: PocketSphinx
/// drops the silence it detects before searching, so a word's frame numbers are not the
/// audio's.)
pub(super) fn unexplained(said: &Hypothesis, loud: &[bool]) -> usize {
    let words: i32 = said
        .segments
        .iter()
        .filter(|s| !s.is_filler())
        .map(|s| (s.end - s.start + 1).max(0) + 2 * SPAN_MARGIN)
        .sum();
    let loud = loud.iter().filter(|&&l| l).count();
    loud.saturating_sub(usize::try_from(words).unwrap_or(0))
}

/// The loud part of `samples` ([`loud_frames`]), [`SPAN_MARGIN`] frames either side: the
/// quiet room before and after goes; `None` when nothing is loud. From the first loud frame
/// to the last, blips too: cut to runs of speech ([`speech_bounds`]) it was narrower in
/// babble, and chatter scored as "cancel" (docs/VOICE.md, seventeenth round).
pub(super) fn loud_span(samples: &[i16]) -> Option<&[i16]> {
    let loud = loud_frames(samples);
    let first = loud.iter().position(|&l| l)?;
    let last = loud.iter().rposition(|&l| l)?;
    let margin = SPAN_MARGIN as usize;
    let from = first
        .saturating_sub(margin)
        .saturating_mul(160)
        .min(samples.len());
    let to = (last + 1 + margin).saturating_mul(160).min(samples.len());
    samples.get(from..to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(s: &str) -> Vec<bool> {
        s.chars().map(|c| c == '#').collect()
    }

    #[test]
    fn a_click_before_or_after_speech_is_not_speech() {
        // A key's click, half a second of silence, "confirm", a breath.
        let loud = frames("..#..................########.#####......#..");
        assert_eq!(speech_bounds(&loud), Some((21, 34)));
        assert_eq!(loud_length(&loud), 14);
        // A short gap inside the word is speech all the same.
        assert_eq!(loud_length(&frames("###.###")), 7);
    }

    #[test]
    fn without_a_run_of_speech_any_loud_frame_counts() {
        assert_eq!(speech_bounds(&frames("..#...##..")), Some((2, 7)));
        assert_eq!(loud_length(&frames("..#...##..")), 6);
        assert_eq!(speech_bounds(&frames("....")), None);
        assert_eq!(loud_length(&frames("")), 0);
    }

    #[test]
    fn long_silence_either_side_is_cut_to_what_is_kept() {
        let tone: Vec<i16> = (0..4_800)
            .map(|i| if i % 20 < 10 { 8_000 } else { -8_000 })
            .collect();
        let kept = KEPT_SILENCE * 160;
        // Three seconds of silence before and after: 0.7 s of each kept.
        let padded = [vec![0; 48_000], tone.clone(), vec![0; 48_000]].concat();
        let cut = without_long_silence(&padded);
        assert_eq!(cut.len(), tone.len() + 2 * kept);
        assert_eq!(&cut[kept..kept + tone.len()], &tone[..]);
        // Half a second either side is all kept; nothing loud, nothing cut.
        let short = [vec![0; 8_000], tone.clone(), vec![0; 8_000]].concat();
        assert_eq!(without_long_silence(&short).len(), short.len());
        let silence = vec![0i16; 32_000];
        assert_eq!(without_long_silence(&silence).len(), silence.len());
    }
}
