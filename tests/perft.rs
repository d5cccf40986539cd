//! Perft against published counts (`tests/data/perft.txt`) and against
//! cshogi's counts on random positions (`tests/data/perft_random.tsv`).
//! Deep vectors are `#[ignore]`d: `cargo test --release -- --ignored`.

use ryuo::perft::perft;
use ryuo::position::Position;

/// Node budget for the default run: vectors above it are left to the
/// ignored test.
const QUICK_LIMIT: u64 = 20_000_000;

struct Vector {
    name: String,
    sfen: String,
    depth: u32,
    nodes: u64,
}

fn published() -> Vec<Vector> {
    let text = include_str!("data/perft.txt");
    let mut out = Vec::new();
    let (mut name, mut sfen) = (String::new(), String::new());
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("id ") {
            name = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("sfen ") {
            sfen = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest.split_whitespace();
            let depth = it.next().unwrap().parse().unwrap();
            let nodes = it.next().unwrap().parse().unwrap();
            out.push(Vector {
                name: name.clone(),
                sfen: sfen.clone(),
                depth,
                nodes,
            });
        }
    }
    assert!(out.len() > 50, "perft.txt parsed");
    out
}

fn check(vectors: impl Iterator<Item = Vector>) -> usize {
    let mut n = 0;
    for v in vectors {
        let mut pos = Position::from_sfen(&v.sfen).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let before = pos.to_sfen();
        assert_eq!(
            perft(&mut pos, v.depth),
            v.nodes,
            "{} depth {}",
            v.name,
            v.depth
        );
        assert_eq!(pos.to_sfen(), before, "{}: position restored", v.name);
        n += 1;
    }
    n
}

#[test]
fn published_counts_quick() {
    let n = check(published().into_iter().filter(|v| v.nodes <= QUICK_LIMIT));
    assert!(n >= 40);
}

#[test]
#[ignore = "deep: minutes in a release build"]
fn published_counts_deep() {
    check(
        published()
            .into_iter()
            .filter(|v| v.nodes > QUICK_LIMIT && v.nodes < 2_000_000_000),
    );
}

#[test]
fn random_positions_match_cshogi() {
    let text = include_str!("data/perft_random.tsv");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let mut pos = Position::from_sfen(cols[0]).unwrap_or_else(|e| panic!("{}: {e}", cols[0]));
        let depth: u32 = cols[1].parse().unwrap();
        let nodes: u64 = cols[2].parse().unwrap();
        assert_eq!(perft(&mut pos, depth), nodes, "{}", cols[0]);
        n += 1;
    }
    assert_eq!(n, 211);
}
