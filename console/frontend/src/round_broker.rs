//! A console's place in a round on the broker: its presence (retained, with a last will, so
//! that every window sees a console that died as down), a retained summary of each of its
//! tables for the arbiter's window on any console, and the arbiter actions such a window
//! sends to the tables this console runs.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kriegspiel_hall::{
    broadcast, follower, HallEvent, HallHandle, InputError, Subscriber, TableNo, TableSetup,
    TableSummary,
};
use kriegspiel_net::{round, Broker, Status, TableTopics};
use kriegspiel_referee::{Lang, Wording};
use kriegspiel_table::render::{self, Hearer};
use kriegspiel_table::{ArbiterAction, Input, Output};
use rumqttc::{Client, ConnectionError, Event, LastWill, Packet, QoS};

use crate::keypad::{parse_command, Command};
use crate::players::Players;

/// Requests waiting in the client: a summary that does not fit is replaced by the next.
const CLIENT_QUEUE: usize = 1024;

/// What both threads share: the tables' summaries as last published.
#[derive(Default)]
struct Tables {
    summaries: BTreeMap<TableNo, TableSummary>,
}

/// [`join_round`] for a front end: a client that cannot start is said, and the console
/// runs without its place in the round.
pub fn on_round(
    on: &crate::args::OnBroker,
    setups: Vec<(TableNo, TableSetup)>,
    hall: HallHandle,
    players: Option<Players>,
    program: &'static str,
) -> Option<Box<dyn Subscriber>> {
    join_round(
        &on.hall.broker,
        &on.hall.console,
        setups,
        hall,
        players,
        program,
    )
    .map_err(|e| {
        eprintln!("{program}: warning: {e}; the round's windows will not see this console's tables")
    })
    .ok()
}

