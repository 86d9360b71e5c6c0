//! One table's view. The central panel: its name and players, its state, the last refusal,
//! the arbiter's actions, the official position (every square operable) beside both boards
//! as sensed, and the announcement log. The side panel: the clocks, the tries of the move,
//! the alerts, the seats and the board links. What the arbiter asks for is returned as
//! [`Intent`]s.

use std::path::Path;
use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};
use kriegspiel_referee::shakmaty::{Board, Color, Position};
use kriegspiel_table::clock::hms;
use kriegspiel_table::render::Hearer;
use kriegspiel_table::Millis;

use crate::actions::Actions;
use crate::app::Intent;
use crate::board::{self, Marks};
use crate::store::{AlertKind, TableState};
use crate::style::{big, reserved_message, ALERT, GOOD};
use crate::words::{color_name, heard_label, squares_differ, state_words};

/// The central panel of table `t`.
pub(crate) fn central(
    ui: &mut Ui,
    t: &TableState,
    now: Instant,
    actions: &mut Actions,
    export_dir: &Path,
) -> Vec<Intent> {
    let mut out = Vec::new();
    ui.horizontal_wrapped(|ui| {
        ui.heading(format!("Table {}: {}", t.no, t.name));
        let (w, b) = t.players();
        ui.label(big(format!("{w} – {b} · {}", t.rules_words())));
    });
    ui.label(big(state_words(t, now)));
    // The refusal's line is there without one too: the buttons under it never move.
    let refused = t.refused.as_ref().map(|r| format!("Refused: {r}"));
    reserved_message(ui, refused.as_deref(), 1);
    actions.show(ui, t, export_dir, &mut out);
    boards(ui, t, actions, &mut out);
    ui.separator();
    log(ui, t);
    out
}

/// The official position, operable square by square, beside both boards as sensed.
fn boards(ui: &mut Ui, t: &TableState, actions: &Actions, out: &mut Vec<Intent>) {
    let no = t.no;
    let official = t.view.as_ref().map(|v| v.position.board().clone());
    let avail = ui.available_size();
    let size = (avail.y - 190.0).min(avail.x * 0.62).clamp(240.0, 720.0);
    ui.horizontal_top(|ui| {
        let marks = Marks {
            touched: None,
            ..Marks::default()
        };
        let fen = t.view.as_ref().map(|v| v.fen()).unwrap_or_default();
        let label = format!("Official position of table {no}: {fen}");
        let look = board::Look {
            label: &label,
            flipped: false,
            squares: Some("official"),
            square_prefix: "",
        };
        let (_, pick) = board::draw(ui, size, official.as_ref(), &marks, &look);
        if let Some(pick) = pick {
            out.push(actions.square_act(t, pick, official.as_ref()));
        }
        ui.vertical(|ui| {
            let small = (size / 2.0 - 30.0).max(160.0);
            for c in Color::ALL {
                sensed_board(ui, t, c, official.as_ref(), small);
            }
        });
    });
}

/// `c`'s board as sensed, `size` points wide, its squares that disagree with the official
/// position framed.
fn sensed_board(ui: &mut Ui, t: &TableState, c: Color, official: Option<&Board>, size: f32) {
    let (sensed, in_sync) = t.view.as_ref().map_or((Default::default(), true), |v| {
        (v.boards[c].occupancy, v.boards[c].in_sync)
    });
    let wrong = official
        .map(|o| board::disagreement(o, sensed, c))
        .unwrap_or_default();
    let marks = Marks {
        wrong,
        touched: t.view.as_ref().and_then(|v| v.touched[c]),
        sensed,
    };
    let state = if in_sync {
        "in sync".to_owned()
    } else {
        squares_differ(u32::try_from(wrong.count()).unwrap_or(u32::MAX))
    };
    ui.label(
        RichText::new(format!("{}'s board: {state}", color_name(c))).color(if in_sync {
            GOOD
        } else {
            ALERT
        }),
    );
    let label = format!("{}'s board as sensed: {state}", color_name(c));
    let look = board::Look {
        label: &label,
        flipped: false,
        squares: None,
        square_prefix: "",
    };
    board::draw(ui, size, None, &marks, &look);
}

/// The colour of a log line, by who heard it.
fn heard_color(heard: Option<Hearer>) -> Color32 {
    match heard {
        Some(Hearer::Both) => Color32::from_gray(245),
        Some(Hearer::Player(Color::White)) => Color32::from_rgb(255, 235, 150),
        Some(Hearer::Player(Color::Black)) => Color32::from_rgb(160, 210, 255),
        None => Color32::from_rgb(255, 170, 120),
    }
}

/// The announcement log, newest at the bottom.
fn log(ui: &mut Ui, t: &TableState) {
    ui.label(big("Announcements"));
    egui::ScrollArea::vertical()
        .id_salt("log")
        .stick_to_bottom(true)
        .show(ui, |ui| {
            for row in &t.log {
                log_row(ui, row.at, row.heard, &row.text);
            }
        });
}

