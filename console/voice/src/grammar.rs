//! The per-turn grammar: every try possible on the player's own board (his men only; he does
//! not know where the opponent's stand) in every spoken form, plus the commands. Rebuilt
//! every turn, so a square no man of his can reach is never heard as a try.

use std::collections::BTreeMap;
use std::fmt;

use kriegspiel_referee::{own_board_targets_on, Question, Try};
use shakmaty::fen::Fen;
use shakmaty::{
    Board, Castles, CastlingMode, Chess, Color, EnPassantMode, File, Position, Rank, Role, Square,
};

use crate::words::{file_of, file_words, rank_of, rank_word, role_of, role_word};

/// A spoken command (everything that is not a try).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// "any": are there pawn captures?
    Any,
    /// "rebuffs": RAND's rebuff count.
    Rebuffs,
    /// "repeat": say the last message to me again.
    Repeat,
    /// "my men": tell me where my men stand.
    MyMen,
    /// "confirm": submit the try (or resignation) just echoed.
    Confirm,
    /// "cancel": drop it.
    Cancel,
    /// "queen", "rook", "bishop", "knight": the piece for my next promotion.
    Promote(Role),
    Resign,
    /// "offer draw" (or accept the opponent's offer).
    OfferDraw,
}

impl Command {
    pub const ALL: [Command; 12] = [
        Command::Any,
        Command::Rebuffs,
        Command::Repeat,
        Command::MyMen,
        Command::Confirm,
        Command::Cancel,
        Command::Promote(Role::Queen),
        Command::Promote(Role::Rook),
        Command::Promote(Role::Bishop),
        Command::Promote(Role::Knight),
        Command::Resign,
        Command::OfferDraw,
    ];

    /// The words said (also the grammar's text for it).
    pub fn words(self) -> &'static str {
        match self {
            Command::Any => "any",
            Command::Rebuffs => "rebuffs",
            Command::Repeat => "repeat",
            Command::MyMen => "my men",
            Command::Confirm => "confirm",
            Command::Cancel => "cancel",
            Command::Promote(role) => role_word(role),
            Command::Resign => "resign",
            Command::OfferDraw => "offer draw",
        }
    }

    /// The id printed by `kriegspiel hear`: the words, spaces as hyphens.
    pub fn id(self) -> String {
        self.words().replace(' ', "-")
    }

    /// The question this command asks, if it is one.
    pub fn question(self) -> Option<Question> {
        match self {
            Command::Any => Some(Question::Any),
            Command::Rebuffs => Some(Question::Rebuffs),
            _ => None,
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
    }
}

/// Every word a command uses.
pub const COMMAND_WORDS: [&str; 14] = [
    "any", "rebuffs", "repeat", "my", "men", "confirm", "cancel", "queen", "rook", "bishop",
    "knight", "resign", "offer", "draw",
];

/// The answers to a read-back and what each means: "yes" and "no" are heard only then.
pub const ANSWERS: [(&str, Command); 4] = [
    ("confirm", Command::Confirm),
    ("cancel", Command::Cancel),
    ("yes", Command::Confirm),
    ("no", Command::Cancel),
];

/// The read-back's own grammar: one answer, or (with `junk`) any sequence of phones
/// ([`crate::words::junk_word`]) whose weight against each answer's is `junk`.
pub fn answer_jsgf(junk: Option<f64>) -> String {
    let words: Vec<&str> = ANSWERS.iter().map(|(w, _)| *w).collect();
    with_junk("answer", &words, junk)
}

/// Every command and nothing else: what a command heard in a turn is judged on; with `junk`,
/// also any sequence of phones, as [`answer_jsgf`].
pub fn commands_jsgf(junk: Option<f64>) -> String {
    let words: Vec<&str> = Command::ALL.iter().map(|c| c.words()).collect();
    with_junk("commands", &words, junk)
}

fn with_junk(name: &str, words: &[&str], junk: Option<f64>) -> String {
    match junk {
        None => format!(
            "#JSGF V1.0;\ngrammar {name};\npublic <{name}> = {};\n",
            words.join(" | ")
        ),
        Some(weight) => {
            let phones: Vec<String> = crate::words::PHONES
                .iter()
                .map(|p| crate::words::junk_word(p))
                .collect();
            let alternatives: Vec<String> = words.iter().map(|w| format!("/1/ ( {w} )")).collect();
            format!(
                "#JSGF V1.0;\ngrammar {name};\n<junk> = {};\npublic <{name}> = {} | /{weight}/ <junk>+;\n",
                phones.join(" | "),
                alternatives.join(" | ")
            )
        }
    }
}

