//! Input features of the evaluation network: "piece-square plus hand
//! slots", seen from one side (the perspective).
//!
//! Every piece on the board is one feature: (own or enemy, piece kind
//! including promoted kinds and the king, square). The square and the
//! ownership are taken from the perspective's point of view: for White the
//! board is rotated 180° and the colours swapped, so one set of weights
//! serves both sides.
//!
//! Every piece in hand is one feature too: the `i`-th piece of a kind held
//! by a side is slot `i` of that (side, kind). A piece taken adds exactly one
//! feature (the next free slot) and a drop removes exactly one (the last
//! slot), so a move changes at most four features per perspective and the
//! first hidden layer can be updated incrementally. Slots also let the
//! network value the first pawn in hand differently from the tenth.
//!
//! With all 40 pieces present a position has exactly 40 active features
//! per perspective (each piece is either on the board or in a hand slot).

use crate::position::Position;
use crate::types::{Color, Piece, PieceType, Square};
use arrayvec::ArrayVec;

/// Board features: 2 owners × 14 kinds × 81 squares.
pub const BOARD_FEATURES: usize = 2 * 14 * Square::NUM;

/// Hand slots per owner: 18 pawns, 4 lances, 4 knights, 4 silvers,
/// 4 golds, 2 bishops, 2 rooks.
pub const HAND_SLOTS: usize = 38;

/// Number of input features.
pub const NUM_FEATURES: usize = BOARD_FEATURES + 2 * HAND_SLOTS;

/// At most this many features are active in one perspective (40 pieces in a
/// set; the bound leaves room for positions set up with odd material).
pub const MAX_ACTIVE: usize = 64;

/// First slot of each hand kind within an owner's block, by
/// `PieceType::index()` (only the seven hand kinds are meaningful).
const HAND_OFFSET: [usize; PieceType::NUM] = {
    let mut t = [0usize; PieceType::NUM];
    let mut offset = 0;
    let mut i = 0;
    while i < PieceType::HAND.len() {
        let pt = PieceType::HAND[i];
        t[pt as usize] = offset;
        offset += pt.count_in_set() as usize;
        i += 1;
    }
    t
};

/// The list of active features of one perspective.
pub type ActiveFeatures = ArrayVec<u16, MAX_ACTIVE>;

/// 0 for pieces of `perspective`, 1 for the opponent's.
#[inline(always)]
fn owner(perspective: Color, color: Color) -> usize {
    (perspective != color) as usize
}

/// The feature of `piece` standing on `sq`, seen from `perspective`.
#[inline(always)]
pub fn board_feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let sq = match perspective {
        Color::Black => sq,
        Color::White => sq.rotate(),
    };
    let kind = piece.kind().index() - 1;
    (owner(perspective, piece.color()) * 14 + kind) * Square::NUM + sq.index()
}

/// The feature of the `slot`-th (0-based) piece of kind `pt` in `color`'s
/// hand, seen from `perspective`. Slots beyond a full set are clamped to the
/// last one (only positions with more pieces than a set can reach that).
#[inline(always)]
pub fn hand_feature(perspective: Color, color: Color, pt: PieceType, slot: u32) -> usize {
    let slot = slot.min(pt.count_in_set() - 1) as usize;
    BOARD_FEATURES + owner(perspective, color) * HAND_SLOTS + HAND_OFFSET[pt.index()] + slot
}

/// The feature that `f` becomes when the board is mirrored left to right
/// (file 1 ↔ file 9): shogi's rules are symmetric under that mirror, so a
/// trainer may use each position twice.
pub fn mirror_feature(f: usize) -> usize {
    if f >= BOARD_FEATURES {
        return f; // hands do not depend on files
    }
    let sq = f % Square::NUM;
    f - sq + Square::from_index(sq).mirror().index()
}

/// Every active feature of `pos` from `perspective`, board first (in square
/// order), then hands.
pub fn active_features(pos: &Position, perspective: Color) -> ActiveFeatures {
    let mut out = ActiveFeatures::new();
    for sq in pos.occupied() {
        // A position can hold at most a set's 40 pieces (SFEN validation),
        // so the list never overflows; `try_push` keeps that a non-panic.
        let _ = out.try_push(board_feature(perspective, pos.piece_on(sq), sq) as u16);
    }
    for color in Color::ALL {
        let hand = pos.hand(color);
        for pt in PieceType::HAND {
            for slot in 0..hand.count(pt) {
                let _ = out.try_push(hand_feature(perspective, color, pt, slot) as u16);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_slots_cover_a_set_exactly() {
        let total: u32 = PieceType::HAND.iter().map(|pt| pt.count_in_set()).sum();
        assert_eq!(total as usize, HAND_SLOTS);
        let last = hand_feature(Color::White, Color::Black, PieceType::Rook, 1);
        assert_eq!(last, NUM_FEATURES - 1);
    }

    #[test]
    fn start_position_has_forty_distinct_features_per_side() {
        let pos = Position::startpos();
        for c in Color::ALL {
            let mut f = active_features(&pos, c).to_vec();
            assert_eq!(f.len(), 40);
            f.sort();
            f.dedup();
            assert_eq!(f.len(), 40);
            assert!(f.iter().all(|&i| (i as usize) < NUM_FEATURES));
        }
    }

    #[test]
    fn start_position_looks_the_same_from_both_sides() {
        // The start position is symmetric under rotation + colour swap.
        let pos = Position::startpos();
        let mut b = active_features(&pos, Color::Black).to_vec();
        let mut w = active_features(&pos, Color::White).to_vec();
        b.sort();
        w.sort();
        assert_eq!(b, w);
    }

    #[test]
    fn flipped_position_swaps_perspectives() {
        let pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        )
        .unwrap();
        let flipped = pos.flipped();
        let mut a = active_features(&pos, Color::Black).to_vec();
        let mut b = active_features(&flipped, Color::White).to_vec();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}
