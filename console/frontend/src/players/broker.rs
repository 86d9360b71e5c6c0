//! Players' terminals through the round's broker: each session a player's program opens on
//! his seat's `input` topic becomes one connection to this console's players' channel, as
//! if made on the local socket, so that a seat is proven, limited, queued and told to the
//! arbiter by the same code on either path. The broker's ACL lets only that seat's user
//! (and consoles) write its input and read its private topic; his hello still carries his
//! seat file's password, which the channel checks as it checks a seat code.
//!
//! What the console says to a session is numbered and kept ([`SaidLines`]): the broker may
//! lose a message, and the terminal asks for what it misses. A sign of life every
//! [`ALIVE_EVERY`] tells it the console runs and how many lines there are.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bounded_lines::LineReader;
use kriegspiel_hall::TableNo;
use kriegspiel_net::{Broker, SaidLines, SessionId, TableTopics, TakenLines, ToConsole, ToSeat};
use kriegspiel_referee::shakmaty::Color;
use rumqttc::{Client, ConnectReturnCode, ConnectionError, Event, Packet, QoS};

use super::handshake::hello;
use super::session::{serve, Shared};
use super::socket::Connection;

/// How often a console tells a session it runs.
pub const ALIVE_EVERY: Duration = Duration::from_secs(2);
/// Messages waiting for one seat's worker: a flood beyond is dropped (his own lines only).
const SEAT_QUEUE: usize = 256;
/// How long a session whose terminal vanished (the broker's last will) is kept for it to
/// come back: a broker restarted, a network cut, a laptop's Wi-Fi roaming. A terminal that
/// is there says so every [`kriegspiel_net::HERE_EVERY_MS`], so one that came back before
/// this console did is heard in time. Its terminal says it lost the console after 15 s
/// without a word, so longer would keep a seat held for nobody.
const VANISHED_GRACE: Duration = Duration::from_secs(15);
/// Requests waiting in the client: beyond, a line is not sent now, but kept and sent again
/// when the terminal asks.
const CLIENT_QUEUE: usize = 4096;
/// Every seat's input, whichever table: a console takes its own tables' and ignores the
/// rest (another console's).
const INPUTS: &str = "kriegspiel/table/+/+/input";

/// Serves this console's seats over `broker` as `console`, for as long as the process
/// runs. The client reconnects by itself; a refusal is said once.
pub(super) fn start(
    shared: &Arc<Shared>,
    broker: &Broker,
    console: &str,
    program: &'static str,
) -> Result<(), String> {
    let id = format!(
        "kriegspiel-console-{console}-players-{}",
        std::process::id()
    );
    let mut options = broker.options(&id).map_err(|e| e.to_string())?;
    options.set_clean_session(true);
    options.set_request_channel_capacity(CLIENT_QUEUE);
    let (client, mut connection) = Client::new(options, CLIENT_QUEUE);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let (goodbye, said_goodbye) = kriegspiel_net::goodbye();
    if let Ok(mut b) = shared.broker.lock() {
        *b = Some(super::session::BrokerGoodbye(client.clone(), said_goodbye));
    }
    let router = Router {
        shared: shared.clone(),
        client,
        seats: HashMap::new(),
        goodbye,
    };
    std::thread::Builder::new()
        .name("players-broker".to_owned())
        .spawn(move || router.run(&mut connection, program))
        .map(|_| ())
        .map_err(|e| format!("cannot start the players' broker client: {e}"))
}

/// The listener: routes each seat's messages to that seat's worker.
struct Router {
    shared: Arc<Shared>,
    client: Client,
    seats: HashMap<(TableNo, Color), SyncSender<SeatInput>>,
    goodbye: kriegspiel_net::GoodbyeSent,
}