/// What a hypothesis of the answer grammar means ("confirm" or "cancel"), if anything.
pub fn answer_of(hypothesis: &str) -> Option<Command> {
    let text = hypothesis.split_whitespace().collect::<Vec<_>>().join(" ");
    ANSWERS.iter().find(|(w, _)| *w == text).map(|(_, c)| *c)
}

/// What an utterance was heard as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Heard {
    Try(Try),
    Command(Command),
    /// A command heard too faintly to act on at once, but plausibly said (its score under the
    /// command's threshold, at or over the recogniser's floor,
    /// [`crate::recognizer::DEFAULT_UNSURE_THRESHOLD`] by default): read back and carried out
    /// only on "confirm", like a try. Never "confirm" or "cancel", and only in a free turn
    /// (`Recognizer::hear`, not `hear_reply`).
    Unsure(Command),
    /// Not a try possible on the player's own board, nor a command.
    Rejected,
}

impl Heard {
    /// One word for what was heard, as the tests and benches compare it: a try's UCI, a
    /// command's id ([`Command::id`]), the id and `?` for an unsure command, `rejected`.
    pub fn id(self) -> String {
        match self {
            Heard::Try(t) => t.to_uci(),
            Heard::Command(c) => c.id(),
            Heard::Unsure(c) => format!("{}?", c.id()),
            Heard::Rejected => "rejected".into(),
        }
    }
}

/// One turn's grammar for one player.
#[derive(Debug, Clone)]
pub struct TurnGrammar {
    color: Color,
    /// (man, try) for every try on his own board, in square order.
    tries: Vec<(Role, Try)>,
    jsgf: String,
}

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

fn last_rank(color: Color) -> Rank {
    match color {
        Color::White => Rank::Eighth,
        Color::Black => Rank::First,
    }
}

fn is_castling(role: Role, t: &Try) -> bool {
    role == Role::King && t.from.distance(t.to) == 2 && t.from.rank() == t.to.rank()
}

impl TurnGrammar {
    /// The grammar for `color` in `pos`. Only his men are looked at (the own-board move
    /// generator ignores the opponent's), whoever is to move in `pos`.
    pub fn new(pos: &Chess, color: Color) -> TurnGrammar {
        TurnGrammar::on_board(pos.board(), pos.castles(), color)
    }

    /// The grammar for `color` on a board that may hold his men alone, with the castling
    /// rights in `castles` (a player's terminal knows no more than his own board).
    pub fn on_board(board: &Board, castles: &Castles, color: Color) -> TurnGrammar {
        let mut tries = Vec::new();
        for from in board.by_color(color) {
            let Some(role) = board.role_at(from) else {
                continue;
            };
            for to in own_board_targets_on(board, castles, color, from) {
                tries.push((role, Try::new(from, to)));
            }
        }
        let jsgf = build_jsgf(color, &tries);
        TurnGrammar { color, tries, jsgf }
    }

    pub fn color(&self) -> Color {
        self.color
    }

