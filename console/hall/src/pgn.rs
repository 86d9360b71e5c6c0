//! Export of journaled games: PGN that chess software opens as it is (the moves are
//! standard chess; the rule set and options go in tags of their own, every refused try,
//! question, announcement and arbiter action in comments, clocks as `[%clk]`), and the full
//! event log as JSON lines.

use std::fmt::Write as _;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::san::San;
use kriegspiel_referee::shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role};
use kriegspiel_referee::{Announcement, EndReason, Try, Verdict};
use kriegspiel_table::trace::render_action;
use kriegspiel_table::{render, Input, Output, PublicMessage, Table, TimeControl};
use serde_json::json;

use crate::journal::{GameRecord, JournalError, JournalEvent};
use crate::setup::SetupError;

/// One item of movetext.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Move {
        san: String,
        color: Color,
        fullmove: u32,
    },
    Comment(String),
}

/// A stretch of the game from one position: the start, or an arbiter's correction.
#[derive(Debug, Clone, PartialEq)]
struct Segment {
    /// The start position when it is not the standard one.
    fen: Option<String>,
    tokens: Vec<Token>,
}

/// The game replayed from its journal: what PGN and the event log need.
struct Replayed {
    segments: Vec<Segment>,
    table: Table,
}

fn replay(record: &GameRecord, events: &[JournalEvent]) -> Result<Replayed, SetupError> {
    let config = record.setup.config()?;
    let standard = config.game.fen.is_none();
    let (mut table, _) = Table::new(config, 0).map_err(|e| SetupError {
        field: "setup",
        message: e.to_string(),
    })?;
    let wording = table.wording();
    let lang = table.config().lang;
    let start_fen =
        |t: &Table| Fen::from_position(t.referee().position(), EnPassantMode::Legal).to_string();
    let mut segments = vec![Segment {
        fen: (!standard).then(|| start_fen(&table)),
        tokens: Vec::new(),
    }];
    let mut shadow: Chess = table.referee().position().clone();
    // Tokens added by each move, so that a take-back removes the move and its comments.
    let mut move_marks: Vec<usize> = Vec::new();
    for e in events {
        if let Input::Arbiter(action) = &e.event.input {
            current(&mut segments).tokens.push(Token::Comment(format!(
                "Arbiter: {}",
                render_action(action)
            )));
        }
        let outputs = table.apply(e.event.clone());
        let mut last_mover = None;
        for o in &outputs {
            let tokens = &mut current(&mut segments).tokens;
            match o {
                Output::Verdict {
                    color,
                    tried,
                    verdict: verdict @ Verdict::Moved(report),
                } => {
                    let played = report.played.unwrap_or(*tried);
                    let Some(m) = find_move(&shadow, played) else {
                        tokens.push(Token::Comment(format!(
                            "{} {}: not a legal move here",
                            color,
                            played.to_uci()
                        )));
                        continue;
                    };
                    move_marks.push(tokens.len());
                    tokens.push(Token::Move {
                        san: San::from_move(&shadow, m).to_string(),
                        color: *color,
                        fullmove: shadow.fullmoves().get(),
                    });
                    shadow.play_unchecked(m);
                    tokens.push(Token::Comment(wording.text(&Announcement::from(*verdict))));
                    last_mover = Some(*color);
                }
                Output::Verdict {
                    color,
                    tried,
                    verdict: verdict @ Verdict::Refused(_),
                } => tokens.push(Token::Comment(format!(
                    "{color} tries {}: {}",
                    tried.to_uci(),
                    wording.text(&Announcement::from(*verdict))
                ))),
                Output::Reply {
                    color,
                    question,
                    reply,
                } => tokens.push(Token::Comment(format!(
                    "{color} asks {}: {}",
                    question,
                    wording.text(&Announcement::Reply(*reply))
                ))),
                Output::Clock { remaining, .. } => {
                    if let Some(mover) = last_mover.take() {
                        tokens.push(Token::Comment(format!(
                            "[%clk {}]",
                            kriegspiel_table::clock::hms(remaining[mover])
                        )));
                    }
                }
                Output::Public { message } => {
                    if *message == PublicMessage::MoveTakenBack {
                        if let Some(mark) = move_marks.pop() {
                            let removed: Vec<Token> = tokens.drain(mark..).collect();
                            if let Some(Token::Move { san, .. }) = removed.first() {
                                tokens.push(Token::Comment(format!("{san} taken back")));
                            }
                        }
                        shadow = table.referee().position().clone();
                    }
                    tokens.push(Token::Comment(message.text(lang)));
                    if *message == PublicMessage::PositionCorrected {
                        shadow = table.referee().position().clone();
                        move_marks.clear();
                        segments.push(Segment {
                            fen: Some(start_fen(&table)),
                            tokens: Vec::new(),
                        });
                    }
                }
                // "Arbiter: repeat" is already a comment; the words said again are no move.
                Output::Repeated { .. }
                | Output::Started { .. }
                | Output::Private { .. }
                | Output::Arbiter { .. }
                | Output::Note { .. } => {}
            }
        }
    }
    Ok(Replayed { segments, table })
}

