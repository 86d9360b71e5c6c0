//! The arbiter's main flows, driven through the AccessKit tree by role and label, on a real
//! hall whose demo games play on simulated boards in real time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use kriegspiel_games::Timing;
use kriegspiel_hall::{
    BoardSource, HallCommand, HallHandle, Journal, TableSetup, TableSpec, TimeMode,
};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::{Lang, RuleSet};
use kriegspiel_table::render::Hearer;
use kriegspiel_table::{ArbiterAction, Input};
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
    dir: Option<tempfile::TempDir>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Hall {
    fn dir(&self) -> &Path {
        self.dir.as_ref().unwrap().path()
    }

    /// Stops the hall and waits for it (the journal is closed after this).
    fn stop(&mut self) {
        let _ = self.handle.send(HallCommand::Shutdown);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Hall {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the window is started with besides the hall's tables.
struct Window {
    /// The set-ups the window knows before the hall announces its tables.
    known: Vec<TableSpec>,
    /// The reader may read unknown set-ups from the journal.
    reader_reads_journal: bool,
    demo_timing: Option<Timing>,
}

impl Window {
    fn knowing(specs: &[TableSpec]) -> Window {
        Window {
            known: specs.to_vec(),
            reader_reads_journal: true,
            demo_timing: Some(PACE),
        }
    }
}

/// A hall on the journal in `dir` with `specs`, and the window on it.
fn start(dir: &Path, specs: Vec<TableSpec>, mode: TimeMode, window: &Window) -> (Hall, ArbiterApp) {
    let journal_path = dir.join("journal.sqlite");
    let journal = Journal::open(&journal_path).unwrap();
    let running = kriegspiel_hall::start(journal, specs, mode, Vec::new()).unwrap();
    let store = store_for(&window.known);
    let reader_journal = window.reader_reads_journal.then(|| journal_path.clone());
    spawn_reader(running.events, store.clone(), reader_journal, || {}).unwrap();
    let mut options = WindowOptions::new(journal_path);
    options.export_dir = dir.to_owned();
    options.demo_timing = window.demo_timing;
    let app = ArbiterApp::new(running.handle.clone(), store.clone(), options);
    (
        Hall {
            handle: running.handle,
            store,
            dir: None,
            thread: Some(running.thread),
        },
        app,
    )
}

fn demo_spec(rules: &str) -> TableSpec {
    kriegspiel_games::builtin(rules, PACE)
        .unwrap()
        .table_spec(&format!("demo-{rules}"), &PACE)
}

/// The demo games of `rules` on simulated boards in real time, in a window that knows them.
fn hall(rules: &[&str]) -> (Hall, ArbiterApp) {
    let dir = tempfile::tempdir().unwrap();
    let specs: Vec<TableSpec> = rules.iter().map(|r| demo_spec(r)).collect();
    let (mut hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    hall.dir = Some(dir);
    (hall, app)
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

/// A table another console runs shows its official position on its card, as that console
/// last published it; one without a readable position says so instead of a board.
#[test]
fn another_consoles_table_shows_its_position_on_its_card() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    wait(&mut h, "the own table", |h| {
        has_label(h, "Table 1: demo-cincinnati")
    });
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mut east = kriegspiel_hall::TableSummary::new(2, "East's", "east", None);
    east.fen = Some(fen.to_owned());
    // The last lines of its log, private ones included: the arbiter sees them all.
    for (at, heard, text) in [
        (
            61_000,
            Some(Hearer::Player(Color::White)),
            "White tries e2e5: Nonsense.",
        ),
        (62_000, Some(Hearer::Both), "White has moved."),
    ] {
        east.recent.push_back(kriegspiel_hall::RecentLine {
            at,
            heard,
            text: text.to_owned(),
        });
    }
    let mut west = kriegspiel_hall::TableSummary::new(3, "West's", "west", None);
    west.fen = Some("not a position".to_owned());
    for s in [east, west] {
        lock(&hall.store).round_news(
            kriegspiel_hall::RoundNews::Summary(Box::new(s)),
            Instant::now(),
        );
    }
    wait(&mut h, "the remote cards", |h| {
        has_label(h, "Table 2: East's") && has_label(h, "Table 3: West's")
    });
    assert!(has_label(
        &h,
        &format!("Official position of table 2 (console east): {fen}")
    ));
    assert!(!has_label(&h, "Official position of table 3"));
    assert!(has_label(&h, "Position: not readable"));
    // Folded until the arbiter opens them.
    assert!(!has_label(&h, "White tries e2e5"));
    h.get_by_label("Recent announcements (2)").click();
    h.step();
    h.step();
    wait(&mut h, "the remote table's recent lines", |h| {
        has_label(h, "0:01:01  [White only]  White tries e2e5: Nonsense.")
            && has_label(h, "0:01:02  [both]  White has moved.")
    });
    drop(hall);
}

/// Any arbiter action reaches another console's table from its card: typed in the
/// arbiter's words, shown as what it will do (or why it cannot be read) before it is sent.
#[test]
fn another_consoles_table_takes_any_action_typed_and_checked() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    wait(&mut h, "the own table", |h| {
        has_label(h, "Table 1: demo-cincinnati")
    });
    let east = kriegspiel_hall::TableSummary::new(2, "East's", "east", None);
    let now = Instant::now();
    lock(&hall.store).round_news(kriegspiel_hall::RoundNews::Summary(Box::new(east)), now);
    // No action is offered while its console is not known to be there.
    wait(&mut h, "the remote card", |h| {
        has_label(h, "Table 2: East's")
    });
    assert!(h
        .query_by_role_and_label(Role::Button, "Other action…")
        .is_none());
    lock(&hall.store).round_news(
        kriegspiel_hall::RoundNews::Console {
            name: "east".to_owned(),
            status: kriegspiel_net::Status::Online { epoch: 1 },
        },
        now,
    );
    wait(&mut h, "the card's actions", |h| {
        h.query_by_role_and_label(Role::Button, "Other action…")
            .is_some()
    });
    click(&mut h, "Other action…");
    wait(&mut h, "the dialog", |h| {
        has_label(h, "Table 2, run by console east")
    });
    type_into(&mut h, "Action:", "put e4 wQ");
    wait(&mut h, "the mistake named", |h| has_label(h, "'wQ'"));
    assert!(h
        .get_by_role_and_label(Role::Button, "Send to console east")
        .accesskit_node()
        .is_disabled());
    let field = h.get_by_label("Action:");
    field.focus();
    h.step();
    for _ in 0.."put e4 wQ".len() {
        h.key_press(egui::Key::Backspace);
    }
    h.step();
    type_into(&mut h, "Action:", "takeback");
    wait(&mut h, "what it will do", |h| {
        has_label(h, "Will take back the last move.")
    });
    // Nothing goes while the console is down.
    let presence = |status| kriegspiel_hall::RoundNews::Console {
        name: "east".to_owned(),
        status,
    };
    lock(&hall.store).round_news(presence(kriegspiel_net::Status::Offline), Instant::now());
    wait(&mut h, "the console said down", |h| {
        has_label(
            h,
            "Console east is not there, or the game is over: nothing can be sent.",
        )
    });
    assert!(h
        .get_by_role_and_label(Role::Button, "Send to console east")
        .accesskit_node()
        .is_disabled());
    lock(&hall.store).round_news(
        presence(kriegspiel_net::Status::Online { epoch: 2 }),
        Instant::now(),
    );
    wait(&mut h, "the console back", |h| {
        !has_label(
            h,
            "Console east is not there, or the game is over: nothing can be sent.",
        )
    });
    // The dialog shrinks back a frame later: the button is clicked where it then stands.
    for _ in 0..3 {
        h.step();
    }
    click(&mut h, "Send to console east");
    // This window has no broker: it says so, by table and console.
    wait(&mut h, "the answer in the status line", |h| {
        h.state()
            .status()
            .contains("Table 2: cannot reach console east")
    });
    assert!(!has_label(&h, "Table 2, run by console east"));
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
    let fen = lock(&hall.store).tables[&1].view.as_ref().unwrap().fen();
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

    let pgn = hall.dir().join("table1.pgn");
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

/// The roles of the controls a screen reader user operates.
const CONTROLS: [Role; 16] = [
    Role::Button,
    Role::DefaultButton,
    Role::CheckBox,
    Role::RadioButton,
    Role::Switch,
    Role::TextInput,
    Role::MultilineTextInput,
    Role::SearchInput,
    Role::NumberInput,
    Role::ComboBox,
    Role::EditableComboBox,
    Role::SpinButton,
    Role::Slider,
    Role::Tab,
    Role::Link,
    Role::MenuItem,
];

/// Every control on the screen has a label, and Tab reaches every enabled one (the panel's
/// resize handle, a splitter for the mouse, is only checked for its label). Returns how
/// many controls there are.
fn every_control_labelled_and_reached(h: &mut Harness<'_, ArbiterApp>, screen: &str) -> usize {
    let mut controls = std::collections::BTreeMap::new();
    // A modal dialog's controls only: the window's behind it are out of reach.
    let root = h.query_by_role(Role::Dialog).unwrap_or_else(|| h.root());
    for n in root.query_all_by(|n| CONTROLS.contains(&n.role()) || n.role() == Role::Splitter) {
        let a = n.accesskit_node();
        let label = a.label().unwrap_or_default();
        assert!(
            !label.trim().is_empty(),
            "{screen}: a {:?} without a label: {n:?}",
            a.role()
        );
        if CONTROLS.contains(&a.role()) && !a.is_disabled() {
            controls.insert(a.id(), label);
        }
    }
    let mut reached = std::collections::BTreeSet::new();
    for _ in 0..controls.len() * 2 + 10 {
        press(h, egui::Key::Tab);
        if let Some(n) = h.query_all_by(|n| n.is_focused()).next() {
            reached.insert(n.accesskit_node().id());
        }
        if controls.keys().all(|id| reached.contains(id)) {
            break;
        }
    }
    let missed: Vec<&String> = controls
        .iter()
        .filter(|(id, _)| !reached.contains(id))
        .map(|(_, l)| l)
        .collect();
    assert!(missed.is_empty(), "{screen}: Tab never reaches {missed:?}");
    controls.len()
}

/// A table with no boards and no clock: nothing changes on its screen unless asked.
fn quiet_spec(name: &str) -> TableSpec {
    TableSpec {
        name: name.to_owned(),
        setup: TableSetup {
            white_player: Some("Ann".to_owned()),
            black_player: Some("Bob".to_owned()),
            ..TableSetup::default()
        },
        white: BoardSource::Absent,
        black: BoardSource::Absent,
        scripted: Vec::new(),
        resume: kriegspiel_hall::Resume::New,
    }
}

#[test]
fn every_control_is_labelled_and_reached_by_the_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1"), quiet_spec("quiet-2")];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "both cards", |h| has_label(h, "Table 2: quiet-2"));
    let n = every_control_labelled_and_reached(&mut h, "overview");
    assert!(n >= 7, "{n} controls on the overview");

    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    let n = every_control_labelled_and_reached(&mut h, "table view");
    assert!(n >= 64 + 13 + 9, "{n} controls in the table view");

    for (open, title, screen, least) in [
        // 3 results, the reason, Cancel: Adjudicate is disabled until a result is chosen.
        ("Adjudicate…", "Adjudicate table 1", "adjudication", 5),
        ("Void…", "Void the game at table 1", "void", 3),
        // 5 fields, 7 rule sets, 3 languages, 2 kinds of boards, 2 buttons (the options
        // field is disabled: simulated boards are chosen).
        ("New game…", "New game", "new game", 19),
        // Two boards of squares, 6 roles, 5 fields, 4 buttons, the table list.
        (
            "Russian set-up…",
            "Russian set-up (chess battle)",
            "Russian set-up",
            128 + 15,
        ),
    ] {
        click(&mut h, open);
        wait(&mut h, title, |h| has_label(h, title));
        let n = every_control_labelled_and_reached(&mut h, screen);
        assert!(n >= least, "{n} controls in the {screen} dialog");
        press(&mut h, egui::Key::Escape);
        wait(&mut h, "the dialog closed", |h| {
            h.query_by_role(Role::Dialog).is_none()
        });
    }
    // The confirmation: Confirm has the focus, Tab reaches Cancel.
    click(&mut h, "Take back");
    wait(&mut h, "the confirmation", |h| {
        has_label(h, "take back the last move?")
    });
    assert_eq!(focused(&h).as_deref(), Some("Confirm"));
    every_control_labelled_and_reached(&mut h, "confirmation");
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// Without a mouse.

/// The node that has the keyboard focus, by its label.
fn focused(h: &Harness<'_, ArbiterApp>) -> Option<String> {
    h.query_all_by(|n| n.is_focused())
        .next()
        .map(|n| n.accesskit_node().label().unwrap_or_default())
}

fn press(h: &mut Harness<'_, ArbiterApp>, key: egui::Key) {
    h.key_press(key);
    h.step();
    h.step();
}

/// Presses Tab until the focused control's label satisfies `ok`, or fails after 200 presses.
fn tab_to(h: &mut Harness<'_, ArbiterApp>, what: &str, ok: impl Fn(&str) -> bool) -> String {
    for _ in 0..200 {
        press(h, egui::Key::Tab);
        if let Some(label) = focused(h).filter(|l| ok(l)) {
            return label;
        }
    }
    panic!("Tab never reached {what}; focus on {:?}", focused(h));
}

/// A square of the official board from its label ("e4, white knight").
fn square_of(label: &str) -> Option<(i32, i32)> {
    let b = label.as_bytes();
    (b.len() >= 4 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]) && b[2] == b',')
        .then(|| (i32::from(b[0] - b'a'), i32::from(b[1] - b'1')))
}

/// Moves the focus from square to square with the arrow keys, checking every step.
fn arrows_to(h: &mut Harness<'_, ArbiterApp>, target: (i32, i32)) {
    loop {
        let here = focused(h)
            .and_then(|l| square_of(&l))
            .expect("a square has the focus");
        if here == target {
            return;
        }
        let (key, next) = if here.0 < target.0 {
            (egui::Key::ArrowRight, (here.0 + 1, here.1))
        } else if here.0 > target.0 {
            (egui::Key::ArrowLeft, (here.0 - 1, here.1))
        } else if here.1 < target.1 {
            (egui::Key::ArrowUp, (here.0, here.1 + 1))
        } else {
            (egui::Key::ArrowDown, (here.0, here.1 - 1))
        };
        press(h, key);
        let now = focused(h).and_then(|l| square_of(&l));
        assert_eq!(
            now,
            Some(next),
            "{key:?} from {here:?}: focus on {:?}",
            focused(h)
        );
    }
}

fn square_name((f, r): (i32, i32)) -> String {
    format!("{}{}", char::from(b'a' + f as u8), r + 1)
}

#[test]
fn a_square_found_by_its_label_is_corrected_by_key_presses_only() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    wait(&mut h, "the table's card", |h| {
        has_label(h, "Table 1: demo-cincinnati")
    });
    // 1 opens the first table; Tab reaches Pause, Enter presses it.
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    tab_to(&mut h, "Pause", |l| l == "Pause");
    press(&mut h, egui::Key::Enter);
    wait(&mut h, "the game paused", |h| has_label(h, "PAUSED"));

    // Every square is a labelled button; the one to correct is found by its label.
    let squares: Vec<String> = h
        .query_all_by_role(Role::Button)
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| square_of(l).is_some())
        .collect();
    assert_eq!(squares.len(), 64, "{squares:?}");
    let target_label = squares
        .iter()
        .find(|l| l.ends_with(", white knight"))
        .unwrap()
        .clone();
    let target = square_of(&target_label).unwrap();
    let name = square_name(target);

    // Tab into the board, then the arrows to the square.
    tab_to(&mut h, "a square", |l| square_of(l).is_some());
    arrows_to(&mut h, target);
    assert_eq!(focused(&h).as_deref(), Some(target_label.as_str()));

    // Delete empties it once Enter confirms; the focus comes back to the square.
    press(&mut h, egui::Key::Delete);
    wait(&mut h, "the confirmation", |h| {
        has_label(h, &format!("empty {name}?"))
    });
    assert_eq!(focused(&h).as_deref(), Some("Confirm"));
    press(&mut h, egui::Key::Enter);
    let empty = format!("{name}, empty");
    wait(&mut h, "the square emptied", |h| {
        h.query_by_role_and_label(Role::Button, &empty).is_some()
    });
    assert!(has_label(&h, "The arbiter has corrected the position"));
    assert_eq!(focused(&h).as_deref(), Some(empty.as_str()));

    // Shift+Q asks to put a white queen there; Esc at the question changes nothing.
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Q);
    h.step();
    h.step();
    wait(&mut h, "the question", |h| {
        has_label(h, &format!("put a white queen ♕ on {name}?"))
    });
    press(&mut h, egui::Key::Escape);
    wait(&mut h, "the question gone", |h| !has_label(h, "?"));
    assert_eq!(focused(&h).as_deref(), Some(empty.as_str()));

    // Enter uses the tool chosen among the tool buttons, which Tab reaches too.
    let man = target_label.split_once(", ").unwrap().1.to_owned();
    tab_to(&mut h, "the tool", |l| l == format!("Tool: put a {man}"));
    press(&mut h, egui::Key::Enter);
    tab_to(&mut h, "the square again", |l| l == empty);
    press(&mut h, egui::Key::Enter);
    wait(&mut h, "the question", |h| {
        has_label(h, &format!("put a {man} "))
    });
    press(&mut h, egui::Key::Enter);
    wait(&mut h, "the man back on the square", |h| {
        h.query_by_role_and_label(Role::Button, &target_label)
            .is_some()
    });
    assert_eq!(focused(&h).as_deref(), Some(target_label.as_str()));

    // Shift+Q then Enter: a ninth white queen's worth of material is refused, with the reason.
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Q);
    h.step();
    h.step();
    wait(&mut h, "the question", |h| {
        has_label(h, "put a white queen")
    });
    press(&mut h, egui::Key::Enter);
    wait(&mut h, "the refusal", |h| {
        has_label(h, "Refused: Arbiter action 'put' refused")
    });
    assert!(has_label(&h, "too much material"));
    assert!(h
        .query_by_role_and_label(Role::Button, &target_label)
        .is_some());
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// The new-game dialog.