/// One line of a table's log: when, who heard it, what was said, coloured by who heard it.
pub(crate) fn log_row(ui: &mut Ui, at: Millis, heard: Option<Hearer>, text: &str) {
    ui.label(
        RichText::new(format!("{}  [{}]  {text}", hms(at), heard_label(heard)))
            .color(heard_color(heard)),
    );
}

/// The side panel of table `t` (`sync_after`: a board out of sync this long is an alert;
/// `releasable`: a seat can be freed).
pub(crate) fn side(
    ui: &mut Ui,
    t: &TableState,
    now: Instant,
    sync_after: Duration,
    releasable: bool,
) -> Vec<Intent> {
    let mut out = Vec::new();
    egui::ScrollArea::vertical().id_salt("side").show(ui, |ui| {
        clocks(ui, t, now);
        ui.separator();
        tries(ui, t);
        ui.separator();
        alerts(ui, t, now, sync_after);
        ui.separator();
        seats(ui, t, now, releasable, &mut out);
        ui.separator();
        links(ui, t, now);
    });
    out
}

fn clocks(ui: &mut Ui, t: &TableState, now: Instant) {
    ui.label(big("Clocks"));
    match t.clocks_at(now) {
        Some((rem, running)) => {
            for c in Color::ALL {
                let left = *rem.get(c);
                let mark = if running == Some(c) { " ◀" } else { "" };
                let low = left == 0 || t.low_time_mark(left).is_some();
                ui.label(
                    RichText::new(format!("{} {}{mark}", color_name(c), hms(left)))
                        .size(34.0)
                        .monospace()
                        .color(if low && !t.is_over() {
                            ALERT
                        } else {
                            Color32::from_gray(245)
                        }),
                );
            }
        }
        None => {
            ui.label("No clocks (untimed game).");
        }
    }
}

fn tries(ui: &mut Ui, t: &TableState) {
    // The position's own move number: right after a restart too, and from a set-up.
    let number = t
        .view
        .as_ref()
        .map_or(t.moves / 2 + 1, |v| v.position.fullmoves().get());
    ui.label(big(format!("Tries (move {number})")));
    if t.tries.is_empty() {
        ui.label("No try yet.");
    }
    for r in &t.tries {
        let color = if r.stood {
            GOOD
        } else {
            Color32::from_gray(235)
        };
        ui.label(
            RichText::new(format!(
                "{} {} {}: {}",
                hms(r.at),
                color_name(r.color),
                r.uci,
                r.text
            ))
            .color(color),
        );
    }
}

fn alerts(ui: &mut Ui, t: &TableState, now: Instant, sync_after: Duration) {
    ui.label(big("Alerts"));
    let alerts = t.alerts(now, sync_after);
    if alerts.is_empty() {
        ui.label("None.");
    }
    for a in alerts {
        let strong = matches!(
            a.kind,
            AlertKind::FlagFallen | AlertKind::Failed | AlertKind::LowTime
        );
        let mut text = RichText::new(format!("⚠ {}", a.text)).color(ALERT);
        if strong {
            text = text.strong();
        }
        ui.label(text);
    }
}

fn seats(ui: &mut Ui, t: &TableState, now: Instant, releasable: bool, out: &mut Vec<Intent>) {
    ui.label(big("Seats"));
    for c in Color::ALL {
        let code = &t.seat_codes[c];
        match t.seated[c] {
            Some((since, voice)) => {
                let kind = if voice { "voice terminal" } else { "terminal" };
                ui.label(
                    RichText::new(format!(
                        "{}: {kind} connected for {} s · code {code}",
                        color_name(c),
                        now.saturating_duration_since(since).as_secs()
                    ))
                    .color(GOOD),
                );
                if releasable {
                    let b = ui.button(format!("Release {}'s seat", color_name(c)));
                    if b.clicked() {
                        out.push(Intent::Release {
                            table: t.no,
                            color: c,
                        });
                    }
                }
            }
            None => {
                ui.label(format!("{}: no terminal · code {code}", color_name(c)));
            }
        }
    }
}

fn links(ui: &mut Ui, t: &TableState, now: Instant) {
    ui.label(big("Links"));
    for c in Color::ALL {
        let l = &t.links[c];
        let none = t.without_board(c);
        let (state, color) = match l.connected {
            Some(true) => ("up", GOOD),
            Some(false) => ("DOWN", ALERT),
            // A player without a board: nothing to hear, nothing wrong.
            None if none => ("no board", Color32::from_gray(200)),
            None => ("not heard", ALERT),
        };
        let h = &l.health;
        let errors = h.crc_errors + h.cobs_errors + h.decode_errors;
        let heard = l.heard_at.map_or("never".to_owned(), |at| {
            format!("{} s ago", now.saturating_duration_since(at).as_secs())
        });
        ui.label(
            RichText::new(format!(
                "{} board{}: {state}",
                color_name(c),
                l.board_id.map(|i| format!(" {i}")).unwrap_or_default()
            ))
            .color(color),
        );
        if none {
            ui.label("Plays by keys or voice.");
            continue;
        }
        ui.label(format!(
            "frames {} · errors {errors} · resyncs {} · gaps {} · last heard {heard}",
            h.frames, h.resyncs, h.gaps
        ));
        ui.label(RichText::new(format!("last: {}", l.last_event)).size(17.0));
    }
}
