//! The arbiter's corrections of the position: one that changes nothing is refused, and
//! castling rights survive a correction that takes a rook off and puts it back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kriegspiel_referee::{GameConfig, Lang, Try, Verdict};
use kriegspiel_table::shakmaty::{Bitboard, Color, Piece, Position, Square};
use kriegspiel_table::TableConfig;
use kriegspiel_table::{ArbiterAction, ArbiterNote, Event, Input, Output, PublicMessage, Table};

fn table(fen: Option<&str>) -> Table {
    let config = TableConfig::new(GameConfig {
        fen: fen.map(str::to_owned),
        ..GameConfig::default()
    });
    Table::new(config, 0).unwrap().0
}

fn arbiter(t: &mut Table, at: u64, action: ArbiterAction) -> Vec<Output> {
    t.apply(Event::new(at, Input::Arbiter(action)))
}

fn put(square: Square, piece: char) -> ArbiterAction {
    ArbiterAction::Put {
        square,
        piece: Piece::from_char(piece).unwrap(),
    }
}

fn play(t: &mut Table, at: u64, color: Color, uci: &str) -> bool {
    let out = t.apply(Event::new(
        at,
        Input::Play {
            color,
            tried: Try::from_uci(uci).unwrap(),
        },
    ));
    out.iter().any(|o| {
        matches!(
            o,
            Output::Verdict {
                verdict: Verdict::Moved(_),
                ..
            }
        )
    })
}

fn refusals(out: &[Output]) -> Vec<String> {
    out.iter()
        .filter_map(|o| match o {
            Output::Note {
                note: note @ ArbiterNote::Refused { .. },
            } => Some(note.text(Lang::En)),
            _ => None,
        })
        .collect()
}

fn corrected(out: &[Output]) -> bool {
    out.iter().any(|o| {
        matches!(
            o,
            Output::Public {
                message: PublicMessage::PositionCorrected
            }
        )
    })
}

#[test]
fn a_correction_that_changes_nothing_is_refused_and_not_announced() {
    let mut t = table(None);
    let before = format!("{t:?}");
    let out = arbiter(&mut t, 100, put(Square::E1, 'K'));
    assert_eq!(
        refusals(&out),
        ["Arbiter action 'put' refused: no change (white king already stands on e1)."]
    );
    assert!(!corrected(&out));
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let out = arbiter(
        &mut t,
        200,
        ArbiterAction::SetPosition {
            fen: start.to_owned(),
        },
    );
    assert_eq!(
        refusals(&out),
        ["Arbiter action 'fen' refused: no change (the position is already that one)."]
    );
    assert!(!corrected(&out));
    assert_eq!(format!("{t:?}").replace("now: 200", "now: 0"), before);
    // A man of another kind on the square is a change.
    let out = arbiter(&mut t, 300, put(Square::E2, 'N'));
    assert!(refusals(&out).is_empty() && corrected(&out));
}

/// Two kings alone (a FEN half typed): the game would end at once, unsaid, beyond a
/// take-back. Refused; the game goes on as it was.
#[test]
fn a_correction_to_a_finished_position_is_refused() {
    let mut t = table(None);
    let before = format!("{t:?}");
    for (fen, why) in [
        ("4k3/8/8/8/8/8/8/4K3 b - - 0 1", "insufficient material"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "stalemate"),
    ] {
        let out = arbiter(
            &mut t,
            100,
            ArbiterAction::SetPosition {
                fen: fen.to_owned(),
            },
        );
        assert_eq!(
            refusals(&out),
            [format!(
                "Arbiter action 'fen' refused: that position ends the game ({why}); to end the game, adjudicate it."
            )]
        );
        assert!(!corrected(&out));
        assert!(!t.is_over());
    }
    assert_eq!(format!("{t:?}").replace("now: 100", "now: 0"), before);
}

#[test]
fn a_rook_taken_off_and_put_back_keeps_its_castling_right() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let mut t = table(Some(fen));
    let rights = |t: &Table| t.referee().position().castles().castling_rights();
    assert!(corrected(&arbiter(
        &mut t,
        100,
        ArbiterAction::Remove { square: Square::H1 }
    )));
    assert!(!rights(&t).contains(Square::H1));
    assert!(corrected(&arbiter(&mut t, 200, put(Square::H1, 'R'))));
    assert_eq!(
        rights(&t),
        Bitboard::from_iter([Square::A1, Square::H1, Square::A8, Square::H8])
    );
    assert!(play(&mut t, 300, Color::White, "e1g1"), "White castles");
}

