//! A seated terminal's session: the channel's state (tables, sessions and their bounded
//! queues), one connection from its handshake to its end, and his lines, rate-limited.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bounded_lines::{excerpt, LineReader};
use kriegspiel_hall::{HallHandle, InputError, SeatChange, SeatNotice, TableNo};
use kriegspiel_referee::shakmaty::{ByColor, Chess, Color, Position};
use kriegspiel_referee::{Lang, Wording};
use kriegspiel_table::render;
use kriegspiel_table::{Input, Output};

use crate::credentials::RoundSecret;

use super::handshake::{hello, read_hello, refusal_words, seat, Hello, Refusal, Seated};
use super::limits::{Bucket, BURST, PER_SECOND, QUEUE, TABLE_WAIT};
use super::san::Unread;
use super::typed::{man_on, my_men, typed_on, Typed};
use super::words::{say, Said, Turn};
use super::{OWN_BOARD, WRONG_CODE};

/// A table as the players' channel knows it.
#[derive(Debug, Clone)]
pub(super) struct TableState {
    pub(super) wording: Wording,
    pub(super) lang: Lang,
    /// The official position (from the hall's views): to read a player his own men.
    pub(super) position: Option<Chess>,
    /// The last words each player heard, for "repeat".
    pub(super) last: ByColor<Option<String>>,
    /// The codes that prove each seat.
    pub(super) codes: ByColor<String>,
    /// Wrong codes tried for each seat.
    pub(super) wrong: ByColor<Option<Bucket>>,
    /// Whether its game has ended: a console that stops before tells the players their
    /// game is kept.
    pub(super) over: bool,
    /// Who is to move after a move that stood, until the position that follows it comes: a
    /// player told "Black's move." who asks "turn" at once is not told the position before.
    pub(super) moved: Option<Color>,
}

impl TableState {
    /// Whose move it is, for `color` (none before the first position is known).
    pub(super) fn turn(&self, color: Color) -> Option<Turn> {
        if self.over {
            return Some(Turn::Over);
        }
        let to_move = match self.moved {
            Some(c) => c,
            None => self.position.as_ref()?.turn(),
        };
        Some(if to_move == color {
            Turn::Yours
        } else {
            Turn::Theirs
        })
    }

    /// The words of an output for its hearers, if it has any.
    pub(super) fn text(&self, output: &Output) -> Option<String> {
        render::text(&self.wording, self.lang, output).filter(|s| !s.is_empty())
    }
}

#[derive(Debug)]
pub(super) struct Session {
    /// Tells this connection from a later one of the same seat.
    pub(super) id: u64,
    pub(super) table: TableNo,
    pub(super) color: Color,
    pub(super) tx: SyncSender<String>,
    /// To close the connection from here (cut off, released, console closing).
    pub(super) stream: UnixStream,
    /// A voice terminal: it is sent his own board.
    pub(super) voice: bool,
    /// The own board last sent to a voice terminal.
    pub(super) own_board: Option<String>,
    /// How many of the table's words were queued for him: a terminal whose keys end is
    /// kept until the answer to its last command has come.
    pub(super) heard: u64,
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) tables: HashMap<TableNo, TableState>,
    pub(super) sessions: Vec<Session>,
    /// The console is closing: no new seats.
    pub(super) closing: bool,
}

/// A session taken out of the state to be closed, and why.
pub(super) struct Closing {
    pub(super) session: Session,
    /// The line it is told last (when it still reads), if any.
    pub(super) last_words: Option<String>,
    pub(super) change: Option<SeatChange>,
}

#[derive(Debug)]
pub(super) struct Shared {
    pub(super) state: Mutex<State>,
    pub(super) hall: HallHandle,
    pub(super) connections: AtomicUsize,
    /// The round's secret, once given: a seat file's password proves its seat.
    pub(super) round_secret: OnceLock<Arc<RoundSecret>>,
    /// The seats' broker client and its goodbye, when seats are served over a broker: a
    /// console that closes says goodbye after its last lines, or they die with it.
    pub(super) broker: Mutex<Option<BrokerGoodbye>>,
}

