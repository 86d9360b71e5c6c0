//! Words a synthesiser reads right: squares spelt as letter names, no Latin letters for a
//! Russian voice, no notation.

use kriegspiel_referee::{Lang, Wording};

/// Rewrites an announcement's text for a voice of `lang`: every standalone square (`a5`)
/// becomes words (English "eh 5", never the article "a"; Russian «а 5»:
/// [`Wording::spoken_squares`]), and the Latin names of rule sets become Cyrillic for a
/// Russian voice.
pub fn speakable(lang: Lang, text: &str) -> String {
    let out = Wording::spoken_squares(lang, text);
    match lang {
        Lang::Ru => RU_NAMES
            .iter()
            .fold(out, |text, (latin, cyrillic)| text.replace(latin, cyrillic)),
        Lang::En | Lang::Fr => out,
    }
}

/// The Latin words of the Russian wording (rule-set names), as a Russian voice says them.
const RU_NAMES: [(&str, &str); 6] = [
    ("Berkeley + Any?", "Беркли плюс «Эни»"),
    ("Berkeley", "Беркли"),
    ("ICC Wild 16", "Ай-Си-Си Вайлд 16"),
    ("Cincinnati", "Цинциннати"),
    ("RAND", "РЭНД"),
    ("Russian rules", "русские правила"),
];

/// Why a text would be misread by a voice of `lang`, if it would: notation (a square, a
/// move such as `Nf3` or `e2e4`), or Latin letters for a Russian voice.
pub fn misreading(lang: Lang, text: &str) -> Option<String> {
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let lower = word.to_ascii_lowercase();
        let b = lower.as_bytes();
        let looks_square = |i: usize| {
            b.get(i).is_some_and(|c| (b'a'..=b'h').contains(c))
                && b.get(i + 1).is_some_and(|c| (b'1'..=b'8').contains(c))
        };
        if (0..b.len()).any(looks_square) {
            return Some(format!("notation '{word}' in '{text}'"));
        }
    }
    if lang == Lang::Ru {
        if let Some(c) = text.chars().find(char::is_ascii_alphabetic) {
            return Some(format!(
                "Latin letter '{c}' for a Russian voice in '{text}'"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_become_words() {
        assert_eq!(speakable(Lang::En, "Capture at a5."), "Capture at eh 5.");
        assert_eq!(
            speakable(Lang::En, "Pawn tries on e4, h8."),
            "Pawn tries on ee 4, aitch 8."
        );
        assert_eq!(speakable(Lang::Ru, "Поле e4."), "Поле е 4.");
        assert_eq!(
            speakable(Lang::Ru, "Новая партия, Berkeley + Any?."),
            "Новая партия, Беркли плюс «Эни»."
        );
        assert_eq!(speakable(Lang::Fr, "Prise en a5."), "Prise en a 5.");
        for (lang, t) in [(Lang::En, "Nf3"), (Lang::En, "at a5"), (Lang::Ru, "Ход ok")] {
            assert!(misreading(lang, t).is_some(), "{t}");
        }
        assert_eq!(misreading(Lang::En, "Capture at eh 5."), None);
    }
}
