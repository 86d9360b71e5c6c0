//! A player's terminal through the round's broker. The terminal itself is the same as on
//! the local socket: it talks to one end of a socket pair, and this bridge carries the
//! lines between the other end and the seat's topics. It takes the console's lines in
//! order, asks again for what the broker lost, and tells the player plainly, as lines in
//! brackets, when the network or the console is gone.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bounded_lines::LineReader;
use kriegspiel_frontend::credentials::{SeatFile, SeatPlace};
use kriegspiel_net::{
    Broker, BrokerUrl, Heard, HeardLines, Password, SessionId, TableTopics, ToConsole, ToSeat,
    TypedLines, HERE_EVERY_MS,
};
use kriegspiel_referee::shakmaty::Color;
use rumqttc::{Client, ConnectReturnCode, ConnectionError, Event, LastWill, Packet, QoS};

/// No word from the console for this long (it says it runs every 2 s): it is gone.
const SILENCE: Duration = Duration::from_secs(15);
/// A gap this long between the watch's rounds (200 ms apart) means the terminal itself
/// was not running.
const PAUSED: Duration = Duration::from_secs(2);
/// How long the first connection may take before the player is told it does not answer.
const FIRST_CONNECT: Duration = Duration::from_secs(10);

/// Where the seat file's holder plays: its table, colour and broker.
#[derive(Debug)]
pub struct Seat {
    pub table: usize,
    pub color: Color,
    pub broker: Broker,
}

/// The seat a seat file gives, on its broker (or `url`, when given, with `ca_file`).
pub fn seat(
    file: &SeatFile,
    url: Option<BrokerUrl>,
    ca_file: Option<PathBuf>,
) -> Result<Seat, String> {
    let SeatPlace::Table { no, color } = file.place else {
        return Err(
            "this seat file is a board's (board = N): a player's seat file names a table and a colour"
                .to_owned(),
        );
    };
    Ok(Seat {
        table: no,
        color,
        broker: broker_of(file, url, ca_file)?,
    })
}

/// The broker a seat file names (or `url`, when given, with `ca_file`), as its holder.
pub fn broker_of(
    file: &SeatFile,
    url: Option<BrokerUrl>,
    ca_file: Option<PathBuf>,
) -> Result<Broker, String> {
    let url = match url {
        Some(u) => u,
        None => file
            .broker
            .parse()
            .map_err(|e| format!("the seat file's broker: {e}"))?,
    };
    Ok(Broker {
        url,
        username: Some(file.username.clone()),
        password_file: None,
        password: Some(Password(file.password.clone())),
        ca_file,
    })
}

/// Connects to the seat's topics; the terminal's ends of the bridge (to read from, to
/// write to), as [`super::connect`] gives for the local socket.
pub fn connect(seat: &Seat) -> Result<(UnixStream, UnixStream), String> {
    let session = SessionId(kriegspiel_net::unguessable());
    let topics = TableTopics::new(seat.table);
    let input = topics.input.get(seat.color).clone();
    let private = topics.private.get(seat.color).clone();
    let id = format!("kriegspiel-seat-{}-{}-{session}", seat.table, seat.color);
    let mut options = seat.broker.options(&id).map_err(|e| e.to_string())?;
    options.set_clean_session(true);
    // A terminal that vanishes (its machine off, its network gone, the broker restarted)
    // has its session ended after a while, unless it comes back and says so.
    options.set_last_will(LastWill::new(
        input.clone(),
        ToConsole::Vanished { session }.encode(),
        QoS::AtLeastOnce,
        false,
    ));
    let (client, mut connection) = Client::new(options, 64);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let (terminal, bridge) = UnixStream::pair().map_err(|e| e.to_string())?;
    let to_console = terminal.try_clone().map_err(|e| e.to_string())?;
    let keys = bridge.try_clone().map_err(|e| e.to_string())?;
    let shared = Arc::new(Mutex::new(Intake {
        heard: HeardLines::new(session),
        typed: TypedLines::new(session),
        started: Instant::now(),
        out: bridge,
        last_word: Instant::now(),
        done: false,
        network_down: false,
    }));
    let (subscribed_tx, subscribed) = mpsc::sync_channel(1);
    let listener = Listener {
        shared: shared.clone(),
        client: client.clone(),
        private,
        input: input.clone(),
        subscribed: Some(subscribed_tx),
        said_down: false,
    };
    spawn("seat-listener", move || listener.run(&mut connection))?;
    // Nothing is sent before the seat's lines can be heard: the first is his hello.
    match subscribed.recv_timeout(FIRST_CONNECT) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => return Err(why),
        Err(_) => {
            return Err(format!(
                "the broker at {} does not answer; is it running, and is this the room's network?",
                seat.broker.url
            ))
        }
    }
    {
        let client = client.clone();
        let input = input.clone();
        let shared = shared.clone();
        spawn("seat-keys", move || {
            send_keys(keys, &shared, &client, &input, session);
        })?;
    }
    spawn("seat-watch", move || watch(&shared, &client, &input))?;
    Ok((terminal, to_console))
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), String> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(f)
        .map(|_| ())
        .map_err(|e| format!("cannot start the broker's thread: {e}"))
}

