//! Moonshine base-en (Useful Sensors, MIT), an encoder-decoder speech model, asked how likely
//! each of a few given phrases is as the transcript of an utterance.
//!
//! The model and the ONNX Runtime library it was exported for come from the Python package
//! index (the wheel `moonshine-cpp` 0.1.4 carries both; `console/voice/fetch-moonshine.sh`
//! unpacks them). The library is opened at run time from the model's folder, so the build
//! fetches nothing and a console without the model still runs (its voice answers are then
//! PocketSphinx's alone).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod prepare;

use ort::memory::Allocator;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;

/// The files of the model's folder.
pub const ENCODER: &str = "encoder_model.ort";
pub const DECODER: &str = "decoder_model_merged.ort";
pub const TOKENIZER: &str = "tokenizer.bin";
/// The ONNX Runtime the model was exported for (the `ort` crate's API 22).
pub const RUNTIME: &str = "libonnxruntime.so.1.22.1";

/// The decoder's start and end tokens.
const START: i64 = 1;
const END: i64 = 2;
/// SentencePiece's mark of a word's start.
const SPACE: &str = "\u{2581}";
/// Moonshine base: attention heads and their width, in the decoder's cache.
const HEADS: usize = 8;
const HEAD_WIDTH: usize = 52;
/// The longest utterance heard (30 s at 16 kHz): longer audio is no answer, and is not encoded.
pub const MAX_SAMPLES: usize = 16_000 * 30;
/// The shortest utterance heard: 0.1 s, shorter than any word. The encoder's convolutions
/// need 895 samples, and the runtime prints its own error line on fewer.
pub const MIN_SAMPLES: usize = 1_600;
/// The largest tokenizer file read (Moonshine's is 242 KB).
const MAX_TOKENIZER_BYTES: u64 = 4 << 20;

/// Why the model could not be opened or run.
#[derive(Debug)]
pub enum MoonshineError {
    /// A file of the model's folder is missing.
    Missing(PathBuf),
    /// The tokenizer file is not a Moonshine tokenizer.
    Tokenizer(PathBuf),
    /// A phrase has a character the tokenizer has no piece for.
    Untokenizable(String),
    /// The utterance is shorter than [`MIN_SAMPLES`] or longer than [`MAX_SAMPLES`].
    Length(usize),
    /// ONNX Runtime refused.
    Runtime(String),
}

impl fmt::Display for MoonshineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoonshineError::Missing(p) => write!(
                f,
                "Moonshine's model is not installed: {} is missing (bash console/voice/fetch-moonshine.sh installs it)",
                p.display()
            ),
            MoonshineError::Tokenizer(p) => {
                write!(f, "{} is not a Moonshine tokenizer", p.display())
            }
            MoonshineError::Untokenizable(t) => write!(f, "no tokens for the phrase {t:?}"),
            MoonshineError::Length(n) => write!(
                f,
                "an utterance of {n} samples cannot be heard ({MIN_SAMPLES} to {MAX_SAMPLES})"
            ),
            MoonshineError::Runtime(m) => write!(f, "ONNX Runtime: {m}"),
        }
    }
}

impl std::error::Error for MoonshineError {}

impl From<ort::Error> for MoonshineError {
    fn from(e: ort::Error) -> MoonshineError {
        MoonshineError::Runtime(e.to_string())
    }
}

/// An utterance as the encoder heard it: what every phrase is scored against.
#[derive(Debug, Clone)]
pub struct Encoded {
    frames: usize,
    width: usize,
    hidden: Vec<f32>,
}

/// The model, ready to hear.
pub struct Moonshine {
    encoder: Session,
    decoder: Session,
    /// The decoder's inputs, by name, in its order.
    inputs: Vec<String>,
    /// The tokenizer's pieces (SentencePiece, "▁" for a space) and their ids; a piece the file
    /// repeats (some byte pieces) has its last id, the model's own.
    ids: HashMap<Vec<u8>, i64>,
    /// The pieces by id, to write what the model would.
    pieces: Vec<Vec<u8>>,
}

