//! Where each message goes: one set of topics per board, so that the broker's ACL can let
//! a board write only its own.

use shakmaty::{ByColor, Color};

/// The topics of board `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardTopics {
    /// Board -> console: [`crate::Envelope`]s, QoS 1.
    pub events: String,
    /// Console -> board: the retained cumulative [`crate::Ack`].
    pub ack: String,
    /// Console -> board: link frames (hello, snapshot request), QoS 1.
    pub cmd: String,
    /// Board, retained, with a last will: [`Status`].
    pub status: String,
}

/// What a board topic is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicKind {
    Events,
    Ack,
    Cmd,
    Status,
}

const ROOT: &str = "kriegspiel/board";

impl BoardTopics {
    pub fn new(id: u32) -> BoardTopics {
        BoardTopics {
            events: format!("{ROOT}/{id}/events"),
            ack: format!("{ROOT}/{id}/ack"),
            cmd: format!("{ROOT}/{id}/cmd"),
            status: format!("{ROOT}/{id}/status"),
        }
    }

    /// The board and the kind of a board topic; `None` for any other topic.
    pub fn parse(topic: &str) -> Option<(u32, TopicKind)> {
        let rest = topic.strip_prefix(ROOT)?.strip_prefix('/')?;
        let (id, kind) = rest.split_once('/')?;
        // "07" or "+7" would be a second name for board 7.
        if id.starts_with(['0', '+']) && id != "0" {
            return None;
        }
        let id = id.parse().ok()?;
        let kind = match kind {
            "events" => TopicKind::Events,
            "ack" => TopicKind::Ack,
            "cmd" => TopicKind::Cmd,
            "status" => TopicKind::Status,
            _ => return None,
        };
        Some((id, kind))
    }
}

/// The topics of table `no` of the round (its place in the round file, from 1): what its
/// console says to everyone, to each player alone, and what each player sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableTopics {
    /// Console -> both players and onlookers: public announcements.
    pub public: String,
    /// Console -> one player: his private messages and refusals.
    pub private: ByColor<String>,
    /// One player -> console: his tries, questions, promotion choice, draw, resignation.
    pub input: ByColor<String>,
    /// Console, retained: the table's summary for the arbiter's window.
    pub summary: String,
    /// Arbiter's window -> the owning console: arbiter actions.
    pub arbiter: String,
}

const TABLE_ROOT: &str = "kriegspiel/table";

impl TableTopics {
    pub fn new(no: usize) -> TableTopics {
        let seat = |c: Color, what: &str| format!("{TABLE_ROOT}/{no}/{c}/{what}");
        TableTopics {
            public: format!("{TABLE_ROOT}/{no}/public"),
            private: ByColor::new_with(|c| seat(c, "private")),
            input: ByColor::new_with(|c| seat(c, "input")),
            summary: format!("{TABLE_ROOT}/{no}/summary"),
            arbiter: format!("{TABLE_ROOT}/{no}/arbiter"),
        }
    }
}

/// The topics every console and the arbiter's window read: the tables' summaries, their
/// arbiter actions, and the consoles' presence.
pub mod round {
    /// Every table's retained summary.
    pub const SUMMARIES: &str = "kriegspiel/table/+/summary";
    /// Every table's arbiter actions.
    pub const ARBITER_ACTIONS: &str = "kriegspiel/table/+/arbiter";
    /// Every console's retained [`super::Status`].
    pub const CONSOLES: &str = "kriegspiel/console/+/status";

    /// Console `name`'s retained [`super::Status`], with a last will.
    pub fn console_status(name: &str) -> String {
        format!("kriegspiel/console/{name}/status")
    }

    /// The console named in a status topic.
    pub fn console_of(topic: &str) -> Option<&str> {
        let name = topic
            .strip_prefix("kriegspiel/console/")?
            .strip_suffix("/status")?;
        (!name.is_empty() && !name.contains('/')).then_some(name)
    }

    /// Every table's public channel.
    pub const PUBLIC: &str = "kriegspiel/table/+/public";

    /// The table a table topic of `kind` (`summary`, `arbiter`) names.
    pub fn table_of(topic: &str, kind: &str) -> Option<usize> {
        let rest = topic.strip_prefix("kriegspiel/table/")?;
        let (no, tail) = rest.split_once('/')?;
        if tail != kind || no.starts_with(['0', '+']) {
            return None;
        }
        no.parse().ok()
    }
}

