use super::*;
use kriegspiel_link::{parse_square, FaultCode};

const START: u64 = 0x0000_0000_0000_FFFF; // white pieces on ranks 1-2

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn sq(name: &str) -> SquareIndex {
    parse_square(name).unwrap()
}

/// A board emulator for the tests: numbers its frames like the real board.
pub(crate) struct Board {
    seq: SeqCounter,
}

impl Board {
    pub(crate) fn new() -> Self {
        Board {
            seq: SeqCounter::new(),
        }
    }
    pub(crate) fn frame(&mut self, body: BoardMsg) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME];
        let n = encode(
            &Frame {
                seq: self.seq.next(),
                body,
            },
            &mut buf,
        )
        .unwrap();
        buf[..n].to_vec()
    }
    pub(crate) fn hello(&mut self) -> Vec<u8> {
        self.frame(BoardMsg::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: [1, 2, 3],
            board_id: 7,
        })
    }
}

fn sent(step: &Step) -> Vec<ConsoleMsg> {
    let mut decoder = Decoder::<ConsoleMsg>::new();
    let mut out = Vec::new();
    decoder.feed(&step.outgoing, |r| out.push(r.unwrap().body));
    out
}

/// Ticks every 50 ms after `from`, through `to`, as the link does.
fn tick_through(core: &mut LinkCore, from: u64, to: u64) {
    for t in (from + 50..=to).step_by(50) {
        core.tick(ms(t));
    }
}

fn events(step: &Step) -> Vec<LinkEvent> {
    step.reports.iter().map(|r| r.event.clone()).collect()
}

/// What the console sends on every (re)opened port.
const GREETING: [ConsoleMsg; 2] = [
    ConsoleMsg::Hello {
        protocol: PROTOCOL_VERSION,
    },
    ConsoleMsg::RequestSnapshot,
];

/// A core that is connected and synced on `START`.
fn synced() -> (LinkCore, Board) {
    let mut core = LinkCore::new(Timing::default());
    let mut board = Board::new();
    core.opened(ms(0));
    let step = core.take_step();
    assert_eq!(sent(&step), GREETING);
    core.received(&board.hello(), ms(10));
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: START,
            board_ms: 5,
        }),
        ms(11),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [
            LinkEvent::Connected {
                protocol: PROTOCOL_VERSION,
                firmware: [1, 2, 3],
                board_id: 7
            },
            LinkEvent::Resync {
                occupancy: START,
                board_ms: 5,
                reason: ResyncReason::Connected
            },
        ]
    );
    assert_eq!(core.occupancy(), Some(START));
    (core, board)
}

#[test]
fn lifts_and_places_are_delivered_in_order() {
    let (mut core, mut board) = synced();
    let mut bytes = board.frame(BoardMsg::Lift {
        square: sq("e2"),
        board_ms: 100,
    });
    bytes.extend(board.frame(BoardMsg::Place {
        square: sq("e4"),
        board_ms: 150,
    }));
    bytes.extend(board.frame(BoardMsg::Heartbeat { board_ms: 400 }));
    // Split anywhere: the decoder reassembles; half a frame is no frame taken.
    assert!(!core.received(&bytes[..5], ms(20)));
    assert!(core.received(&bytes[5..], ms(21)));
    let expected = START & !(1 << 12) | (1 << 28);
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: expected,
            board_ms: 500,
        }),
        ms(22),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [
            LinkEvent::Lift {
                square: sq("e2"),
                board_ms: 100
            },
            LinkEvent::Place {
                square: sq("e4"),
                board_ms: 150
            },
            LinkEvent::Snapshot {
                occupancy: expected,
                board_ms: 500
            },
        ]
    );
    assert!(step.outgoing.is_empty());
    let health = core.health();
    assert_eq!(health.frames, 6);
    assert_eq!(
        (
            health.gaps,
            health.duplicates,
            health.resyncs,
            health.bad_frames()
        ),
        (0, 0, 1, 0)
    );
    assert_eq!(health.last_heard_ms, Some(22));
}

#[test]
fn duplicates_are_dropped_and_counted() {
    let (mut core, mut board) = synced();
    let lift = board.frame(BoardMsg::Lift {
        square: sq("d2"),
        board_ms: 100,
    });
    assert!(core.received(&lift, ms(20)), "a new frame is taken");
    // A repeat tells nothing of how far the board's stream has come.
    assert!(!core.received(&lift, ms(21)));
    assert!(!core.received(&lift, ms(22)));
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Lift {
            square: sq("d2"),
            board_ms: 100
        }]
    );
    assert_eq!(core.health().duplicates, 2);
    assert_eq!(core.health().gaps, 0);
}

