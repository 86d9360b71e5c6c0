//! The arbiter's dialogs, one open at a time: a confirmation before an action that changes
//! a game, the adjudication, voiding a game, closing the window with games unfinished,
//! replacing an exported file, the two dialogs that open a table (a new game, a Russian
//! set-up), and an action typed for a table another console runs. Each edits its own
//! fields; what it decides is returned as [`Intent`]s.

use kriegspiel_hall::{TableNo, TableSpec};
use kriegspiel_referee::GameResult;
use kriegspiel_table::arbiter_words::parse_action;
use kriegspiel_table::game::MAX_REASON;
use kriegspiel_table::ArbiterAction;

use crate::app::Intent;
use crate::new_game::NewGame;
use crate::setup::SetupView;
use crate::store::Store;
use crate::style::big;
use crate::words::action_words;

/// What a dialog that opens a table asks for after a frame.
#[derive(Debug)]
pub enum Outcome {
    Stay,
    Cancel,
    Open(Box<TableSpec>),
}

/// A dialog a button opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialog {
    /// The new-game dialog; its table would be the hall's `n`th.
    NewGame { n: usize },
    /// The Russian set-up; its table would be the hall's `n`th.
    RussianSetup { n: usize },
    /// The adjudication of the table shown.
    Adjudicate,
    /// Voiding the game of the table shown.
    Void,
    /// An action typed for table `table`, which another console runs.
    Remote { table: TableNo },
}

/// An action waiting for the arbiter's confirmation.
#[derive(Debug, Clone)]
pub(crate) struct Confirm {
    table: TableNo,
    action: ArbiterAction,
    question: String,
    /// The Confirm button has been given the keyboard focus.
    focused: bool,
    /// The widget that had the focus when the question was asked (a square): it gets it
    /// back when the question is answered.
    pub return_focus: Option<egui::Id>,
}

impl Confirm {
    pub fn new(table: TableNo, action: ArbiterAction, return_focus: Option<egui::Id>) -> Confirm {
        let question = format!("Table {table}: {}?", action_words(&action));
        Confirm {
            table,
            action,
            question,
            focused: false,
            return_focus,
        }
    }
}

/// The dialogs' state: the open one, and what it holds.
#[derive(Debug, Default)]
pub(crate) struct Dialogs {
    pub confirm: Option<Confirm>,
    /// The adjudication dialog: the result the arbiter chose (none yet), the reason.
    pub adjudicate: Option<(Option<GameResult>, String)>,
    pub void_reason: Option<String>,
    pub new_game: Option<NewGame>,
    pub setup: Option<SetupView>,
    /// The window was asked to close while games were unfinished: the question is open.
    pub closing: bool,
    /// The export waiting for the arbiter's leave to replace an existing file: the table,
    /// the path.
    pub overwrite: Option<(TableNo, String)>,
    /// The action being typed for another console's table: the table, the words.
    pub remote: Option<(TableNo, String)>,
}

/// The reason typed, or the arbiter's decision when none was.
fn reason_or_decision(reason: &str) -> String {
    if reason.trim().is_empty() {
        "arbiter's decision".to_owned()
    } else {
        reason.trim().to_owned()
    }
}

impl Dialogs {
    /// Whether a dialog is open (the window's keys are then the dialog's).
    pub fn any_open(&self) -> bool {
        self.confirm.is_some()
            || self.closing
            || self.overwrite.is_some()
            || self.new_game.is_some()
            || self.adjudicate.is_some()
            || self.void_reason.is_some()
            || self.setup.is_some()
            || self.remote.is_some()
    }

    pub fn close_all(&mut self) {
        *self = Dialogs::default();
    }

    /// Opens a dialog (`demo`: simulated boards can be chosen).
    pub fn open(&mut self, dialog: Dialog, demo: bool) {
        match dialog {
            Dialog::NewGame { n } => self.new_game = Some(NewGame::new(n, demo)),
            Dialog::RussianSetup { n } => self.setup = Some(SetupView::new(n, demo)),
            Dialog::Adjudicate => self.adjudicate = Some((None, String::new())),
            Dialog::Void => self.void_reason = Some(String::new()),
            Dialog::Remote { table } => self.remote = Some((table, String::new())),
        }
    }

