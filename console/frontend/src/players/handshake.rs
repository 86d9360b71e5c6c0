//! The handshake: a connection's first line (`TABLE COLOR CODE [voice]`), read within a
//! bounded time, and the seat it proves, or why not.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::SyncSender;
use std::time::Instant;

use kriegspiel_hall::{code_matches, TableNo};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;
use kriegspiel_voice::grammar::own_board_fen;

use super::limits::{Bucket, HANDSHAKE, MAX_HELLO, WRONG_BURST, WRONG_EVERY};
use super::session::{Session, Shared};
use super::words::{say, Said};

/// The first line of a connection: `TABLE COLOR CODE [voice]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hello {
    pub(super) table: TableNo,
    pub(super) color: Color,
    pub(super) code: Option<String>,
    pub(super) voice: bool,
}

pub(super) fn hello(line: &str) -> Option<Hello> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (t, c, rest) = match words.as_slice() {
        [t, c, rest @ ..] if rest.len() <= 2 => (t, c, rest),
        _ => return None,
    };
    let table = t.parse::<TableNo>().ok()?;
    let color = c.parse::<Color>().ok()?;
    let (code, voice) = match rest {
        [] => (None, false),
        ["voice"] => (None, true),
        [code] => (Some((*code).to_owned()), false),
        [code, "voice"] => (Some((*code).to_owned()), true),
        _ => return None,
    };
    Some(Hello {
        table,
        color,
        code,
        voice,
    })
}

/// Reads the first line within [`HANDSHAKE`], byte by byte so that nothing after it is
/// taken from the stream; `Err` with the words to answer when it is too long or late.
pub(super) fn read_hello(stream: &UnixStream) -> Result<String, Option<&'static str>> {
    let deadline = Instant::now() + HANDSHAKE;
    let mut line = Vec::with_capacity(64);
    let mut byte = [0u8; 1];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Some("no seat was said in time"));
        }
        let _ = stream.set_read_timeout(Some(left));
        match (&*stream).read(&mut byte) {
            Ok(0) => return Err(None),
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if line.len() >= MAX_HELLO => return Err(Some("the first line is too long")),
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Some("no seat was said in time"));
            }
            Err(_) => return Err(None),
        }
    }
    let _ = stream.set_read_timeout(None);
    String::from_utf8(line)
        .map(|l| l.trim().to_owned())
        .map_err(|_| Some("the first line is not text"))
}

/// Why a seat was not given.
pub(super) enum Refusal {
    NoTable(Vec<TableNo>),
    NoCode,
    WrongCode,
    TooManyWrong,
    Taken,
    Closing,
}

/// A seat given: the table's language, his own board for a voice terminal, the last words
/// meant for him.
pub(super) struct Seated {
    pub(super) lang: Lang,
    pub(super) own_board: Option<String>,
    pub(super) last: Option<String>,
    /// Whose move it is, told with it: a player coming back knows where the game stands.
    pub(super) turn: Option<super::words::Turn>,
}

/// Gives the seat `h` asks for to this connection, or says why not.
pub(super) fn seat(
    shared: &Shared,
    h: &Hello,
    id: u64,
    tx: SyncSender<String>,
    stream: UnixStream,
) -> Result<Seated, (Refusal, Lang)> {
    let Ok(mut guard) = shared.state.lock() else {
        return Err((Refusal::Closing, Lang::En));
    };
    let st = &mut *guard;
    let Some(t) = st.tables.get_mut(&h.table) else {
        let mut tables: Vec<TableNo> = st.tables.keys().copied().collect();
        tables.sort_unstable();
        return Err((Refusal::NoTable(tables), Lang::En));
    };
    let lang = t.lang;
    if st.closing {
        return Err((Refusal::Closing, lang));
    }
    let Some(code) = &h.code else {
        return Err((Refusal::NoCode, lang));
    };
    let now = Instant::now();
    let guesses = t.wrong[h.color]
        .get_or_insert_with(|| Bucket::new(WRONG_BURST, 1.0 / WRONG_EVERY.as_secs_f64(), now));
    if !guesses.has(now) {
        return Err((Refusal::TooManyWrong, lang));
    }
    let proven =
        code_matches(&t.codes[h.color], code) || shared.seat_file_proves(h.table, h.color, code);
    if !proven {
        guesses.take(now);
        return Err((Refusal::WrongCode, lang));
    }
    // The right code clears the wrong ones before it.
    t.wrong[h.color] = None;
    if st
        .sessions
        .iter()
        .any(|s| s.table == h.table && s.color == h.color)
    {
        return Err((Refusal::Taken, lang));
    }
    let own_board = t
        .position
        .as_ref()
        .filter(|_| h.voice)
        .map(|p| own_board_fen(p, h.color));
    st.sessions.push(Session {
        id,
        table: h.table,
        color: h.color,
        tx,
        stream,
        voice: h.voice,
        own_board: own_board.clone(),
        heard: 0,
    });
    let last = t.last[h.color].clone();
    Ok(Seated {
        lang,
        own_board,
        last,
        turn: t.turn(h.color),
    })
}

/// The words of a refusal for the terminal, and for the arbiter when he should know.
pub(super) fn refusal_words(r: &Refusal, h: &Hello, lang: Lang) -> (String, Option<String>) {
    let (table, color) = (h.table, h.color);
    match r {
        Refusal::NoTable(tables) => {
            let tables: Vec<String> = tables.iter().map(ToString::to_string).collect();
            (
                format!(
                    "this console has no table {table} (its tables: {})",
                    tables.join(", ")
                ),
                None,
            )
        }
        Refusal::NoCode => (
            format!("table {table} {color} needs its seat code (the arbiter has it): kriegspiel player --code CODE"),
            Some("no seat code".to_owned()),
        ),
        Refusal::WrongCode => (
            say(lang, Said::WrongCode(table, color)),
            Some("a wrong seat code".to_owned()),
        ),
        Refusal::TooManyWrong => (
            say(lang, Said::TooManyWrong),
            Some("too many wrong codes; the seat takes no code for a while".to_owned()),
        ),
        Refusal::Taken => (
            say(lang, Said::Taken(table, color)),
            Some("the seat is taken by a connected terminal".to_owned()),
        ),
        Refusal::Closing => ("the console is closing".to_owned(), None),
    }
}
