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

mod broker;
mod handshake;
mod limits;
mod observe;
mod san;
mod session;
mod socket;
mod typed;
mod words;

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kriegspiel_hall::{HallHandle, SeatChange, SeatNotice, TableNo};
use kriegspiel_referee::shakmaty::Color;
use kriegspiel_referee::Lang;

pub use limits::{HANDSHAKE, MAX_CONNECTIONS, QUEUE};
pub use socket::default_socket;

use session::{take_sessions, Closing, Shared, State};
use socket::{accept, bind_private, file_id, SocketFile};
use words::{say, Said};

/// What starts a line that tells a voice terminal his own board (never an announcement).
pub const OWN_BOARD: &str = "#own-board ";

/// The last line a console sends before it closes a terminal on purpose (its table
/// closed, the console stopped): a terminal that is closed without it has lost the console.
pub const CLOSED: &str = "#closed";

/// The line after a wrong seat code's refusal: a terminal that asked its player for the
/// code asks him again, instead of ending (the refusal's words are in his language).
pub const WRONG_CODE: &str = "#wrong-code";

/// The open players' socket. Feed it the hall's events as a subscriber of the hall
/// ([`Players::subscriber`]), or one by one with [`Players::observe`].
#[derive(Debug, Clone)]
pub struct Players {
    shared: Arc<Shared>,
    /// Removes the socket file when the console closes, or the last handle goes.
    file: Arc<SocketFile>,
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
                round_secret: std::sync::OnceLock::new(),
                broker: Mutex::new(None),
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

    /// Opens the socket for a front end, saying on standard error how players connect; a
    /// socket that cannot be opened is a warning: the console referees without players'
    /// terminals. Give the hall its [`Players::subscriber`] to feed it.
    pub fn serve(path: &Path, hall: HallHandle, program: &str) -> Option<Players> {
        match Players::open(path, hall) {
            Ok(p) => {
                eprintln!(
                    "{program}: players' terminals: kriegspiel player --socket {} --table N --color C --code CODE",
                    path.display()
                );
                Some(p)
            }
            Err(e) => {
                eprintln!("{program}: warning: {e}; no players' terminals");
                None
            }
        }
    }

    /// Lets a player's seat file prove his seat, besides the code the console printed: the
    /// file's password is derived from the round's `secret`. Given once.
    pub fn accept_seat_files(&self, secret: Arc<crate::credentials::RoundSecret>) {
        let _ = self.shared.round_secret.set(secret);
    }

    /// Serves this console's seats over the round's broker too (`kriegspiel player
    /// --seat-file FILE`), each seat proven by its seat file; said on standard error.
    pub fn serve_broker(&self, on: &crate::args::OnBroker, program: &'static str) {
        if let Some(secret) = &on.round_secret {
            self.accept_seat_files(secret.clone());
        }
        match broker::start(&self.shared, &on.hall.broker, &on.hall.console, program) {
            Ok(()) => eprintln!(
                "{program}: players' terminals over the broker: kriegspiel player --seat-file FILE{}",
                if on.round_secret.is_some() {
                    " (kriegspiel seats writes them)"
                } else {
                    " --code CODE (no round secret here: a seat file's password proves nothing)"
                }
            ),
            Err(e) => eprintln!("{program}: warning: {e}; no players' terminals over the broker"),
        }
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

    /// The arbiter frees a seat: its terminal, if any, is closed, and its count of wrong
    /// codes is cleared (someone guessing must not keep the player out after the arbiter
    /// was asked). False if no terminal held it.
    pub fn release(&self, table: TableNo, color: Color) -> bool {
        let closing: Vec<Closing> = {
            let Ok(mut st) = self.shared.state.lock() else {
                return false;
            };
            if let Some(t) = st.tables.get_mut(&table) {
                t.wrong[color] = None;
            }
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
                    let table = tables.get(&session.table);
                    let lang = table.map_or(Lang::En, |t| t.lang);
                    let words = if closed && table.is_some_and(|t| !t.over) {
                        say(lang, Said::Stopped)
                    } else if closed {
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
            // What the seats over the broker were last told is in the client's queue: it
            // goes, then the client leaves (bounded: a broker that is down has it anyway).
            let broker = self.shared.broker.lock().ok().and_then(|mut b| b.take());
            if let Some(session::BrokerGoodbye(client, goodbye)) = broker {
                goodbye.say(&client, Duration::from_secs(2));
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
}

#[cfg(test)]
mod tests;
