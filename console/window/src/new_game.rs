//! The new-game dialog: a table's name, players, rule set and options, language, time
//! control, settle time and boards (simulated ones playing the rule set's demo game, or
//! serial ports), and the table spec they make. The Russian set-up has a dialog of its own
//! (`setup`).

use egui::{RichText, Ui};
use kriegspiel_games::Timing;
use kriegspiel_hall::{BoardSource, Resume, TableSetup, TableSpec};
use kriegspiel_referee::RuleSet;

use crate::dialogs::Outcome;
use crate::style::{big, reserved_message};

/// The new-game dialog's fields.
#[derive(Debug, Clone)]
pub(crate) struct NewGame {
    name: String,
    white_player: String,
    black_player: String,
    rules: RuleSet,
    options: String,
    lang: String,
    time_control: String,
    settle_ms: u32,
    simulated: bool,
    white_port: String,
    black_port: String,
    error: Option<String>,
}

/// A text field with its label, on a row of the dialog's grid.
fn field(ui: &mut Ui, label: &str, value: &mut String) {
    let l = ui.label(label);
    ui.text_edit_singleline(value).labelled_by(l.id);
    ui.end_row();
}

impl NewGame {
    /// The dialog for the hall's `n`th table (`simulated`: simulated boards are chosen).
    pub fn new(n: usize, simulated: bool) -> NewGame {
        NewGame {
            name: format!("table-{n}"),
            white_player: String::new(),
            black_player: String::new(),
            rules: RuleSet::Cincinnati,
            options: String::new(),
            lang: "en".to_owned(),
            time_control: "none".to_owned(),
            settle_ms: kriegspiel_table::SETTLE_MS,
            simulated,
            white_port: String::new(),
            black_port: String::new(),
            error: None,
        }
    }

    /// Draws the dialog (`demo_timing`: simulated boards are offered, at this pace). The
    /// table opens only with a spec every field agrees with; else the dialog says why.
    pub fn show(&mut self, ctx: &egui::Context, demo_timing: Option<Timing>) -> Outcome {
        let demo = demo_timing.is_some();
        let mut go = None;
        crate::dialog("new-game", "New game").show(ctx, |ui| {
            ui.label(big("New game"));
            egui::Grid::new("new-game-grid")
                .num_columns(2)
                .spacing([12.0, 8.0])
                .show(ui, |ui| self.fields(ui, demo));
            reserved_message(ui, self.error.as_deref(), 2);
            ui.horizontal(|ui| {
                if ui.button(big("Open the table")).clicked() {
                    go = Some(true);
                }
                if ui.button(big("Cancel")).clicked() {
                    go = Some(false);
                }
            });
        });
        match go {
            Some(true) => match self.spec(demo_timing) {
                Ok(spec) => Outcome::Open(Box::new(spec)),
                Err(e) => {
                    self.error = Some(e);
                    Outcome::Stay
                }
            },
            Some(false) => Outcome::Cancel,
            None => Outcome::Stay,
        }
    }

    /// The grid's rows, field by field.
    fn fields(&mut self, ui: &mut Ui, demo: bool) {
        field(ui, "Table name", &mut self.name);
        field(ui, "White player", &mut self.white_player);
        field(ui, "Black player", &mut self.black_player);
        ui.label("Rule set");
        // Rows of their own (a wrapping row in a grid cell overlapped the next field with
        // its last line).
        ui.vertical(|ui| {
            for row in RuleSet::ALL.chunks(4) {
                ui.horizontal(|ui| {
                    for r in row {
                        ui.radio_value(&mut self.rules, *r, r.id());
                    }
                });
            }
        });
        ui.end_row();
        let l = ui.label("Options (key=value, …)");
        ui.vertical(|ui| {
            ui.add_enabled(
                !self.simulated,
                egui::TextEdit::singleline(&mut self.options),
            )
            .labelled_by(l.id);
            if self.simulated {
                ui.label(
                    RichText::new(format!(
                        "Not with simulated boards: they play the {} demo game, \
                         scripted for the rule set's own options.",
                        self.rules.id()
                    ))
                    .size(17.0),
                );
            }
        });
        ui.end_row();
        ui.label("Language");
        ui.horizontal(|ui| {
            for (l, words) in [
                ("en", "en English"),
                ("fr", "fr français"),
                ("ru", "ru русский"),
            ] {
                ui.radio_value(&mut self.lang, l.to_owned(), words);
            }
        });
        ui.end_row();
        field(ui, "Time control (25+10 or none)", &mut self.time_control);
        let l = ui.label("Settle time (ms)");
        ui.add(egui::DragValue::new(&mut self.settle_ms).range(kriegspiel_table::SETTLE_RANGE))
            .labelled_by(l.id);
        ui.end_row();
        self.boards(ui, demo);
    }

