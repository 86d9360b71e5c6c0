//! A free turn's command, heard by PocketSphinx's second decoder and by the second ear
//! ([`crate::ear`]) beside it (docs/VOICE.md, tenth round).

use std::time::Instant;

use crate::ear::EarHeard;

use super::{loud_frames, loud_length, Command, Heard, Recognition, Recognizer, VoiceError};

/// The longest loud part the ear hears as a command: 1.5 s ("offer draw" of a slow voice;
/// longer is a sentence, which the ear is not asked about).
const MAX_COMMAND_FRAMES: usize = 150;

impl Recognizer {
    /// What the first decoder does not hear as a try: the turn's grammar on the second
    /// decoder, while the ear, when the utterance is at most [`MAX_COMMAND_FRAMES`] loud,
    /// hears it as one of the commands. A command PocketSphinx's grammar chose but rejected
    /// (by the phone loop or the wide grammar) or would read back is taken when the ear is
    /// sure of the same command (either alone takes chatter: docs/VOICE.md, seventh round),
    /// "confirm" and "cancel" only when Moonshine writes them too (eighteenth round); these
    /// PocketSphinx took are dropped when the ear is far from writing any command, or sure of
    /// another (fifteenth round).
    pub(super) fn hear_not_try(
        &mut self,
        samples: &[i16],
        start: Instant,
    ) -> Result<Recognition, VoiceError> {
        let short = loud_length(&loud_frames(samples)) <= MAX_COMMAND_FRAMES;
        let (by_sphinx, by_ear) = self.beside_ear(
            short,
            |ear| ear.hear_command(samples),
            |rec| rec.hear_turn(samples, start, None, true),
        );
        let mut rec = by_sphinx?;
        let forced = self.grammar.as_ref().map(|g| g.interpret(&rec.words));
        if let Some(mut heard) = by_ear {
            heard.agrees = forced == Some(Heard::Command(heard.meaning));
            let doubted = matches!(rec.heard, Heard::Rejected | Heard::Unsure(_));
            // Chatter ("conference", "pencil") is the near neighbour of "confirm" and
            // "cancel": those only when Moonshine also writes them itself (eighteenth round).
            let take = doubted
                && heard.agrees
                && match heard.answer {
                    Some(Command::Confirm | Command::Cancel) => self.ear_writes(&heard),
                    Some(_) => true,
                    None => false,
                };
            if take {
                rec.heard = Heard::Command(heard.meaning);
            }
            // And one PocketSphinx took is dropped when Moonshine is far from writing any
            // command ("confused" heard as "confirm") or sure of another ("confirm" in a
            // Caribbean voice heard as "cancel"): fifteenth round.
            if let Heard::Command(taken @ (Command::Confirm | Command::Cancel)) = rec.heard {
                if heard.far || heard.answer.is_some_and(|c| c != taken) {
                    rec.heard = Heard::Rejected;
                }
            }
            rec.ear = Some(heard);
        }
        rec.took = start.elapsed();
        Ok(rec)
    }

    /// [`crate::AnswerEar::writes_answer`] about the last utterance the ear heard; a failure
    /// of its own is no opinion.
    fn ear_writes(&mut self, heard: &EarHeard) -> bool {
        self.ear
            .as_mut()
            .is_some_and(|ear| ear.writes_answer(heard).unwrap_or(false))
    }
}
