//! Announcements as words, in English, French and Russian, for every rule set.
//!
//! The text is what the table hears, so it names squares the way a referee speaks them and
//! never says more than the typed announcement holds.

use shakmaty::{Color, Square};

use crate::announce::{
    Announcement, Capture, CheckKind, End, EndReason, GameResult, Man, PawnTries, Refusal,
    RefusalKind, Reply, Report,
};
use crate::rules::{Lang, Notation, Options, RuleSet, TrySquares};

/// Renders announcements for one game: its rule set, language and notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    pub rules: RuleSet,
    pub lang: Lang,
    pub notation: Notation,
    pub try_squares: TrySquares,
}

impl Wording {
    pub fn new(rules: RuleSet, options: Options, lang: Lang) -> Wording {
        Wording {
            rules,
            lang,
            notation: options.notation,
            try_squares: options.try_squares,
        }
    }

    pub fn text(&self, a: &Announcement) -> String {
        match a {
            Announcement::Report(r) => self.report(r),
            Announcement::Refusal(r) => self.refusal(r).to_owned(),
            Announcement::Reply(r) => self.reply(r),
        }
    }

    /// The text as it is fed to a speech synthesiser: the same words, with square names a
    /// voice of the table's language reads correctly (Russian files by their Cyrillic
    /// letter names: "e5" is «е 5», which a Russian voice would otherwise spell in English).
    pub fn speech(&self, a: &Announcement) -> String {
        let text = self.text(a);
        match self.lang {
            Lang::En | Lang::Fr => text,
            Lang::Ru => Wording::spoken_squares(Lang::Ru, &text),
        }
    }

    fn report(&self, r: &Report) -> String {
        let mut parts: Vec<String> = Vec::with_capacity(6);
        match r.mover {
            None => parts.push(self.new_game(r.to_move)),
            Some(mover) => parts.push(self.moved(mover, r.to_move)),
        }
        if let (Some(c), Some(mover)) = (r.capture, r.mover) {
            parts.push(self.capture(c, mover));
        }
        if r.promotion == Some(true) {
            parts.push(
                match self.lang {
                    Lang::En => "Pawn promoted.",
                    Lang::Fr => "Un pion a été promu.",
                    Lang::Ru => "Пешка превратилась.",
                }
                .to_owned(),
            );
        }
        for kind in r.checks.iter() {
            parts.push(self.check(kind, r.mover));
        }
        match r.end {
            Some(end) => parts.push(self.end(end)),
            None => {
                if let Some(p) = self.pawn_tries(&r.pawn_tries, r.to_move) {
                    parts.push(p);
                }
            }
        }
        parts.join(" ")
    }

