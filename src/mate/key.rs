//! The solver's own key of the board and side to move, hands left out.
//!
//! The transposition table must find every hand variant of a board in one
//! bucket (hand domination compares them), so it is indexed by a key of the
//! board alone. `Position` keeps such a key for its current state but cannot
//! tell the key a move would lead to without playing it, and the df-pn loop
//! needs the keys of all children at every iteration. A private Zobrist set
//! lets the solver derive a child's key from its parent's in a few XORs.

use crate::position::Position;
use crate::types::{Color, Move, Piece};

/// Keys per (piece index, square), generated at compile time by SplitMix64
/// from a seed of our own (they need not match `Position`'s keys).
static PIECE_SQUARE: [[u64; 81]; 32] = {
    let mut table = [[0u64; 81]; 32];
    let mut state = 0x4D41_5445_5F44_4650_u64; // "MATE_DFP"
    let mut p = 0;
    while p < 32 {
        let mut sq = 0;
        while sq < 81 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            // Bit 0 is reserved for the side to move.
            table[p][sq] = (z ^ (z >> 31)) & !1;
            sq += 1;
        }
        p += 1;
    }
    table
};

/// XORed in when White is to move.
const SIDE_TO_MOVE: u64 = 1;

/// The key of `pos`'s board and side to move, computed from scratch.
pub(super) fn board_key(pos: &Position) -> u64 {
    let mut key = match pos.side_to_move() {
        Color::Black => 0,
        Color::White => SIDE_TO_MOVE,
    };
    for sq in pos.occupied() {
        key ^= PIECE_SQUARE[pos.piece_on(sq).index()][sq.index()];
    }
    key
}

/// The board key after the pseudo-legal move `m`, given the current `key`.
pub(super) fn board_key_after(pos: &Position, key: u64, m: Move) -> u64 {
    let us = pos.side_to_move();
    let to = m.to().index();
    let mut key = key ^ SIDE_TO_MOVE;
    if m.is_drop() {
        return key ^ PIECE_SQUARE[Piece::new(us, m.dropped()).index()][to];
    }
    let from = m.from();
    let moved = pos.piece_on(from);
    key ^= PIECE_SQUARE[moved.index()][from.index()];
    let captured = pos.piece_on(m.to());
    if !captured.is_empty() {
        key ^= PIECE_SQUARE[captured.index()][to];
    }
    let placed = if m.is_promotion() {
        Piece::new(us, moved.kind().promote())
    } else {
        moved
    };
    key ^ PIECE_SQUARE[placed.index()][to]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    #[test]
    fn incremental_key_matches_recomputed_key() {
        let mut pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        )
        .unwrap();
        let key = board_key(&pos);
        for m in legal_moves(&pos) {
            let predicted = board_key_after(&pos, key, m);
            pos.do_move(m);
            assert_eq!(predicted, board_key(&pos), "{m}");
            pos.undo_move(m);
        }
    }
}