/// Replaces the text of the field labelled `label`.
fn replace_text(h: &mut Harness<'_, ArbiterApp>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.step();
    h.key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    h.step();
    type_into(h, label, text);
}

/// Clicks a radio button and checks that it is chosen.
fn choose(h: &mut Harness<'_, ArbiterApp>, label: &str) {
    h.get_by_role_and_label(Role::RadioButton, label).click();
    h.step();
    h.step();
    let node = h.get_by_role_and_label(Role::RadioButton, label);
    assert_eq!(
        node.accesskit_node().toggled(),
        Some(egui::accesskit::Toggled::True),
        "{label} is not chosen"
    );
}

/// The set-up the journal holds for a table's game (read-only, beside the running hall).
fn journal_setup(dir: &Path, store: &SharedStore, table: usize) -> TableSetup {
    let game = lock(store).tables[&table].game;
    let j = Journal::open_read_only(&dir.join("journal.sqlite")).unwrap();
    j.games()
        .unwrap()
        .into_iter()
        .find(|g| g.id == game)
        .unwrap()
        .setup
}

#[test]
fn a_new_game_on_simulated_boards_honours_every_option_shown() {
    let (hall, app) = hall(&["cincinnati"]);
    let mut h = harness(app);
    wait(&mut h, "the first table", |h| {
        has_label(h, "Table 1: demo-cincinnati")
    });
    click(&mut h, "New game…");
    wait(&mut h, "the dialog", |h| {
        h.query_by_role(Role::Dialog).is_some()
    });
    // A new area finds its place in its first frames.
    h.run_steps(3);
    replace_text(&mut h, "Table name", "board-7");
    type_into(&mut h, "White player", "Ann");
    type_into(&mut h, "Black player", "Bob");
    choose(&mut h, "wild16");
    choose(&mut h, "fr français");
    replace_text(&mut h, "Time control (25+10 or none)", "5+3");
    replace_text(&mut h, "Settle time (ms)", "1000");
    h.key_press(egui::Key::Enter);
    h.step();
    h.step();
    // Simulated boards play a scripted game: the options field says why it is off.
    let options = h.get_by_label("Options (key=value, …)");
    assert!(options.accesskit_node().is_disabled());
    assert!(has_label(
        &h,
        "Not with simulated boards: they play the wild16 demo game"
    ));
    click(&mut h, "Open the table");
    wait(&mut h, "the new table", |h| {
        h.query_by_role_and_label(Role::Button, "Table 2: board-7")
            .is_some()
    });

    // What the hall reports: the rule set and language it runs, the clocks at 5 minutes.
    let store = hall.store.clone();
    wait(&mut h, "the new table's view", |_| {
        lock(&store)
            .tables
            .get(&2)
            .is_some_and(|t| t.view.is_some())
    });
    {
        let s = lock(&store);
        let t = &s.tables[&2];
        assert_eq!(t.wording.rules, RuleSet::Wild16);
        assert_eq!(t.lang, Lang::Fr);
        let (left, _) = t.view.as_ref().unwrap().clocks.unwrap();
        assert!((290_000..=300_000).contains(&left.white), "{left:?}");
        assert_eq!(left.black, 300_000);
    }
    // What the journal keeps: every field of the dialog.
    let setup = journal_setup(hall.dir(), &store, 2);
    assert_eq!(setup.rules, "wild16");
    assert_eq!(setup.lang, "fr");
    assert_eq!(setup.time_control, "5+3");
    assert_eq!(setup.settle_ms, 1000);
    assert_eq!(setup.white_player.as_deref(), Some("Ann"));
    assert_eq!(setup.black_player.as_deref(), Some("Bob"));
    assert!(setup.options.is_empty());
    // The card says so.
    wait(&mut h, "the card", |h| {
        has_label(h, "Rules: wild16")
            && has_label(h, "Time control: 5+3")
            && has_label(h, "Ann – Bob")
    });
    // The simulated players wait out the 1 s settle time (a player who tried again 400 ms
    // after a verdict timed for 150 ms would spoil his own try): the demo game's first six
    // tries, two of them refused, come as written.
    let tries = |store: &SharedStore| -> Vec<String> {
        lock(store).tables[&2]
            .log
            .iter()
            .filter_map(|r| r.text.split_once(" tries "))
            .filter_map(|(_, rest)| rest.split_once(':'))
            .map(|(uci, _)| uci.to_owned())
            .collect()
    };
    wait(&mut h, "six tries", |_| tries(&store).len() >= 6);
    assert_eq!(
        tries(&store)[..6],
        ["e2e4", "b7b6", "e4e5", "b8b7", "e7e5", "a7a6"]
    );
    drop(hall);
}

