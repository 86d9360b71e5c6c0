//! The Russian set-up ("chess battle", docs/RULES.md §5), guided per player: the men each
//! player places appear as his board senses them (occupancy only: the arbiter names each
//! man with a click or types the set-up), every broken rule is named per side, and the
//! table opens only when both set-ups are valid together.

use std::collections::BTreeMap;

use egui::RichText;
use kriegspiel_hall::{TableNo, TableSetup, TableSpec};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{
    Bitboard, Board, ByColor, Color, Piece, Rank, Role, Setup, Square,
};
use kriegspiel_referee::{validate_russian, RuleSet, SetupError};

use crate::board::{self, Marks};
use crate::dialogs::Outcome;
use crate::style::{ALERT, GOOD};
use crate::words::color_name;

/// The standard starting position (a valid Russian set-up).
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

/// One player's set-up being composed.
#[derive(Debug, Clone, Default)]
pub struct Side {
    /// The men named so far.
    pub men: BTreeMap<Square, Role>,
}

/// The set-up dialog.
#[derive(Debug, Clone)]
pub struct SetupView {
    pub name: String,
    pub white_player: String,
    pub black_player: String,
    pub white_port: String,
    pub black_port: String,
    pub sides: ByColor<Side>,
    /// The role a click on a player's board names.
    pub role: Role,
    /// The open table whose boards are read (the players place their men on them).
    pub source_table: Option<TableNo>,
    pub fen: String,
    pub message: Option<String>,
}

/// The squares a side may use: its own first three ranks.
pub fn own_area(c: Color) -> Bitboard {
    let ranks = match c {
        Color::White => [Rank::First, Rank::Second, Rank::Third],
        Color::Black => [Rank::Eighth, Rank::Seventh, Rank::Sixth],
    };
    ranks
        .into_iter()
        .fold(Bitboard::EMPTY, |b, r| b | Bitboard::from_rank(r))
}

/// Everything wrong with one side's set-up, given what its board senses (`None`: no board
/// read). An empty list: this side is ready.
pub fn side_errors(c: Color, side: &Side, sensed: Option<Bitboard>) -> Vec<String> {
    let mut out = Vec::new();
    let named: Bitboard = side.men.keys().copied().collect();
    if let Some(sensed) = sensed {
        for sq in sensed & !named {
            out.push(format!(
                "{}: a man stands on {sq}: which one? (name it on the board)",
                color_name(c)
            ));
        }
        for sq in named & !sensed {
            out.push(format!(
                "{}: {sq} is named but the board senses it empty",
                color_name(c)
            ));
        }
    }
    // The side against the other's standard men: only this side's rules can break.
    let mut setup = Setup::initial();
    let ours = setup.board.by_color(c);
    for sq in ours {
        setup.board.discard_piece_at(sq);
    }
    for (sq, role) in &side.men {
        setup.board.set_piece_at(
            *sq,
            Piece {
                color: c,
                role: *role,
            },
        );
    }
    if let Err(e) = validate_russian(&setup) {
        out.push(e.to_string());
    }
    out
}

/// The two set-ups as one board.
pub fn combined(sides: &ByColor<Side>) -> Board {
    let mut b = Board::empty();
    for c in Color::ALL {
        for (sq, role) in &sides[c].men {
            b.set_piece_at(
                *sq,
                Piece {
                    color: c,
                    role: *role,
                },
            );
        }
    }
    b
}

/// The FEN of both set-ups with White to move, or the rule the pair breaks.
pub fn setup_fen(sides: &ByColor<Side>) -> Result<String, SetupError> {
    let mut setup = Setup::empty();
    setup.board = combined(sides);
    setup.turn = Color::White;
    validate_russian(&setup)?;
    Ok(Fen::try_from_setup(setup)
        .unwrap_or_else(|e| e.ignore())
        .to_string())
}

impl SetupView {
    pub fn new(n: usize, _demo: bool) -> SetupView {
        SetupView {
            name: format!("russian-{n}"),
            white_player: String::new(),
            black_player: String::new(),
            white_port: String::new(),
            black_port: String::new(),
            sides: Default::default(),
            role: Role::Pawn,
            source_table: None,
            fen: String::new(),
            message: None,
        }
    }

    /// Both sides from a FEN (the arbiter types it, or the standard set-up).
    pub fn load_fen(&mut self, fen: &str) -> Result<(), String> {
        let fen: Fen = fen.trim().parse().map_err(|e| format!("FEN: {e}"))?;
        let board = fen.into_setup().board;
        for c in Color::ALL {
            self.sides[c].men = (board.by_color(c))
                .into_iter()
                .filter_map(|sq| board.role_at(sq).map(|r| (sq, r)))
                .collect();
        }
        Ok(())
    }