#[test]
fn a_gap_requests_a_snapshot_and_resyncs() {
    let (mut core, mut board) = synced();
    let _lost = board.frame(BoardMsg::Lift {
        square: sq("e2"),
        board_ms: 100,
    });
    let _lost_too = board.frame(BoardMsg::Place {
        square: sq("e4"),
        board_ms: 110,
    });
    core.received(
        &board.frame(BoardMsg::Lift {
            square: sq("g1"),
            board_ms: 120,
        }),
        ms(30),
    );
    let step = core.take_step();
    assert_eq!(events(&step), []);
    assert_eq!(sent(&step), [ConsoleMsg::RequestSnapshot]);
    assert_eq!(core.occupancy(), None);
    // More events before the snapshot arrives are covered by it.
    core.received(
        &board.frame(BoardMsg::Place {
            square: sq("f3"),
            board_ms: 130,
        }),
        ms(31),
    );
    let truth = START & !(1 << 12) & !(1 << 6) | (1 << 28) | (1 << 21);
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: truth,
            board_ms: 140,
        }),
        ms(32),
    );
    core.received(
        &board.frame(BoardMsg::Lift {
            square: sq("f3"),
            board_ms: 150,
        }),
        ms(33),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [
            LinkEvent::Resync {
                occupancy: truth,
                board_ms: 140,
                reason: ResyncReason::Gap { missed: 2 }
            },
            LinkEvent::Lift {
                square: sq("f3"),
                board_ms: 150
            },
        ]
    );
    let health = core.health();
    assert_eq!(
        (
            health.gaps,
            health.missed_frames,
            health.skipped_events,
            health.resyncs
        ),
        (1, 2, 2, 2)
    );
}

#[test]
fn a_snapshot_right_after_a_gap_repairs_it_without_asking() {
    let (mut core, mut board) = synced();
    let _lost = board.frame(BoardMsg::Lift {
        square: sq("e2"),
        board_ms: 100,
    });
    let truth = START & !(1 << 12);
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: truth,
            board_ms: 500,
        }),
        ms(30),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Resync {
            occupancy: truth,
            board_ms: 500,
            reason: ResyncReason::Gap { missed: 1 }
        }]
    );
    assert_eq!(sent(&step), []);
}

#[test]
fn a_disagreeing_snapshot_resyncs_and_asks_again() {
    let (mut core, mut board) = synced();
    let truth = START ^ (1 << 40);
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: truth,
            board_ms: 500,
        }),
        ms(30),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Resync {
            occupancy: truth,
            board_ms: 500,
            reason: ResyncReason::Mismatch {
                reconstructed: START
            }
        }]
    );
    assert_eq!(sent(&step), [ConsoleMsg::RequestSnapshot]);
    assert_eq!(core.occupancy(), Some(truth));
    assert_eq!(core.health().mismatches, 1);
}

#[test]
fn an_impossible_lift_is_not_delivered() {
    let (mut core, mut board) = synced();
    // e4 is empty: a lift there contradicts the reconstruction.
    core.received(
        &board.frame(BoardMsg::Lift {
            square: sq("e4"),
            board_ms: 100,
        }),
        ms(30),
    );
    let step = core.take_step();
    assert_eq!(events(&step), []);
    assert_eq!(sent(&step), [ConsoleMsg::RequestSnapshot]);
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: START,
            board_ms: 200,
        }),
        ms(31),
    );
    // An out-of-range square cannot be applied either.
    core.received(
        &board.frame(BoardMsg::Place {
            square: 64,
            board_ms: 300,
        }),
        ms(32),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Resync {
            occupancy: START,
            board_ms: 200,
            reason: ResyncReason::Mismatch {
                reconstructed: START
            }
        }]
    );
    assert_eq!(core.health().mismatches, 2);
    assert_eq!(core.health().skipped_events, 2);
}

#[test]
fn bad_frames_are_counted_by_kind() {
    let (mut core, mut board) = synced();
    let mut damaged = board.frame(BoardMsg::Heartbeat { board_ms: 1 });
    damaged[2] ^= 0x40;
    // Damage and noise are no frame taken: the stream has come no further.
    assert!(!core.received(&damaged, ms(30)));
    assert!(!core.received(&[0x09, 1, 2, 0], ms(31)));
    assert!(!core.received(&[0x55; 100], ms(32)));
    assert!(!core.received(&[0], ms(32)));
    let step = core.take_step();
    assert_eq!(events(&step), []);
    let health = core.health();
    assert_eq!(
        (health.crc_errors, health.cobs_errors, health.decode_errors),
        (1, 2, 0)
    );
    // Bad frames are no sign of life.
    assert_eq!(health.last_heard_ms, Some(11));
}