#[test]
fn a_new_game_on_serial_ports_takes_the_rule_set_s_options() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1")];
    let window = Window {
        demo_timing: None,
        ..Window::knowing(&specs)
    };
    let (hall, app) = start(dir.path(), specs, TimeMode::Real, &window);
    let mut h = harness(app);
    wait(&mut h, "the first table", |h| {
        has_label(h, "Table 1: quiet-1")
    });
    click(&mut h, "New game…");
    wait(&mut h, "the dialog", |h| {
        h.query_by_role(Role::Dialog).is_some()
    });
    // A new area finds its place in its first frames.
    h.run_steps(3);
    // Without the demo there are no simulated boards, and the dialog says why.
    let simulated = h.get_by_role_and_label(Role::RadioButton, "simulated (demo game)");
    assert!(simulated.accesskit_node().is_disabled());
    assert!(has_label(
        &h,
        "Simulated boards: only in a window started with --demo."
    ));
    choose(&mut h, "rand");
    type_into(&mut h, "Options (key=value, …)", "ladder=maybe");
    click(&mut h, "Open the table");
    wait(&mut h, "the option refused", |h| {
        has_label(h, "options: option 'ladder'")
    });
    replace_text(&mut h, "Options (key=value, …)", "ladder=true");
    click(&mut h, "Open the table");

    wait(&mut h, "the new table", |h| {
        h.query_by_role_and_label(Role::Button, "Table 2: table-2")
            .is_some()
            && has_label(h, "Rules: rand (ladder=true)")
            && has_label(h, "Time control: none")
    });
    let store = hall.store.clone();
    assert_eq!(lock(&store).tables[&2].wording.rules, RuleSet::Rand);
    let setup = journal_setup(dir.path(), &store, 2);
    assert_eq!(
        setup.options.get("ladder").map(String::as_str),
        Some("true")
    );
    assert_eq!(setup.rules, "rand");
    // Players at real boards: their clocks wait for the arbiter.
    assert_eq!(setup.clock_start, "arbiter");
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// Tables the window did not open.