/// The seats' broker client, and how to say goodbye on it.
pub(super) struct BrokerGoodbye(
    pub(super) rumqttc::Client,
    pub(super) kriegspiel_net::Goodbye,
);

impl std::fmt::Debug for BrokerGoodbye {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BrokerGoodbye")
    }
}

impl Shared {
    /// Whether `password` is the one on the seat file of `table`'s `color` seat.
    pub(super) fn seat_file_proves(&self, table: TableNo, color: Color, password: &str) -> bool {
        self.round_secret.get().is_some_and(|secret| {
            let user = kriegspiel_net::Principal::Seat { table, color }.to_string();
            secret.accepts(&user, password)
        })
    }
}

/// Takes the sessions that `pick` chooses out of `sessions`.
pub(super) fn take_sessions(
    sessions: &mut Vec<Session>,
    pick: impl Fn(&Session) -> bool,
) -> Vec<Session> {
    let (taken, kept) = std::mem::take(sessions).into_iter().partition(pick);
    *sessions = kept;
    taken
}

/// Tries, without waiting, to tell a terminal that does not read why it is cut off.
pub(super) fn tell_cut_off(stream: &UnixStream, change: Option<&SeatChange>) {
    if let Some(SeatChange::CutOff { reason }) = change {
        let _ = stream.set_write_timeout(Some(Duration::from_millis(20)));
        let _ = (&*stream).write_all(format!("\nerror: {reason}\n").as_bytes());
    }
}

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// Tells a terminal why its seat is refused, and the arbiter when he should know.
fn refuse(
    shared: &Shared,
    stream: &UnixStream,
    mut out: UnixStream,
    refusal: &Refusal,
    h: &Hello,
    lang: Lang,
) {
    let (words, notice) = refusal_words(refusal, h, lang);
    if matches!(refusal, Refusal::WrongCode) {
        // A guess costs a second: codes cannot be tried quickly.
        std::thread::sleep(Duration::from_secs(1));
    }
    if let Some(reason) = notice {
        shared.hall.seat(SeatNotice {
            table: h.table,
            color: h.color,
            change: SeatChange::Refused { reason },
        });
    }
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    let _ = writeln!(out, "error: {words}");
    if matches!(refusal, Refusal::WrongCode) {
        let _ = writeln!(out, "{WRONG_CODE}");
    }
}

