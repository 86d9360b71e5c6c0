//! The arbiter's main flows, driven through the AccessKit tree by role and label, on a real
//! hall whose demo games play on simulated boards in real time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use kriegspiel_games::Timing;
use kriegspiel_hall::{HallCommand, HallHandle, Journal, TableSpec, TimeMode};
use kriegspiel_window::{
    app::lock, spawn_reader, store_for, ArbiterApp, SharedStore, WindowOptions,
};

/// A pace slow enough for the window to act between two moves.
const PACE: Timing = Timing {
    start_ms: 600,
    step_ms: 40,
    settle_ms: 150,
    after_verdict_ms: 400,
    react_ms: 700,
    command_ms: 200,
};

struct Hall {
    handle: HallHandle,
    store: SharedStore,
    dir: tempfile::TempDir,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Hall {
    fn drop(&mut self) {
        let _ = self.handle.send(HallCommand::Shutdown);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn hall(rules: &[&str]) -> (Hall, ArbiterApp) {
    let dir = tempfile::tempdir().unwrap();
    let journal_path = dir.path().join("journal.sqlite");
    let journal = Journal::open(&journal_path).unwrap();
    let specs: Vec<TableSpec> = rules
        .iter()
        .map(|r| {
            kriegspiel_games::builtin(r, PACE)
                .unwrap()
                .table_spec(&format!("demo-{r}"), &PACE)
        })
        .collect();
    let running = kriegspiel_hall::start(journal, specs.clone(), TimeMode::Real).unwrap();
    let store = store_for(&specs);
    spawn_reader(running.events, store.clone(), || {}).unwrap();
    let mut options = WindowOptions::new(journal_path);
    options.export_dir = dir.path().to_owned();
    options.demo_timing = Some(PACE);
    let app = ArbiterApp::new(running.handle.clone(), store.clone(), options);
    (
        Hall {
            handle: running.handle,
            store,
            dir,
            thread: Some(running.thread),
        },
        app,
    )
}

fn harness(app: ArbiterApp) -> Harness<'static, ArbiterApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1100.0))
        .build_ui_state(|ui, app: &mut ArbiterApp| app.show(ui), app)
}

/// Steps the window until `ok` holds (the hall works in real time), or fails naming `what`.
fn wait(
    h: &mut Harness<'_, ArbiterApp>,
    what: &str,
    ok: impl Fn(&Harness<'_, ArbiterApp>) -> bool,
) {
    let start = Instant::now();
    loop {
        h.step();
        if ok(h) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}; status: {}",
            h.state().status()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

fn has_label(h: &Harness<'_, ArbiterApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

fn open_table_1(h: &mut Harness<'_, ArbiterApp>) {
    wait(h, "the table's card", |h| {
        h.query_by_role_and_label(Role::Button, "Table 1: demo-cincinnati")
            .is_some()
    });
    h.get_by_role_and_label(Role::Button, "Table 1: demo-cincinnati")
        .click();
    h.step();
    wait(h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
}

fn click(h: &mut Harness<'_, ArbiterApp>, label: &str) {
    h.get_by_role_and_label(Role::Button, label).click();
    h.step();
    h.step();
}

#[test]
fn the_overview_shows_every_table_and_a_key_opens_one() {
    let (hall, app) = hall(&["cincinnati", "wild16"]);
    let mut h = harness(app);
    wait(&mut h, "both cards", |h| {
        h.query_by_role_and_label(Role::Button, "Table 2: demo-wild16")
            .is_some()
            && has_label(h, "Rules: cincinnati")
            && has_label(h, "Rules: wild16")
    });
    wait(&mut h, "the links", |h| has_label(h, "White: link up"));
    h.key_press(egui::Key::Num2);
    h.step();
    wait(&mut h, "table 2's view", |h| {
        has_label(h, "Official position of table 2")
    });
    h.key_press(egui::Key::Escape);
    h.step();
    wait(&mut h, "the overview again", |h| {
        !has_label(h, "Official position of table 2")
    });
    drop(hall);
}

#[test]
fn a_try_from_a_simulated_board_shows_in_the_try_list() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    open_table_1(&mut h);
    let store = hall.store.clone();
    let mut uci = String::new();
    wait(&mut h, "a try in the store", |_| {
        lock(&store)
            .tables
            .get(&1)
            .is_some_and(|t| !t.tries.is_empty())
    });
    if let Some(t) = lock(&store).tables.get(&1) {
        uci = t.tries[0].uci.clone();
    }
    wait(&mut h, "the try in the list", |h| {
        has_label(h, &format!("White {uci}:"))
    });
    // Both sensed boards and the link health are shown.
    assert!(has_label(&h, "White's board as sensed"));
    assert!(has_label(&h, "Black's board as sensed"));
    wait(&mut h, "link counters", |h| has_label(h, "frames "));
    wait(&mut h, "both boards in sync", |h| {
        has_label(h, "White's board: in sync") && has_label(h, "Black's board: in sync")
    });
}

#[test]
fn pause_and_resume() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    open_table_1(&mut h);
    click(&mut h, "Pause");
    wait(&mut h, "the game paused", |h| {
        h.query_by_role_and_label(Role::Button, "Resume").is_some() && has_label(h, "PAUSED")
    });
    assert!(has_label(&h, "The arbiter has paused the game."));
    click(&mut h, "Resume");
    wait(&mut h, "the game resumed", |h| {
        h.query_by_role_and_label(Role::Button, "Pause").is_some()
            && has_label(h, "The game goes on.")
    });
    drop(hall);
}

fn type_into(h: &mut Harness<'_, ArbiterApp>, label: &str, text: &str) {
    let field = h.get_by_label(label);
    field.focus();
    h.step();
    let field = h.get_by_label(label);
    field.type_text(text);
    h.step();
}

#[test]
fn a_correction_is_confirmed_and_an_impossible_one_refused_with_the_reason() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    open_table_1(&mut h);
    click(&mut h, "Pause");
    wait(&mut h, "paused", |h| has_label(h, "PAUSED"));
    let field = "Correction (FEN, put e4 Q, remove e4):";
    type_into(&mut h, field, "remove a2");
    click(&mut h, "Apply correction");
    // Nothing is sent before the arbiter confirms.
    wait(&mut h, "the confirmation", |h| has_label(h, "empty a2?"));
    click(&mut h, "Confirm");
    wait(&mut h, "the corrected position", |h| {
        has_label(h, "The arbiter has corrected the position")
    });
    let fen = lock(&hall.store).tables[&1]
        .view
        .as_ref()
        .unwrap()
        .fen
        .clone();
    assert!(
        fen.contains("1PPPPPPP") || !fen.contains("PPPPPPPP"),
        "{fen}"
    );
    // A position without a white king is refused, and the window says why.
    let node = h.get_by_label(field);
    node.focus();
    h.step();
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.step();
    type_into(&mut h, field, "put e1 Q");
    click(&mut h, "Apply correction");
    wait(&mut h, "the confirmation", |h| has_label(h, "on e1?"));
    click(&mut h, "Confirm");
    wait(&mut h, "the refusal", |h| has_label(h, "Refused:"));
    drop(hall);
}

#[test]
fn a_take_back_an_adjudication_and_an_export() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    open_table_1(&mut h);
    let store = hall.store.clone();
    wait(&mut h, "a move that stood", |_| {
        lock(&store).tables.get(&1).is_some_and(|t| t.moves >= 1)
    });
    click(&mut h, "Pause");
    wait(&mut h, "paused", |h| has_label(h, "PAUSED"));
    click(&mut h, "Take back");
    wait(&mut h, "the confirmation", |h| {
        has_label(h, "take back the last move?")
    });
    click(&mut h, "Confirm");
    wait(&mut h, "the move taken back", |h| {
        has_label(h, "The arbiter has taken back the last move.")
    });

    click(&mut h, "Adjudicate…");
    wait(&mut h, "the adjudication dialog", |h| {
        has_label(h, "Adjudicate table 1")
    });
    h.get_by_label("1-0 White wins").click();
    h.step();
    type_into(&mut h, "Reason:", "Black left the hall");
    click(&mut h, "Adjudicate");
    wait(&mut h, "the confirmation", |h| {
        has_label(h, "adjudicate 1-0")
    });
    click(&mut h, "Confirm");
    wait(&mut h, "the result", |h| has_label(h, "Game over: 1-0"));

    let pgn = hall.dir.path().join("table1.pgn");
    let node = h.get_by_label("PGN file:");
    node.focus();
    h.step();
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.step();
    type_into(&mut h, "PGN file:", pgn.to_str().unwrap());
    click(&mut h, "Export PGN");
    wait(&mut h, "the export", |h| has_label(h, "written to"));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
}

#[test]
fn a_new_game_opens_a_table_through_the_hall() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    wait(&mut h, "the first table", |h| {
        has_label(h, "Table 1: demo-cincinnati")
    });
    click(&mut h, "New game…");
    wait(&mut h, "the dialog", |h| has_label(h, "New game"));
    let name = h.get_by_label("Table name");
    name.focus();
    h.step();
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.step();
    type_into(&mut h, "Table name", "board-7");
    type_into(&mut h, "White player", "Ann");
    click(&mut h, "Open the table");
    wait(&mut h, "the new table", |h| {
        h.query_by_role_and_label(Role::Button, "Table 2: board-7")
            .is_some()
            && has_label(h, "Ann – Black")
    });
    drop(hall);
}

#[test]
fn every_button_has_a_label() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    open_table_1(&mut h);
    wait(&mut h, "a try", |h| has_label(h, "Tries (move"));
    let mut buttons = 0;
    for b in h.query_all_by_role(Role::Button) {
        buttons += 1;
        let label = b.accesskit_node().label().unwrap_or_default();
        assert!(!label.trim().is_empty(), "a button without a label: {b:?}");
    }
    assert!(buttons >= 10, "{buttons} buttons");
    drop(hall);
}