#[test]
fn a_right_forfeited_meanwhile_does_not_come_back() {
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let rights = |t: &Table| t.referee().position().castles().castling_rights();
    // The king moves while the rook is off: no castling on either side when it is back.
    let mut t = table(Some(fen));
    arbiter(&mut t, 100, ArbiterAction::Remove { square: Square::H1 });
    assert!(play(&mut t, 200, Color::White, "e1f1"));
    assert!(play(&mut t, 300, Color::Black, "a7a6"));
    assert!(play(&mut t, 400, Color::White, "f1e1"));
    assert!(play(&mut t, 500, Color::Black, "a6a5"));
    assert!(corrected(&arbiter(&mut t, 600, put(Square::H1, 'R'))));
    assert_eq!(rights(&t), Bitboard::from_iter([Square::A8, Square::H8]));
    // A bishop goes to the rook's square and back meanwhile: that right is gone, the
    // other side's stays.
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPBP/R3K2R w KQkq - 0 1";
    let mut t = table(Some(fen));
    arbiter(&mut t, 100, ArbiterAction::Remove { square: Square::H1 });
    assert!(play(&mut t, 200, Color::White, "g2h1"));
    assert!(play(&mut t, 300, Color::Black, "a7a6"));
    assert!(play(&mut t, 400, Color::White, "h1g2"));
    assert!(play(&mut t, 500, Color::Black, "a6a5"));
    assert!(corrected(&arbiter(&mut t, 600, put(Square::H1, 'R'))));
    assert_eq!(
        rights(&t),
        Bitboard::from_iter([Square::A1, Square::A8, Square::H8])
    );
    // The king's move taken back: the right is held again.
    let mut t = table(Some(fen));
    arbiter(&mut t, 100, ArbiterAction::Remove { square: Square::H1 });
    assert!(play(&mut t, 200, Color::White, "e1f1"));
    arbiter(&mut t, 300, ArbiterAction::TakeBack);
    assert!(corrected(&arbiter(&mut t, 400, put(Square::H1, 'R'))));
    assert!(rights(&t).contains(Square::H1));
}

/// A player without a board is never out of sync: after a correction, a take-back or a
/// move, the table's board for him follows the official position (a false "board out of
/// sync" alert once stayed for good).
#[test]
fn a_player_without_a_board_stays_in_sync_after_a_correction() {
    let mut config = TableConfig::new(GameConfig::default());
    config.without_board = kriegspiel_table::shakmaty::ByColor::new_with(|_| true);
    let mut t = Table::new(config, 0).unwrap().0;
    let check = |t: &Table, when: &str| {
        for c in [Color::White, Color::Black] {
            assert!(t.in_sync(c), "{c} out of sync after {when}");
        }
    };
    check(&t, "the start");
    assert!(play(&mut t, 10, Color::White, "e2e4"));
    check(&t, "a move");
    arbiter(&mut t, 20, put(Square::D4, 'N'));
    check(&t, "a correction");
    arbiter(&mut t, 30, ArbiterAction::Remove { square: Square::D4 });
    check(&t, "a removal");
    arbiter(&mut t, 40, ArbiterAction::TakeBack);
    check(&t, "a take-back");
    let late = t.apply(Event::new(60_000, Input::Tick));
    assert!(
        late.is_empty() || !late.iter().any(|o| matches!(o, Output::Private { .. })),
        "{late:?}"
    );
    check(&t, "a minute");
}

#[test]
fn a_player_without_a_board_beside_one_with_a_board_stays_in_sync() {
    use kriegspiel_table::BoardInput;
    let mut config = TableConfig::new(GameConfig::default());
    config.without_board = kriegspiel_table::shakmaty::ByColor {
        white: true,
        black: false,
    };
    let mut t = Table::new(config, 0).unwrap().0;
    let black_men = kriegspiel_table::shakmaty::Board::default().by_color(Color::Black);
    for input in [
        BoardInput::Connected { board_id: Some(2) },
        BoardInput::Snapshot(black_men),
    ] {
        t.apply(Event::new(
            5,
            Input::Board {
                color: Color::Black,
                input,
            },
        ));
    }
    assert!(t.in_sync(Color::White) && t.in_sync(Color::Black));
    assert!(play(&mut t, 10, Color::White, "e2e4"));
    arbiter(&mut t, 20, put(Square::D4, 'N'));
    arbiter(
        &mut t,
        25,
        ArbiterAction::SetPosition {
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".to_owned(),
        },
    );
    for at in [30, 5_000, 60_000] {
        t.apply(Event::new(at, Input::Tick));
        assert!(
            t.in_sync(Color::White),
            "White, without a board, out of sync at {at}"
        );
    }
}
