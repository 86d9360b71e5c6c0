//! A free turn's try heard again: PocketSphinx's best paths after its own are other tries
//! (its lattice's N-best), and the second ear ([`crate::ear`]) scores them all on the other
//! core while PocketSphinx goes on judging its own (docs/VOICE.md, eighth round), with the
//! tries a try's letters sound like where the lattice names fewer (twenty-third round). When
//! PocketSphinx rejects its try, the ear's may still be taken (ninth round).

use std::time::Instant;

use kriegspiel_referee::Try;

use super::{Heard, Hypothesis, Recognition, Recognizer, VoiceError, WIDE};
use crate::ear::{self, EarChoice, Sureness};
use crate::words::{file_of, FileNames};

/// The most tries the ear scores for one utterance: PocketSphinx's and this many others.
const ALTERNATIVES: usize = 7;

/// The most word strings read from the lattice for them (strings that differ only in a piece
/// name give one try), and the most paths walked for those.
const STRINGS: usize = 24;
const PATHS: usize = 400;

impl Recognizer {
    /// [`Recognizer::hear_turn`] of the first decoder's try `said`, with the ear choosing among
    /// its alternatives when there is an ear. When PocketSphinx accepts a try, the ear only
    /// chooses which one. When PocketSphinx rejects it, the ear's try is taken if it passes the
    /// ear's [`Sureness::RESCUE`] limits: rejected by the ratio against the phone loop, when the wide
    /// grammar hears no try his men cannot make and no command; rejected by the wide grammar,
    /// when the ear also prefers it to what the wide grammar heard.
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
        let mut ear = if phrases.is_empty() {
            None
        } else {
            self.ear.take()
        };
        // Each try in letters and in every scheme PocketSphinx heard a file in: "e" heard as
        // "eva" must not lose to another try said in letters (docs/VOICE.md, eighth round).
        let schemes = schemes(phrases.first().map_or("", |p| p.words.as_str()));
        let forms = schemes.len();
        let rendered: Vec<String> = phrases
            .iter()
            .flat_map(|p| schemes.iter().map(|&s| in_scheme(&p.words, s)))
            .collect();
        let (by_sphinx, by_ear) = std::thread::scope(|s| {
            let second = ear.as_mut().map(|e| {
                let texts: Vec<&str> = rendered.iter().map(String::as_str).collect();
                s.spawn(move || e.choose(samples, &texts, forms))
            });
            let first = self.hear_turn(samples, start, Some(said), false);
            // While the ear still hears: what the wide grammar makes of a rejected try, which
            // the ear may take after all.
            let first = match first {
                Ok(mut rec) if second.is_some() && by_phone_loop(&rec) => self
                    .decoder
                    .decode(WIDE, samples)
                    .map_err(VoiceError::from)
                    .map(|wide| {
                        rec.wide_words = wide.text;
                        rec
                    }),
                other => other,
            };
            (first, second.map(|h| h.join()))
        });
        let rescue = ear.as_ref().map(|e| e.rescue());
        if ear.is_some() {
            self.ear = ear;
        }
        let mut rec = by_sphinx?;
        let scores = match &by_ear {
            Some(Ok(Ok(choice))) => choice.scores.as_slice(),
            _ => &[],
        };
        rec.alternatives = phrases
            .iter()
            .enumerate()
            .map(|(k, p)| Weighed {
                candidate: p.candidate,
                sphinx: p.sphinx,
                moonshine: scores.get(k).copied(),
            })
            .collect();
        // A failure of the ear's own is no opinion.
        match (rec.heard, by_ear, rescue) {
            (Heard::Try(_), Some(Ok(Ok(choice))), _) if phrases.len() > 1 => {
                let letters = schemes == [FileNames::Letters];
                rec.try_ear = Some(take_choice(&mut rec, &phrases, choice, letters));
            }
            (Heard::Rejected, Some(Ok(Ok(choice))), Some(limits)) if by_phone_loop(&rec) => {
                rec.try_ear = Some(self.rescue(&mut rec, &phrases, choice, limits, true));
            }
            // The wide grammar's words, said in the same schemes, as one more rival.
            (Heard::Rejected, Some(Ok(Ok(_))), Some(limits)) if rec.wide_margin.is_some() => {
                let rival: Vec<String> = schemes
                    .iter()
                    .map(|&s| in_scheme(&rec.wide_words, s))
                    .collect();
                let texts: Vec<&str> = rival.iter().map(String::as_str).collect();
                if let Some(Ok(choice)) = self.ear.as_mut().map(|e| e.against(&texts)) {
                    rec.try_ear = Some(self.rescue(&mut rec, &phrases, choice, limits, false));
                }
            }
            _ => {}
        }
        rec.took = start.elapsed();
        Ok(rec)
    }

    /// Puts the ear's try in `rec`, which PocketSphinx rejected, when it passes `limits` and,
    /// `ask_wide`, the wide grammar heard no try his men cannot make (a try said to a square
    /// they cannot reach is forced onto one they can) and no command. (Without `ask_wide`, the
    /// wide grammar's words were a rival in `choice`, past the end of `phrases`.)
    fn rescue(
        &self,
        rec: &mut Recognition,
        phrases: &[Phrase],
        mut choice: EarChoice,
        limits: Sureness,
        ask_wide: bool,
    ) -> EarChoice {
        choice.taken = false;
        choice.torn = false;
        let Some(grammar) = self.grammar.as_ref() else {
            return choice;
        };
        let wide_allows = !ask_wide
            || match grammar.interpret(&rec.wide_words) {
                Heard::Try(t) => grammar.tries().any(|x| x == t),
                Heard::Command(_) | Heard::Unsure(_) => false,
                Heard::Rejected => true,
            };
        if let Some(p) = phrases.get(choice.best).filter(|p| !p.neighbour) {
            if wide_allows && limits.of(choice.margin, choice.doubt) {
                rec.heard = Heard::Try(p.candidate);
                choice.rescued = true;
            }
        }
        choice
    }

    /// `said`'s words when they are a try, then the words of each other try among the first
    /// decoder's next best paths (at most [`ALTERNATIVES`]), each with the best score of the
    /// paths naming it (none for `said`'s when no path did); empty when `said` is no try.
    fn try_phrases(&mut self, said: &Hypothesis) -> Vec<Phrase> {
        let Some(grammar) = self.grammar.as_ref() else {
            return Vec::new();
        };
        let Heard::Try(first) = grammar.interpret(&said.text) else {
            return Vec::new();
        };
        let mut out = vec![Phrase {
            candidate: first,
            words: said.text.clone(),
            sphinx: None,
            neighbour: false,
        }];
        // In order of score: the first path naming a try is its best.
        for (words, score) in self.decoder.alternatives(STRINGS, PATHS) {
            let Heard::Try(t) = grammar.interpret(&words) else {
                continue;
            };
            match out.iter().position(|p| p.candidate == t) {
                Some(k) => {
                    out[k].sphinx.get_or_insert(score);
                }
                None if out.len() <= ALTERNATIVES => out.push(Phrase {
                    candidate: t,
                    words,
                    sphinx: Some(score),
                    neighbour: false,
                }),
                None => {}
            }
        }
        // Where the lattice offers fewer, the tries its letters sound like (docs/VOICE.md,
        // twenty-third round): PocketSphinx, sure of "f two to f three" for "a two to a
        // three", often has no path naming the try said.
        for words in letter_neighbours(&said.text) {
            if out.len() > ALTERNATIVES {
                break;
            }
            let Heard::Try(t) = grammar.interpret(&words) else {
                continue;
            };
            if !out.iter().any(|p| p.candidate == t) && grammar.tries().any(|x| x == t) {
                out.push(Phrase {
                    candidate: t,
                    words,
                    sphinx: None,
                    neighbour: true,
                });
            }
        }
        out
    }
}

