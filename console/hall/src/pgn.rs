//! Export of journaled games: PGN that chess software opens as it is (the moves are
//! standard chess; the rule set and options go in tags of their own, every refused try,
//! question, announcement and arbiter action in comments, clocks as `[%clk]`), and the full
//! event log as JSON lines.

use std::fmt::Write as _;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::san::SanPlus;
use kriegspiel_referee::shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role};
use kriegspiel_referee::{Announcement, EndReason, Lang, Try, Verdict, Wording};
use kriegspiel_table::arbiter_words::render_action;
use kriegspiel_table::{
    render, ArbiterNote, Input, Output, PublicMessage, Table, TableConfig, TimeControl,
};
use serde_json::json;

use crate::journal::{GameRecord, JournalError, JournalEvent};
use crate::setup::{SetupError, TableSetup};

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
    /// The arbiter's correction that ended this stretch (the game goes on after it).
    corrected_by: Option<String>,
}

/// The game replayed from its journal: what PGN and the event log need.
struct Replayed {
    segments: Vec<Segment>,
    table: Table,
}

/// The table of a journaled game. Its names are not checked: a journal written before they
/// were (a name of many lines) still exports, its tags made one line by [`escape_tag`].
fn game_config(setup: &TableSetup) -> Result<TableConfig, SetupError> {
    TableSetup {
        white_player: None,
        black_player: None,
        event: None,
        ..setup.clone()
    }
    .config()
}

fn replay(record: &GameRecord, events: &[JournalEvent]) -> Result<Replayed, SetupError> {
    let mut recorder = Recorder::new(record)?;
    for e in events {
        recorder.apply(e);
    }
    Ok(Replayed {
        segments: recorder.segments,
        table: recorder.table,
    })
}

/// The replay under way: the table, and the record made of what it says.
struct Recorder {
    table: Table,
    wording: Wording,
    lang: Lang,
    segments: Vec<Segment>,
    /// The position the moves are written from (a move's SAN needs its position).
    shadow: Chess,
    /// Tokens added by each move, so that a take-back removes the move and its comments.
    move_marks: Vec<usize>,
}

impl Recorder {
    /// The table of the game at its start, and its first stretch.
    fn new(record: &GameRecord) -> Result<Recorder, SetupError> {
        let config = game_config(&record.setup)?;
        let standard = config.game.fen.is_none();
        let (table, _) = Table::new(config, 0).map_err(|e| SetupError {
            field: "setup",
            message: e.to_string(),
        })?;
        let segments = vec![Segment {
            fen: (!standard).then(|| start_fen(&table)),
            tokens: Vec::new(),
            corrected_by: None,
        }];
        Ok(Recorder {
            wording: table.wording(),
            lang: table.config().lang,
            segments,
            shadow: table.referee().position().clone(),
            move_marks: Vec::new(),
            table,
        })
    }

    /// Applies one journaled event and records what it caused.
    fn apply(&mut self, e: &JournalEvent) {
        let outputs = self.table.apply(e.event.clone());
        let action = match &e.event.input {
            Input::Arbiter(action) => Some(render_action(action)),
            _ => None,
        };
        if let Some(action) = &action {
            self.arbiter_action(action, &outputs);
        }
        // The mover of the last move, whose clock the next clock output gives.
        let mut last_mover = None;
        for o in &outputs {
            self.output(o, action.as_ref(), &mut last_mover);
        }
    }

    /// The tokens of the current stretch.
    fn tokens(&mut self) -> &mut Vec<Token> {
        &mut current(&mut self.segments).tokens
    }

    /// An arbiter's action as a comment; a refused action changed nothing, and must not read
    /// as one that did.
    fn arbiter_action(&mut self, action: &str, outputs: &[Output]) {
        let refusal = outputs.iter().find_map(|o| match o {
            Output::Note {
                note: ArbiterNote::Refused { reason, .. },
            } => Some(reason),
            _ => None,
        });
        self.tokens().push(Token::Comment(match refusal {
            Some(reason) => format!("Arbiter: {action}; refused: {reason}"),
            None => format!("Arbiter: {action}"),
        }));
    }