impl fmt::Debug for Moonshine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Moonshine")
            .field("pieces", &self.ids.len())
            .finish_non_exhaustive()
    }
}

impl Moonshine {
    /// The default folder: `$KRIEGSPIEL_MOONSHINE`, else `~/.local/share/kriegspiel/moonshine-base-en`.
    pub fn default_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("KRIEGSPIEL_MOONSHINE") {
            return PathBuf::from(dir);
        }
        let data = std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/share")))
            .unwrap_or_else(|| PathBuf::from("."));
        data.join("kriegspiel/moonshine-base-en")
    }

    /// Opens the model in `dir` (its four files), on `threads` threads, prepared for speed:
    /// each file converted once (`prepare`), beside it, or in a temporary folder when `dir`
    /// cannot be written; the files as shipped when neither can be done.
    pub fn open(dir: &Path, threads: usize) -> Result<Moonshine, MoonshineError> {
        Moonshine::open_with(dir, threads, true)
    }

    /// Opens the model's files as shipped, never prepared: the same scores, slower (to
    /// compare with [`Moonshine::open`]).
    pub fn open_as_shipped(dir: &Path, threads: usize) -> Result<Moonshine, MoonshineError> {
        Moonshine::open_with(dir, threads, false)
    }

    fn open_with(dir: &Path, threads: usize, prepare: bool) -> Result<Moonshine, MoonshineError> {
        for name in [ENCODER, DECODER, TOKENIZER, RUNTIME] {
            if !dir.join(name).is_file() {
                return Err(MoonshineError::Missing(dir.join(name)));
            }
        }
        let tokenizer = dir.join(TOKENIZER);
        let bytes = std::fs::metadata(&tokenizer)
            .ok()
            .filter(|m| m.len() <= MAX_TOKENIZER_BYTES)
            .and_then(|_| std::fs::read(&tokenizer).ok())
            .ok_or_else(|| MoonshineError::Tokenizer(tokenizer.clone()))?;
        let pieces = pieces(&bytes).ok_or(MoonshineError::Tokenizer(tokenizer))?;
        let ids = pieces
            .iter()
            .cloned()
            .zip(0i64..)
            .collect::<HashMap<Vec<u8>, i64>>();
        // The runtime is loaded once per process; a second model (another player) shares it.
        // `ort` panics on a library it cannot load or of another version: said as an error.
        let runtime = dir.join(RUNTIME);
        let path = runtime.to_string_lossy().into_owned();
        std::panic::catch_unwind(|| ort::init_from(path).commit())
            .map_err(|_| MoonshineError::Runtime(format!("cannot load {}", runtime.display())))??;
        let session = |name: &str| -> Result<Session, MoonshineError> {
            let shipped = dir.join(name);
            // Without prepacking the weights are held once, not twice: 80 MB less for a few ms.
            let builder = || {
                Session::builder()?
                    .with_intra_threads(threads.max(1))?
                    .with_prepacking(false)
            };
            // `_scratch`: a temporary folder holding the prepared file, kept while it is read.
            if let Some((path, _scratch)) = prepare.then(|| prepare::prepared(&shipped)).flatten() {
                match builder()?.commit_from_file(&path) {
                    Ok(session) => return Ok(session),
                    // Damaged (a disk that filled): made again at the next start.
                    Err(_) => drop(std::fs::remove_file(&path)),
                }
            }
            Ok(builder()?.commit_from_file(shipped)?)
        };
        let encoder = session(ENCODER)?;
        let decoder = session(DECODER)?;
        let inputs = decoder.inputs.iter().map(|i| i.name.clone()).collect();
        Ok(Moonshine {
            encoder,
            decoder,
            inputs,
            ids,
            pieces,
        })
    }

    /// Encodes 16 kHz mono samples.
    pub fn encode(&mut self, samples: &[i16]) -> Result<Encoded, MoonshineError> {
        if !(MIN_SAMPLES..=MAX_SAMPLES).contains(&samples.len()) {
            return Err(MoonshineError::Length(samples.len()));
        }
        let audio: Vec<f32> = samples.iter().map(|&s| f32::from(s) / 32768.0).collect();
        let input = Tensor::from_array(([1usize, audio.len()], audio))?;
        let out = self.encoder.run(ort::inputs!["input_values" => input])?;
        let (shape, hidden) = out["last_hidden_state"].try_extract_tensor::<f32>()?;
        let dims: Vec<usize> = shape
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .collect();
        let (frames, width) = match dims.as_slice() {
            [1, frames, width] if *frames > 0 => (*frames, *width),
            _ => return Err(MoonshineError::Runtime(format!("encoder output {dims:?}"))),
        };
        Ok(Encoded {
            frames,
            width,
            hidden: hidden.to_vec(),
        })
    }

    /// Each phrase scored as the whole transcript of `heard` (its end included), all phrases in
    /// one decoder run.
    pub fn score(
        &mut self,
        heard: &Encoded,
        phrases: &[&str],
    ) -> Result<Vec<Scored>, MoonshineError> {
        let seqs = phrases
            .iter()
            .map(|p| {
                let mut ids = vec![START];
                ids.extend(self.tokens(p)?);
                ids.push(END);
                Ok(ids)
            })
            .collect::<Result<Vec<Vec<i64>>, MoonshineError>>()?;
        let rows = seqs.len();
        let len = seqs.iter().map(Vec::len).max().unwrap_or(0);
        if rows == 0 {
            return Ok(Vec::new());
        }
        let mut ids = vec![END; rows * len];
        for (k, s) in seqs.iter().enumerate() {
            ids[k * len..k * len + s.len()].copy_from_slice(s);
        }
        let feed = self.feed(heard, Tensor::from_array(([rows, len], ids))?)?;
        let out = self.decoder.run(feed)?;
        let (shape, logits) = out["logits"].try_extract_tensor::<f32>()?;
        let vocab = usize::try_from(shape.get(2).copied().unwrap_or(0)).unwrap_or(0);
        let mut scored = Vec::with_capacity(rows);
        for (k, s) in seqs.iter().enumerate() {
            let mut phrase = Scored::default();
            for (t, next) in s.iter().skip(1).enumerate() {
                let at = (k * len + t) * vocab;
                let row = logits
                    .get(at..at + vocab)
                    .ok_or_else(|| MoonshineError::Runtime(format!("decoder logits {shape:?}")))?;
                let (p, best) = log_softmax_at(row, usize::try_from(*next).unwrap_or(0));
                phrase.log_prob += p;
                phrase.doubt += best - p;
                if t == 0 {
                    phrase.silence = silence(row);
                }
            }
            scored.push(phrase);
        }
        Ok(scored)
    }

    /// What the model itself would write for `heard`, greedily, token by token: at most
    /// `words` words (it stops where the next would begin, so a sentence costs no more than
    /// the words asked about), with the log-probability of what it wrote.
    pub fn transcribe(
        &mut self,
        heard: &Encoded,
        words: usize,
    ) -> Result<Transcript, MoonshineError> {
        let mut ids = vec![START];
        let mut written = Transcript::default();
        let mut begun = 0;
        // A word is a piece or a few; punctuation is its own.
        while ids.len() <= words * 6 + 2 {
            let len = ids.len();
            let feed = self.feed(heard, Tensor::from_array(([1usize, len], ids.clone()))?)?;
            let out = self.decoder.run(feed)?;
            let (shape, logits) = out["logits"].try_extract_tensor::<f32>()?;
            let vocab = usize::try_from(shape.get(2).copied().unwrap_or(0)).unwrap_or(0);
            let row = logits
                .get((len - 1) * vocab..len * vocab)
                .ok_or_else(|| MoonshineError::Runtime(format!("decoder logits {shape:?}")))?;
            let best = row
                .iter()
                .enumerate()
                .fold((0, f32::MIN), |b, (i, &x)| if x > b.1 { (i, x) } else { b })
                .0;
            let p = log_softmax_at(row, best).0;
            if i64::try_from(best).ok() == Some(END) {
                written.log_prob += p;
                written.complete = true;
                break;
            }
            let piece = self.pieces.get(best).map_or(&[][..], Vec::as_slice);
            if piece.starts_with(SPACE.as_bytes()) {
                begun += 1;
                if begun > words {
                    break;
                }
            }
            written.log_prob += p;
            written
                .text
                .push_str(&String::from_utf8_lossy(piece).replace(SPACE, " "));
            ids.push(i64::try_from(best).unwrap_or(END));
        }
        written.text = written.text.trim().to_string();
        Ok(written)
    }

    /// The decoder's inputs for a first run (no cache): the tokens, the encoder's output for
    /// every row, empty self-attention caches and the cross-attention's (computed anew).
    fn feed(
        &self,
        heard: &Encoded,
        ids: Tensor<i64>,
    ) -> Result<Vec<(Cow<'static, str>, SessionInputValue<'static>)>, MoonshineError> {
        let rows = ids
            .shape()
            .first()
            .map_or(1, |&r| usize::try_from(r).unwrap_or(1));
        let mut hidden = Vec::with_capacity(rows * heard.hidden.len());
        for _ in 0..rows {
            hidden.extend_from_slice(&heard.hidden);
        }
        let mut feed: Vec<(Cow<'static, str>, SessionInputValue<'static>)> = vec![
            ("input_ids".into(), ids.into()),
            (
                "encoder_hidden_states".into(),
                Tensor::from_array(([rows, heard.frames, heard.width], hidden))?.into(),
            ),
        ];
        for name in &self.inputs {
            if name.starts_with("past_key_values") {
                let value = if name.contains(".encoder.") {
                    let len = rows * HEADS * heard.frames * HEAD_WIDTH;
                    Tensor::from_array(([rows, HEADS, heard.frames, HEAD_WIDTH], vec![0f32; len]))?
                } else {
                    // A tensor of no elements cannot come from data: the runtime allocates it.
                    Tensor::<f32>::new(&Allocator::default(), [rows, HEADS, 0, HEAD_WIDTH])?
                };
                feed.push((name.clone().into(), value.into()));
            } else if name == "use_cache_branch" {
                feed.push((
                    name.clone().into(),
                    Tensor::from_array(([1usize], vec![false]))?.into(),
                ));
            }
        }
        Ok(feed)
    }

    /// SentencePiece's pieces for `text`, longest first. Not always the pieces the model
    /// writes (its tokenizer merges pieces in the order it learned them): "Repeat." is cut
    /// `▁Rep|ea|t|.` where the model writes `▁Re|peat|.`, and scores some 40 log units under
    /// it; "Offer draw." and the Anna names likewise. Every limit of the second ear was chosen
    /// on these cuts; the model's own cut, measured, moved them (docs/VOICE.md, nineteenth
    /// round), so it waits for a round that chooses the limits again with it.
    fn tokens(&self, text: &str) -> Result<Vec<i64>, MoonshineError> {
        let bytes = format!("{SPACE}{}", text.replace(' ', SPACE)).into_bytes();
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let piece = (at + 1..=bytes.len())
                .rev()
                .find_map(|end| self.ids.get(&bytes[at..end]).map(|&id| (id, end)));
            let Some((id, end)) = piece else {
                return Err(MoonshineError::Untokenizable(text.to_string()));
            };
            out.push(id);
            at = end;
        }
        Ok(out)
    }
}

