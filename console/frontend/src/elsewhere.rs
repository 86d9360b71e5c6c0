//! Whether this console's tables already run on another console of the round: read from
//! the broker's retained presence and table summaries before any game is begun. A second
//! console on a table would take its boards, its players' seats and its public channel
//! (a round started twice with the journal forgotten, or a table left in two round files).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kriegspiel_hall::{RoundNews, TableNo};
use kriegspiel_net::{round, Broker, Status};
use rumqttc::{Client, Event, Packet, QoS};

/// How long the broker is given to answer and send what it retains; a broker out of reach
/// for longer is not a refusal here (the console says so itself, and retries).
const ANSWER_WITHIN: Duration = Duration::from_secs(3);
/// Retained messages follow the subscription's answer at once: this long with nothing
/// new after both answers, and all were sent.
const QUIET: Duration = Duration::from_millis(300);

/// What the broker retains of the round: each console's presence and who runs each table.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Retained {
    pub consoles: HashMap<String, Status>,
    /// The console each table's latest summary names.
    pub tables: HashMap<TableNo, String>,
    /// The tables whose latest summary shows a game under way (moves made, not over).
    pub under_way: std::collections::HashSet<TableNo>,
}

/// Whether a summary shows a game under way: not over, its men no longer where they began.
fn under_way(s: &kriegspiel_hall::TableSummary) -> bool {
    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let board = |fen: &str| fen.split(' ').next().unwrap_or_default().to_owned();
    let start = s
        .setup
        .as_ref()
        .and_then(|setup| setup.fen.as_deref())
        .map_or_else(|| START.to_owned(), board);
    !s.over && s.fen.as_deref().is_some_and(|f| board(f) != start)
}

/// A console of the round that would be run twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elsewhere {
    /// A console of this name is online already.
    SameConsole { console: String },
    /// Another console, online, runs one of this console's tables.
    Table { table: TableNo, console: String },
    /// This console left a game under way at one of its tables that the journal it was
    /// given does not hold (another journal's, or none): its `--journal` forgotten.
    NotInJournal { table: TableNo, console: String },
}

impl std::fmt::Display for Elsewhere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elsewhere::SameConsole { console } => write!(
                f,
                "console '{console}' already runs on this round's broker: a second one would take its boards and its players' seats. Stop the first (one that died shows offline on the broker within 10 s), or run this one with another console name and tables of its own"
            ),
            Elsewhere::Table { table, console } => write!(
                f,
                "table {table} already runs on console '{console}' (online on the round's broker): a table runs on one console only. Stop it there first, or take table {table} out of this console's round"
            ),
            Elsewhere::NotInJournal { table, console } => write!(
                f,
                "table {table}'s game is under way on this round's broker (console '{console}' left it unfinished), and the journal given does not hold it: was --journal forgotten? Start with the journal that holds the game, or with --new-game to begin afresh (the game stays in its own journal)"
            ),
        }
    }
}

impl Retained {
    /// The first reason `console` may not run `tables`, if any; `beginning`: those of its
    /// tables that would begin a new game though asked to take theirs up.
    pub fn elsewhere(
        &self,
        console: &str,
        tables: &[TableNo],
        beginning: &[TableNo],
    ) -> Option<Elsewhere> {
        let online = |name: &str| matches!(self.consoles.get(name), Some(Status::Online { .. }));
        if online(console) {
            return Some(Elsewhere::SameConsole {
                console: console.to_owned(),
            });
        }
        let taken = tables.iter().find_map(|table| {
            let runs = self.tables.get(table)?;
            (runs != console && online(runs)).then(|| Elsewhere::Table {
                table: *table,
                console: runs.clone(),
            })
        });
        taken.or_else(|| {
            beginning.iter().find_map(|table| {
                let left = self.tables.get(table)?;
                (left == console && self.under_way.contains(table)).then(|| {
                    Elsewhere::NotInJournal {
                        table: *table,
                        console: left.clone(),
                    }
                })
            })
        })
    }

    /// One retained message.
    fn take(&mut self, news: RoundNews) {
        match news {
            RoundNews::Console { name, status } => {
                self.consoles.insert(name, status);
            }
            RoundNews::Summary(summary) => {
                if under_way(&summary) {
                    self.under_way.insert(summary.table);
                } else {
                    self.under_way.remove(&summary.table);
                }
                self.tables.insert(summary.table, summary.console);
            }
        }
    }
}

/// A connection to the round's broker that has read what it retains.
struct Read {
    client: Client,
    connection: rumqttc::Connection,
    seen: Retained,
}

