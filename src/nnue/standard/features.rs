//! The input features of YaneuraOu's classic networks, computed from a
//! Ryuo position: Bonanza-style "BonaPiece" numbers (a piece on a square,
//! or the `i`-th piece of a kind in a hand, as seen from one side) combined
//! with king squares.
//!
//! Squares are numbered as in Ryuo (`file * 9 + rank`, file 0 = USI file
//! 1); seen from White the board is rotated (`80 - sq`) and ownership
//! swapped, so "friend" always means the perspective's pieces.
//!
//! A set has 38 non-king pieces. YaneuraOu gives each absent one (a
//! handicap game, a composed problem) the BonaPiece 0, which stays an
//! active feature; so do we, so that such positions evaluate the same.

use super::arch::{FeatureSet, FE_END};
use crate::position::{Position, StateChange};
use crate::types::{Color, Piece, PieceType, Square};
use arrayvec::ArrayVec;

/// Non-king pieces in a set: the number of BonaPiece features per
/// perspective, present or absent.
pub const PIECES: usize = 38;

/// At most this many features are active (38 pieces and two kings).
pub const MAX_ACTIVE: usize = PIECES + 2;

/// The active features of one perspective.
pub type Active = ArrayVec<u32, MAX_ACTIVE>;

/// Features added and removed by one move in one perspective.
pub type Changed = ArrayVec<u32, 2>;

/// First BonaPiece of a board square (the friend's pawns); those below
/// are hand slots, and 0 (an absent piece).
pub const FIRST_BOARD_PIECE: u32 = 90;

/// First BonaPiece of each board kind, friend's then enemy's block, by
/// `PieceType::index()` (promoted small pieces count as golds).
const BOARD_BASE: [(u32, u32); PieceType::NUM] = {
    const fn block(i: u32) -> (u32, u32) {
        const PAWN: u32 = FIRST_BOARD_PIECE;
        (PAWN + 162 * i, PAWN + 162 * i + 81)
    }
    let mut t = [(0, 0); PieceType::NUM];
    t[PieceType::Pawn as usize] = block(0);
    t[PieceType::Lance as usize] = block(1);
    t[PieceType::Knight as usize] = block(2);
    t[PieceType::Silver as usize] = block(3);
    t[PieceType::Gold as usize] = block(4);
    t[PieceType::ProPawn as usize] = block(4);
    t[PieceType::ProLance as usize] = block(4);
    t[PieceType::ProKnight as usize] = block(4);
    t[PieceType::ProSilver as usize] = block(4);
    t[PieceType::Bishop as usize] = block(5);
    t[PieceType::Horse as usize] = block(6);
    t[PieceType::Rook as usize] = block(7);
    t[PieceType::Dragon as usize] = block(8);
    t
};

/// First BonaPiece of each hand kind (friend's, enemy's): the first piece
/// held is slot 0.
const HAND_BASE: [(u32, u32); PieceType::NUM] = {
    let mut t = [(0, 0); PieceType::NUM];
    t[PieceType::Pawn as usize] = (1, 20);
    t[PieceType::Lance as usize] = (39, 44);
    t[PieceType::Knight as usize] = (49, 54);
    t[PieceType::Silver as usize] = (59, 64);
    t[PieceType::Gold as usize] = (69, 74);
    t[PieceType::Bishop as usize] = (79, 82);
    t[PieceType::Rook as usize] = (85, 88);
    t
};

/// `sq` as seen from `perspective`.
#[inline(always)]
fn relative(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::Black => sq.index(),
        Color::White => sq.rotate().index(),
    }
}

#[inline(always)]
fn pick((friend, enemy): (u32, u32), perspective: Color, owner: Color) -> u32 {
    if owner == perspective {
        friend
    } else {
        enemy
    }
}

/// BonaPiece `bp` with the board mirrored left to right: a board piece
/// moves to the mirrored file, hand slots and 0 stay.
#[inline]
pub fn mirror_bona_piece(bp: u32) -> u32 {
    if bp < FIRST_BOARD_PIECE {
        return bp;
    }
    let sq = (bp - FIRST_BOARD_PIECE) % Square::NUM as u32;
    bp - sq + Square::from_index(sq as usize).mirror().index() as u32
}

/// Whether `sq` is on USI files 6–9, the half a king-mirrored network
/// (`ryuo-train --king-mirror`) reads mirrored.
#[inline(always)]
pub fn on_mirrored_half(sq: Square) -> bool {
    sq.file() > 4
}

/// The BonaPiece of non-king `piece` on `sq`, seen from `perspective`.
#[inline(always)]
pub fn board_piece(perspective: Color, piece: Piece, sq: Square) -> u32 {
    let base = pick(BOARD_BASE[piece.kind().index()], perspective, piece.color());
    base + relative(perspective, sq) as u32
}

/// The BonaPiece of the `slot`-th (0-based) `pt` in `owner`'s hand, seen
/// from `perspective`.
#[inline(always)]
pub fn hand_piece(perspective: Color, owner: Color, pt: PieceType, slot: u32) -> u32 {
    let slot = slot.min(pt.count_in_set() - 1);
    pick(HAND_BASE[pt.index()], perspective, owner) + slot
}

/// How the features of a perspective are laid out for one feature set.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    set: FeatureSet,
}

impl Layout {
    pub fn new(set: FeatureSet) -> Layout {
        Layout { set }
    }

    /// Whether a move of `perspective`'s own king changes all of its
    /// features (HalfKP), so that its accumulator is rebuilt.
    #[inline(always)]
    pub fn king_move_refreshes(&self) -> bool {
        self.set == FeatureSet::HalfKp
    }