/// What the model would write ([`Moonshine::transcribe`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    /// The words, as written ("Conference.").
    pub text: String,
    /// The log-probability of writing them (and the end, when `complete`).
    pub log_prob: f32,
    /// Whether the model ended there; false when it would have written more words than
    /// asked for.
    pub complete: bool,
}

/// A phrase's score: its log-probability, and its doubt, the sum over its tokens of how far
/// each falls under the token the model liked best there (0 when it is what the model would
/// write; the audio's own words, when it is something else, push it up).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scored {
    pub log_prob: f32,
    pub doubt: f32,
    /// The part of `doubt` that is the model's wish to write nothing at all (the end as the
    /// first token, over any word): in room noise it often hears no speech where a short word
    /// was said, which says nothing of which word it was (docs/VOICE.md, sixteenth round).
    pub silence: f32,
}

/// How far the end, as the first token, outscores the best word in `row` (0 when a word
/// leads).
fn silence(row: &[f32]) -> f32 {
    let end = usize::try_from(END).ok();
    let top = |skip: Option<usize>| {
        row.iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .map(|(_, &x)| x)
            .fold(f32::MIN, f32::max)
    };
    (top(None) - top(end)).max(0.0)
}

/// The log-probability of token `at` in a row of logits, and the row's best log-probability.
fn log_softmax_at(row: &[f32], at: usize) -> (f32, f32) {
    let top = row.iter().copied().fold(f32::MIN, f32::max);
    let log_sum = top + row.iter().map(|x| (x - top).exp()).sum::<f32>().ln();
    (
        row.get(at).copied().unwrap_or(f32::MIN) - log_sum,
        top - log_sum,
    )
}