#[test]
fn silence_means_unplugged_after_exactly_the_timeout() {
    let (mut core, mut board) = synced();
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 400 }),
        ms(1000),
    );
    tick_through(&mut core, 1000, 2450);
    core.tick(ms(2499));
    assert_eq!(core.take_step(), Step::default());
    core.tick(ms(2500));
    let step = core.take_step();
    assert!(step.close);
    assert_eq!(
        events(&step),
        [LinkEvent::Disconnected {
            reason: DisconnectReason::Silence {
                timeout: Duration::from_millis(1500)
            }
        }]
    );
    assert!(!core.is_open());
    // Closed: further input is ignored until reopened.
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 900 }),
        ms(3100),
    );
    assert_eq!(core.health().disconnects, 1);
    assert_eq!(core.health().frames, 3);
}

/// The console itself stopped for 2 s (starved of the processor) while the board went on
/// speaking: its first tick on waking, before the bytes of meanwhile are read, does not
/// call the board silent.
#[test]
fn a_console_held_up_does_not_call_its_board_silent() {
    let (mut core, mut board) = synced();
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 400 }),
        ms(1000),
    );
    tick_through(&mut core, 1000, 1100);
    core.tick(ms(3100));
    core.tick(ms(3150));
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 2_500 }),
        ms(3160),
    );
    assert!(core.is_open());
    assert_eq!(core.take_step(), Step::default());
    // Then unheard for 1.5 s of the link's time: gone.
    tick_through(&mut core, 3150, 4700);
    assert!(core.take_step().close);
}

#[test]
fn reconnect_greets_again_and_counts_the_frames_lost_meanwhile() {
    let (mut core, mut board) = synced();
    core.port_lost(
        DisconnectReason::Io {
            error: "gone".into(),
        },
        ms(400),
    );
    let step = core.take_step();
    assert!(step.close);
    for n in 0..3 {
        let _lost = board.frame(BoardMsg::Heartbeat { board_ms: n });
    }
    core.opened(ms(500));
    let step = core.take_step();
    assert_eq!(sent(&step), GREETING);
    core.received(&board.hello(), ms(510));
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: 0,
            board_ms: 600,
        }),
        ms(511),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [
            LinkEvent::Connected {
                protocol: PROTOCOL_VERSION,
                firmware: [1, 2, 3],
                board_id: 7
            },
            LinkEvent::Resync {
                occupancy: 0,
                board_ms: 600,
                reason: ResyncReason::Connected
            },
        ]
    );
    let health = core.health();
    assert_eq!(
        (health.disconnects, health.reconnects, health.missed_frames),
        (1, 1, 3)
    );
}

#[test]
fn hello_is_repeated_until_the_board_answers() {
    let mut core = LinkCore::new(Timing::default());
    core.opened(ms(0));
    core.take_step();
    core.tick(ms(499));
    assert_eq!(sent(&core.take_step()), []);
    core.tick(ms(500));
    assert_eq!(sent(&core.take_step()), GREETING);
    // Events before the Hello are not delivered.
    let mut board = Board::new();
    core.received(
        &board.frame(BoardMsg::Lift {
            square: 3,
            board_ms: 1,
        }),
        ms(600),
    );
    assert_eq!(events(&core.take_step()), []);
}

#[test]
fn a_missing_snapshot_is_requested_again() {
    let mut core = LinkCore::new(Timing::default());
    let mut board = Board::new();
    core.opened(ms(0));
    core.received(&board.hello(), ms(100));
    core.take_step();
    core.tick(ms(599));
    assert_eq!(sent(&core.take_step()), []);
    core.tick(ms(600));
    assert_eq!(sent(&core.take_step()), [ConsoleMsg::RequestSnapshot]);
}

#[test]
fn a_version_mismatch_is_refused_clearly() {
    let mut core = LinkCore::new(Timing::default());
    let mut board = Board::new();
    core.opened(ms(0));
    core.take_step();
    let hello = BoardMsg::Hello {
        protocol: PROTOCOL_VERSION + 1,
        firmware: [9, 0, 0],
        board_id: 1,
    };
    core.received(&board.frame(hello), ms(10));
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: START,
            board_ms: 1,
        }),
        ms(11),
    );
    core.received(
        &board.frame(BoardMsg::Lift {
            square: 8,
            board_ms: 2,
        }),
        ms(12),
    );
    core.received(&board.frame(hello), ms(13));
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::VersionMismatch {
            local: PROTOCOL_VERSION,
            remote: PROTOCOL_VERSION + 1
        }]
    );
    assert_eq!(core.occupancy(), None);
    // Refused boards are not nagged with retries.
    core.tick(ms(1000));
    assert_eq!(core.take_step(), Step::default());
}