/// The letters a letter's name is most often heard for, nearest first: the E-set (b, c, d,
/// e, g share their vowel) and a, f, h (the vowel of "a" and "h", the fricative of "f").
fn sounds_like(letter: &str) -> &'static [&'static str] {
    match letter {
        "a" => &["h", "f", "e"],
        "b" => &["d", "e", "g", "c"],
        "c" => &["e", "g", "b", "d"],
        "d" => &["b", "e", "g", "c"],
        "e" => &["d", "b", "g", "c"],
        "f" => &["a", "h"],
        "g" => &["d", "e", "b", "c"],
        "h" => &["a", "f"],
        _ => &[],
    }
}

/// `words` (a try said in letters) with one of its files said as a letter that sounds like
/// it, for each file and each such letter, then with both changed: the tries PocketSphinx
/// most often takes one for, nearest first.
fn letter_neighbours(words: &str) -> Vec<String> {
    let tokens: Vec<&str> = words.split_whitespace().collect();
    let files: Vec<usize> = (0..tokens.len())
        .filter(|&i| !sounds_like(tokens[i]).is_empty())
        .collect();
    let with = |changes: &[(usize, &str)]| {
        let mut t = tokens.clone();
        for &(i, l) in changes {
            t[i] = l;
        }
        t.join(" ")
    };
    let mut out = Vec::new();
    let most = files
        .iter()
        .map(|&i| sounds_like(tokens[i]).len())
        .max()
        .unwrap_or(0);
    for rank in 0..most {
        for &i in &files {
            if let Some(l) = sounds_like(tokens[i]).get(rank) {
                out.push(with(&[(i, l)]));
            }
        }
    }
    if let [i, j] = files[..] {
        for a in sounds_like(tokens[i]) {
            for b in sounds_like(tokens[j]) {
                out.push(with(&[(i, a), (j, b)]));
            }
        }
    }
    out
}

