//! Move-generation speed: perft from well-known positions.
//! `cargo bench --bench perft`; the deep start-position figure comes from
//! `ryuo perft 6` (see the README).

use criterion::{criterion_group, criterion_main, Criterion};
use ryuo::perft::perft;
use ryuo::position::Position;

fn bench_perft(c: &mut Criterion) {
    let cases = [
        ("startpos d4", ryuo::position::STARTPOS_SFEN, 4),
        (
            "matsuri d3",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            3,
        ),
        (
            "max-legal-moves d2",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            2,
        ),
    ];
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, sfen, depth) in cases {
        let mut pos = Position::from_sfen(sfen).unwrap();
        group.bench_function(name, |b| b.iter(|| perft(&mut pos, depth)));
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
