//! `kriegspiel referee`: the JSON-lines referee on standard input and output.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use kriegspiel_referee::jsonl::{Defaults, Session};
use kriegspiel_referee::{Lang, RuleSet};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Rule set: cincinnati, wild16, traditional, rand, berkeley, berkeley-any, russian.
    #[arg(long, default_value = "cincinnati")]
    rules: String,
    /// Start position (default: the standard one).
    #[arg(long)]
    fen: Option<String>,
    /// Language of the announcement texts: en, fr, ru.
    #[arg(long, default_value = "en")]
    lang: String,
    /// A rule-set option as KEY=VALUE (ladder, strict, rand-try-squares, notation); repeatable.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
}

/// Builds the session the command line asks for, or the error to print.
fn session(args: Args) -> Result<Session, String> {
    let rules: RuleSet = args.rules.parse().map_err(|e| format!("{e}"))?;
    let lang: Lang = args.lang.parse().map_err(|e| format!("{e}"))?;
    let mut options = Vec::with_capacity(args.options.len());
    for pair in &args.options {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("bad option '{pair}': expected KEY=VALUE"))?;
        options.push((k.to_owned(), v.to_owned()));
    }
    Session::new(Defaults {
        rules,
        fen: args.fen,
        lang,
        options,
    })
    .map_err(|e| e.to_string())
}

pub fn run(args: Args) -> ExitCode {
    let mut session = match session(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kriegspiel referee: {e}");
            return ExitCode::from(2);
        }
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => {}
            Err(e) => {
                eprintln!("kriegspiel referee: reading standard input: {e}");
                return ExitCode::FAILURE;
            }
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let answer = session.handle_line(body);
        let written = serde_json::to_writer(&mut out, &answer)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(e) = written {
            // A closed stdout (the driver went away) ends the session quietly.
            if e.kind() == io::ErrorKind::BrokenPipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("kriegspiel referee: writing standard output: {e}");
            return ExitCode::FAILURE;
        }
    }
}
