//! The hall overview: the top bar (a tab per table, coloured when it has alerts; start
//! every waiting clock; open a new game or a Russian set-up; the last hall notices) and a
//! card per table with its players, rules, state, last public announcement, links, seats
//! and alerts. What the arbiter asks for is returned as [`Intent`]s.

use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};
use kriegspiel_hall::TableNo;
use kriegspiel_referee::shakmaty::Color;

use crate::app::{Intent, Screen};
use crate::dialogs::Dialog;
use crate::store::{Store, TableState};
use crate::style::{big, ALERT, GOOD};
use crate::words::{color_name, state_words};

/// The narrowest a table's card on the overview gets.
const CARD_WIDTH: f32 = 440.0;

/// The bar over every screen (`screen`: the one shown).
pub(crate) fn top_bar(ui: &mut Ui, s: &Store, screen: Screen, sync_after: Duration) -> Vec<Intent> {
    let mut out = Vec::new();
    ui.horizontal_wrapped(|ui| {
        ui.heading("Kriegspiel arbiter");
        if ui
            .selectable_label(screen == Screen::Overview, "Overview")
            .clicked()
        {
            out.push(Intent::Show(Screen::Overview));
        }
        for (no, t) in &s.tables {
            let alerts = !t.alerts(Instant::now(), sync_after).is_empty();
            let mut text = RichText::new(format!("Table {no}"));
            if alerts {
                text = text.color(ALERT);
            }
            if ui
                .selectable_label(screen == Screen::Table(*no), text)
                .on_hover_text(&t.name)
                .clicked()
            {
                out.push(Intent::Show(Screen::Table(*no)));
            }
        }
        let waiting: Vec<TableNo> = s
            .tables
            .iter()
            .filter(|(_, t)| t.clocks_waiting() && !t.is_over())
            .map(|(no, _)| *no)
            .collect();
        if !waiting.is_empty() && ui.button("Start all clocks").clicked() {
            out.push(Intent::StartAll(waiting));
        }
        let n = s.tables.len() + 1;
        if ui.button("New game…").clicked() {
            out.push(Intent::Dialog(Dialog::NewGame { n }));
        }
        if ui.button("Russian set-up…").clicked() {
            out.push(Intent::Dialog(Dialog::RussianSetup { n }));
        }
    });
    for n in s.notices.iter().rev().take(2) {
        ui.label(RichText::new(n).color(ALERT));
    }
    out
}

/// Every table's card.
pub(crate) fn cards(ui: &mut Ui, s: &Store, now: Instant, sync_after: Duration) -> Vec<Intent> {
    let mut out = Vec::new();
    if s.tables.is_empty() {
        ui.label(big("Waiting for the hall's tables…"));
        return out;
    }
    // As many cards side by side as fit (each at least CARD_WIDTH wide), row under row.
    egui::ScrollArea::vertical().show(ui, |ui| {
        let gap = ui.spacing().item_spacing.x;
        let fit = ((ui.available_width() + gap) / (CARD_WIDTH + gap)).floor();
        let columns = (fit as usize).max(1);
        let tables: Vec<&TableState> = s.tables.values().collect();
        for row in tables.chunks(columns) {
            ui.columns(columns, |cols| {
                for (col, t) in cols.iter_mut().zip(row) {
                    card(col, t, now, sync_after, &mut out);
                }
            });
            ui.add_space(gap);
        }
    });
    out
}

fn card(ui: &mut Ui, t: &TableState, now: Instant, sync_after: Duration, out: &mut Vec<Intent>) {
    let alerts = t.alerts(now, sync_after);
    let stroke = if alerts.is_empty() {
        egui::Stroke::new(1.5, Color32::from_gray(140))
    } else {
        egui::Stroke::new(3.0, ALERT)
    };
    egui::Frame::group(ui.style())
        .stroke(stroke)
        .inner_margin(12.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.vertical(|ui| {
                let open = ui.button(big(format!("Table {}: {}", t.no, t.name)));
                if open.clicked() {
                    out.push(Intent::Show(Screen::Table(t.no)));
                }
                let (w, b) = t.players();
                ui.label(format!("{w} – {b}"));
                ui.label(format!("Rules: {}", t.rules_words()));
                ui.label(format!("Time control: {}", t.time_control()));
                ui.label(state_words(t, now));
                ui.label(
                    RichText::new(format!("Last: {}", t.last_public.as_deref().unwrap_or("—")))
                        .italics(),
                );
                ui.horizontal(|ui| {
                    for c in Color::ALL {
                        let l = &t.links[c];
                        let (text, color) = match l.connected {
                            Some(true) => ("link up", GOOD),
                            Some(false) => ("link DOWN", ALERT),
                            None if t.without_board(c) => ("no board", Color32::from_gray(180)),
                            None => ("no link", Color32::from_gray(180)),
                        };
                        ui.label(RichText::new(format!("{}: {text}", color_name(c))).color(color));
                    }
                });
                let seat = |c: Color| if t.seated[c].is_some() { "✓" } else { "–" };
                ui.label(format!(
                    "Seats: White {}, Black {}",
                    seat(Color::White),
                    seat(Color::Black)
                ));
                for a in &alerts {
                    ui.label(RichText::new(format!("⚠ {}", a.text)).color(ALERT).strong());
                }
            });
        });
}