    /// Every try this grammar can hear (promotions without a piece).
    pub fn tries(&self) -> impl Iterator<Item = Try> + '_ {
        self.tries.iter().map(|(_, t)| *t)
    }

    /// The man on a try's from-square.
    pub fn man(&self, t: Try) -> Option<Role> {
        self.tries
            .iter()
            .find(|(_, x)| x.from == t.from && x.to == t.to)
            .map(|(r, _)| *r)
    }

    /// The JSGF text handed to the decoder.
    pub fn jsgf(&self) -> &str {
        &self.jsgf
    }

    /// The try a "<man> takes <square>" short form names: only when it is the only try of
    /// such a man to that square (pawns: diagonal steps only).
    pub fn takes(&self, role: Role, to: Square) -> Option<Try> {
        let mut found = self.tries.iter().filter(|(r, t)| {
            *r == role && t.to == to && (role != Role::Pawn || t.from.file() != t.to.file())
        });
        let first = found.next()?;
        found.next().is_none().then_some(first.1)
    }

    /// The castling try on `side` (king's two-square move), if possible on his own board.
    pub fn castle(&self, kingside: bool) -> Option<Try> {
        self.tries
            .iter()
            .find(|(r, t)| is_castling(*r, t) && (t.to.file() > t.from.file()) == kingside)
            .map(|(_, t)| *t)
    }

    /// What a decoder's hypothesis means in this turn; `Rejected` for anything else.
    pub fn interpret(&self, hypothesis: &str) -> Heard {
        let words: Vec<&str> = hypothesis.split_whitespace().collect();
        let text = words.join(" ");
        if let Some(c) = Command::ALL.into_iter().find(|c| c.words() == text) {
            return Heard::Command(c);
        }
        self.interpret_try(&words)
            .map_or(Heard::Rejected, Heard::Try)
    }

    fn interpret_try(&self, words: &[&str]) -> Option<Try> {
        let square = |f: &str, r: &str| Some(Square::from_coords(file_of(f)?, rank_of(r)?));
        match words {
            ["castle", "kingside"] => self.castle(true),
            ["castle", "queenside"] => self.castle(false),
            [man, "takes", f, r] => self.takes(role_of(man)?, square(f, r)?),
            _ => {
                let (man, rest) = match words.first().and_then(|w| role_of(w)) {
                    Some(role) => (Some(role), &words[1..]),
                    None => (None, words),
                };
                let (promotion, rest) = match rest.split_last() {
                    Some((w, head)) if rest.len() == 6 => (Some(role_of(w)?), head),
                    _ => (None, rest),
                };
                let [f1, r1, "to", f2, r2] = rest else {
                    return None;
                };
                let mut t = Try::new(square(f1, r1)?, square(f2, r2)?);
                let role = self.man(t)?;
                if man.is_some_and(|m| m != role) {
                    return None;
                }
                if let Some(p) = promotion {
                    if role != Role::Pawn
                        || t.to.rank() != last_rank(self.color)
                        || !PROMOTIONS.contains(&p)
                    {
                        return None;
                    }
                    t.promotion = Some(p);
                }
                Some(t)
            }
        }
    }

    /// The words of a try in the long form, files in `names` (for synthesising test speech
    /// and for the echo).
    pub fn say(&self, t: Try, names: crate::FileNames, with_man: bool) -> String {
        let mut s = String::new();
        if with_man {
            if let Some(role) = self.man(t) {
                s.push_str(role_word(role));
                s.push(' ');
            }
        }
        s.push_str(&format!(
            "{} {} to {} {}",
            names.word(t.from.file()),
            rank_word(t.from.rank()),
            names.word(t.to.file()),
            rank_word(t.to.rank())
        ));
        if let Some(p) = t.promotion {
            s.push(' ');
            s.push_str(role_word(p));
        }
        s
    }
}

fn file_rule(f: File) -> String {
    format!("<f{}>", f.char())
}

fn square_words(sq: Square) -> String {
    format!("{} {}", file_rule(sq.file()), rank_word(sq.rank()))
}

/// The wide grammar: every form with any square, and every command, whatever the position.
pub fn wide_jsgf() -> String {
    let mut g = String::from("#JSGF V1.0;\ngrammar wide;\n");
    for f in File::ALL {
        let [a, b, c] = file_words(f);
        g.push_str(&format!("{} = ( {a} | {b} | {c} );\n", file_rule(f)));
    }
    let files: Vec<String> = File::ALL.iter().map(|f| file_rule(*f)).collect();
    let ranks: Vec<&str> = Rank::ALL.iter().map(|r| rank_word(*r)).collect();
    g.push_str(&format!(
        "<square> = ( {} ) ( {} );\n",
        files.join(" | "),
        ranks.join(" | ")
    ));
    let men: Vec<&str> = Role::ALL.iter().map(|r| role_word(*r)).collect();
    g.push_str(&format!("<man> = ( {} );\n", men.join(" | ")));
    let commands: Vec<String> = Command::ALL
        .iter()
        .map(|c| format!("( {} )", c.words()))
        .collect();
    g.push_str(&format!(
        "public <utterance> = {} | ( [ <man> ] <square> to <square> [ queen | rook | bishop | knight ] ) | ( <man> takes <square> ) | ( castle ( kingside | queenside ) );\n",
        commands.join(" | ")
    ));
    g
}