    /// The offset added to BonaPieces: the perspective's king square block
    /// in HalfKP, none in K+P.
    #[inline(always)]
    pub fn piece_offset(&self, pos: &Position, perspective: Color) -> u32 {
        match self.set {
            FeatureSet::HalfKp => {
                // A side to move without a king (a composed problem) is
                // never evaluated by a search; any block keeps it in range.
                let ksq = pos
                    .king_square(perspective)
                    .map_or(0, |k| relative(perspective, k));
                (ksq * FE_END) as u32
            }
            FeatureSet::Kp => 0,
        }
    }

    /// The K feature of `owner`'s king on `sq` (K+P only).
    #[inline(always)]
    fn king_feature(perspective: Color, owner: Color, sq: Square) -> u32 {
        let block = if owner == perspective { 0 } else { Square::NUM };
        (FE_END + block + relative(perspective, sq)) as u32
    }

    /// The feature of `piece` on `sq` given the perspective's piece offset;
    /// `None` for a king under HalfKP (kings are no pieces there).
    #[inline(always)]
    pub fn piece_feature(
        &self,
        perspective: Color,
        offset: u32,
        piece: Piece,
        sq: Square,
    ) -> Option<u32> {
        if piece.kind() != PieceType::King {
            Some(offset + board_piece(perspective, piece, sq))
        } else if self.set == FeatureSet::Kp {
            Some(Layout::king_feature(perspective, piece.color(), sq))
        } else {
            None
        }
    }

    /// Every active feature of `pos` from `perspective`.
    pub fn active(&self, pos: &Position, perspective: Color) -> Active {
        let offset = self.piece_offset(pos, perspective);
        let mut out = Active::new();
        let mut present = 0;
        for sq in pos.occupied() {
            let piece = pos.piece_on(sq);
            if piece.kind() == PieceType::King {
                if self.set == FeatureSet::Kp {
                    out.push(Layout::king_feature(perspective, piece.color(), sq));
                }
                continue;
            }
            present += 1;
            out.push(offset + board_piece(perspective, piece, sq));
        }
        for owner in Color::ALL {
            let hand = pos.hand(owner);
            for pt in PieceType::HAND {
                for slot in 0..hand.count(pt) {
                    present += 1;
                    out.push(offset + hand_piece(perspective, owner, pt, slot));
                }
            }
        }
        // Absent pieces: BonaPiece 0 (SFEN validation caps a position at a
        // set's pieces, so `present` is at most `PIECES`).
        for _ in present..PIECES {
            out.push(offset);
        }
        out
    }

    /// The features the move into a position adds and removes from
    /// `perspective`, given that position's piece offset for it. `None`
    /// when the move is `perspective`'s own king move under HalfKP: the
    /// accumulator must be rebuilt.
    #[inline(always)]
    pub(crate) fn changed(
        &self,
        perspective: Color,
        offset: u32,
        change: &StateChange,
    ) -> Option<(Changed, Changed)> {
        let mut added = Changed::new();
        let mut removed = Changed::new();
        if !change.mv.is_some() {
            return Some((added, removed)); // a null move changes nothing
        }
        let mover = change.moved.color();
        let to = change.mv.to();
        if change.mv.is_drop() {
            let pt = change.mv.dropped();
            let slot = change.hand_before.count(pt).saturating_sub(1);
            removed.push(offset + hand_piece(perspective, mover, pt, slot));
            added.push(offset + board_piece(perspective, change.moved, to));
            return Some((added, removed));
        }
        let from = change.mv.from();
        if change.moved.kind() == PieceType::King {
            match self.set {
                FeatureSet::HalfKp if mover == perspective => return None,
                FeatureSet::HalfKp => {}
                FeatureSet::Kp => {
                    removed.push(Layout::king_feature(perspective, mover, from));
                    added.push(Layout::king_feature(perspective, mover, to));
                }
            }
        } else {
            let after = if change.mv.is_promotion() {
                Piece::new(mover, change.moved.kind().promote())
            } else {
                change.moved
            };
            removed.push(offset + board_piece(perspective, change.moved, from));
            added.push(offset + board_piece(perspective, after, to));
        }
        if !change.captured.is_empty() {
            let base = change.captured.kind().unpromote();
            let slot = change.hand_before.count(base);
            removed.push(offset + board_piece(perspective, change.captured, to));
            added.push(offset + hand_piece(perspective, mover, base, slot));
        }
        Some((added, removed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bona_pieces_cover_the_published_layout() {
        // Spot values of YaneuraOu's table: f_pawn = 90, e_dragon + 80 = 1547.
        let black_pawn = Piece::new(Color::Black, PieceType::Pawn);
        assert_eq!(
            board_piece(Color::Black, black_pawn, Square::from_index(0)),
            90
        );
        let white_dragon = Piece::new(Color::White, PieceType::Dragon);
        let corner = Square::from_index(80);
        assert_eq!(board_piece(Color::Black, white_dragon, corner), 1547);
        // Seen from White, its own dragon on 80 is a friend on 0.
        assert_eq!(board_piece(Color::White, white_dragon, corner), 1386);
        assert_eq!(
            hand_piece(Color::White, Color::Black, PieceType::Rook, 1),
            89
        );
    }

    #[test]
    fn the_start_position_has_38_distinct_pieces_per_side() {
        let pos = Position::startpos();
        let layout = Layout::new(FeatureSet::HalfKp);
        for p in Color::ALL {
            let mut f = layout.active(&pos, p).to_vec();
            f.sort();
            f.dedup();
            assert_eq!(f.len(), PIECES);
            assert!(f
                .iter()
                .all(|&i| (i as usize) < FeatureSet::HalfKp.dimensions()));
        }
        let kp = Layout::new(FeatureSet::Kp);
        assert_eq!(kp.active(&pos, Color::Black).len(), PIECES + 2);
    }
}