/// A label's text: the value of a label node, the label of any other.
fn text_of(n: &egui_kittest::Node<'_>) -> String {
    let a = n.accesskit_node();
    a.value().or_else(|| a.label()).unwrap_or_default()
}

#[test]
fn a_table_the_window_did_not_open_shows_what_the_hall_and_the_journal_say() {
    // The window knows nothing of the table: the hall's rule set, the journal's set-up.
    let dir = tempfile::tempdir().unwrap();
    let nothing = Window {
        known: Vec::new(),
        ..Window::knowing(&[])
    };
    let (hall, app) = start(
        dir.path(),
        vec![demo_spec("wild16")],
        TimeMode::Real,
        &nothing,
    );
    let mut h = harness(app);
    wait(&mut h, "the card from the journal", |h| {
        has_label(h, "Table 1: demo-wild16")
            && has_label(h, "Rules: wild16")
            && has_label(h, "Simulated White – Simulated Black")
            && has_label(h, "Time control: none")
    });
    drop(h);
    drop(hall);

    // The window expected another rule set under that name, and cannot read the journal:
    // it shows the hall's rule set and says what it does not know.
    let dir = tempfile::tempdir().unwrap();
    let mut wrong = demo_spec("wild16");
    wrong.setup.rules = "cincinnati".to_owned();
    let blind = Window {
        reader_reads_journal: false,
        ..Window::knowing(&[wrong])
    };
    let (hall, app) = start(
        dir.path(),
        vec![demo_spec("wild16")],
        TimeMode::Real,
        &blind,
    );
    let mut h = harness(app);
    wait(&mut h, "the card", |h| {
        has_label(h, "Rules: wild16 (options ?)")
            && has_label(h, "Time control: ?")
            && has_label(h, "White – Black")
    });
    assert!(!has_label(&h, "Rules: cincinnati"));
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the note in the log", |h| {
        has_label(
            h,
            "The hall runs this table with the wild16 rules in 'en', not the cincinnati rules",
        )
    });
    drop(h);
    drop(hall);

    // A game resumed from the journal by a hall the window knows nothing about.
    let dir = tempfile::tempdir().unwrap();
    let mut spec = quiet_spec("resumed");
    spec.setup.rules = "berkeley".to_owned();
    spec.setup.time_control = "25+10".to_owned();
    spec.resume = kriegspiel_hall::Resume::Last;
    let (mut hall, app) = start(
        dir.path(),
        vec![spec.clone()],
        TimeMode::Real,
        &Window::knowing(&[spec.clone()]),
    );
    let mut h = harness(app);
    wait(&mut h, "the table", |h| has_label(h, "Table 1: resumed"));
    hall.handle
        .input(1, Input::Arbiter(ArbiterAction::Pause))
        .unwrap();
    wait(&mut h, "paused", |h| has_label(h, "PAUSED"));
    drop(h);
    hall.stop();
    let (hall, app) = start(dir.path(), vec![spec], TimeMode::Real, &nothing);
    let mut h = harness(app);
    wait(&mut h, "the resumed table's card", |h| {
        has_label(h, "Table 1: resumed")
            && has_label(h, "Rules: berkeley")
            && has_label(h, "Time control: 25+10")
            && has_label(h, "Ann – Bob")
    });
    assert!(!has_label(&h, "Rules: cincinnati"));
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the resumption in the log", |h| {
        h.query_all_by_label_contains("Resumed from the journal")
            .any(|n| text_of(&n).ends_with("Resumed from the journal after 1 event."))
    });
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// Alerts before the game ends.

