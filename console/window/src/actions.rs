//! The arbiter's actions on the table shown: the buttons (start the clocks, pause, take
//! back, adjudicate, void, repeat), the square tool and corrections on the official board,
//! a typed correction, and the PGN export. They are returned as [`Intent`]s; the row keeps
//! only its own fields (the tool, the typed correction, the file name).

use std::path::Path;

use egui::{Key, RichText, Ui};
use kriegspiel_hall::{GameId, TableNo};
use kriegspiel_referee::shakmaty::{Board, Color, Piece, Role};
use kriegspiel_table::arbiter_words::parse_action;
use kriegspiel_table::ArbiterAction;

use crate::app::Intent;
use crate::board;
use crate::dialogs::Dialog;
use crate::export::{pgn_file_name, tilde};
use crate::store::TableState;
use crate::words::piece_words;

/// What a click on the official board does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Put(Piece),
    Remove,
}

/// The action rows' own fields.
#[derive(Debug)]
pub(crate) struct Actions {
    tool: Tool,
    correction: String,
    export_path: String,
    /// The table and game the PGN file name was proposed for.
    export_for: Option<(TableNo, GameId)>,
}

impl Actions {
    pub fn new() -> Actions {
        Actions {
            tool: Tool::Remove,
            correction: String::new(),
            // Proposed when a table is shown.
            export_path: String::new(),
            export_for: None,
        }
    }

    /// The action rows of table `t` (exports proposed in `export_dir`).
    pub fn show(&mut self, ui: &mut Ui, t: &TableState, export_dir: &Path, out: &mut Vec<Intent>) {
        buttons(ui, t, out);
        self.tools(ui);
        self.correction_row(ui, t, out);
        self.export_row(ui, t, export_dir, out);
    }

