//! The spoken vocabulary: how files, ranks, men and commands are said, and the pronunciation
//! dictionary the decoder loads (written by the recogniser; only these words, so the decoder
//! starts fast and cannot hear anything else).

use shakmaty::{File, Rank, Role};

/// How a file may be said. Every name is accepted every turn; the schemes only label them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileNames {
    /// "a" … "h", said as letters.
    Letters,
    /// The NATO alphabet: alfa, bravo, charlie, delta, echo, foxtrot, golf, hotel.
    Nato,
    /// The FIDE "Anna" names: anna, bella, cesar, david, eva, felix, gustav, hector.
    Anna,
}

impl FileNames {
    pub const ALL: [FileNames; 3] = [FileNames::Letters, FileNames::Nato, FileNames::Anna];

    pub const fn id(self) -> &'static str {
        match self {
            FileNames::Letters => "letters",
            FileNames::Nato => "nato",
            FileNames::Anna => "anna",
        }
    }

    /// The word for `file` in this scheme.
    pub fn word(self, file: File) -> &'static str {
        let i = usize::from(file);
        match self {
            FileNames::Letters => LETTERS[i],
            FileNames::Nato => NATO[i],
            FileNames::Anna => ANNA[i],
        }
    }
}

const LETTERS: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];
const NATO: [&str; 8] = [
    "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];
const ANNA: [&str; 8] = [
    "anna", "bella", "cesar", "david", "eva", "felix", "gustav", "hector",
];
const RANKS: [&str; 8] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight",
];

/// Every word naming `file`.
pub fn file_words(file: File) -> [&'static str; 3] {
    let i = usize::from(file);
    [LETTERS[i], NATO[i], ANNA[i]]
}

/// The file a word names, in any scheme.
pub fn file_of(word: &str) -> Option<File> {
    (0..8u32)
        .find(|&i| {
            let i = i as usize;
            LETTERS[i] == word || NATO[i] == word || ANNA[i] == word
        })
        .map(File::new)
}

pub fn rank_word(rank: Rank) -> &'static str {
    RANKS[usize::from(rank)]
}

pub fn rank_of(word: &str) -> Option<Rank> {
    RANKS
        .iter()
        .position(|w| *w == word)
        .map(|i| Rank::new(i as u32))
}

pub fn role_word(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

pub fn role_of(word: &str) -> Option<Role> {
    Role::ALL.into_iter().find(|r| role_word(*r) == word)
}

/// Pronunciations (CMU phone set of the en-us acoustic model). Letters are said as letters
/// ("a" is EY, never the article); `kingside`/`queenside` are not in the en-us dictionary.
pub const PRONUNCIATIONS: &[(&str, &str)] = &[
    ("a", "EY"),
    ("b", "B IY"),
    ("c", "S IY"),
    ("d", "D IY"),
    ("e", "IY"),
    ("f", "EH F"),
    ("g", "JH IY"),
    ("h", "EY CH"),
    ("alfa", "AE L F AH"),
    ("bravo", "B R AA V OW"),
    ("charlie", "CH AA R L IY"),
    ("delta", "D EH L T AH"),
    ("echo", "EH K OW"),
    ("foxtrot", "F AA K S T R AA T"),
    ("golf", "G AA L F"),
    ("golf", "G AO L F"),
    ("hotel", "HH OW T EH L"),
    ("anna", "AE N AH"),
    ("anna", "AA N AH"),
    ("bella", "B EH L AH"),
    ("cesar", "S IY Z ER"),
    ("cesar", "S IY Z AA R"),
    ("david", "D EY V IH D"),
    ("eva", "EY V AH"),
    ("eva", "IY V AH"),
    ("felix", "F IY L IH K S"),
    ("gustav", "G UH S T AA F"),
    ("gustav", "G UH S T AA V"),
    ("hector", "HH EH K T ER"),
    ("one", "W AH N"),
    ("one", "HH W AH N"),
    ("two", "T UW"),
    ("three", "TH R IY"),
    ("four", "F AO R"),
    ("five", "F AY V"),
    ("six", "S IH K S"),
    ("seven", "S EH V AH N"),
    ("eight", "EY T"),
    ("to", "T UW"),
    ("to", "T AH"),
    ("takes", "T EY K S"),
    ("castle", "K AE S AH L"),
    ("kingside", "K IH NG S AY D"),
    ("queenside", "K W IY N S AY D"),
    ("king", "K IH NG"),
    ("queen", "K W IY N"),
    ("rook", "R UH K"),
    ("bishop", "B IH SH AH P"),
    ("knight", "N AY T"),
    ("pawn", "P AO N"),
    ("any", "EH N IY"),
    ("repeat", "R IH P IY T"),
    ("repeat", "R IY P IY T"),
    ("rebuffs", "R IY B AH F S"),
    ("rebuffs", "R IH B AH F S"),
    ("my", "M AY"),
    ("men", "M EH N"),
    ("confirm", "K AH N F ER M"),
    ("cancel", "K AE N S AH L"),
    ("resign", "R IH Z AY N"),
    ("resign", "R IY Z AY N"),
    ("offer", "AO F ER"),
    ("offer", "AA F ER"),
    ("draw", "D R AO"),
    ("yes", "Y EH S"),
    ("no", "N OW"),
];

/// The phones of the en-us acoustic model (its `mdef`, fillers and silence left out): the
/// garbage words (`junk_aa` …, one phone each) that compete with the answers and commands in
/// their grammars ([`crate::grammar::answer_jsgf`]).
pub const PHONES: [&str; 39] = [
    "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
    "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH",
    "UW", "V", "W", "Y", "Z", "ZH",
];

/// The garbage word of one phone ([`PHONES`]): `junk_aa`.
pub fn junk_word(phone: &str) -> String {
    format!("junk_{}", phone.to_ascii_lowercase())
}

/// The dictionary file's text: one `word PHONES` line per pronunciation, variants as
/// `word(2)`, then the garbage words ([`junk_word`]).
pub fn dictionary() -> String {
    let mut out = String::new();
    let mut last = "";
    let mut n = 1;
    for (word, phones) in PRONUNCIATIONS {
        if *word == last {
            n += 1;
            out.push_str(&format!("{word}({n}) {phones}\n"));
        } else {
            n = 1;
            out.push_str(&format!("{word} {phones}\n"));
        }
        last = word;
    }
    for phone in PHONES {
        out.push_str(&format!("{} {phone}\n", junk_word(phone)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_the_grammar_can_use_has_a_pronunciation() {
        let known = |w: &str| PRONUNCIATIONS.iter().any(|(p, _)| *p == w);
        for f in File::ALL {
            for w in file_words(f) {
                assert!(known(w), "{w}");
                assert_eq!(file_of(w), Some(f));
            }
        }
        for r in Rank::ALL {
            assert!(known(rank_word(r)));
            assert_eq!(rank_of(rank_word(r)), Some(r));
        }
        for r in Role::ALL {
            assert!(known(role_word(r)));
        }
        for w in crate::grammar::COMMAND_WORDS {
            assert!(known(w), "{w}");
        }
    }

    #[test]
    fn variants_are_numbered() {
        let d = dictionary();
        assert!(d.contains("golf G AA L F\ngolf(2) G AO L F\n"));
        assert!(d.contains("\nto(2) T AH\n"));
    }
}