/// A table with a short time control on simulated time: the arbiter pauses it (a scripted
/// input) `pause_at` ms into the game, White to move all along.
fn blitz_spec(name: &str, time_control: &str, pause_at: u64) -> TableSpec {
    let mut spec = quiet_spec(name);
    spec.setup.time_control = time_control.to_owned();
    spec.scripted = vec![(pause_at, Input::Arbiter(ArbiterAction::Pause))];
    spec
}

#[test]
fn low_time_and_a_fallen_flag_are_alerts_on_the_card_and_in_the_table_view() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![
        // 1+0 paused at 55 s: 5 s left (the 1-minute mark is the base time: no alert).
        blitz_spec("blitz-1", "1+0", 55_000),
        // 2+0 paused at 75 s: 45 s left.
        blitz_spec("blitz-2", "2+0", 75_000),
        // 2+0 paused at 30 s: 1:30 left, no alert.
        blitz_spec("blitz-3", "2+0", 30_000),
    ];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Simulated,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "the alerts on the cards", |h| {
        has_label(
            h,
            "⚠ White (Ann): under 10 seconds on the clock (0:00:05 left)",
        ) && has_label(
            h,
            "⚠ White (Ann): under 1 minute on the clock (0:00:45 left)",
        ) && h.query_all_by_label_contains("PAUSED").count() == 3
    });
    assert!(!has_label(&h, "under 1 minute on the clock (0:00:05 left)"));
    assert!(!has_label(&h, "0:01:30 left"));
    assert!(!has_label(&h, "Black (Bob): under"));
    assert!(!has_label(&h, "flag"));

    // In the table view too; resumed, White's flag falls (simulated time runs on at once).
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    assert!(has_label(
        &h,
        "⚠ White (Ann): under 10 seconds on the clock (0:00:05 left)"
    ));
    click(&mut h, "Resume");
    wait(&mut h, "the fallen flag in the table view", |h| {
        has_label(h, "⚠ White (Ann)'s flag has fallen") && has_label(h, "Game over: 0-1")
    });
    assert!(
        !has_label(&h, "under 10 seconds"),
        "no low-time alert after the end"
    );
    press(&mut h, egui::Key::Escape);
    wait(&mut h, "the fallen flag on the card", |h| {
        !has_label(h, "Official position of table 1")
            && has_label(h, "⚠ White (Ann)'s flag has fallen")
            && has_label(h, "under 1 minute on the clock (0:00:45 left)")
    });
    drop(hall);
}

