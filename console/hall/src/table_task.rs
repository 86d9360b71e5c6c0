//! One table's task: takes its inputs in order of arrival, journals each (a timer's row
//! written behind unless a player hears what it caused; inputs from outside before their
//! effects), applies it, publishes what it caused.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use kriegspiel_boardlink::{BoardLink, LinkConfig};
use kriegspiel_referee::shakmaty::{Bitboard, ByColor, Color};
use kriegspiel_referee::{Report, Verdict};
use kriegspiel_table::{render, ArbiterNote, Event, Input, Millis, Output, Table};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::arrival::{
    command_input, earliest, link, next_report, sleep_until, watermark, Arrival, BoardFeed,
    Commands, FeedLink, Next, Reports, HOLD_POLL,
};
use crate::clock::TableClock;
use crate::dgt_board::feed::DgtFeed;
use crate::event::{BoardSeen, HallEvent, TableView};
use crate::heartbeat::{wall_ms, EndsLive, Live};
use crate::journal::{EventRow, GameId, JournalError, Stamp};
use crate::network::Network;
use crate::resume::Prepared;
use crate::sim::{self};
use crate::spec::{BoardSource, TableNo, TableSpec};
use crate::writer::{Committed, JournalQueue};

pub(crate) fn open_source(
    source: &BoardSource,
    color: Color,
    clock: TableClock,
    network: Option<&Network>,
) -> Option<(FeedLink, Reports)> {
    let link = |(l, r)| (FeedLink::Link(l), Reports::Link(r));
    match source {
        // A round without a broker never starts such a table (checked at open).
        BoardSource::Network(id) => network.map(|n| link(n.attach(*id))),
        BoardSource::Serial(path) => {
            Some(link(BoardLink::spawn(path.clone(), LinkConfig::default())))
        }
        BoardSource::Dgt(port) => {
            let (feed, items) = DgtFeed::spawn(port.clone(), color);
            Some((FeedLink::Dgt(feed), Reports::Dgt(items)))
        }
        BoardSource::Simulated { script, board_id } => {
            let script = script.clone();
            let board_id = *board_id;
            Some(link(BoardLink::spawn_with(
                move || Ok(sim::connect(script.clone(), board_id, clock)),
                LinkConfig::default(),
            )))
        }
        BoardSource::Absent => None,
    }
}

/// The arbiter's view of a table now.
pub(crate) fn view(no: TableNo, table: &Table) -> TableView {
    TableView {
        table: no,
        at: table.now(),
        position: table.referee().position().clone(),
        paused: table.is_paused(),
        result: table.result(),
        clocks: table.clocks(),
        clocks_waiting: table.clocks_waiting(),
        boards: ByColor::new_with(|c| BoardSeen {
            occupancy: table.occupancy(c),
            in_sync: table.in_sync(c),
        }),
        touched: ByColor::new_with(|c| table.touched(c)),
        draw_offer: table.draw_offer(),
    }
}

/// What a table's task reads from and writes to, beside its game.
pub(crate) struct TableIo {
    pub(crate) journal: JournalQueue,
    pub(crate) events: broadcast::Sender<HallEvent>,
    pub(crate) inputs: mpsc::UnboundedReceiver<(Input, Instant)>,
    /// The hall's broker, for a table with networked boards.
    pub(crate) network: Option<Network>,
}

