//! What a player's e-board shows that is no move of his: for the arbiter only. A board that
//! tells which piece stands where (a DGT board) shows the opponent's colour too; those men
//! are the player's guesses and never make a try.

use kriegspiel_referee::Lang;
use shakmaty::{Color, Piece, Square};

use crate::game::color_name;
use crate::output::role_name;

/// Something on one player's board that the table does not take as his men.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardNotice {
    /// Men of the opponent's colour newly put on his board: guess men, never tries.
    /// `on_board`: how many guess men stand on it now.
    GuessMen {
        placed: Vec<(Square, Piece)>,
        on_board: usize,
    },
    /// An object that is no chess man (a DGT result piece, an unknown code) on a square.
    Foreign { square: Square, code: u8 },
    /// A man of the opponent's colour put on his last rank as his pawn left: his promotion
    /// is not read from it.
    WrongPromotion { square: Square, piece: Piece },
}

impl BoardNotice {
    pub fn id(&self) -> &'static str {
        match self {
            BoardNotice::GuessMen { .. } => "guess-men",
            BoardNotice::Foreign { .. } => "foreign-object",
            BoardNotice::WrongPromotion { .. } => "wrong-promotion",
        }
    }

    /// The notice in words, `owner` being the player whose board it is.
    pub fn text(&self, owner: Color, lang: Lang) -> String {
        let who = color_name(owner, lang);
        let man = |p: &Piece| {
            let colour = match (p.color, lang) {
                (Color::White, Lang::En) => "white",
                (Color::Black, Lang::En) => "black",
                (Color::White, Lang::Fr) => "blanc",
                (Color::Black, Lang::Fr) => "noir",
                (Color::White, Lang::Ru) => "белый",
                (Color::Black, Lang::Ru) => "чёрный",
            };
            match lang {
                Lang::Fr => format!("{} {colour}", role_name(p.role, lang)),
                Lang::En | Lang::Ru => format!("{colour} {}", role_name(p.role, lang)),
            }
        };
        match (self, lang) {
            (BoardNotice::GuessMen { placed, on_board }, _) => {
                let list = placed
                    .iter()
                    .map(|(sq, p)| format!("{} {sq}", man(p)))
                    .collect::<Vec<_>>()
                    .join(", ");
                match lang {
                    Lang::En => format!(
                        "{who}'s board: guess men put down ({list}); not his men, never a try ({on_board} on the board)."
                    ),
                    Lang::Fr => format!(
                        "Échiquier des {who} : pièces de supposition posées ({list}) ; ni ses pièces ni un essai ({on_board} sur l'échiquier)."
                    ),
                    Lang::Ru => format!(
                        "Доска ({who}): поставлены фигуры-догадки ({list}); это не его фигуры и не попытка (на доске {on_board})."
                    ),
                }
            }
            (BoardNotice::Foreign { square, code }, Lang::En) => format!(
                "{who}'s board: a foreign object on {square} (DGT code {code}), not a man."
            ),
            (BoardNotice::Foreign { square, code }, Lang::Fr) => format!(
                "Échiquier des {who} : un objet étranger sur {square} (code DGT {code}), pas une pièce."
            ),
            (BoardNotice::Foreign { square, code }, Lang::Ru) => format!(
                "Доска ({who}): посторонний предмет на {square} (код DGT {code}), не фигура."
            ),
            (BoardNotice::WrongPromotion { square, piece }, Lang::En) => format!(
                "{who}'s board: a {} on {square} is not his colour; the promotion is not taken from it.",
                man(piece)
            ),
            (BoardNotice::WrongPromotion { square, piece }, Lang::Fr) => format!(
                "Échiquier des {who} : {} sur {square} n'est pas de sa couleur ; la promotion n'en est pas lue.",
                man(piece)
            ),
            (BoardNotice::WrongPromotion { square, piece }, Lang::Ru) => format!(
                "Доска ({who}): {} на {square} не его цвета; превращение по ней не принято.",
                man(piece)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    #[test]
    fn notices_name_the_board_the_square_and_the_man() {
        let knight = Piece {
            color: Color::Black,
            role: Role::Knight,
        };
        let guess = BoardNotice::GuessMen {
            placed: vec![(Square::F6, knight)],
            on_board: 16,
        };
        assert_eq!(
            guess.text(Color::White, Lang::En),
            "White's board: guess men put down (black knight f6); not his men, never a try (16 on the board)."
        );
        assert!(guess
            .text(Color::White, Lang::Fr)
            .contains("cavalier noir f6"));
        let foreign = BoardNotice::Foreign {
            square: Square::E4,
            code: 14,
        };
        assert_eq!(
            foreign.text(Color::Black, Lang::En),
            "Black's board: a foreign object on e4 (DGT code 14), not a man."
        );
        let wrong = BoardNotice::WrongPromotion {
            square: Square::E8,
            piece: Piece {
                color: Color::Black,
                role: Role::Queen,
            },
        };
        assert!(wrong
            .text(Color::White, Lang::En)
            .contains("a black queen on e8 is not his colour"));
        assert_eq!(
            [guess.id(), foreign.id(), wrong.id()],
            ["guess-men", "foreign-object", "wrong-promotion"]
        );
        for lang in [Lang::En, Lang::Fr, Lang::Ru] {
            assert!(wrong.text(Color::White, lang).contains("e8"));
        }
    }
}