/// What `broker` retains of the round, read as `console`; `None` when it does not answer in
/// time (then nothing can be told, and nothing is refused).
fn read_retained(broker: &Broker, console: &str) -> Option<Read> {
    let id = format!("kriegspiel-console-{console}-check-{}", std::process::id());
    let mut options = broker.options(&id).ok()?;
    options.set_clean_session(true);
    let (client, mut connection) = Client::new(options, 16);
    connection
        .eventloop
        .set_network_options(kriegspiel_net::network_options());
    let deadline = Instant::now() + ANSWER_WITHIN;
    let mut seen = Retained::default();
    let mut answers = 0;
    let mut last_news = Instant::now();
    loop {
        let now = Instant::now();
        if now >= deadline {
            let _ = client.try_disconnect();
            return None;
        }
        if answers == 2 && now.duration_since(last_news) >= QUIET {
            return Some(Read {
                client,
                connection,
                seen,
            });
        }
        let wait = QUIET.min(deadline.saturating_duration_since(now));
        match connection.recv_timeout(wait) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                for filter in [round::CONSOLES, round::SUMMARIES] {
                    if client.try_subscribe(filter, QoS::AtLeastOnce).is_err() {
                        return None;
                    }
                }
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                answers += 1;
                last_news = Instant::now();
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                if let Some(news) = RoundNews::of_message(&p.topic, &p.payload) {
                    seen.take(news);
                }
                last_news = Instant::now();
            }
            Ok(Ok(_)) | Err(_) => {}
            // Refused or out of reach: the console's own client says why.
            Ok(Err(_)) => {
                let _ = client.try_disconnect();
                return None;
            }
        }
    }
}

/// Clears (an empty retained message) the summaries `seen` holds from `console` of tables
/// not among `tables`, waiting briefly for the broker to take them.
fn clear_left_behind(
    client: &Client,
    connection: &mut rumqttc::Connection,
    seen: &Retained,
    console: &str,
    tables: &[TableNo],
) {
    let stale: Vec<TableNo> = seen
        .tables
        .iter()
        .filter(|(table, runs)| runs.as_str() == console && !tables.contains(table))
        .map(|(table, _)| *table)
        .collect();
    for table in &stale {
        let topic = kriegspiel_net::TableTopics::new(*table).summary;
        let _ = client.try_publish(topic, QoS::AtLeastOnce, true, Vec::new());
    }
    let mut acked = 0;
    let deadline = Instant::now() + QUIET;
    while acked < stale.len() && Instant::now() < deadline {
        match connection.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(Event::Incoming(Packet::PubAck(_)))) => acked += 1,
            Ok(Ok(_)) => {}
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

/// The tables of `specs` that would begin a new game though asked to take theirs up (the
/// journal holds no unfinished game of theirs): a game under way on the broker is then
/// another journal's.
pub fn beginning(
    journal: &kriegspiel_hall::Journal,
    specs: &[(TableNo, kriegspiel_hall::TableSpec)],
) -> Vec<TableNo> {
    // A journal that cannot be read here is said when the hall opens it.
    let resuming = kriegspiel_hall::resuming(journal, specs).unwrap_or_default();
    specs
        .iter()
        .filter(|(no, s)| s.resume == kriegspiel_hall::Resume::Last && !resuming.contains(no))
        .map(|(no, _)| *no)
        .collect()
}

/// Why `console` may not run `tables` on `broker` now, said before any game is begun. When
/// it may, the summaries it left of tables it no longer runs (a table moved to another
/// console) are cleared: else they would keep that table's new console out.
pub fn runs_elsewhere(
    broker: &Broker,
    console: &str,
    tables: &[TableNo],
    beginning: &[TableNo],
) -> Option<Elsewhere> {
    let mut read = read_retained(broker, console)?;
    let found = read.seen.elsewhere(console, tables, beginning);
    if found.is_none() {
        clear_left_behind(
            &read.client,
            &mut read.connection,
            &read.seen,
            console,
            tables,
        );
    }
    let _ = read.client.try_disconnect();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_console_online_or_a_table_on_another_online_console_is_elsewhere() {
        let mut r = Retained::default();
        assert_eq!(r.elsewhere("main", &[1, 2], &[]), None);
        r.consoles
            .insert("main".to_owned(), Status::Online { epoch: 3 });
        assert_eq!(
            r.elsewhere("main", &[1], &[]),
            Some(Elsewhere::SameConsole {
                console: "main".to_owned()
            })
        );
        // Table 2's summary names main, which is online: east may not run it.
        r.tables.insert(2, "main".to_owned());
        assert_eq!(r.elsewhere("east", &[3], &[]), None);
        assert_eq!(
            r.elsewhere("east", &[3, 2], &[]),
            Some(Elsewhere::Table {
                table: 2,
                console: "main".to_owned()
            })
        );
        // Stopped cleanly or gone: its tables may be taken over.
        for gone in [Status::Stopped, Status::Offline] {
            r.consoles.insert("main".to_owned(), gone);
            assert_eq!(r.elsewhere("east", &[2], &[]), None);
            assert_eq!(r.elsewhere("main", &[2], &[]), None);
        }
    }
}
