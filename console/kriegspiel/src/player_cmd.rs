//! `kriegspiel player`: one player's terminal on a running console. It connects to the
//! players' socket, prints what the player may hear, one line each, and sends what he types.
//! Plain lines, for screen readers. With `--voice` he also speaks his tries and commands
//! (push-to-talk on Enter; see [`voice`] and docs/VOICE.md).

mod broker;
mod onlooker;
mod stop;
mod voice;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bounded_lines::LineReader;
use kriegspiel_referee::shakmaty::Color;

use kriegspiel_frontend::credentials::{SeatFile, SeatPlace};
use kriegspiel_frontend::players::{default_socket, CLOSED};
use kriegspiel_frontend::{journal_path, Unnamed};

/// Said when the console goes away without closing the table.
const LOST: &str = "Lost the console: it stopped or failed without closing the table. Ask the arbiter; reconnect when it runs again.";
/// Said when his keys end (Ctrl-D) and the console has answered what it still had, or
/// when Ctrl-C (or another signal) ends the terminal.
/// True whether his game is over or not (it is said after "The game is over." too).
const KEYS_ENDED: &str = "This terminal is closed. A game still under way goes on at the console: start the terminal again with your seat code to play on.";
/// Said for a line of nothing but keys such as Escape or the arrows.
const NO_KEYS: &str = "Escape and the arrow keys do nothing on this terminal: type a command and Enter (help lists them).";
/// Said for a line of keys too long to be a command.
const TOO_LONG: &str = "That line was too long to be a command, and was not sent. Type it again.";

/// The console starts a line with "error: " only when it closes the connection after it
/// (a refused seat code, a seat released or taken over): the terminal ends there.
fn ends_the_terminal(line: &str) -> bool {
    line.starts_with("error: ")
}

/// His line without the sequences keys such as Escape, the arrows or F1 put in it (a
/// terminal in line mode passes them on as typed): the console is sent what he wrote.
fn without_keys(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        // ESC [ parameters final, ESC O final, or ESC alone.
        match chars.peek() {
            Some('[') => {
                chars.next();
                while chars
                    .next_if(|c| !('\u{40}'..='\u{7e}').contains(c))
                    .is_some()
                {}
                chars.next();
            }
            Some('O') => {
                chars.next();
                chars.next();
            }
            _ => {}
        }
    }
    out
}

/// Tables are numbered from 1.
fn table_number(arg: &str) -> Result<usize, String> {
    match arg.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("a table number is 1 or more, as the arbiter gave it".to_owned()),
    }
}

/// Asks the player for his seat code on the terminal until he types one that looks like a
/// code (none: his keys ended). Keys such as Escape and the spaces he puts between groups
/// of digits are taken out; anything else is said, and asked again.
fn ask_code(table: usize, color: Color) -> Option<String> {
    let mut err = std::io::stderr();
    loop {
        let _ = write!(err, "Seat code for table {table} {color}: ");
        let _ = err.flush();
        // Bytes, not text: a long line cut inside a character is still a line.
        let mut bytes = Vec::new();
        let mut keys = std::io::stdin().lock().take(256);
        let read = std::io::BufRead::read_until(&mut keys, b'\n', &mut bytes);
        if read.is_err() || bytes.is_empty() {
            let _ = writeln!(err);
            return None;
        }
        // A line longer than any code: the rest of it is read and dropped, and it is said
        // once (it was refused a piece at a time, as if typed again and again).
        if !bytes.ends_with(b"\n") && bytes.len() >= 256 {
            let rest = skip_line(keys.get_mut());
            let _ = writeln!(
                err,
                "That line was too long to be a seat code ({} bytes; the arbiter's codes have 6 digits): type it again.",
                bytes.len() + rest
            );
            continue;
        }
        let line = String::from_utf8_lossy(&bytes);
        let code: String = without_keys(&line)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if is_code(&code) {
            return Some(code);
        }
        let _ = if code.is_empty() {
            writeln!(err, "Type the seat code the arbiter gave you, then Enter.")
        } else {
            writeln!(
                err,
                "A seat code is digits, as the arbiter gave it (not '{}'): type it again.",
                bounded_lines::excerpt(&code)
            )
        };
    }
}

