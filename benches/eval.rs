//! Static evaluation speed: `cargo bench --bench eval`.
//! Criterion reports the time per element, i.e. per `evaluate` call, over
//! two sets: hand-picked middlegames, and the 200+ random-play positions of
//! the perft test data (many promotions and hand pieces, a harsher mix).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ryuo::eval::evaluate;
use ryuo::position::Position;

const MIDDLEGAMES: &[&str] = &[
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "lnsgk1snl/1r4g2/p1ppppb1p/6pP1/7R1/2P6/P2PPPP1P/1SG6/LN2KGSNL b BP2p 21",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R2g2K2/LN4b1L w RGsn5p 3",
];

fn load(sfens: impl Iterator<Item = String>) -> Vec<Position> {
    sfens
        .map(|s| Position::from_sfen(&s).expect("benchmark SFENs are valid"))
        .collect()
}

fn bench_set(c: &mut Criterion, name: &str, positions: &[Position]) {
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for pos in positions {
                sum += i64::from(evaluate(black_box(pos)));
            }
            sum
        })
    });
    group.finish();
}

fn bench_eval(c: &mut Criterion) {
    let middlegames = load(MIDDLEGAMES.iter().map(|s| s.to_string()));
    bench_set(c, "middlegames", &middlegames);
    let random = load(
        include_str!("../tests/data/perft_random.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| l.split('\t').next().map(str::to_string)),
    );
    bench_set(c, "perft-random-set", &random);
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