#[test]
fn the_overview_shows_eight_cards_inside_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let specs: Vec<TableSpec> = (1..=8).map(|i| quiet_spec(&format!("q{i}"))).collect();
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "eight cards", |h| has_label(h, "Table 8: q8"));
    h.run_steps(2);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1600.0, 1100.0));
    for i in 1..=8 {
        let label = format!("Table {i}: q{i}");
        let card = h.get_by_role_and_label(Role::Button, &label);
        assert!(
            window.contains_rect(card.rect()),
            "table {i}'s card at {:?} is outside the window",
            card.rect()
        );
    }
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// The new-game dialog's layout, the open's answer, tables without boards, the adjudication
// dialog, a refusal's place, closing the window, the PGN file.

/// The rectangles of a dialog's controls, by label.
fn control_rects(h: &Harness<'_, ArbiterApp>) -> Vec<(String, egui::Rect)> {
    let root = h.query_by_role(Role::Dialog).unwrap_or_else(|| h.root());
    root.query_all_by(|n| CONTROLS.contains(&n.role()))
        .map(|n| (text_of(&n), n.rect()))
        .collect()
}

#[test]
fn every_rule_set_can_be_chosen_with_simulated_boards_and_on_serial_ports() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1")];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "the first table", |h| {
        has_label(h, "Table 1: quiet-1")
    });
    click(&mut h, "New game…");
    wait(&mut h, "the dialog", |h| {
        h.query_by_role(Role::Dialog).is_some()
    });
    h.run_steps(3);
    for mode in ["simulated (demo game)", "serial ports"] {
        choose(&mut h, mode);
        h.run_steps(3);
        let rects = control_rects(&h);
        for r in RuleSet::ALL {
            let node = h.get_by_role_and_label(Role::RadioButton, r.id());
            assert!(
                !node.accesskit_node().is_disabled(),
                "{mode}: {} disabled",
                r.id()
            );
            let rect = node.rect();
            // No other control lies over it (the options field hid "russian").
            for (label, other) in &rects {
                if label != r.id() {
                    assert!(
                        !rect.intersects(*other),
                        "{mode}: {} at {rect:?} under '{label}' at {other:?}",
                        r.id()
                    );
                }
            }
            // A click where it shows chooses it.
            choose(&mut h, r.id());
        }
    }
    // On serial ports a refused option is said above the buttons, which do not move.
    let before = h
        .get_by_role_and_label(Role::Button, "Open the table")
        .rect();
    replace_text(&mut h, "Options (key=value, …)", "ladder");
    click(&mut h, "Open the table");
    wait(&mut h, "the option refused", |h| {
        has_label(h, "Options: 'ladder' is not key=value")
    });
    h.run_steps(2);
    let after = h
        .get_by_role_and_label(Role::Button, "Open the table")
        .rect();
    assert_eq!(before, after, "the buttons moved under the message");
    drop(hall);
}

#[test]
fn the_status_says_when_the_hall_has_opened_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1")];
    let window = Window {
        demo_timing: None,
        ..Window::knowing(&specs)
    };
    let (hall, app) = start(dir.path(), specs, TimeMode::Real, &window);
    let mut h = harness(app);
    wait(&mut h, "the first table", |h| {
        has_label(h, "Table 1: quiet-1")
    });
    click(&mut h, "New game…");
    wait(&mut h, "the dialog", |h| {
        h.query_by_role(Role::Dialog).is_some()
    });
    h.run_steps(3);
    replace_text(&mut h, "Table name", "board-9");
    click(&mut h, "Open the table");
    wait(&mut h, "the hall's answer in the status line", |h| {
        has_label(h, "Table 2 'board-9' is open.")
    });
    assert!(!has_label(&h, "Opening table"));
    // Its players have no boards: no link to hear, and nothing is wrong with that.
    press(&mut h, egui::Key::Num2);
    wait(&mut h, "table 2's view", |h| {
        has_label(h, "Official position of table 2")
    });
    assert!(has_label(&h, "White board: no board"));
    assert!(has_label(&h, "Black board: no board"));
    assert!(!has_label(&h, "not heard"));
    drop(hall);
}

#[test]
fn a_table_without_boards_says_no_board_and_adjudication_waits_for_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1")];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "the card", |h| has_label(h, "Table 1: quiet-1"));
    assert!(has_label(&h, "White: no board"));
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    assert!(has_label(&h, "White board: no board"));
    assert!(!has_label(&h, "not heard"));

    // The adjudication: no result until the arbiter picks one.
    click(&mut h, "Adjudicate…");
    wait(&mut h, "the dialog", |h| has_label(h, "Adjudicate table 1"));
    for r in ["1-0 White wins", "0-1 Black wins", "½-½ Draw"] {
        let node = h.get_by_role_and_label(Role::RadioButton, r);
        assert_eq!(
            node.accesskit_node().toggled(),
            Some(egui::accesskit::Toggled::False),
            "{r} chosen before the arbiter chose"
        );
    }
    let ok = h.get_by_role_and_label(Role::Button, "Adjudicate");
    assert!(ok.accesskit_node().is_disabled());
    choose(&mut h, "½-½ Draw");
    let ok = h.get_by_role_and_label(Role::Button, "Adjudicate");
    assert!(!ok.accesskit_node().is_disabled());
    click(&mut h, "Cancel");

    // A refusal is said where the buttons do not move.
    click(&mut h, "Pause");
    wait(&mut h, "paused", |h| has_label(h, "PAUSED"));
    let resume = h.get_by_role_and_label(Role::Button, "Resume").rect();
    let take_back = h.get_by_role_and_label(Role::Button, "Take back").rect();
    let field = "Correction (FEN, put e4 Q, remove e4):";
    type_into(&mut h, field, "put e1 Q");
    click(&mut h, "Apply correction");
    wait(&mut h, "the confirmation", |h| has_label(h, "on e1?"));
    click(&mut h, "Confirm");
    wait(&mut h, "the refusal", |h| has_label(h, "Refused:"));
    h.run_steps(2);
    assert_eq!(
        h.get_by_role_and_label(Role::Button, "Resume").rect(),
        resume
    );
    assert_eq!(
        h.get_by_role_and_label(Role::Button, "Take back").rect(),
        take_back
    );
    drop(hall);
}

