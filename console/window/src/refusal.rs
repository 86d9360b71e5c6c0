//! The window's own refusal: an arbiter who starts the console from his desktop has no
//! terminal, and a start refused after the display check (a journal in use, a table
//! already running on the round's broker) was said on standard error alone, where he
//! never looks. It is said in a window of its own too, until he closes it.

use egui::Ui;

use crate::WindowError;

/// The title of the refusal's window (a screen reader says it first).
pub const TITLE: &str = "Kriegspiel console: not started";

/// What the refusal window shows: why, and a way to close it (the button, Enter or Escape).
#[derive(Debug, Clone)]
pub struct Refusal {
    why: String,
    closed: bool,
}

impl Refusal {
    pub fn new(why: &str) -> Refusal {
        Refusal {
            why: why.to_owned(),
            closed: false,
        }
    }

    /// Whether the arbiter has closed it.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// The refusal, inside `ui` (the native window and the tests call this).
    pub fn show(&mut self, ui: &mut Ui) {
        ui.heading("The console did not start");
        ui.add_space(8.0);
        ui.label(egui::RichText::new(&self.why).size(18.0));
        ui.add_space(8.0);
        ui.label("Put it right, then start the console again.");
        ui.add_space(12.0);
        let close = ui.button("Close");
        let keys =
            ui.input(|i| i.key_pressed(egui::Key::Enter) || i.key_pressed(egui::Key::Escape));
        if close.clicked() || keys {
            self.closed = true;
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

impl eframe::App for Refusal {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        egui::CentralPanel::default().show(ui, |ui| self.show(ui));
    }
}

/// Shows `why` in a window of its own until the arbiter closes it.
pub fn show_refusal(why: &str) -> Result<(), WindowError> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(TITLE)
            .with_inner_size([760.0, 260.0]),
        ..Default::default()
    };
    let refusal = Refusal::new(why);
    eframe::run_native(
        TITLE,
        native,
        Box::new(|cc| {
            crate::style::install(&cc.egui_ctx);
            Ok(Box::new(refusal))
        }),
    )
    .map_err(|e| WindowError::Open(crate::readable(&e.to_string(), crate::display_named())))
}
