//! Perft: counting the leaves of the legal move tree, the standard check of
//! a move generator. The last ply is bulk-counted (the number of legal moves,
//! not a `do_move` per leaf), as every published figure is: `count_legal`
//! runs the legal generator but counts each piece's destinations at once.

use crate::movegen::{count_legal, generate_legal, MoveList};
use crate::position::Position;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, Ordering};

/// Number of leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return count_legal(pos) as u64;
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in &list {
        pos.do_move(m);
        nodes += perft(pos, depth - 1);
        pos.undo_move(m);
    }
    nodes
}

/// Perft split by root move, in generation order: `(move, leaf count)`.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list.iter()
        .map(|&m| {
            pos.do_move(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.undo_move(m);
            (m, n)
        })
        .collect()
}

/// Like `divide`, but gives up (`None`) soon after `stop` is set: `perft`
/// typed at the USI prompt must not keep `stop` and `quit` waiting.
pub fn divide_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<Vec<(Move, u64)>> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut split = Vec::with_capacity(list.len());
    for &m in &list {
        pos.do_move(m);
        let n = if depth <= 1 {
            Some(1)
        } else {
            perft_until(pos, depth - 1, stop)
        };
        pos.undo_move(m);
        split.push((m, n?));
    }
    Some(split)
}

/// `perft` that looks at `stop` at every node two or more plies above
/// the leaves (a few thousand leaves apart: no measurable cost).
fn perft_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= 2 {
        return Some(perft(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut nodes = 0;
    for &m in &list {
        pos.do_move(m);
        let n = perft_until(pos, depth - 1, stop);
        pos.undo_move(m);
        nodes += n?;
    }
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_until_counts_like_perft_and_stops() {
        let mut pos = Position::startpos();
        let go = AtomicBool::new(false);
        let split = divide_until(&mut pos, 3, &go).unwrap();
        assert_eq!(
            split.iter().map(|(_, n)| n).sum::<u64>(),
            perft(&mut pos, 3)
        );
        let stop = AtomicBool::new(true);
        assert!(divide_until(&mut pos, 4, &stop).is_none());
        assert_eq!(pos.to_sfen(), Position::startpos().to_sfen());
    }
}