/// Puts the ear's try in `rec` when it is to be taken (not the wide grammar's rival), and
/// none when the judges disagree ([`EarChoice::torn`]); a try said in `letters`, also none
/// when the ear cannot tell the one it prefers, PocketSphinx's or its own, from another
/// ([`ear::LETTERS_LEAD`]).
fn take_choice(
    rec: &mut Recognition,
    phrases: &[Phrase],
    mut choice: EarChoice,
    letters: bool,
) -> EarChoice {
    // Letters that sound alike are where both judges err, the ear's own try too: "a one to e
    // one" taken for "a one to d one" by a lead of 1.4 over it (twenty-fourth round).
    if letters && choice.margin < ear::LETTERS_LEAD {
        choice.taken = false;
    }
    match phrases.get(choice.best) {
        Some(p) if choice.taken => rec.heard = Heard::Try(p.candidate),
        _ => choice.taken = false,
    }
    if letters && !choice.taken && choice.first_lead() < ear::LETTERS_LEAD {
        choice.torn = true;
    }
    if choice.torn {
        rec.heard = Heard::Rejected;
    }
    choice
}

/// A try the second ear weighed: PocketSphinx's best N-best path score for it (none when no
/// path named it) and the ear's log-probability (none when the ear did not score it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weighed {
    pub candidate: Try,
    pub sphinx: Option<i32>,
    pub moonshine: Option<f32>,
}

/// A try to weigh: its words as heard and its best N-best path score.
struct Phrase {
    candidate: Try,
    words: String,
    sphinx: Option<i32>,
    /// Not heard by PocketSphinx at all, only like the words it heard
    /// ([`letter_neighbours`]): a rival for the ear, never a try it rescues.
    neighbour: bool,
}

/// Whether `rec` was rejected by its ratio against the phone loop (not by the wide grammar,
/// which then ran, nor for want of a path).
fn by_phone_loop(rec: &Recognition) -> bool {
    rec.heard == Heard::Rejected && rec.wide_margin.is_none() && rec.ratio != i32::MIN
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

    #[test]
    fn a_try_in_letters_has_the_tries_its_letters_sound_like_nearest_first() {
        let near = letter_neighbours("pawn b two to b four");
        assert_eq!(
            near[..4],
            [
                "pawn d two to b four",
                "pawn b two to d four",
                "pawn e two to b four",
                "pawn b two to e four",
            ]
        );
        // Each file changed alone (four letters each), then both (four by four).
        assert_eq!(near.len(), 8 + 16);
        assert!(near.contains(&"pawn d two to d four".to_string()));
        assert_eq!(
            letter_neighbours("a two to a three")[..2],
            ["h two to a three", "a two to h three"]
        );
        assert!(letter_neighbours("f two to f three").contains(&"a two to a three".to_string()));
        // Files said in NATO or Anna names are heard well enough: no neighbours.
        assert!(letter_neighbours("knight golf one to foxtrot three").is_empty());
        assert!(!letter_neighbours("knight golf one to f three")
            .iter()
            .any(|w| !w.starts_with("knight golf one to ")));
    }
}
