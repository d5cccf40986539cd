//! Mate-solver speed: a set of tsume problems solved at a fixed node budget.
//! `cargo bench --bench mate` prints the solved count, total time and
//! nodes per second over the set, then times a few problems with criterion.

use criterion::{criterion_group, Criterion};
use ryuo::mate::{MateResult, MateSolver};
use ryuo::position::Position;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Node budget per problem.
const MAX_NODES: u64 = 3_000_000;
/// Table size, MiB.
const HASH_MIB: usize = 64;

/// (SFEN, mate length in plies, every interposition counted).
const PROBLEMS: &[(&str, usize)] = &[
    ("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", 1),
    ("8k/9/6R2/9/9/9/9/9/9 b Gr2b3g4s4n4l18p 1", 3),
    ("5R1sk/9/4+Ps1+L1/9/9/9/9/9/9 b Pr2b4g2s4n3l16p 1", 3),
    ("7bk/9/7+Lb/9/8L/9/9/9/9 b N2R4g4s3n2l18p 1", 3),
    ("l2k5/9/3S2S2/9/9/9/9/9/9 b B2N2rb4g2s2n3l18p 1", 5),
    ("9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1", 7),
    ("+R4G1nl/6k2/4ppppp/9/9/9/9/9/9 b r2b3g4s3n3l13p 1", 7),
    ("7nl/7k1/6ppp/9/9/9/9/9/5R3 b Sr2b4g3s3n3l15p 1", 7),
    ("7l1/5n1k1/7+RP/6sK1/7L1/9/9/9/9 w r2b4g3s3n2l17p 2", 7),
    ("6s2/6l2/9/6BBk/9/9/9/9/9 b RPr4g3s4n3l17p 1", 9),
    ("7nl/9/7kp/4r1N2/8P/6LG+p/9/9/9 b R2b3g4s2n2l15p 1", 9),
    ("ln7/1k1+P5/1pp1S4/p8/9/2P6/9/9/9 b BGN2rbg2s2n3l13p 1", 9),
    ("4+P2kl/7s1/5R3/7B1/9/9/9/9/9 b GNrb3g3s3n3l17p 1", 11),
    ("7k1/4p3r/6S2/9/6rN1/9/9/9/9 b BNLb4g3s2n3l17p 1", 13),
    ("7nk/9/5R3/8p/6P2/9/9/9/9 b SNPr2b4g3s2n4l15p 1", 13),
    ("9/5Pk2/9/8R/8B/9/9/9/9 b 2Srb4g2s4n4l17p 1", 17),
    (
        "l2+P5/2k4+L1/2n1p2B1/p1pp1spN1/4Ps3/PlPP2P2/1P1Sb4/1KG2+p3/LN7 w R2GPrgsn4p 1",
        29,
    ),
];

/// Solves the whole set once and prints the figures.
fn summary() {
    let stop = AtomicBool::new(false);
    let (mut solved, mut nodes) = (0, 0u64);
    let start = Instant::now();
    for &(sfen, plies) in PROBLEMS {
        let mut pos = Position::from_sfen(sfen).expect("valid SFEN");
        let mut solver = MateSolver::new(HASH_MIB);
        let t = Instant::now();
        let result = solver.solve(&mut pos, &stop, None, Some(MAX_NODES));
        let found = match &result {
            MateResult::Mate(line) => format!("mate {}", line.len()),
            other => format!("{other:?}"),
        };
        if matches!(&result, MateResult::Mate(line) if line.len() == plies) {
            solved += 1;
        }
        nodes += solver.nodes();
        println!(
            "{:<42} expected {plies:>2}: {found:<9} {:>9} nodes {:>8.1} ms",
            &sfen[..sfen.len().min(42)],
            solver.nodes(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "mate: solved {solved}/{} at the expected length, {:.2} s, {nodes} nodes, {:.0} nodes/s",
        PROBLEMS.len(),
        secs,
        nodes as f64 / secs
    );
}

fn bench_mate(c: &mut Criterion) {
    let mut group = c.benchmark_group("mate");
    group.sample_size(10);
    let stop = AtomicBool::new(false);
    // The middle of the range: long enough to matter, quick enough to
    // sample.
    let timed = PROBLEMS
        .iter()
        .enumerate()
        .filter(|(_, &(_, plies))| (11..=17).contains(&plies));
    for (number, &(sfen, plies)) in timed {
        let mut pos = Position::from_sfen(sfen).expect("valid SFEN");
        let mut solver = MateSolver::new(HASH_MIB);
        group.bench_function(format!("problem {number}: mate in {plies}"), |b| {
            b.iter(|| {
                // A cold table each time: a warm one would answer at once.
                solver.clear();
                solver.solve(&mut pos, &stop, None, Some(MAX_NODES))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_mate);

fn main() {
    summary();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