/// Reads and drops the rest of a line (at most 1 MiB of it); how many bytes were dropped.
fn skip_line(keys: &mut impl std::io::BufRead) -> usize {
    let mut dropped = 0;
    while dropped < 1 << 20 {
        let (used, end) = match keys.fill_buf() {
            Ok([]) | Err(_) => return dropped,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            },
        };
        keys.consume(used);
        dropped += used;
        if end {
            return dropped.saturating_sub(1);
        }
    }
    dropped
}

/// Digits (and dashes), as the console makes them.
fn is_code(code: &str) -> bool {
    !code.is_empty() && code.len() <= 32 && code.chars().all(|c| c.is_ascii_digit() || c == '-')
}

const PROGRAM: &str = "kriegspiel player";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The table number in the hall (1 for `kriegspiel table`); a seat file names it.
    #[arg(long, value_parser = table_number)]
    table: Option<usize>,
    /// Your colour: white or black; a seat file names it.
    #[arg(long, required_unless_present = "seat_file")]
    color: Option<String>,
    /// Your seat file (`kriegspiel seats` writes one per player): it names your table,
    /// colour and the round's broker, and proves your seat. You play through the broker,
    /// from any machine on the room's network; with --socket, on the console's own socket.
    /// The round's onlooker.seat, with --table N, follows that table's public announcements.
    #[arg(long, value_name = "FILE")]
    seat_file: Option<PathBuf>,
    /// The broker, when not the one the seat file names (e.g. mqtt://192.168.1.10:1883).
    #[arg(
        long,
        value_name = "URL",
        requires = "seat_file",
        conflicts_with = "socket"
    )]
    broker: Option<kriegspiel_net::BrokerUrl>,
    /// The round's CA certificate, for a broker on mqtts://.
    #[arg(
        long,
        value_name = "FILE",
        requires = "seat_file",
        conflicts_with = "socket"
    )]
    ca_file: Option<PathBuf>,
    /// Your seat code, which the arbiter gives you (the console prints one per seat); asked
    /// for when not given.
    #[arg(long, value_name = "CODE")]
    code: Option<String>,
    /// The console's players' socket; default: beside the default journal
    /// (~/.local/share/kriegspiel/journal.players.sock).
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Play by voice too: Enter on an empty line starts listening, Enter again stops; a try
    /// heard is read back ("knight g1 to f3?") and played only when you say "confirm" or
    /// press Space; "cancel" or Escape drops it (one key, no Enter after it).
    #[arg(long)]
    voice: bool,
    /// The microphone: an ALSA capture device as `arecord -L` lists it
    /// (e.g. plughw:CARD=Headset,DEV=0).
    #[arg(
        long,
        value_name = "DEVICE",
        default_value = "default",
        requires = "voice"
    )]
    mic: String,
    /// Instead of a microphone, each push-to-talk hears the next of these WAV files, in
    /// order (to check recordings, and for tests). Repeat the option for each file.
    #[arg(long = "mic-wav", value_name = "FILE", requires = "voice")]
    mic_wav: Vec<PathBuf>,
    /// His voice enrolment (`kriegspiel enrol --out FILE`, made before the round): the
    /// recogniser fitted to his voice and room.
    #[arg(long, value_name = "FILE", requires = "voice")]
    enrolment: Option<PathBuf>,
    /// Hear him with the acoustic model as installed. Without this option (and without an
    /// enrolment) the model adapted to a club's room is used; docs/VOICE.md.
    #[arg(long, requires = "voice", conflicts_with = "enrolment")]
    plain_model: bool,
    /// Hear him with PocketSphinx alone, without Moonshine's second ear (his "confirm" and
    /// "cancel", his commands, and his tries weighed; docs/VOICE.md).
    #[arg(long, requires = "voice")]
    no_moonshine: bool,
    #[command(flatten)]
    speak: crate::headset::SpeakArgs,
}

