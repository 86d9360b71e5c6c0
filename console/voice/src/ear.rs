//! The second ear: Moonshine base-en (an encoder-decoder model, [`kriegspiel_moonshine`]),
//! which PocketSphinx consults about three things. It scores "Confirm", "Cancel", "Yes" and
//! "No" against a read-back's answer (docs/VOICE.md, seventh round): PocketSphinx misses short
//! answers in room noise that this model, trained on far more speech, still hears. Each alone
//! takes some chatter for an answer; what PocketSphinx rejected is taken when the ear is sure
//! of it and PocketSphinx's answer grammar, forced to choose, chose the same meaning. It
//! chooses among a try's alternatives ([`AnswerEar::choose`], eighth round) and takes a try
//! PocketSphinx rejected (ninth round). And it hears a free turn's short utterance as one of
//! the commands ([`AnswerEar::hear_command`], tenth round), on the same terms as an answer.
//! And it writes what it heard itself when PocketSphinx's answer is far from its own word
//! ([`AnswerEar::another_word`], fifteenth round): "Conference." is no "confirm".

use std::path::Path;

use kriegspiel_moonshine::{Encoded, Moonshine, MoonshineError};

use crate::grammar::{Command, ANSWERS};
use crate::recognizer::VoiceError;

/// How far the best answer's log-probability must lead the next answer's (the two forms of one
/// meaning, "confirm" and "yes", count apart). Chosen on the tuning set of `benches/heldout.rs`.
pub const DEFAULT_MARGIN: f32 = 3.0;

/// The most doubt ([`kriegspiel_moonshine::Scored::doubt`]) the best answer may carry: chatter
/// and tries said over a read-back are words the model would rather write. Chosen on the
/// tuning set of `benches/heldout.rs`.
pub const DEFAULT_DOUBT: f32 = 1.0;

/// The most doubt of an answer the ear takes when Moonshine, asked to write what it heard,
/// writes that answer itself ("Nope.") or nothing, and no more (seventeenth round). Chatter
/// that close to an answer is written as itself ("Conform,", "Council."), or as an answer
/// with more to come ("Yes," for "yesterday"). Chosen on the tuning set of
/// `benches/heldout.rs`: answers it missed carried up to 1.9, chatter 1.2 and more.
pub const WRITTEN_DOUBT: f32 = 2.0;

/// The punctuation the model writes after a one-word sentence, or none: each answer is scored
/// in every form, and its forms' probabilities summed.
const ENDINGS: [&str; 4] = [".", "", ",", "!"];

/// A command's one form: twelve commands in every form are four times the decoder's work, over
/// the time PocketSphinx takes (docs/VOICE.md, tenth round).
const COMMAND_ENDINGS: [&str; 1] = ["."];

/// What the ear made of an utterance heard as one of a few words (a read-back's answers, or a
/// free turn's commands).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarHeard {
    /// The word's meaning when the ear is sure of it (its margin and doubt within the ear's
    /// limits, or an answer doubted up to [`WRITTEN_DOUBT`] that Moonshine writes itself); the
    /// recogniser takes it only when PocketSphinx [agrees](EarHeard::agrees).
    pub answer: Option<Command>,
    /// Whether that answer was taken only because Moonshine writes it itself (its doubt over
    /// the ear's own limit): enough to take it, not to overrule another command.
    pub written: bool,
    /// The best-scored word ("confirm", "yes", "my men", ...), taken or not, and what it means.
    pub best: &'static str,
    pub meaning: Command,
    /// Its lead over the next word, in natural log units.
    pub margin: f32,
    /// Its doubt (its best form's), less the model's wish to write nothing at all
    /// ([`kriegspiel_moonshine::Scored::silence`]).
    pub doubt: f32,
    /// Whether PocketSphinx's grammar, forced to choose, chose the same meaning (the
    /// recogniser's to say: the answer grammar in [`crate::Recognizer::hear_reply`], the
    /// turn's grammar in [`crate::Recognizer::hear`]): the ear's word counts only then.
    pub agrees: bool,
    /// Whether the best word is far from what Moonshine would write (its doubt over the ear's
    /// veto: [`DEFAULT_ANSWER_VETO`] for a read-back's answers, [`DEFAULT_COMMAND_VETO`] for a
    /// free turn's commands, other limits on benches): a "confirm" or "cancel" PocketSphinx
    /// took is then dropped as chatter.
    pub far: bool,
    /// Whether Moonshine, far from this word, wrote one other word itself with confidence
    /// ([`AnswerEar::another_word`]): a "confirm" or "cancel" PocketSphinx took in a read-back
    /// is then dropped as chatter ("conference").
    pub other: bool,
}

