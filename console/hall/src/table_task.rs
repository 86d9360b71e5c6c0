//! One table's task: takes its inputs in order of arrival, journals each (timers written
//! behind, inputs from outside before their effects), applies it, publishes what it caused.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use kriegspiel_boardlink::{BoardLink, BoardLinkHandle, LinkConfig, Report};
use kriegspiel_referee::shakmaty::{ByColor, Color};
use kriegspiel_table::{ArbiterNote, Event, Input, Output, Table};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::arrival::{
    command_input, earliest, link, next_report, sleep_until, BoardFeed, Commands, Next, Stamp,
};
use crate::clock::TableClock;
use crate::event::{BoardSeen, HallEvent, TableView};
use crate::heartbeat::{wall_ms, EndsLive, Live};
use crate::journal::{EventRow, JournalError};
use crate::resume::Prepared;
use crate::sim::{self};
use crate::spec::{BoardSource, TableNo};
use crate::writer::{Committed, JournalQueue};

pub(crate) fn open_source(
    source: &BoardSource,
    clock: TableClock,
) -> Option<(BoardLinkHandle, mpsc::Receiver<Report>)> {
    match source {
        BoardSource::Serial(path) => Some(BoardLink::spawn(path.clone(), LinkConfig::default())),
        BoardSource::Simulated { script, board_id } => {
            let script = script.clone();
            let board_id = *board_id;
            Some(BoardLink::spawn_with(
                move || Ok(sim::connect(script.clone(), board_id, clock)),
                LinkConfig::default(),
            ))
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
    }
}

pub(crate) async fn run_table(
    p: Prepared,
    clock: TableClock,
    live: Live,
    said: Arc<AtomicI64>,
    journal: JournalQueue,
    events: broadcast::Sender<HallEvent>,
    inputs: mpsc::UnboundedReceiver<(Input, Instant)>,
) {
    let mut commands = Commands {
        rx: inputs,
        held: None,
    };
    let Prepared {
        no,
        spec,
        game,
        mut table,
        started,
        mut seq,
        resumed,
        ignored,
        seats,
        unsaid,
        heard,
        resume_at: _,
        down_ms,
        mut next_scripted,
    } = p;
    let _ends_live = EndsLive(live.clone());
    let publish = |e: HallEvent| {
        // No subscriber is not an error: the journal has everything.
        let _ = events.send(e);
    };
    publish(HallEvent::Opened {
        table: no,
        name: spec.name.clone(),
        game,
        resumed_events: resumed,
        wording: table.wording(),
        lang: table.config().lang,
        seats,
        heard,
        ignored,
    });
    if resumed == 0 {
        for output in started {
            publish(HallEvent::Output {
                table: no,
                at: 0,
                output,
            });
        }
    }
    let mut pending: Option<(Input, Stamp)> =
        down_ms.map(|down_ms| (Input::Restarted { down_ms }, Stamp::default()));
    publish(HallEvent::View(Box::new(view(no, &table))));
    for output in unsaid {
        publish(HallEvent::Output {
            table: no,
            at: table.now(),
            output: Output::Repeated {
                output: Box::new(output),
            },
        });
    }
    said.store(seq, Ordering::Release);
    if resumed > 0 {
        // Where the clocks stand, as a new game says it at its start.
        if let Some((remaining, running)) = table.clocks() {
            publish(HallEvent::Output {
                table: no,
                at: table.now(),
                output: Output::Clock { remaining, running },
            });
        }
    }
    let mut feeds = [
        open_source(&spec.white, clock).map(|l| BoardFeed::new(Color::White, l)),
        open_source(&spec.black, clock).map(|l| BoardFeed::new(Color::Black, l)),
    ];
    let mut ended = table.is_over();
    let mut behind = VecDeque::new();
    loop {
        // What is already here goes first, the earliest arrival first (a report before a
        // command of the same instant), each timed by its arrival: the table sees the boards'
        // events and the commands in the order they came, and runs any timer that fell due
        // meanwhile before them, however long the journal kept it waiting.
        let boards = feeds
            .each_mut()
            .map(|f| f.as_mut().and_then(BoardFeed::ready));
        let next = earliest(boards, commands.ready());
        let input = match (pending.take(), next) {
            (Some(i), _) => Some(i),
            (None, Some(Next::Board(i))) => match feeds[i].as_mut() {
                Some(feed) => {
                    let report = feed.held.take();
                    link(no, feed, report, clock, &publish)
                }
                None => None,
            },
            (None, Some(Next::Command)) => commands.next().await.map(|c| command_input(c, clock)),
            (None, None) => {
                let scripted_at = spec.scripted.get(next_scripted).map(|(at, _)| *at);
                let deadline = match (table.next_deadline(), scripted_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let deadline = deadline.map(|ms| clock.instant_at(ms));
                let [white, black] = &mut feeds;
                tokio::select! {
                    biased;
                    r = next_report(white) => white.as_ref().and_then(|f| link(no, f, r, clock, &publish)),
                    r = next_report(black) => black.as_ref().and_then(|f| link(no, f, r, clock, &publish)),
                    c = commands.next() => match c {
                        Some(c) => Some(command_input(c, clock)),
                        None => return,
                    },
                    () = sleep_until(deadline) => {
                        match spec.scripted.get(next_scripted).filter(|(at, _)| *at <= clock.now()) {
                            Some((_, input)) => {
                                next_scripted += 1;
                                Some((input.clone(), Stamp::default()))
                            }
                            None => Some((Input::Tick, Stamp::default())),
                        }
                    }
                }
            }
        };
        let Some((input, stamp)) = input else {
            continue;
        };
        let at = stamp.arrived.unwrap_or_else(|| clock.now());
        let event = Event::new(at.max(table.now()), input);
        let row = match EventRow::new(game, seq + 1, &event, wall_ms(), stamp.board_ms, stamp.seq) {
            Ok(row) => row,
            Err(e) => {
                // An input the journal cannot keep is refused, never applied: the table plays on.
                publish(HallEvent::Output {
                    table: no,
                    at: table.now(),
                    output: Output::Note {
                        note: ArbiterNote::Refused {
                            action: "input",
                            reason: e.to_string(),
                        },
                    },
                });
                continue;
            }
        };
        seq += 1;
        // A timer follows from events on disk already: what it causes is published while its
        // row is committed (a crash losing it loses nothing a replay cannot derive). What
        // came from outside is on disk before anything it causes is said.
        let written = if matches!(event.input, Input::Tick) && behind.len() < MAX_BEHIND {
            behind.push_back(journal.write_behind(row));
            Ok(())
        } else {
            journal.write(row).await
        };
        if let Err(e) = written.and_then(|()| confirmed(&mut behind)) {
            publish(HallEvent::Failed {
                table: no,
                error: e.to_string(),
            });
            return;
        }
        let at = event.at;
        for output in table.apply(event) {
            publish(HallEvent::Output {
                table: no,
                at,
                output,
            });
        }
        publish(HallEvent::View(Box::new(view(no, &table))));
        said.store(seq, Ordering::Release);
        if table.is_over() && !ended {
            ended = true;
            live.end();
            publish(HallEvent::Ended {
                table: no,
                result: table.result().flatten(),
                position: Box::new(table.referee().position().clone()),
            });
        }
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
