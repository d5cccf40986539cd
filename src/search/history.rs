//! Move-ordering memories: two killer slots per ply and the butterfly
//! history of quiet moves and drops.

use crate::search::params::HISTORY_MAX;
use crate::types::{Color, Move};

/// The two killer moves of one ply: quiet moves (neither captures nor
/// promotions) that caused a beta cutoff in a sibling node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Killers(pub [Move; 2]);

impl Killers {
    /// Records a cutoff by `m`, exactly as SEARCH_NOTES (003) prescribes:
    /// compare with slot 0 only, so a killer in slot 1 that cuts again moves
    /// back to slot 0 and the pair behaves as a queue.
    #[inline]
    pub fn update(&mut self, m: Move) {
        if self.0[0] != m {
            self.0[1] = self.0[0];
            self.0[0] = m;
        }
    }

    /// Whether `m` is one of the first `slots` killers.
    #[inline]
    pub fn contains(&self, m: Move, slots: usize) -> bool {
        self.0[..slots.min(2)].contains(&m)
    }
}

/// Number of "from" slots: 81 squares, then one per droppable kind.
const FROM_SLOTS: usize = 81 + 8;

/// Butterfly history: how often a quiet move (from/to, drops keyed by the
/// dropped kind) caused cutoffs, per side to move.
pub struct ButterflyHistory {
    table: Box<[[[i16; 81]; FROM_SLOTS]; 2]>,
}

impl Default for ButterflyHistory {
    fn default() -> Self {
        ButterflyHistory {
            table: Box::new([[[0; 81]; FROM_SLOTS]; 2]),
        }
    }
}

#[inline]
fn from_slot(m: Move) -> usize {
    if m.is_drop() {
        81 + m.dropped() as usize
    } else {
        m.from().index()
    }
}

impl ButterflyHistory {
    /// The score of `m` for side `c`.
    #[inline]
    pub fn get(&self, c: Color, m: Move) -> i32 {
        self.table[c.index()][from_slot(m)][m.to().index()] as i32
    }

    /// Adds `bonus` (negative for a malus) with gravity: the closer a score
    /// is to the bound, the less it moves, so scores stay within
    /// `±HISTORY_MAX` and recent results weigh more than old ones.
    #[inline]
    pub fn update(&mut self, c: Color, m: Move, bonus: i32) {
        let e = &mut self.table[c.index()][from_slot(m)][m.to().index()];
        let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let v = *e as i32 + b - (*e as i32) * b.abs() / HISTORY_MAX;
        *e = v.clamp(-HISTORY_MAX, HISTORY_MAX) as i16;
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        for side in self.table.iter_mut() {
            for row in side.iter_mut() {
                row.fill(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{PieceType, Square};

    fn mv(i: u8) -> Move {
        Move::normal(
            Square::from_index(i as usize),
            Square::from_index(i as usize + 1),
            false,
        )
    }

    #[test]
    fn killer_update_rule_is_exact() {
        let (a, b, c) = (mv(1), mv(10), mv(20));
        let mut k = Killers::default();
        k.update(a);
        assert_eq!(k.0, [a, Move::NONE]);
        // The same killer again changes nothing.
        k.update(a);
        assert_eq!(k.0, [a, Move::NONE]);
        k.update(b);
        assert_eq!(k.0, [b, a]);
        // The killer in slot 1 cuts again: it moves back to slot 0 (and the
        // other one to slot 1) because only slot 0 is compared.
        k.update(a);
        assert_eq!(k.0, [a, b]);
        k.update(c);
        assert_eq!(k.0, [c, a]);
        assert!(k.contains(a, 2) && !k.contains(a, 1) && !k.contains(b, 2));
    }

    #[test]
    fn history_gravity_stays_bounded() {
        let mut h = ButterflyHistory::default();
        let m = Move::drop(PieceType::Gold, Square::from_index(40));
        for _ in 0..1000 {
            h.update(Color::Black, m, 2000);
        }
        let v = h.get(Color::Black, m);
        assert!(v > 0 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.get(Color::White, m), 0);
        h.update(Color::Black, m, -2000);
        assert!(h.get(Color::Black, m) < v);
        h.clear();
        assert_eq!(h.get(Color::Black, m), 0);
    }
}