    /// The boards: simulated (only in a window started with --demo) or serial ports (a
    /// DGT board as dgt:PATH).
    fn boards(&mut self, ui: &mut Ui, demo: bool) {
        ui.label("Boards");
        ui.vertical(|ui| {
            ui.horizontal(|ui| {
                ui.add_enabled_ui(demo, |ui| {
                    ui.radio_value(&mut self.simulated, true, "simulated (demo game)");
                });
                ui.radio_value(&mut self.simulated, false, "serial ports");
            });
            if !demo {
                ui.label(
                    RichText::new("Simulated boards: only in a window started with --demo.")
                        .size(17.0),
                );
            }
        });
        ui.end_row();
        if !self.simulated {
            field(ui, "White's port (empty: none)", &mut self.white_port);
            field(ui, "Black's port (empty: none)", &mut self.black_port);
        }
    }

    /// The table the dialog describes: every field shown is in it (the options only on
    /// serial ports: simulated boards play a scripted demo game).
    pub fn spec(&self, demo_timing: Option<Timing>) -> Result<TableSpec, String> {
        let name = self.name.trim().to_owned();
        if name.is_empty() {
            return Err("Table name: a table needs a name".to_owned());
        }
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let mut spec = match (self.simulated, demo_timing) {
            (true, Some(timing)) => {
                // The simulated players wait for verdicts: their script follows the settle
                // time chosen.
                let timing = Timing {
                    settle_ms: u64::from(self.settle_ms),
                    ..timing
                };
                let built = kriegspiel_games::builtin(self.rules.id(), timing)
                    .map_err(|e| format!("No demo game for {}: {e}", self.rules.id()))?;
                built.table_spec(&name, &timing)
            }
            (true, None) => {
                return Err("Boards: simulated boards only in a window started with --demo".into())
            }
            (false, _) => TableSpec {
                name: name.clone(),
                setup: TableSetup {
                    rules: self.rules.id().to_owned(),
                    ..TableSetup::default()
                },
                white: board(&self.white_port, "White's port")?,
                black: board(&self.black_port, "Black's port")?,
                scripted: Vec::new(),
                resume: Resume::New,
            },
        };
        spec.resume = Resume::New;
        let setup = &mut spec.setup;
        setup.white_player = text(&self.white_player);
        setup.black_player = text(&self.black_player);
        setup.lang.clone_from(&self.lang);
        setup.time_control = text(&self.time_control).unwrap_or_else(|| "none".to_owned());
        setup.settle_ms = self.settle_ms;
        if !self.simulated {
            // Players at real boards: the clocks wait for the arbiter's start.
            kriegspiel_hall::setup::CLOCK_START_FOR_PEOPLE
                .id()
                .clone_into(&mut setup.clock_start);
            for pair in self.options.split([',', ' ']).filter(|p| !p.is_empty()) {
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| format!("Options: '{pair}' is not key=value"))?;
                setup.options.insert(k.to_owned(), v.to_owned());
            }
        }
        setup.config().map_err(|e| e.to_string())?;
        Ok(spec)
    }
}

/// A board as the dialogs name it: empty is none; a serial port's path, `dgt:PATH` or
/// `dgt:auto` for a DGT board, `board:ID` for one on the network.
pub(crate) fn board(text: &str, label: &str) -> Result<BoardSource, String> {
    match text.trim() {
        "" => Ok(BoardSource::Absent),
        t => BoardSource::parse(t).map_err(|e| format!("{label}: {e}")),
    }
}