/// Moonshine hearing answers, commands and tries, with its acceptance limits.
pub struct AnswerEar {
    model: Moonshine,
    margin: f32,
    doubt: f32,
    try_margin: f32,
    rescue: Sureness,
    command: Sureness,
    veto: f32,
    command_veto: f32,
    other_doubt: f32,
    written_doubt: f32,
    yes: Sureness,
    /// The last utterance [`AnswerEar::choose`] heard, and each of its tries' score and doubt:
    /// what [`AnswerEar::against`] weighs a rival against without hearing it again.
    chosen: Option<(Encoded, Vec<(f32, f32)>)>,
    /// The last utterance heard as an answer or a command: what [`AnswerEar::another_word`]
    /// writes out without encoding it again.
    last: Option<Encoded>,
}

impl std::fmt::Debug for AnswerEar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerEar")
            .field("margin", &self.margin)
            .field("doubt", &self.doubt)
            .finish_non_exhaustive()
    }
}

impl AnswerEar {
    /// Where the model is looked for: `$KRIEGSPIEL_MOONSHINE`, else
    /// `~/.local/share/kriegspiel/moonshine-base-en` (what `console/voice/fetch-moonshine.sh`
    /// fills).
    pub fn default_dir() -> std::path::PathBuf {
        Moonshine::default_dir()
    }

    /// Opens Moonshine's model in `dir` (see [`Moonshine::default_dir`]), on one thread: it
    /// hears beside PocketSphinx, which has the other core.
    pub fn open(dir: &Path) -> Result<AnswerEar, VoiceError> {
        let model = Moonshine::open(dir, 1).map_err(model_error)?;
        Ok(AnswerEar {
            model,
            margin: DEFAULT_MARGIN,
            doubt: DEFAULT_DOUBT,
            try_margin: DEFAULT_TRY_MARGIN,
            rescue: Sureness::RESCUE,
            command: Sureness::COMMANDS,
            veto: DEFAULT_ANSWER_VETO,
            command_veto: DEFAULT_COMMAND_VETO,
            other_doubt: OTHER_WORD_DOUBT,
            written_doubt: WRITTEN_DOUBT,
            yes: Sureness::YES,
            chosen: None,
            last: None,
        })
    }

    /// The same ear with other limits (benches and tuning).
    pub fn with_limits(mut self, margin: f32, doubt: f32) -> AnswerEar {
        self.margin = margin;
        self.doubt = doubt;
        self
    }

    /// The same ear with another doubt over which an answer PocketSphinx took is dropped
    /// (benches).
    pub fn with_answer_veto(mut self, doubt: f32) -> AnswerEar {
        self.veto = doubt;
        self
    }

    /// The same ear with another doubt over which a free turn's "confirm" or "cancel"
    /// PocketSphinx took is dropped (benches).
    pub fn with_command_veto(mut self, doubt: f32) -> AnswerEar {
        self.command_veto = doubt;
        self
    }

    /// The same ear with other limits for a "yes" PocketSphinx took ([`Sureness::YES`]), on
    /// benches and tests.
    pub fn with_yes(mut self, yes: Sureness) -> AnswerEar {
        self.yes = yes;
        self
    }

    /// Whether the ear, too, is sure a read-back's answer was "yes" ([`Sureness::YES`]).
    pub fn sure_of_yes(&self, heard: &EarHeard) -> bool {
        heard.best == "yes" && self.yes.of(heard.margin, heard.doubt)
    }

