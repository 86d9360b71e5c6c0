//! The players' terminals: a local socket that a hall's front end opens. Each connection is
//! one player's text channel: he reads what he may hear (public announcements, his own
//! private messages, the answers meant for him) in the table's language, and types his
//! tries and questions. Line-oriented plain text, for screen readers.
//!
//! A seat is proven: the first line is `TABLE COLOR CODE`, the code the console printed
//! for that seat (the hall keeps it in the journal, so it survives a restart). A seat has
//! one terminal at a time; another asking for it is refused until the first hangs up or
//! the arbiter releases the seat. Every seat taken, left, refused or released is told to
//! the arbiter as a [`HallEvent::Seat`].
//!
//! Nothing a terminal does can cost the console more than a bounded amount: a connection
//! must say its seat within [`HANDSHAKE`], at most [`MAX_CONNECTIONS`] are open, each
//! seat's commands are rate-limited, and each terminal has its own bounded queue: one
//! that does not read is cut off (it may reconnect and ask `repeat`), never buffered
//! without end, and never makes another terminal wait.
//!
//! A voice terminal (`kriegspiel player --voice`) says `voice` after its code in the
//! handshake (`1 white 123456 voice`); it is then also sent `#own-board FEN` whenever the
//! player's own men change: his men alone and his castling rights (never the opponent's
//! men), from which it builds the grammar of his tries.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bounded_lines::{excerpt, LineReader};
use kriegspiel_hall::{
    code_matches, HallEvent, HallHandle, InputError, SeatChange, SeatNotice, TableNo,
};
use kriegspiel_referee::shakmaty::{Board, ByColor, Chess, Color, Position, Role, Square};
use kriegspiel_referee::{Lang, Question, Try, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{role_name, Input, Output};
use kriegspiel_voice::grammar::own_board_fen;
use tokio::sync::broadcast;

/// The most connections open at once, seated or not (two per table of the largest hall,
/// and spares); more are answered and closed at once.
pub const MAX_CONNECTIONS: usize = 160;

/// How long a new connection may take to say its seat.
pub const HANDSHAKE: Duration = Duration::from_secs(5);

/// Lines queued for one terminal before it counts as not reading and is cut off.
pub const QUEUE: usize = 1024;

/// Commands a seat may send in a burst, and per second after it.
const BURST: f64 = 10.0;
const PER_SECOND: f64 = 4.0;

/// Wrong codes a seat tolerates in a burst, and how often one more is allowed after it.
const WRONG_BURST: f64 = 5.0;
const WRONG_EVERY: Duration = Duration::from_secs(12);

/// How long a seat at a table this channel has not heard of yet waits for it to open.
const TABLE_WAIT: Duration = Duration::from_secs(2);

/// The longest first line (table, colour, code, voice).
const MAX_HELLO: usize = 256;

/// What starts a line that tells a voice terminal his own board (never an announcement).
pub const OWN_BOARD: &str = "#own-board ";

/// The last line a console sends before it closes a terminal on purpose (its table
/// closed, the console stopped): a terminal that is closed without it has lost the console.
pub const CLOSED: &str = "#closed";

/// A token bucket: a burst, then a steady rate. Time is passed in.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
    burst: f64,
    per_second: f64,
}

