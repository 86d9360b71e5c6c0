//! Inputs timed by their arrival: board reports by when the board made them (stamped at the
//! link: never later than their arrival there), commands when the hall routes them; a
//! table takes what is waiting earliest first.

use std::collections::VecDeque;
use std::time::Duration;

use kriegspiel_boardlink::{BoardLinkHandle, DisconnectReason, LinkEvent, Progress, Report};
use kriegspiel_referee::shakmaty::{Bitboard, Color, Role, Square};
use kriegspiel_table::{ArbiterNote, BoardInput, Input, Millis, Output};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::time::Instant;

use crate::clock::TableClock;
use crate::dgt_board::feed::{DgtFeed, DgtItem};
use crate::event::HallEvent;
use crate::journal::{NetStamp, Stamp};
use crate::spec::TableNo;

/// When an input reached the hall (table time; `None` for one made here, a timer or a
/// script), and for a board event the board's own clock and frame number, which the journal
/// keeps in its [`Stamp`] (its wall clock is set when the row is written).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Arrival {
    pub(crate) at: Option<Millis>,
    pub(crate) stamp: Stamp,
}

/// The board input a link event means, with the board's own time, if it means one.
pub(crate) fn board_input(event: &LinkEvent) -> Option<(BoardInput, Option<u32>)> {
    let square = |i: u8| (i < 64).then(|| Square::new(u32::from(i)));
    match event {
        LinkEvent::Connected { board_id, .. } => Some((
            BoardInput::Connected {
                board_id: Some(*board_id),
            },
            None,
        )),
        LinkEvent::Lift {
            square: sq,
            board_ms,
        } => square(*sq).map(|s| (BoardInput::Lift(s), Some(*board_ms))),
        LinkEvent::Place {
            square: sq,
            board_ms,
        } => square(*sq).map(|s| (BoardInput::Place(s), Some(*board_ms))),
        LinkEvent::Snapshot {
            occupancy,
            board_ms,
        }
        | LinkEvent::Resync {
            occupancy,
            board_ms,
            ..
        } => Some((BoardInput::Snapshot(Bitboard(*occupancy)), Some(*board_ms))),
        // A networked board unheard for a while keeps its frames for later: the table
        // waits for them (see `watermark`) rather than forgetting the board; one that
        // stopped owes nothing, and its men stand where they stood.
        LinkEvent::Disconnected {
            reason: DisconnectReason::Unheard { .. } | DisconnectReason::Stopped,
        } => None,
        LinkEvent::Disconnected { .. } => Some((BoardInput::Disconnected, None)),
        LinkEvent::OpenFailed { .. }
        | LinkEvent::VersionMismatch { .. }
        | LinkEvent::Fault { .. }
        | LinkEvent::Back => None,
    }
}

/// One player's board as its table reads it.
pub(crate) struct BoardFeed {
    pub(crate) color: Color,
    /// Dropping it stops the link (or the DGT board's driver).
    pub(crate) link: FeedLink,
    pub(crate) reports: Reports,
    /// A report taken in to compare arrivals, not yet handed to the table.
    pub(crate) held: Option<Held>,
    /// Reports read past a held one, to find news behind it (at most [`AHEAD`]); they come
    /// before the channel's.
    ahead: VecDeque<Held>,
    pub(crate) ended: bool,
    /// The board's id when it is on the network: its events carry their frame's number
    /// into the journal.
    pub(crate) net_board: Option<u32>,
}

/// What runs a board: a board link (serial, networked, simulated) or a DGT board's feed.
pub(crate) enum FeedLink {
    Link(BoardLinkHandle),
    Dgt(DgtFeed),
}

impl FeedLink {
    /// The origin of its reports' times.
    pub(crate) fn started(&self) -> Instant {
        match self {
            FeedLink::Link(l) => l.started(),
            FeedLink::Dgt(d) => d.started(),
        }
    }

    /// How far a serial or networked board's stream has come; `None` for any other board.
    fn progress(&self) -> Option<Progress> {
        match self {
            FeedLink::Link(l) => l.progress(),
            FeedLink::Dgt(_) => None,
        }
    }
}

/// Where a board's reports come from.
pub(crate) enum Reports {
    Link(mpsc::Receiver<Report>),
    Dgt(mpsc::Receiver<DgtItem>),
}

impl Reports {
    fn try_recv(&mut self) -> Result<Held, TryRecvError> {
        match self {
            Reports::Link(rx) => rx.try_recv().map(Held::Link),
            Reports::Dgt(rx) => rx.try_recv().map(Held::Dgt),
        }
    }

