//! Samples made without any data file: random legal play from the start
//! position, each position labelled with the hand-written evaluation. For
//! tests, speed measurements and smoke runs; real training data comes from
//! `.psv` files.

use crate::dataset::{Dataset, Encoding};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use ryuo::eval::evaluate;
use ryuo::movegen::legal_moves;
use ryuo::position::Position;

/// Longest random game, in plies.
const MAX_GAME_PLY: usize = 160;

/// Evaluations beyond this count as a decided game for the result label.
const DECIDED_MARGIN: i32 = 400;

/// The result label of a position scored `score` (side to move's view):
/// won beyond +`DECIDED_MARGIN`, lost beyond −`DECIDED_MARGIN`, drawn in
/// between. Random games are not played to the end, so the evaluation
/// stands in for the outcome.
fn result_from_score(score: i32) -> i8 {
    if score > DECIDED_MARGIN {
        1
    } else if score < -DECIDED_MARGIN {
        -1
    } else {
        0
    }
}

/// Calls `visit` on `count` positions from random games (each position
/// after a move, so never the start position), deterministic for `seed`.
pub fn random_positions(count: usize, seed: u64, mut visit: impl FnMut(&Position)) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = 0;
    while seen < count {
        let mut pos = Position::startpos();
        for _ in 0..MAX_GAME_PLY {
            if seen == count {
                return;
            }
            let moves = legal_moves(&pos);
            let Some(&m) = moves.choose(&mut rng) else {
                break; // mated: the game is over
            };
            pos.do_move(m);
            visit(&pos);
            seen += 1;
        }
    }
}

/// `count` samples from random games, deterministic for `seed`, scored by
/// the hand-written evaluation.
pub fn random_play(count: usize, seed: u64) -> Dataset {
    random_play_encoded(count, seed, Encoding::Ryuo)
}

/// `random_play` into a dataset of the given feature encoding.
pub fn random_play_encoded(count: usize, seed: u64, encoding: Encoding) -> Dataset {
    let mut data = Dataset::with_encoding(encoding);
    random_positions(count, seed, |pos| {
        let score = evaluate(pos).clamp(i16::MIN as i32, i16::MAX as i32);
        data.push_position(pos, score as i16, result_from_score(score));
    });
    data
}

/// `count` samples generated on `threads` threads, deterministic for
/// `seed` and `threads` (thread `t` plays with seed `seed + t`; the parts
/// are joined in thread order).
pub fn random_play_parallel(
    count: usize,
    seed: u64,
    threads: usize,
    encoding: Encoding,
) -> Dataset {
    let threads = threads.max(1);
    let parts: Vec<Dataset> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let n = count / threads + usize::from(t < count % threads);
                s.spawn(move || random_play_encoded(n, seed.wrapping_add(t as u64), encoding))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut data = Dataset::with_encoding(encoding);
    for p in &parts {
        data.append(p);
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_play_is_deterministic() {
        let a = random_play(300, 1);
        assert_eq!(a.len(), 300);
        assert_eq!(a, random_play(300, 1));
        assert_ne!(a, random_play(300, 2));
    }
}
