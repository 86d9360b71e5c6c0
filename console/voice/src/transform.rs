//! A player's MLLR transform (what [`crate::enrol::enrol`] writes), checked before
//! PocketSphinx reads it: PocketSphinx says a damaged or foreign file is a broken acoustic
//! model, and trusts the sizes a file gives.
//!
//! The file, as SphinxTrain's `mllr_solve` writes it: the number of classes, the number of
//! feature streams, then for each class and stream its length `n`, the `n`×`n` matrix, the
//! `n` offsets and the `n` variance scales.

use std::fmt;
use std::path::Path;

/// Far above a transform's size (a few kilobytes): a larger file is not one.
const MAX_BYTES: u64 = 1 << 20;

/// Why a transform file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransformError {
    Unreadable(String),
    /// Not a transform at all (its words are not numbers, or its sizes do not add up).
    NotATransform,
    /// A transform for another model: the streams' lengths it has, and the model's.
    OtherModel {
        has: Vec<usize>,
        model: Vec<usize>,
    },
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransformError::Unreadable(e) => write!(f, "{e}"),
            TransformError::NotATransform => {
                f.write_str("it is not a voice enrolment (make one with kriegspiel enrol)")
            }
            TransformError::OtherModel { has, model } => write!(
                f,
                "it was made for another acoustic model (feature streams {has:?}, this model's {model:?}): enrol again"
            ),
        }
    }
}

impl std::error::Error for TransformError {}

/// The lengths of the model's feature streams, from its `feat.params` (`-svspec 0-12/13-25/26-38`
/// is three of 13; without it, one stream of the whole feature).
pub fn model_streams(acoustic: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(acoustic.join("feat.params")).unwrap_or_default();
    let value = |key: &str| {
        text.lines()
            .filter_map(|l| l.split_once(char::is_whitespace))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.trim().to_owned())
    };
    if let Some(spec) = value("-svspec") {
        let lengths: Option<Vec<usize>> = spec
            .split('/')
            .map(|group| {
                group.split(',').try_fold(0usize, |n, range| {
                    let (a, b) = range.split_once('-').unwrap_or((range, range));
                    let (a, b) = (
                        a.trim().parse::<usize>().ok()?,
                        b.trim().parse::<usize>().ok()?,
                    );
                    Some(n + b.checked_sub(a)? + 1)
                })
            })
            .collect();
        if let Some(lengths) = lengths {
            return lengths;
        }
    }
    let ceplen = value("-ceplen")
        .and_then(|v| v.parse().ok())
        .unwrap_or(13usize);
    let parts = match value("-feat").as_deref() {
        Some("1s_c_d_dd") | None => 3,
        Some("1s_c_d") => 2,
        _ => 1,
    };
    vec![ceplen * parts]
}

/// The streams' lengths of the transform in `text` (one class's), if it is one.
fn streams_of(text: &str) -> Option<Vec<usize>> {
    let mut words = text.split_ascii_whitespace();
    let mut count = || -> Option<usize> { words.next()?.parse().ok() };
    let classes = count()?;
    let streams = count()?;
    if !(1..=64).contains(&classes) || !(1..=8).contains(&streams) {
        return None;
    }
    let mut lengths = Vec::new();
    let mut rest = words;
    for class in 0..classes {
        for stream in 0..streams {
            let n: usize = rest.next()?.parse().ok()?;
            if !(1..=256).contains(&n) {
                return None;
            }
            if class == 0 {
                lengths.push(n);
            } else if lengths.get(stream) != Some(&n) {
                return None;
            }
            for _ in 0..n * n + 2 * n {
                let x: f64 = rest.next()?.parse().ok()?;
                if !x.is_finite() {
                    return None;
                }
            }
        }
    }
    rest.next().is_none().then_some(lengths)
}

/// Whether `path` is a transform PocketSphinx may read with the model in `acoustic`.
pub fn check(acoustic: &Path, path: &Path) -> Result<(), TransformError> {
    let size = std::fs::metadata(path)
        .map_err(|e| TransformError::Unreadable(e.to_string()))?
        .len();
    if size > MAX_BYTES {
        return Err(TransformError::NotATransform);
    }
    let text = std::fs::read(path).map_err(|e| TransformError::Unreadable(e.to_string()))?;
    let text = String::from_utf8(text).map_err(|_| TransformError::NotATransform)?;
    let has = streams_of(&text).ok_or(TransformError::NotATransform)?;
    let model = model_streams(acoustic);
    if has != model {
        return Err(TransformError::OtherModel { has, model });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A transform of `streams` lengths, identity matrices.
    fn transform(streams: &[usize]) -> String {
        let mut t = format!("1\n{}\n", streams.len());
        for &n in streams {
            t += &format!("{n}\n");
            for i in 0..n {
                let row: Vec<&str> = (0..n).map(|j| if i == j { "1.0" } else { "0.0" }).collect();
                t += &(row.join(" ") + "\n");
            }
            t += &(vec!["0.0"; n].join(" ") + "\n");
            t += &(vec!["1.0"; n].join(" ") + "\n");
        }
        t
    }

    #[test]
    fn a_transform_fits_the_models_streams_or_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model");
        std::fs::create_dir(&model).unwrap();
        std::fs::write(
            model.join("feat.params"),
            "-feat 1s_c_d_dd\n-svspec 0-12/13-25/26-38\n-model ptm\n",
        )
        .unwrap();
        assert_eq!(model_streams(&model), vec![13, 13, 13]);
        let path = dir.path().join("anna.mllr");
        std::fs::write(&path, transform(&[13, 13, 13])).unwrap();
        assert_eq!(check(&model, &path), Ok(()));
        std::fs::write(&path, transform(&[39])).unwrap();
        assert_eq!(
            check(&model, &path),
            Err(TransformError::OtherModel {
                has: vec![39],
                model: vec![13, 13, 13]
            })
        );
        // Cut short, one number too many, a word, random bytes: not a transform.
        let whole = transform(&[13, 13, 13]);
        for bad in [
            whole[..whole.len() / 2].to_owned(),
            whole.clone() + "1.0\n",
            whole.replacen("0.0", "zero", 1),
            String::from_utf8_lossy(&[0xbf, 0xd3, 0x89, 0xa7]).into_owned(),
            "1\n3\n4000000000\n".to_owned(),
        ] {
            std::fs::write(&path, bad).unwrap();
            assert_eq!(check(&model, &path), Err(TransformError::NotATransform));
        }
        assert!(matches!(
            check(&model, &dir.path().join("none")),
            Err(TransformError::Unreadable(_))
        ));
        // Without -svspec: one stream of the whole feature.
        std::fs::write(model.join("feat.params"), "-feat 1s_c_d_dd\n").unwrap();
        assert_eq!(model_streams(&model), vec![39]);
    }
}