    /// One output of the table: a move, a comment, or nothing.
    fn output(&mut self, o: &Output, action: Option<&String>, last_mover: &mut Option<Color>) {
        let wording = self.wording;
        match o {
            Output::Verdict {
                color,
                tried,
                verdict: verdict @ Verdict::Moved(report),
            } => {
                let played = report.played.unwrap_or(*tried);
                if self.moved(*color, played, verdict) {
                    *last_mover = Some(*color);
                }
            }
            Output::Verdict {
                color,
                tried,
                verdict: verdict @ Verdict::Refused(_),
            } => self.tokens().push(Token::Comment(format!(
                "{color} tries {}: {}",
                tried.to_uci(),
                wording.text(&Announcement::from(*verdict))
            ))),
            Output::Reply {
                color,
                question,
                reply,
            } => self.tokens().push(Token::Comment(format!(
                "{color} asks {}: {}",
                question,
                wording.text(&Announcement::Reply(*reply))
            ))),
            Output::Clock { remaining, .. } => {
                if let Some(mover) = last_mover.take() {
                    self.tokens().push(Token::Comment(format!(
                        "[%clk {}]",
                        kriegspiel_table::clock::hms(remaining[mover])
                    )));
                }
            }
            Output::Public { message } => self.public(message, action),
            // "Arbiter: repeat" is already a comment; the words said again are no move.
            Output::Repeated { .. }
            | Output::Started { .. }
            | Output::Private { .. }
            | Output::Arbiter { .. }
            | Output::Note { .. } => {}
        }
    }

    /// A move played: its SAN and its announcement; `false` (and a comment) when it is no
    /// legal move of the position the record follows.
    fn moved(&mut self, color: Color, played: Try, verdict: &Verdict) -> bool {
        let Some(m) = find_move(&self.shadow, played) else {
            self.tokens().push(Token::Comment(format!(
                "{} {}: not a legal move here",
                color,
                played.to_uci()
            )));
            return false;
        };
        let mark = self.tokens().len();
        self.move_marks.push(mark);
        let fullmove = self.shadow.fullmoves().get();
        let san = SanPlus::from_move_and_play_unchecked(&mut self.shadow, m).to_string();
        let said = self.wording.text(&Announcement::from(*verdict));
        let tokens = self.tokens();
        tokens.push(Token::Move {
            san,
            color,
            fullmove,
        });
        tokens.push(Token::Comment(said));
        true
    }

    /// A public message as a comment; a take-back removes the move taken back, a correction
    /// ends the stretch (named by the arbiter's `action`) and starts one from the new
    /// position.
    fn public(&mut self, message: &PublicMessage, action: Option<&String>) {
        if *message == PublicMessage::MoveTakenBack {
            if let Some(mark) = self.move_marks.pop() {
                let tokens = self.tokens();
                let removed: Vec<Token> = tokens.drain(mark..).collect();
                if let Some(Token::Move { san, .. }) = removed.first() {
                    tokens.push(Token::Comment(format!("{san} taken back")));
                }
            }
            self.shadow = self.table.referee().position().clone();
        }
        let text = message.text(self.lang);
        self.tokens().push(Token::Comment(text));
        if *message == PublicMessage::PositionCorrected {
            self.shadow = self.table.referee().position().clone();
            self.move_marks.clear();
            current(&mut self.segments).corrected_by = action.cloned();
            self.segments.push(Segment {
                fen: Some(start_fen(&self.table)),
                tokens: Vec::new(),
                corrected_by: None,
            });
        }
    }
}

/// The FEN of the table's position.
fn start_fen(table: &Table) -> String {
    Fen::from_position(table.referee().position(), EnPassantMode::Legal).to_string()
}