impl Router {
    fn run(mut self, connection: &mut rumqttc::Connection, program: &str) {
        let mut said_down = false;
        // A broker down from the start is said once, by the console's own broker client.
        let mut was_up = false;
        for event in connection.iter() {
            if self.goodbye.is_done(&event) {
                return;
            }
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    if said_down {
                        eprintln!("{program}: players' seats: the broker answers again");
                    }
                    said_down = false;
                    was_up = true;
                    self.tell_seats(|| SeatInput::Back);
                    let _ = self.client.try_subscribe(INPUTS, QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => self.route(&p.topic, &p.payload),
                Ok(_) => {}
                Err(ConnectionError::RequestsDone) => return,
                Err(e) => {
                    let why = match e {
                        ConnectionError::ConnectionRefused(
                            ConnectReturnCode::BadUserNamePassword
                            | ConnectReturnCode::NotAuthorized,
                        ) => Some(
                            "the broker refused this console's user name or password".to_owned(),
                        ),
                        other if was_up => Some(kriegspiel_net::Plainly(&other).to_string()),
                        _ => None,
                    };
                    self.tell_seats(|| SeatInput::Away);
                    if let (false, Some(why)) = (said_down, why) {
                        eprintln!("{program}: players' seats on the broker: {why}; trying again every second (a refusal is said with the console's own line)");
                        said_down = true;
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        }
    }

    /// One message on a seat's input topic: to the seat's worker, started on its first.
    fn route(&mut self, topic: &str, payload: &[u8]) {
        let Some((table, color)) = seat_of(topic) else {
            return;
        };
        // A malformed message is dropped: it cannot say which session it belongs to.
        let Ok(message) = ToConsole::decode(payload) else {
            return;
        };
        let ours = self
            .shared
            .state
            .lock()
            .is_ok_and(|st| st.tables.contains_key(&table));
        if !ours {
            return;
        }
        let worker = match self.seats.get(&(table, color)) {
            Some(w) => w.clone(),
            None => {
                let (tx, rx) = mpsc::sync_channel(SEAT_QUEUE);
                let seat = Seat {
                    shared: self.shared.clone(),
                    client: self.client.clone(),
                    table,
                    color,
                    topic: TableTopics::new(table).private.get(color).clone(),
                    current: None,
                    vanished: None,
                    away: false,
                };
                let spawned = std::thread::Builder::new()
                    .name(format!("seat-{table}-{color}"))
                    .spawn(move || seat.run(&rx));
                if spawned.is_err() {
                    return;
                }
                self.seats.insert((table, color), tx.clone());
                tx
            }
        };
        let _ = worker.try_send(SeatInput::Message(message));
    }

    /// Tells every seat's worker this console's link to the broker is lost or back.
    fn tell_seats(&self, input: fn() -> SeatInput) {
        for seat in self.seats.values() {
            // A full queue is a flood of the terminal's own: the next change is told.
            let _ = seat.try_send(input());
        }
    }
}

/// `kriegspiel/table/{no}/{color}/input` → the seat.
fn seat_of(topic: &str) -> Option<(TableNo, Color)> {
    let rest = topic.strip_prefix("kriegspiel/table/")?;
    let mut parts = rest.split('/');
    let table = parts.next()?.parse().ok()?;
    let color = parts.next()?.parse().ok()?;
    (parts.next() == Some("input") && parts.next().is_none()).then_some((table, color))
}

/// One session of a seat: the console's end of its connection and what was said to it.
struct Bridged {
    session: SessionId,
    stream: UnixStream,
    said: Arc<Mutex<SaidLines>>,
    /// The terminal's lines handed on so far (its hello was the first).
    taken: TakenLines,
    /// The connection ended and its last line is said.
    ended: Arc<std::sync::atomic::AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
    /// The channel's side of the connection: it frees the seat when it ends.
    served: Option<std::thread::JoinHandle<()>>,
}

/// One seat's worker: its sessions one after another, in the order their messages came.
struct Seat {
    shared: Arc<Shared>,
    client: Client,
    table: TableNo,
    color: Color,
    topic: String,
    current: Option<Bridged>,
    /// When the current session's terminal vanished, if it has not spoken since.
    vanished: Option<Instant>,
    /// This console is away from the broker now.
    away: bool,
}

/// What a seat's worker is told: a message of its terminal, or this console's own link to
/// the broker lost or back.
enum SeatInput {
    Message(ToConsole),
    Away,
    Back,
}

impl Seat {
    fn run(mut self, inbox: &Receiver<SeatInput>) {
        let mut alive_at = Instant::now();
        loop {
            match inbox.recv_timeout(ALIVE_EVERY) {
                Ok(SeatInput::Message(m)) => self.take(m),
                // Away from the broker, this console cannot tell a terminal gone from one it
                // does not hear: no grace runs; back, a vanished terminal has the whole grace
                // again from now (it says it is there every few seconds).
                Ok(SeatInput::Away) => self.away = true,
                Ok(SeatInput::Back) => {
                    self.away = false;
                    if self.vanished.is_some() {
                        self.vanished = Some(Instant::now());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if !self.away
                && self
                    .vanished
                    .is_some_and(|at| at.elapsed() >= VANISHED_GRACE)
            {
                // Not back: the session ends as if he had quit.
                self.vanished = None;
                if let Some(b) = &self.current {
                    let _ = b.stream.shutdown(std::net::Shutdown::Write);
                }
            }
            if alive_at.elapsed() >= ALIVE_EVERY {
                alive_at = Instant::now();
                if let Some(b) = self
                    .current
                    .as_ref()
                    .filter(|b| !b.ended.load(Ordering::Acquire))
                {
                    let alive = lock(&b.said).alive(&b.taken);
                    self.publish(&alive);
                }
            }
        }
    }

    fn take(&mut self, m: ToConsole) {
        let session = m.session();
        let current = self.current.as_mut().filter(|b| b.session == session);
        if current.is_some() {
            // Whatever it says, its terminal is there (a vanishing is said once more below).
            self.vanished = None;
        }
        match (m, current) {
            (ToConsole::Vanished { .. }, Some(_)) => self.vanished = Some(Instant::now()),
            (ToConsole::Vanished { .. }, None) => {}
            (ToConsole::Line { seq, text, .. }, Some(b)) => {
                // His lines go to the channel as typed, each once and in order (a repeat or
                // one past a gap comes again); the channel limits their rate. One that cannot
                // be written now (the session is ending) is dropped.
                if b.taken.take(seq) {
                    let mut stream = &b.stream;
                    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
                    let _ = writeln!(stream, "{text}");
                }
            }
            (ToConsole::Line { seq: 0, text, .. }, None) if hello(&text).is_some() => {
                self.open(session, &text);
            }
            (ToConsole::Resend { from, .. }, Some(b)) => {
                let again = lock(&b.said).from(from);
                for m in &again {
                    self.publish(m);
                }
            }
            (ToConsole::Bye { .. }, Some(b)) => {
                let _ = b.stream.shutdown(std::net::Shutdown::Write);
            }
            // A session this console does not know: it ended here long ago, or the console
            // was restarted since. The terminal is told, and starts again.
            (ToConsole::Line { .. } | ToConsole::Resend { .. }, None) => {
                self.publish(&ToSeat::Gone { session });
            }
            (ToConsole::Bye { .. }, None) => {}
        }
    }

    /// A new session of this seat: the one before it ends (the same seat's holder started
    /// his program again), and a connection to the channel begins with his hello.
    fn open(&mut self, session: SessionId, hello_line: &str) {
        self.vanished = None;
        if let Some(mut old) = self.current.take() {
            if !old.ended.load(Ordering::Acquire) {
                // Its terminal, if it is still there, is told why it ends.
                let lang = lock(&self.shared.state)
                    .tables
                    .get(&self.table)
                    .map_or(kriegspiel_referee::Lang::En, |t| t.lang);
                let why =
                    lock(&old.said).say(&super::words::say(lang, super::words::Said::Replaced));
                self.publish(&why);
                self.shared.hall.seat(kriegspiel_hall::SeatNotice {
                    table: self.table,
                    color: self.color,
                    change: kriegspiel_hall::SeatChange::Replaced,
                });
            }
            let _ = old.stream.shutdown(std::net::Shutdown::Both);
            if let Some(r) = old.reader.take() {
                let _ = r.join();
            }
            // The old session holds the seat until the channel has seen it end: the new
            // hello must not reach the channel before, or it is refused as a seat taken.
            if let Some(s) = old.served.take() {
                let _ = s.join();
            }
        }
        let said = Arc::new(Mutex::new(SaidLines::new(session)));
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        // The topic names the seat; a hello for another seat is refused here, where the
        // broker proved who may write this topic.
        let asked = hello(hello_line);
        if asked.is_none_or(|h| h.table != self.table || h.color != self.color) {
            let mut said_lines = lock(&said);
            let refusal = said_lines.say(&format!(
                "error: this is the seat of table {} {}; start with '{} {} CODE'",
                self.table, self.color, self.table, self.color
            ));
            let end = said_lines.end();
            drop(said_lines);
            self.publish(&refusal);
            self.publish(&end);
            ended.store(true, Ordering::Release);
            return;
        }
        let Ok((ours, theirs)) = UnixStream::pair() else {
            return;
        };
        let Ok(reading) = ours.try_clone() else {
            return;
        };
        let shared = self.shared.clone();
        let open = shared.connections.fetch_add(1, Ordering::AcqRel);
        // Held by the console's side and by the thread that publishes its lines: a console
        // that closes waits for both, or its goodbye could overtake the table's last lines.
        let guard = Arc::new(Connection(shared.clone()));
        if open >= super::MAX_CONNECTIONS {
            drop(guard);
            let mut said_lines = lock(&said);
            let refusal = said_lines.say(&format!(
                "error: {} terminals are connected to this console already",
                super::MAX_CONNECTIONS
            ));
            let end = said_lines.end();
            drop(said_lines);
            self.publish(&refusal);
            self.publish(&end);
            return;
        }
        let served = {
            let guard = guard.clone();
            std::thread::Builder::new()
                .name("player".to_owned())
                .spawn(move || {
                    let _guard = guard;
                    serve(theirs, &shared);
                })
        };
        let Ok(served) = served else {
            return;
        };
        let reader = {
            let said = said.clone();
            let ended = ended.clone();
            let client = self.client.clone();
            let topic = self.topic.clone();
            std::thread::Builder::new()
                .name("player-lines".to_owned())
                .spawn(move || {
                    let _guard = guard;
                    say_lines(reading, &said, &ended, &client, &topic);
                })
                .ok()
        };
        let mut writing = &ours;
        let _ = writeln!(writing, "{hello_line}");
        let mut taken = TakenLines::new();
        taken.take(0);
        self.current = Some(Bridged {
            session,
            stream: ours,
            said,
            taken,
            ended,
            reader,
            served: Some(served),
        });
    }

    fn publish(&self, m: &ToSeat) {
        publish(&self.client, &self.topic, m);
    }
}

/// Everything the channel says to the session, numbered, kept and sent; its end, last.
fn say_lines(
    stream: UnixStream,
    said: &Mutex<SaidLines>,
    ended: &std::sync::atomic::AtomicBool,
    client: &Client,
    topic: &str,
) {
    let mut lines = LineReader::with_limit(stream, kriegspiel_net::MAX_LINE);
    while let Ok(Some(line)) = lines.next_line() {
        let Ok(line) = line else {
            continue;
        };
        let m = lock(said).say(line);
        publish(client, topic, &m);
    }
    let end = lock(said).end();
    ended.store(true, Ordering::Release);
    publish(client, topic, &end);
}

/// Sends without waiting: a message the client cannot take now is kept in the session's
/// lines, and the terminal asks for it again.
fn publish(client: &Client, topic: &str, m: &ToSeat) {
    let _ = client.try_publish(topic, QoS::AtLeastOnce, false, m.encode());
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_seats_input_topic_names_a_seat() {
        assert_eq!(
            seat_of("kriegspiel/table/3/black/input"),
            Some((3, Color::Black))
        );
        for other in [
            "kriegspiel/table/3/black/private",
            "kriegspiel/table/3/black/input/more",
            "kriegspiel/table/x/black/input",
            "kriegspiel/table/3/blue/input",
            "kriegspiel/board/3/events",
        ] {
            assert_eq!(seat_of(other), None, "{other}");
        }
    }
}