/// The window's close button (or the window manager) asks to close.
fn ask_to_close(h: &mut Harness<'_, ArbiterApp>) {
    h.input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    h.step();
}

fn commands(h: &Harness<'_, ArbiterApp>) -> Vec<egui::ViewportCommand> {
    h.output().viewport_output[&egui::ViewportId::ROOT]
        .commands
        .clone()
}

#[test]
fn closing_the_window_with_unfinished_games_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let specs = vec![quiet_spec("quiet-1"), quiet_spec("quiet-2")];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "both cards", |h| has_label(h, "Table 2: quiet-2"));
    ask_to_close(&mut h);
    assert!(
        commands(&h).contains(&egui::ViewportCommand::CancelClose),
        "{:?}",
        commands(&h)
    );
    wait(&mut h, "the question", |h| {
        has_label(h, "2 games are not finished.")
    });
    click(&mut h, "Keep the window open");
    wait(&mut h, "the question gone", |h| {
        h.query_by_role(Role::Dialog).is_none()
    });
    assert!(!commands(&h).contains(&egui::ViewportCommand::Close));
    ask_to_close(&mut h);
    assert!(commands(&h).contains(&egui::ViewportCommand::CancelClose));
    wait(&mut h, "the question", |h| {
        has_label(h, "2 games are not finished.")
    });
    h.get_by_role_and_label(Role::Button, "Close the window")
        .click();
    h.step();
    assert!(
        commands(&h).contains(&egui::ViewportCommand::Close),
        "{:?}",
        commands(&h)
    );
    // Asked again (as the window closes), it no longer cancels.
    ask_to_close(&mut h);
    assert!(!commands(&h).contains(&egui::ViewportCommand::CancelClose));
    drop(hall);
}

#[test]
fn the_pgn_file_is_named_after_the_game_and_never_replaced_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = quiet_spec("Board 3");
    spec.setup.event = Some("Club night, May".to_owned());
    let specs = vec![spec];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "the card", |h| has_label(h, "Table 1: Board 3"));
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    let game = lock(&hall.store).tables[&1].game;
    let name = format!("club-night-may_board-3_game-{game}.pgn");
    let path = dir.path().join(&name);
    let field = h.get_by_label("PGN file:");
    let proposed = text_of(&field);
    assert!(proposed.ends_with(&name), "{proposed}");
    assert_eq!(Path::new(&proposed), path.as_path());

    click(&mut h, "Export PGN");
    wait(&mut h, "the export", |h| has_label(h, "written to"));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("[Event \"Club night, May\"]"));
    // The file is there: exporting again asks, and Cancel keeps it.
    std::fs::write(&path, "the arbiter's notes").unwrap();
    click(&mut h, "Export PGN");
    wait(&mut h, "the question", |h| has_label(h, "already exists."));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the arbiter's notes"
    );
    click(&mut h, "Cancel");
    wait(&mut h, "the answer", |h| has_label(h, "Not exported"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the arbiter's notes"
    );
    click(&mut h, "Export PGN");
    wait(&mut h, "the question", |h| has_label(h, "already exists."));
    click(&mut h, "Replace the file");
    wait(&mut h, "the export", |h| has_label(h, "written to"));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("[Event \"Club night, May\"]"));
    drop(hall);
}

// ---------------------------------------------------------------------------------------
// Events fed to the window by the test: seats, and what repaints it.

/// A hall (for the window's commands) and a window whose events the test
/// sends itself, through the real reader.
fn fed_window(
    seats: Option<std::sync::Arc<dyn kriegspiel_window::Seats>>,
) -> (
    Hall,
    tokio::sync::broadcast::Sender<kriegspiel_hall::HallEvent>,
    ArbiterApp,
) {
    let dir = tempfile::tempdir().unwrap();
    let journal_path = dir.path().join("journal.sqlite");
    let journal = Journal::open(&journal_path).unwrap();
    // The hall needs a table; its events are not the window's (the test sends those).
    let running = kriegspiel_hall::start(
        journal,
        vec![quiet_spec("unseen")],
        TimeMode::Real,
        Vec::new(),
    )
    .unwrap();
    let (tx, rx) = tokio::sync::broadcast::channel(256);
    let store = store_for(&[]);
    spawn_reader(rx, store.clone(), None, || {}).unwrap();
    let mut options = WindowOptions::new(journal_path);
    options.export_dir = dir.path().to_owned();
    options.seats = seats;
    let app = ArbiterApp::new(running.handle.clone(), store.clone(), options);
    let hall = Hall {
        handle: running.handle,
        store,
        dir: Some(dir),
        thread: Some(running.thread),
    };
    (hall, tx, app)
}

fn opened(table: usize) -> kriegspiel_hall::HallEvent {
    use kriegspiel_referee::shakmaty::ByColor;
    kriegspiel_hall::HallEvent::Opened {
        table,
        name: format!("fed-{table}"),
        game: table as i64,
        resumed_events: 0,
        wording: kriegspiel_referee::Wording::new(
            RuleSet::Cincinnati,
            kriegspiel_referee::Options::default(),
            Lang::En,
        ),
        lang: Lang::En,
        seats: ByColor {
            white: "314159".to_owned(),
            black: "271828".to_owned(),
        },
        heard: ByColor::default(),
        ignored: Vec::new(),
        set_aside: None,
        follows: None,
    }
}

fn fed_view(table: usize, at: u64, over: bool, in_sync: bool) -> kriegspiel_hall::HallEvent {
    use kriegspiel_referee::shakmaty::Bitboard;
    let start = Bitboard(0xffff_0000_0000_ffff);
    let sensed = if in_sync {
        start
    } else {
        Bitboard(0xffff_0000_0000_fffe)
    };
    kriegspiel_hall::HallEvent::View(Box::new(kriegspiel_hall::TableView {
        table,
        at,
        position: kriegspiel_referee::shakmaty::Chess::default(),
        paused: false,
        result: over.then_some(None),
        clocks: None,
        clocks_waiting: false,
        boards: kriegspiel_referee::shakmaty::ByColor {
            white: kriegspiel_hall::BoardSeen {
                occupancy: sensed,
                in_sync,
            },
            black: kriegspiel_hall::BoardSeen {
                occupancy: start,
                in_sync: true,
            },
        },
        touched: Default::default(),
        draw_offer: None,
    }))
}

