//! Search speed at a small depth over a few bench positions, from a
//! cleared table each time. `cargo bench --bench search`.

use criterion::{criterion_group, criterion_main, Criterion};
use ryuo::position::Position;
use ryuo::search::{Control, Limits, SearchOptions, Searcher, Silent};

fn bench_search(c: &mut Criterion) {
    let positions: Vec<Position> = ryuo::bench::positions()
        .iter()
        .step_by(5)
        .map(|s| Position::from_sfen(s).unwrap())
        .collect();
    let limits = Limits {
        depth: Some(7),
        ..Limits::default()
    };
    let options = SearchOptions::default();
    let mut searcher = Searcher::new(16);
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("bench positions / 5, depth 7", |b| {
        b.iter(|| {
            let mut nodes = 0;
            for pos in &positions {
                searcher.clear();
                let r = searcher.search(pos, &limits, &options, &Control::new(false), &mut Silent);
                nodes += r.nodes;
            }
            nodes
        })
    });
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