    async fn recv(&mut self) -> Option<Held> {
        match self {
            Reports::Link(rx) => rx.recv().await.map(Held::Link),
            Reports::Dgt(rx) => rx.recv().await.map(Held::Dgt),
        }
    }
}

/// One report of a board.
#[derive(Debug, Clone)]
pub(crate) enum Held {
    Link(Report),
    Dgt(DgtItem),
}

impl Held {
    /// Whether it is news for the arbiter only (a board said gone or back, a fault, a DGT
    /// board's notice), no input to the game: it need not wait, in time order, for the
    /// other board's late frames, which it cannot change. A board said gone waited so for
    /// the other one pulled a second earlier, up to [`MAX_HOLD`] (club trial).
    pub(crate) fn is_news_only(&self) -> bool {
        match self {
            Held::Link(r) | Held::Dgt(DgtItem::Link(r)) => board_input(&r.event).is_none(),
            Held::Dgt(DgtItem::Notice { .. }) => true,
            Held::Dgt(DgtItem::Promote { .. }) => false,
        }
    }

    /// When the board made it (at the latest when it reached the link), on the link's clock.
    fn at(&self) -> Duration {
        match self {
            Held::Link(r) => r.at,
            Held::Dgt(d) => d.at(),
        }
    }
}

impl BoardFeed {
    pub(crate) fn new(
        color: Color,
        (link, reports): (FeedLink, Reports),
        net_board: Option<u32>,
    ) -> Self {
        BoardFeed {
            color,
            link,
            reports,
            held: None,
            ahead: VecDeque::new(),
            ended: false,
            net_board,
        }
    }

    /// The arrival of the next report already here, without waiting.
    pub(crate) fn ready(&mut self) -> Option<Instant> {
        if self.held.is_none() {
            self.held = self.ahead.pop_front();
        }
        if self.held.is_none() && !self.ended {
            match self.reports.try_recv() {
                Ok(r) => self.held = Some(r),
                Err(TryRecvError::Disconnected) => self.ended = true,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.held.as_ref().map(|r| self.link.started() + r.at())
    }

    /// News for the arbiter (no game input) this board has: its held report, or, while
    /// that one is `waiting` for the other board, one behind it (the board said gone a
    /// second after the other was), read on without waiting and taken out of turn.
    pub(crate) fn take_news(&mut self, waiting: bool) -> Option<Held> {
        if self.held.as_ref().is_some_and(Held::is_news_only) {
            return self.held.take();
        }
        if waiting {
            return self.news_behind();
        }
        None
    }

    fn news_behind(&mut self) -> Option<Held> {
        if self.held.is_some() {
            while self.ahead.len() < AHEAD && !self.ended {
                match self.reports.try_recv() {
                    Ok(r) => self.ahead.push_back(r),
                    Err(TryRecvError::Disconnected) => self.ended = true,
                    Err(TryRecvError::Empty) => break,
                }
            }
        }
        let news = self.ahead.iter().position(Held::is_news_only)?;
        self.ahead.remove(news)
    }

    pub(crate) async fn next(&mut self) -> Option<Held> {
        if let Some(r) = self.held.take().or_else(|| self.ahead.pop_front()) {
            return Some(r);
        }
        if self.ended {
            return std::future::pending().await;
        }
        let r = self.reports.recv().await;
        // The link task ended (never while its handle lives): no more reports.
        self.ended = r.is_none();
        r
    }
}

/// The players' and the arbiter's commands for one table, each with its arrival.
pub(crate) struct Commands {
    pub(crate) rx: mpsc::UnboundedReceiver<(Input, Instant)>,
    /// A command taken in to compare arrivals, not yet handed to the table.
    pub(crate) held: Option<(Input, Instant)>,
}

impl Commands {
    /// The arrival of the next command already here, without waiting.
    pub(crate) fn ready(&mut self) -> Option<Instant> {
        if self.held.is_none() {
            self.held = self.rx.try_recv().ok();
        }
        self.held.as_ref().map(|(_, at)| *at)
    }

    /// The next command; `None` once the hall is gone.
    pub(crate) async fn next(&mut self) -> Option<(Input, Instant)> {
        match self.held.take() {
            Some(c) => Some(c),
            None => self.rx.recv().await,
        }
    }
}

/// A board that has sent nothing for this long (it sends a heartbeat every 200 ms when
/// idle) may have frames on the way: kept by the broker, or unread in the serial port.
const QUIET: Duration = Duration::from_millis(400);
/// The longest the table waits for a lagging board before it goes on without it: a
/// network cut of some seconds, the broker's reconnection and the boards' re-send.
pub(crate) const MAX_HOLD: Duration = Duration::from_secs(10);
/// The most reports read past a held one in search of news: a board's stream behind a
/// held report otherwise waits in its link's bounded channel.
const AHEAD: usize = 64;
/// How often a held table looks again at the lagging board's progress.
pub(crate) const HOLD_POLL: Duration = Duration::from_millis(20);

impl BoardFeed {
    /// For a serial or networked board whose frames may still bring something made after
    /// the last one it delivered: when that last one was made. After the console was held
    /// up, a serial board's bytes wait in the port and its link may read them after the
    /// table's timers fall due; a networked board's come late after an outage. One with
    /// nothing on its way (stopped cleanly, or its serial port closed), or silent longer than
    /// [`MAX_HOLD`], is not waited for. (A networked board gone without a word may come back
    /// with what it kept: a cut cable looks so too.)
    fn lagging_through(&self, now: Instant) -> Option<Instant> {
        lagging_through(self.link.progress()?, self.link.started(), now)
    }
}

/// [`BoardFeed::lagging_through`] for a board's `progress` on a link's clock that started
/// at `started`.
fn lagging_through(progress: Progress, started: Instant, now: Instant) -> Option<Instant> {
    if progress.stopped {
        return None;
    }
    let through = started + progress.through?;
    let quiet = now.saturating_duration_since(through);
    (quiet < MAX_HOLD && (progress.behind || quiet > QUIET)).then_some(through)
}

/// The earliest instant up to which a lagging board (other than `except`) is known
/// complete: what is later waits for it.
pub(crate) fn watermark(
    feeds: &[Option<BoardFeed>; 2],
    now: Instant,
    except: Option<usize>,
) -> Option<Instant> {
    feeds
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != except)
        .filter_map(|(_, f)| f.as_ref()?.lagging_through(now))
        .min()
}

pub(crate) async fn next_report(feed: &mut Option<BoardFeed>) -> Option<Held> {
    match feed {
        Some(f) => f.next().await,
        None => std::future::pending().await,
    }
}

/// Which waiting input a table takes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// The report held by this board (0 White, 1 Black).
    Board(usize),
    Command,
}