fn build_jsgf(color: Color, tries: &[(Role, Try)]) -> String {
    let mut g = String::from("#JSGF V1.0;\ngrammar kriegspiel;\n");
    for f in File::ALL {
        let [a, b, c] = file_words(f);
        g.push_str(&format!("{} = ( {a} | {b} | {c} );\n", file_rule(f)));
    }
    let mut alternatives: Vec<String> =
        Command::ALL.iter().map(|c| c.words().to_string()).collect();
    // Long forms, grouped by from-square.
    let mut by_from: BTreeMap<Square, (Role, Vec<Square>)> = BTreeMap::new();
    for (role, t) in tries {
        by_from
            .entry(t.from)
            .or_insert((*role, Vec::new()))
            .1
            .push(t.to);
    }
    for (from, (role, tos)) in &by_from {
        let targets: Vec<String> = tos
            .iter()
            .map(|to| {
                if *role == Role::Pawn && to.rank() == last_rank(color) {
                    format!("{} [ queen | rook | bishop | knight ]", square_words(*to))
                } else {
                    square_words(*to)
                }
            })
            .collect();
        alternatives.push(format!(
            "[ {} ] {} to ( {} )",
            role_word(*role),
            square_words(*from),
            targets.join(" | ")
        ));
    }
    // Short forms.
    let grammar = TurnGrammar {
        color,
        tries: tries.to_vec(),
        jsgf: String::new(),
    };
    for kingside in [true, false] {
        if grammar.castle(kingside).is_some() {
            alternatives.push(format!(
                "castle {}",
                if kingside { "kingside" } else { "queenside" }
            ));
        }
    }
    let mut short: BTreeMap<Role, Vec<Square>> = BTreeMap::new();
    for (role, t) in tries {
        if grammar.takes(*role, t.to) == Some(*t) {
            short.entry(*role).or_default().push(t.to);
        }
    }
    for (role, tos) in short {
        let squares: Vec<String> = tos.iter().map(|s| square_words(*s)).collect();
        alternatives.push(format!(
            "{} takes ( {} )",
            role_word(role),
            squares.join(" | ")
        ));
    }
    g.push_str("public <utterance> = ");
    g.push_str(
        &alternatives
            .iter()
            .map(|a| format!("( {a} )"))
            .collect::<Vec<_>>()
            .join("\n  | "),
    );
    g.push_str(";\n");
    g
}

/// A player's own board as a FEN: his men only, the castling rights of his rooks, no
/// en-passant square, `color` to move, and the move counters of a game's start. What the
/// players' socket tells a voice terminal, so that it never learns where the opponent's men
/// stand, nor, from the halfmove clock, whether the opponent's last move was a pawn's
/// (attack review).
pub fn own_board_fen(position: &Chess, color: Color) -> String {
    let mut setup = position.to_setup(EnPassantMode::Legal);
    let theirs = setup.board.by_color(!color);
    for sq in theirs {
        setup.board.discard_piece_at(sq);
    }
    setup.castling_rights &= setup.board.by_color(color);
    setup.ep_square = None;
    setup.turn = color;
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    Fen::try_from_setup(setup)
        .unwrap_or_else(shakmaty::fen::LossyFenError::ignore)
        .to_string()
}