/// Puts this console on the round's broker as `console`; a subscriber of the hall that
/// keeps its tables' summaries, or why the client could not start. `setups`: each table's
/// set-up, as the console opened it.
pub fn join_round(
    broker: &Broker,
    console: &str,
    setups: Vec<(TableNo, TableSetup)>,
    hall: HallHandle,
    players: Option<Players>,
    program: &'static str,
) -> Result<Box<dyn Subscriber>, String> {
    let id = format!("kriegspiel-console-{console}-round-{}", std::process::id());
    let mut options = broker.options(&id).map_err(|e| e.to_string())?;
    let status = round::console_status(console);
    options.set_clean_session(true);
    options.set_last_will(LastWill::new(
        status.clone(),
        Status::Offline.encode(),
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut connection) = Client::new(options, CLIENT_QUEUE);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let tables = Arc::new(Mutex::new(Tables::default()));
    let (goodbye_sent, goodbye) = kriegspiel_net::goodbye();
    let listener = Listener {
        goodbye: goodbye_sent,
        client: client.clone(),
        tables: tables.clone(),
        status: status.clone(),
        hall,
        players,
        program,
    };
    std::thread::Builder::new()
        .name("round-broker".to_owned())
        .spawn(move || listener.run(&mut connection))
        .map_err(|e| format!("cannot start the round's broker client: {e}"))?;
    let console = console.to_owned();
    Ok(follower("round-summaries", move |events| {
        summarise(events, &client, &tables, &console, setups);
        // A deliberate stop: the windows show the console stopped, not vanished.
        let _ = client.try_publish(&status, QoS::AtLeastOnce, true, Status::Stopped.encode());
        goodbye.say(&client, Duration::from_secs(2));
    }))
}

/// Follows the hall: each table's summary, published retained whenever it changes.
fn summarise(
    mut events: broadcast::Receiver<HallEvent>,
    client: &Client,
    tables: &Mutex<Tables>,
    console: &str,
    setups: Vec<(TableNo, TableSetup)>,
) {
    let mut setups: HashMap<TableNo, TableSetup> = setups.into_iter().collect();
    let mut wordings: HashMap<TableNo, (Wording, Lang)> = HashMap::new();
    loop {
        let e = match events.blocking_recv() {
            Ok(e) => e,
            // Missed events: the next view of each table sets its summary right again.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let changed = {
            let mut t = lock(tables);
            if let HallEvent::Opened {
                table,
                name,
                wording,
                lang,
                ..
            } = &e
            {
                wordings.insert(*table, (*wording, *lang));
                t.summaries.insert(
                    *table,
                    TableSummary::new(*table, name, console, setups.remove(table)),
                );
            }
            let mut changed = Vec::new();
            for (no, s) in &mut t.summaries {
                let Some((wording, lang)) = wordings.get(no) else {
                    continue;
                };
                let opened = matches!(&e, HallEvent::Opened { table, .. } if table == no);
                if s.take(&e, wording, *lang) || opened {
                    changed.push(s.clone());
                }
            }
            changed
        };
        for s in changed {
            publish_summary(client, &s);
        }
        if let HallEvent::Output { table, output, .. } = &e {
            if let Some((wording, lang)) = wordings.get(table) {
                publish_public(client, *table, *wording, *lang, output);
            }
        }
    }
}

/// What both players hear, on the table's public channel for its onlookers (and its
/// players' own devices, which the broker lets read it). Not kept: an onlooker hears from
/// when he comes, and the summary keeps the last announcement for a window.
fn publish_public(client: &Client, table: TableNo, wording: Wording, lang: Lang, output: &Output) {
    if render::hearer(output) != Some(Hearer::Both) {
        return;
    }
    let Some(text) = render::text(&wording, lang, output).filter(|t| !t.is_empty()) else {
        return;
    };
    let topic = TableTopics::new(table).public;
    let _ = client.try_publish(topic, QoS::AtLeastOnce, false, text);
}

fn publish_summary(client: &Client, s: &TableSummary) {
    let topic = TableTopics::new(s.table).summary;
    let _ = client.try_publish(topic, QoS::AtLeastOnce, true, s.encode());
}

/// Another console running this one's name or tables, said once each: two consoles that
/// started together both passed the check at start.
#[derive(Default)]
struct Twins {
    console: bool,
    tables: std::collections::BTreeSet<TableNo>,
}

impl Twins {
    fn check(&mut self, l: &Listener, epoch: u64, topic: &str, payload: &[u8]) {
        let Some(name) = round::console_of(&l.status) else {
            return;
        };
        match kriegspiel_hall::RoundNews::of_message(topic, payload) {
            Some(kriegspiel_hall::RoundNews::Console {
                name: other,
                status: Status::Online { epoch: theirs },
            }) if other == name && theirs != epoch && !self.console => {
                self.console = true;
                eprintln!(
                    "{}: another console named '{name}' has come online on this round's broker: two consoles now take the same boards and seats. Stop the one started last",
                    l.program
                );
            }
            Some(kriegspiel_hall::RoundNews::Summary(s))
                if s.console != name
                    && lock(&l.tables).summaries.contains_key(&s.table)
                    && self.tables.insert(s.table) =>
            {
                eprintln!(
                    "{}: table {} is also run by console '{}' on this round's broker: two consoles now take its boards and seats. Stop it on one of them",
                    l.program, s.table, s.console
                );
            }
            _ => {}
        }
    }
}

struct Listener {
    goodbye: kriegspiel_net::GoodbyeSent,
    client: Client,
    tables: Arc<Mutex<Tables>>,
    status: String,
    hall: HallHandle,
    players: Option<Players>,
    program: &'static str,
}

impl Listener {
    fn run(mut self, connection: &mut rumqttc::Connection) {
        let mut said_down = false;
        let mut was_up = false;
        // In milliseconds: a second console of this name started in the same second as this
        // one still comes online with another epoch, and is noticed.
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut twins = Twins::default();
        for event in connection.iter() {
            if self.goodbye.is_done(&event) {
                return;
            }
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    if said_down {
                        eprintln!(
                            "{}: the round's broker answers again; its windows show this console's tables again",
                            self.program
                        );
                    }
                    said_down = false;
                    was_up = true;
                    let online = Status::Online { epoch }.encode();
                    let _ = self
                        .client
                        .try_publish(&self.status, QoS::AtLeastOnce, true, online);
                    for filter in [round::ARBITER_ACTIONS, &self.status, round::SUMMARIES] {
                        let _ = self.client.try_subscribe(filter, QoS::AtLeastOnce);
                    }
                    // The broker may have lost what it kept: every summary again.
                    let all: Vec<TableSummary> =
                        lock(&self.tables).summaries.values().cloned().collect();
                    for s in &all {
                        publish_summary(&self.client, s);
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if let Some(table) = round::table_of(&p.topic, "arbiter") {
                        if !p.retain {
                            self.arbiter(table, &p.payload);
                        }
                    } else if !p.retain {
                        // What the broker kept from before is judged at start; what comes
                        // now is another console, live.
                        twins.check(&self, epoch, &p.topic, &p.payload);
                    }
                }
                Ok(_) => {}
                Err(ConnectionError::RequestsDone) => return,
                Err(e) => {
                    // Down from the start is said once, by the console's own broker client.
                    if !said_down && was_up {
                        said_down = true;
                        eprintln!(
                            "{}: the round's broker: {}; its windows show this console as down until it answers again",
                            self.program,
                            kriegspiel_net::Plainly(&e)
                        );
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        }
    }

    /// An arbiter action from a window, for one of this console's tables (any other
    /// console's is not ours to apply).
    fn arbiter(&self, table: TableNo, payload: &[u8]) {
        if !lock(&self.tables).summaries.contains_key(&table) {
            return;
        }
        let program = self.program;
        let Ok(line) = std::str::from_utf8(payload) else {
            eprintln!("{program}: an arbiter action for table {table} from the broker is not text; ignored");
            return;
        };
        let command = match parse_command(line) {
            Ok((t, command)) if t == table || !line.contains("\"table\"") => command,
            Ok((t, _)) => {
                eprintln!("{program}: an arbiter action on table {table}'s topic names table {t}; ignored");
                return;
            }
            Err(e) => {
                eprintln!("{program}: an arbiter action for table {table} from the broker: {e}");
                return;
            }
        };
        match command {
            // Only the arbiter's actions travel this way: a player's input has its seat.
            Command::Input(input @ Input::Arbiter(_)) => {
                eprintln!(
                    "{program}: table {table}: arbiter action from the broker: {}",
                    bounded_lines::excerpt(line)
                );
                if let Err(InputError::Refused(why)) = self.hall.input(table, input) {
                    eprintln!("{program}: table {table}: {why}");
                }
            }
            Command::Input(_) => {
                eprintln!("{program}: table {table}: only arbiter actions come from the broker's arbiter topic; ignored");
            }
            Command::StartAll => {
                let _ = self
                    .hall
                    .input(table, Input::Arbiter(ArbiterAction::StartAll));
            }
            Command::Release(color) => {
                let released = self
                    .players
                    .as_ref()
                    .is_some_and(|p| p.release(table, color));
                if !released {
                    eprintln!("{program}: table {table}: no terminal holds {color}'s seat");
                }
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A window's view of the round: the summaries and consoles' presence it reads, and the
/// arbiter actions it sends to the console that runs a table.
#[derive(Clone)]
pub struct RoundActions {
    client: Client,
}

impl std::fmt::Debug for RoundActions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoundActions").finish_non_exhaustive()
    }
}

impl RoundActions {
    /// Sends an arbiter action (a command line as on standard input, e.g.
    /// `{"arbiter":"pause"}`) to the console that runs `table`; false when the client
    /// cannot take it now (the broker has been unreachable a while).
    pub fn send(&self, table: TableNo, line: &str) -> bool {
        let topic = TableTopics::new(table).arbiter;
        self.client
            .try_publish(topic, QoS::AtLeastOnce, false, line.as_bytes().to_vec())
            .is_ok()
    }
}

/// News for a window beyond this many waiting is dropped: a summary is replaced whole by
/// the next, and the broker keeps the latest of each.
const NEWS_QUEUE: usize = 1024;

/// Follows the round on the broker for a window: every table's summary and every
/// console's presence go to `news`, as the window's own tables' events go to its store.
pub fn watch_round(
    broker: &Broker,
    console: &str,
) -> Result<
    (
        RoundActions,
        std::sync::mpsc::Receiver<kriegspiel_hall::RoundNews>,
    ),
    String,
> {
    use kriegspiel_hall::RoundNews;
    let id = format!("kriegspiel-console-{console}-window-{}", std::process::id());
    let mut options = broker.options(&id).map_err(|e| e.to_string())?;
    options.set_clean_session(true);
    let (client, mut connection) = Client::new(options, CLIENT_QUEUE);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let (tx, rx) = std::sync::mpsc::sync_channel(NEWS_QUEUE);
    let subscriber = client.clone();
    std::thread::Builder::new()
        .name("round-window".to_owned())
        .spawn(move || {
            for event in connection.iter() {
                match event {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        for filter in [round::SUMMARIES, round::CONSOLES] {
                            let _ = subscriber.try_subscribe(filter, QoS::AtLeastOnce);
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let news = RoundNews::of_message(&p.topic, &p.payload);
                        if let Some(news) = news {
                            if let Err(std::sync::mpsc::TrySendError::Disconnected(_)) =
                                tx.try_send(news)
                            {
                                return;
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(ConnectionError::RequestsDone) => return,
                    Err(_) => std::thread::sleep(Duration::from_secs(1)),
                }
            }
        })
        .map_err(|e| format!("cannot start the round's window client: {e}"))?;
    Ok((RoundActions { client }, rx))
}
