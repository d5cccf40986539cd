//! Correction history of the static evaluation: how far the searches of
//! positions with the same pawn structure, with the same pieces in hand,
//! with the same minor pieces on the board and with the same non-pawn
//! pieces of either side found the true value from the static one. The
//! average error is added to later static evaluations of positions
//! sharing the key, so the pruning margins measure from a better estimate.
//! A further table (`Features::continuation_correction`) keys the error by
//! the last move and the moves two and four plies before it, as
//! Stockfish's and YaneuraOu's continuation correction history.
//!
//! The tables of the board's pieces (`Features::piece_set_correction`,
//! Stockfish's and YaneuraOu's minor-piece and non-pawn tables) matter
//! most with a coarse evaluation: with material alone the hand table
//! moves with every capture, so its few points decided which of many
//! equal exchanges stood above alpha, and reduced searches failed high by
//! chance (README, "Which table breaks the ties").

use super::history::{apply_gravity, zeroed, NO_PIECE_TO, PIECE_TO};
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

/// The `history::piece_to` keys of the moves that led to a node: the last
/// one, and the ones two and four plies before it (`NO_PIECE_TO` where
/// there is none, or with the continuation correction off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveKeys {
    /// The move that led to the node.
    pub last: usize,
    /// Our own moves two and four plies back.
    pub earlier: [usize; 2],
}

impl MoveKeys {
    /// No earlier moves: the continuation table is neither read nor
    /// written.
    pub const NONE: MoveKeys = MoveKeys {
        last: NO_PIECE_TO,
        earlier: [NO_PIECE_TO; 2],
    };

    /// The entries of the continuation table these keys name: (earlier
    /// move, last move) pairs, with their weights in the update (the move
    /// four plies back learns at half the rate).
    #[inline]
    fn entries(self) -> impl Iterator<Item = (usize, i32)> {
        let last = self.last;
        self.earlier
            .into_iter()
            .zip([2, 1])
            .filter(move |&(e, _)| last != NO_PIECE_TO && e != NO_PIECE_TO)
            .map(move |(e, w)| (e * PIECE_TO + last, w))
    }
}

/// The tables: the pawn and hand tables per side to move, and the
/// continuation table by (earlier move, last move), whose pieces carry
/// their colour.
pub struct CorrectionHistory {
    pawn: Box<[[i16; SIZE]; 2]>,
    hand: Box<[[i16; SIZE]; 2]>,
    minor: Box<[[i16; SIZE]; 2]>,
    /// By the colour whose pieces are keyed, then the side to move.
    non_pawn: Box<[[[i16; SIZE]; 2]; 2]>,
    continuation: Box<[i16]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            pawn: Box::new([[0; SIZE]; 2]),
            hand: Box::new([[0; SIZE]; 2]),
            minor: Box::new([[0; SIZE]; 2]),
            non_pawn: Box::new([[[0; SIZE]; 2]; 2]),
            continuation: zeroed(PIECE_TO * PIECE_TO),
        }
    }
}

impl CorrectionHistory {
    /// Bytes of the continuation table (the rest is small).
    pub const CONTINUATION_BYTES: usize = PIECE_TO * PIECE_TO * std::mem::size_of::<i16>();

    /// The correction to add to the static evaluation of `pos` reached by
    /// the moves `keys`; the pawn, hand and each non-pawn table contribute
    /// at most `LIMIT / divisor`, the minor-piece table 17/24 of that and
    /// the continuation entries 2/3 each (YaneuraOu's weights relative to
    /// its pawn table: 8,620, 12,355 and 7,982 against 12,153). The
    /// tables of the board's pieces are read only with `piece_sets`.
    #[inline]
    pub fn correction(
        &self,
        pos: &Position,
        keys: MoveKeys,
        piece_sets: bool,
        divisor: i32,
    ) -> Value {
        let us = pos.side_to_move().index();
        let p = self.pawn[us][slot(pawn_key(pos))] as i32;
        let h = self.hand[us][slot(hand_key(pos))] as i32;
        let (m, n) = if piece_sets {
            let sets = pos.piece_set_keys();
            (
                self.minor[us][slot(sets.minor)] as i32,
                self.non_pawn[0][us][slot(sets.non_pawn[0])] as i32
                    + self.non_pawn[1][us][slot(sets.non_pawn[1])] as i32,
            )
        } else {
            (0, 0)
        };
        let c: i32 = keys
            .entries()
            .map(|(i, _)| self.continuation[i] as i32)
            .sum();
        (24 * (p + h + n) + 17 * m + 16 * c) / (24 * divisor.max(1))
    }