pub(crate) async fn run_table(
    p: Prepared,
    clock: TableClock,
    live: Live,
    said: Arc<AtomicI64>,
    io: TableIo,
) {
    let TableIo {
        journal,
        events,
        inputs,
        network,
    } = io;
    let _ends_live = EndsLive(live.clone());
    let feed = |source: &BoardSource, color| {
        let net_board = match source {
            BoardSource::Network(id) => Some(*id),
            _ => None,
        };
        open_source(source, color, clock, network.as_ref())
            .map(|l| BoardFeed::new(color, l, net_board))
    };
    let counted = p.downtime_counts();
    let mut feeds = [
        feed(&p.spec.white, Color::White),
        feed(&p.spec.black, Color::Black),
    ];
    let mut task = Task {
        no: p.no,
        game: p.game,
        ended: p.table.is_over(),
        table: p.table,
        seq: p.seq,
        next_scripted: p.next_scripted,
        clock,
        live,
        said,
        journal,
        events,
        behind: VecDeque::new(),
        captured: Vec::new(),
    };
    task.open(
        p.spec.name.clone(),
        p.resumed,
        (p.ignored, p.set_aside, p.follows),
        p.seats,
        p.heard,
        p.started,
        p.unsaid,
    );
    let mut commands = Commands {
        rx: inputs,
        held: None,
    };
    // Said at the time the table was last heard of: a networked board's events made while
    // the console was down come after it, at their own times.
    let mut pending = p.down_ms.map(|down_ms| {
        let arrival = Arrival {
            at: Some(p.resume_at),
            ..Arrival::default()
        };
        (Input::Restarted { down_ms, counted }, arrival)
    });
    loop {
        let input = match pending.take() {
            Some(i) => Some(i),
            None => match task.next_input(&p.spec, &mut feeds, &mut commands).await {
                Some(input) => input,
                // Every sender is gone: the hall has stopped.
                None => return,
            },
        };
        if let Some((input, stamp)) = input {
            if task.take(input, stamp).await.is_err() {
                return;
            }
            // A DGT board's reader learns which of its owner's men were captured.
            for (color, squares) in task.captured.drain(..) {
                for f in feeds.iter().flatten().filter(|f| f.color == color) {
                    if let FeedLink::Dgt(dgt) = &f.link {
                        dgt.captured(squares);
                    }
                }
            }
        }
    }
}

/// A running table with what it needs to journal, apply and publish its inputs.
struct Task {
    no: TableNo,
    game: GameId,
    table: Table,
    /// The journal's number of the table's last event.
    seq: i64,
    /// The first scripted input not yet journaled.
    next_scripted: usize,
    ended: bool,
    clock: TableClock,
    live: Live,
    said: Arc<AtomicI64>,
    journal: JournalQueue,
    events: broadcast::Sender<HallEvent>,
    /// Timer rows handed to the journal whose commit is not confirmed yet.
    behind: VecDeque<Committed>,
    /// Men captured by the last input, by the colour that lost them.
    captured: Vec<(Color, Bitboard)>,
}

impl Task {
    fn publish(&self, e: HallEvent) {
        // No subscriber is not an error: the journal has everything.
        let _ = self.events.send(e);
    }

    fn output(&self, at: Millis, output: Output) {
        self.publish(HallEvent::Output {
            table: self.no,
            at,
            output,
        });
    }

