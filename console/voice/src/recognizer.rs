//! The recogniser: PocketSphinx searches over the same audio, the turn's grammar and a phone
//! loop (in two decoders: the second, without silence removal, hears what the first does not
//! hear as a try; [`Recognizer::hear`]). The grammar's best path is accepted only when its score
//! per frame comes close enough to the phone loop's (the best any sequence of English phones
//! can do): speech that is not in the grammar scores far below the phone loop, because the
//! grammar forces it onto words that were not said.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color};

use crate::ear::{AnswerEar, EarChoice, EarHeard};
use crate::ffi::{Decoder, FfiError, Hypothesis};
use crate::grammar::{answer_jsgf, answer_of, commands_jsgf, Command, Heard, TurnGrammar};
use crate::level::raise_quiet;
use crate::transform::TransformError;
use crate::words::dictionary;

mod alternatives;
pub use alternatives::Weighed;
mod command;
mod loud;
use loud::{loud_frames, loud_length, loud_span, unexplained, without_long_silence};
mod reply;

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

/// The default acceptance threshold of a command heard in a free turn, on
/// [`Recognition::span_ratio`]. Chosen on the tuning set of `benches/heldout.rs`.
pub const DEFAULT_COMMAND_THRESHOLD: i32 = 400;

/// The default acceptance threshold of "confirm", "cancel", "yes" and "no" while a read-back
/// waits, on [`Recognition::span_ratio`]. Chosen on the tuning set of `benches/heldout.rs`.
pub const DEFAULT_ANSWER_THRESHOLD: i32 = 1800;

/// The default floor on [`Recognition::span_ratio`] under which a command the turn's grammar
/// heard is rejected rather than read back ([`Heard::Unsure`]). Chosen on the tuning set of
/// `benches/heldout.rs` (docs/VOICE.md, fifth round).
pub const DEFAULT_UNSURE_THRESHOLD: i32 = -400;

/// The room adaptation: an MLLR transform of the en-us model (one regression class) to speech
/// in a club's room, computed by `benches/heldout.rs` (`HELDOUT_ENROL=house`) from the tuning
/// voices' enrolment phrases (11 voices, 20 phrases each), clean and in pink noise and babble
/// at 20 and 15 dB. The held-out voices (mostly those speakers, pitched and paced further) are
/// heard better with it at every noise level (docs/VOICE.md, sixth round). A player's own
/// enrolment, made against the plain model, replaces it.
pub const ROOM_TRANSFORM: &str = include_str!("room.mllr");

/// Which acoustic model a recogniser hears with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adaptation<'a> {
    /// The en-us model as installed.
    Plain,
    /// The model adapted to a club's room ([`ROOM_TRANSFORM`]): what a player without an
    /// enrolment of his own hears with.
    Room,
    /// The model adapted to one player by the transform his enrolment wrote
    /// ([`crate::enrol::enrol`]).
    Player(&'a Path),
}

impl<'a> Adaptation<'a> {
    /// A player's enrolment if he has one, else the plain model or the room's.
    pub fn of(enrolment: Option<&'a Path>, plain: bool) -> Adaptation<'a> {
        match (enrolment, plain) {
            (Some(path), _) => Adaptation::Player(path),
            (None, true) => Adaptation::Plain,
            (None, false) => Adaptation::Room,
        }
    }
}

/// One utterance's result with the scores behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognition {
    pub heard: Heard,
    /// What the grammar search made of it (empty: nothing).
    pub words: String,
    /// 100 × (grammar path score − phone-loop path score) / frames; higher is more
    /// grammar-like; `i32::MIN` when the grammar found nothing.
    pub ratio: i32,
    /// 100 × (the words' acoustic score − the phone loop's over the same frames) per speech
    /// frame ([`span_ratio`]): what commands and answers are judged on; `i32::MIN` when the
    /// grammar found nothing.
    pub span_ratio: i32,
    /// The same for the read-back's answer grammar, when it ran and heard an answer.
    pub answer_ratio: Option<i32>,
    pub frames: i32,
    /// What the wide grammar (any square to any square, any command) heard, when it ran.
    pub wide_words: String,
    /// How much better the wide grammar scored, when it heard something else.
    pub wide_margin: Option<i32>,
    /// What the second ear ([`AnswerEar`]) made of it as an answer or a command, when it was
    /// asked.
    pub ear: Option<EarHeard>,
    /// What the second ear made of a try's alternatives, when it was asked.
    pub try_ear: Option<EarChoice>,
    /// The tries the second ear weighed (PocketSphinx's first), each with both judges' scores.
    pub alternatives: Vec<Weighed>,
    /// How far a quiet utterance was raised before it was heard, in decibels (0: heard as it
    /// was; [`crate::level`]).
    pub raised_db: f32,
    /// Decoding time (all searches).
    pub took: Duration,
}

