//! Correction history of the static evaluation: how far the searches of
//! positions with the same pawn structure, and with the same pieces in
//! hand, found the true value from the static one. The average error is
//! added to later static evaluations of positions sharing the key, so the
//! pruning margins measure from a better estimate.

use super::history::apply_gravity;
use crate::position::Position;
use crate::types::{Color, PieceType, Value};

/// Entries per side to move in each table (a power of two).
const SIZE: usize = 16_384;
/// Bound of an entry; gravity keeps entries within it.
const LIMIT: i32 = 1_024;
/// A single update moves an entry by at most this.
const MAX_BONUS: i32 = LIMIT / 4;

/// The index of `key` in a table.
#[inline]
fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50) as usize & (SIZE - 1)
}

/// A 64-bit key of the pawns of both sides (also the pawn history's).
#[inline]
pub(super) fn pawn_key(pos: &Position) -> u64 {
    let fold =
        |raw: u128, k: u64| (raw as u64).wrapping_mul(k) ^ ((raw >> 64) as u64).rotate_left(29);
    fold(
        pos.pieces(Color::Black, PieceType::Pawn).raw(),
        0xD6E8_FEB8_6659_FD93,
    ) ^ fold(
        pos.pieces(Color::White, PieceType::Pawn).raw(),
        0xA076_1D64_78BD_642F,
    )
}

/// A 64-bit key of both hands.
#[inline]
fn hand_key(pos: &Position) -> u64 {
    pos.hand(Color::Black).raw() as u64 | (pos.hand(Color::White).raw() as u64) << 32
}

/// The two tables, per side to move.
pub struct CorrectionHistory {
    pawn: Box<[[i16; SIZE]; 2]>,
    hand: Box<[[i16; SIZE]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            pawn: Box::new([[0; SIZE]; 2]),
            hand: Box::new([[0; SIZE]; 2]),
        }
    }
}

impl CorrectionHistory {
    /// The correction to add to the static evaluation of `pos`; each table
    /// contributes at most `LIMIT / divisor`.
    #[inline]
    pub fn correction(&self, pos: &Position, divisor: i32) -> Value {
        let us = pos.side_to_move().index();
        let p = self.pawn[us][slot(pawn_key(pos))] as i32;
        let h = self.hand[us][slot(hand_key(pos))] as i32;
        (p + h) / divisor.max(1)
    }

    /// Records that a search to `depth` found `searched` where the static
    /// evaluation (uncorrected) said `raw`: entries move towards the error,
    /// deeper searches weigh more.
    #[inline]
    pub fn update(&mut self, pos: &Position, raw: Value, searched: Value, depth: i32) {
        let us = pos.side_to_move().index();
        let bonus = ((searched - raw) * depth / 8).clamp(-MAX_BONUS, MAX_BONUS);
        apply_gravity(&mut self.pawn[us][slot(pawn_key(pos))], bonus, LIMIT);
        apply_gravity(&mut self.hand[us][slot(hand_key(pos))], bonus, LIMIT);
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        for t in [&mut self.pawn, &mut self.hand] {
            for side in t.iter_mut() {
                side.fill(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_errors_and_stay_bounded() {
        let pos = Position::startpos();
        let mut c = CorrectionHistory::default();
        assert_eq!(c.correction(&pos, 16), 0);
        for _ in 0..1000 {
            c.update(&pos, 0, 300, 10);
        }
        let up = c.correction(&pos, 16);
        assert!(up > 0 && up <= 2 * LIMIT / 16, "{up}");
        for _ in 0..1000 {
            c.update(&pos, 0, -300, 10);
        }
        assert!(c.correction(&pos, 16) < 0);
        // The other side to move has its own entries.
        let mut other = pos.clone();
        other.do_null_move();
        assert_eq!(c.correction(&other, 16), 0);
        c.clear();
        assert_eq!(c.correction(&pos, 16), 0);
    }
}