    fn side(&self, c: Color) -> &'static str {
        Wording::color_name(self.lang, c)
    }

    fn rules_name(&self) -> &'static str {
        match (self.lang, self.rules) {
            (Lang::Ru, RuleSet::Russian) => "русские правила",
            (Lang::Fr, RuleSet::Traditional) => "règles traditionnelles",
            (Lang::Fr, RuleSet::Russian) => "règles russes",
            (_, RuleSet::Cincinnati) => "Cincinnati",
            (_, RuleSet::Wild16) => "ICC Wild 16",
            (Lang::Ru, RuleSet::Traditional) => "традиционные правила",
            (_, RuleSet::Traditional) => "traditional rules",
            (_, RuleSet::Rand) => "RAND",
            (_, RuleSet::Berkeley) => "Berkeley",
            (_, RuleSet::BerkeleyAny) => "Berkeley + Any?",
            (_, RuleSet::Russian) => "Russian rules",
        }
    }

    fn new_game(&self, to_move: Color) -> String {
        let name = self.rules_name();
        match self.lang {
            Lang::En => format!("New game, {name}. {} to move.", self.side(to_move)),
            Lang::Fr => format!("Nouvelle partie, {name}. Trait aux {}.", color_fr(to_move)),
            Lang::Ru => format!("Новая партия, {name}. Ход {}.", genitive_ru(to_move)),
        }
    }

    fn moved(&self, mover: Color, to_move: Color) -> String {
        let m = self.side(mover);
        match (self.rules, self.lang) {
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::En) => "Yes.".to_owned(),
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::Fr) => "Oui.".to_owned(),
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::Ru) => "Да.".to_owned(),
            (RuleSet::Rand, Lang::En) => format!("{}.", self.side(to_move)),
            (RuleSet::Rand, Lang::Fr) => format!("Aux {}.", color_fr(to_move)),
            (RuleSet::Rand, Lang::Ru) => format!("Ход {}.", genitive_ru(to_move)),
            (RuleSet::Wild16, Lang::En) => format!("{}'s move.", self.side(to_move)),
            (RuleSet::Wild16, Lang::Fr) => format!("Trait aux {}.", color_fr(to_move)),
            (RuleSet::Wild16, Lang::Ru) => format!("Ход {}.", genitive_ru(to_move)),
            (_, Lang::En) => format!("{m} has moved."),
            (_, Lang::Fr) => format!("{m} ont joué."),
            (_, Lang::Ru) => format!("{m} сделали ход."),
        }
    }

    fn capture(&self, c: Capture, mover: Color) -> String {
        let sq = self.square(c.square, mover);
        let pawn = c.man == Some(Man::Pawn);
        match (self.rules, self.lang) {
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::En) => format!("Capture at {sq}."),
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::Fr) => format!("Prise en {sq}."),
            (RuleSet::Berkeley | RuleSet::BerkeleyAny, Lang::Ru) => format!("Взятие на поле {sq}."),
            (RuleSet::Russian, Lang::En) => format!("{} captures on {sq}.", self.side(mover)),
            (RuleSet::Russian, Lang::Fr) => format!("{} prennent en {sq}.", self.side(mover)),
            (RuleSet::Russian, Lang::Ru) => format!("{} бьют на поле {sq}.", self.side(mover)),
            (RuleSet::Traditional, Lang::En) => {
                format!("{} gone, {sq}.", if pawn { "Pawn" } else { "Piece" })
            }
            (RuleSet::Traditional, Lang::Fr) => {
                format!(
                    "{}, {sq}.",
                    if pawn { "Pion parti" } else { "Pièce partie" }
                )
            }
            (RuleSet::Traditional, Lang::Ru) => {
                format!(
                    "{} {sq}.",
                    if pawn {
                        "Пешки больше нет на поле"
                    } else {
                        "Фигуры больше нет на поле"
                    }
                )
            }
            (RuleSet::Wild16, Lang::En) => {
                format!("{} at {sq} captured.", if pawn { "Pawn" } else { "Piece" })
            }
            (RuleSet::Wild16, Lang::Fr) => {
                format!(
                    "{} en {sq}.",
                    if pawn { "Pion pris" } else { "Pièce prise" }
                )
            }
            (RuleSet::Wild16, Lang::Ru) => {
                format!(
                    "{} на поле {sq} взята.",
                    if pawn { "Пешка" } else { "Фигура" }
                )
            }
            (_, Lang::En) => format!("{} captured on {sq}.", if pawn { "Pawn" } else { "Piece" }),
            (_, Lang::Fr) => format!(
                "{} en {sq}.",
                if pawn { "Pion pris" } else { "Pièce prise" }
            ),
            (_, Lang::Ru) => format!(
                "Взята {} на поле {sq}.",
                if pawn { "пешка" } else { "фигура" }
            ),
        }
    }

    fn check(&self, kind: CheckKind, mover: Option<Color>) -> String {
        match self.lang {
            Lang::En => match kind {
                CheckKind::File => "Check on the file.",
                CheckKind::Rank => "Check on the rank.",
                CheckKind::Long => "Check on the long diagonal.",
                CheckKind::Short => "Check on the short diagonal.",
                CheckKind::Knight => "Check by a knight.",
            }
            .to_owned(),
            Lang::Fr => match kind {
                CheckKind::File => "Échec sur la colonne.",
                CheckKind::Rank => "Échec sur la rangée.",
                CheckKind::Long => "Échec sur la grande diagonale.",
                CheckKind::Short => "Échec sur la petite diagonale.",
                CheckKind::Knight => "Échec du cavalier.",
            }
            .to_owned(),
            Lang::Ru => {
                let how = match kind {
                    CheckKind::File => "по вертикали",
                    CheckKind::Rank => "по горизонтали",
                    CheckKind::Long => "по большой диагонали",
                    CheckKind::Short => "по малой диагонали",
                    CheckKind::Knight => "конём",
                };
                match mover {
                    Some(m) if self.rules == RuleSet::Russian => {
                        format!("{} шахуют {how}.", self.side(m))
                    }
                    _ => format!("Шах {how}."),
                }
            }
        }
    }

    fn pawn_tries(&self, p: &PawnTries, to_move: Color) -> Option<String> {
        match *p {
            PawnTries::Silent | PawnTries::Exists(false) | PawnTries::Count(0) => None,
            PawnTries::Exists(true) => Some(
                match self.lang {
                    Lang::En => "Pawn capture.",
                    Lang::Fr => "Prise de pion possible.",
                    Lang::Ru => "Есть взятие пешкой.",
                }
                .to_owned(),
            ),
            PawnTries::Count(n) => Some(match self.lang {
                Lang::En => format!("{n} pawn {}.", if n == 1 { "try" } else { "tries" }),
                Lang::Fr => format!("{n} essai{} de pion.", if n == 1 { "" } else { "s" }),
                Lang::Ru => format!(
                    "{n} {} пешкой.",
                    plural_ru(u32::from(n), ["взятие", "взятия", "взятий"])
                ),
            }),
            PawnTries::Squares(bb) if bb.is_empty() => None,
            PawnTries::Squares(_) => {
                let list: Vec<String> = p.squares().map(|sq| self.square(sq, to_move)).collect();
                let list = list.join(", ");
                let source = self.rules == RuleSet::Rand && self.try_squares == TrySquares::Source;
                Some(match (self.lang, source) {
                    (Lang::En, false) => format!("Pawn tries on {list}."),
                    (Lang::En, true) => format!("Pawn tries from {list}."),
                    (Lang::Fr, false) => format!("Essais de pion en {list}."),
                    (Lang::Fr, true) => format!("Essais de pion depuis {list}."),
                    (Lang::Ru, false) => format!("Взятия пешкой на полях {list}."),
                    (Lang::Ru, true) => format!("Взятия пешкой с полей {list}."),
                })
            }
        }
    }

    fn end(&self, end: End) -> String {
        let winner = match end.result {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        };
        let result = match (self.lang, winner) {
            (Lang::En, Some(c)) => format!("{} wins.", self.side(c)),
            (Lang::Fr, Some(c)) => format!("{} gagnent.", self.side(c)),
            (Lang::Ru, Some(c)) => format!("{} выиграли.", self.side(c)),
            (Lang::En, None) => "Draw.".to_owned(),
            (Lang::Fr, None) => "Partie nulle.".to_owned(),
            (Lang::Ru, None) => "Ничья.".to_owned(),
        };
        let reason = match (self.lang, end.reason) {
            (Lang::En, EndReason::Checkmate) => "Checkmate.",
            (Lang::En, EndReason::Stalemate) => "Stalemate.",
            (Lang::En, EndReason::InsufficientMaterial) => "Insufficient material.",
            (Lang::En, EndReason::FiftyMoves) => "Fifty moves without capture or pawn move.",
            (Lang::En, EndReason::Repetition) => "Third repetition of the position.",
            (Lang::Fr, EndReason::Checkmate) => "Échec et mat.",
            (Lang::Fr, EndReason::Stalemate) => "Pat.",
            (Lang::Fr, EndReason::InsufficientMaterial) => "Matériel insuffisant.",
            (Lang::Fr, EndReason::FiftyMoves) => "Cinquante coups sans prise ni coup de pion.",
            (Lang::Fr, EndReason::Repetition) => "Troisième répétition de la position.",
            (Lang::Ru, EndReason::Checkmate) => "Мат.",
            (Lang::Ru, EndReason::Stalemate) => "Пат.",
            (Lang::Ru, EndReason::InsufficientMaterial) => "Недостаточно материала.",
            (Lang::Ru, EndReason::FiftyMoves) => "Пятьдесят ходов без взятий и ходов пешками.",
            (Lang::Ru, EndReason::Repetition) => "Позиция повторилась в третий раз.",
        };
        format!("{reason} {result}")
    }

    /// The refusal's words: the rule set's own.
    pub fn refusal(&self, r: &Refusal) -> &'static str {
        match (self.rules, r.kind, self.lang) {
            (RuleSet::Russian, _, Lang::En) => "Move impossible.",
            (RuleSet::Russian, _, Lang::Fr) => "Coup impossible.",
            (RuleSet::Russian, _, Lang::Ru) => "Ход невозможен.",
            (RuleSet::Wild16, _, Lang::En) => "Illegal move.",
            (RuleSet::Wild16, _, Lang::Fr) => "Coup illégal.",
            (RuleSet::Wild16, _, Lang::Ru) => "Недопустимый ход.",
            (_, RefusalKind::Illegal, Lang::En) => "No.",
            (_, RefusalKind::Illegal, Lang::Fr) => "Non.",
            (_, RefusalKind::Illegal, Lang::Ru) => "Нет.",
            (RuleSet::Traditional | RuleSet::Rand, RefusalKind::Impossible, Lang::En) => "Hell no.",
            (RuleSet::Traditional | RuleSet::Rand, RefusalKind::Impossible, Lang::Fr) => {
                "Jamais de la vie."
            }
            (RuleSet::Traditional | RuleSet::Rand, RefusalKind::Impossible, Lang::Ru) => {
                "Ни в коем случае."
            }
            (_, RefusalKind::Impossible, Lang::En) => "Nonsense.",
            (_, RefusalKind::Impossible, Lang::Fr) => "Absurde.",
            (_, RefusalKind::Impossible, Lang::Ru) => "Бессмыслица.",
        }
    }

    fn reply(&self, r: &Reply) -> String {
        match *r {
            Reply::Refused(ref refusal) => self.refusal(refusal).to_owned(),
            Reply::PawnCaptures { yes, .. } => match (self.rules, self.lang, yes) {
                (RuleSet::Russian, Lang::Ru, true) => "Да.",
                (RuleSet::Russian, Lang::Ru, false) => "Нет.",
                (_, Lang::En, true) => "Has pawn captures.",
                (_, Lang::En, false) => "No pawn captures.",
                (_, Lang::Fr, true) => "Il y a des prises de pion.",
                (_, Lang::Fr, false) => "Pas de prise de pion.",
                (_, Lang::Ru, true) => "Есть взятия пешкой.",
                (_, Lang::Ru, false) => "Нет взятий пешкой.",
            }
            .to_owned(),
            Reply::Rebuffs {
                asker, count: None, ..
            } => {
                let opponent = !asker;
                match self.lang {
                    Lang::En => format!("{} has not moved yet.", self.side(opponent)),
                    Lang::Fr => format!("{} n'ont pas encore joué.", self.side(opponent)),
                    Lang::Ru => format!("{} ещё не ходили.", self.side(opponent)),
                }
            }
            Reply::Rebuffs {
                asker,
                count: Some(count),
                ..
            } => {
                let opponent = !asker;
                match self.lang {
                    Lang::En => format!(
                        "{} had {count} rebuff{}.",
                        self.side(opponent),
                        if count == 1 { "" } else { "s" }
                    ),
                    Lang::Fr => format!("{} ont essuyé {count} refus.", self.side(opponent)),
                    Lang::Ru => format!(
                        "У {} было {count} {}.",
                        genitive_ru(opponent),
                        plural_ru(count, ["отказ", "отказа", "отказов"])
                    ),
                }
            }
        }
    }

    /// A square as spoken to `listener`: algebraic, or RAND's descriptive notation.
    pub fn square(&self, sq: Square, listener: Color) -> String {
        if self.notation == Notation::Algebraic || self.rules != RuleSet::Rand {
            return sq.to_string();
        }
        let file = sq.file() as usize;
        let rank = match listener {
            Color::White => sq.rank() as usize,
            Color::Black => 7 - sq.rank() as usize,
        };
        let (files, ranks): ([&str; 8], [&str; 8]) = match self.lang {
            Lang::En => (
                [
                    "queen's rook",
                    "queen's knight",
                    "queen's bishop",
                    "queen",
                    "king",
                    "king's bishop",
                    "king's knight",
                    "king's rook",
                ],
                [
                    "one", "two", "three", "four", "five", "six", "seven", "eight",
                ],
            ),
            Lang::Fr => (
                [
                    "tour de la dame",
                    "cavalier de la dame",
                    "fou de la dame",
                    "dame",
                    "roi",
                    "fou du roi",
                    "cavalier du roi",
                    "tour du roi",
                ],
                [
                    "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit",
                ],
            ),
            Lang::Ru => (
                [
                    "ферзевой ладьи",
                    "ферзевого коня",
                    "ферзевого слона",
                    "ферзя",
                    "короля",
                    "королевского слона",
                    "королевского коня",
                    "королевской ладьи",
                ],
                [
                    "один",
                    "два",
                    "три",
                    "четыре",
                    "пять",
                    "шесть",
                    "семь",
                    "восемь",
                ],
            ),
        };
        match self.lang {
            Lang::Ru => format!("поле {} {}", files[file], ranks[rank]),
            _ => format!("{} {}", files[file], ranks[rank]),
        }
    }
}