/// Reads an own-board FEN ([`own_board_fen`]): his men and his castling rights.
pub fn read_own_board(fen: &str) -> Option<(Board, Castles)> {
    let setup = fen.trim().parse::<Fen>().ok()?.into_setup();
    let castles = Castles::from_setup(&setup, CastlingMode::Standard).unwrap_or_else(|c| c);
    Some((setup.board, castles))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The grammar from his own board alone (what a player's terminal gets) is the grammar
    /// from the whole position, and the own board tells nothing of the opponent's men.
    #[test]
    fn the_own_board_gives_the_same_grammar() {
        for (fen, color) in [
            (
                "r3k2r/pP3ppp/8/8/8/8/P4PPP/R3K2R w KQkq - 0 1",
                Color::White,
            ),
            (
                "r3k2r/pP3ppp/8/8/8/8/P4PPP/R3K2R w KQkq - 0 1",
                Color::Black,
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
                Color::White,
            ),
            ("4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1", Color::Black),
        ] {
            let own = own_board_fen(&pos(fen), color);
            let (board, castles) = read_own_board(&own).unwrap();
            assert!(board.by_color(!color).is_empty(), "{own}");
            let whole = TurnGrammar::new(&pos(fen), color);
            let alone = TurnGrammar::on_board(&board, &castles, color);
            assert_eq!(whole.jsgf(), alone.jsgf(), "{fen} {color}");
            assert!(whole.tries().count() > 0);
        }
        assert_eq!(
            own_board_fen(
                &pos("r3k2r/pP3ppp/8/8/8/8/P4PPP/R3K2R w KQkq - 0 1"),
                Color::Black
            ),
            "r3k2r/p4ppp/8/8/8/8/8/8 b kq - 0 1"
        );
        // The opponent's quiet moves leave no trace: the same men, the same line, whatever
        // the counters say (a knight's move after a pawn's once showed "2 4" for "0 2").
        let after = |fen: &str| own_board_fen(&pos(fen), Color::White);
        assert_eq!(
            after("r1bqkbnr/1ppp1ppp/p1n5/4P3/8/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 4"),
            after("rnbqkbnr/2pp1ppp/p7/4P3/1p6/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 5"),
        );
    }

    fn uci(h: Heard) -> String {
        h.id()
    }

    #[test]
    fn long_and_short_forms_are_understood() {
        let g = TurnGrammar::new(&Chess::default(), Color::White);
        assert_eq!(g.tries().count(), 34); // pawns may try every diagonal step
        assert_eq!(uci(g.interpret("knight golf one to foxtrot three")), "g1f3");
        assert_eq!(uci(g.interpret("g one to f three")), "g1f3");
        assert_eq!(uci(g.interpret("eva two to eva four")), "e2e4");
        assert_eq!(
            uci(g.interpret("bishop golf one to foxtrot three")),
            "rejected"
        );
        assert_eq!(uci(g.interpret("echo two to echo five")), "rejected");
        assert_eq!(uci(g.interpret("knight takes foxtrot three")), "g1f3");
        assert_eq!(uci(g.interpret("my men")), "my-men");
        assert_eq!(uci(g.interpret("offer draw")), "offer-draw");
        assert_eq!(uci(g.interpret("queen")), "queen");
        // Pawn "takes" only names diagonal steps (none possible here: no own man ahead).
        assert_eq!(uci(g.interpret("pawn takes echo four")), "rejected");
    }

    #[test]
    fn castling_promotion_and_ambiguous_takes() {
        let p = pos("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let g = TurnGrammar::new(&p, Color::White);
        assert_eq!(uci(g.interpret("castle kingside")), "e1g1");
        assert_eq!(uci(g.interpret("castle queenside")), "e1c1");
        assert_eq!(
            uci(g.interpret("bravo seven to bravo eight knight")),
            "b7b8n"
        );
        assert_eq!(uci(g.interpret("bravo seven to bravo eight")), "b7b8");
        // Both knights reach d2: "knight takes delta two" names no single try.
        let k = TurnGrammar::new(&pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"), Color::White);
        assert_eq!(k.takes(Role::Knight, Square::D2), None);
        assert_eq!(uci(k.interpret("knight takes delta two")), "rejected");
        assert_eq!(uci(k.interpret("knight takes golf three")), "f1g3");
        // The pawn's diagonal steps are short forms (the enemy rook on a8 is not seen).
        assert_eq!(uci(g.interpret("pawn takes alfa eight")), "b7a8");
        assert!(g.jsgf().contains("castle kingside"));
        // Black's grammar in the same position: only his men.
        let b = TurnGrammar::new(&p, Color::Black);
        assert_eq!(uci(b.interpret("castle queenside")), "e8c8");
        assert_eq!(uci(b.interpret("e one to g one")), "rejected");
    }

    #[test]
    fn answers_are_confirm_and_cancel() {
        assert_eq!(answer_of("yes"), Some(Command::Confirm));
        assert_eq!(answer_of(" confirm "), Some(Command::Confirm));
        assert_eq!(answer_of("no"), Some(Command::Cancel));
        assert_eq!(answer_of("cancel"), Some(Command::Cancel));
        assert_eq!(answer_of(""), None);
        assert_eq!(answer_of("yes no"), None);
        let g = answer_jsgf(None);
        assert!(
            g.contains("public <answer> = confirm | cancel | yes | no;"),
            "{g}"
        );
        // "yes" and "no" are no commands of a free turn.
        let turn = TurnGrammar::new(&Chess::default(), Color::White);
        assert_eq!(turn.interpret("yes"), Heard::Rejected);
        assert!(!turn.jsgf().contains("yes"));
    }

    #[test]
    fn said_forms_round_trip() {
        let p = pos("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let g = TurnGrammar::new(&p, Color::White);
        for t in g.tries() {
            for names in crate::FileNames::ALL {
                for man in [false, true] {
                    assert_eq!(g.interpret(&g.say(t, names, man)), Heard::Try(t));
                }
            }
        }
    }
}