/// Of the inputs already here (each board's held report and the held command, by arrival),
/// the one that arrived first. On a tie White's board goes before Black's and a report before
/// a command: a command is stamped when the hall routes it, later than the press it answers,
/// while a report carries when its board made it.
pub(crate) fn earliest(boards: [Option<Instant>; 2], command: Option<Instant>) -> Option<Next> {
    let board = match boards {
        [Some(w), Some(b)] if b < w => Some((1, b)),
        [Some(w), _] => Some((0, w)),
        [None, Some(b)] => Some((1, b)),
        [None, None] => None,
    };
    match (board, command) {
        (Some((i, b)), Some(c)) if b <= c => Some(Next::Board(i)),
        (Some((i, _)), None) => Some(Next::Board(i)),
        (_, Some(_)) => Some(Next::Command),
        (None, None) => None,
    }
}

/// A command as the table takes it, timed by its arrival.
pub(crate) fn command_input((input, at): (Input, Instant), clock: TableClock) -> (Input, Arrival) {
    let arrival = Arrival {
        at: Some(clock.millis_at(at)),
        ..Arrival::default()
    };
    (input, arrival)
}

/// Publishes a board's report and gives the input it means, timed by its arrival.
/// `choice`: the promotion the board's player has chosen so far (a queen read from a DGT
/// board is no input unless it undoes another choice: a queen is what no choice means).
pub(crate) fn link(
    no: TableNo,
    feed: &BoardFeed,
    report: Option<Held>,
    clock: TableClock,
    (publish, choice): (&impl Fn(HallEvent), Option<Role>),
) -> Option<(Input, Arrival)> {
    let color = feed.color;
    let report = match report? {
        Held::Link(report) => report,
        Held::Dgt(DgtItem::Link(report)) => report,
        Held::Dgt(DgtItem::Promote {
            role: Role::Queen, ..
        }) if choice.is_none() => return None,
        Held::Dgt(DgtItem::Promote { at, role }) => {
            let arrival = Arrival {
                at: Some(clock.millis_at(feed.link.started() + at)),
                ..Arrival::default()
            };
            return Some((Input::Promote { color, role }, arrival));
        }
        Held::Dgt(DgtItem::Notice { at, notice }) => {
            publish(HallEvent::Output {
                table: no,
                at: clock.millis_at(feed.link.started() + at),
                output: Output::Note {
                    note: ArbiterNote::Board { color, notice },
                },
            });
            return None;
        }
    };
    let input = board_input(&report.event);
    let arrived = clock.millis_at(feed.link.started() + report.at);
    publish(HallEvent::Link {
        table: no,
        color,
        event: report.event,
        health: report.health,
    });
    input.map(|(input, board_ms)| {
        let arrival = Arrival {
            at: Some(arrived),
            stamp: Stamp {
                board_ms,
                board_seq: report.seq,
                net: feed.net_board.zip(report.key).map(|(board, key)| NetStamp {
                    board,
                    epoch: key.epoch,
                    seq: key.seq,
                }),
                ..Stamp::default()
            },
        };
        (Input::Board { color, input }, arrival)
    })
}