/// Words for the ear, the same in every crate that speaks: a square's spoken name, a side's
/// name, and the one scanner that finds squares in a text (the table's private messages and
/// the speech crate use these).
impl Wording {
    /// A square as a voice of `lang` reads it right: the file's letter name, a space, the
    /// rank. English spells the letters ("eh 5": "a5" would be read as the article),
    /// Russian gives the Cyrillic letter names («е 4»), French keeps the letter ("a 5").
    pub fn spoken_square(lang: Lang, sq: Square) -> String {
        const EN: [&str; 8] = ["eh", "bee", "see", "dee", "ee", "ef", "gee", "aitch"];
        const FR: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];
        const RU: [&str; 8] = ["а", "бэ", "цэ", "дэ", "е", "эф", "же", "аш"];
        let file = match lang {
            Lang::En => EN,
            Lang::Fr => FR,
            Lang::Ru => RU,
        }[sq.file() as usize];
        format!("{file} {}", sq.rank())
    }

    /// A side as the announcements name it: "White", "Les blancs", «Белые».
    pub fn color_name(lang: Lang, c: Color) -> &'static str {
        match (lang, c) {
            (Lang::En, Color::White) => "White",
            (Lang::En, Color::Black) => "Black",
            (Lang::Fr, Color::White) => "Les blancs",
            (Lang::Fr, Color::Black) => "Les noirs",
            (Lang::Ru, Color::White) => "Белые",
            (Lang::Ru, Color::Black) => "Чёрные",
        }
    }

    /// `text` with each algebraic square standing alone (a file letter and a rank digit,
    /// no letter or digit either side: "e4", not "Ne4" or "e2e4") as
    /// [`Wording::spoken_square`] says it in `lang`.
    pub fn spoken_squares(lang: Lang, text: &str) -> String {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len() + 16);
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let standalone = i + 1 < chars.len()
                && ('a'..='h').contains(&c)
                && ('1'..='8').contains(&chars[i + 1])
                && (i == 0 || !chars[i - 1].is_alphanumeric())
                && chars.get(i + 2).is_none_or(|n| !n.is_alphanumeric());
            match standalone.then(|| format!("{c}{}", chars[i + 1]).parse::<Square>()) {
                Some(Ok(sq)) => {
                    out.push_str(&Wording::spoken_square(lang, sq));
                    i += 2;
                }
                _ => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        out
    }
}

