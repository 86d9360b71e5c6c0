//! The window's font: DejaVu Sans (shipped in `assets/`, its licence beside it) first for
//! text, because egui's own fonts have no chess glyphs (U+2654–265F).

use std::sync::Arc;

use egui::{FontData, FontDefinitions, FontFamily};

/// DejaVu Sans 2.37 (Bitstream Vera licence with DejaVu changes: free to embed and ship).
pub const DEJAVU_SANS: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The font definitions: DejaVu Sans first for proportional text, egui's defaults behind it.
pub fn definitions() -> FontDefinitions {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        "dejavu-sans".to_owned(),
        Arc::new(FontData::from_static(DEJAVU_SANS)),
    );
    fonts
        .families
        .entry(FontFamily::Proportional)
        .or_default()
        .insert(0, "dejavu-sans".to_owned());
    fonts
}

pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(definitions());
}