/// A decoder ready for one player's utterances; call [`Recognizer::set_turn`] every turn.
#[derive(Debug)]
pub struct Recognizer {
    decoder: Decoder,
    /// The decoder of what is not a try (commands, answers, chatter): PocketSphinx's silence
    /// removal off ([`Recognizer::hear`]).
    short: Option<Decoder>,
    grammar: Option<TurnGrammar>,
    threshold: i32,
    wide_margin: i32,
    command_threshold: i32,
    answer_threshold: i32,
    unsure_threshold: i32,
    /// Moonshine, asked about answers, a free turn's commands and tries ([`crate::ear`]).
    ear: Option<AnswerEar>,
    /// Whether each utterance is first heard by the front end alone ([`Recognizer::warm`]).
    warm: bool,
}

const GRAMMAR: &str = "grammar";
const PHONES: &str = "phones";
const WIDE: &str = "wide";
const ANSWER: &str = "answer";
const COMMANDS: &str = "commands";

/// The default margin (same units as the ratio) by which the wide grammar must beat the
/// turn's grammar, with a different meaning, for the utterance to be rejected.
pub const DEFAULT_WIDE_MARGIN: i32 = 250;

impl Recognizer {
    pub fn new(model: &Model) -> Result<Recognizer, VoiceError> {
        Recognizer::with_options(model, &[], true)
    }

    /// A recogniser hearing with `adaptation` of the acoustic model.
    pub fn adapted(model: &Model, adaptation: Adaptation<'_>) -> Result<Recognizer, VoiceError> {
        match adaptation {
            Adaptation::Plain => Recognizer::new(model),
            Adaptation::Player(path) => {
                if !path.is_file() {
                    return Err(VoiceError::Model(format!(
                        "the player's voice transform is missing ({})",
                        path.display()
                    )));
                }
                Recognizer::with_mllr(model, path, |e| {
                    format!("voice enrolment {}: {e}", path.display())
                })
            }
            Adaptation::Room => {
                // PocketSphinx reads a transform from a file, when the decoder starts.
                let mut file = tempfile::Builder::new()
                    .prefix("kriegspiel-room-")
                    .suffix(".mllr")
                    .tempfile()
                    .map_err(VoiceError::Io)?;
                file.write_all(ROOM_TRANSFORM.as_bytes())
                    .map_err(VoiceError::Io)?;
                file.flush().map_err(VoiceError::Io)?;
                Recognizer::with_mllr(model, file.path(), |e| match e {
                    TransformError::OtherModel { .. } => format!(
                        "the room adaptation was made for the en-us model of the package \
                         pocketsphinx-en-us, not the one at {}: hear with --plain-model",
                        model.acoustic.display()
                    ),
                    e => format!("the room adaptation: {e} (hear with --plain-model)"),
                })
            }
        }
    }

    /// A recogniser whose decoders get the MLLR transform at `path`, checked first (what
    /// PocketSphinx would call a broken model is said as what it is, in `why`'s words).
    fn with_mllr(
        model: &Model,
        path: &Path,
        why: impl Fn(TransformError) -> String,
    ) -> Result<Recognizer, VoiceError> {
        crate::transform::check(&model.acoustic, path).map_err(|e| VoiceError::Model(why(e)))?;
        let path = path
            .to_str()
            .ok_or_else(|| VoiceError::Model(format!("{} is not UTF-8", path.display())))?;
        Recognizer::with_options(model, &[("-mllr", path)], true)
    }