fn color_fr(c: Color) -> &'static str {
    match c {
        Color::White => "blancs",
        Color::Black => "noirs",
    }
}

fn genitive_ru(c: Color) -> &'static str {
    match c {
        Color::White => "белых",
        Color::Black => "чёрных",
    }
}

/// Russian noun forms for one, a few, many.
fn plural_ru(n: u32, forms: [&'static str; 3]) -> &'static str {
    let (d, dd) = (n % 10, n % 100);
    if d == 1 && dd != 11 {
        forms[0]
    } else if (2..=4).contains(&d) && !(12..=14).contains(&dd) {
        forms[1]
    } else {
        forms[2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_and_sides_in_words_for_the_ear() {
        assert_eq!(Wording::spoken_square(Lang::En, Square::A5), "eh 5");
        assert_eq!(Wording::spoken_square(Lang::Ru, Square::G1), "же 1");
        assert_eq!(Wording::spoken_square(Lang::Fr, Square::H8), "h 8");
        assert_eq!(
            Wording::spoken_squares(Lang::Ru, "Поле e4, Ne4, e2e4, h8."),
            "Поле е 4, Ne4, e2e4, аш 8."
        );
        assert_eq!(
            Wording::spoken_squares(Lang::En, "a5 at a5"),
            "eh 5 at eh 5"
        );
        assert_eq!(Wording::color_name(Lang::Fr, Color::Black), "Les noirs");
        assert_eq!(Wording::color_name(Lang::Ru, Color::White), "Белые");
    }
}