fn current(segments: &mut Vec<Segment>) -> &mut Segment {
    if segments.is_empty() {
        segments.push(Segment {
            fen: None,
            tokens: Vec::new(),
            corrected_by: None,
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
    let result = if damage.is_some() {
        "*"
    } else {
        match table.result() {
            Some(Some(r)) => r.pgn(),
            Some(None) | None => "*",
        }
    };
    let termination = termination(&table);
    let count = segments.len();
    let mut out = String::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == count;
        let seg_result = if last { result } else { "*" };
        let seg_termination = if last { termination } else { "unterminated" };
        for (k, v) in tags(record, seg, seg_result, seg_termination) {
            let _ = writeln!(out, "[{k} \"{}\"]", escape_tag(&v));
        }
        out.push('\n');
        let mut words = movetext(seg, i > 0);
        if last {
            if let Some(d) = damage {
                words.push(comment(&format!("The journal ends here: {d}")));
            }
        } else {
            words.push(comment(&match &seg.corrected_by {
                Some(c) => format!(
                    "The game continues after the arbiter's correction ({c}), in the next game."
                ),
                None => "The game continues after the arbiter's correction, in the next game."
                    .to_owned(),
            }));
        }
        words.push(seg_result.to_owned());
        wrap(&words, &mut out);
        out.push('\n');
    }
    Ok(out)
}

/// How the game ended, as the `Termination` tag says it.
fn termination(table: &Table) -> &'static str {
    match (table.table_end(), table.referee().end()) {
        (Some(end), _) => end.termination.pgn(),
        (None, Some(end)) => match end.reason {
            EndReason::Checkmate
            | EndReason::Stalemate
            | EndReason::InsufficientMaterial
            | EndReason::FiftyMoves
            | EndReason::Repetition => "normal",
        },
        (None, None) => "unterminated",
    }
}

/// The tags of one stretch of the game (one PGN game), with its result and termination.
fn tags(
    record: &GameRecord,
    seg: &Segment,
    result: &str,
    termination: &str,
) -> Vec<(&'static str, String)> {
    let setup = &record.setup;
    let time_control: TimeControl = setup.time_control.parse().unwrap_or_default();
    let options: Vec<String> = setup
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
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
        ("Result", result.to_owned()),
        ("Board", record.name.clone()),
        ("KriegspielRules", setup.rules.clone()),
        ("KriegspielOptions", options.join(" ")),
        ("TimeControl", time_control.pgn()),
        ("Termination", termination.to_owned()),
    ];
    if let Some(correction) = &seg.corrected_by {
        // The game goes on in the next PGN game, from the corrected position.
        tags.push(("KriegspielCorrection", correction.clone()));
    }
    if let Some(fen) = &seg.fen {
        tags.push(("SetUp", "1".to_owned()));
        tags.push(("FEN", fen.clone()));
    }
    tags
}

/// The moves and comments of one stretch, as movetext words (move numbers before White's
/// moves, and before Black's after a comment); a stretch `after_correction` says so first.
fn movetext(seg: &Segment, after_correction: bool) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    if after_correction {
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
    words
}