pub(crate) async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(ms: u64) -> Option<Instant> {
        static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        Some(*BASE.get_or_init(Instant::now) + Duration::from_millis(ms))
    }

    #[test]
    fn the_earliest_arrival_goes_first_whatever_its_source() {
        assert_eq!(earliest([at(5), at(3)], at(9)), Some(Next::Board(1)));
        assert_eq!(earliest([at(3), at(5)], at(9)), Some(Next::Board(0)));
        assert_eq!(earliest([at(5), at(7)], at(4)), Some(Next::Command));
        assert_eq!(earliest([None, at(7)], at(8)), Some(Next::Board(1)));
        assert_eq!(earliest([at(7), None], at(6)), Some(Next::Command));
        assert_eq!(earliest([None, None], at(6)), Some(Next::Command));
        assert_eq!(earliest([None, at(2)], None), Some(Next::Board(1)));
        assert_eq!(earliest([None, None], None), None);
    }

    #[test]
    fn on_a_tie_white_goes_before_black_and_a_report_before_a_command() {
        assert_eq!(earliest([at(4), at(4)], at(4)), Some(Next::Board(0)));
        assert_eq!(earliest([None, at(4)], at(4)), Some(Next::Board(1)));
    }

    /// When a table waits for a board: only while something may still be on its way.
    #[test]
    fn a_board_is_waited_for_only_while_something_may_be_on_its_way() {
        let started = at(0).unwrap();
        let ms = Duration::from_millis;
        let heard_at = |through_ms: u64| Progress {
            through: Some(ms(through_ms)),
            ..Progress::default()
        };
        let now = started + ms(10_000);
        // Heard 100 ms ago (its heartbeat is every 200 ms): nothing is waited for.
        assert_eq!(lagging_through(heard_at(9_900), started, now), None);
        // Unheard for 500 ms: what it made after its last frame may be on its way.
        assert_eq!(
            lagging_through(heard_at(9_500), started, now),
            Some(started + ms(9_500))
        );
        // Its latest frame came late (a backlog): more follow, however recent it is.
        let behind = Progress {
            behind: true,
            ..heard_at(9_950)
        };
        assert_eq!(
            lagging_through(behind, started, now),
            Some(started + ms(9_950))
        );
        // Stopped cleanly, or its serial port closed: nothing is on its way.
        let stopped = Progress {
            stopped: true,
            ..heard_at(9_500)
        };
        assert_eq!(lagging_through(stopped, started, now), None);
        // Nothing heard yet, or unheard longer than the longest hold: not waited for.
        assert_eq!(lagging_through(Progress::default(), started, now), None);
        assert_eq!(lagging_through(heard_at(0), started, now), None);
    }

    /// A held command stays held until it is taken, and later ones wait behind it.
    #[tokio::test]
    async fn a_command_taken_in_to_compare_is_not_lost() {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut commands = Commands { rx, held: None };
        assert_eq!(commands.ready(), None);
        let first = at(1).map(|t| (Input::Tick, t));
        let second = at(2).map(|t| {
            (
                Input::Resign {
                    color: Color::Black,
                },
                t,
            )
        });
        for c in [first.clone(), second.clone()].into_iter().flatten() {
            tx.send(c).map_err(|_| "closed").unwrap();
        }
        assert_eq!(commands.ready(), at(1));
        assert_eq!(commands.ready(), at(1));
        assert_eq!(commands.next().await, first);
        assert_eq!(commands.ready(), at(2));
        assert_eq!(commands.next().await, second);
        drop(tx);
        assert_eq!(commands.next().await, None);
    }
}
