#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! Encode/decode throughput of the link codec (frames/s and MB/s).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kriegspiel_link::{encode, BoardMsg, Decoder, Frame, MAX_FRAME};

const FRAMES: usize = 1000;

fn mixed_frames() -> Vec<Frame<BoardMsg>> {
    (0..FRAMES)
        .map(|i| {
            let board_ms = (i as u32) * 7;
            let square = (i % 64) as u8;
            let body = match i % 4 {
                0 => BoardMsg::Lift { square, board_ms },
                1 => BoardMsg::Place { square, board_ms },
                2 => BoardMsg::Heartbeat { board_ms },
                _ => BoardMsg::Snapshot {
                    occupancy: 0xFFFF_0000_0000_FFFF ^ (i as u64),
                    board_ms,
                },
            };
            Frame {
                seq: i as u16,
                body,
            }
        })
        .collect()
}

fn wire(frames: &[Frame<BoardMsg>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; MAX_FRAME];
    for frame in frames {
        let n = encode(frame, &mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn codec(c: &mut Criterion) {
    let frames = mixed_frames();
    let bytes = wire(&frames);

    let mut group = c.benchmark_group("frames");
    group.throughput(Throughput::Elements(FRAMES as u64));
    group.bench_function("encode_1000_mixed", |b| {
        let mut buf = [0u8; MAX_FRAME];
        b.iter(|| {
            for frame in &frames {
                black_box(encode(black_box(frame), &mut buf).unwrap());
            }
        })
    });
    group.bench_function("decode_1000_mixed", |b| {
        b.iter(|| {
            let mut decoder = Decoder::<BoardMsg>::new();
            let mut good = 0usize;
            decoder.feed(black_box(&bytes), |r| good += usize::from(r.is_ok()));
            assert_eq!(good, FRAMES);
        })
    });
    group.finish();

    let mut group = c.benchmark_group("bytes");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_stream", |b| {
        b.iter(|| {
            let mut decoder = Decoder::<BoardMsg>::new();
            decoder.feed(black_box(&bytes), |r| {
                black_box(r).ok();
            });
        })
    });
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
