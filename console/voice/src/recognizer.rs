//! The recogniser: one PocketSphinx decoder with two searches over the same audio, the
//! turn's grammar and a phone loop. The grammar's best path is accepted only when its score
//! per frame comes close enough to the phone loop's (the best any sequence of English phones
//! can do): speech that is not in the grammar scores far below the phone loop, because the
//! grammar forces it onto words that were not said.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color};

use crate::ffi::{Decoder, FfiError, Hypothesis};
use crate::grammar::{Heard, TurnGrammar};
use crate::words::dictionary;

/// Where the en-us model lives (Debian `pocketsphinx-en-us`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The acoustic model directory.
    pub acoustic: PathBuf,
    /// The phonetic language model of the phone loop.
    pub phone_lm: PathBuf,
}

impl Default for Model {
    fn default() -> Model {
        let base = Path::new("/usr/share/pocketsphinx/model/en-us");
        Model {
            acoustic: base.join("en-us"),
            phone_lm: base.join("en-us-phone.lm.bin"),
        }
    }
}

/// Why the recogniser could not start or decode.
#[derive(Debug)]
pub enum VoiceError {
    /// The model files are missing (the package is not installed).
    Model(String),
    Io(std::io::Error),
    Decoder(FfiError),
}

impl fmt::Display for VoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VoiceError::Model(m) => write!(f, "{m}"),
            VoiceError::Io(e) => write!(f, "cannot write the pronunciation dictionary: {e}"),
            VoiceError::Decoder(e) => write!(f, "speech recogniser: {e}"),
        }
    }
}

impl std::error::Error for VoiceError {}

impl From<FfiError> for VoiceError {
    fn from(e: FfiError) -> VoiceError {
        VoiceError::Decoder(e)
    }
}

/// The default acceptance threshold on [`Recognition::ratio`]: the grammar's path score must
/// beat the phone loop's by at least this much, in hundredths of PocketSphinx's (scaled)
/// score units per 10 ms frame. Tuned on synthetic speech (docs/VOICE.md).
pub const DEFAULT_THRESHOLD: i32 = 300;

/// One utterance's result with the scores behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognition {
    pub heard: Heard,
    /// What the grammar search made of it (empty: nothing).
    pub words: String,
    /// 100 × (grammar path score − phone-loop path score) / frames; higher is more
    /// grammar-like; `i32::MIN` when the grammar found nothing.
    pub ratio: i32,
    pub frames: i32,
    /// What the wide grammar (any square to any square, any command) heard, when it ran.
    pub wide_words: String,
    /// How much better the wide grammar scored, when it heard something else.
    pub wide_margin: Option<i32>,
    /// Decoding time (all searches).
    pub took: Duration,
}

/// A decoder ready for one player's utterances; call [`Recognizer::set_turn`] every turn.
#[derive(Debug)]
pub struct Recognizer {
    decoder: Decoder,
    grammar: Option<TurnGrammar>,
    threshold: i32,
    wide_margin: i32,
}

const GRAMMAR: &str = "grammar";
const PHONES: &str = "phones";
const WIDE: &str = "wide";

/// The default margin (same units as the ratio) by which the wide grammar must beat the
/// turn's grammar, with a different meaning, for the utterance to be rejected.
pub const DEFAULT_WIDE_MARGIN: i32 = 250;

impl Recognizer {
    pub fn new(model: &Model) -> Result<Recognizer, VoiceError> {
        for (what, path) in [
            ("acoustic model", model.acoustic.join("mdef")),
            ("phone model", model.phone_lm.clone()),
        ] {
            if !path.exists() {
                return Err(VoiceError::Model(format!(
                    "the en-us {what} is missing ({}): install the Debian package pocketsphinx-en-us",
                    path.display()
                )));
            }
        }
        let mut dict = tempfile::Builder::new()
            .prefix("kriegspiel-voice-")
            .suffix(".dict")
            .tempfile()
            .map_err(VoiceError::Io)?;
        dict.write_all(dictionary().as_bytes())
            .map_err(VoiceError::Io)?;
        dict.flush().map_err(VoiceError::Io)?;
        let path_str = |p: &Path| {
            p.to_str()
                .map(str::to_owned)
                .ok_or_else(|| VoiceError::Model(format!("{} is not UTF-8", p.display())))
        };
        let hmm = path_str(&model.acoustic)?;
        let dict_path = path_str(dict.path())?;
        let phone_lm = path_str(&model.phone_lm)?;
        let mut decoder = Decoder::new(&[
            ("-hmm", &hmm),
            ("-dict", &dict_path),
            ("-samprate", "16000"),
            ("-allphone_ci", "yes"),
        ])?;
        // PocketSphinx read the dictionary whole: the file goes now, so that a process
        // killed later leaves none behind.
        drop(dict);
        decoder.set_allphone_file(PHONES, &phone_lm)?;
        decoder.set_jsgf(WIDE, &crate::grammar::wide_jsgf())?;
        Ok(Recognizer {
            decoder,
            grammar: None,
            threshold: DEFAULT_THRESHOLD,
            wide_margin: DEFAULT_WIDE_MARGIN,
        })
    }