    /// A recogniser whose decoders also get `options`, PocketSphinx command-line options
    /// (`("-beam", "1e-60")`, ...): to compare front-end and search settings. With
    /// `short_decoder`, what the turn's grammar does not hear as a try is judged by a second
    /// decoder that keeps PocketSphinx's silence (`-remove_silence no`; see
    /// [`Recognizer::hear`]); without it, everything by the one decoder (as before issue 21's
    /// second round).
    pub fn with_options(
        model: &Model,
        options: &[(&str, &str)],
        short_decoder: bool,
    ) -> Result<Recognizer, VoiceError> {
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
        let mut all = vec![
            ("-hmm", hmm.as_str()),
            ("-dict", dict_path.as_str()),
            ("-samprate", "16000"),
            ("-allphone_ci", "yes"),
        ];
        all.extend_from_slice(options);
        let setup = |options: &[(&str, &str)]| -> Result<Decoder, VoiceError> {
            let mut decoder = Decoder::new(options)?;
            decoder.set_allphone_file(PHONES, &phone_lm)?;
            decoder.set_jsgf(WIDE, &crate::grammar::wide_jsgf())?;
            decoder.set_jsgf(ANSWER, &answer_jsgf(None))?;
            decoder.set_jsgf(COMMANDS, &commands_jsgf(None))?;
            Ok(decoder)
        };
        let decoder = setup(&all)?;
        let short = if short_decoder {
            let mut with = all.clone();
            with.push(("-remove_silence", "no"));
            Some(setup(&with)?)
        } else {
            None
        };
        // PocketSphinx read the dictionary whole: the file goes now, so that a process
        // killed later leaves none behind.
        drop(dict);
        Ok(Recognizer {
            decoder,
            short,
            grammar: None,
            threshold: DEFAULT_THRESHOLD,
            wide_margin: DEFAULT_WIDE_MARGIN,
            command_threshold: DEFAULT_COMMAND_THRESHOLD,
            answer_threshold: DEFAULT_ANSWER_THRESHOLD,
            unsure_threshold: DEFAULT_UNSURE_THRESHOLD,
            ear: None,
            warm: true,
        })
    }

    /// Asks `ear` about a read-back's answers ([`Recognizer::hear_reply`]), a free turn's
    /// short commands and every try ([`Recognizer::hear`]).
    pub fn set_ear(&mut self, ear: AnswerEar) {
        self.ear = Some(ear);
    }

    /// `sphinx` on this thread while, when `ask`, the second ear (if any) runs `ear` on the
    /// other core: the player waits for the slower of the two, not both. A failure of the
    /// ear's own, or of its thread, is no opinion.
    fn beside_ear<T: Send, R>(
        &mut self,
        ask: bool,
        ear: impl FnOnce(&mut AnswerEar) -> Result<T, VoiceError> + Send,
        sphinx: impl FnOnce(&mut Self) -> R,
    ) -> (R, Option<T>) {
        let mut taken = if ask { self.ear.take() } else { None };
        let (first, second) = std::thread::scope(|s| {
            let second = taken.as_mut().map(|e| s.spawn(move || ear(e)));
            (sphinx(self), second.map(|h| h.join()))
        });
        if taken.is_some() {
            self.ear = taken;
        }
        (first, second.and_then(Result::ok).and_then(Result::ok))
    }