/// The tokenizer's pieces: each a length (one byte, or two when the first has its high bit
/// set, little-endian in 7-bit groups) and its bytes. None when the file is cut short.
fn pieces(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let mut len = usize::from(bytes[at]);
        at += 1;
        if len >= 128 {
            len = (len & 127) | (usize::from(*bytes.get(at)?) << 7);
            at += 1;
        }
        out.push(bytes.get(at..at + len)?.to_vec());
        at += len;
    }
    (out.len() > usize::try_from(END).ok()?).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_read_with_one_and_two_byte_lengths() {
        let mut file = vec![5];
        file.extend_from_slice(b"<unk>");
        file.extend_from_slice(&[3, b'<', b's', b'>', 4, b'<', b'/', b's', b'>']);
        file.extend_from_slice(&[0x82, 0x01]);
        file.extend_from_slice(&[b'x'; 130]);
        let p = pieces(&file).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[0], b"<unk>");
        assert_eq!(p[3].len(), 130);
        // Cut short: no tokenizer.
        assert!(pieces(&file[..file.len() - 1]).is_none());
        assert!(pieces(&[]).is_none());
    }

    #[test]
    fn log_softmax_gives_the_token_and_the_best() {
        let (p, best) = log_softmax_at(&[0.0, 0.0, (3f32).ln()], 0);
        assert!((p - (0.2f32).ln()).abs() < 1e-5);
        assert!((best - (0.6f32).ln()).abs() < 1e-5);
    }

    #[test]
    fn silence_is_how_far_the_end_leads_the_best_word() {
        let mut row = vec![0.0f32; 5];
        row[2] = 4.0; // the end
        row[3] = 1.5;
        assert!((silence(&row) - 2.5).abs() < 1e-6);
        row[4] = 6.0; // a word leads: no silence
        assert_eq!(silence(&row), 0.0);
    }

    /// Files that are not the model (a broken download, another folder) are an error, never a
    /// panic: not even the runtime library's.
    #[test]
    fn a_folder_of_junk_is_an_error() {
        let dir =
            std::env::temp_dir().join(format!("kriegspiel-moonshine-junk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [ENCODER, DECODER, RUNTIME] {
            std::fs::write(dir.join(name), b"not a model").unwrap();
        }
        // A tokenizer cut short is refused first.
        std::fs::write(dir.join(TOKENIZER), [5u8, b'<']).unwrap();
        let Err(e) = Moonshine::open(&dir, 1) else {
            panic!("opened junk")
        };
        assert!(matches!(e, MoonshineError::Tokenizer(_)), "{e}");
        std::fs::write(dir.join(TOKENIZER), [1u8, b'a', 1, b'b', 1, b'c', 1, b'd']).unwrap();
        let Err(e) = Moonshine::open(&dir, 1) else {
            panic!("opened junk")
        };
        assert!(matches!(e, MoonshineError::Runtime(_)), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_model_is_named_with_its_remedy() {
        let dir = std::env::temp_dir().join("kriegspiel-moonshine-none");
        let Err(e) = Moonshine::open(&dir, 1) else {
            panic!("opened a model that is not there");
        };
        let text = e.to_string();
        assert!(
            text.contains("encoder_model.ort") && text.contains("fetch-moonshine.sh"),
            "{text}"
        );
    }
}
