//! The hall overview: the top bar (a tab per table, coloured when it has alerts; start
//! every waiting clock; open a new game or a Russian set-up; the last hall notices) and a
//! card per table with its players, rules, state, last public announcement, links, seats
//! and alerts. What the arbiter asks for is returned as [`Intent`]s.

use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};
use kriegspiel_hall::TableNo;
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_table::ArbiterAction;

use crate::app::{Intent, Screen};
use crate::dialogs::Dialog;
use crate::store::{RemoteTable, Store, TableState};
use crate::style::{big, ALERT, GOOD};
use crate::words::{color_name, state_words};

/// The narrowest a table's card on the overview gets.
const CARD_WIDTH: f32 = 440.0;
/// The side of the board on another console's table's card, in points.
const REMOTE_BOARD: f32 = 240.0;

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
    if s.tables.is_empty() && s.remote.is_empty() {
        ui.label(big("Waiting for the hall's tables…"));
        return out;
    }
    // As many cards side by side as fit (each at least CARD_WIDTH wide), row under row.
    egui::ScrollArea::vertical().show(ui, |ui| {
        let gap = ui.spacing().item_spacing.x;
        let fit = ((ui.available_width() + gap) / (CARD_WIDTH + gap)).floor();
        let columns = (fit as usize).max(1);
        // This console's tables, then the round's others (from their consoles' summaries).
        let tables: Vec<Card<'_>> = s
            .tables
            .values()
            .map(Card::Own)
            .chain(s.remote.values().map(Card::Remote))
            .collect();
        for row in tables.chunks(columns) {
            ui.columns(columns, |cols| {
                for (col, t) in cols.iter_mut().zip(row) {
                    match t {
                        Card::Own(t) => card(col, t, now, sync_after, &mut out),
                        Card::Remote(r) => remote_card(col, s, r, now, &mut out),
                    }
                }
            });
            ui.add_space(gap);
        }
    });
    out
}