    /// The same ear with another doubt over which it writes out what it heard
    /// ([`AnswerEar::another_word`]; `f32::MAX`: never), on benches and tests.
    pub fn with_other_word_doubt(mut self, doubt: f32) -> AnswerEar {
        self.other_doubt = doubt;
        self
    }

    /// The same ear with another doubt up to which an answer Moonshine writes itself is taken
    /// ([`WRITTEN_DOUBT`]; the answers' own doubt: never), on benches.
    pub fn with_written_doubt(mut self, doubt: f32) -> AnswerEar {
        self.written_doubt = doubt;
        self
    }

    /// The same ear with another lead required to replace PocketSphinx's try (benches).
    pub fn with_try_margin(mut self, lead: f32) -> AnswerEar {
        self.try_margin = lead;
        self
    }

    /// The same ear with other limits for taking a try PocketSphinx rejected (benches).
    pub fn with_rescue(mut self, rescue: Sureness) -> AnswerEar {
        self.rescue = rescue;
        self
    }

    /// The same ear with other limits for a free turn's commands (benches).
    pub fn with_command_limits(mut self, limits: Sureness) -> AnswerEar {
        self.command = limits;
        self
    }

    /// Its limits for taking a try PocketSphinx rejected.
    pub fn rescue(&self) -> Sureness {
        self.rescue
    }

    /// Hears `samples` (16 kHz mono) as an answer, or not.
    pub fn hear(&mut self, samples: &[i16]) -> Result<EarHeard, VoiceError> {
        let sure = Sureness {
            margin: self.margin,
            doubt: self.doubt,
        };
        let mut heard = self.hear_among(samples, &ANSWERS, &ENDINGS, sure)?;
        heard.far = heard.doubt > self.veto;
        if heard.answer.is_none()
            && heard.margin >= self.margin
            && heard.doubt <= self.written_doubt
            && self.writes(heard.meaning)?
        {
            heard.answer = Some(heard.meaning);
            heard.written = true;
        }
        Ok(heard)
    }

    /// Whether Moonshine, writing one word for the last utterance heard, writes an answer of
    /// this meaning or nothing, and would write no more.
    fn writes(&mut self, meaning: Command) -> Result<bool, VoiceError> {
        Ok(self
            .written()?
            .is_some_and(|(word, _)| word.is_empty() || answer_form(&word) == Some(meaning)))
    }