/// The broker user names of a round: one per board, per seat, per console, and the arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal<'a> {
    Board(u32),
    Seat {
        table: usize,
        color: Color,
    },
    Console(&'a str),
    Arbiter,
    /// Anyone the club lets hear the tables' public announcements (a spectator's phone, the
    /// room's display): every table's public channel, nothing else.
    Onlooker,
}

impl std::fmt::Display for Principal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Principal::Board(id) => write!(f, "board-{id}"),
            Principal::Seat { table, color } => write!(f, "seat-{table}-{color}"),
            Principal::Console(name) => write!(f, "console-{name}"),
            Principal::Arbiter => f.write_str("arbiter"),
            Principal::Onlooker => f.write_str("onlooker"),
        }
    }
}

/// A board's presence, retained on its status topic; the broker publishes `Offline` as the
/// board's last will when it vanishes without a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Online {
        epoch: u64,
    },
    /// Gone without a word (the broker's last will): it may come back with what it kept.
    Offline,
    /// Stopped cleanly, everything it made acknowledged: nothing is on its way.
    Stopped,
}

impl Status {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Status::Online { epoch } => format!("online {epoch}").into_bytes(),
            Status::Offline => b"offline".to_vec(),
            Status::Stopped => b"stopped".to_vec(),
        }
    }

    pub fn decode(bytes: &[u8]) -> Option<Status> {
        let text = std::str::from_utf8(bytes).ok()?;
        match text.split_once(' ') {
            None if text == "offline" => Some(Status::Offline),
            None if text == "stopped" => Some(Status::Stopped),
            Some(("online", epoch)) => epoch.parse().ok().map(|epoch| Status::Online { epoch }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_topics_name_their_table_or_console() {
        assert_eq!(
            round::table_of("kriegspiel/table/12/summary", "summary"),
            Some(12)
        );
        assert_eq!(
            round::table_of("kriegspiel/table/12/arbiter", "summary"),
            None
        );
        assert_eq!(
            round::table_of("kriegspiel/table/012/summary", "summary"),
            None
        );
        assert_eq!(
            round::table_of("kriegspiel/table/x/summary", "summary"),
            None
        );
        assert_eq!(
            round::console_of(&round::console_status("east")),
            Some("east")
        );
        assert_eq!(round::console_of("kriegspiel/console/a/b/status"), None);
        assert_eq!(round::console_of("kriegspiel/board/7/status"), None);
    }

    #[test]
    fn topics_name_their_board() {
        let t = BoardTopics::new(7);
        assert_eq!(t.events, "kriegspiel/board/7/events");
        assert_eq!(BoardTopics::parse(&t.events), Some((7, TopicKind::Events)));
        assert_eq!(BoardTopics::parse(&t.ack), Some((7, TopicKind::Ack)));
        assert_eq!(BoardTopics::parse(&t.cmd), Some((7, TopicKind::Cmd)));
        assert_eq!(BoardTopics::parse(&t.status), Some((7, TopicKind::Status)));
        assert_eq!(BoardTopics::parse("kriegspiel/board/07/events"), None);
        assert_eq!(BoardTopics::parse("kriegspiel/board/x/events"), None);
        assert_eq!(BoardTopics::parse("kriegspiel/board/7/other"), None);
        assert_eq!(BoardTopics::parse("kriegspiel/boardx/7/events"), None);
        assert_eq!(
            BoardTopics::parse("kriegspiel/board/0/ack"),
            Some((0, TopicKind::Ack))
        );
    }

    #[test]
    fn tables_and_principals_are_named_by_whole_levels() {
        let t = TableTopics::new(3);
        assert_eq!(t.public, "kriegspiel/table/3/public");
        assert_eq!(t.private.white, "kriegspiel/table/3/white/private");
        assert_eq!(t.input.black, "kriegspiel/table/3/black/input");
        let seat = Principal::Seat {
            table: 3,
            color: Color::Black,
        };
        assert_eq!(seat.to_string(), "seat-3-black");
        assert_eq!(Principal::Board(7).to_string(), "board-7");
        assert_eq!(Principal::Console("east").to_string(), "console-east");
    }

    #[test]
    fn status_reads_back() {
        for s in [
            Status::Online { epoch: 17 },
            Status::Offline,
            Status::Stopped,
        ] {
            assert_eq!(Status::decode(&s.encode()), Some(s));
        }
        assert_eq!(Status::decode(b"online"), None);
        assert_eq!(Status::decode(b"online x"), None);
        assert_eq!(Status::decode(&[0xff]), None);
    }
}