    /// Rebuilds the grammar for `color`'s turn from his men in `pos`.
    pub fn set_turn(&mut self, pos: &Chess, color: Color) -> Result<(), VoiceError> {
        let grammar = TurnGrammar::new(pos, color);
        self.decoder.set_jsgf(GRAMMAR, grammar.jsgf())?;
        if let Some(short) = self.short.as_mut() {
            short.set_jsgf(GRAMMAR, grammar.jsgf())?;
        }
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
        if let Some(short) = self.short.as_mut() {
            short.set_jsgf(GRAMMAR, grammar.jsgf())?;
        }
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

    /// Sets the acceptance threshold of commands heard in a free turn, on
    /// [`Recognition::span_ratio`].
    pub fn set_command_threshold(&mut self, threshold: i32) {
        self.command_threshold = threshold;
    }

    /// Sets the floor under which a command is rejected rather than read back
    /// ([`Heard::Unsure`]); `i32::MAX` never reads one back.
    pub fn set_unsure_threshold(&mut self, threshold: i32) {
        self.unsure_threshold = threshold;
    }

    /// Sets the acceptance threshold of a read-back's answers, on [`Recognition::span_ratio`].
    pub fn set_answer_threshold(&mut self, threshold: i32) {
        self.answer_threshold = threshold;
    }

    /// Lets a garbage model (any sequence of phones, weighted `junk` against each word)
    /// compete with the answers and commands in their own grammars (`None`: no garbage).
    pub fn set_junk_weight(&mut self, junk: Option<f64>) -> Result<(), VoiceError> {
        for decoder in std::iter::once(&mut self.decoder).chain(self.short.as_mut()) {
            decoder.set_jsgf(ANSWER, &answer_jsgf(junk))?;
            decoder.set_jsgf(COMMANDS, &commands_jsgf(junk))?;
        }
        Ok(())
    }

    /// Whether each utterance is first heard by the front end alone (the default; benches
    /// compare without).
    pub fn set_warm(&mut self, warm: bool) {
        self.warm = warm;
    }

    /// The peak amplitude of the noise floor PocketSphinx hears every utterance over
    /// ([`crate::floor`]; [`crate::DEFAULT_NOISE_FLOOR`]); 0 hears the samples as they are (as
    /// before issue 21's fourteenth round). The ear always hears them as they are.
    pub fn set_noise_floor(&mut self, amplitude: i16) {
        self.decoder.set_noise_floor(amplitude);
        if let Some(short) = self.short.as_mut() {
            short.set_noise_floor(amplitude);
        }
    }

    /// Lets the first decoder's front end hear `samples` before any search that counts.
    /// PocketSphinx's noise removal (`-remove_noise`) carries its estimate of the room from one
    /// utterance to the next, so the first search of an utterance heard it with the previous
    /// utterance's room, and every later search with its own: the turn's grammar was judged
    /// against a phone loop that heard better, and a first utterance, or one in more or less
    /// noise than the last, was heard worst (docs/VOICE.md, ninth round). (The second
    /// decoder's commands are judged on searches that already follow another: its thresholds
    /// were chosen so, and it is left as it was.) The front end hears it alone, without a
    /// search ([`Decoder::hear_room`]): the same estimate as a one-word search left, for
    /// 12 ms less per utterance (docs/VOICE.md, thirteenth round).
    fn warm(&mut self, samples: &[i16]) -> Result<(), VoiceError> {
        if self.warm {
            self.decoder.hear_room(samples)?;
        }
        Ok(())
    }

    /// Hears one utterance of a free turn: 16 kHz mono 16-bit samples.
    ///
    /// The turn's grammar decodes it first; what it does not hear as a try is heard again,
    /// from the start, by the second decoder, which keeps PocketSphinx's silence frames
    /// (`-remove_silence no`): a short command in room noise scores better against the
    /// phone loop when the voice-activity detector has not cut the audio, while the tries'
    /// threshold was chosen with the silence removed (docs/VOICE.md, held-out bench). With a
    /// second ear, it also hears a try's alternatives, and a short utterance that is no try as
    /// one of the commands (docs/VOICE.md, eighth to tenth rounds).
    pub fn hear(&mut self, samples: &[i16]) -> Result<Recognition, VoiceError> {
        let start = Instant::now();
        let raised = raise_quiet(samples);
        let samples = without_long_silence(raised.samples.as_ref());
        self.warm(samples)?;
        let mut rec = match self.try_heard(samples)? {
            Some(said) => self.hear_try(samples, start, said),
            None => self.hear_not_try(samples, start),
        }?;
        rec.raised_db = raised.gain_db;
        Ok(rec)
    }

    /// The turn grammar's hearing by the first decoder when it is a try, or when there is no
    /// second decoder to hear it otherwise; `None` when the second decoder is to hear it.
    fn try_heard(&mut self, samples: &[i16]) -> Result<Option<Hypothesis>, VoiceError> {
        let said = self.decoder.decode(GRAMMAR, samples)?;
        let Some(grammar) = self.grammar.as_ref() else {
            return Err(no_turn());
        };
        let first = self.short.is_none() || matches!(grammar.interpret(&said.text), Heard::Try(_));
        Ok(first.then_some(said))
    }

    /// The turn's grammar (decoded here unless `said` gives it), judged against the phone loop
    /// and, when it passes, against the wide grammar; by the second decoder when `alt`.
    fn hear_turn(
        &mut self,
        samples: &[i16],
        start: Instant,
        said: Option<Hypothesis>,
        alt: bool,
    ) -> Result<Recognition, VoiceError> {
        if self.grammar.is_none() {
            return Err(no_turn());
        }
        let decoder = pick(&mut self.decoder, &mut self.short, alt);
        let said: Hypothesis = match said {
            Some(said) => said,
            None => decoder.decode(GRAMMAR, samples)?,
        };
        let Some(grammar) = self.grammar.as_ref() else {
            return Err(no_turn());
        };
        let mut heard = grammar.interpret(&said.text);
        let mut ratio = i32::MIN;
        let mut span = i32::MIN;
        let mut wide_words = String::new();
        let mut wide_margin = None;
        let mut unsure = false;
        if heard != Heard::Rejected {
            let phones = decoder.decode(PHONES, samples)?;
            ratio = path_ratio(&said, &phones);
            // A command is one or two short words: judged on its own stretch of audio, with
            // its own threshold (the silence and room noise around it would swamp it).
            let accepted = match heard {
                Heard::Command(c) if ratio < self.threshold => {
                    span = span_ratio(decoder, COMMANDS, &said, samples)?;
                    // "confirm" plays what waits: never on less than an answer needs.
                    let needed = match c {
                        Command::Confirm => self.command_threshold.max(self.answer_threshold),
                        _ => self.command_threshold,
                    };
                    // Under its threshold but near it: read back rather than rejected
                    // (an answer is never read back: it answers a read-back).
                    if span < needed
                        && span >= self.unsure_threshold
                        && !matches!(c, Command::Confirm | Command::Cancel)
                    {
                        unsure = true;
                    }
                    span >= needed || unsure
                }
                // One or two words must account for the loud part however well they score:
                // the silence model absorbs the rest of a sentence ("can I have some water"
                // heard as "confirm"), and an answer is never longer than one.
                Heard::Command(c) => {
                    let loud = loud_frames(samples);
                    ratio >= self.threshold
                        && unexplained(&said, &loud) <= MAX_UNEXPLAINED
                        && (!matches!(c, Command::Confirm | Command::Cancel)
                            || loud_length(&loud) <= MAX_ANSWER_FRAMES)
                }
                _ => ratio >= self.threshold,
            };
            if !accepted {
                heard = Heard::Rejected;
            } else {
                // A try said to a square no man of his can reach sounds like a possible try
                // but one word: the wide grammar (every square to every square, every
                // command) hears what was said; when it hears something else and scores
                // clearly better, the turn grammar forced the words.
                let wide = decoder.decode(WIDE, samples)?;
                if grammar.interpret(&wide.text) != heard {
                    let margin = (i64::from(wide.score) - i64::from(said.score)) * 100
                        / i64::from(speech_frames(&said));
                    wide_margin = i32::try_from(margin).ok();
                    if margin > i64::from(self.wide_margin) {
                        heard = Heard::Rejected;
                    }
                }
                wide_words = wide.text;
            }
        }
        if let (true, Heard::Command(c)) = (unsure, heard) {
            heard = Heard::Unsure(c);
        }
        Ok(Recognition {
            heard,
            words: said.text,
            wide_words,
            wide_margin,
            ratio,
            span_ratio: span,
            answer_ratio: None,
            frames: said.frames,
            ear: None,
            try_ear: None,
            alternatives: Vec::new(),
            raised_db: 0.0,
            took: start.elapsed(),
        })
    }
}

/// The second decoder when `alt` and there is one, else the first.
fn pick<'a>(first: &'a mut Decoder, short: &'a mut Option<Decoder>, alt: bool) -> &'a mut Decoder {
    match short {
        Some(short) if alt => short,
        _ => first,
    }
}

fn no_turn() -> VoiceError {
    VoiceError::Decoder(FfiError("no turn set: call set_turn first".into()))
}

/// The frames of a hypothesis' words (silence frames score alike in both searches and would
/// dilute the ratio of short words such as "any" or "rook"); at least 1.
fn speech_frames(h: &Hypothesis) -> i32 {
    let n: i32 = h
        .segments
        .iter()
        .filter(|s| !s.is_filler())
        .map(|s| (s.end - s.start + 1).max(0))
        .sum();
    n.max(1)
}

/// 100 × (the grammar's path score − the phone loop's) per speech frame.
fn path_ratio(said: &Hypothesis, phones: &Hypothesis) -> i32 {
    let diff =
        (i64::from(said.score) - i64::from(phones.score)) * 100 / i64::from(speech_frames(said));
    i32::try_from(diff).unwrap_or(i32::MIN)
}

/// The frames kept around the loud part of an utterance, and allowed around a word (80 ms).
const SPAN_MARGIN: i32 = 8;

/// The most loud frames the words of a command or an answer may leave unexplained (see
/// [`unexplained`]): 200 ms.
const MAX_UNEXPLAINED: usize = 20;

/// The longest loud part an answer may have: 1 s ("confirm" and "cancel" of the tuning
/// voices, slowed by 12 %, were at most 0.8 s; a try is longer).
const MAX_ANSWER_FRAMES: usize = 100;

/// The frames a path may stop short of the end of the audio and still count as whole.
const END_SLACK: i32 = 3;

/// The path ratio of `search` against the phone loop on the audio cut to its loud part
/// ([`loud_span`]): both searches decode that stretch again, so the silence and room noise
/// around a short word, which the phone loop fits with phones and the grammar only with
/// silence, no longer count against it. `i32::MIN` when the words leave loud speech
/// unexplained, or hear other words on the cut audio.
fn span_ratio(
    decoder: &mut Decoder,
    search: &str,
    said: &Hypothesis,
    samples: &[i16],
) -> Result<i32, VoiceError> {
    // The silence model absorbs speech cheaply, so the ratio alone would not tell a word
    // from a sentence that contains it.
    if unexplained(said, &loud_frames(samples)) > MAX_UNEXPLAINED {
        return Ok(i32::MIN);
    }
    let Some(span) = loud_span(samples) else {
        return Ok(i32::MIN);
    };
    let again = decoder.decode(search, span)?;
    // The same words, on a path through the whole stretch: a grammar that cannot explain
    // the audio ends its best path early, and a partial path's score is no likelihood of
    // the whole.
    let reached = again.segments.last().map_or(0, |s| s.end + 1);
    if again
        .text
        .split_whitespace()
        .ne(said.text.split_whitespace())
        || reached + END_SLACK < again.frames
    {
        return Ok(i32::MIN);
    }
    let phones = decoder.decode(PHONES, span)?;
    Ok(path_ratio(&again, &phones))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ffi::Segment;

    /// The room adaptation on a model of other feature streams is refused before PocketSphinx
    /// reads it, naming the way out (not "enrol again", which is a player's transform's).
    #[test]
    fn the_room_adaptation_on_another_model_names_plain_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("feat.params"), "-svspec 0-38\n").unwrap();
        let model = Model {
            acoustic: dir.path().to_owned(),
            phone_lm: dir.path().join("phone.lm.bin"),
        };
        let e = Recognizer::adapted(&model, Adaptation::Room).unwrap_err();
        let said = e.to_string();
        assert!(said.contains("the room adaptation was made for"), "{said}");
        assert!(said.ends_with("hear with --plain-model"), "{said}");
        assert!(!said.contains("enrol"), "{said}");
    }

    #[test]
    fn a_player_enrolment_replaces_the_room_and_plain_is_asked_for() {
        let p = Path::new("anna.voice");
        assert_eq!(Adaptation::of(Some(p), false), Adaptation::Player(p));
        assert_eq!(Adaptation::of(None, false), Adaptation::Room);
        assert_eq!(Adaptation::of(None, true), Adaptation::Plain);
    }

    /// `quiet` frames of low noise, `loud` frames of a loud tone, `quiet` frames again.
    fn utterance(quiet: usize, loud: usize) -> Vec<i16> {
        let mut s = Vec::new();
        for i in 0..(2 * quiet + loud) * 160 {
            let noise = [30, -20, 10, -40][i % 4];
            let frame = i / 160;
            let tone = if (quiet..quiet + loud).contains(&frame) {
                (f64::from(u32::try_from(i).unwrap()) * 0.2).sin() * 8000.0
            } else {
                0.0
            };
            s.push((tone as i16).saturating_add(noise));
        }
        s
    }

    fn hypothesis(words: &[(&str, i32, i32)]) -> Hypothesis {
        Hypothesis {
            text: words
                .iter()
                .filter(|(w, _, _)| !w.starts_with('<'))
                .map(|(w, _, _)| *w)
                .collect::<Vec<_>>()
                .join(" "),
            score: 0,
            frames: words.last().map_or(0, |w| w.2 + 1),
            segments: words
                .iter()
                .map(|(w, start, end)| Segment {
                    word: (*w).to_owned(),
                    acoustic: 0,
                    start: *start,
                    end: *end,
                })
                .collect(),
        }
    }

    #[test]
    fn the_loud_part_is_found_and_cut_with_its_margin() {
        let s = utterance(50, 40);
        let loud = loud_frames(&s);
        assert_eq!(loud.len(), 140);
        assert_eq!(loud.iter().position(|&l| l), Some(50));
        assert_eq!(loud.iter().rposition(|&l| l), Some(89));
        let span = loud_span(&s).unwrap();
        assert_eq!(span.len(), (40 + 2 * 8) * 160);
        // All quiet: nothing is loud.
        assert_eq!(loud_span(&[0i16; 1600]), None);
        assert_eq!(loud_span(&[]), None);
    }

    /// A word that covers the loud part leaves nothing unexplained; a short word in a long
    /// sentence (the rest heard as silence) leaves the rest.
    #[test]
    fn speech_heard_as_silence_is_unexplained() {
        let loud = loud_frames(&utterance(50, 40));
        let word = hypothesis(&[("<sil>", 0, 49), ("confirm", 50, 89), ("<sil>", 90, 139)]);
        assert_eq!(unexplained(&word, &loud), 0);
        let long = loud_frames(&utterance(20, 150));
        let short = hypothesis(&[("<sil>", 0, 19), ("no", 20, 39), ("<sil>", 40, 189)]);
        assert_eq!(unexplained(&short, &long), 150 - (20 + 16));
        assert!(unexplained(&short, &long) > MAX_UNEXPLAINED);
    }

    #[test]
    fn ratios_per_speech_frame() {
        let mut said = hypothesis(&[("<sil>", 0, 9), ("cancel", 10, 59), ("<sil>", 60, 69)]);
        said.score = -1000;
        let mut phones = hypothesis(&[("SIL", 0, 69)]);
        phones.score = -2000;
        // 100 × 1000 / 50 speech frames.
        assert_eq!(path_ratio(&said, &phones), 2000);
        assert_eq!(speech_frames(&hypothesis(&[("<sil>", 0, 9)])), 1);
    }
}