#[test]
fn a_restarted_board_is_resynced() {
    let (mut core, mut board) = synced();
    for n in 0..10 {
        core.received(&board.frame(BoardMsg::Heartbeat { board_ms: n }), ms(20));
    }
    let mut rebooted = Board::new();
    core.received(
        &rebooted.frame(BoardMsg::Lift {
            square: sq("a1"),
            board_ms: 3,
        }),
        ms(30),
    );
    let step = core.take_step();
    assert_eq!(events(&step), []);
    assert_eq!(sent(&step), [ConsoleMsg::RequestSnapshot]);
    core.received(
        &rebooted.frame(BoardMsg::Snapshot {
            occupancy: START & !1,
            board_ms: 4,
        }),
        ms(31),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Resync {
            occupancy: START & !1,
            board_ms: 4,
            reason: ResyncReason::SenderRestart
        }]
    );
}

#[test]
fn board_faults_are_reported_and_resynced() {
    let (mut core, mut board) = synced();
    core.received(
        &board.frame(BoardMsg::Fault {
            code: FaultCode::Overflow,
            board_ms: 9,
        }),
        ms(20),
    );
    let step = core.take_step();
    assert_eq!(
        events(&step),
        [LinkEvent::Fault {
            code: FaultCode::Overflow,
            board_ms: 9
        }]
    );
    assert_eq!(sent(&step), [ConsoleMsg::RequestSnapshot]);
    assert_eq!(core.health().board_faults, 1);
}

#[test]
fn open_failures_are_reported_once_per_error() {
    let mut core = LinkCore::new(Timing::default());
    core.open_failed("cannot open /dev/x: No such file".into(), ms(0));
    core.open_failed("cannot open /dev/x: No such file".into(), ms(0));
    core.open_failed("cannot open /dev/x: Permission denied".into(), ms(0));
    let step = core.take_step();
    assert_eq!(step.reports.len(), 2);
    core.opened(ms(0));
    core.port_lost(DisconnectReason::Closed, ms(0));
    core.open_failed("cannot open /dev/x: No such file".into(), ms(0));
    assert_eq!(core.take_step().reports.len(), 2);
}

#[test]
fn a_board_that_never_spoke_is_greeted_again_not_declared_gone() {
    let mut core = LinkCore::new(Timing::default());
    core.opened(ms(0));
    assert_eq!(sent(&core.take_step()), GREETING);
    // Until 10 s, when that no board answers is said (a_port_where_no_board_answers_...).
    for t in (50..10_000).step_by(50) {
        core.tick(ms(t));
        let step = core.take_step();
        assert!(!step.close, "declared gone at {t} ms");
        assert!(events(&step).is_empty(), "{:?} at {t} ms", events(&step));
        if t % 500 == 0 {
            assert_eq!(sent(&step), GREETING, "Hello again at {t} ms");
        }
    }
    assert!(core.is_open());
    // Then it speaks: connected as usual.
    let mut board = Board::new();
    core.received(&board.hello(), ms(10_010));
    assert!(events(&core.take_step())
        .iter()
        .any(|e| matches!(e, LinkEvent::Connected { .. })));
}

/// A report carries when its frame was made (the board's time on the link's clock: the
/// snapshot made at board time 5 came 6 ms later, and so does everything after it at best),
/// or the tick that found it.
#[test]
fn every_report_carries_when_its_board_made_it_or_its_tick_came() {
    let (mut core, mut board) = synced();
    let lift = board.frame(BoardMsg::Lift {
        square: sq("g1"),
        board_ms: 100,
    });
    let place = board.frame(BoardMsg::Place {
        square: sq("f3"),
        board_ms: 160,
    });
    // The place's frame is split over two reads: it arrived with its last byte.
    core.received(&lift, ms(120));
    core.received(&place[..3], ms(170));
    core.received(&place[3..], ms(175));
    tick_through(&mut core, 150, 1700);
    let step = core.take_step();
    let at: Vec<(LinkEvent, Duration)> = step
        .reports
        .iter()
        .map(|r| (r.event.clone(), r.at))
        .collect();
    assert_eq!(
        at,
        [
            (
                LinkEvent::Lift {
                    square: sq("g1"),
                    board_ms: 100
                },
                ms(106)
            ),
            (
                LinkEvent::Place {
                    square: sq("f3"),
                    board_ms: 160
                },
                ms(166)
            ),
            (
                LinkEvent::Disconnected {
                    reason: DisconnectReason::Silence {
                        timeout: Duration::from_millis(1500)
                    }
                },
                ms(1700)
            ),
        ]
    );
    core.open_failed("cannot open /dev/x: No such file".into(), ms(5250));
    assert_eq!(core.take_step().reports[0].at, ms(5250));
}