fn current(segments: &mut Vec<Segment>) -> &mut Segment {
    if segments.is_empty() {
        segments.push(Segment {
            fen: None,
            tokens: Vec::new(),
        });
    }
    let last = segments.len() - 1;
    &mut segments[last]
}

fn find_move(pos: &Chess, played: Try) -> Option<Move> {
    let norm = |t: Try| Try {
        promotion: t.promotion.or(Some(Role::Queen)),
        ..t
    };
    pos.legal_moves()
        .into_iter()
        .find(|m| Try::from_move(m).is_some_and(|t| norm(t) == norm(played)))
}

/// The PGN of one journaled game (one PGN game per stretch between arbiter corrections).
/// A damaged journal exports every event before the damage, said in a comment.
pub fn pgn(
    record: &GameRecord,
    events: &[JournalEvent],
    damage: Option<&JournalError>,
) -> Result<String, SetupError> {
    let Replayed { segments, table } = replay(record, events)?;
    let setup = &record.setup;
    let result = if damage.is_some() {
        "*"
    } else {
        match table.result() {
            Some(Some(r)) => r.pgn(),
            Some(None) | None => "*",
        }
    };
    let termination = match (table.table_end(), table.referee().end()) {
        (Some(end), _) => end.termination.pgn(),
        (None, Some(end)) => match end.reason {
            EndReason::Checkmate
            | EndReason::Stalemate
            | EndReason::InsufficientMaterial
            | EndReason::FiftyMoves
            | EndReason::Repetition => "normal",
        },
        (None, None) => "unterminated",
    };
    let time_control: TimeControl = setup.time_control.parse().unwrap_or_default();
    let options: Vec<String> = setup
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let count = segments.len();
    let mut out = String::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == count;
        let seg_result = if last { result } else { "*" };
        let mut tags: Vec<(&str, String)> = vec![
            (
                "Event",
                setup
                    .event
                    .clone()
                    .unwrap_or_else(|| "Kriegspiel".to_owned()),
            ),
            ("Site", "?".to_owned()),
            ("Date", pgn_date(record.started_wall_ms)),
            ("Round", "?".to_owned()),
            (
                "White",
                setup.white_player.clone().unwrap_or_else(|| "?".to_owned()),
            ),
            (
                "Black",
                setup.black_player.clone().unwrap_or_else(|| "?".to_owned()),
            ),
            ("Result", seg_result.to_owned()),
            ("Board", record.name.clone()),
            ("KriegspielRules", setup.rules.clone()),
            ("KriegspielOptions", options.join(" ")),
            ("TimeControl", time_control.pgn()),
            (
                "Termination",
                if last {
                    termination
                } else {
                    "rules infraction"
                }
                .to_owned(),
            ),
        ];
        if let Some(fen) = &seg.fen {
            tags.push(("SetUp", "1".to_owned()));
            tags.push(("FEN", fen.clone()));
        }
        for (k, v) in tags {
            let _ = writeln!(out, "[{k} \"{}\"]", escape_tag(&v));
        }
        out.push('\n');
        let mut words: Vec<String> = Vec::new();
        if i > 0 {
            words.push(comment(
                "The arbiter corrected the position; the game goes on from here.",
            ));
        }
        let mut after_comment = true;
        for t in &seg.tokens {
            match t {
                Token::Comment(c) => {
                    words.push(comment(c));
                    after_comment = true;
                }
                Token::Move {
                    san,
                    color,
                    fullmove,
                } => {
                    match color {
                        Color::White => words.push(format!("{fullmove}.")),
                        Color::Black if after_comment => words.push(format!("{fullmove}...")),
                        Color::Black => {}
                    }
                    words.push(san.clone());
                    after_comment = false;
                }
            }
        }
        if last {
            if let Some(d) = damage {
                words.push(comment(&format!("The journal ends here: {d}")));
            }
        } else {
            words.push(comment("The arbiter corrected the position here."));
        }
        words.push(seg_result.to_owned());
        wrap(&words, &mut out);
        out.push('\n');
    }
    Ok(out)
}