#[cfg(test)]
mod junk_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn junk_grammars_load() {
        let mut r = Recognizer::new(&Model::default()).unwrap();
        r.set_junk_weight(Some(0.5)).unwrap();
        r.set_turn(&Chess::default(), Color::White).unwrap();
        let rec = r.hear_reply(&[0i16; 16000]).unwrap();
        assert_eq!(rec.heard, Heard::Rejected);
    }
}

#[cfg(test)]
mod room_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Room noise (a fixed pseudo-random sequence) at `level`, with voiced bursts
    /// (harmonics of 140 Hz) in the middle when `voiced`: one second at 16 kHz.
    fn room(level: f64, voiced: bool) -> Vec<i16> {
        let mut seed: u32 = 12345;
        (0..16000)
            .map(|i| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let noise = (f64::from(seed >> 16) / 32768.0 - 1.0) * level;
                let t = f64::from(i) / 16000.0;
                let burst = voiced && (4000..12000).contains(&i);
                let voice = if burst {
                    (1..8)
                        .map(|h| {
                            (std::f64::consts::TAU * 140.0 * f64::from(h) * t).sin() / f64::from(h)
                        })
                        .sum::<f64>()
                        * 6000.0
                } else {
                    0.0
                };
                (noise + voice) as i16
            })
            .collect()
    }

    /// The front end alone ([`Decoder::hear_room`], the warm-up) leaves the noise estimate a
    /// search of the same audio leaves: every later search scores exactly as after a one-word
    /// search, and differently from one that did not hear it first (else this shows nothing).
    #[test]
    fn the_front_end_alone_leaves_the_room_a_search_leaves() {
        let clip = room(1500.0, true);
        let before = room(40.0, false);
        let mut after_search = Recognizer::new(&Model::default()).unwrap();
        let mut after_front_end = Recognizer::new(&Model::default()).unwrap();
        let mut cold = Recognizer::new(&Model::default()).unwrap();
        for r in [&mut after_search, &mut after_front_end, &mut cold] {
            r.decoder.decode(COMMANDS, &before).unwrap();
        }
        after_search
            .decoder
            .set_jsgf("one", "#JSGF V1.0;\ngrammar one;\npublic <one> = any;\n")
            .unwrap();
        after_search.decoder.decode("one", &clip).unwrap();
        after_front_end.decoder.hear_room(&clip).unwrap();
        let heard = |r: &mut Recognizer| {
            let h = r.decoder.decode(PHONES, &clip).unwrap();
            (h.text, h.score, h.frames)
        };
        let (searched, alone, unheard) = (
            heard(&mut after_search),
            heard(&mut after_front_end),
            heard(&mut cold),
        );
        assert_eq!(searched, alone);
        assert_ne!(searched.1, unheard.1, "{searched:?} {unheard:?}");
    }
}