    /// The one word Moonshine writes for the last utterance heard (lower case, without its
    /// punctuation) and its log-probability; `None` when it would write more, or heard none.
    fn written(&mut self) -> Result<Option<(String, f32)>, VoiceError> {
        let Some(last) = self.last.as_ref() else {
            return Ok(None);
        };
        let written = self.model.transcribe(last, 1).map_err(model_error)?;
        let word = written
            .text
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '\'')
            .collect::<String>()
            .to_lowercase();
        Ok(written.complete.then_some((word, written.log_prob)))
    }

    /// Hears `samples` as one of the commands of a free turn, or not (docs/VOICE.md, tenth
    /// round): PocketSphinx rejects short commands in room noise that it heard rightly.
    pub fn hear_command(&mut self, samples: &[i16]) -> Result<EarHeard, VoiceError> {
        let words = Command::ALL.map(|c| (c.words(), c));
        let sure = self.command;
        let mut heard = self.hear_among(samples, &words, &COMMAND_ENDINGS, sure)?;
        heard.far = heard.doubt > self.command_veto;
        Ok(heard)
    }

    /// Whether a free turn's "confirm" or "cancel" the ear is sure of ([`EarHeard::answer`])
    /// with a doubt of at most [`FREE_ANSWER_DOUBT`] is one Moonshine, writing one word for
    /// it, writes itself (docs/VOICE.md, eighteenth round).
    pub fn writes_answer(&mut self, heard: &EarHeard) -> Result<bool, VoiceError> {
        match heard.answer {
            Some(meaning @ (Command::Confirm | Command::Cancel))
                if heard.doubt <= FREE_ANSWER_DOUBT =>
            {
                Ok(self
                    .written()?
                    .is_some_and(|(word, _)| answer_form(&word) == Some(meaning)))
            }
            _ => Ok(false),
        }
    }

    /// Whether Moonshine, far from `heard`'s word (its doubt over [`OTHER_WORD_DOUBT`] but on
    /// benches), would itself write one other word for the last utterance heard, with
    /// confidence (its log-probability at least [`OTHER_WORD_SURE`]): "Conference." where
    /// PocketSphinx took "confirm" (docs/VOICE.md, fifteenth round). A word that is an answer written otherwise
    /// ("Cancelled.", "Nope.") is none; nor is a sentence, or silence.
    pub fn another_word(&mut self, heard: &EarHeard) -> Result<bool, VoiceError> {
        if heard.doubt <= self.other_doubt {
            return Ok(false);
        }
        Ok(self.written()?.is_some_and(|(word, log_prob)| {
            log_prob >= OTHER_WORD_SURE && !word.is_empty() && answer_form(&word).is_none()
        }))
    }

    /// The best of `words` (each with every one of `endings`, its forms' probabilities
    /// summed), taken as `sure` says.
    fn hear_among(
        &mut self,
        samples: &[i16],
        words: &[(&'static str, Command)],
        endings: &[&str],
        sure: Sureness,
    ) -> Result<EarHeard, VoiceError> {
        let heard = self.model.encode(samples).map_err(model_error)?;
        let forms: Vec<String> = words
            .iter()
            .flat_map(|(word, _)| {
                endings
                    .iter()
                    .map(move |end| format!("{}{end}", capital(word)))
            })
            .collect();
        let texts: Vec<&str> = forms.iter().map(String::as_str).collect();
        self.last = None;
        let scored = self.model.score(&heard, &texts).map_err(model_error)?;
        self.last = Some(heard);
        // Each word: its forms' probabilities summed (log-sum-exp), and its best form's doubt.
        let each: Vec<(f32, f32)> = scored
            .chunks(endings.len().max(1))
            .map(|forms| {
                let top = forms.iter().map(|s| s.log_prob).fold(f32::MIN, f32::max);
                let sum = top
                    + forms
                        .iter()
                        .map(|s| (s.log_prob - top).exp())
                        .sum::<f32>()
                        .ln();
                // Moonshine often hears nothing in a short word said in room noise: that is no
                // doubt between the words (sixteenth round). A try's doubt keeps it: its limits
                // were chosen with it, and one more wrong try passed without.
                let doubt = forms
                    .iter()
                    .find(|s| s.log_prob == top)
                    .map_or(f32::MAX, |s| s.doubt - s.silence);
                (sum, doubt)
            })
            .collect();
        let sums: Vec<f32> = each.iter().map(|w| w.0).collect();
        let Some((best, lead, &(word, meaning))) =
            leader(&sums).and_then(|(b, lead)| Some((b, lead, words.get(b)?)))
        else {
            return Err(VoiceError::Model("Moonshine scored no words".into()));
        };
        let best_doubt = each[best].1;
        Ok(EarHeard {
            answer: sure.of(lead, best_doubt).then_some(meaning),
            written: false,
            best: word,
            meaning,
            margin: lead,
            doubt: best_doubt,
            agrees: false,
            far: false,
            other: false,
        })
    }
}

/// The doubt over which an answer PocketSphinx took in a read-back is dropped (docs/VOICE.md,
/// eleventh round): on the tuning set, the answers it took carried 7.9 or less, chatter it
/// took for one 10.3 to 18.2 ("one hundred" as "confirm"); answers said in room noise reach
/// 10 (seventh round), so the limit leaves them room.
pub const DEFAULT_ANSWER_VETO: f32 = 12.0;

/// The doubt over which the ear asks what Moonshine would write itself
/// ([`AnswerEar::another_word`]). Answers said carried more only in room noise, where
/// Moonshine mostly writes nothing or a muddle; chatter PocketSphinx took for an answer 6.0 or
/// more ("pencil", "conference", "castle"). First seen on the held-out clips' transcripts,
/// checked on the tuning set (docs/VOICE.md, fifteenth round).
pub const OTHER_WORD_DOUBT: f32 = 6.0;

/// The least log-probability of Moonshine's own word for it to count: chatter's words were
/// written at −1.6 or more; of the words it wrote for answers said in noise, one ("Concerned."
/// for "confirm" at 20 dB, −1.55) was over it, the rest at −2.9 or less.
pub const OTHER_WORD_SURE: f32 = -2.0;

/// An answer written otherwise: never another word.
const ANSWER_FORMS: [(&str, Command); 11] = [
    ("confirm", Command::Confirm),
    ("confirmed", Command::Confirm),
    ("yes", Command::Confirm),
    ("yeah", Command::Confirm),
    ("yep", Command::Confirm),
    ("cancel", Command::Cancel),
    ("cancelled", Command::Cancel),
    ("canceled", Command::Cancel),
    ("no", Command::Cancel),
    ("nope", Command::Cancel),
    ("nah", Command::Cancel),
];

/// The answer `word` (lower case, no punctuation) is a written form of.
fn answer_form(word: &str) -> Option<Command> {
    ANSWER_FORMS
        .iter()
        .find(|(form, _)| *form == word)
        .map(|&(_, meaning)| meaning)
}

/// The most doubt of a free turn's "confirm" or "cancel" PocketSphinx chose but doubted, for
/// the ear to take it when Moonshine writes it too ([`AnswerEar::writes_answer`]): a read-back
/// answer's [`DEFAULT_DOUBT`]. Nothing waits in a free turn for either, and their near
/// neighbours come close: flite's `kal` saying "conform" carried 2.0 and was written
/// "Confirm"; "pencil" 4.9 in pink noise.
pub const FREE_ANSWER_DOUBT: f32 = DEFAULT_DOUBT;

/// The doubt over which a "confirm" or "cancel" PocketSphinx took in a free turn is dropped
/// (docs/VOICE.md, fifteenth round). The commands are scored in one written form, so their
/// doubts run higher than the answers' four: the ones said carried at most 13.7 on the three
/// sets (tuning, held out, espeak-ng), chatter taken for one 15.1 ("happy" as "cancel") and
/// 17.7 ("confused" as "confirm"). Nothing waits in a free turn for either to act on, so a
/// real one dropped costs the player nothing, and chatter never passes for one.
pub const DEFAULT_COMMAND_VETO: f32 = 15.0;

/// How far Moonshine's favourite among a try's alternatives must lead PocketSphinx's own try
/// for the recogniser to take it instead; under it, from [`TORN_MARGIN`], no try is taken.
/// Chosen on the tuning set of `benches/heldout.rs` (docs/VOICE.md, twentieth round): the
/// tries the ear took by a lead of 2 to 4 were as often wrong as right (three of each), those
/// it took by more, right 17 times in 18.
pub const DEFAULT_TRY_MARGIN: f32 = 4.0;

/// How far the ear must prefer a try to PocketSphinx's for the two to disagree, and lead
/// every other alternative for its own to replace PocketSphinx's (docs/VOICE.md, eighteenth
/// round). Where PocketSphinx's try lost by less than [`DEFAULT_TRY_MARGIN`], or by more but
/// the ear hesitated between two others, each judge's try was as often wrong as right
/// ("queen b two to b four" for "b two to d four"; "a one to e one" for "a one to d one",
/// with "a one to d one" next): no try is taken, and the player says it again rather than
/// hear a try he did not say read back.
pub const TORN_MARGIN: f32 = 1.0;

/// How far the try said in letters that the ear prefers must lead every other alternative in
/// its scores to be taken: PocketSphinx's (docs/VOICE.md, twenty-first round), or the ear's
/// own in its place (twenty-fourth round: taken by 1.1 and 1.4, both wrong).
/// Letters that sound alike (b, d, e, g) are where both judges err; a try the ear cannot tell
/// from another by this much was as often wrong as right on voices neither was tuned on
/// (espeak-ng's twelve: 12 of each under it; flite's and festival's: 2 wrong, 14 right), and
/// a wrong try read back costs more than a missed one: no try is taken, and the player says
/// it again (or in NATO names, which this does not touch).
pub const LETTERS_LEAD: f32 = 2.0;

/// The most doubt of the ear's try for it to replace PocketSphinx's (docs/VOICE.md,
/// eighteenth round): chatter PocketSphinx forced onto a try, where the ear preferred another,
/// carried 36.4 and 39.0 ("is anyone there", "eighty seven" by espeak-ng's voices); the tries
/// it took rightly on the tuning set, 33.4 at most. Over it, no try is taken.
pub const TRY_VETO: f32 = 35.0;

/// How sure the ear must be of its word to be taken: its lead over the next, and the most
/// doubt ([`kriegspiel_moonshine::Scored::doubt`]) of its best form. Chatter is words the
/// model would rather write, so the doubt is the chatter guard; the lead, the guard against
/// a near neighbour. Each set was chosen on the tuning set of `benches/heldout.rs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sureness {
    /// The least lead over the next candidate, in natural log units.
    pub margin: f32,
    /// The most doubt of the best candidate's best form.
    pub doubt: f32,
}