/// The full event log of one game: one JSON object per journaled event, with what the table
/// said in reply.
pub fn event_log(record: &GameRecord, events: &[JournalEvent]) -> Result<String, SetupError> {
    let config = game_config(&record.setup)?;
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
            "wall_ms": e.stamp.wall_ms,
            "board_ms": e.stamp.board_ms, "board_seq": e.stamp.board_seq,
            "event": kriegspiel_table::event_text::render_event(&e.event),
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

/// A tag value: one line (control characters become spaces), `\\` and `"` escaped.
fn escape_tag(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
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
    use crate::journal::Stamp;

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
                stamp: Stamp::default(),
            })
            .collect();
        let text = pgn(&record, &events, None).unwrap();
        assert!(
            text.contains("1. e4 {White has moved.} {Arbiter: repeat} 1... e5 {Black has moved.}"),
            "{text}"
        );
        assert!(!text.contains("not a legal move"), "{text}");
    }

    /// A game of `inputs`, one a second, as the journal gives it back.
    fn journaled(inputs: Vec<Input>) -> Vec<JournalEvent> {
        inputs
            .into_iter()
            .enumerate()
            .map(|(i, input)| JournalEvent {
                seq: i as i64 + 1,
                event: kriegspiel_table::Event::new(1000 * (i as u64 + 1), input),
                stamp: Stamp::default(),
            })
            .collect()
    }

    fn record(setup: crate::TableSetup) -> GameRecord {
        GameRecord {
            id: 1,
            name: "1".to_owned(),
            setup,
            started_wall_ms: 0,
        }
    }

    fn plays(moves: &[&str]) -> Vec<Input> {
        moves
            .iter()
            .enumerate()
            .map(|(i, m)| Input::Play {
                color: if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                },
                tried: Try::from_uci(m).unwrap(),
            })
            .collect()
    }

    #[test]
    fn a_refused_arbiter_action_reads_as_refused() {
        use kriegspiel_table::ArbiterAction;
        let mut inputs = plays(&["e2e4"]);
        inputs.push(Input::Arbiter(ArbiterAction::Resume));
        inputs.push(Input::Arbiter(ArbiterAction::Pause));
        let text = pgn(&record(Default::default()), &journaled(inputs), None)
            .unwrap()
            .replace('\n', " ");
        assert!(
            text.contains(
                "{Arbiter: resume; refused: the game is not paused} {Arbiter: pause} {The arbiter"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_stretch_before_a_correction_is_unterminated_and_names_the_correction() {
        use kriegspiel_referee::shakmaty::{Piece, Square};
        use kriegspiel_table::ArbiterAction;
        let mut inputs = plays(&["e2e4", "e7e5"]);
        inputs.push(Input::Arbiter(ArbiterAction::Put {
            square: Square::E4,
            piece: Piece::from_char('Q').unwrap(),
        }));
        let text = pgn(&record(Default::default()), &journaled(inputs), None)
            .unwrap()
            .replace('\n', " ");
        let games: Vec<&str> = text.split("[Event ").skip(1).collect();
        assert_eq!(games.len(), 2, "{text}");
        assert!(
            games[0].contains("[Termination \"unterminated\"]"),
            "{text}"
        );
        assert!(
            games[0].contains("[KriegspielCorrection \"put e4 Q\"]"),
            "{text}"
        );
        assert!(
            games[0].contains(
                "{The game continues after the arbiter's correction (put e4 Q), in the next game.} *"
            ),
            "{text}"
        );
        assert!(!text.contains("rules infraction"), "{text}");
        assert!(!games[1].contains("KriegspielCorrection"), "{text}");
        assert!(
            games[1]
                .contains("[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4Q3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"]"),
            "{text}"
        );
    }

    #[test]
    fn moves_carry_check_and_mate() {
        let setup = crate::TableSetup::default;
        let check = journaled(plays(&["e2e4", "f7f5", "d1h5"]));
        let text = pgn(&record(setup()), &check, None)
            .unwrap()
            .replace('\n', " ");
        assert!(text.contains("2. Qh5+ {"), "{text}");
        let mate = journaled(plays(&["e2e4", "f7f6", "d2d4", "g7g5", "d1h5"]));
        let text = pgn(&record(setup()), &mate, None)
            .unwrap()
            .replace('\n', " ");
        assert!(text.contains("3. Qh5# {"), "{text}");
        assert!(text.contains("[Result \"1-0\"]"), "{text}");
    }

    #[test]
    fn tag_values_are_one_line_and_escaped() {
        assert_eq!(escape_tag("A \"B\" \\ C\nD\tE"), "A \\\"B\\\" \\\\ C D E");
        // A journal written before names were checked still exports, on one line a tag.
        let setup = crate::TableSetup {
            white_player: Some("Smith\nJohn".to_owned()),
            ..Default::default()
        };
        let text = pgn(&record(setup), &journaled(plays(&["e2e4"])), None).unwrap();
        assert!(text.contains("\n[White \"Smith John\"]\n"), "{text}");
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