impl Bucket {
    fn new(burst: f64, per_second: f64, now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            last: now,
            burst,
            per_second,
        }
    }

    /// The tokens there are at `now`.
    fn tokens_at(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        (self.tokens + elapsed * self.per_second).min(self.burst)
    }

    /// Whether a token is there, without taking it.
    fn has(&self, now: Instant) -> bool {
        self.tokens_at(now) >= 1.0
    }

    /// Takes one token if there is one.
    fn take(&mut self, now: Instant) -> bool {
        self.tokens = self.tokens_at(now);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A table as the players' channel knows it.
#[derive(Debug, Clone)]
struct TableState {
    wording: Wording,
    lang: Lang,
    /// The official position (from the hall's views): to read a player his own men.
    position: Option<Chess>,
    /// The last words each player heard, for "repeat".
    last: ByColor<Option<String>>,
    /// The codes that prove each seat.
    codes: ByColor<String>,
    /// Wrong codes tried for each seat.
    wrong: ByColor<Option<Bucket>>,
}

impl TableState {
    /// The words of an output for its hearers, if it has any.
    fn text(&self, output: &Output) -> Option<String> {
        render::text(&self.wording, self.lang, output).filter(|s| !s.is_empty())
    }
}

#[derive(Debug)]
struct Session {
    /// Tells this connection from a later one of the same seat.
    id: u64,
    table: TableNo,
    color: Color,
    tx: SyncSender<String>,
    /// To close the connection from here (cut off, released, console closing).
    stream: UnixStream,
    /// A voice terminal: it is sent his own board.
    voice: bool,
    /// The own board last sent to a voice terminal.
    own_board: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    tables: HashMap<TableNo, TableState>,
    sessions: Vec<Session>,
    /// The console is closing: no new seats.
    closing: bool,
}

/// A session taken out of the state to be closed, and why.
struct Closing {
    session: Session,
    /// The line it is told last (when it still reads), if any.
    last_words: Option<String>,
    change: Option<SeatChange>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    hall: HallHandle,
    connections: AtomicUsize,
}

/// The open players' socket. Feed it the hall's events from its own subscription with
/// [`Players::follow`] (or one by one with [`Players::observe`]).
#[derive(Debug, Clone)]
pub struct Players {
    shared: Arc<Shared>,
    /// Removes the socket file when the console closes, or the last handle goes.
    file: Arc<SocketFile>,
}

/// The socket file this console made, known by its inode so that a file someone else has
/// put at the path since is left alone.
#[derive(Debug)]
struct SocketFile {
    path: PathBuf,
    id: Option<(u64, u64)>,
}

fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

impl SocketFile {
    fn remove(&self) {
        if self.id.is_some() && file_id(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        self.remove();
    }
}

/// The socket beside a journal: `journal.sqlite` → `journal.players.sock`.
pub fn default_socket(journal: &Path) -> PathBuf {
    journal.with_extension("players.sock")
}

/// Binds a socket at `path` that only this user may connect to (mode 0600, whatever the
/// umask): it is made in a private folder, restricted, then moved into place.
fn bind_private(path: &Path) -> Result<UnixListener, String> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let private = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_dir_all(&private);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&private)
        .map_err(|e| format!("cannot open the players' socket {}: {e}", path.display()))?;
    let inside = private.join("s");
    let bound = UnixListener::bind(&inside)
        .and_then(|l| {
            std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o600))?;
            std::fs::rename(&inside, path)?;
            Ok(l)
        })
        .map_err(|e| format!("cannot open the players' socket {}: {e}", path.display()));
    let _ = std::fs::remove_dir_all(&private);
    bound
}

