//! The window's look: large type and high contrast, its colours, and the two text widgets
//! every panel uses.

use egui::{Color32, RichText, Ui};

/// What needs the arbiter: alerts, refusals, a link down.
pub const ALERT: Color32 = Color32::from_rgb(255, 110, 90);
/// What is well: a link up, a board in sync, a try that stood.
pub const GOOD: Color32 = Color32::from_rgb(120, 230, 120);

/// Large type and high contrast, and the font with chess glyphs.
pub fn install(ctx: &egui::Context) {
    crate::fonts::install(ctx);
    ctx.set_visuals(egui::Visuals::dark());
    ctx.all_styles_mut(|s| {
        use egui::{FontFamily, FontId, TextStyle};
        s.text_styles = [
            (
                TextStyle::Heading,
                FontId::new(30.0, FontFamily::Proportional),
            ),
            (TextStyle::Body, FontId::new(21.0, FontFamily::Proportional)),
            (
                TextStyle::Button,
                FontId::new(21.0, FontFamily::Proportional),
            ),
            (
                TextStyle::Small,
                FontId::new(17.0, FontFamily::Proportional),
            ),
            (
                TextStyle::Monospace,
                FontId::new(19.0, FontFamily::Monospace),
            ),
        ]
        .into();
        s.spacing.button_padding = egui::vec2(10.0, 6.0);
        s.spacing.item_spacing = egui::vec2(10.0, 8.0);
        s.visuals.override_text_color = Some(Color32::from_gray(245));
        s.visuals.panel_fill = Color32::from_gray(12);
        s.visuals.window_fill = Color32::from_gray(20);
        s.visuals.selection.stroke = egui::Stroke::new(2.0, Color32::WHITE);
        s.visuals.widgets.hovered.bg_stroke = egui::Stroke::new(2.0, Color32::WHITE);
    });
}

/// Text in the large, high-contrast style.
pub fn big(text: impl Into<String>) -> RichText {
    RichText::new(text).size(26.0).strong()
}

/// A message in a place of its own, `rows` lines high whether there is one or not, so that
/// nothing under it moves when one appears (a button stays under the mouse). A longer
/// message ends in "…" (its whole text is the label's, for a screen reader).
pub fn reserved_message(ui: &mut Ui, text: Option<&str>, rows: usize) {
    let rows = rows.max(1);
    let font = egui::TextStyle::Body.resolve(ui.style());
    let row = ui.fonts_mut(|f| f.row_height(&font));
    let size = egui::vec2(ui.available_width(), row * rows as f32);
    ui.allocate_ui_with_layout(size, egui::Layout::top_down(egui::Align::Min), |ui| {
        ui.set_min_size(size);
        ui.set_max_size(size);
        if let Some(text) = text {
            let mut job = egui::text::LayoutJob::single_section(
                text.to_owned(),
                egui::TextFormat {
                    font_id: font.clone(),
                    color: ALERT,
                    ..Default::default()
                },
            );
            job.wrap = egui::text::TextWrapping {
                max_width: size.x,
                max_rows: rows,
                break_anywhere: false,
                overflow_character: Some('…'),
            };
            ui.add(egui::Label::new(job));
        }
    });
}
