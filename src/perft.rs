//! Perft: counting the leaves of the legal move tree, the standard check of
//! a move generator. The last ply is bulk-counted (the number of legal moves,
//! not a `do_move` per leaf), as every published figure is: `count_legal`
//! runs the legal generator but counts each piece's destinations at once.

use crate::movegen::{count_legal, generate_legal, MoveList};
use crate::position::Position;
use crate::types::Move;

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
