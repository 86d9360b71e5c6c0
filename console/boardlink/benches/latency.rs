#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! Time from the board writing a Lift/Place frame into a pseudo-terminal to the console's
//! `BoardLink` delivering the decoded event (pty + tokio + decoder + core + channel).

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use kriegspiel_boardlink::{BoardLink, LinkConfig, LinkEvent, Timing};
use kriegspiel_link::{encode, BoardMsg, Frame, SeqCounter, MAX_FRAME, PROTOCOL_VERSION};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_serial::{SerialPort, SerialStream};

fn frame(seq: &mut SeqCounter, body: BoardMsg) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME];
    let n = encode(
        &Frame {
            seq: seq.next(),
            body,
        },
        &mut buf,
    )
    .unwrap();
    buf[..n].to_vec()
}

fn latency(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (mut master, _slave, mut rx, _link) = rt.block_on(async {
        let (mut master, slave) = SerialStream::pair().unwrap();
        let path = slave.name().unwrap();
        // Criterion pauses between phases; keep the link from declaring the board gone.
        let timing = Timing {
            silence_timeout: Duration::from_secs(3600),
            ..Timing::default()
        };
        let (link, mut rx) = BoardLink::spawn(
            path,
            LinkConfig {
                timing,
                ..LinkConfig::default()
            },
        );
        // The console's Hello shows that it has opened (and flushed) its end.
        let mut hello = [0u8; 64];
        let _ = master.read(&mut hello).await.unwrap();
        let mut seq = SeqCounter::new();
        let mut bytes = frame(
            &mut seq,
            BoardMsg::Hello {
                protocol: PROTOCOL_VERSION,
                firmware: [0, 1, 0],
                board_id: 1,
            },
        );
        bytes.extend(frame(
            &mut seq,
            BoardMsg::Snapshot {
                occupancy: 1,
                board_ms: 0,
            },
        ));
        master.write_all(&bytes).await.unwrap();
        loop {
            if let LinkEvent::Resync { .. } = rx.recv().await.unwrap().event {
                break;
            }
        }
        (master, slave, rx, (link, seq))
    });
    let (_handle, mut seq) = _link;
    let mut lifted = false;
    c.bench_function("pty_frame_to_link_event", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    let body = if lifted {
                        BoardMsg::Place {
                            square: 0,
                            board_ms: i as u32,
                        }
                    } else {
                        BoardMsg::Lift {
                            square: 0,
                            board_ms: i as u32,
                        }
                    };
                    lifted = !lifted;
                    let bytes = frame(&mut seq, body);
                    let start = Instant::now();
                    master.write_all(&bytes).await.unwrap();
                    match rx.recv().await.unwrap().event {
                        LinkEvent::Lift { .. } | LinkEvent::Place { .. } => {}
                        other => panic!("unexpected {other:?}"),
                    }
                    total += start.elapsed();
                }
                total
            })
        })
    });
}

criterion_group!(benches, latency);
criterion_main!(benches);