/// Waits for the answer to his last input, at most [`OWED_WAIT`] (and while his terminal
/// still reads, when its `writer` is given): what he typed next is answered after it (a
/// "turn" typed ahead of a try's verdict is not told the position before the try), and a
/// try typed just before his keys ended has its verdict before the connection ends.
fn wait_for_answer(
    shared: &Shared,
    session_id: u64,
    owed: u64,
    writer: Option<&std::thread::JoinHandle<()>>,
) {
    let deadline = Instant::now() + OWED_WAIT;
    while Instant::now() < deadline
        && !writer.is_some_and(std::thread::JoinHandle::is_finished)
        && shared.state.lock().is_ok_and(|st| {
            st.sessions
                .iter()
                .any(|s| s.id == session_id && s.heard <= owed)
        })
    {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The longest a terminal whose keys ended waits for the answer to its last command.
const OWED_WAIT: Duration = Duration::from_secs(3);

/// One player's connection: the handshake, then his lines.
pub(super) fn serve(stream: UnixStream, shared: &Arc<Shared>) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let line = match read_hello(&stream) {
        Ok(l) => l,
        Err(why) => {
            if let Some(why) = why {
                let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
                let _ = writeln!(
                    out,
                    "error: {why}; start with 'TABLE COLOR CODE', e.g. '1 white 123456'"
                );
            }
            return;
        }
    };
    let Some(h) = hello(&line) else {
        let _ = writeln!(
            out,
            "error: start with the table number, your colour and your seat code, e.g. '1 white 123456' (not '{}')",
            excerpt(&line)
        );
        return;
    };
    let (tx, rx) = mpsc::sync_channel::<String>(QUEUE);
    let session_id = u64::try_from(SESSIONS.fetch_add(1, Ordering::Relaxed)).unwrap_or(0);
    let Ok(for_state) = stream.try_clone() else {
        return;
    };
    // A table that is opening now (its codes printed by another subscriber a moment before
    // this channel heard of it) is waited for a little.
    let deadline = Instant::now() + TABLE_WAIT;
    while Instant::now() < deadline
        && shared
            .state
            .lock()
            .is_ok_and(|st| !st.tables.contains_key(&h.table))
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let seated = seat(shared, &h, session_id, tx.clone(), for_state);
    let Seated {
        lang,
        own_board,
        last,
        turn,
    } = match seated {
        Ok(s) => s,
        Err((refusal, lang)) => {
            refuse(shared, &stream, out, &refusal, &h, lang);
            return;
        }
    };
    let (table, color) = (h.table, h.color);
    shared.hall.seat(SeatNotice {
        table,
        color,
        change: SeatChange::Taken { voice: h.voice },
    });
    // The writer: everything for this player, in order, until the queue closes; then the
    // connection ends (his reader sees it too).
    let writer = std::thread::spawn(move || {
        for line in rx {
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                break;
            }
        }
        let _ = out.shutdown(std::net::Shutdown::Both);
    });
    let _ = tx.try_send(say(lang, Said::Connected(table, color)));
    // A player coming back (after his terminal or the console stopped) hears the last
    // words meant for him, marked as said before.
    if let Some(last) = last {
        let _ = tx.try_send(say(lang, Said::Earlier(&last)));
    }
    if let Some(turn) = turn {
        let _ = tx.try_send(say(lang, Said::Turn(turn)));
    }
    if let Some(f) = own_board {
        let _ = tx.try_send(format!("{OWN_BOARD}{f}"));
    }
    if let Some(owed) = read_commands(stream, shared, session_id, &h, lang, &tx) {
        wait_for_answer(shared, session_id, owed, Some(&writer));
    }
    // He hung up (or his keys ended), or was cut off: the seat is free. The writer sends
    // every reply still queued, then closes.
    let was_seated = shared.state.lock().is_ok_and(|mut st| {
        let before = st.sessions.len();
        st.sessions.retain(|s| s.id != session_id);
        st.sessions.len() < before
    });
    if was_seated {
        shared.hall.seat(SeatNotice {
            table,
            color,
            change: SeatChange::Left,
        });
    }
    drop(tx);
    let _ = writer.join();
}

