//! The loud part of an utterance: what commands and answers are judged on, and how much of it
//! the words heard account for.

use super::SPAN_MARGIN;
use crate::ffi::Hypothesis;

/// Frames from the first loud one to the last (0 when none is loud).
pub(super) fn loud_length(loud: &[bool]) -> usize {
    let first = loud.iter().position(|&l| l).unwrap_or(0);
    let last = loud.iter().rposition(|&l| l).unwrap_or(0);
    last + 1 - first.min(last + 1)
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
/// quiet room before and after goes; `None` when nothing is loud.
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
