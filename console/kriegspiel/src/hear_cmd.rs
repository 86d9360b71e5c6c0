//! `kriegspiel hear --fen FEN [--color C] WAV...`: what the voice channel hears in recorded
//! utterances. One JSON line per file on stdout: `{"file":..,"try":"g1f3"}`,
//! `{"file":..,"command":"any"}` (with `"read_back":true` for a command heard faintly, which
//! the player's terminal reads back first), `{"file":..,"rejected":true}`, or
//! `{"file":..,"error":..}` for a file that could not be read (the exit status is then 1). The grammar is the one a
//! player of that colour gets in that position: the tries possible on his own board, and the
//! commands. A WAV that is not 16 kHz mono 16-bit is converted with sox, or refused with the
//! reason. `--reply` hears them as said while a read-back waits (`Recognizer::hear_reply`).

use std::io::Write;

const PROGRAM: &str = "kriegspiel hear";
use std::path::PathBuf;
use std::process::ExitCode;

use kriegspiel_referee::shakmaty::fen::Fen;
use kriegspiel_referee::shakmaty::{CastlingMode, Chess, Color, Position};
use kriegspiel_voice::{wav, Adaptation, Heard, Model, Recognizer};
use serde_json::json;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position (his men are what counts; the opponent's are ignored).
    #[arg(
        long,
        default_value = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    )]
    fen: String,
    /// The speaker's colour, white or black (default: the side to move).
    #[arg(long)]
    color: Option<String>,
    /// Also print the words heard and the scores behind the decision.
    #[arg(long)]
    verbose: bool,
    /// Hear each file as said while a read-back waits for "confirm" or "cancel" (the
    /// read-back's own grammar first, where "yes" and "no" are answers too).
    #[arg(long)]
    reply: bool,
    /// A player's voice enrolment (`kriegspiel enrol --out FILE`): hear as his recogniser.
    #[arg(long, value_name = "FILE")]
    enrolment: Option<PathBuf>,
    /// Hear with the acoustic model as installed. Without this option (and without an
    /// enrolment) the model adapted to a club's room is used; docs/VOICE.md.
    #[arg(long, conflicts_with = "enrolment")]
    plain_model: bool,
    /// Hear with PocketSphinx alone, without Moonshine's second ear (which hears the
    /// read-back's answers and a free turn's commands, and weighs tries; docs/VOICE.md).
    #[arg(long)]
    no_moonshine: bool,
    /// WAV files, one utterance each (16 kHz mono 16-bit; any other rate, channels or encoding
    /// is converted with sox).
    #[arg(required = true)]
    wav: Vec<PathBuf>,
}

fn position(fen: &str) -> Result<Chess, String> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| format!("bad --fen '{fen}': {e}"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("bad --fen '{fen}': {e}"))
}

fn color(arg: Option<&str>, pos: &Chess) -> Result<Color, String> {
    match arg {
        None => Ok(pos.turn()),
        Some("white" | "w") => Ok(Color::White),
        Some("black" | "b") => Ok(Color::Black),
        Some(other) => Err(format!("bad --color '{other}': white or black")),
    }
}

pub fn run(args: Args) -> ExitCode {
    let setup = position(&args.fen).and_then(|pos| Ok((color(args.color.as_deref(), &pos)?, pos)));
    let (color, pos) = match setup {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut recognizer = match Recognizer::adapted(
        &Model::default(),
        Adaptation::of(args.enrolment.as_deref(), args.plain_model),
    )
    .and_then(|mut r| r.set_turn(&pos, color).map(|()| r))
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{PROGRAM}: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(ear) = crate::ear::second_ear(PROGRAM, args.no_moonshine) {
        recognizer.set_ear(ear);
    }
    let mut status = ExitCode::SUCCESS;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for file in &args.wav {
        let name = file.display().to_string();
        let line = match wav::read_wav(file)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                let heard = if args.reply {
                    recognizer.hear_reply(&s)
                } else {
                    recognizer.hear(&s)
                };
                heard.map_err(|e| e.to_string())
            }) {
            Ok(rec) => {
                let mut line = match rec.heard {
                    Heard::Try(t) => json!({"file": name, "try": t.to_uci()}),
                    Heard::Command(c) => json!({"file": name, "command": c.id()}),
                    // Read back to the player and carried out on his "confirm".
                    Heard::Unsure(c) => {
                        json!({"file": name, "command": c.id(), "read_back": true})
                    }
                    Heard::Rejected => json!({"file": name, "rejected": true}),
                };
                if args.verbose {
                    line["words"] = json!(rec.words);
                    line["wide_words"] = json!(rec.wide_words);
                    // No score (the grammar found nothing) is null, not a sentinel number.
                    let score = |r: i32| (r != i32::MIN).then_some(r);
                    line["ratio"] = json!(score(rec.ratio));
                    line["wide_margin"] = json!(rec.wide_margin);
                    line["span_ratio"] = json!(score(rec.span_ratio));
                    line["answer_ratio"] = json!(rec.answer_ratio.and_then(score));
                    if let Some(ear) = rec.ear {
                        line["moonshine"] = json!({"best": ear.best, "margin": ear.margin, "doubt": ear.doubt, "agrees": ear.agrees, "written": ear.written, "other_word": ear.other});
                    }
                    if let Some(choice) = &rec.try_ear {
                        line["moonshine_try"] = json!({"lead": choice.lead, "margin": choice.margin, "doubt": choice.doubt, "taken": choice.taken, "rescued": choice.rescued, "torn": choice.torn});
                    }
                    if !rec.alternatives.is_empty() {
                        line["alternatives"] = rec
                            .alternatives
                            .iter()
                            .map(|w| json!({"try": w.candidate.to_uci(), "sphinx": w.sphinx, "moonshine": w.moonshine}))
                            .collect();
                    }
                    line["raised_db"] = json!(rec.raised_db);
                    line["ms"] = json!(rec.took.as_millis() as u64);
                }
                line
            }
            Err(e) => {
                eprintln!("kriegspiel hear: {name}: {e}");
                status = ExitCode::FAILURE;
                json!({"file": name, "error": e})
            }
        };
        if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
            // A reader that went away (`| head`) ends it quietly; a full disk is said.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("{PROGRAM}: writing standard output: {e}");
            }
            return ExitCode::FAILURE;
        }
    }
    status
}