impl Sureness {
    /// A try PocketSphinx rejected (docs/VOICE.md, ninth round): chatter forced onto a try
    /// had a doubt of 23.5 or more on the tuning set, the rejected tries it took rightly 15 or
    /// less.
    pub const RESCUE: Sureness = Sureness {
        margin: 2.0,
        doubt: 15.0,
    };

    /// A free turn's command PocketSphinx rejected or would read back (docs/VOICE.md, tenth
    /// round): a doubt of 12 took "no" for "knight" and "conference" for "confirm". A lead
    /// of 3 let "bishop" through as "cancel" while the ear could take "confirm" and "cancel"
    /// there; without them, the tuning set's right commands led by 1.9 and more, a wrong one
    /// ("queen" as "any") by 1.6, so the lead is the answers' 3 (seventeenth round; 4 before).
    pub const COMMANDS: Sureness = Sureness {
        margin: 3.0,
        doubt: 10.0,
    };

    /// Enough to stop the answer PocketSphinx took in a read-back when the ear's best is the
    /// other one (docs/VOICE.md, fifteenth round): looser than taking an answer, since the
    /// read-back then waits. On the four sets' dumps it stops "confirm" heard as "cancel" (a
    /// lead of 3.4 to 12, doubt 0 to 3.6) and no answer PocketSphinx heard rightly.
    pub const CONTRADICTION: Sureness = Sureness {
        margin: 3.0,
        doubt: 4.0,
    };