    /// A click or key on a square of `c`'s set-up board: a click (Enter, Space) names the
    /// man there with the chosen role, or takes it away if it has that role already; a
    /// piece letter names it with that role (of this side, whatever the Shift); Delete takes
    /// it away.
    pub fn act(&mut self, c: Color, pick: board::Pick) {
        let sq = pick.square;
        let men = &mut self.sides[c].men;
        if !own_area(c).contains(sq) && pick.act != board::SquareAct::Clear {
            self.message = Some(format!(
                "{sq} is outside {}'s first three ranks",
                color_name(c)
            ));
            return;
        }
        match pick.act {
            board::SquareAct::Use => match men.get(&sq) {
                Some(r) if *r == self.role => {
                    men.remove(&sq);
                }
                _ => {
                    men.insert(sq, self.role);
                }
            },
            board::SquareAct::Put(piece) => {
                self.role = piece.role;
                men.insert(sq, piece.role);
            }
            board::SquareAct::Clear => {
                men.remove(&sq);
            }
        }
        self.message = None;
    }

    /// Draws the dialog; `sensed` are the source table's two boards.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        sensed: Option<ByColor<Bitboard>>,
        tables: &[(TableNo, String)],
    ) -> Outcome {
        let mut outcome = Outcome::Stay;
        crate::dialog("russian-setup", "Russian set-up").show(ctx, |ui| {
            ui.label(RichText::new("Russian set-up (chess battle)").size(28.0).strong());
            ui.label("Each player sets up his 16 men on his own first three ranks: pawns on the 2nd or 3rd rank, one per file; bishops on squares of both colours.");
            self.source_row(ui, tables);
            ui.horizontal_wrapped(|ui| {
                ui.label("A click names the man:");
                for role in Role::ALL {
                    ui.selectable_value(
                        &mut self.role,
                        role,
                        format!("{} {}", board::solid_glyph(role), board::role_name(role)),
                    );
                }
            });
            let mut ready = true;
            ui.horizontal_top(|ui| {
                for c in Color::ALL {
                    ready &= self.side_board(ui, c, sensed.map(|s| s[c]));
                }
            });
            let pair = setup_fen(&self.sides);
            if ready {
                if let Err(e) = &pair {
                    ui.label(RichText::new(e.to_string()).color(ALERT));
                }
            }
            self.fen_row(ui);
            self.players_row(ui);
            if let Some(m) = &self.message {
                ui.label(RichText::new(m).color(ALERT));
            }
            ui.horizontal(|ui| {
                let can = ready && pair.is_ok();
                if ui
                    .add_enabled(can, egui::Button::new(RichText::new("Start the game").size(24.0)))
                    .clicked()
                {
                    match self.spec() {
                        Ok(spec) => outcome = Outcome::Open(Box::new(spec)),
                        Err(e) => self.message = Some(e),
                    }
                }
                if ui.button(RichText::new("Cancel").size(24.0)).clicked() {
                    outcome = Outcome::Cancel;
                }
            });
        });
        outcome
    }

    /// The table's name and the open table whose boards are read.
    fn source_row(&mut self, ui: &mut egui::Ui, tables: &[(TableNo, String)]) {
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Table name");
            ui.text_edit_singleline(&mut self.name).labelled_by(l.id);
            let l = ui.label("Boards of table");
            egui::ComboBox::from_id_salt("setup-source")
                .selected_text(
                    self.source_table
                        .map_or("none".to_owned(), |n| format!("table {n}")),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.source_table, None, "none");
                    for (no, name) in tables {
                        ui.selectable_value(
                            &mut self.source_table,
                            Some(*no),
                            format!("table {no} ({name})"),
                        );
                    }
                })
                .response
                .labelled_by(l.id);
        });
    }

    /// One player's set-up board, what his board senses against it and what is wrong with
    /// it; true when his side is ready.
    fn side_board(&mut self, ui: &mut egui::Ui, c: Color, sensed: Option<Bitboard>) -> bool {
        let mut ready = true;
        ui.vertical(|ui| {
            ui.set_width(360.0);
            let mut b = Board::empty();
            for (sq, role) in &self.sides[c].men {
                b.set_piece_at(
                    *sq,
                    Piece {
                        color: c,
                        role: *role,
                    },
                );
            }
            let named: Bitboard = self.sides[c].men.keys().copied().collect();
            let marks = Marks {
                wrong: sensed.map_or(Bitboard::EMPTY, |s| s ^ named),
                touched: None,
                sensed: sensed.unwrap_or_default(),
            };
            ui.label(RichText::new(format!("{}'s set-up", color_name(c))).size(24.0));
            let label = format!("{}'s set-up board", color_name(c));
            let prefix = format!("{}'s set-up: ", color_name(c));
            let salt = format!("setup-{}", color_name(c));
            let look = board::Look {
                label: &label,
                flipped: c == Color::Black,
                squares: Some(&salt),
                square_prefix: &prefix,
            };
            let (_, pick) = board::draw(ui, 340.0, Some(&b), &marks, &look);
            if let Some(pick) = pick {
                self.act(c, pick);
            }
            let errors = side_errors(c, &self.sides[c], sensed);
            if errors.is_empty() {
                ui.label(RichText::new(format!("{}: ready", color_name(c))).color(GOOD));
            } else {
                ready = false;
            }
            for e in errors {
                ui.label(RichText::new(e).color(ALERT));
            }
        });
        ready
    }

    /// The set-up as a FEN: typed and loaded, the standard one, or cleared.
    fn fen_row(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Set-up FEN");
            ui.add(egui::TextEdit::singleline(&mut self.fen).desired_width(520.0))
                .labelled_by(l.id);
            if ui.button("Load FEN").clicked() {
                let fen = self.fen.clone();
                self.message = self.load_fen(&fen).err();
            }
            if ui.button("Standard set-up").clicked() {
                self.message = self.load_fen(START_FEN).err();
            }
            if ui.button("Clear").clicked() {
                self.sides = Default::default();
            }
        });
    }

    /// The players' names and their boards' ports.
    fn players_row(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for (label, value) in [
                ("White player", &mut self.white_player),
                ("Black player", &mut self.black_player),
                ("White's port", &mut self.white_port),
                ("Black's port", &mut self.black_port),
            ] {
                let l = ui.label(label);
                ui.add(egui::TextEdit::singleline(value).desired_width(160.0))
                    .labelled_by(l.id);
            }
        });
    }

    /// The table the finished set-up opens.
    pub fn spec(&self) -> Result<TableSpec, String> {
        let fen = setup_fen(&self.sides).map_err(|e| e.to_string())?;
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let name = text(&self.name).ok_or("Table name: a table needs a name")?;
        let setup = TableSetup {
            rules: RuleSet::Russian.id().to_owned(),
            fen: Some(fen),
            white_player: text(&self.white_player),
            black_player: text(&self.black_player),
            ..TableSetup::default()
        };
        setup.config().map_err(|e| e.to_string())?;
        let port = |p: &str, label: &str| crate::new_game::board(p, label);
        Ok(TableSpec {
            name,
            setup,
            white: port(&self.white_port, "White's port")?,
            black: port(&self.black_port, "Black's port")?,
            scripted: Vec::new(),
            resume: kriegspiel_hall::Resume::New,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side_from(fen: &str, c: Color) -> Side {
        let mut v = SetupView::new(1, false);
        v.load_fen(fen).unwrap();
        v.sides[c].clone()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

    #[test]
    fn the_standard_set_up_is_ready_on_both_sides() {
        for c in Color::ALL {
            let s = side_from(START, c);
            assert!(side_errors(c, &s, None).is_empty());
            let sensed = Board::default().by_color(c);
            assert!(side_errors(c, &s, Some(sensed)).is_empty());
        }
        let mut v = SetupView::new(1, false);
        v.load_fen(START).unwrap();
        let spec = v.spec().unwrap();
        assert_eq!(spec.setup.rules, "russian");
    }

    #[test]
    fn each_broken_rule_is_named() {
        // Two white pawns on the c-file.
        let s = side_from(
            "rnbqkbnr/pppppppp/8/8/8/2P5/PP1PPPPP/RNBQKBNR w - - 0 1",
            Color::White,
        );
        let mut s2 = s.clone();
        s2.men.remove(&Square::D2);
        s2.men.insert(Square::C2, Role::Pawn);
        let e = side_errors(Color::White, &s2, None).join("\n");
        assert!(e.contains("one pawn per file"), "{e}");
        // A bishop pair on one colour.
        let mut s3 = side_from(START, Color::White);
        s3.men.remove(&Square::F1);
        s3.men.remove(&Square::G1);
        s3.men.insert(Square::G1, Role::Bishop);
        s3.men.insert(Square::F1, Role::Knight);
        s3.men.remove(&Square::C1);
        s3.men.insert(Square::E3, Role::Bishop);
        s3.men.remove(&Square::E2);
        s3.men.insert(Square::C1, Role::Pawn);
        let e = side_errors(Color::White, &s3, None).join("\n");
        assert!(!e.is_empty());
        // Missing men and unnamed sensed men.
        let mut s4 = side_from(START, Color::Black);
        s4.men.remove(&Square::A7);
        let sensed = Board::default().by_color(Color::Black);
        let e = side_errors(Color::Black, &s4, Some(sensed)).join("\n");
        assert!(e.contains("a7: which one"), "{e}");
        assert!(e.contains("8 Pawn(s) expected, 7 found"), "{e}");
    }
}
