//! A read-back's answer: PocketSphinx's answer grammar first, then the turn's grammar, and the
//! second ear ([`crate::ear`]) beside them.

use std::time::Instant;

use crate::ear::{EarHeard, Sureness};
use crate::level::raise_quiet;

use super::{
    answer_of, loud_frames, loud_length, no_turn, pick, span_ratio, unexplained,
    without_long_silence, Command, Heard, Hypothesis, Recognition, Recognizer, VoiceError, ANSWER,
    GRAMMAR, MAX_ANSWER_FRAMES, MAX_UNEXPLAINED,
};

impl Recognizer {
    /// Hears one utterance while a read-back waits for "confirm" or "cancel"
    /// ([`crate::VoiceChannel::pending`]). The read-back's own grammar (confirm, cancel, yes,
    /// no) is tried first, against the phone loop with its own threshold; when it rejects,
    /// the utterance is heard as in a free turn, so a new try still replaces the pending one
    /// (and "confirm" or "cancel" may still be heard there), but a faint command
    /// ([`Heard::Unsure`]) is rejected. With a second ear ([`Recognizer::set_ear`]), what is
    /// rejected may still be an answer.
    pub fn hear_reply(&mut self, samples: &[i16]) -> Result<Recognition, VoiceError> {
        let start = Instant::now();
        if self.grammar.is_none() {
            return Err(no_turn());
        }
        let raised = raise_quiet(samples);
        let samples = without_long_silence(raised.samples.as_ref());
        self.warm(samples)?;
        // The second ear hears on the other core while PocketSphinx decodes (so that the
        // player waits for the slower of the two, not both); its answer is used only when
        // PocketSphinx rejected the utterance, and only if it is sure and PocketSphinx's
        // answer grammar, forced to choose, chose the same meaning (either alone took
        // chatter: docs/VOICE.md, seventh round).
        // Nor is it asked about what is too long to be an answer (a try, a sentence).
        let short = loud_length(&loud_frames(samples)) <= MAX_ANSWER_FRAMES;
        let (by_sphinx, by_ear) = self.beside_ear(
            short,
            |ear| ear.hear(samples),
            |rec| rec.reply_by_pocketsphinx(samples, start),
        );
        let (mut rec, forced) = by_sphinx?;
        // An utterance the ear cannot take (too long) or a failure of its own is no opinion.
        if let Some(mut heard) = by_ear {
            heard.agrees = forced == Some(heard.meaning);
            match rec.heard {
                Heard::Rejected if heard.agrees => {
                    if let Some(command) = heard.answer {
                        rec.heard = Heard::Command(command);
                    }
                }
                // An answer Moonshine would be far from writing is chatter PocketSphinx forced
                // onto one ("confused" heard as "confirm"): the read-back still waits.
                Heard::Command(Command::Confirm | Command::Cancel) if heard.far => {
                    rec.heard = Heard::Rejected;
                }
                // The answer grammar and a sure ear agree on one answer where the turn's
                // grammar, which has no "yes" or "no", took the other ("yes" heard as
                // "cancel"): two judges of three (docs/VOICE.md, fourteenth round).
                Heard::Command(taken @ (Command::Confirm | Command::Cancel))
                    if heard.agrees && heard.answer.is_some_and(|a| a != taken) =>
                {
                    rec.heard = Heard::Command(heard.meaning);
                }
                // And where the turn's grammar took another command ("yes" heard as
                // "knight"), when the ear is sure by its own limits, not only because
                // Moonshine writes the answer ("bishop" heard as "yes"): eighteenth round.
                Heard::Command(other)
                    if !matches!(other, Command::Confirm | Command::Cancel)
                        && heard.agrees
                        && heard.answer.is_some()
                        && !heard.written =>
                {
                    rec.heard = Heard::Command(heard.meaning);
                }
                // PocketSphinx's grammars took one answer and the ear, fairly sure, the other
                // ("confirm" in a Caribbean voice heard as "cancel"): neither is taken, the
                // read-back still waits (fifteenth round). "Cancel" taken for "confirm" would
                // play it.
                // (The ear hears a read-back's utterance only as one of the answers.)
                Heard::Command(taken @ (Command::Confirm | Command::Cancel))
                    if heard.meaning != taken
                        && Sureness::CONTRADICTION.of(heard.margin, heard.doubt) =>
                {
                    rec.heard = Heard::Rejected;
                }
                _ => {}
            }
            // "Yes", the shortest answer, has neighbours in chatter that both judges hear as
            // it ("yellow": PocketSphinx's answer grammar sure, the ear barely preferring
            // "yes"): a "yes" PocketSphinx took stands only when the ear is sure of it too
            // (twenty-second round).
            if matches!(rec.heard, Heard::Command(Command::Confirm))
                && rec.words == "yes"
                && !self.ear.as_ref().is_some_and(|ear| ear.sure_of_yes(&heard))
            {
                rec.heard = Heard::Rejected;
            }
            // One PocketSphinx took that Moonshine, far from it, writes as one other word
            // ("Conference.") is chatter too (fifteenth round).
            if matches!(
                rec.heard,
                Heard::Command(Command::Confirm | Command::Cancel)
            ) {
                heard.other = self.another_word(&heard);
                if heard.other {
                    rec.heard = Heard::Rejected;
                }
            }
            rec.ear = Some(heard);
        }
        rec.raised_db = raised.gain_db;
        rec.took = start.elapsed();
        Ok(rec)
    }