    /// Draws the open dialog, if any (`table`: the table shown, which the adjudication and
    /// voiding are about; `demo_timing`: the pace of simulated boards, if they are offered).
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        s: &Store,
        table: Option<TableNo>,
        demo_timing: Option<kriegspiel_games::Timing>,
    ) -> Vec<Intent> {
        let mut out = Vec::new();
        if self.closing {
            self.close_dialog(ctx, unfinished(s), &mut out);
        } else if let Some((no, path)) = self.overwrite.clone() {
            self.overwrite_dialog(ctx, no, path, &mut out);
        } else if let Some(c) = self.confirm.clone() {
            self.confirm_dialog(ctx, c, &mut out);
        } else if self.remote.is_some() {
            self.remote_dialog(ctx, s, &mut out);
        } else if let (Some(no), true) = (table, self.adjudicate.is_some()) {
            self.adjudicate_dialog(ctx, no, &mut out);
        } else if let (Some(no), true) = (table, self.void_reason.is_some()) {
            self.void_dialog(ctx, no, &mut out);
        } else if let Some(g) = self.new_game.as_mut() {
            match g.show(ctx, demo_timing) {
                Outcome::Open(spec) => {
                    self.new_game = None;
                    out.push(Intent::Open(spec));
                }
                Outcome::Cancel => self.new_game = None,
                Outcome::Stay => {}
            }
        } else if let Some(setup) = self.setup.as_mut() {
            let sensed = setup
                .source_table
                .and_then(|no| s.tables.get(&no))
                .and_then(|t| t.view.as_ref())
                .map(|v| v.boards.map(|b| b.occupancy));
            let tables: Vec<(TableNo, String)> =
                s.tables.values().map(|t| (t.no, t.name.clone())).collect();
            match setup.show(ctx, sensed, &tables) {
                Outcome::Open(spec) => {
                    self.setup = None;
                    out.push(Intent::Open(spec));
                }
                Outcome::Cancel => self.setup = None,
                Outcome::Stay => {}
            }
        }
        out
    }

    fn confirm_dialog(&mut self, ctx: &egui::Context, c: Confirm, out: &mut Vec<Intent>) {
        let r = crate::dialog("confirm", "Confirmation").show(ctx, |ui| {
            ui.label(big(&c.question));
            let mut done = None;
            ui.horizontal(|ui| {
                let yes = ui.button(big("Confirm"));
                if !c.focused {
                    // Enter confirms, Esc cancels, Tab reaches Cancel.
                    yes.request_focus();
                }
                if yes.clicked() {
                    done = Some(true);
                }
                if ui.button(big("Cancel")).clicked() {
                    done = Some(false);
                }
            });
            done
        });
        if let Some(open) = self.confirm.as_mut() {
            open.focused = true;
        }
        let answered = match r.inner {
            Some(true) => {
                out.push(Intent::Send {
                    table: c.table,
                    action: c.action,
                });
                true
            }
            Some(false) => {
                out.push(Intent::Status("Cancelled.".to_owned()));
                true
            }
            None => r.should_close(),
        };
        if answered {
            self.confirm = None;
            if let Some(id) = c.return_focus {
                out.push(Intent::Refocus(id));
            }
        }
    }

    /// An action for another console's table, in the arbiter's words as on standard input:
    /// what it would do is shown before it can be sent, and a mistake is named.
    fn remote_dialog(&mut self, ctx: &egui::Context, s: &Store, out: &mut Vec<Intent>) {
        let Some((table, text)) = self.remote.as_mut() else {
            return;
        };
        let table = *table;
        let Some(remote) = s.remote.get(&table) else {
            // The table is gone from the round's news: nothing to send it to.
            self.remote = None;
            return;
        };
        let console = remote.summary.console.clone();
        // As on the card: nothing goes to a console that is not there, or to a game over.
        let open = !remote.summary.over
            && matches!(
                s.console(&console),
                Some((kriegspiel_net::Status::Online { .. }, _))
            );
        let mut go = None;
        let r = crate::dialog("remote", "Arbiter action").show(ctx, |ui| {
            ui.label(big(format!("Table {table}, run by console {console}")));
            ui.label(
                "In the arbiter's words: takeback · adjudicate 1-0 REASON · void REASON · \
                 put e4 P (a FEN letter: p for a black pawn) · remove e4 · fen FEN · repeat · \
                 pause · resume · start",
            );
            let l = ui.label("Action:");
            let field = ui.text_edit_singleline(text).labelled_by(l.id);
            if !field.has_focus() && text.is_empty() {
                field.request_focus();
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            let parsed = (!words.is_empty()).then(|| parse_action(&words));
            match &parsed {
                Some(Ok(a)) => ui.label(format!("Will {}.", action_words(a))),
                Some(Err(e)) => ui.label(egui::RichText::new(e).color(crate::style::ALERT)),
                None => ui.label(""),
            };
            if !open {
                ui.label(
                    egui::RichText::new(format!(
                        "Console {console} is not there, or the game is over: nothing can be sent."
                    ))
                    .color(crate::style::ALERT),
                );
            }
            let action = parsed.and_then(Result::ok).filter(|_| open);
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                let send = ui.add_enabled(
                    action.is_some(),
                    egui::Button::new(format!("Send to console {console}")),
                );
                if send.clicked() || enter {
                    go = action.clone().map(Some);
                }
                if ui.button("Cancel").clicked() {
                    go = Some(None);
                }
            });
        });
        if r.should_close() {
            go = Some(None);
        }
        match go {
            Some(Some(action)) => {
                self.remote = None;
                out.push(Intent::Remote {
                    table,
                    console,
                    action,
                });
            }
            Some(None) => self.remote = None,
            None => {}
        }
    }

    fn adjudicate_dialog(&mut self, ctx: &egui::Context, no: TableNo, out: &mut Vec<Intent>) {
        let Some((result, reason)) = self.adjudicate.as_mut() else {
            return;
        };
        let mut go = None;
        crate::dialog("adjudicate", "Adjudication").show(ctx, |ui| {
            ui.label(big(format!("Adjudicate table {no}")));
            ui.horizontal(|ui| {
                ui.radio_value(result, Some(GameResult::WhiteWins), "1-0 White wins");
                ui.radio_value(result, Some(GameResult::BlackWins), "0-1 Black wins");
                ui.radio_value(result, Some(GameResult::Draw), "½-½ Draw");
            });
            let l = ui.label("Reason:");
            ui.add(egui::TextEdit::singleline(reason).char_limit(MAX_REASON))
                .labelled_by(l.id);
            ui.horizontal(|ui| {
                // No result until the arbiter picks one.
                let ok = ui.add_enabled(result.is_some(), egui::Button::new("Adjudicate"));
                if ok.clicked() {
                    go = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    go = Some(false);
                }
            });
        });
        match (go, *result) {
            (Some(true), Some(result)) => {
                let action = ArbiterAction::Adjudicate {
                    result,
                    reason: reason_or_decision(reason),
                };
                self.adjudicate = None;
                out.push(Intent::Ask { table: no, action });
            }
            (Some(false), _) => self.adjudicate = None,
            _ => {}
        }
    }

    fn void_dialog(&mut self, ctx: &egui::Context, no: TableNo, out: &mut Vec<Intent>) {
        let Some(reason) = self.void_reason.as_mut() else {
            return;
        };
        let mut go = None;
        crate::dialog("void", "Void the game").show(ctx, |ui| {
            ui.label(big(format!("Void the game at table {no}")));
            let l = ui.label("Reason:");
            ui.add(egui::TextEdit::singleline(reason).char_limit(MAX_REASON))
                .labelled_by(l.id);
            ui.horizontal(|ui| {
                if ui.button("Void the game").clicked() {
                    go = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    go = Some(false);
                }
            });
        });
        match go {
            Some(true) => {
                let action = ArbiterAction::Void {
                    reason: reason_or_decision(reason),
                };
                self.void_reason = None;
                out.push(Intent::Ask { table: no, action });
            }
            Some(false) => self.void_reason = None,
            None => {}
        }
    }

    /// Closing the window while `n` games are unfinished.
    fn close_dialog(&mut self, ctx: &egui::Context, n: usize, out: &mut Vec<Intent>) {
        let mut go = None;
        crate::dialog("close", "Close the window?").show(ctx, |ui| {
            ui.label(big(if n == 1 {
                "1 game is not finished.".to_owned()
            } else {
                format!("{n} games are not finished.")
            }));
            ui.label(
                "Closing the window stops every table. The journal keeps the games: \
                 starting the console again with the same tables resumes them.",
            );
            ui.horizontal(|ui| {
                if ui.button(big("Keep the window open")).clicked() {
                    go = Some(false);
                }
                if ui.button(big("Close the window")).clicked() {
                    go = Some(true);
                }
            });
        });
        // The games ended meanwhile: closing is what was asked.
        let go = if n == 0 { Some(true) } else { go };
        match go {
            Some(true) => {
                self.closing = false;
                out.push(Intent::Close);
            }
            Some(false) => {
                self.closing = false;
                out.push(Intent::Status("The window stays open.".to_owned()));
            }
            None => {}
        }
    }

    fn overwrite_dialog(
        &mut self,
        ctx: &egui::Context,
        no: TableNo,
        path: String,
        out: &mut Vec<Intent>,
    ) {
        let mut go = None;
        crate::dialog("overwrite", "Replace the file?").show(ctx, |ui| {
            ui.label(big(format!("{path} already exists.")));
            ui.label(format!("Replace it with the PGN of table {no}'s game?"));
            ui.horizontal(|ui| {
                if ui.button(big("Replace the file")).clicked() {
                    go = Some(true);
                }
                if ui.button(big("Cancel")).clicked() {
                    go = Some(false);
                }
            });
        });
        match go {
            Some(true) => {
                self.overwrite = None;
                out.push(Intent::Export {
                    table: no,
                    path,
                    replace: true,
                });
            }
            Some(false) => {
                self.overwrite = None;
                out.push(Intent::Status(format!(
                    "Not exported: {path} kept as it was."
                )));
            }
            None => {}
        }
    }
}

/// The games still being played (not over, not stopped by a failure).
pub(crate) fn unfinished(s: &Store) -> usize {
    s.tables
        .values()
        .filter(|t| !t.is_over() && t.failed.is_none())
        .count()
}
