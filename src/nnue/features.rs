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
//!
//! # King buckets (feature set 2)
//! The same features, once per region of the perspective's own king
//! ([`king_bucket`]: 3 file groups × back rank, second rank, elsewhere):
//! feature `f` of a perspective whose king is in bucket `b` is
//! `b · NUM_FEATURES + f`. The network then values a piece by where its
//! own king stands (a castle's gold next to the king, an attacker near
//! it) at nine times the rows, not HalfKP's 81; a king move that changes
//! its bucket recomputes that perspective from scratch.

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

/// Regions of the own king in the king-bucketed feature set.
pub const KING_BUCKETS: usize = 9;

/// The input feature sets a Ryuo network file may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFeatures {
    /// Set 1: piece-square and hand slots (`NUM_FEATURES` rows).
    PieceSquare,
    /// Set 2: the same per own-king bucket (`KING_BUCKETS · NUM_FEATURES`
    /// rows).
    KingBuckets,
}

impl InputFeatures {
    /// The identifier in the file header.
    pub const fn id(self) -> u32 {
        match self {
            InputFeatures::PieceSquare => 1,
            InputFeatures::KingBuckets => 2,
        }
    }

    /// The set a header identifier names, if this build computes it.
    pub const fn from_id(id: u32) -> Option<InputFeatures> {
        match id {
            1 => Some(InputFeatures::PieceSquare),
            2 => Some(InputFeatures::KingBuckets),
            _ => None,
        }
    }

    /// Number of rows of feature weights.
    pub const fn rows(self) -> usize {
        match self {
            InputFeatures::PieceSquare => NUM_FEATURES,
            InputFeatures::KingBuckets => KING_BUCKETS * NUM_FEATURES,
        }
    }

    /// The first row of `perspective`'s features in `pos`: its king's
    /// bucket times `NUM_FEATURES` (0 without buckets).
    #[inline(always)]
    pub fn offset(self, pos: &Position, perspective: Color) -> usize {
        match self {
            InputFeatures::PieceSquare => 0,
            InputFeatures::KingBuckets => {
                king_bucket(perspective, pos.king_square(perspective)) * NUM_FEATURES
            }
        }
    }

    /// Whether a move of `color`'s king from `from` to `to` changes the
    /// rows of `color`'s perspective (never without buckets).
    #[inline(always)]
    pub fn king_move_changes_bucket(self, color: Color, from: Square, to: Square) -> bool {
        self == InputFeatures::KingBuckets
            && king_bucket(color, Some(from)) != king_bucket(color, Some(to))
    }

    /// Every active feature of `pos` from `perspective`, as `active_features`
    /// lists them, moved to the perspective's bucket.
    pub fn active(self, pos: &Position, perspective: Color) -> ActiveFeatures {
        let mut features = active_features(pos, perspective);
        let offset = self.offset(pos, perspective);
        if offset != 0 {
            features.iter_mut().for_each(|f| *f += offset as u16);
        }
        features
    }

    /// The feature that `f` (a row of this set) becomes when the board is
    /// mirrored left to right: the bucket mirrors with the king.
    pub fn mirror(self, f: usize) -> usize {
        let (bucket, f) = (f / NUM_FEATURES, f % NUM_FEATURES);
        let bucket = match self {
            InputFeatures::PieceSquare => bucket,
            InputFeatures::KingBuckets => mirror_bucket(bucket),
        };
        bucket * NUM_FEATURES + mirror_feature(f)
    }
}

/// The bucket of `perspective`'s king on `king`, seen from that side:
/// file group (USI files 1–3, 4–6, 7–9 as Black sees them) plus 3 × rank
/// group (own back rank, the rank before it, anywhere else). Castles sit
/// on the first two ranks of one wing; a king that walks out is in the
/// third group. A position without that king uses the home square's.
#[inline(always)]
pub fn king_bucket(perspective: Color, king: Option<Square>) -> usize {
    let Some(sq) = king else {
        return 1;
    };
    let sq = match perspective {
        Color::Black => sq,
        Color::White => sq.rotate(),
    };
    let file_group = sq.file() as usize / 3;
    let rank_group = match sq.rank() {
        8 => 0,
        7 => 1,
        _ => 2,
    };
    rank_group * 3 + file_group
}

/// The bucket of the mirror image of a king in `bucket`.
pub const fn mirror_bucket(bucket: usize) -> usize {
    bucket - bucket % 3 + (2 - bucket % 3)
}

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
    fn king_buckets_cover_the_board_and_mirror() {
        let mut seen = [false; KING_BUCKETS];
        for i in 0..Square::NUM {
            let sq = Square::from_index(i);
            for c in Color::ALL {
                let b = king_bucket(c, Some(sq));
                seen[b] = true;
                assert_eq!(mirror_bucket(b), king_bucket(c, Some(sq.mirror())));
            }
            // White's king on a square is Black's on the rotated one.
            assert_eq!(
                king_bucket(Color::White, Some(sq)),
                king_bucket(Color::Black, Some(sq.rotate()))
            );
        }
        assert!(seen.iter().all(|&s| s));
        // Black's king at home (5i) is in the middle group of the back rank.
        let home = Square::from_file_rank(4, 8);
        assert_eq!(king_bucket(Color::Black, Some(home)), 1);
        let set = InputFeatures::KingBuckets;
        assert_eq!(InputFeatures::from_id(set.id()), Some(set));
        assert!(set.rows() <= u16::MAX as usize + 1);
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
