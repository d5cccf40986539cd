//! Move-ordering memories: two killer slots per ply, the butterfly
//! history of quiet moves and drops, the capture history, and the
//! continuation histories (a quiet move's record as the reply to the move
//! made one, two or four plies before).

use crate::position::Position;
use crate::search::params::HISTORY_MAX;
use crate::types::{Color, Move, Piece, PieceType};

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

/// Adds `bonus` to an entry with gravity: the closer a score is to the
/// bound `limit`, the less it moves, so scores stay within `±limit` and
/// recent results weigh more than old ones.
#[inline]
pub(super) fn apply_gravity(e: &mut i16, bonus: i32, limit: i32) {
    let b = bonus.clamp(-limit, limit);
    let v = *e as i32 + b - (*e as i32) * b.abs() / limit;
    *e = v.clamp(-limit, limit) as i16;
}

/// `apply_gravity` within the histories' bound.
#[inline]
fn apply_bonus(e: &mut i16, bonus: i32) {
    apply_gravity(e, bonus, HISTORY_MAX);
}

impl ButterflyHistory {
    /// The score of `m` for side `c`.
    #[inline]
    pub fn get(&self, c: Color, m: Move) -> i32 {
        self.table[c.index()][from_slot(m)][m.to().index()] as i32
    }

    /// Adds `bonus` (negative for a malus) with gravity.
    #[inline]
    pub fn update(&mut self, c: Color, m: Move, bonus: i32) {
        apply_bonus(
            &mut self.table[c.index()][from_slot(m)][m.to().index()],
            bonus,
        );
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

/// Number of (piece, destination) pairs: the key of a move in the
/// continuation and capture histories.
pub const PIECE_TO: usize = Piece::NUM * 81;

/// The (piece, destination) key of `m` in `pos` (before the move): the
/// piece as it stands after the move (promoted if it promotes), so that a
/// promotion and the plain move are told apart.
#[inline]
pub fn piece_to(pos: &Position, m: Move) -> usize {
    let p = pos.moved_piece(m);
    let p = if m.is_promotion() {
        Piece::new(p.color(), p.kind().promote())
    } else {
        p
    };
    p.index() * 81 + m.to().index()
}

/// The key of no move (null move, root): `Piece::EMPTY` never moves, so
/// its row is never read for a real move and never updated.
pub const NO_PIECE_TO: usize = 0;

/// Continuation history: for each (piece, destination) of an earlier move,
/// a score per (piece, destination) of the reply. One table serves the
/// moves one, two and four plies back (as in Stockfish and YaneuraOu).
pub struct ContinuationHistory {
    table: Box<[i16]>,
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        ContinuationHistory {
            table: zeroed_table(),
        }
    }
}

/// 13 MB of zeros from the allocator, which maps fresh zero pages: no page
/// is touched until a search uses it.
fn zeroed_table() -> Box<[i16]> {
    vec![0i16; PIECE_TO * PIECE_TO].into_boxed_slice()
}

impl ContinuationHistory {
    /// Score of the reply `to` (a `piece_to` key) after the move `prev`.
    #[inline]
    pub fn get(&self, prev: usize, to: usize) -> i32 {
        self.table[prev * PIECE_TO + to] as i32
    }

    /// Adds `bonus` to the reply `to` after `prev`, with gravity; nothing
    /// for `NO_PIECE_TO`.
    #[inline]
    pub fn update(&mut self, prev: usize, to: usize, bonus: i32) {
        if prev != NO_PIECE_TO {
            apply_bonus(&mut self.table[prev * PIECE_TO + to], bonus);
        }
    }

    /// Forgets everything (new game): a fresh zeroed table rather than
    /// zeros written over 13 MB, which made every helper thread's table
    /// resident at each new game (3.4 GB at 256 threads).
    pub fn clear(&mut self) {
        self.table = Box::default();
        self.table = zeroed_table();
    }

