//! A player's seat over the broker: the lines his terminal and his table's console exchange
//! on the seat's `input` and `private` topics ([`crate::TableTopics`]).
//!
//! Each run of a player's program is a session with an id of its own, so that the lines of
//! an earlier run (held by the broker, or late) are told apart. The console numbers the lines
//! it says to a session and keeps the latest of them: the broker may drop messages (a killed
//! broker, a full queue), so the terminal takes them in order, asks for what it missed, and
//! learns from the console's regular `alive` how many there are. The text of a line is the
//! players' socket's own, one line each way.

use std::fmt;

/// The longest line of text either way, as on the players' socket.
pub const MAX_LINE: usize = 1024;

/// One run of a player's program: 16 hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId(pub u64);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl std::str::FromStr for SessionId {
    type Err = SeatWireError;

    fn from_str(s: &str) -> Result<SessionId, SeatWireError> {
        if s.len() != 16 {
            return Err(SeatWireError::Session);
        }
        u64::from_str_radix(s, 16)
            .map(SessionId)
            .map_err(|_| SeatWireError::Session)
    }
}

/// A player's terminal to its table's console (the seat's `input` topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToConsole {
    /// Line number `seq` (from 0) he typed or said; a session's first is its hello
    /// (`TABLE COLOR CODE [voice]`). The broker drops what is published while the console
    /// is away, so a line is sent again until the console's `alive` counts it.
    Line {
        session: SessionId,
        seq: u64,
        text: String,
    },
    /// Say again every line from `from` on: the terminal missed it.
    Resend { session: SessionId, from: u64 },
    /// The session ends: he quit.
    Bye { session: SessionId },
    /// The terminal's last will: its connection to the broker broke (its machine, its
    /// network, or the broker's own restart). It may come back: the console keeps the
    /// session a while, and ends it if nothing more comes.
    Vanished { session: SessionId },
}

/// A console to one player's terminal (the seat's `private` topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToSeat {
    /// Line number `seq` (from 0) of the session.
    Line {
        session: SessionId,
        seq: u64,
        text: String,
    },
    /// The session's last line is number `seq`: after it, nothing more comes.
    End { session: SessionId, seq: u64 },
    /// The console runs, has said `next` lines to the session so far, and has taken the
    /// session's lines before `taken`.
    Alive {
        session: SessionId,
        next: u64,
        taken: u64,
    },
    /// The console knows no such session (it was restarted, or the session ended long ago).
    Gone { session: SessionId },
    /// The lines before `to` asked for again are no longer kept: go on from `to`.
    Skip { session: SessionId, to: u64 },
}

/// Why a payload is not a seat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatWireError {
    TooLong,
    NotText,
    Session,
    Kind,
    Number,
}

impl fmt::Display for SeatWireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SeatWireError::TooLong => "the message is longer than a line may be",
            SeatWireError::NotText => "the message is not one line of text",
            SeatWireError::Session => "the message does not start with a session id",
            SeatWireError::Kind => "the message is of no known kind",
            SeatWireError::Number => "the message's line number is not a number",
        })
    }
}

impl std::error::Error for SeatWireError {}

/// The longest payload: a line, its session, number and kind.
const MAX_PAYLOAD: usize = MAX_LINE + 64;

/// The payload's words: text of one line, not too long.
fn text_of(bytes: &[u8]) -> Result<&str, SeatWireError> {
    if bytes.len() > MAX_PAYLOAD {
        return Err(SeatWireError::TooLong);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| SeatWireError::NotText)?;
    if text.contains(['\n', '\r']) {
        return Err(SeatWireError::NotText);
    }
    Ok(text)
}

fn number(word: Option<&str>) -> Result<u64, SeatWireError> {
    word.and_then(|w| w.parse().ok())
        .ok_or(SeatWireError::Number)
}

/// A line to send: one line of text, at most [`MAX_LINE`] bytes (cut at a character).
fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut end = first.len().min(MAX_LINE);
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    first[..end].to_owned()
}

impl ToConsole {
    /// Line `seq` he typed, as one line of at most [`MAX_LINE`] bytes.
    pub fn line(session: SessionId, seq: u64, text: &str) -> ToConsole {
        ToConsole::Line {
            session,
            seq,
            text: one_line(text),
        }
    }

