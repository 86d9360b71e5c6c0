//! A free turn's try heard again: PocketSphinx's best paths after its own are other tries
//! (its lattice's N-best), and the second ear ([`crate::ear`]) scores them all on the other
//! core while PocketSphinx goes on judging its own (docs/VOICE.md, eighth round).

use std::time::Instant;

use super::{Heard, Hypothesis, Recognition, Recognizer, VoiceError};
use crate::ear::EarChoice;
use crate::words::{file_of, FileNames};

/// The most tries the ear scores for one utterance: PocketSphinx's and this many others.
const ALTERNATIVES: usize = 7;

/// The most word strings read from the lattice for them (strings that differ only in a piece
/// name give one try), and the most paths walked for those.
const STRINGS: usize = 24;
const PATHS: usize = 400;

impl Recognizer {
    /// [`Recognizer::hear_turn`] of the first decoder's try `said`, with the ear choosing among
    /// its alternatives when there is an ear and there are alternatives. PocketSphinx alone
    /// decides whether a try was said at all; the ear only which one.
    pub(super) fn hear_try(
        &mut self,
        samples: &[i16],
        start: Instant,
        said: Hypothesis,
    ) -> Result<Recognition, VoiceError> {
        let phrases = if self.ear.is_some() {
            self.try_phrases(&said)
        } else {
            Vec::new()
        };
        let mut ear = if phrases.len() > 1 {
            self.ear.take()
        } else {
            None
        };
        // Each try in letters and in every scheme PocketSphinx heard a file in: "e" heard as
        // "eva" must not lose to another try said in letters (docs/VOICE.md, eighth round).
        let schemes = schemes(phrases.first().map_or("", String::as_str));
        let rendered: Vec<String> = phrases
            .iter()
            .flat_map(|p| schemes.iter().map(move |&s| in_scheme(p, s)))
            .collect();
        let (by_sphinx, by_ear) = std::thread::scope(|s| {
            let second = ear.as_mut().map(|e| {
                let texts: Vec<&str> = rendered.iter().map(String::as_str).collect();
                s.spawn(move || e.choose(samples, &texts, schemes.len()))
            });
            let first = self.hear_turn(samples, start, Some(said), false);
            (first, second.map(|h| h.join()))
        });
        if ear.is_some() {
            self.ear = ear;
        }
        let mut rec = by_sphinx?;
        // A failure of the ear's own is no opinion.
        if let (Heard::Try(_), Some(Ok(Ok(choice)))) = (rec.heard, by_ear) {
            rec.try_ear = Some(self.take_choice(&mut rec, &phrases, choice));
        }
        rec.took = start.elapsed();
        Ok(rec)
    }

    /// Puts the ear's try in `rec` when it is to be taken and is one of the turn's tries.
    fn take_choice(
        &self,
        rec: &mut Recognition,
        phrases: &[String],
        mut choice: EarChoice,
    ) -> EarChoice {
        let chosen = phrases
            .get(choice.best)
            .zip(self.grammar.as_ref())
            .map(|(p, g)| g.interpret(p));
        match chosen {
            Some(Heard::Try(t)) if choice.taken => rec.heard = Heard::Try(t),
            _ => choice.taken = false,
        }
        choice
    }

    /// `said`'s words when they are a try, then the words of each other try among the first
    /// decoder's next best paths (at most [`ALTERNATIVES`]); empty when `said` is no try.
    fn try_phrases(&mut self, said: &Hypothesis) -> Vec<String> {
        let Some(grammar) = self.grammar.as_ref() else {
            return Vec::new();
        };
        let Heard::Try(first) = grammar.interpret(&said.text) else {
            return Vec::new();
        };
        let mut tries = vec![first];
        let mut phrases = vec![said.text.clone()];
        for words in self.decoder.alternatives(STRINGS, PATHS) {
            if tries.len() > ALTERNATIVES {
                break;
            }
            if let Heard::Try(t) = grammar.interpret(&words) {
                if !tries.contains(&t) {
                    tries.push(t);
                    phrases.push(words);
                }
            }
        }
        phrases
    }
}

/// Letters, and each other scheme a file word of `words` is in.
fn schemes(words: &str) -> Vec<FileNames> {
    let mut out = vec![FileNames::Letters];
    for w in words.split_whitespace() {
        if let Some(file) = file_of(w) {
            let scheme = FileNames::ALL
                .into_iter()
                .find(|s| s.word(file) == w)
                .unwrap_or(FileNames::Letters);
            if !out.contains(&scheme) {
                out.push(scheme);
            }
        }
    }
    out
}

/// `words` with every file said in `scheme`.
fn in_scheme(words: &str, scheme: FileNames) -> String {
    words
        .split_whitespace()
        .map(|w| file_of(w).map_or(w, |f| scheme.word(f)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_try_is_said_again_in_letters_and_in_the_schemes_heard() {
        assert_eq!(schemes("pawn e two to e four"), [FileNames::Letters]);
        assert_eq!(
            schemes("eva one to delta one"),
            [FileNames::Letters, FileNames::Anna, FileNames::Nato]
        );
        assert_eq!(
            in_scheme("knight eva one to d three", FileNames::Nato),
            "knight echo one to delta three"
        );
        assert_eq!(
            in_scheme("knight eva one to d three", FileNames::Letters),
            "knight e one to d three"
        );
    }
}