    /// A "yes" PocketSphinx's answer grammar took in a read-back (docs/VOICE.md,
    /// twenty-second round): "yellow" taken for it was barely preferred by the ear (a lead of
    /// 0.7 and 2.5, doubts 5.4 and 3.6), every "yes" rightly taken led by 5.5 or more with a
    /// doubt of 1.7 or less.
    pub const YES: Sureness = Sureness {
        margin: 3.0,
        doubt: 2.0,
    };

    /// Whether a candidate with this lead and doubt is sure enough.
    pub fn of(self, lead: f32, doubt: f32) -> bool {
        lead >= self.margin && doubt <= self.doubt
    }
}

/// What the ear made of a try's alternatives ([`AnswerEar::choose`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EarChoice {
    /// The alternative Moonshine scored best.
    pub best: usize,
    /// Its log-probability's lead over the first alternative (PocketSphinx's own), 0 when it
    /// is that one.
    pub lead: f32,
    /// Its lead over the next best alternative (`f32::MAX` when it is alone).
    pub margin: f32,
    /// The doubt of its best form.
    pub doubt: f32,
    /// Whether the recogniser took it in place of PocketSphinx's try.
    pub taken: bool,
    /// Whether the recogniser took it although PocketSphinx rejected the utterance.
    pub rescued: bool,
    /// Whether it led PocketSphinx's try by [`TORN_MARGIN`] without being taken (by less
    /// than the lead to replace it, another alternative by less than [`TORN_MARGIN`], or its
    /// doubt over [`TRY_VETO`]): the judges disagree, and the recogniser takes no try. Also
    /// set by the recogniser when PocketSphinx's try, said in letters, did not lead every
    /// other by [`LETTERS_LEAD`] ([`EarChoice::first_lead`]).
    pub torn: bool,
    /// Each alternative's log-probability (its best form's), in the order scored; after
    /// [`AnswerEar::against`], the wide grammar's words last (`best` may be that one).
    pub scores: Vec<f32>,
}