pub fn run(args: Args) -> ExitCode {
    play(args).unwrap_or_else(|code| code)
}

/// Connects, takes the seat and plays; `Err`: the terminal could not start (said why).
fn play(args: Args) -> Result<ExitCode, ExitCode> {
    if args.speak.to().is_some() && !args.voice {
        eprintln!("{PROGRAM}: --speak is the voice terminal's speech: give --voice too");
        return Err(ExitCode::from(2));
    }
    let file = match &args.seat_file {
        Some(path) => Some(
            kriegspiel_frontend::credentials::SeatFile::read(path).map_err(|e| {
                eprintln!("{PROGRAM}: {e}");
                ExitCode::from(2)
            })?,
        ),
        None => None,
    };
    if let Some(onlookers) = onlookers_seat(&args, file.as_ref())? {
        return Ok(onlooker::follow(&onlookers.0, onlookers.1));
    }
    let place = Place::of(&args, file)?;
    let (table, color) = (place.table, place.color);
    // The recogniser first: a missing model is said before anything is connected.
    let recognizer = args.voice.then(|| recognizer(&args)).transpose()?;
    let asked = place.password.is_none() && args.code.is_none();
    if let (true, Via::Socket(path)) = (asked, &place.via) {
        // Whether a console answers, said before he types his code; the connection he
        // plays on is made after it, as the console gives a terminal 5 s to say its seat.
        drop(connect(path)?);
    }
    let (heard, to_console) = loop {
        let code = match &place.password {
            Some(p) if args.code.is_none() => p.clone(),
            _ => seat_code(args.code.clone(), table, color)?,
        };
        let (stream, mut to_console) = match &place.via {
            Via::Broker(seat) => broker::connect(seat).map_err(|e| {
                eprintln!("{PROGRAM}: {e}");
                ExitCode::FAILURE
            })?,
            Via::Socket(path) => connect(path)?,
        };
        let hello = if args.voice {
            format!("{table} {color} {code} voice")
        } else {
            format!("{table} {color} {code}")
        };
        if writeln!(to_console, "{hello}").is_err() {
            eprintln!("{PROGRAM}: the console hung up");
            return Err(ExitCode::FAILURE);
        }
        match Answer::to_hello(stream) {
            Answer::Heard(heard) => break (heard, to_console),
            Answer::Silent => {
                eprintln!(
                    "{PROGRAM}: the console took the connection but did not answer in {} s; ask the arbiter whether it is stuck",
                    Answer::WITHIN.as_secs()
                );
                return Err(ExitCode::FAILURE);
            }
            Answer::WrongCode(words) => {
                let _ = writeln!(std::io::stdout(), "{words}");
                // A code he typed wrong is asked again; one given on the command line is not
                // typed again the same way.
                if !asked {
                    return Err(ExitCode::FAILURE);
                }
            }
        }
    };
    // Seated: from now on Ctrl-C says where his game stands, as Ctrl-D does.
    stop::on_signals(KEYS_ENDED);
    if let Some(recognizer) = recognizer {
        let source = if args.mic_wav.is_empty() {
            voice::Source::Mic(args.mic)
        } else {
            voice::Source::Files(args.mic_wav)
        };
        let speak = args.speak.to();
        return Ok(voice::run(
            heard, to_console, color, recognizer, source, speak,
        ));
    }
    Ok(keys_and_lines(heard, to_console))
}

/// What the console says to him: its first answer (read before), then the connection.
pub(crate) type Heard = std::io::Chain<std::io::Cursor<Vec<u8>>, UnixStream>;

/// The console's answer to his hello.
enum Answer {
    /// Seated, or refused for good: the terminal goes on with all it hears.
    Heard(Heard),
    /// A wrong seat code (the refusal's words): the connection is over.
    WrongCode(String),
    /// No answer at all: a console that accepts connections but is stuck.
    Silent,
}