/// The session's two directions: the console's lines in order and the terminal's end, and
/// what the terminal typed until the console counts it.
struct Intake {
    heard: HeardLines,
    typed: TypedLines,
    /// The steady clock's origin for both.
    started: Instant,
    out: UnixStream,
    last_word: Instant,
    /// The terminal's end is closed: the session ended, or the console is lost.
    done: bool,
    /// The broker is out of reach: the console's silence is the network's, not its own.
    network_down: bool,
}

impl Intake {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn say(&mut self, line: &str) {
        if !self.done {
            let _ = writeln!(self.out, "{line}");
        }
    }

    /// Ends what the terminal reads: it sees the connection close, as on the socket.
    fn close(&mut self) {
        self.done = true;
        let _ = self.out.shutdown(std::net::Shutdown::Write);
    }
}

struct Listener {
    shared: Arc<Mutex<Intake>>,
    client: Client,
    private: String,
    /// The seat's input topic: where the terminal says it is back.
    input: String,
    subscribed: Option<mpsc::SyncSender<Result<(), String>>>,
    said_down: bool,
}

impl Listener {
    fn run(mut self, connection: &mut rumqttc::Connection) {
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = self.client.try_subscribe(&self.private, QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if let Some(tx) = self.subscribed.take() {
                        let _ = tx.send(Ok(()));
                    }
                    if self.said_down {
                        self.said_down = false;
                        let mut intake = lock(&self.shared);
                        intake.network_down = false;
                        intake.last_word = Instant::now();
                        intake.say("(the network is back)");
                        // The broker said we vanished: we are here, and want what we missed.
                        let back = intake.heard.back().encode();
                        drop(intake);
                        let _ = self
                            .client
                            .try_publish(&self.input, QoS::AtLeastOnce, false, back);
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) if p.topic == self.private => {
                    // A malformed message cannot be placed in the order: it is dropped, and
                    // what it was is asked for again.
                    if let Ok(m) = ToSeat::decode(&p.payload) {
                        self.take(m);
                    }
                }
                Ok(_) => {}
                Err(ConnectionError::RequestsDone) => return,
                Err(ConnectionError::ConnectionRefused(code)) => {
                    let why = match code {
                        ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized => {
                            "the broker refused this seat file (a seat file of another round, or the round's broker files were made again)"
                        }
                        other => &format!("the broker refused: {}", kriegspiel_net::refusal(other)),
                    };
                    self.fail(why);
                    return;
                }
                Err(e) => {
                    if let Some(tx) = self.subscribed.take() {
                        let _ = tx.send(Err(format!(
                            "cannot reach the broker: {}",
                            kriegspiel_net::Plainly(&e)
                        )));
                        return;
                    }
                    if !self.said_down {
                        self.said_down = true;
                        let mut intake = lock(&self.shared);
                        intake.network_down = true;
                        intake.say("(the network is down; waiting for it; what you type is sent when it is back)");
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        }
    }

    fn take(&self, m: ToSeat) {
        let mut intake = lock(&self.shared);
        intake.last_word = Instant::now();
        intake.typed.heard(&m);
        for heard in intake.heard.take(m) {
            match heard {
                Heard::Line(text) => intake.say(&text),
                Heard::Lost(n) => intake.say(&format!(
                    "({n} lines of the console were lost on the way; type 'repeat' for the last)"
                )),
                Heard::End => intake.close(),
                Heard::Gone => {
                    intake.say(
                        "error: the console no longer knows this terminal (the console was restarted, or this terminal was away for more than 15 s); start kriegspiel player again",
                    );
                    intake.close();
                }
            }
        }
    }

    fn fail(&mut self, why: &str) {
        match self.subscribed.take() {
            Some(tx) => {
                let _ = tx.send(Err(why.to_owned()));
            }
            None => {
                let mut intake = lock(&self.shared);
                intake.say(&format!("error: {why}"));
                intake.close();
            }
        }
    }
}

/// What the terminal writes goes to the console, a line each, numbered and kept until the
/// console counts it; when it ends and the console has every line, so does the session.
fn send_keys(
    keys: UnixStream,
    shared: &Mutex<Intake>,
    client: &Client,
    input: &str,
    session: SessionId,
) {
    let mut lines = LineReader::with_limit(keys, kriegspiel_net::MAX_LINE);
    while let Ok(Some(line)) = lines.next_line() {
        let Ok(line) = line else {
            continue;
        };
        let mut intake = lock(shared);
        let now = intake.now_ms();
        let typed = intake.typed.type_line(line, now);
        let m = match typed {
            Ok(m) => m,
            Err(full) => {
                intake.say(&format!("({full}: wait for the network)"));
                continue;
            }
        };
        drop(intake);
        if client
            .publish(input, QoS::AtLeastOnce, false, m.encode())
            .is_err()
        {
            return;
        }
    }
    // His last lines are answered before the session ends: the console counts them first
    // (or is given up, after the terminal's own wait for it).
    let asked = Instant::now();
    while asked.elapsed() < SILENCE {
        let intake = lock(shared);
        if intake.done || intake.typed.all_taken() {
            break;
        }
        drop(intake);
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = client.publish(
        input,
        QoS::AtLeastOnce,
        false,
        ToConsole::Bye { session }.encode(),
    );
}

/// Asks for missing lines, sends again typed lines the console has not counted, says the
/// terminal is there every [`HERE_EVERY_MS`], and gives the console up after [`SILENCE`].
fn watch(shared: &Mutex<Intake>, client: &Client, input: &str) {
    let mut here_at = 0;
    let mut woke = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let mut intake = lock(shared);
        if intake.done {
            return;
        }
        // A terminal that was stopped (Ctrl-Z, a debugger, a machine too busy to run it)
        // heard nothing meanwhile, through no fault of the console: the console's silence
        // counts from when it runs again, while the broker's client reconnects and asks
        // for what it missed (attack review: it once said it lost the console at once).
        // Nor is the console's silence its own while the broker is out of reach: the
        // terminal waits for the network, however long (attack review: a 20 s outage was
        // said as the console lost, and a try typed meanwhile dropped).
        if woke.elapsed() >= PAUSED || intake.network_down {
            intake.last_word = Instant::now();
        }
        woke = Instant::now();
        if intake.last_word.elapsed() >= SILENCE {
            // As on the socket: closed without the console's last word, the terminal says
            // it lost the console.
            intake.close();
            return;
        }
        let now_ms = intake.now_ms();
        let mut to_send = intake.typed.again(now_ms);
        to_send.extend(intake.heard.ask(now_ms));
        if to_send.is_empty() && now_ms.saturating_sub(here_at) >= HERE_EVERY_MS {
            to_send.push(intake.heard.back());
        }
        drop(intake);
        if !to_send.is_empty() {
            here_at = now_ms;
        }
        for m in to_send {
            let _ = client.try_publish(input, QoS::AtLeastOnce, false, m.encode());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
