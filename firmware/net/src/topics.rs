//! Where each message goes: one set of topics per board, so that the broker's ACL can let
//! a board write only its own.

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

/// A board's presence, retained on its status topic; the broker publishes `Offline` as the
/// board's last will when it vanishes without a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Online { epoch: u64 },
    Offline,
}

impl Status {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Status::Online { epoch } => format!("online {epoch}").into_bytes(),
            Status::Offline => b"offline".to_vec(),
        }
    }

    pub fn decode(bytes: &[u8]) -> Option<Status> {
        let text = std::str::from_utf8(bytes).ok()?;
        match text.split_once(' ') {
            None if text == "offline" => Some(Status::Offline),
            Some(("online", epoch)) => epoch.parse().ok().map(|epoch| Status::Online { epoch }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn status_reads_back() {
        for s in [Status::Online { epoch: 17 }, Status::Offline] {
            assert_eq!(Status::decode(&s.encode()), Some(s));
        }
        assert_eq!(Status::decode(b"online"), None);
        assert_eq!(Status::decode(b"online x"), None);
        assert_eq!(Status::decode(&[0xff]), None);
    }
}