impl Answer {
    /// The longest first answer looked at; a longer one is passed on unread.
    const FIRST: usize = 4096;

    /// How long the console may take to answer (a wrong code's second, and more).
    const WITHIN: std::time::Duration = std::time::Duration::from_secs(20);

    /// Reads the console's first line a byte at a time, leaving the rest to the terminal.
    fn to_hello(mut stream: UnixStream) -> Answer {
        let mut first = Vec::new();
        let mut byte = [0u8];
        let _ = stream.set_read_timeout(Some(Self::WITHIN));
        while first.len() < Self::FIRST && !first.ends_with(b"\n") {
            match stream.read(&mut byte) {
                Ok(1) => first.push(byte[0]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Answer::Silent;
                }
                _ => break,
            }
        }
        let _ = stream.set_read_timeout(None);
        if first.starts_with(b"error: ") {
            // A refusal is the connection's end: what follows it comes at once.
            let mut next = Vec::new();
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let _ = (&mut stream).take(64).read_to_end(&mut next);
            let _ = stream.set_read_timeout(None);
            if next.starts_with(kriegspiel_frontend::players::WRONG_CODE.as_bytes()) {
                return Answer::WrongCode(String::from_utf8_lossy(&first).trim_end().to_owned());
            }
            first.extend(next);
        }
        Answer::Heard(std::io::Cursor::new(first).chain(stream))
    }
}

/// Where the terminal connects, and as which seat.
struct Place {
    table: usize,
    color: Color,
    via: Via,
    /// The seat file's password, which proves the seat.
    password: Option<String>,
}

enum Via {
    Socket(PathBuf),
    Broker(broker::Seat),
}

impl Place {
    /// From the command line: the seat file's seat (`file`, read from `--seat-file`; on
    /// its broker, or on `--socket`), or `--table` and `--color` on the socket.
    fn of(args: &Args, file: Option<SeatFile>) -> Result<Place, ExitCode> {
        let usage = |e: String| {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::from(2)
        };
        let (Some(path), Some(file)) = (&args.seat_file, file) else {
            let Some(color) = &args.color else {
                return Err(usage(
                    "give --color (white or black), or --seat-file".to_owned(),
                ));
            };
            return Ok(Place {
                table: args.table.unwrap_or(1),
                color: colour(color)?,
                via: Via::Socket(socket_path(args.socket.clone())?),
                password: None,
            });
        };
        let seat = broker::seat(&file, args.broker.clone(), args.ca_file.clone()).map_err(usage)?;
        // What the command line says must agree with the file: a player holding another
        // seat's file is told so, not seated elsewhere.
        if args.table.is_some_and(|t| t != seat.table) {
            return Err(usage(format!(
                "{} is the seat file of table {}, not table {}",
                path.display(),
                seat.table,
                args.table.unwrap_or_default()
            )));
        }
        if let Some(c) = &args.color {
            if colour(c)? != seat.color {
                return Err(usage(format!(
                    "{} is the seat file of {}, not {c}",
                    path.display(),
                    seat.color
                )));
            }
        }
        let (table, color) = (seat.table, seat.color);
        let via = match &args.socket {
            Some(socket) => Via::Socket(socket.clone()),
            None => Via::Broker(seat),
        };
        Ok(Place {
            table,
            color,
            via,
            password: Some(file.password),
        })
    }
}