impl Players {
    /// Opens the socket at `path` (a stale socket file left by a stopped console is
    /// replaced; one a running console still serves is refused).
    pub fn open(path: &Path, hall: HallHandle) -> Result<Players, String> {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            // Only a socket is ever replaced: any other file at the path is someone's data.
            if !meta.file_type().is_socket() {
                return Err(format!(
                    "{} exists and is not a socket; give --player-socket another path",
                    path.display()
                ));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(format!(
                    "{} is served by another running console",
                    path.display()
                ));
            }
        }
        let listener = bind_private(path)?;
        let players = Players {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                hall,
                connections: AtomicUsize::new(0),
            }),
            file: Arc::new(SocketFile {
                path: path.to_path_buf(),
                id: file_id(path),
            }),
        };
        let shared = players.shared.clone();
        std::thread::spawn(move || accept(&listener, &shared));
        Ok(players)
    }

    /// Opens the socket for a front end and follows the hall from `events`, saying on
    /// standard error how players connect; a socket that cannot be opened is a warning:
    /// the console referees without players' terminals.
    pub fn serve(
        path: &Path,
        hall: HallHandle,
        events: Option<broadcast::Receiver<HallEvent>>,
        program: &str,
    ) -> Option<Players> {
        match Players::open(path, hall) {
            Ok(p) => {
                eprintln!(
                    "{program}: players' terminals: kriegspiel player --socket {} --table N --color C --code CODE",
                    path.display()
                );
                if let Some(events) = events {
                    p.follow(events);
                }
                Some(p)
            }
            Err(e) => {
                eprintln!("{program}: warning: {e}; no players' terminals");
                None
            }
        }
    }

    /// Follows the hall from `events` (a subscription of its own, made before the hall's
    /// first event) on a thread of its own, until the hall stops.
    pub fn follow(
        &self,
        mut events: broadcast::Receiver<HallEvent>,
    ) -> std::thread::JoinHandle<()> {
        let players = self.clone();
        std::thread::spawn(move || loop {
            match events.blocking_recv() {
                Ok(e) => players.observe(&e),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Only a starved machine gets here: what was missed cannot be known, so
                    // every terminal is asked to reconnect and hear it again.
                    players.close_all(
                        "the console fell behind; reconnect, then type repeat",
                        false,
                    );
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        })
    }

    /// The seats connected now: (table, colour, voice).
    pub fn seated(&self) -> Vec<(TableNo, Color, bool)> {
        self.shared.state.lock().map_or_else(
            |_| Vec::new(),
            |st| {
                st.sessions
                    .iter()
                    .map(|s| (s.table, s.color, s.voice))
                    .collect()
            },
        )
    }

    /// The arbiter frees a seat: its terminal, if any, is closed. False if none held it.
    pub fn release(&self, table: TableNo, color: Color) -> bool {
        let closing: Vec<Closing> = {
            let Ok(mut st) = self.shared.state.lock() else {
                return false;
            };
            let lang = st.tables.get(&table).map_or(Lang::En, |t| t.lang);
            take_sessions(&mut st.sessions, |s| s.table == table && s.color == color)
                .into_iter()
                .map(|session| Closing {
                    session,
                    last_words: Some(say(lang, Said::Released)),
                    change: Some(SeatChange::Released),
                })
                .collect()
        };
        let any = !closing.is_empty();
        self.close(closing);
        any
    }

    /// Closes every terminal, telling each why (`closed`: the console closed the table on
    /// purpose), and waits a little for their last lines to leave.
    pub fn close_all(&self, why: &str, closed: bool) {
        let closing: Vec<Closing> = {
            let Ok(mut st) = self.shared.state.lock() else {
                return;
            };
            st.closing |= closed;
            let tables = st.tables.clone();
            take_sessions(&mut st.sessions, |_| true)
                .into_iter()
                .map(|session| {
                    let lang = tables.get(&session.table).map_or(Lang::En, |t| t.lang);
                    let words = if closed {
                        say(lang, Said::Closed)
                    } else {
                        format!("error: {why}")
                    };
                    Closing {
                        session,
                        last_words: Some(words),
                        change: (!closed).then(|| SeatChange::CutOff {
                            reason: why.to_owned(),
                        }),
                    }
                })
                .collect()
        };
        self.close(closing);
        if closed {
            self.file.remove();
            // Each writer sends what it still has, then the connection ends.
            let deadline = Instant::now() + Duration::from_secs(1);
            while self.shared.connections.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    /// Closes sessions taken out of the state: the last words go into the queue when there
    /// is room (a terminal that reads gets them, then the end), else the connection is cut.
    fn close(&self, closing: Vec<Closing>) {
        for Closing {
            session,
            last_words,
            change,
        } in closing
        {
            let queued = last_words.is_some_and(|w| {
                session.tx.try_send(w).is_ok() && session.tx.try_send(CLOSED.to_owned()).is_ok()
            });
            // His reader stops; the writer then sends what is queued and closes. A terminal
            // whose queue is full is cut at once.
            let _ = session.stream.shutdown(if queued {
                std::net::Shutdown::Read
            } else {
                std::net::Shutdown::Both
            });
            if let Some(change) = change {
                self.shared.hall.seat(SeatNotice {
                    table: session.table,
                    color: session.color,
                    change,
                });
            }
            // Dropping the sender lets the writer finish its queue and close the connection;
            // a writer stuck on a terminal that does not read was cut above.
        }
    }

    /// Passes one hall event to the players who may hear it.
    pub fn observe(&self, e: &HallEvent) {
        let mut cut = Vec::new();
        {
            let Ok(mut guard) = self.shared.state.lock() else {
                return;
            };
            let state = &mut *guard;
            match e {
                HallEvent::Opened {
                    table,
                    wording,
                    lang,
                    seats,
                    heard,
                    ..
                } => {
                    let mut t = TableState {
                        wording: *wording,
                        lang: *lang,
                        position: None,
                        last: ByColor::default(),
                        codes: seats.clone(),
                        wrong: ByColor::default(),
                    };
                    t.last = heard.as_ref().map(|o| o.as_ref().and_then(|o| t.text(o)));
                    state.tables.insert(*table, t);
                }
                HallEvent::View(view) => {
                    if let Some(t) = state.tables.get_mut(&view.table) {
                        t.position = Some(view.position.clone());
                    }
                    for s in state
                        .sessions
                        .iter_mut()
                        .filter(|s| s.voice && s.table == view.table)
                    {
                        let own = Some(own_board_fen(&view.position, s.color));
                        if own.is_some() && own != s.own_board {
                            if let Some(f) = &own {
                                // A full queue is found and cut off by the next message.
                                let _ = s.tx.try_send(format!("{OWN_BOARD}{f}"));
                            }
                            s.own_board = own;
                        }
                    }
                }
                HallEvent::Output { table, output, .. } => {
                    let Some(t) = state.tables.get_mut(table) else {
                        return;
                    };
                    let Some(hearer) = render::hearer(output) else {
                        return;
                    };
                    let Some(text) = t.text(output) else {
                        return;
                    };
                    let hears = |c: Color| hearer == Hearer::Both || hearer == Hearer::Player(c);
                    for c in Color::ALL.into_iter().filter(|c| hears(*c)) {
                        t.last[c] = Some(text.clone());
                    }
                    let lang = t.lang;
                    let table = *table;
                    let mut i = 0;
                    while i < state.sessions.len() {
                        let s = &state.sessions[i];
                        if s.table != table || !hears(s.color) {
                            i += 1;
                            continue;
                        }
                        match s.tx.try_send(text.clone()) {
                            Ok(()) => i += 1,
                            Err(TrySendError::Full(_)) => {
                                // He does not read: cut off rather than held without end.
                                cut.push(Closing {
                                    session: state.sessions.remove(i),
                                    last_words: None,
                                    change: Some(SeatChange::CutOff {
                                        reason: say(lang, Said::NotReading),
                                    }),
                                });
                            }
                            Err(TrySendError::Disconnected(_)) => {
                                // He hung up; his reader says so.
                                i += 1;
                            }
                        }
                    }
                }
                HallEvent::Link { .. }
                | HallEvent::Ended { .. }
                | HallEvent::Failed { .. }
                | HallEvent::OpenFailed { .. }
                | HallEvent::Seat(_) => {}
            }
        }
        for c in &cut {
            tell_cut_off(&c.session.stream, c.change.as_ref());
        }
        self.close(cut);
    }
}

/// Takes the sessions that `pick` chooses out of `sessions`.
fn take_sessions(sessions: &mut Vec<Session>, pick: impl Fn(&Session) -> bool) -> Vec<Session> {
    let (taken, kept) = std::mem::take(sessions).into_iter().partition(pick);
    *sessions = kept;
    taken
}

/// Tries, without waiting, to tell a terminal that does not read why it is cut off.
fn tell_cut_off(stream: &UnixStream, change: Option<&SeatChange>) {
    if let Some(SeatChange::CutOff { reason }) = change {
        let _ = stream.set_write_timeout(Some(Duration::from_millis(20)));
        let _ = (&*stream).write_all(format!("\nerror: {reason}\n").as_bytes());
    }
}

/// Accepts terminals until the process ends; each on a thread of its own, at most
/// [`MAX_CONNECTIONS`] at once. An error (no file descriptors left) backs off instead of
/// spinning.
fn accept(listener: &UnixListener, shared: &Arc<Shared>) {
    let mut backoff = Duration::from_millis(10);
    loop {
        match listener.accept() {
            Ok((mut stream, _)) => {
                backoff = Duration::from_millis(10);
                let open = shared.connections.fetch_add(1, Ordering::AcqRel) + 1;
                let guard = Connection(shared.clone());
                if open > MAX_CONNECTIONS {
                    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
                    let _ = writeln!(
                        stream,
                        "error: {MAX_CONNECTIONS} terminals are connected to this console already"
                    );
                    drop(guard);
                    continue;
                }
                let shared = shared.clone();
                let spawned =
                    std::thread::Builder::new()
                        .name("player".to_owned())
                        .spawn(move || {
                            let _guard = guard;
                            serve(stream, &shared);
                        });
                if spawned.is_err() {
                    std::thread::sleep(backoff);
                }
            }
            Err(_) => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        }
    }
}

/// Counts an open connection until it is dropped.
struct Connection(Arc<Shared>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a player typed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Typed {
    Input(Input),
    /// A try; `role`: the kind of man he named for it (`Ng1f3`), checked against his men.
    Try {
        tried: Try,
        role: Option<Role>,
    },
    Repeat,
    MyMen,
    Help,
}

/// Reads one typed line: a try (`g1f3`, `Ng1f3`, `e7e8n`, `O-O`, `O-O-O`) or a command.
fn typed(line: &str, color: Color) -> Option<Typed> {
    let lower = line.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let input = |i| Some(Typed::Input(i));
    match words.as_slice() {
        ["any"] | ["any?"] => input(Input::Ask {
            color,
            question: Question::Any,
        }),
        ["rebuffs"] => input(Input::Ask {
            color,
            question: Question::Rebuffs,
        }),
        ["repeat"] => Some(Typed::Repeat),
        ["my", "men"] => Some(Typed::MyMen),
        ["help"] | ["?"] => Some(Typed::Help),
        ["resign"] => input(Input::Resign { color }),
        ["draw"] | ["offer", "draw"] => input(Input::Draw { color }),
        ["promote", piece] => {
            let role = match *piece {
                "q" | "queen" => Role::Queen,
                "r" | "rook" => Role::Rook,
                "b" | "bishop" => Role::Bishop,
                "n" | "knight" => Role::Knight,
                _ => return None,
            };
            input(Input::Promote { color, role })
        }
        [castle @ ("o-o" | "0-0" | "o-o-o" | "0-0-0")] => {
            let rank = if color == Color::White { '1' } else { '8' };
            let to = if castle.len() == 3 { 'g' } else { 'c' };
            let tried = Try::from_uci(&format!("e{rank}{to}{rank}")).ok()?;
            Some(Typed::Try {
                tried,
                role: Some(Role::King),
            })
        }
        [one] => {
            // A piece letter may lead (Ng1f3): the man he means on the origin square.
            let first = one.chars().next()?;
            let (role, uci) = match one.len() {
                4 => (None, *one),
                5 if one.as_bytes()[4].is_ascii_digit() => {
                    (Some(Role::from_char(first)?), &one[1..])
                }
                5 => (None, *one),
                6 => (Some(Role::from_char(first)?), &one[1..]),
                _ => return None,
            };
            let tried = Try::from_uci(uci).ok()?;
            Some(Typed::Try { tried, role })
        }
        _ => None,
    }
}

/// His men on the official position, for "my men" ("king e1, queen d1, ...").
fn my_men(board: &Board, color: Color, lang: Lang) -> String {
    let mut men: Vec<(Role, Square)> = board
        .by_color(color)
        .into_iter()
        .filter_map(|sq| board.role_at(sq).map(|r| (r, sq)))
        .collect();
    // King first, pawns last, each kind in square order.
    men.sort_by_key(|(r, sq)| (std::cmp::Reverse(*r as u8), *sq));
    men.iter()
        .map(|(r, sq)| format!("{} {sq}", role_name(*r, lang)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kind of man of `color` on `sq` in the official position.
fn man_on(board: &Board, color: Color, sq: Square) -> Option<Role> {
    board
        .piece_at(sq)
        .filter(|p| p.color == color)
        .map(|p| p.role)
}

/// The first line of a connection: `TABLE COLOR CODE [voice]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hello {
    table: TableNo,
    color: Color,
    code: Option<String>,
    voice: bool,
}

fn hello(line: &str) -> Option<Hello> {
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
fn read_hello(stream: &UnixStream) -> Result<String, Option<&'static str>> {
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
enum Refusal {
    NoTable(Vec<TableNo>),
    NoCode,
    WrongCode,
    TooManyWrong,
    Taken,
    Closing,
}

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// One player's connection: the handshake, then his lines.
fn serve(stream: UnixStream, shared: &Arc<Shared>) {
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
    } = match seated {
        Ok(s) => s,
        Err((refusal, lang)) => {
            let (words, notice) = refusal_words(&refusal, &h, lang);
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
    if let Some(f) = own_board {
        let _ = tx.try_send(format!("{OWN_BOARD}{f}"));
    }
    read_commands(stream, shared, session_id, &h, lang, &tx);
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

/// A seat given: the table's language, his own board for a voice terminal, the last words
/// meant for him.
struct Seated {
    lang: Lang,
    own_board: Option<String>,
    last: Option<String>,
}

/// Gives the seat `h` asks for to this connection, or says why not.
fn seat(
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
    if !code_matches(&t.codes[h.color], code) {
        guesses.take(now);
        return Err((Refusal::WrongCode, lang));
    }
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
    });
    let last = t.last[h.color].clone();
    Ok(Seated {
        lang,
        own_board,
        last,
    })
}

/// The words of a refusal for the terminal, and for the arbiter when he should know.
fn refusal_words(r: &Refusal, h: &Hello, lang: Lang) -> (String, Option<String>) {
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

/// His lines, until he hangs up or is cut off; each seat's commands limited in rate.
fn read_commands(
    stream: UnixStream,
    shared: &Shared,
    session_id: u64,
    h: &Hello,
    lang: Lang,
    tx: &SyncSender<String>,
) {
    let (table, color) = (h.table, h.color);
    let mut lines = LineReader::with_limit(stream, 1024);
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
                if !reply(format!("error: {e}")) {
                    return;
                }
                continue;
            }
            Ok(None) | Err(_) => return,
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
                    return;
                }
            }
            continue;
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
            Err(InputError::Refused(why)) => Ok(Some(format!("error: {why}"))),
            Err(InputError::Gone(_)) => Err(()),
        };
        let answer = match typed(&line, color) {
            None => Ok(Some(say(lang, Said::NotUnderstood(&excerpt(&line))))),
            Some(Typed::Help) => Ok(Some(say(lang, Said::Help))),
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
        };
        match answer {
            Ok(Some(r)) => {
                if !reply(r) {
                    return;
                }
            }
            Ok(None) => {}
            Err(()) => return,
        }
    }
}

/// Cuts off a terminal that does not read (its seat is free again).
fn cut_off(shared: &Shared, session_id: u64, reason: String) {
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

/// Words of the players' channel itself, in the table's language.
fn say(lang: Lang, what: Said<'_>) -> String {
    match (what, lang) {
        (Said::Connected(t, c), Lang::En) => {
            format!("Connected to table {t} as {c}. Type help for the commands.")
        }
        (Said::Connected(t, c), Lang::Fr) => format!(
            "Connecté à la table {t} ({}). Tapez help pour les commandes.",
            color_word(c, lang)
        ),
        (Said::Connected(t, c), Lang::Ru) => format!(
            "Подключено к столу {t} ({}). Команды: help.",
            color_word(c, lang)
        ),
        (Said::NotUnderstood(s), Lang::En) => {
            format!("Not understood: {s}. Type help for the commands.")
        }
        (Said::NotUnderstood(s), Lang::Fr) => format!("Commande inconnue : {s}. Tapez help."),
        (Said::NotUnderstood(s), Lang::Ru) => format!("Непонятно: {s}. Наберите help."),
        (Said::NoSuchMan(r, sq), Lang::En) => format!("You have no {} on {sq}.", role_name(r, lang)),
        (Said::NoSuchMan(r, sq), Lang::Fr) => {
            format!("Vous n'avez pas de {} en {sq}.", role_name(r, lang))
        }
        (Said::NoSuchMan(r, sq), Lang::Ru) => {
            format!("На поле {sq} нет вашей фигуры: {}.", role_name(r, lang))
        }
        (Said::MyMen(list), Lang::En) => format!("Your men: {list}."),
        (Said::MyMen(list), Lang::Fr) => format!("Vos pièces : {list}."),
        (Said::MyMen(list), Lang::Ru) => format!("Ваши фигуры: {list}."),
        (Said::NothingYet, Lang::En) => "Nothing has been said to you yet.".to_owned(),
        (Said::NothingYet, Lang::Fr) => "Rien ne vous a encore été annoncé.".to_owned(),
        (Said::NothingYet, Lang::Ru) => "Вам пока ничего не сообщалось.".to_owned(),
        (Said::Help, Lang::En) => "Commands: a try as g1f3, Ng1f3, e7e8n or O-O; any; rebuffs; promote q, r, b or n; repeat; my men; draw; resign; help.".to_owned(),
        (Said::Help, Lang::Fr) => "Commandes : un coup comme g1f3, Ng1f3, e7e8n ou O-O ; any ; rebuffs ; promote q, r, b ou n ; repeat ; my men ; draw ; resign ; help.".to_owned(),
        (Said::Help, Lang::Ru) => "Команды: ход как g1f3, Ng1f3, e7e8n или O-O; any; rebuffs; promote q, r, b или n; repeat; my men; draw; resign; help.".to_owned(),
        (Said::TooFast(s), Lang::En) => format!("Too many commands: at most {PER_SECOND} a second. Not taken: {s}."),
        (Said::TooFast(s), Lang::Fr) => format!("Trop de commandes : au plus {PER_SECOND} par seconde. Non prise : {s}."),
        (Said::TooFast(s), Lang::Ru) => format!("Слишком много команд: не больше {PER_SECOND} в секунду. Не принято: {s}."),
        (Said::WrongCode(t, c), Lang::En) => format!("wrong seat code for table {t} {c}; the arbiter has the right one"),
        (Said::WrongCode(t, c), Lang::Fr) => format!("code de place erroné pour la table {t} ({}) ; l'arbitre a le bon", color_word(c, lang)),
        (Said::WrongCode(t, c), Lang::Ru) => format!("неверный код места: стол {t} ({}); верный код у арбитра", color_word(c, lang)),
        (Said::TooManyWrong, Lang::En) => "too many wrong seat codes; wait a minute, or ask the arbiter".to_owned(),
        (Said::TooManyWrong, Lang::Fr) => "trop de codes erronés ; attendez une minute ou demandez à l'arbitre".to_owned(),
        (Said::TooManyWrong, Lang::Ru) => "слишком много неверных кодов; подождите минуту или обратитесь к арбитру".to_owned(),
        (Said::Taken(t, c), Lang::En) => format!("table {t} {c} is taken by another terminal; if it is not yours, ask the arbiter to release the seat"),
        (Said::Taken(t, c), Lang::Fr) => format!("la place table {t} ({}) est prise par un autre terminal ; si ce n'est pas le vôtre, demandez à l'arbitre de la libérer", color_word(c, lang)),
        (Said::Taken(t, c), Lang::Ru) => format!("место стол {t} ({}) занято другим терминалом; если это не ваш, попросите арбитра освободить место", color_word(c, lang)),
        (Said::NotReading, Lang::En) => "your terminal did not read its messages; reconnect, then type repeat".to_owned(),
        (Said::NotReading, Lang::Fr) => "votre terminal ne lisait pas ses messages ; reconnectez-vous, puis tapez repeat".to_owned(),
        (Said::NotReading, Lang::Ru) => "ваш терминал не читал сообщения; подключитесь снова и наберите repeat".to_owned(),
        (Said::Released, Lang::En) => "error: the arbiter has released your seat".to_owned(),
        (Said::Released, Lang::Fr) => "error: l'arbitre a libéré votre place".to_owned(),
        (Said::Released, Lang::Ru) => "error: арбитр освободил ваше место".to_owned(),
        (Said::Closed, Lang::En) => "The console has closed the table.".to_owned(),
        (Said::Closed, Lang::Fr) => "La console a fermé la table.".to_owned(),
        (Said::Closed, Lang::Ru) => "Консоль закрыла стол.".to_owned(),
        (Said::Earlier(s), Lang::En) => format!("Said to you last: {s}"),
        (Said::Earlier(s), Lang::Fr) => format!("Dernière annonce pour vous : {s}"),
        (Said::Earlier(s), Lang::Ru) => format!("Последнее сообщение вам: {s}"),
    }
}

#[derive(Debug, Clone, Copy)]
enum Said<'a> {
    Connected(TableNo, Color),
    NotUnderstood(&'a str),
    NoSuchMan(Role, Square),
    MyMen(&'a str),
    NothingYet,
    Help,
    TooFast(&'a str),
    WrongCode(TableNo, Color),
    TooManyWrong,
    Taken(TableNo, Color),
    NotReading,
    Released,
    Closed,
    /// The last words meant for him, said again when he connects.
    Earlier(&'a str),
}

fn color_word(c: Color, lang: Lang) -> &'static str {
    match (c, lang) {
        (Color::White, Lang::En) => "white",
        (Color::Black, Lang::En) => "black",
        (Color::White, Lang::Fr) => "blancs",
        (Color::Black, Lang::Fr) => "noirs",
        (Color::White, Lang::Ru) => "белые",
        (Color::Black, Lang::Ru) => "чёрные",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kriegspiel_referee::shakmaty::fen::Fen;

    #[test]
    fn typed_lines() {
        let w = Color::White;
        let t = |s: &str| Try::from_uci(s).unwrap();
        assert_eq!(
            typed("g1f3", w),
            Some(Typed::Try {
                tried: t("g1f3"),
                role: None
            })
        );
        assert_eq!(
            typed(" Ng1f3 ", w),
            Some(Typed::Try {
                tried: t("g1f3"),
                role: Some(Role::Knight)
            })
        );
        assert_eq!(
            typed("e7e8n", w),
            Some(Typed::Try {
                tried: t("e7e8n"),
                role: None
            })
        );
        assert_eq!(
            typed("Pe7e8q", w),
            Some(Typed::Try {
                tried: t("e7e8q"),
                role: Some(Role::Pawn)
            })
        );
        assert_eq!(
            typed("O-O", Color::Black),
            Some(Typed::Try {
                tried: t("e8g8"),
                role: Some(Role::King)
            })
        );
        assert_eq!(
            typed("0-0-0", w),
            Some(Typed::Try {
                tried: t("e1c1"),
                role: Some(Role::King)
            })
        );
        assert_eq!(typed("My Men", w), Some(Typed::MyMen));
        assert_eq!(
            typed("promote knight", w),
            Some(Typed::Input(Input::Promote {
                color: w,
                role: Role::Knight
            }))
        );
        assert_eq!(
            typed("any", w),
            Some(Typed::Input(Input::Ask {
                color: w,
                question: Question::Any
            }))
        );
        for bad in [
            "",
            "g1",
            "xg1f3",
            "promote king",
            "e2e4 e7e5",
            "castle",
            "Xe2e4",
        ] {
            assert_eq!(typed(bad, w), None, "{bad}");
        }
    }

    #[test]
    fn my_men_lists_only_his_own() {
        let fen = "4k3/8/8/8/8/8/3P4/R3K2N w Q - 0 1";
        let board = &fen.parse::<Fen>().unwrap().into_setup().board;
        assert_eq!(
            my_men(board, Color::White, Lang::En),
            "king e1, rook a1, knight h1, pawn d2"
        );
        assert_eq!(my_men(board, Color::Black, Lang::Fr), "roi e8");
        assert_eq!(man_on(board, Color::White, Square::H1), Some(Role::Knight));
        assert_eq!(man_on(board, Color::Black, Square::H1), None);
    }

    #[test]
    fn the_first_line_names_table_colour_code_and_voice() {
        let h = |table, color, code: Option<&str>, voice| Hello {
            table,
            color,
            code: code.map(str::to_owned),
            voice,
        };
        assert_eq!(
            hello("1 white 123456"),
            Some(h(1, Color::White, Some("123456"), false))
        );
        assert_eq!(
            hello("2 black 654321 voice"),
            Some(h(2, Color::Black, Some("654321"), true))
        );
        assert_eq!(hello("1 white"), Some(h(1, Color::White, None, false)));
        assert_eq!(hello("1 white voice"), Some(h(1, Color::White, None, true)));
        for bad in [
            "",
            "1",
            "x white 1",
            "1 green 1",
            "1 white 1 2 3",
            "1 white 1 loud",
        ] {
            assert_eq!(hello(bad), None, "{bad}");
        }
    }

    /// A terminal that does not read is cut off once its queue and the socket's buffer are
    /// full, the arbiter is told, and its seat is free: nothing is held without end.
    #[test]
    fn a_terminal_that_does_not_read_is_cut_off_and_the_arbiter_told() {
        use kriegspiel_hall::{BoardSource, HallCommand, TableSetup, TableSpec, TimeMode};
        use kriegspiel_table::PrivateMessage;
        let dir = tempfile::tempdir().unwrap();
        let journal = kriegspiel_hall::Journal::open(&dir.path().join("j.sqlite")).unwrap();
        let spec = TableSpec {
            name: "t".to_owned(),
            setup: TableSetup {
                white_without_board: true,
                black_without_board: true,
                ..TableSetup::default()
            },
            white: BoardSource::Absent,
            black: BoardSource::Absent,
            scripted: Vec::new(),
            resume: kriegspiel_hall::Resume::New,
        };
        let (hall, mut subs) =
            kriegspiel_hall::start_subscribed(journal, vec![spec], TimeMode::Real, 1).unwrap();
        let socket = dir.path().join("p.sock");
        let players = Players::open(&socket, hall.handle.clone()).unwrap();
        players.follow(subs.pop().unwrap());
        let mut events = hall.events;
        let codes = loop {
            if let HallEvent::Opened { seats, .. } = events.blocking_recv().unwrap() {
                break seats;
            }
        };
        let mut s = UnixStream::connect(&socket).unwrap();
        writeln!(s, "1 white {}", codes.white).unwrap();
        let mut first = [0u8; 9];
        s.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"Connected");
        // Never read again.
        let not_your_turn = HallEvent::Output {
            table: 1,
            at: 0,
            output: Output::Private {
                color: Color::White,
                message: PrivateMessage::NotYourTurn,
            },
        };
        let mut sent = 0;
        while !players.seated().is_empty() && sent < 1_000_000 {
            players.observe(&not_your_turn);
            sent += 1;
        }
        assert!(
            players.seated().is_empty(),
            "still seated after {sent} messages"
        );
        let cut = loop {
            if let HallEvent::Seat(n) = events.blocking_recv().unwrap() {
                if matches!(n.change, SeatChange::CutOff { .. }) {
                    break n;
                }
            }
        };
        assert_eq!((cut.table, cut.color), (1, Color::White));
        // His seat is free: he may come back.
        let mut again = UnixStream::connect(&socket).unwrap();
        writeln!(again, "1 white {}", codes.white).unwrap();
        let mut first = [0u8; 9];
        again.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"Connected");
        hall.handle.send(HallCommand::Shutdown).unwrap();
    }

    #[test]
    fn a_bucket_allows_a_burst_then_a_steady_rate() {
        let t0 = Instant::now();
        let mut b = Bucket::new(3.0, 2.0, t0);
        assert!((0..3).all(|_| b.take(t0)));
        assert!(!b.take(t0));
        // Half a second gives one more at 2 a second.
        let later = t0 + Duration::from_millis(500);
        assert!(b.take(later));
        assert!(!b.take(later));
        // A long pause gives no more than the burst.
        let much_later = later + Duration::from_secs(60);
        assert_eq!((0..10).filter(|_| b.take(much_later)).count(), 3);
    }
}