/// His lines, until he hangs up or is cut off; each seat's commands limited in rate.
pub(super) fn read_commands(
    stream: UnixStream,
    shared: &Shared,
    session_id: u64,
    h: &Hello,
    lang: Lang,
    tx: &SyncSender<String>,
) -> Option<u64> {
    let (table, color) = (h.table, h.color);
    let mut lines = LineReader::with_limit(stream, 1024);
    // His words counted when his last input went to the table, until an answer came.
    let mut owed: Option<u64> = None;
    let heard = || {
        shared.state.lock().ok().and_then(|st| {
            st.sessions
                .iter()
                .find(|s| s.id == session_id)
                .map(|s| s.heard)
        })
    };
    let mut bucket = Bucket::new(BURST, PER_SECOND, Instant::now());
    let mut warned: Option<Instant> = None;
    // A reply that does not fit his queue means he does not read: he is cut off.
    let reply = |r: String| match tx.try_send(r) {
        Ok(()) => true,
        Err(TrySendError::Full(_)) => {
            cut_off(shared, session_id, say(lang, Said::NotReading));
            false
        }
        Err(TrySendError::Disconnected(_)) => false,
    };
    loop {
        let line = match lines.next_line() {
            Ok(Some(Ok(l))) => l.trim().to_owned(),
            Ok(Some(Err(e))) => {
                if !reply(say(lang, Said::NotTaken(&e.to_string()))) {
                    return None;
                }
                continue;
            }
            Ok(None) | Err(_) => return owed,
        };
        if line.is_empty() {
            continue;
        }
        let now = Instant::now();
        if !bucket.take(now) {
            // Said at most once a second; the rest are dropped quietly.
            if warned.is_none_or(|w| now.duration_since(w) >= Duration::from_secs(1)) {
                warned = Some(now);
                if !reply(say(lang, Said::TooFast(&excerpt(&line)))) {
                    return None;
                }
            }
            continue;
        }
        if let Some(owed) = owed.take() {
            wait_for_answer(shared, session_id, owed, None);
        }
        let table_state = shared
            .state
            .lock()
            .ok()
            .and_then(|st| st.tables.get(&table).cloned());
        let board = table_state
            .as_ref()
            .and_then(|t| t.position.as_ref())
            .map(|p| p.board().clone());
        let send = |input: Input| match shared.hall.input(table, input) {
            Ok(()) => Ok(None),
            Err(InputError::Refused(why)) => Ok(Some(say(lang, Said::NotTaken(&why)))),
            Err(InputError::Gone(_)) => Err(()),
        };
        let typed = typed_on(&line, color, board.as_ref());
        // Counted before the table can answer, so that its answer counts.
        let before = matches!(typed, Some(Typed::Try { .. } | Typed::Input(_)))
            .then(heard)
            .flatten();
        let answer = match typed {
            None => Ok(Some(say(lang, Said::NotUnderstood(&excerpt(&line))))),
            Some(Typed::Help) => Ok(Some(say(
                lang,
                Said::Help(table_state.as_ref().map(|t| t.wording.rules)),
            ))),
            Some(Typed::Turn) => Ok(Some(
                match table_state.as_ref().and_then(|t| t.turn(color)) {
                    Some(turn) => say(lang, Said::Turn(turn)),
                    None => say(lang, Said::NothingYet),
                },
            )),
            Some(Typed::Repeat) => Ok(Some(
                table_state
                    .and_then(|t| t.last[color].clone())
                    .unwrap_or_else(|| say(lang, Said::NothingYet)),
            )),
            Some(Typed::MyMen) => Ok(board
                .as_ref()
                .map(|b| say(lang, Said::MyMen(&my_men(b, color, lang))))),
            Some(Typed::Try { tried, role }) => match role {
                Some(r) if board.as_ref().and_then(|b| man_on(b, color, tried.from)) != Some(r) => {
                    Ok(Some(say(lang, Said::NoSuchMan(r, tried.from))))
                }
                _ => send(Input::Play { color, tried }),
            },
            Some(Typed::Input(input)) => send(input),
            Some(Typed::Unread(unread)) => Ok(Some(unread_words(lang, &unread, &line))),
        };
        match answer {
            Ok(Some(r)) => {
                if !reply(r) {
                    return None;
                }
            }
            Ok(None) => owed = before.or(owed),
            Err(()) => return None,
        }
    }
}

/// What he is told of a move he wrote that is no try of his.
fn unread_words(lang: Lang, unread: &Unread, line: &str) -> String {
    match unread {
        Unread::NoMan(role, to) => say(lang, Said::NoManGoes(*role, *to)),
        Unread::Which(role, from) => say(lang, Said::Which(*role, from)),
        Unread::NotAMove => say(lang, Said::NotUnderstood(&excerpt(line))),
    }
}

/// Cuts off a terminal that does not read (its seat is free again).
pub(super) fn cut_off(shared: &Shared, session_id: u64, reason: String) {
    let taken = shared.state.lock().map_or_else(
        |_| Vec::new(),
        |mut st| take_sessions(&mut st.sessions, |s| s.id == session_id),
    );
    if let Some(s) = taken.into_iter().next() {
        let change = SeatChange::CutOff { reason };
        tell_cut_off(&s.stream, Some(&change));
        let _ = s.stream.shutdown(std::net::Shutdown::Both);
        shared.hall.seat(SeatNotice {
            table: s.table,
            color: s.color,
            change,
        });
    }
}