    pub fn session(&self) -> SessionId {
        match self {
            ToConsole::Line { session, .. }
            | ToConsole::Resend { session, .. }
            | ToConsole::Bye { session }
            | ToConsole::Vanished { session } => *session,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        match self {
            ToConsole::Line { session, seq, text } => format!("{session} line {seq} {text}"),
            ToConsole::Resend { session, from } => format!("{session} resend {from}"),
            ToConsole::Bye { session } => format!("{session} bye"),
            ToConsole::Vanished { session } => format!("{session} vanished"),
        }
        .into_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<ToConsole, SeatWireError> {
        let text = text_of(bytes)?;
        let (session, rest) = text.split_once(' ').unwrap_or((text, ""));
        let session: SessionId = session.parse()?;
        let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        match kind {
            "line" => {
                let (seq, text) = rest.split_once(' ').unwrap_or((rest, ""));
                if text.len() > MAX_LINE {
                    return Err(SeatWireError::TooLong);
                }
                Ok(ToConsole::Line {
                    session,
                    seq: number(Some(seq))?,
                    text: text.to_owned(),
                })
            }
            "resend" => Ok(ToConsole::Resend {
                session,
                from: number(Some(rest))?,
            }),
            "bye" if rest.is_empty() => Ok(ToConsole::Bye { session }),
            "vanished" if rest.is_empty() => Ok(ToConsole::Vanished { session }),
            _ => Err(SeatWireError::Kind),
        }
    }
}

impl ToSeat {
    /// Line `seq` of a session, as one line of at most [`MAX_LINE`] bytes.
    pub fn line(session: SessionId, seq: u64, text: &str) -> ToSeat {
        ToSeat::Line {
            session,
            seq,
            text: one_line(text),
        }
    }

    pub fn session(&self) -> SessionId {
        match self {
            ToSeat::Line { session, .. }
            | ToSeat::End { session, .. }
            | ToSeat::Alive { session, .. }
            | ToSeat::Gone { session }
            | ToSeat::Skip { session, .. } => *session,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        match self {
            ToSeat::Line { session, seq, text } => format!("{session} {seq} line {text}"),
            ToSeat::End { session, seq } => format!("{session} {seq} end"),
            ToSeat::Alive {
                session,
                next,
                taken,
            } => format!("{session} {next} alive {taken}"),
            ToSeat::Gone { session } => format!("{session} 0 gone"),
            ToSeat::Skip { session, to } => format!("{session} {to} skip"),
        }
        .into_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<ToSeat, SeatWireError> {
        let text = text_of(bytes)?;
        let mut words = text.splitn(4, ' ');
        let session: SessionId = words.next().unwrap_or_default().parse()?;
        let n = number(words.next())?;
        let kind = words.next().unwrap_or_default();
        let rest = words.next();
        match (kind, rest) {
            ("line", Some(text)) if text.len() <= MAX_LINE => Ok(ToSeat::Line {
                session,
                seq: n,
                text: text.to_owned(),
            }),
            ("line", None) => Ok(ToSeat::Line {
                session,
                seq: n,
                text: String::new(),
            }),
            ("line", Some(_)) => Err(SeatWireError::TooLong),
            ("end", None) => Ok(ToSeat::End { session, seq: n }),
            ("alive", Some(taken)) => Ok(ToSeat::Alive {
                session,
                next: n,
                taken: number(Some(taken))?,
            }),
            ("gone", None) => Ok(ToSeat::Gone { session }),
            ("skip", None) => Ok(ToSeat::Skip { session, to: n }),
            _ => Err(SeatWireError::Kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SessionId = SessionId(0x00ab_cdef_0123_4567);

    #[test]
    fn every_message_reads_back_as_it_was_sent() {
        let to_console = [
            ToConsole::line(S, 0, "1 white abcdef voice"),
            ToConsole::line(S, 7, ""),
            ToConsole::Resend {
                session: S,
                from: 17,
            },
            ToConsole::Bye { session: S },
            ToConsole::Vanished { session: S },
        ];
        for m in to_console {
            assert_eq!(ToConsole::decode(&m.encode()), Ok(m.clone()), "{m:?}");
        }
        let to_seat = [
            ToSeat::line(S, 0, "Connected: table 1, White."),
            ToSeat::line(S, 3, ""),
            ToSeat::End { session: S, seq: 9 },
            ToSeat::Alive {
                session: S,
                next: 10,
                taken: 3,
            },
            ToSeat::Gone { session: S },
            ToSeat::Skip { session: S, to: 4 },
        ];
        for m in to_seat {
            assert_eq!(ToSeat::decode(&m.encode()), Ok(m.clone()), "{m:?}");
        }
        assert_eq!(S.to_string(), "00abcdef01234567");
    }

    #[test]
    fn a_line_is_one_line_of_bounded_length() {
        let long = "é".repeat(MAX_LINE);
        let ToConsole::Line { text, .. } = ToConsole::line(S, 2, &long) else {
            panic!("a line")
        };
        assert!(text.len() <= MAX_LINE && text.chars().all(|c| c == 'é'));
        let ToSeat::Line { text, .. } = ToSeat::line(S, 1, "first\nsecond") else {
            panic!("a line")
        };
        assert_eq!(text, "first");
    }

    #[test]
    fn bad_payloads_are_refused_with_their_reason() {
        let cases: [(&[u8], SeatWireError); 10] = [
            (b"", SeatWireError::Session),
            (b"xyz line e2e4", SeatWireError::Session),
            (b"00abcdef01234567 shout e2e4", SeatWireError::Kind),
            (b"00abcdef01234567 resend many", SeatWireError::Number),
            (b"00abcdef01234567 line 1 a\nb", SeatWireError::NotText),
            (b"00abcdef01234567 line e2e4", SeatWireError::Number),
            (b"00abcdef01234567 line", SeatWireError::Number),
            (b"00abcdef01234567 line \xff", SeatWireError::NotText),
            (b"00abcdef01234567 bye now", SeatWireError::Kind),
            (&[b'a'; MAX_PAYLOAD + 1], SeatWireError::TooLong),
        ];
        for (bytes, why) in cases {
            assert_eq!(ToConsole::decode(bytes), Err(why), "{bytes:?}");
        }
        assert_eq!(
            ToSeat::decode(b"00abcdef01234567 x line hi"),
            Err(SeatWireError::Number)
        );
        assert_eq!(
            ToSeat::decode(b"00abcdef01234567 2 alive now"),
            Err(SeatWireError::Number)
        );
        assert_eq!(
            ToSeat::decode(b"00abcdef01234567 2 alive"),
            Err(SeatWireError::Kind)
        );
    }
}