/// The onlookers' broker and the table to follow, when the seat file is the onlookers'.
fn onlookers_seat(
    args: &Args,
    file: Option<&SeatFile>,
) -> Result<Option<(kriegspiel_net::Broker, usize)>, ExitCode> {
    let usage = |e: String| {
        eprintln!("{PROGRAM}: {e}");
        ExitCode::from(2)
    };
    let (Some(path), Some(file)) = (&args.seat_file, file) else {
        return Ok(None);
    };
    let SeatPlace::Onlooker { tables } = file.place else {
        return Ok(None);
    };
    let Some(table) = args.table.filter(|t| (1..=tables).contains(t)) else {
        let asked = match args.table {
            Some(t) => format!("there is no table {t} in this round"),
            None => "it follows one table".to_owned(),
        };
        return Err(usage(format!(
            "{} is the onlookers' seat file: {asked}; give --table N, 1 to {tables}",
            path.display()
        )));
    };
    let player_only = [
        (args.color.is_some(), "--color"),
        (args.code.is_some(), "--code"),
        (args.socket.is_some(), "--socket"),
        (args.voice, "--voice"),
    ];
    if let Some((_, option)) = player_only.iter().find(|(given, _)| *given) {
        return Err(usage(format!(
            "{} is the onlookers' seat file: an onlooker only listens, so {option} is a player's option",
            path.display()
        )));
    }
    let broker =
        broker::broker_of(file, args.broker.clone(), args.ca_file.clone()).map_err(usage)?;
    Ok(Some((broker, table)))
}

/// The player's colour, from `--color`.
fn colour(arg: &str) -> Result<Color, ExitCode> {
    arg.parse().map_err(|_| {
        eprintln!(
            "{PROGRAM}: unknown colour '{}' (white, black)",
            bounded_lines::excerpt(arg)
        );
        ExitCode::from(2)
    })
}

/// The speech recogniser for `--voice`, with its model and his enrolment.
fn recognizer(args: &Args) -> Result<kriegspiel_voice::Recognizer, ExitCode> {
    use kriegspiel_voice::{Adaptation, Model, Recognizer};
    let adaptation = Adaptation::of(args.enrolment.as_deref(), args.plain_model);
    let mut recognizer = Recognizer::adapted(&Model::default(), adaptation).map_err(|e| {
        eprintln!("{PROGRAM}: {e}");
        ExitCode::from(2)
    })?;
    if let Some(ear) = crate::ear::second_ear(PROGRAM, args.no_moonshine) {
        recognizer.set_ear(ear);
    }
    Ok(recognizer)
}

/// The players' socket: `--socket`, or the one beside the default journal.
fn socket_path(socket: Option<PathBuf>) -> Result<PathBuf, ExitCode> {
    socket
        .map_or_else(
            || journal_path(None, Unnamed::Club).map(|j| default_socket(&j)),
            Ok,
        )
        .map_err(|e| {
            eprintln!("{PROGRAM}: {e}");
            ExitCode::from(2)
        })
}

/// The socket to the console, and a second handle on it to write with.
fn connect(path: &Path) -> Result<(UnixStream, UnixStream), ExitCode> {
    // The console's socket is its user's alone (mode 0600): one of another user's is not
    // the console's, and would be told his seat code.
    if let Ok(meta) = std::fs::metadata(path) {
        if !kriegspiel_hall::private_file::owned_by_us(&meta) {
            eprintln!(
                "{PROGRAM}: {} belongs to another user: it is not your console's socket, and your seat code is not sent to it; ask the arbiter for the path its \"players' terminals\" line names",
                path.display()
            );
            return Err(ExitCode::FAILURE);
        }
    }
    let stream = UnixStream::connect(path).map_err(|e| {
        use std::os::unix::fs::FileTypeExt as _;
        let kind = std::fs::metadata(path).ok().map(|m| m.file_type());
        let e = match (e.kind(), kind) {
            (std::io::ErrorKind::NotFound, _) => "nothing is there".to_owned(),
            // Refused for a file that is no socket at all (a journal, the round file).
            (_, Some(t)) if t.is_dir() => "it is a folder, not a socket".to_owned(),
            (_, Some(t)) if !t.is_socket() => "it is a file, not a socket".to_owned(),
            (std::io::ErrorKind::ConnectionRefused, _) => {
                "a socket left by a console that has stopped".to_owned()
            }
            (kind, _) => std::io::Error::from(kind).to_string(),
        };
        eprintln!(
            "{PROGRAM}: no console answers at {} ({e}); start one first (kriegspiel table or hall, or the window), or give --socket the path its \"players' terminals\" line names (the window's demo keeps its socket beside its own journal)",
            path.display()
        );
        ExitCode::FAILURE
    })?;
    let Ok(to_console) = stream.try_clone() else {
        eprintln!("{PROGRAM}: cannot use the socket");
        return Err(ExitCode::FAILURE);
    };
    Ok((stream, to_console))
}