fn seat(
    color: kriegspiel_referee::shakmaty::Color,
    change: kriegspiel_hall::SeatChange,
) -> kriegspiel_hall::HallEvent {
    kriegspiel_hall::HallEvent::Seat(kriegspiel_hall::SeatNotice {
        table: 1,
        color,
        change,
    })
}

/// The seats released, as the players' channel would be asked.
#[derive(Debug, Default)]
struct Released(std::sync::Mutex<Vec<(usize, kriegspiel_referee::shakmaty::Color)>>);

impl kriegspiel_window::Seats for Released {
    fn release(&self, table: usize, color: kriegspiel_referee::shakmaty::Color) -> bool {
        self.0.lock().unwrap().push((table, color));
        true
    }
}

#[test]
fn the_seats_show_their_codes_and_terminals_and_a_seat_is_released() {
    use kriegspiel_hall::SeatChange;
    use kriegspiel_referee::shakmaty::Color;
    let released = std::sync::Arc::new(Released::default());
    let (hall, tx, app) = fed_window(Some(released.clone()));
    let mut h = harness(app);
    tx.send(opened(1)).unwrap();
    tx.send(fed_view(1, 0, false, true)).unwrap();
    wait(&mut h, "the card", |h| has_label(h, "Table 1: fed-1"));
    assert!(has_label(&h, "Seats: White –, Black –"));
    tx.send(seat(Color::White, SeatChange::Taken { voice: false }))
        .unwrap();
    wait(&mut h, "the card's seats", |h| {
        has_label(h, "Seats: White ✓, Black –")
    });
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    assert!(has_label(&h, "White: terminal connected for"));
    assert!(has_label(&h, "code 314159"));
    assert!(has_label(&h, "Black: no terminal · code 271828"));
    assert!(h
        .query_by_role_and_label(Role::Button, "Release Black's seat")
        .is_none());
    click(&mut h, "Release White's seat");
    assert_eq!(*released.0.lock().unwrap(), [(1, Color::White)]);
    tx.send(seat(Color::White, SeatChange::Left)).unwrap();
    wait(&mut h, "the seat free", |h| {
        has_label(h, "White: no terminal · code 314159")
    });
    assert!(h
        .query_by_role_and_label(Role::Button, "Release White's seat")
        .is_none());
    drop(hall);
}

/// When the window asked to be drawn again by itself (`Duration::MAX`: not at all).
fn repaint_after(h: &Harness<'_, ArbiterApp>) -> Duration {
    h.output().viewport_output[&egui::ViewportId::ROOT].repaint_delay
}

#[test]
fn the_window_repaints_by_itself_only_for_what_changes_with_time() {
    use kriegspiel_boardlink::{Health, LinkEvent};
    use kriegspiel_referee::shakmaty::Color;
    let (hall, tx, app) = fed_window(None);
    let mut h = harness(app);
    // A game over with a board still out of sync: nothing on the overview changes.
    tx.send(opened(1)).unwrap();
    tx.send(fed_view(1, 0, true, false)).unwrap();
    wait(&mut h, "the card", |h| has_label(h, "Game over: void"));
    h.run_steps(3);
    assert_eq!(repaint_after(&h), Duration::MAX);
    // A game going on with a board out of sync: its alert counts the seconds.
    tx.send(opened(2)).unwrap();
    tx.send(fed_view(2, 0, false, false)).unwrap();
    wait(&mut h, "the second card", |h| {
        has_label(h, "Table 2: fed-2")
    });
    h.run_steps(3);
    assert_eq!(repaint_after(&h), Duration::from_secs(1));
    // The finished table's view with a board link heard: "last heard N s ago" ticks.
    tx.send(kriegspiel_hall::HallEvent::Link {
        table: 1,
        color: Color::White,
        event: LinkEvent::Snapshot {
            occupancy: 0xffff,
            board_ms: 10,
        },
        health: Health::default(),
    })
    .unwrap();
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1") && has_label(h, "last heard")
    });
    h.run_steps(3);
    assert_eq!(repaint_after(&h), Duration::from_secs(1));
    drop(hall);
}

/// A clocked table waits for the arbiter: its card says "waiting to start", the table view
/// has "Start clocks", the top bar "Start all clocks"; started, both players hear it.
#[test]
fn clocks_wait_for_the_arbiters_start() {
    let dir = tempfile::tempdir().unwrap();
    let clocked = |name: &str| {
        let mut s = quiet_spec(name);
        s.setup.time_control = "5+0".to_owned();
        s.setup.clock_start = "arbiter".to_owned();
        s
    };
    let specs = vec![clocked("clocked-1"), clocked("clocked-2")];
    let (hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    wait(&mut h, "both cards waiting", |h| {
        h.query_all_by_label_contains("waiting to start").count() >= 2
    });
    // One table started from its own view.
    press(&mut h, egui::Key::Num1);
    wait(&mut h, "the table view", |h| {
        has_label(h, "Official position of table 1")
    });
    click(&mut h, "Start clocks");
    wait(&mut h, "table 1 started", |h| {
        has_label(h, "The clocks are started. White to move.")
            && h.query_by_role_and_label(Role::Button, "Start clocks")
                .is_none()
    });
    // The other from the top bar; then nothing waits and the button goes.
    click(&mut h, "Start all clocks");
    wait(&mut h, "every table started", |h| {
        h.query_by_role_and_label(Role::Button, "Start all clocks")
            .is_none()
    });
    let s = lock(&hall.store);
    assert!(s.tables.values().all(|t| !t.clocks_waiting()));
    drop(s);
    drop(hall);
}

/// The try list names the position's own move: a game set up at move 12 (or resumed after
/// a restart) is not at move 1.
#[test]
fn the_try_list_names_the_positions_own_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = quiet_spec("demo-cincinnati");
    spec.setup.fen = Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 12".to_owned());
    let specs = vec![spec];
    let (_hall, app) = start(
        dir.path(),
        specs.clone(),
        TimeMode::Real,
        &Window::knowing(&specs),
    );
    let mut h = harness(app);
    open_table_1(&mut h);
    wait(&mut h, "the move number", |h| {
        has_label(h, "Tries (move 12)")
    });
}
