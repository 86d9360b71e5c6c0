//! `kriegspiel table`: the headless referee's table. Two boards over serial links, the
//! players' keypad commands on standard input, one JSON line per answer on standard output,
//! and the public announcements spoken aloud. See docs/TABLE.md.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kriegspiel_boardlink::{BoardLink, LinkConfig, LinkEvent, Report as LinkReport};
use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{Bitboard, Color, EnPassantMode, Role, Square};
use kriegspiel_referee::{GameConfig, Lang, Options, Question, RuleSet, Wording};
use kriegspiel_table::{
    render, BoardInput, Event, Input, Millis, Output, Table, TableConfig, TouchMove,
};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio::time::Instant;

use crate::speech::{CommandSpeaker, Speaker};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// White's board: serial port or pseudo-terminal path.
    #[arg(long)]
    white: PathBuf,
    /// Black's board: serial port or pseudo-terminal path.
    #[arg(long)]
    black: PathBuf,
    /// Rule set: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian.
    #[arg(long)]
    rules: String,
    /// Language of the announcements: en, fr, ru.
    #[arg(long, default_value = "en")]
    lang: String,
    /// A rule-set option as KEY=VALUE (ladder, strict, rand-try-squares, notation); repeatable.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// How long a board must stay still before a try is complete (100 to 1500 ms).
    #[arg(long, default_value_t = kriegspiel_table::SETTLE_MS)]
    settle_ms: u32,
    /// How long a board may stay out of sync before its player is guided.
    #[arg(long, default_value_t = kriegspiel_table::GUIDE_MS)]
    guide_ms: u32,
    /// Touch-move: strict, warn or off.
    #[arg(long, default_value = "strict")]
    touch_move: String,
    /// Start position (russian: the two set-ups); default the standard one.
    #[arg(long)]
    fen: Option<String>,
    /// Do not speak the public announcements.
    #[arg(long)]
    no_speech: bool,
    /// Record each public announcement, as spoken, into DIR/0001.wav, DIR/0002.wav, ...
    /// (with DIR/transcript.tsv) instead of playing it: the game's spoken record, and the
    /// speech on a machine without a sound card. Needs espeak-ng.
    #[arg(long, value_name = "DIR", conflicts_with = "no_speech")]
    speech_wav: Option<PathBuf>,
}

/// The table the command line describes, or the error to print.
fn table_config(args: &Args) -> Result<TableConfig, String> {
    let rules: RuleSet = args.rules.parse().map_err(|e| format!("{e}"))?;
    let lang: Lang = args.lang.parse().map_err(|e| format!("{e}"))?;
    let touch_move: TouchMove = args.touch_move.parse().map_err(|e| format!("{e}"))?;
    let mut options = Options::default();
    for pair in &args.options {
        options.set_pair(rules, pair).map_err(|e| format!("{e}"))?;
    }
    let config = TableConfig {
        game: GameConfig {
            rules,
            options,
            fen: args.fen.clone(),
        },
        lang,
        touch_move,
        settle_ms: args.settle_ms,
        guide_ms: args.guide_ms,
        ..TableConfig::new(GameConfig::default())
    };
    config.validate().map_err(|e| e.to_string())?;
    // The referee checks the FEN (and a russian set-up) before any board is opened.
    kriegspiel_referee::Referee::new(&config.game).map_err(|e| e.to_string())?;
    Ok(config)
}