    /// Rebuilds the grammar for `color`'s turn from his men in `pos`.
    pub fn set_turn(&mut self, pos: &Chess, color: Color) -> Result<(), VoiceError> {
        let grammar = TurnGrammar::new(pos, color);
        self.decoder.set_jsgf(GRAMMAR, grammar.jsgf())?;
        self.grammar = Some(grammar);
        Ok(())
    }

    /// Rebuilds the grammar for `color` from his own board alone ([`TurnGrammar::on_board`]).
    pub fn set_own_board(
        &mut self,
        board: &shakmaty::Board,
        castles: &shakmaty::Castles,
        color: Color,
    ) -> Result<(), VoiceError> {
        let grammar = TurnGrammar::on_board(board, castles, color);
        self.decoder.set_jsgf(GRAMMAR, grammar.jsgf())?;
        self.grammar = Some(grammar);
        Ok(())
    }

    pub fn grammar(&self) -> Option<&TurnGrammar> {
        self.grammar.as_ref()
    }

    pub fn set_threshold(&mut self, threshold: i32) {
        self.threshold = threshold;
    }

    pub fn set_wide_margin(&mut self, margin: i32) {
        self.wide_margin = margin;
    }

    pub fn threshold(&self) -> i32 {
        self.threshold
    }

    /// Hears one utterance: 16 kHz mono 16-bit samples.
    pub fn hear(&mut self, samples: &[i16]) -> Result<Recognition, VoiceError> {
        let start = Instant::now();
        let Some(grammar) = &self.grammar else {
            return Err(VoiceError::Decoder(FfiError(
                "no turn set: call set_turn first".into(),
            )));
        };
        let said: Hypothesis = self.decoder.decode(GRAMMAR, samples)?;
        let mut heard = grammar.interpret(&said.text);
        let mut ratio = i32::MIN;
        let mut wide_words = String::new();
        let mut wide_margin = None;
        if heard != Heard::Rejected {
            // Speech frames only: silence scores alike in both searches and would dilute the
            // ratio of short words ("any", "rook").
            let speech: i32 = said
                .segments
                .iter()
                .filter(|s| !s.is_filler())
                .map(|s| (s.end - s.start + 1).max(0))
                .sum();
            let speech = i64::from(speech.max(1));
            let phones = self.decoder.decode(PHONES, samples)?;
            let diff = (i64::from(said.score) - i64::from(phones.score)) * 100 / speech;
            ratio = i32::try_from(diff).unwrap_or(i32::MIN);
            if ratio < self.threshold {
                heard = Heard::Rejected;
            } else {
                // A try said to a square no man of his can reach sounds like a possible try
                // but one word: the wide grammar (every square to every square, every
                // command) hears what was said; when it hears something else and scores
                // clearly better, the turn grammar forced the words.
                let wide = self.decoder.decode(WIDE, samples)?;
                if grammar.interpret(&wide.text) != heard {
                    let margin = (i64::from(wide.score) - i64::from(said.score)) * 100 / speech;
                    wide_margin = i32::try_from(margin).ok();
                    if margin > i64::from(self.wide_margin) {
                        heard = Heard::Rejected;
                    }
                }
                wide_words = wide.text;
            }
        }
        Ok(Recognition {
            heard,
            words: said.text,
            wide_words,
            wide_margin,
            ratio,
            frames: said.frames,
            took: start.elapsed(),
        })
    }
}