/// A table on the overview: one this window's hall runs, or another console's.
enum Card<'a> {
    Own(&'a TableState),
    Remote(&'a RemoteTable),
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

/// What the arbiter must know of another console's table: its console down or stopped,
/// its boards out of sync or their links down, its table stopped.
pub(crate) fn remote_alerts(s: &Store, r: &RemoteTable) -> Vec<String> {
    use kriegspiel_net::Status;
    let sm = &r.summary;
    let mut alerts = Vec::new();
    match s.console(&sm.console) {
        Some((Status::Offline, _)) => alerts.push(format!(
            "console {} is DOWN (gone without a word): this card shows the table as it was",
            sm.console
        )),
        Some((Status::Stopped, _)) if !sm.over => {
            alerts.push(format!("console {} has stopped", sm.console));
        }
        None => alerts.push(format!("console {} has not been heard from", sm.console)),
        Some(_) => {}
    }
    for c in Color::ALL {
        if !sm.in_sync.get(c) && !sm.over {
            alerts.push(format!("{}'s board is out of sync", color_name(c)));
        }
        if *sm.links.get(c) == Some(false) {
            alerts.push(format!("{}'s board link is DOWN", color_name(c)));
        }
    }
    if let Some(e) = &sm.failed {
        alerts.push(format!("the table stopped: {e}"));
    }
    alerts
}

/// The state line of another console's table, from its summary: the clocks as it last
/// said them, the running one counted on since (while its console is up).
pub(crate) fn remote_state(s: &Store, r: &RemoteTable, now: Instant) -> String {
    let sm = &r.summary;
    let mut parts = Vec::new();
    if sm.over {
        parts.push(format!(
            "Game over: {}",
            sm.result.as_deref().unwrap_or("no result")
        ));
    } else {
        let to_move = sm
            .fen
            .as_deref()
            .and_then(|f| f.split(' ').nth(1))
            .map(|side| if side == "b" { "Black" } else { "White" });
        if let Some(side) = to_move {
            parts.push(format!("{side} to move"));
        }
        if sm.paused {
            parts.push("PAUSED".to_owned());
        }
        if sm.clocks_waiting {
            parts.push("waiting to start".to_owned());
        }
    }
    if let Some(c) = sm.clocks {
        let up = matches!(
            s.console(&sm.console),
            Some((kriegspiel_net::Status::Online { .. }, _))
        );
        let gone = u64::try_from(now.saturating_duration_since(r.since).as_millis()).unwrap_or(0);
        let left = |color: Color, ms: u64| {
            if up && !sm.over && !sm.paused && c.running == Some(color) {
                ms.saturating_sub(gone)
            } else {
                ms
            }
        };
        parts.push(format!(
            "White {} · Black {}",
            kriegspiel_table::clock::hms(left(Color::White, c.white_ms)),
            kriegspiel_table::clock::hms(left(Color::Black, c.black_ms))
        ));
    }
    parts.join(" · ")
}

/// The official position another console last published for its table: the arbiter sees
/// the game on this window too, not only on the window of the console that runs it.
fn remote_position(ui: &mut Ui, sm: &kriegspiel_hall::TableSummary) {
    let Some(fen) = sm.fen.as_deref() else {
        return;
    };
    let Ok(parsed) = fen.parse::<kriegspiel_referee::shakmaty::fen::Fen>() else {
        ui.label("Position: not readable (its console may be of another version)");
        return;
    };
    let board = parsed.into_setup().board;
    let label = format!(
        "Official position of table {} (console {}): {fen}",
        sm.table, sm.console
    );
    let look = crate::board::Look {
        label: &label,
        flipped: false,
        squares: None,
        square_prefix: "",
    };
    crate::board::draw(
        ui,
        REMOTE_BOARD,
        Some(&board),
        &crate::board::Marks::default(),
        &look,
    );
}

fn remote_card(ui: &mut Ui, s: &Store, r: &RemoteTable, now: Instant, out: &mut Vec<Intent>) {
    let sm = &r.summary;
    let alerts = remote_alerts(s, r);
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
                ui.label(big(format!("Table {}: {}", sm.table, sm.name)));
                ui.label(format!("Run by console {}", sm.console));
                let player = |name: Option<&String>, c: Color| {
                    name.cloned().unwrap_or_else(|| color_name(c))
                };
                let setup = sm.setup.as_ref();
                ui.label(format!(
                    "{} – {}",
                    player(setup.and_then(|x| x.white_player.as_ref()), Color::White),
                    player(setup.and_then(|x| x.black_player.as_ref()), Color::Black)
                ));
                if let Some(setup) = setup {
                    ui.label(format!("Rules: {}", setup.rules));
                    ui.label(format!("Time control: {}", setup.time_control));
                }
                ui.label(remote_state(s, r, now));
                remote_position(ui, sm);
                ui.label(
                    RichText::new(format!(
                        "Last: {}",
                        sm.last_public.as_deref().unwrap_or("—")
                    ))
                    .italics(),
                );
                if !sm.recent.is_empty() {
                    egui::CollapsingHeader::new(format!(
                        "Recent announcements ({})",
                        sm.recent.len()
                    ))
                    .id_salt(("remote-recent", sm.table))
                    .show(ui, |ui| {
                        for line in &sm.recent {
                            crate::table_panel::log_row(ui, line.at, line.heard, &line.text);
                        }
                    });
                }
                let seat = |c: Color| if *sm.seated.get(c) { "✓" } else { "–" };
                ui.label(format!(
                    "Seats: White {}, Black {}",
                    seat(Color::White),
                    seat(Color::Black)
                ));
                for a in &alerts {
                    ui.label(RichText::new(format!("⚠ {a}")).color(ALERT).strong());
                }
                // Actions go to the table's console; none while it is not there to take them.
                let up = matches!(
                    s.console(&sm.console),
                    Some((kriegspiel_net::Status::Online { .. }, _))
                );
                if up && !sm.over {
                    ui.horizontal(|ui| {
                        let (word, action) = if sm.paused {
                            ("Resume", ArbiterAction::Resume)
                        } else {
                            ("Pause", ArbiterAction::Pause)
                        };
                        let remote = |action| Intent::Remote {
                            table: sm.table,
                            console: sm.console.clone(),
                            action,
                        };
                        if ui.button(word).clicked() {
                            out.push(remote(action));
                        }
                        if sm.clocks_waiting && ui.button("Start clocks").clicked() {
                            out.push(remote(ArbiterAction::StartClocks));
                        }
                        // Every other action (take back, corrections, adjudication, ...),
                        // in the arbiter's words, checked before it is sent.
                        if ui.button("Other action…").clicked() {
                            out.push(Intent::Dialog(Dialog::Remote { table: sm.table }));
                        }
                    });
                }
            });
        });
}