    /// The square tools: remove a man, or put one of the twelve.
    fn tools(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Square tool:");
            let mut tools = vec![(Tool::Remove, "✕".to_owned(), "remove a man".to_owned())];
            for color in Color::ALL {
                for role in Role::ALL {
                    let p = Piece { color, role };
                    tools.push((
                        Tool::Put(p),
                        board::glyph(p).to_string(),
                        format!("put a {color} {}", board::role_name(role)),
                    ));
                }
            }
            for (tool, glyph, words) in tools {
                let selected = self.tool == tool;
                let r = ui.selectable_label(selected, RichText::new(glyph).size(28.0));
                let label = format!("Tool: {words}");
                r.widget_info(|| {
                    egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label)
                });
                if r.on_hover_text(&words).clicked() {
                    self.tool = tool;
                }
            }
        });
    }

    fn correction_row(&mut self, ui: &mut Ui, t: &TableState, out: &mut Vec<Intent>) {
        let over = t.is_over();
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Correction (FEN, put e4 Q, remove e4):");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.correction)
                        .desired_width(420.0)
                        .hint_text("FEN or put/remove"),
                )
                .labelled_by(l.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if ui
                .add_enabled(!over, egui::Button::new("Apply correction"))
                .clicked()
                || (enter && !over)
            {
                out.push(self.correction_typed(t.no));
            }
        });
    }

    fn export_row(
        &mut self,
        ui: &mut Ui,
        t: &TableState,
        export_dir: &Path,
        out: &mut Vec<Intent>,
    ) {
        let no = t.no;
        // A file name after the event, the table and the game, proposed again when another
        // table or game is shown.
        if self.export_for != Some((no, t.game)) {
            self.export_for = Some((no, t.game));
            let event = t.setup.as_ref().and_then(|s| s.event.as_deref());
            let name = pgn_file_name(event, &t.name, t.game);
            self.export_path = tilde(&export_dir.join(name));
        }
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("PGN file:");
            ui.add(egui::TextEdit::singleline(&mut self.export_path).desired_width(560.0))
                .labelled_by(l.id);
            if ui.button("Export PGN").clicked() {
                out.push(Intent::Export {
                    table: no,
                    path: self.export_path.trim().to_owned(),
                    replace: false,
                });
            }
        });
    }

    /// The correction typed: one to confirm, or why it is none.
    fn correction_typed(&self, no: TableNo) -> Intent {
        let text = self.correction.trim().to_owned();
        let words: Vec<&str> = text.split_whitespace().collect();
        let parsed = match words.first() {
            Some(&"put") | Some(&"remove") | Some(&"fen") => parse_action(&words),
            Some(_) => parse_action(&[&["fen"], words.as_slice()].concat()),
            None => Err("type a FEN, 'put e4 Q' or 'remove e4'".to_owned()),
        };
        match parsed {
            Ok(
                a @ (ArbiterAction::Put { .. }
                | ArbiterAction::Remove { .. }
                | ArbiterAction::SetPosition { .. }),
            ) => Intent::Ask {
                table: no,
                action: a,
            },
            Ok(other) => Intent::Status(format!("Not a correction: {}", other.id())),
            Err(e) => Intent::Status(format!("Correction not understood: {e}")),
        }
    }

    /// A click or a key on a square of the official board: a correction to confirm, or
    /// why there is nothing to correct.
    pub fn square_act(
        &self,
        t: &TableState,
        pick: board::Pick,
        official: Option<&Board>,
    ) -> Intent {
        let sq = pick.square;
        if t.is_over() {
            return Intent::Status(format!(
                "Table {}: the game is over; nothing to correct.",
                t.no
            ));
        }
        let there = official.and_then(|b| b.piece_at(sq));
        let put = match (pick.act, self.tool) {
            (board::SquareAct::Put(piece), _) | (board::SquareAct::Use, Tool::Put(piece)) => {
                Some(piece)
            }
            (board::SquareAct::Clear, _) | (board::SquareAct::Use, Tool::Remove) => None,
        };
        let action = match (put, there) {
            (Some(piece), Some(p)) if p == piece => {
                return Intent::Status(format!("A {} already stands on {sq}.", piece_words(piece)));
            }
            (Some(piece), _) => ArbiterAction::Put { square: sq, piece },
            (None, None) => {
                return Intent::Status(format!("{sq} is already empty: nothing to remove."));
            }
            (None, Some(_)) => ArbiterAction::Remove { square: sq },
        };
        Intent::Ask {
            table: t.no,
            action,
        }
    }
}

/// The buttons that act on the game at once, or open its dialogs.
fn buttons(ui: &mut Ui, t: &TableState, out: &mut Vec<Intent>) {
    let no = t.no;
    let over = t.is_over();
    let send = |action| Intent::Send { table: no, action };
    ui.horizontal_wrapped(|ui| {
        if t.clocks_waiting() && !over && ui.button("Start clocks").clicked() {
            out.push(send(ArbiterAction::StartClocks));
        }
        if t.paused() {
            if ui.add_enabled(!over, egui::Button::new("Resume")).clicked() {
                out.push(send(ArbiterAction::Resume));
            }
        } else if ui.add_enabled(!over, egui::Button::new("Pause")).clicked() {
            out.push(send(ArbiterAction::Pause));
        }
        if ui
            .add_enabled(!over, egui::Button::new("Take back"))
            .clicked()
        {
            out.push(Intent::Ask {
                table: no,
                action: ArbiterAction::TakeBack,
            });
        }
        if ui
            .add_enabled(!over, egui::Button::new("Adjudicate…"))
            .clicked()
        {
            out.push(Intent::Dialog(Dialog::Adjudicate));
        }
        if ui.add_enabled(!over, egui::Button::new("Void…")).clicked() {
            out.push(Intent::Dialog(Dialog::Void));
        }
        if ui
            .add_enabled(!over, egui::Button::new("Repeat announcement"))
            .clicked()
        {
            out.push(send(ArbiterAction::Repeat));
        }
    });
}