impl AnswerEar {
    /// Scores `phrases`, `forms` consecutive ones per try (PocketSphinx's try first, then
    /// its alternatives, each in the same file-name schemes), as the transcript of `samples`;
    /// a try scores its best form. Letters that sound alike (b, d, e, g) are where
    /// PocketSphinx errs with confidence; a model trained on far more speech tells them apart
    /// (docs/VOICE.md, eighth round).
    pub fn choose(
        &mut self,
        samples: &[i16],
        phrases: &[&str],
        forms: usize,
    ) -> Result<EarChoice, VoiceError> {
        self.chosen = None;
        let heard = self.model.encode(samples).map_err(model_error)?;
        let tries = self.best_forms(&heard, phrases, forms)?;
        let choice = self.choice_among(&tries)?;
        self.chosen = Some((heard, tries));
        Ok(choice)
    }

    /// The last [`AnswerEar::choose`] again with one more try, `rival` (all its forms), scored
    /// on the same hearing: what the wide grammar heard, when it rejected PocketSphinx's try
    /// (docs/VOICE.md, ninth round). The rival is the last index. Once per choice.
    pub fn against(&mut self, rival: &[&str]) -> Result<EarChoice, VoiceError> {
        let Some((heard, mut tries)) = self.chosen.take() else {
            return Err(VoiceError::Model(
                "the second ear: nothing chosen to weigh".into(),
            ));
        };
        tries.extend(self.best_forms(&heard, rival, rival.len())?);
        self.choice_among(&tries)
    }

    /// Each try's best form among its `forms` consecutive phrases: its log-probability and
    /// that form's doubt.
    fn best_forms(
        &mut self,
        heard: &Encoded,
        phrases: &[&str],
        forms: usize,
    ) -> Result<Vec<(f32, f32)>, VoiceError> {
        let scored = self.model.score(heard, phrases).map_err(model_error)?;
        Ok(scored
            .chunks(forms.max(1))
            .map(|f| {
                f.iter()
                    .map(|s| (s.log_prob, s.doubt))
                    .fold((f32::MIN, f32::MAX), |a, b| if b.0 > a.0 { b } else { a })
            })
            .collect())
    }

    fn choice_among(&self, tries: &[(f32, f32)]) -> Result<EarChoice, VoiceError> {
        let sums: Vec<f32> = tries.iter().map(|t| t.0).collect();
        let Some((best, margin)) = leader(&sums) else {
            return Err(VoiceError::Model("Moonshine scored no phrases".into()));
        };
        let lead = sums[best] - sums[0];
        let taken = best != 0
            && lead >= self.try_margin
            && margin >= TORN_MARGIN
            && tries[best].1 <= TRY_VETO;
        Ok(EarChoice {
            best,
            lead,
            margin,
            doubt: tries[best].1,
            taken,
            rescued: false,
            torn: best != 0 && lead >= TORN_MARGIN && !taken,
            scores: sums,
        })
    }
}

impl EarChoice {
    /// How far the ear scores PocketSphinx's try (the first) above every other alternative:
    /// negative when it prefers another, `f32::MAX` when there is no other.
    pub fn first_lead(&self) -> f32 {
        match self.scores.split_first() {
            Some((first, rest)) if !rest.is_empty() => {
                first - rest.iter().copied().fold(f32::MIN, f32::max)
            }
            _ => f32::MAX,
        }
    }
}

/// The highest score's index and its lead over the next (`f32::MAX` when it is alone).
fn leader(scores: &[f32]) -> Option<(usize, f32)> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    match order.as_slice() {
        [best, next, ..] => Some((*best, scores[*best] - scores[*next])),
        [best] => Some((*best, f32::MAX)),
        [] => None,
    }
}

fn capital(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|first| first.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn model_error(e: MoonshineError) -> VoiceError {
    VoiceError::Model(format!("the second ear: {e}"))
}