    /// Says the table is open: its seats, a new game's start or, when resumed, what must be
    /// said again and where the clocks stand.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &self,
        name: String,
        resumed: usize,
        (ignored, set_aside, follows): (Vec<String>, Option<GameId>, Option<GameId>),
        seats: ByColor<String>,
        heard: ByColor<Option<Output>>,
        started: Vec<Output>,
        unsaid: Vec<Output>,
    ) {
        let table = &self.table;
        self.publish(HallEvent::Opened {
            table: self.no,
            name,
            game: self.game,
            resumed_events: resumed,
            wording: table.wording(),
            lang: table.config().lang,
            seats,
            heard,
            ignored,
            set_aside,
            follows,
        });
        if resumed == 0 {
            for output in started {
                self.output(0, output);
            }
        }
        self.publish(HallEvent::View(Box::new(view(self.no, table))));
        for output in unsaid {
            self.output(
                table.now(),
                Output::Repeated {
                    output: Box::new(output),
                },
            );
        }
        self.said.store(self.seq, Ordering::Release);
        // A resumed game's clocks are said with the restart's note, which comes next: as
        // they stand at the time it was last heard of, not as its last move left them.
    }

    /// The next input, timed by its arrival: what is already here first, the earliest
    /// arrival first (a report before a command of the same instant), so that the table
    /// sees the boards' events and the commands in the order they came and runs any timer
    /// that fell due meanwhile before them, however long the journal kept it waiting. `None`
    /// when the hall has stopped; `Some(None)` when what came is no input (a link report
    /// that means none).
    ///
    /// A board that lags (a networked board's frames coming late after an outage, a serial
    /// board's bytes not yet read after the console was held up) holds back whatever is
    /// later than what it has delivered, timers included, for at most
    /// [`MAX_HOLD`](crate::arrival::MAX_HOLD): the table judges as if there had been no
    /// outage.
    async fn next_input(
        &mut self,
        spec: &TableSpec,
        feeds: &mut [Option<BoardFeed>; 2],
        commands: &mut Commands,
    ) -> Option<Option<(Input, Arrival)>> {
        let (no, clock) = (self.no, self.clock);
        let choice = ByColor::new_with(|c| self.table.promotion_choice(c));
        let publish = |e: HallEvent| self.publish(e);
        let boards = feeds
            .each_mut()
            .map(|f| f.as_mut().and_then(BoardFeed::ready));
        let command = commands.ready();
        // News for the arbiter is said at once, whatever lags: it is no input to the game.
        // Behind a report held back for the other board's late frames it is taken out of
        // turn; else it keeps its place in its board's stream.
        let now = Instant::now();
        let waiting: [bool; 2] = std::array::from_fn(|i| {
            boards[i]
                .zip(watermark(feeds, now, Some(i)))
                .is_some_and(|(t, w)| t > w)
        });
        for (feed, waiting) in feeds.iter_mut().zip(waiting) {
            let Some(feed) = feed else { continue };
            if let Some(report) = feed.take_news(waiting) {
                let report = Some(report);
                return Some(link(
                    no,
                    feed,
                    report,
                    clock,
                    (&publish, choice[feed.color]),
                ));
            }
        }
        let held_back = |except: Option<usize>, t: Option<Instant>| {
            t.zip(watermark(feeds, now, except))
                .is_some_and(|(t, w)| t > w)
        };
        match earliest(boards, command) {
            Some(Next::Board(i)) if !held_back(Some(i), boards[i]) => {
                return Some(feeds[i].as_mut().and_then(|feed| {
                    let report = feed.held.take();
                    link(no, feed, report, clock, (&publish, choice[feed.color]))
                }));
            }
            Some(Next::Command) if !held_back(None, command) => {
                return commands.next().await.map(|c| Some(command_input(c, clock)))
            }
            _ => {}
        }
        let lag = watermark(feeds, now, None);
        let scripted_at = spec.scripted.get(self.next_scripted).map(|(at, _)| *at);
        let deadline = match (self.table.next_deadline(), scripted_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let due_ms = deadline;
        let mut deadline = deadline.map(|ms| clock.instant_at(ms));
        // While a board lags, a timer waits for it too; its progress is looked at again soon.
        let timer_held = lag.is_some_and(|w| deadline.is_some_and(|d| d > w));
        if lag.is_some() {
            let again = now + HOLD_POLL;
            deadline = Some(if timer_held {
                again
            } else {
                deadline.map_or(again, |d| d.min(again))
            });
        }
        // A report held back stays held: only a board with none held is listened to.
        let listen = feeds
            .each_ref()
            .map(|f| f.as_ref().is_some_and(|f| f.held.is_none()));
        let [white, black] = feeds;
        tokio::select! {
            biased;
            // While a board lags, what comes is held, to be taken in time order.
            r = next_report(white), if listen[0] => Some(match (lag, white.as_mut()) {
                (Some(_), Some(f)) => { f.held = r; None }
                (_, f) => f.and_then(|f| link(no, f, r, clock, (&publish, choice[f.color]))),
            }),
            r = next_report(black), if listen[1] => Some(match (lag, black.as_mut()) {
                (Some(_), Some(f)) => { f.held = r; None }
                (_, f) => f.and_then(|f| link(no, f, r, clock, (&publish, choice[f.color]))),
            }),
            c = commands.next(), if lag.is_none() => c.map(|c| Some(command_input(c, clock))),
            () = sleep_until(deadline), if timer_held || lag.is_some() && deadline.is_some_and(|d| d >= now + HOLD_POLL) => Some(None),
            () = sleep_until(deadline) => {
                match spec.scripted.get(self.next_scripted).filter(|(at, _)| *at <= clock.now()) {
                    Some((_, input)) => {
                        self.next_scripted += 1;
                        Some(Some((input.clone(), Arrival::default())))
                    }
                    // A timer is taken at its time, which is past when it waited for a
                    // lagging board (earlier, now).
                    None => {
                        let arrival = Arrival {
                            at: due_ms.map(|d| d.min(clock.now())),
                            ..Arrival::default()
                        };
                        Some(Some((Input::Tick, arrival)))
                    }
                }
            }
        }
    }

    /// Journals an input, applies it and publishes what it caused; `Err` once the journal
    /// has failed (the table has said so and stops).
    async fn take(&mut self, input: Input, arrival: Arrival) -> Result<(), ()> {
        let at = arrival.at.unwrap_or_else(|| self.clock.now());
        let event = Event::new(at.max(self.table.now()), input);
        // Only a board's own report (with its clock): a script's inputs are all journaled,
        // since a resume counts them by their rows.
        if arrival.stamp.board_ms.is_some() && self.table.changes_nothing(&event) {
            // A board's periodic snapshot of what the table knows: most of an evening's
            // board traffic. Left out of the journal and of the table alike, so that a
            // replay, which never sees it, rebuilds this very table; only how far its board
            // was applied is kept, for compaction and a restart.
            if let Some(net) = arrival.stamp.net {
                self.journal.applied(net);
            }
            return Ok(());
        }
        let stamp = Stamp {
            wall_ms: wall_ms(),
            ..arrival.stamp
        };
        let row = match EventRow::new(self.game, self.seq + 1, &event, stamp) {
            Ok(row) => row,
            Err(e) => {
                // An input the journal cannot keep is refused, never applied: the table plays on.
                let note = ArbiterNote::Refused {
                    action: "input",
                    reason: e.to_string(),
                };
                self.output(self.table.now(), Output::Note { note });
                return Ok(());
            }
        };
        self.seq += 1;
        let at = event.at;
        let official = ByColor::new_with(|c| self.table.official(c));
        let (written, outputs) = if matches!(event.input, Input::Tick) {
            // A timer follows from events on disk already: what it causes is published
            // while its row is committed (a crash losing it loses nothing a replay cannot
            // derive). Unless a player hears it: a verdict said and then lost in a crash
            // would be judged again after the restart and said twice, unmarked.
            let outputs = self.table.apply(event);
            let heard = outputs.iter().any(|o| render::hearer(o).is_some());
            let written = if heard || self.behind.len() >= MAX_BEHIND {
                self.journal.write(row).await
            } else {
                self.behind.push_back(self.journal.write_behind(row));
                Ok(())
            };
            (written, outputs)
        } else {
            // What came from outside is on disk before anything it causes is said.
            match self.journal.write(row).await {
                Ok(()) => (Ok(()), self.table.apply(event)),
                Err(e) => (Err(e), Vec::new()),
            }
        };
        if let Err(e) = written.and_then(|()| confirmed(&mut self.behind)) {
            self.publish(HallEvent::Failed {
                table: self.no,
                error: e.to_string(),
            });
            return Err(());
        }
        for output in &outputs {
            if let Output::Verdict {
                color,
                verdict:
                    Verdict::Moved(Report {
                        capture: Some(_), ..
                    }),
                ..
            } = output
            {
                let lost = official[!*color] & !self.table.official(!*color);
                self.captured.push((!*color, lost));
            }
        }
        for output in outputs {
            self.output(at, output);
        }
        self.publish(HallEvent::View(Box::new(view(self.no, &self.table))));
        self.said.store(self.seq, Ordering::Release);
        if self.table.is_over() && !self.ended {
            self.ended = true;
            self.live.end();
            self.publish(HallEvent::Ended {
                table: self.no,
                result: self.table.result().flatten(),
                position: Box::new(self.table.referee().position().clone()),
            });
        }
        Ok(())
    }
}

/// Timer rows a table may have on their way to the disk at once; beyond, it waits.
pub(crate) const MAX_BEHIND: usize = 64;

/// The outcomes of the timer rows committed since the last look; the first failure.
pub(crate) fn confirmed(behind: &mut VecDeque<Committed>) -> Result<(), JournalError> {
    while let Some(first) = behind.front_mut() {
        match first.outcome() {
            None => break,
            Some(outcome) => {
                behind.pop_front();
                outcome?;
            }
        }
    }
    Ok(())
}