    /// [`crate::AnswerEar::another_word`] about the last utterance the ear heard; a failure
    /// of its own is no opinion.
    fn another_word(&mut self, heard: &EarHeard) -> bool {
        self.ear
            .as_mut()
            .is_some_and(|ear| ear.another_word(heard).unwrap_or(false))
    }

    /// [`Recognizer::hear_reply`] by PocketSphinx alone, and what its answer grammar heard
    /// when it was asked (forced to choose one answer).
    fn reply_by_pocketsphinx(
        &mut self,
        samples: &[i16],
        start: Instant,
    ) -> Result<(Recognition, Option<Command>), VoiceError> {
        // A try (heard by the first decoder, as in a free turn) is no answer.
        if self.short.is_some() {
            if let Some(said) = self.try_heard(samples)? {
                // The ear, when it is not hearing an answer, chooses among the try's
                // alternatives as in a free turn.
                return Ok((self.hear_try(samples, start, said)?, None));
            }
        }
        let alt = self.short.is_some();
        let answer = pick(&mut self.decoder, &mut self.short, alt).decode(ANSWER, samples)?;
        let mut answer_ratio = None;
        // The turn's grammar's hearing, when the answer check needed it: not decoded twice.
        let mut turn = None;
        if let Some(command) = answer_of(&answer.text) {
            if self.is_answer(&answer, command, samples, &mut turn, alt)? {
                let span = span_ratio(
                    pick(&mut self.decoder, &mut self.short, alt),
                    ANSWER,
                    &answer,
                    samples,
                )?;
                answer_ratio = Some(span);
                if span >= self.answer_threshold {
                    let rec = Recognition {
                        heard: Heard::Command(command),
                        ratio: span,
                        span_ratio: span,
                        answer_ratio,
                        words: answer.text,
                        frames: answer.frames,
                        wide_words: String::new(),
                        wide_margin: None,
                        ear: None,
                        try_ear: None,
                        alternatives: Vec::new(),
                        raised_db: 0.0,
                        took: start.elapsed(),
                    };
                    return Ok((rec, Some(command)));
                }
            }
        }
        let forced = answer_of(&answer.text);
        let mut rec = self.hear_turn(samples, start, turn, alt)?;
        rec.answer_ratio = answer_ratio;
        // A faint command is never read back over a read-back that waits: it would drop it.
        if let Heard::Unsure(_) = rec.heard {
            rec.heard = Heard::Rejected;
        }
        Ok((rec, forced))
    }

    /// Whether what the answer grammar heard may be an answer at all: one short word (the
    /// loud part of the audio at most [`MAX_ANSWER_FRAMES`]) that the turn's grammar does not
    /// hear as a try, nor as another command. A new try forced onto "confirm" would play the
    /// try read back: the turn's grammar, where tries, commands and answers compete, must not
    /// hear a try; and "rebuffs", "queen" or "offer draw" said while a read-back waits were
    /// forced onto "confirm" too (docs/VOICE.md, third round).
    fn is_answer(
        &mut self,
        answer: &Hypothesis,
        command: Command,
        samples: &[i16],
        turn: &mut Option<Hypothesis>,
        alt: bool,
    ) -> Result<bool, VoiceError> {
        let loud = loud_frames(samples);
        if loud_length(&loud) > MAX_ANSWER_FRAMES || unexplained(answer, &loud) > MAX_UNEXPLAINED {
            return Ok(false);
        }
        let said = pick(&mut self.decoder, &mut self.short, alt).decode(GRAMMAR, samples)?;
        let other = self
            .grammar
            .as_ref()
            .is_some_and(|g| match g.interpret(&said.text) {
                Heard::Try(_) => true,
                Heard::Command(c) => c != command,
                Heard::Unsure(_) | Heard::Rejected => false,
            });
        *turn = Some(said);
        Ok(!other)
    }
}