/// A console starved of the processor for a second reads a second of play at once: the
/// reports keep the spacing the board gave them, so a table does not see a try, its
/// release and the next try in one instant.
#[test]
fn play_read_late_keeps_the_boards_spacing() {
    let (mut core, mut board) = synced();
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 1_000 }),
        ms(1_006),
    );
    let mut late = Vec::new();
    for (square, place, board_ms) in [
        ("g1", false, 2_000),
        ("f3", true, 2_100),
        ("e2", false, 2_500),
    ] {
        let square = sq(square);
        late.extend(board.frame(if place {
            BoardMsg::Place { square, board_ms }
        } else {
            BoardMsg::Lift { square, board_ms }
        }));
    }
    core.take_step();
    core.received(&late, ms(3_500));
    let at: Vec<Duration> = core.take_step().reports.iter().map(|r| r.at).collect();
    // 6 ms on the way, as the heartbeat, and 40 ms of a slow clock's drift allowed since.
    assert_eq!(at, [ms(2_046), ms(2_146), ms(2_546)]);
    assert_eq!(core.made_through(), Some(ms(2_546)));
}

/// A board that restarted counts from zero again: its frames are timed by their arrival,
/// not seconds early by the old board's clock.
#[test]
fn a_restarted_board_is_timed_by_its_new_clock() {
    let (mut core, mut board) = synced();
    core.received(
        &board.frame(BoardMsg::Heartbeat { board_ms: 5_000 }),
        ms(5_006),
    );
    core.take_step();
    // Restarted 200 ms later, on the same port; it says hello and lifts a man at once.
    let mut board = Board::new();
    core.received(&board.hello(), ms(5_300));
    core.received(
        &board.frame(BoardMsg::Snapshot {
            occupancy: START,
            board_ms: 250,
        }),
        ms(5_302),
    );
    core.received(
        &board.frame(BoardMsg::Lift {
            square: sq("g1"),
            board_ms: 300,
        }),
        ms(5_355),
    );
    let step = core.take_step();
    let lift = step
        .reports
        .iter()
        .find(|r| matches!(r.event, LinkEvent::Lift { .. }))
        .expect("the lift");
    // 50 ms after the snapshot on the new clock: 5,302 + 50.
    assert_eq!(lift.at, ms(5_352));
}

/// A port open where nothing answers its greeting (a DGT board named without `dgt:`, a
/// board switched off) is said once after 10 s, and the greeting goes on; a board that
/// answers in time is never said so.
#[test]
fn a_port_where_no_board_answers_is_said_once() {
    let mut core = LinkCore::new(Timing::default());
    core.opened(ms(0));
    drop(core.take_step());
    tick_through(&mut core, 0, 9_950);
    let step = core.take_step();
    assert!(events(&step).is_empty(), "{:?}", events(&step));
    assert!(sent(&step).contains(&ConsoleMsg::RequestSnapshot));
    tick_through(&mut core, 9_950, 30_000);
    let said = events(&core.take_step());
    assert_eq!(
        said,
        [LinkEvent::OpenFailed {
            error: unanswered(Duration::from_secs(10), false)
        }]
    );
    let LinkEvent::OpenFailed { error } = &said[0] else {
        unreachable!()
    };
    assert!(error.contains("A DGT e-board is named dgt:PATH"), "{error}");
    // A board that answers within the time: nothing of the kind. Once it has gone silent
    // and its port is open again, it is said without the DGT hint.
    let (mut core, _board) = synced();
    tick_through(&mut core, 11, 1_000);
    assert!(!events(&core.take_step())
        .iter()
        .any(|e| matches!(e, LinkEvent::OpenFailed { .. })));
    tick_through(&mut core, 1_000, 3_000);
    drop(core.take_step());
    core.opened(ms(3_000));
    tick_through(&mut core, 3_000, 14_000);
    let said = events(&core.take_step());
    assert!(
        said.contains(&LinkEvent::OpenFailed {
            error: unanswered(Duration::from_secs(10), true)
        }) && !unanswered(Duration::from_secs(10), true).contains("dgt:"),
        "{said:?}"
    );
}