/// His seat code: `--code`, or asked for on the terminal; digits (and dashes) only.
fn seat_code(code: Option<String>, table: usize, color: Color) -> Result<String, ExitCode> {
    let code = match code {
        Some(c) => c,
        None => match ask_code(table, color) {
            Some(c) => c,
            None => {
                eprintln!("{PROGRAM}: no seat code typed: start again and type it, or give it with --code CODE (the arbiter has it)");
                return Err(ExitCode::from(2));
            }
        },
    };
    if !is_code(&code) {
        eprintln!(
            "{PROGRAM}: a seat code is digits, as the arbiter gave it (not '{}')",
            bounded_lines::excerpt(&code)
        );
        return Err(ExitCode::from(2));
    }
    Ok(code)
}

/// The plain terminal: what he types goes to the console, what he may hear is printed.
fn keys_and_lines(stream: Heard, mut to_console: UnixStream) -> ExitCode {
    // What he types goes to the console as it comes; when his keys end (Ctrl-D, or the end
    // of a script) the console is told, answers what it still has, and hangs up.
    let keys_ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ended = keys_ended.clone();
    std::thread::spawn(move || {
        let mut keys = LineReader::new(std::io::stdin());
        while let Ok(Some(line)) = keys.next_line() {
            let line = match line {
                Ok(line) => line,
                // Said, and the line goes no further: he types it again.
                Err(e) => {
                    eprintln!("{PROGRAM}: that line was not sent: {e}");
                    continue;
                }
            };
            let typed = without_keys(line);
            if typed.trim().is_empty() && !line.trim().is_empty() {
                let _ = writeln!(std::io::stdout(), "{NO_KEYS}");
                continue;
            }
            if writeln!(to_console, "{typed}").is_err() {
                return;
            }
        }
        ended.store(true, std::sync::atomic::Ordering::Release);
        let _ = to_console.shutdown(std::net::Shutdown::Write);
    });
    let mut heard = LineReader::new(stream);
    // Locked a line at a time: his keys' thread says some things too.
    let out = std::io::stdout();
    let mut closed = false;
    loop {
        let line = match heard.next_line() {
            Ok(Some(Ok(CLOSED))) => {
                closed = true;
                continue;
            }
            Ok(Some(Ok(l))) => l.to_owned(),
            Ok(Some(Err(e))) => format!("({e})"),
            Ok(None) | Err(_) => {
                // He ended his keys, or the console closed the table: all is well. Else the
                // console went away without a word: it stopped or died.
                if closed {
                    return ExitCode::SUCCESS;
                }
                if keys_ended.load(std::sync::atomic::Ordering::Acquire) {
                    let _ = writeln!(out.lock(), "{KEYS_ENDED}");
                    return ExitCode::SUCCESS;
                }
                let _ = writeln!(out.lock(), "{LOST}");
                return ExitCode::FAILURE;
            }
        };
        let mut out = out.lock();
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return ExitCode::SUCCESS;
        }
        if ends_the_terminal(&line) {
            return ExitCode::FAILURE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_keys;

    #[test]
    fn keys_that_are_not_text_are_taken_out_of_his_line() {
        assert_eq!(without_keys("\u{1b}"), "");
        assert_eq!(without_keys("\u{1b}[A\u{1b}[Ae2e4"), "e2e4");
        assert_eq!(without_keys("my\u{1b}OP men"), "my men");
        assert_eq!(without_keys("\u{1b}[1;5Dany"), "any");
        assert_eq!(without_keys("e2e4"), "e2e4");
    }
}