    /// Records that a search to `depth` found `searched` where the static
    /// evaluation said `raw`: entries move towards the error, deeper
    /// searches weigh more. The tables of the board's pieces learn only
    /// with `piece_sets`, the faster the more specific their key
    /// (YaneuraOu's rates: 153/128 for the minor pieces, 187/128 for the
    /// non-pawn pieces).
    #[inline]
    pub fn update(
        &mut self,
        pos: &Position,
        keys: MoveKeys,
        piece_sets: bool,
        raw: Value,
        searched: Value,
        depth: i32,
    ) {
        let us = pos.side_to_move().index();
        let bonus = ((searched - raw) * depth / 8).clamp(-MAX_BONUS, MAX_BONUS);
        apply_gravity(&mut self.pawn[us][slot(pawn_key(pos))], bonus, LIMIT);
        apply_gravity(&mut self.hand[us][slot(hand_key(pos))], bonus, LIMIT);
        if piece_sets {
            let sets = pos.piece_set_keys();
            apply_gravity(
                &mut self.minor[us][slot(sets.minor)],
                bonus * 153 / 128,
                LIMIT,
            );
            for (c, key) in sets.non_pawn.into_iter().enumerate() {
                apply_gravity(
                    &mut self.non_pawn[c][us][slot(key)],
                    bonus * 187 / 128,
                    LIMIT,
                );
            }
        }
        for (i, weight) in keys.entries() {
            apply_gravity(&mut self.continuation[i], bonus * weight / 2, LIMIT);
        }
    }

    /// Forgets everything (new game); the continuation table is replaced
    /// by fresh zero pages rather than written over.
    pub fn clear(&mut self) {
        for t in [&mut *self.pawn, &mut *self.hand, &mut *self.minor]
            .into_iter()
            .chain(self.non_pawn.iter_mut())
        {
            for side in t.iter_mut() {
                side.fill(0);
            }
        }
        self.continuation = Box::default();
        self.continuation = zeroed(PIECE_TO * PIECE_TO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_errors_and_stay_bounded() {
        let pos = Position::startpos();
        let mut c = CorrectionHistory::default();
        let none = MoveKeys::NONE;
        assert_eq!(c.correction(&pos, none, true, 16), 0);
        for _ in 0..1000 {
            c.update(&pos, none, true, 0, 300, 10);
        }
        let up = c.correction(&pos, none, true, 16);
        assert!(up > 0 && up <= (24 * 4 + 17) * LIMIT / (24 * 16), "{up}");
        for _ in 0..1000 {
            c.update(&pos, none, true, 0, -300, 10);
        }
        assert!(c.correction(&pos, none, true, 16) < 0);
        // The other side to move has its own entries.
        let mut other = pos.clone();
        other.do_null_move();
        assert_eq!(c.correction(&other, none, true, 16), 0);
        c.clear();
        assert_eq!(c.correction(&pos, none, true, 16), 0);
    }

    #[test]
    fn piece_set_tables_learn_only_when_asked_and_follow_the_board() {
        let pos = Position::startpos();
        let mut c = CorrectionHistory::default();
        let none = MoveKeys::NONE;
        for _ in 0..1000 {
            c.update(&pos, none, false, 0, 300, 10);
        }
        let pawn_and_hand = c.correction(&pos, none, true, 16);
        for _ in 0..1000 {
            c.update(&pos, none, true, 0, 300, 10);
        }
        let all = c.correction(&pos, none, true, 16);
        assert!(all > pawn_and_hand, "{all} {pawn_and_hand}");
        // A silver move keeps the pawns, the hands and the other side's
        // pieces: the minor-piece table and the mover's non-pawn table no
        // longer apply.
        let mut moved = pos.clone();
        moved.do_move(moved.parse_usi_move("3i3h").unwrap());
        moved.do_null_move();
        let after = c.correction(&moved, none, true, 16);
        assert!(pawn_and_hand < after && after < all, "{after}");
    }

    #[test]
    fn continuation_entries_follow_the_moves_that_led_here() {
        let pos = Position::startpos();
        let mut c = CorrectionHistory::default();
        let keys = MoveKeys {
            last: 100,
            earlier: [200, 300],
        };
        for _ in 0..1000 {
            c.update(&pos, keys, true, 0, 300, 10);
        }
        let with = c.correction(&pos, keys, true, 16);
        let without = c.correction(&pos, MoveKeys::NONE, true, 16);
        assert!(with > without, "{with} {without}");
        assert!(
            with <= (24 * 4 * LIMIT + 17 * LIMIT + 16 * 2 * LIMIT) / (24 * 16),
            "{with}"
        );
        // Another last move reads none of it; no last move (a null move)
        // reads nothing of the earlier ones either.
        let other = MoveKeys { last: 101, ..keys };
        assert_eq!(c.correction(&pos, other, true, 16), without);
        let null = MoveKeys {
            last: NO_PIECE_TO,
            ..keys
        };
        assert_eq!(c.correction(&pos, null, true, 16), without);
        c.clear();
        assert_eq!(c.correction(&pos, keys, true, 16), 0);
    }
}