/// The full event log of one game: one JSON object per journaled event, with what the table
/// said in reply.
pub fn event_log(record: &GameRecord, events: &[JournalEvent]) -> Result<String, SetupError> {
    let config = record.setup.config()?;
    let (mut table, started) = Table::new(config, 0).map_err(|e| SetupError {
        field: "setup",
        message: e.to_string(),
    })?;
    let w = table.wording();
    let lang = table.config().lang;
    let mut out = String::new();
    let line = json!({
        "game": record.id, "table": record.name, "seq": 0, "at": 0,
        "setup": record.setup,
        "outputs": started.iter().map(|o| render::json(&w, lang, o)).collect::<Vec<_>>(),
    });
    let _ = writeln!(out, "{line}");
    for e in events {
        let outputs = table.apply(e.event.clone());
        let line = json!({
            "game": record.id, "table": record.name, "seq": e.seq, "at": e.event.at,
            "wall_ms": e.wall_ms, "board_ms": e.board_ms, "board_seq": e.board_seq,
            "event": kriegspiel_table::trace::render_event(&e.event),
            "outputs": outputs.iter().map(|o| render::json(&w, lang, o)).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{line}");
    }
    Ok(out)
}

fn comment(text: &str) -> String {
    // A brace would end the comment early.
    format!("{{{}}}", text.replace('}', ")").replace('{', "("))
}

fn escape_tag(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Wraps movetext at 79 columns (PGN export format).
fn wrap(words: &[String], out: &mut String) {
    let mut col = 0;
    for w in words {
        for piece in w.split(' ') {
            if col > 0 && col + 1 + piece.len() > 79 {
                out.push('\n');
                col = 0;
            } else if col > 0 {
                out.push(' ');
                col += 1;
            }
            out.push_str(piece);
            col += piece.len();
        }
    }
    out.push('\n');
}

/// `YYYY.MM.DD` of a Unix time in milliseconds (UTC).
fn pgn_date(wall_ms: i64) -> String {
    let days = wall_ms.div_euclid(86_400_000);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Repeat" says the last announcement again; the record gains a comment, never a move.
    #[test]
    fn a_repeated_announcement_is_no_move() {
        use crate::TableSetup;
        use kriegspiel_table::{ArbiterAction, Event};
        let record = GameRecord {
            id: 1,
            name: "1".to_owned(),
            setup: TableSetup::default(),
            started_wall_ms: 0,
        };
        let inputs = [
            Input::Play {
                color: Color::White,
                tried: Try::from_uci("e2e4").unwrap(),
            },
            Input::Arbiter(ArbiterAction::Repeat),
            Input::Play {
                color: Color::Black,
                tried: Try::from_uci("e7e5").unwrap(),
            },
        ];
        let events: Vec<JournalEvent> = inputs
            .into_iter()
            .enumerate()
            .map(|(i, input)| JournalEvent {
                seq: i as i64 + 1,
                event: Event::new(1000 * (i as u64 + 1), input),
                wall_ms: 0,
                board_ms: None,
                board_seq: None,
            })
            .collect();
        let text = pgn(&record, &events, None).unwrap();
        assert!(
            text.contains("1. e4 {White has moved.} {Arbiter: repeat} 1... e5 {Black has moved.}"),
            "{text}"
        );
        assert!(!text.contains("not a legal move"), "{text}");
    }

    #[test]
    fn dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(1_796_083_200_000), "2026.12.01");
        assert_eq!(pgn_date(951_782_400_000), "2000.02.29");
    }

    #[test]
    fn movetext_wraps_and_comments_are_closed() {
        let mut out = String::new();
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        wrap(&words, &mut out);
        assert!(out.lines().all(|l| l.len() <= 79));
        assert_eq!(comment("a } b { c"), "{a ) b ( c}");
    }
}