#[cfg(test)]
mod remote_tests {
    use super::*;
    use kriegspiel_hall::{RoundNews, SummaryClocks, TableSummary};
    use kriegspiel_net::Status;

    fn summary(table: TableNo, console: &str) -> TableSummary {
        let mut s = TableSummary::new(table, "East's", console, None);
        s.fen = Some("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1".to_owned());
        s.clocks = Some(SummaryClocks {
            white_ms: 600_000,
            black_ms: 300_000,
            running: Some(Color::Black),
        });
        s
    }

    #[test]
    fn another_consoles_table_is_shown_from_its_summary_and_its_console_down_is_an_alert() {
        let t0 = Instant::now();
        let mut s = Store::new();
        s.round_news(RoundNews::Summary(Box::new(summary(2, "east"))), t0);
        let r = s.remote[&2].clone();
        assert_eq!(
            remote_alerts(&s, &r),
            ["console east has not been heard from"]
        );
        s.round_news(
            RoundNews::Console {
                name: "east".to_owned(),
                status: Status::Online { epoch: 1 },
            },
            t0,
        );
        assert!(remote_alerts(&s, &r).is_empty());
        // Black's clock runs on while his console is up.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(
            remote_state(&s, &r, later),
            "Black to move · White 0:10:00 · Black 0:04:00"
        );
        s.round_news(
            RoundNews::Console {
                name: "east".to_owned(),
                status: Status::Offline,
            },
            later,
        );
        let alerts = remote_alerts(&s, &r);
        assert_eq!(alerts.len(), 1);
        assert!(alerts[0].starts_with("console east is DOWN"), "{alerts:?}");
        // Its clocks stop where it last said them: nobody knows better.
        assert!(remote_state(&s, &r, later).ends_with("Black 0:05:00"));
    }

    #[test]
    fn a_summary_of_the_windows_own_table_is_not_taken_and_the_same_presence_wakes_nothing() {
        let t0 = Instant::now();
        let mut s = Store::new();
        s.round_news(
            RoundNews::Console {
                name: "main".to_owned(),
                status: Status::Online { epoch: 1 },
            },
            t0,
        );
        let generation = s.generation;
        s.round_news(
            RoundNews::Console {
                name: "main".to_owned(),
                status: Status::Online { epoch: 1 },
            },
            t0,
        );
        assert_eq!(s.generation, generation);
        let mut mine = summary(1, "main");
        mine.name = "1".to_owned();
        s.round_news(RoundNews::Summary(Box::new(mine.clone())), t0);
        assert!(s.remote.contains_key(&1));
        // Once the window's hall opens table 1, it is its own, shown from its events.
        s.apply(
            &kriegspiel_hall::HallEvent::Opened {
                table: 1,
                name: "1".to_owned(),
                game: 1,
                resumed_events: 0,
                wording: kriegspiel_referee::Wording::new(
                    kriegspiel_referee::RuleSet::Cincinnati,
                    kriegspiel_referee::Options::default(),
                    kriegspiel_referee::Lang::En,
                ),
                lang: kriegspiel_referee::Lang::En,
                seats: kriegspiel_referee::shakmaty::ByColor::new_with(|_| String::new()),
                heard: kriegspiel_referee::shakmaty::ByColor::new_with(|_| None),
                ignored: Vec::new(),
                set_aside: None,
                follows: None,
            },
            t0,
        );
        assert!(!s.remote.contains_key(&1));
        s.round_news(RoundNews::Summary(Box::new(mine)), t0);
        assert!(!s.remote.contains_key(&1));
    }
}