    /// Bytes of one table.
    pub const BYTES: usize = PIECE_TO * PIECE_TO * std::mem::size_of::<i16>();
}

/// Capture history: how often capturing a kind of piece with a (piece,
/// destination) caused cutoffs. Orders captures of equal victims.
pub struct CaptureHistory {
    table: Box<[[i16; 16]; PIECE_TO]>,
}

impl Default for CaptureHistory {
    fn default() -> Self {
        CaptureHistory {
            table: vec![[0i16; 16]; PIECE_TO]
                .into_boxed_slice()
                .try_into()
                .expect("PIECE_TO rows"),
        }
    }
}

impl CaptureHistory {
    /// Score of the capture `m` (key `to`) of a `victim`.
    #[inline]
    pub fn get(&self, to: usize, victim: PieceType) -> i32 {
        self.table[to][victim.index()] as i32
    }

    /// Adds `bonus` with gravity.
    #[inline]
    pub fn update(&mut self, to: usize, victim: PieceType, bonus: i32) {
        apply_bonus(&mut self.table[to][victim.index()], bonus);
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        for row in self.table.iter_mut() {
            row.fill(0);
        }
    }
}

/// Every history of one search thread.
#[derive(Default)]
pub struct Histories {
    /// Quiet moves by side, from and to.
    pub main: ButterflyHistory,
    /// Captures by (piece, destination) and victim.
    pub capture: CaptureHistory,
    /// Quiet moves as replies to earlier moves.
    pub continuation: ContinuationHistory,
}

impl Histories {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.main.clear();
        self.capture.clear();
        self.continuation.clear();
    }

    /// The ordering score of the quiet move `m` (key `to`) for side `c`,
    /// given the keys of the moves one, two and four plies back.
    #[inline]
    pub fn quiet_score(&self, c: Color, m: Move, to: usize, cont: &[usize; 3]) -> i32 {
        2 * self.main.get(c, m)
            + self.continuation.get(cont[0], to)
            + self.continuation.get(cont[1], to)
            + self.continuation.get(cont[2], to)
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

    #[test]
    fn continuation_and_capture_histories_learn_per_key() {
        let pos = Position::startpos();
        let m = crate::position::parse_usi_move_text("7g7f").unwrap();
        let reply = crate::position::parse_usi_move_text("3c3d").unwrap();
        let key = piece_to(&pos, m);
        let mut after = pos.clone();
        after.do_move(m);
        let reply_key = piece_to(&after, reply);
        assert_ne!(key, reply_key);
        let mut h = Histories::default();
        h.continuation.update(key, reply_key, 500);
        assert_eq!(h.continuation.get(key, reply_key), 500);
        // The row of no move is never written.
        h.continuation.update(NO_PIECE_TO, reply_key, 500);
        assert_eq!(h.continuation.get(NO_PIECE_TO, reply_key), 0);
        let cont = [key, NO_PIECE_TO, NO_PIECE_TO];
        assert_eq!(h.quiet_score(Color::White, reply, reply_key, &cont), 500);
        h.capture.update(reply_key, PieceType::Pawn, -300);
        assert_eq!(h.capture.get(reply_key, PieceType::Pawn), -300);
        assert_eq!(h.capture.get(reply_key, PieceType::Rook), 0);
        h.clear();
        assert_eq!(h.continuation.get(key, reply_key), 0);
        assert_eq!(h.capture.get(reply_key, PieceType::Pawn), 0);
    }

    #[test]
    fn a_promotion_has_its_own_key() {
        let pos = Position::from_sfen("4k4/9/9/2P6/9/9/9/9/4K4 b - 1").unwrap();
        let plain = crate::position::parse_usi_move_text("7d7c").unwrap();
        let promo = crate::position::parse_usi_move_text("7d7c+").unwrap();
        assert_ne!(piece_to(&pos, plain), piece_to(&pos, promo));
    }
}