pub fn run(args: Args) -> ExitCode {
    let config = match table_config(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kriegspiel table: {e}");
            return ExitCode::from(2);
        }
    };
    let speaker: Box<dyn Speaker> = if args.no_speech {
        Box::new(Silent)
    } else if let Some(dir) = &args.speech_wav {
        match CommandSpeaker::recording(config.lang, dir) {
            Ok(s) => Box::new(s),
            Err(e) => {
                eprintln!("kriegspiel table: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        match CommandSpeaker::start(config.lang) {
            Ok(s) => Box::new(s),
            Err(e) => {
                eprintln!("kriegspiel table: warning: {e}");
                Box::new(Silent)
            }
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kriegspiel table: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(play(config, args.white, args.black, speaker));
    // The stdin reader sits in a blocking read that would hold a normal shutdown.
    runtime.shutdown_background();
    code
}

/// A speaker that says nothing (`--no-speech`, or no speech program).
#[derive(Debug)]
struct Silent;

impl Speaker for Silent {
    fn say(&mut self, _text: &str) {}
    fn finish(&mut self, _limit: Duration) {}
}

/// Where a board's link stands, for the `link` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkState {
    Never,
    Up,
    Down,
}

/// Turns the table's outputs into lines and speech.
struct Printer {
    wording: Wording,
    lang: Lang,
    speaker: Box<dyn Speaker>,
}

impl Printer {
    fn line(&self, v: &Value) -> bool {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{v}").and_then(|()| out.flush()).is_ok()
    }

    fn output(&mut self, o: &Output) -> bool {
        let (value, spoken) = output_value(&self.wording, self.lang, o);
        if let Some(text) = spoken {
            self.speaker.say(&text);
        }
        self.line(&value)
    }
}

/// The JSON line for one output, and the text for the public speaker if it is public.
fn output_value(w: &Wording, lang: Lang, o: &Output) -> (Value, Option<String>) {
    (render::json(w, lang, o), render::spoken(w, lang, o))
}

fn color_id(c: Color) -> String {
    c.to_string()
}

fn square(index: u8) -> Option<Square> {
    (index < 64).then(|| Square::new(u32::from(index)))
}

/// The table input for a link event, and the `link` line to print, if any.
fn link_input(
    color: Color,
    event: &LinkEvent,
    state: &mut LinkState,
) -> (Option<BoardInput>, Option<Value>) {
    let line = |e: &str| json!({"link": color_id(color), "event": e});
    match event {
        LinkEvent::Connected { board_id, .. } => {
            let name = if *state == LinkState::Down {
                "reconnected"
            } else {
                "connected"
            };
            *state = LinkState::Up;
            let mut v = line(name);
            v["board_id"] = json!(board_id);
            (
                Some(BoardInput::Connected {
                    board_id: Some(*board_id),
                }),
                Some(v),
            )
        }
        LinkEvent::Lift { square: sq, .. } => (square(*sq).map(BoardInput::Lift), None),
        LinkEvent::Place { square: sq, .. } => (square(*sq).map(BoardInput::Place), None),
        LinkEvent::Snapshot { occupancy, .. } | LinkEvent::Resync { occupancy, .. } => {
            (Some(BoardInput::Snapshot(Bitboard(*occupancy))), None)
        }
        LinkEvent::Disconnected { reason } => {
            *state = LinkState::Down;
            let mut v = line("disconnected");
            v["reason"] = json!(reason.name());
            (Some(BoardInput::Disconnected), Some(v))
        }
        LinkEvent::OpenFailed { error } => {
            let mut v = line("open_failed");
            v["error"] = json!(error);
            (None, Some(v))
        }
        LinkEvent::VersionMismatch { local, remote } => {
            let mut v = line("version_mismatch");
            v["local"] = json!(local);
            v["remote"] = json!(remote);
            (None, Some(v))
        }
        LinkEvent::Fault { code, .. } => {
            let mut v = line("fault");
            v["code"] = json!(code.name());
            (None, Some(v))
        }
    }
}

/// One stdin command: what a player says on his keypad or voice channel.
fn parse_command(line: &str) -> Result<Input, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(obj) = v else {
        return Err("a command must be a JSON object".into());
    };
    let color = match obj.get("color").and_then(Value::as_str) {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        Some(other) => return Err(format!("unknown color '{other}' (white, black)")),
        None => return Err("missing \"color\": \"white\" or \"black\"".into()),
    };
    for key in obj.keys() {
        if !matches!(key.as_str(), "color" | "promote" | "ask") {
            return Err(format!("unknown key '{key}' (color, promote, ask)"));
        }
    }
    match (obj.get("promote"), obj.get("ask")) {
        (Some(p), None) => {
            let role = match p.as_str() {
                Some("q" | "queen") => Role::Queen,
                Some("r" | "rook") => Role::Rook,
                Some("b" | "bishop") => Role::Bishop,
                Some("n" | "knight") => Role::Knight,
                _ => return Err(format!("bad promotion piece {p} (q, r, b, n)")),
            };
            Ok(Input::Promote { color, role })
        }
        (None, Some(q)) => {
            let question = match q.as_str() {
                Some("any") => Question::Any,
                Some("rebuffs") => Question::Rebuffs,
                _ => return Err(format!("unknown question {q} (any, rebuffs)")),
            };
            Ok(Input::Ask { color, question })
        }
        (Some(_), Some(_)) => Err("one command per line: \"promote\" or \"ask\", not both".into()),
        (None, None) => Err("missing \"promote\" or \"ask\"".into()),
    }
}

fn ms_since(start: Instant) -> Millis {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(Millis::MAX)
}

async fn play(
    config: TableConfig,
    white: PathBuf,
    black: PathBuf,
    speaker: Box<dyn Speaker>,
) -> ExitCode {
    let start = Instant::now();
    let lang = config.lang;
    let (mut table, outputs) = match Table::new(config, 0) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kriegspiel table: {e}");
            return ExitCode::from(2);
        }
    };
    let mut printer = Printer {
        wording: table.wording(),
        lang,
        speaker,
    };
    let (_white_link, mut white_rx) = BoardLink::spawn(white, LinkConfig::default());
    let (_black_link, mut black_rx) = BoardLink::spawn(black, LinkConfig::default());
    let mut states = [LinkState::Never; 2];
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut stdin_open = true;
    if !outputs.iter().all(|o| printer.output(o)) {
        return ExitCode::SUCCESS;
    }
    loop {
        if table.is_over() {
            let fen = Fen::from_position(table.referee().position(), EnPassantMode::Legal);
            printer.line(&json!({"final_fen": fen.to_string()}));
            printer.speaker.finish(Duration::from_secs(10));
            return ExitCode::SUCCESS;
        }
        let deadline = table
            .next_deadline()
            .map(|ms| start + Duration::from_millis(ms));
        let input: Option<Input> = tokio::select! {
            r = white_rx.recv() => match r {
                Some(r) => board_input(Color::White, &r, &mut states[0], &printer),
                None => return link_gone(Color::White),
            },
            r = black_rx.recv() => match r {
                Some(r) => board_input(Color::Black, &r, &mut states[1], &printer),
                None => return link_gone(Color::Black),
            },
            line = stdin.next_line(), if stdin_open => match line {
                Ok(Some(l)) if l.trim().is_empty() => None,
                Ok(Some(l)) => match parse_command(l.trim()) {
                    Ok(i) => Some(i),
                    Err(e) => {
                        eprintln!("kriegspiel table: bad command line on stdin: {e}");
                        None
                    }
                },
                Ok(None) => { stdin_open = false; None }
                Err(e) => {
                    eprintln!("kriegspiel table: standard input: {e}; keypad commands are ignored from now on");
                    stdin_open = false;
                    None
                }
            },
            () = sleep_until(deadline) => Some(Input::Tick),
        };
        if let Some(input) = input {
            let outputs = table.apply(Event::new(ms_since(start), input));
            for o in &outputs {
                if !printer.output(o) {
                    // Nobody reads our answers any more: stop quietly.
                    return ExitCode::SUCCESS;
                }
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

fn board_input(
    color: Color,
    report: &LinkReport,
    state: &mut LinkState,
    printer: &Printer,
) -> Option<Input> {
    let (input, line) = link_input(color, &report.event, state);
    if let Some(line) = line {
        if let LinkEvent::OpenFailed { error } = &report.event {
            eprintln!(
                "kriegspiel table: {} board: {error} (retrying)",
                color_id(color)
            );
        }
        printer.line(&line);
    }
    input.map(|input| Input::Board { color, input })
}

fn link_gone(color: Color) -> ExitCode {
    eprintln!(
        "kriegspiel table: the {} board's link task stopped",
        color_id(color)
    );
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_referee::jsonl::verdict_value;
    use kriegspiel_referee::{Announcement, Try, Verdict};
    use kriegspiel_table::PrivateMessage;

    #[test]
    fn keypad_commands() {
        assert_eq!(
            parse_command(r#"{"color":"white","promote":"n"}"#),
            Ok(Input::Promote {
                color: Color::White,
                role: Role::Knight
            })
        );
        assert_eq!(
            parse_command(r#"{"color":"black","ask":"rebuffs"}"#),
            Ok(Input::Ask {
                color: Color::Black,
                question: Question::Rebuffs
            })
        );
        for bad in [
            "nonsense",
            "[1]",
            r#"{"promote":"n"}"#,
            r#"{"color":"red","ask":"any"}"#,
            r#"{"color":"white","promote":"k"}"#,
            r#"{"color":"white","ask":"why"}"#,
            r#"{"color":"white"}"#,
            r#"{"color":"white","ask":"any","promote":"q"}"#,
            r#"{"color":"white","ask":"any","x":1}"#,
        ] {
            assert!(parse_command(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn answer_lines_are_the_referee_objects_plus_try_and_color() {
        let w = Wording::new(RuleSet::Wild16, Options::default(), Lang::En);
        let mut referee = kriegspiel_referee::Referee::new(&GameConfig {
            rules: RuleSet::Wild16,
            ..GameConfig::default()
        })
        .unwrap();
        let tried = Try::from_uci("e2e5").unwrap();
        let verdict = referee.try_move(tried).unwrap();
        let (v, spoken) = output_value(
            &w,
            Lang::En,
            &Output::Verdict {
                color: Color::White,
                tried,
                verdict,
            },
        );
        let mut expected = verdict_value(&w, &verdict);
        expected["try"] = json!("e2e5");
        expected["color"] = json!("white");
        assert_eq!(v, expected);
        // A wild16 refusal is heard by the mover only: never on the public speaker.
        assert_eq!(v["heard_by"], "mover");
        assert_eq!(spoken, None);
        let tried = Try::from_uci("e2e4").unwrap();
        let verdict = referee.try_move(tried).unwrap();
        let (v, spoken) = output_value(
            &w,
            Lang::En,
            &Output::Verdict {
                color: Color::White,
                tried,
                verdict,
            },
        );
        assert_eq!(v["answer"], "moved");
        assert_eq!(spoken.as_deref(), v["text"].as_str());
        let (v, spoken) = output_value(
            &w,
            Lang::Fr,
            &Output::Private {
                color: Color::Black,
                message: PrivateMessage::ManMissing(Square::G1),
            },
        );
        assert_eq!(
            v,
            json!({"private": "black", "id": "man-missing", "text": PrivateMessage::ManMissing(Square::G1).text(Lang::Fr)})
        );
        assert_eq!(spoken, None);
    }

    #[test]
    fn only_public_announcements_are_spoken() {
        let speaker = crate::speech::RecordingSpeaker::new();
        let mut printer = Printer {
            wording: Wording::new(RuleSet::Wild16, Options::default(), Lang::En),
            lang: Lang::En,
            speaker: Box::new(speaker.clone()),
        };
        let mut referee = kriegspiel_referee::Referee::new(&GameConfig {
            rules: RuleSet::Wild16,
            ..GameConfig::default()
        })
        .unwrap();
        let start_report = *referee.last_report();
        let started = Output::Started {
            report: start_report,
        };
        let refused = Try::from_uci("e2e5").unwrap();
        let refusal = referee.try_move(refused).unwrap();
        let moved = Try::from_uci("e2e4").unwrap();
        let verdict = referee.try_move(moved).unwrap();
        for o in [
            started,
            Output::Verdict {
                color: Color::White,
                tried: refused,
                verdict: refusal,
            },
            Output::Private {
                color: Color::White,
                message: PrivateMessage::BackInSync,
            },
            Output::Verdict {
                color: Color::White,
                tried: moved,
                verdict,
            },
        ] {
            assert!(printer.output(&o));
        }
        let w = printer.wording;
        let Verdict::Moved(after) = verdict else {
            panic!("e2e4 is legal")
        };
        assert_eq!(
            speaker.spoken(),
            [
                w.text(&Announcement::Report(start_report)),
                w.text(&Announcement::Report(after)),
            ]
        );
    }

    #[test]
    fn link_lines() {
        let mut state = LinkState::Never;
        let connected = LinkEvent::Connected {
            protocol: 1,
            firmware: [0, 1, 0],
            board_id: 7,
        };
        let (i, l) = link_input(Color::White, &connected, &mut state);
        assert_eq!(i, Some(BoardInput::Connected { board_id: Some(7) }));
        assert_eq!(l.unwrap()["event"], "connected");
        let (i, l) = link_input(
            Color::White,
            &LinkEvent::Disconnected {
                reason: kriegspiel_boardlink::DisconnectReason::Closed,
            },
            &mut state,
        );
        assert_eq!(i, Some(BoardInput::Disconnected));
        assert_eq!(
            l.unwrap(),
            json!({"link": "white", "event": "disconnected", "reason": "closed"})
        );
        let (_, l) = link_input(Color::White, &connected, &mut state);
        assert_eq!(l.unwrap()["event"], "reconnected");
        let (i, l) = link_input(
            Color::Black,
            &LinkEvent::Lift {
                square: 12,
                board_ms: 5,
            },
            &mut state,
        );
        assert_eq!(i, Some(BoardInput::Lift(Square::E2)));
        assert_eq!(l, None);
        let (i, _) = link_input(
            Color::Black,
            &LinkEvent::Place {
                square: 64,
                board_ms: 5,
            },
            &mut state,
        );
        assert_eq!(i, None);
    }

    #[test]
    fn bad_command_lines_are_refused() {
        let args = |extra: &[&str]| {
            let mut v = vec!["table", "--white", "/dev/null", "--black", "/dev/null"];
            v.extend_from_slice(extra);
            #[derive(Debug, clap::Parser)]
            struct Wrap {
                #[command(flatten)]
                args: Args,
            }
            <Wrap as clap::Parser>::try_parse_from(v).map(|w| w.args)
        };
        let ok = args(&["--rules", "rand", "--option", "ladder=true"]).unwrap();
        assert!(table_config(&ok).is_ok());
        for bad in [
            &["--rules", "chess"][..],
            &["--rules", "rand", "--option", "strict=true"],
            &["--rules", "rand", "--settle-ms", "50"],
            &["--rules", "rand", "--touch-move", "maybe"],
            &["--rules", "rand", "--lang", "de"],
            &["--rules", "rand", "--fen", "not a fen"],
        ] {
            let a = args(bad).unwrap();
            assert!(table_config(&a).is_err(), "{bad:?}");
        }
    }
}
