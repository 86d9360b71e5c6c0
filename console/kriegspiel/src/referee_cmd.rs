//! `kriegspiel referee`: the JSON-lines referee on standard input and output.
//!
//! Input is read with bounded lines (a line over 64 KiB is skipped unread and answered with
//! one `line-too-long` error; a leading byte-order mark is skipped). Answers are written in
//! order, one per line, and flushed whenever the referee is about to wait for input: not
//! after every line, so a driver that sends many lines at once gets them in large writes.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::process::ExitCode;
use std::rc::Rc;

use bounded_lines::LineReader;
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
    // Our own handles on standard input and output: no lock, no line buffering underneath
    // ours (the process's `Stdout` would write at every newline).
    let (input, output) = match (
        own_handle(io::stdin().as_fd()),
        own_handle(io::stdout().as_fd()),
    ) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("kriegspiel referee: standard input or output: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out = Rc::new(RefCell::new(Output {
        writer: BufWriter::with_capacity(OUTPUT_BUFFER, output),
        failed: None,
    }));
    let mut reader = LineReader::new(FlushBeforeRead {
        inner: input,
        out: Rc::clone(&out),
    });
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                out.borrow_mut().flush();
                eprintln!("kriegspiel referee: reading standard input: {e}");
                return ExitCode::FAILURE;
            }
        };
        let answer = session.answer_input(line);
        let mut o = out.borrow_mut();
        if let Err(e) = answer.write_line(&mut o.writer) {
            o.failed = Some(e);
        } else if reader.is_drained() {
            // Nothing more has been read: answer everything before waiting for input.
            o.flush();
        }
        if let Some(e) = o.failed.take() {
            return write_failed(&e);
        }
    }
    let mut o = out.borrow_mut();
    o.flush();
    match o.failed.take() {
        Some(e) => write_failed(&e),
        None => ExitCode::SUCCESS,
    }
}

/// Answers are batched in memory while more input is already waiting; this is the most
/// written at once.
const OUTPUT_BUFFER: usize = 64 * 1024;

fn own_handle(fd: BorrowedFd<'_>) -> io::Result<File> {
    fd.try_clone_to_owned().map(File::from)
}

/// The answers not yet written, and the first error writing them.
#[derive(Debug)]
struct Output {
    writer: BufWriter<File>,
    failed: Option<io::Error>,
}

impl Output {
    fn flush(&mut self) {
        if self.failed.is_none() {
            if let Err(e) = self.writer.flush() {
                self.failed = Some(e);
            }
        }
    }
}

/// Standard input that writes out every pending answer before each read, since a read may
/// block: after the last buffered line (the reader is drained) and also in the middle of a
/// line that is still arriving, or being skipped for its length. After a write error it
/// reads nothing more.
#[derive(Debug)]
struct FlushBeforeRead {
    inner: File,
    out: Rc<RefCell<Output>>,
}

impl Read for FlushBeforeRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Ok(mut o) = self.out.try_borrow_mut() {
            o.flush();
            if o.failed.is_some() {
                return Ok(0);
            }
        }
        self.inner.read(buf)
    }
}

/// A closed standard output (the driver went away) ends the session quietly.
fn write_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    eprintln!("kriegspiel referee: writing standard output: {e}");
    ExitCode::FAILURE
}
