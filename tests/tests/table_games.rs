//! Whole games end to end: two `kriegspiel-board simulate` programs play the physical
//! handling of a game definition on pseudo-terminals (socat), `kriegspiel table` reads both
//! links, and its JSON lines must be exactly the referee's answers for the game, ending with
//! the expected final position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use kriegspiel_table::kriegspiel_referee::shakmaty::Role;
use kriegspiel_table::PrivateMessage;
use kriegspiel_tests::games::{self, BuiltGame, Timing};
use kriegspiel_tests::link_util::cargo_bin;
use kriegspiel_tests::process::{play_table_with, Boards, Cabling};
use serde_json::{json, Value};

/// Runs one game and checks every line the table prints.
fn play(name: &str) {
    play_with(name, |_, _| {});
}

/// As [`play`]; `on_line` sees each line as it comes, and may stall the console.
fn play_with(name: &str, on_line: impl FnMut(&Value, &mut Boards)) {
    let timing = Timing::default();
    let game: BuiltGame = games::load(name, timing).unwrap_or_else(|e| panic!("{name}: {e}"));
    let kriegspiel = cargo_bin("kriegspiel", "kriegspiel");
    let board_bin = cargo_bin("kriegspiel-board", "kriegspiel-board");
    let args = [
        "--settle-ms".to_owned(),
        timing.settle_ms.to_string(),
        "--no-speech".to_owned(),
    ];
    // A player mistypes on his keypad first: an error on stderr, and the game goes on.
    let run = play_table_with(
        Cabling::Serial,
        &game,
        &kriegspiel,
        &board_bin,
        &args,
        Some("this is not a command"),
        Duration::from_millis(game.duration_ms + 20_000),
        on_line,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        run.status.success(),
        "{name}: table exited with {}",
        run.status
    );
    let answers = run.answers();
    for (i, (printed, expected)) in answers.iter().zip(&game.expected).enumerate() {
        assert_eq!(
            *printed, expected,
            "{name}: answer {i} differs (left: printed, right: expected)"
        );
    }
    assert_eq!(
        answers.len(),
        game.expected.len(),
        "{name}: answers missing or extra"
    );
    assert_eq!(run.commands_sent, game.commands.len());
    let finals: Vec<Value> = run
        .lines
        .iter()
        .filter(|v| {
            v.get("answer").is_none()
                && v.get("private").is_none()
                && v.get("link").is_none()
                && v.get("opened").is_none()
        })
        .cloned()
        .collect();
    // The game's end as the referee announced it: the result of the last answer.
    let result = game.expected.last().map(|v| v["end"]["result"].clone());
    assert_eq!(
        finals,
        [json!({"final_fen": game.final_fen, "result": result})],
        "{name}: final position"
    );
    // The only private messages are the acknowledgements of the promotion choices.
    let chosen: Vec<Value> = game
        .commands
        .iter()
        .filter_map(|c| {
            let role = match c.line["promote"].as_str()? {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                _ => Role::Knight,
            };
            let message = PrivateMessage::PromotionChoice(role);
            Some(json!({
                "private": c.line["color"],
                "id": message.id(),
                "text": message.text(game.lang),
            }))
        })
        .collect();
    let privates: Vec<Value> = run.with_key("private").into_iter().cloned().collect();
    assert_eq!(privates, chosen, "{name}: private messages");
    let links = run.with_key("link");
    let mut connected: Vec<&str> = links.iter().map(|l| l["event"].as_str().unwrap()).collect();
    connected.sort_unstable();
    assert_eq!(
        connected,
        ["connected", "connected"],
        "{name}: link lines {links:?}"
    );
    assert!(
        run.stderr
            .iter()
            .any(|l| l.contains("bad command on standard input line")),
        "{name}: the bad keypad line was not reported: {:?}",
        run.stderr
    );
}

#[test]
fn table_game_cincinnati() {
    play("cincinnati");
}

/// The console stops for 2 s mid-game (SIGSTOP, as on a laptop too busy to run it) while
/// both boards play on: their bytes wait in the serial ports. On waking it neither calls
/// the boards silent (the time it was stopped is not theirs; a reopened port would drop
/// what they sent) nor judges the lifts and places it then reads as made in one instant:
/// every verdict is as without the stall.
#[test]
fn table_game_berkeley_with_the_console_stalled_for_2_s() {
    let mut answers = 0;
    play_with("berkeley", |line, boards| {
        if line.get("answer").is_some() {
            answers += 1;
            if answers == 10 {
                boards.stall_console(Duration::from_secs(2)).unwrap();
            }
        }
    });
}

#[test]
fn table_game_wild16() {
    play("wild16");
}

#[test]
fn table_game_traditional() {
    play("traditional");
}

#[test]
fn table_game_rand() {
    play("rand");
}

#[test]
fn table_game_berkeley() {
    play("berkeley");
}

#[test]
fn table_game_berkeley_any() {
    play("berkeley-any");
}

#[test]
fn table_game_russian() {
    play("russian");
}
