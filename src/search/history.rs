//! Move-ordering memories: two killer slots per ply, the butterfly
//! history of quiet moves and drops, the capture history, the
//! continuation histories (a quiet move's record as the reply to the move
//! made one, two or four plies before) and the pawn history (a quiet
//! move's record in positions with the same pawns).

use crate::position::Position;
use crate::search::params::HISTORY_MAX;
use crate::types::{Color, Move, Piece, PieceType, Square};

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

/// YaneuraOu's bounds of its butterfly, continuation, pawn and capture
/// histories (ours are all `HISTORY_MAX`): `YoHistory` rescales its
/// updates by them.
const YO_MAIN_BOUND: i32 = 7_183;
const YO_CONT_BOUND: i32 = 30_000;
const YO_PAWN_BOUND: i32 = 8_192;
const YO_CAPTURE_BOUND: i32 = 10_692;

/// YaneuraOu's shares (in 1024) of a continuation update for the tables
/// of the moves one, two and four plies back.
const YO_CONT_WEIGHTS: [i32; 3] = [1157, 648, 576];

/// Number of "from" slots: 81 squares, then one per droppable kind.
const FROM_SLOTS: usize = 81 + 8;

/// Plies from the root whose quiet moves also have a history of their own
/// (Stockfish's and YaneuraOu's `LOW_PLY_HISTORY_SIZE`).
pub const LOW_PLY: usize = 5;

/// The low-ply history (`LowPlyHistory`): quiet moves by ply from the
/// root (below `LOW_PLY`), origin and destination. The few nodes near
/// the root are searched again at every iteration, so their own record
/// orders them better than the game-long tables; forgotten at each
/// search, as the root changes.
#[derive(Default)]
pub struct LowPlyHistory {
    tables: MoveTables<LOW_PLY>,
}

impl LowPlyHistory {
    /// The score of `m` at `ply` (below `LOW_PLY`).
    #[inline]
    pub fn get(&self, ply: usize, m: Move) -> i32 {
        self.tables.get(ply, m)
    }

    /// Adds `bonus` to `m` at `ply` with gravity; plies from `LOW_PLY` on
    /// have no table.
    #[inline]
    pub fn update(&mut self, ply: usize, m: Move, bonus: i32) {
        if ply < LOW_PLY {
            self.tables.update(ply, m, bonus);
        }
    }

    /// Forgets everything (new search).
    pub fn clear(&mut self) {
        self.tables.clear();
    }
}

/// `N` tables of quiet-move scores by "from" slot and destination: the
/// butterfly history's two (one per side) and the low-ply history's
/// five (one per ply).
struct MoveTables<const N: usize> {
    table: Box<[[[i16; 81]; FROM_SLOTS]; N]>,
}

impl<const N: usize> Default for MoveTables<N> {
    fn default() -> Self {
        MoveTables {
            table: Box::new([[[0; 81]; FROM_SLOTS]; N]),
        }
    }
}

impl<const N: usize> MoveTables<N> {
    /// The score of `m` in table `i`.
    #[inline]
    fn get(&self, i: usize, m: Move) -> i32 {
        self.table[i][from_slot(m)][m.to().index()] as i32
    }

    /// Adds `bonus` (negative for a malus) to `m` in table `i`, with
    /// gravity.
    #[inline]
    fn update(&mut self, i: usize, m: Move, bonus: i32) {
        apply_bonus(&mut self.table[i][from_slot(m)][m.to().index()], bonus);
    }

    /// Zeroes every table.
    fn clear(&mut self) {
        for t in self.table.iter_mut() {
            for row in t.iter_mut() {
                row.fill(0);
            }
        }
    }
}

/// Butterfly history: how often a quiet move (from/to, drops keyed by the
/// dropped kind) caused cutoffs, per side to move.
#[derive(Default)]
pub struct ButterflyHistory {
    tables: MoveTables<2>,
}

/// The "from" slot of `m`: its origin square, or 81 + the dropped kind.
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
        self.tables.get(c.index(), m)
    }

    /// Adds `bonus` (negative for a malus) with gravity.
    #[inline]
    pub fn update(&mut self, c: Color, m: Move, bonus: i32) {
        self.tables.update(c.index(), m, bonus);
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.tables.clear();
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
            table: zeroed(PIECE_TO * PIECE_TO),
        }
    }
}

/// `len` zeros from the allocator, which maps fresh zero pages for a
/// large table (13 MB for the continuation history): no page is touched
/// until a search uses it.
pub(super) fn zeroed(len: usize) -> Box<[i16]> {
    vec![0i16; len].into_boxed_slice()
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
        self.table = zeroed(PIECE_TO * PIECE_TO);
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

/// Rows of the pawn history (a power of two), one per pawn-structure slot.
const PAWN_SLOTS: usize = 1_024;

/// The pawn-history row of no structure (the technique switched off): one
/// row past the real ones, never written, so it reads zero.
pub const NO_PAWN_SLOT: usize = PAWN_SLOTS;

/// Pawn history (Stockfish's and YaneuraOu's): a score per (piece,
/// destination) of a quiet move, per slot of the pawn structure. The
/// pawns change slowly, so the moves that worked in one position keep
/// working in its neighbours, and the table tells the plans that suit a
/// structure from the ones that do not, where the butterfly history
/// mixes every structure of the game.
pub struct PawnHistory {
    table: Box<[i16]>,
}

impl Default for PawnHistory {
    fn default() -> Self {
        PawnHistory {
            table: zeroed(Self::LEN),
        }
    }
}

impl PawnHistory {
    /// The row of the pawn structure with the 64-bit key `pawn_key`.
    #[inline]
    pub fn slot(pawn_key: u64) -> usize {
        (pawn_key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize & (PAWN_SLOTS - 1)
    }

    /// Score of the quiet move `to` (a `piece_to` key) in the structure
    /// `slot`.
    #[inline]
    pub fn get(&self, slot: usize, to: usize) -> i32 {
        self.table[slot * PIECE_TO + to] as i32
    }

    /// Adds `bonus` with gravity; nothing for `NO_PAWN_SLOT`.
    #[inline]
    pub fn update(&mut self, slot: usize, to: usize, bonus: i32) {
        if slot < PAWN_SLOTS {
            apply_bonus(&mut self.table[slot * PIECE_TO + to], bonus);
        }
    }

    /// Forgets everything (new game), as `ContinuationHistory::clear`.
    pub fn clear(&mut self) {
        self.table = Box::default();
        self.table = zeroed(Self::LEN);
    }

    /// Entries of one table: the slots and the row of no structure.
    const LEN: usize = (PAWN_SLOTS + 1) * PIECE_TO;

    /// Bytes of one table.
    pub const BYTES: usize = Self::LEN * std::mem::size_of::<i16>();
}

/// What a quiet move's histories are looked up by, besides the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietKeys {
    /// Keys of the moves one, two and four plies back (`NO_PIECE_TO` where
    /// there is none).
    pub cont: [usize; 3],
    /// The pawn-history row of the position (`NO_PAWN_SLOT` when off).
    pub pawn_slot: usize,
}

impl QuietKeys {
    /// No earlier move, no pawn structure.
    pub const NONE: QuietKeys = QuietKeys {
        cont: [NO_PIECE_TO; 3],
        pawn_slot: NO_PAWN_SLOT,
    };
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
    /// Quiet moves by the pawn structure they were played in.
    pub pawn: PawnHistory,
    /// Quiet moves near the root of this search.
    pub low_ply: LowPlyHistory,
}

impl Histories {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.main.clear();
        self.capture.clear();
        self.continuation.clear();
        self.pawn.clear();
        self.low_ply.clear();
    }

    /// `YoHistory`: adds YaneuraOu's update `bonus` (on its scale) to the
    /// quiet histories of `m` (key `to`) for side `c` after the moves
    /// `keys`, each table by YaneuraOu's share for it (the continuation
    /// tables of the moves one, two and four plies back by its 1157, 648
    /// and 576 in 1024, the first also its fixed 88; the pawn history by
    /// 850 or 550) and resized from YaneuraOu's bound to ours.
    pub fn update_quiet_yo(&mut self, c: Color, m: Move, to: usize, keys: &QuietKeys, bonus: i32) {
        self.main.update(c, m, bonus * HISTORY_MAX / YO_MAIN_BOUND);
        self.update_continuation_yo(to, keys, bonus * 955 / 1024);
        let pawn = bonus * if bonus > 0 { 850 } else { 550 } / 1024;
        self.pawn
            .update(keys.pawn_slot, to, pawn * HISTORY_MAX / YO_PAWN_BOUND);
    }

    /// `LowPlyHistory`: YaneuraOu's share (761 of 1,024) of the quiet
    /// update `amount` (on its scale with `yo`) to the low-ply history of
    /// `m` at `ply`.
    pub fn update_low_ply(&mut self, ply: usize, m: Move, amount: i32, yo: bool) {
        let amount = if yo {
            amount * HISTORY_MAX / YO_MAIN_BOUND
        } else {
            amount
        };
        self.low_ply.update(ply, m, amount * 761 / 1024);
    }

    /// `YoLmr`: YaneuraOu's bonus `amount` (on its scale) to the
    /// continuation histories of a move that beat alpha at its reduced
    /// depth, each ply's table by YaneuraOu's share.
    pub fn update_continuation_yo(&mut self, to: usize, keys: &QuietKeys, amount: i32) {
        for (i, &prev) in keys.cont.iter().enumerate() {
            let b = amount * YO_CONT_WEIGHTS[i] / 1024 + if i == 0 { 88 } else { 0 };
            self.continuation
                .update(prev, to, b * HISTORY_MAX / YO_CONT_BOUND);
        }
    }

    /// `YoLmr`: YaneuraOu's `statScore` of a quiet move, its histories
    /// read on its scale: the butterfly history twice and the
    /// continuation histories of the moves one and two plies back.
    #[inline]
    pub fn yo_quiet_stat(&self, c: Color, m: Move, to: usize, keys: &QuietKeys) -> i32 {
        let cont =
            self.continuation.get(keys.cont[0], to) + self.continuation.get(keys.cont[1], to);
        (2 * self.main.get(c, m) * YO_MAIN_BOUND + cont * YO_CONT_BOUND) / HISTORY_MAX
    }

    /// `YoLmr`: the capture history of `to` taking a `victim`, on
    /// YaneuraOu's scale.
    #[inline]
    pub fn yo_capture_stat(&self, to: usize, victim: PieceType) -> i32 {
        self.capture.get(to, victim) * YO_CAPTURE_BOUND / HISTORY_MAX
    }

    /// `YoHistory`: a capture-history update of YaneuraOu's scale on ours.
    pub fn yo_capture_amount(amount: i32) -> i32 {
        amount * HISTORY_MAX / YO_CAPTURE_BOUND
    }

    /// The ordering score of the quiet move `m` (key `to`) for side `c`:
    /// the butterfly and pawn histories twice, the continuation histories
    /// once (YaneuraOu's weights).
    #[inline]
    pub fn quiet_score(&self, c: Color, m: Move, to: usize, keys: &QuietKeys) -> i32 {
        self.quiet_rows(c, keys)
            .score(from_slot(m), m.to().index(), to)
    }

    /// The rows `quiet_score` reads for side `c` after the moves `keys`,
    /// looked up once for a batch of moves.
    #[inline]
    pub fn quiet_rows(&self, c: Color, keys: &QuietKeys) -> QuietRows<'_> {
        fn row(t: &[i16], r: usize) -> &[i16] {
            &t[r * PIECE_TO..(r + 1) * PIECE_TO]
        }
        QuietRows {
            main: &self.main.tables.table[c.index()],
            pawn: row(&self.pawn.table, keys.pawn_slot),
            cont: [
                row(&self.continuation.table, keys.cont[0]),
                row(&self.continuation.table, keys.cont[1]),
                row(&self.continuation.table, keys.cont[2]),
            ],
        }
    }
}

/// The history rows of one node's quiet moves (`Histories::quiet_rows`).
pub struct QuietRows<'a> {
    main: &'a [[i16; 81]; FROM_SLOTS],
    pawn: &'a [i16],
    cont: [&'a [i16]; 3],
}

impl QuietRows<'_> {
    /// `quiet_score` of the board move `from`–`to` with `piece_to` key `key`.
    #[inline(always)]
    pub fn board_move(&self, from: Square, to: Square, key: usize) -> i32 {
        self.score(from.index(), to.index(), key)
    }

    /// `quiet_score` of the drop of `pt` on `to` with `piece_to` key `key`.
    #[inline(always)]
    pub fn drop(&self, pt: PieceType, to: Square, key: usize) -> i32 {
        self.score(81 + pt as usize, to.index(), key)
    }

    /// The score of a move from `from_slot` to square index `to`.
    #[inline(always)]
    fn score(&self, from_slot: usize, to: usize, key: usize) -> i32 {
        2 * self.main[from_slot][to] as i32
            + 2 * self.pawn[key] as i32
            + self.cont[0][key] as i32
            + self.cont[1][key] as i32
            + self.cont[2][key] as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{PieceType, Square};

    /// `YoHistory`'s updates land on each table resized to our bound: a
    /// malus seven times the bonus (YaneuraOu's at depth 2) leaves the
    /// move well below zero in every table, the first continuation
    /// table a little above the second (its larger weight and fixed part).
    #[test]
    fn yo_updates_scale_to_our_bounds() {
        let mut h = Histories::default();
        let m = mv(40);
        let keys = yo_keys(5);
        h.update_quiet_yo(Color::Black, m, 100, &keys, 1_000);
        assert_eq!(
            h.main.get(Color::Black, m),
            1_000 * HISTORY_MAX / YO_MAIN_BOUND
        );
        let first = h.continuation.get(keys.cont[0], 100);
        let second = h.continuation.get(keys.cont[1], 100);
        assert!(first > second && second > 0, "{first} {second}");
        assert!(h.pawn.get(5, 100) > 0);
        for _ in 0..3 {
            h.update_quiet_yo(Color::Black, m, 100, &keys, -7_000);
        }
        assert!(h.main.get(Color::Black, m) < -HISTORY_MAX / 2);
        assert!(h.continuation.get(keys.cont[0], 100) < 0);
        assert!(h.pawn.get(5, 100) < 0);
        assert!(h.main.get(Color::Black, m).abs() <= HISTORY_MAX);
    }

    #[test]
    fn yo_stat_scores_read_yaneuraous_scale() {
        let mut h = Histories::default();
        let m = mv(40);
        let keys = yo_keys(NO_PAWN_SLOT);
        assert_eq!(h.yo_quiet_stat(Color::Black, m, 100, &keys), 0);
        // At each table's bound, the score is YaneuraOu's at its bounds:
        // the butterfly history twice, the first two continuations once.
        for _ in 0..200 {
            h.main.update(Color::Black, m, HISTORY_MAX);
            h.continuation.update(1, 100, HISTORY_MAX);
            h.continuation.update(2, 100, HISTORY_MAX);
            h.continuation.update(3, 100, HISTORY_MAX);
            h.capture.update(100, PieceType::Gold, -HISTORY_MAX);
        }
        assert_eq!(
            h.yo_quiet_stat(Color::Black, m, 100, &keys),
            2 * YO_MAIN_BOUND + 2 * YO_CONT_BOUND
        );
        assert_eq!(h.yo_capture_stat(100, PieceType::Gold), -YO_CAPTURE_BOUND);
        // The post-reduction bonus reaches the three continuation tables,
        // the nearest ply most.
        let mut g = Histories::default();
        g.update_continuation_yo(100, &keys, 1426);
        let c: Vec<i32> = (1..=3).map(|k| g.continuation.get(k, 100)).collect();
        assert!(c[0] > c[1] && c[1] > 0 && c[2] > 0, "{c:?}");
        assert_eq!(g.main.get(Color::Black, m), 0);
    }

    /// Keys of three earlier moves (1, 2, 3) and the pawn row `pawn_slot`.
    fn yo_keys(pawn_slot: usize) -> QuietKeys {
        QuietKeys {
            cont: [1, 2, 3],
            pawn_slot,
        }
    }

    /// `LowPlyHistory`: an update lands at its own ply only (at
    /// YaneuraOu's share, its scale resized with `yo`), nowhere from
    /// `LOW_PLY` on, and `clear` forgets it.
    #[test]
    fn low_ply_updates_land_at_their_ply_only() {
        let mut h = Histories::default();
        let (m, other) = (mv(40), mv(50));
        h.update_low_ply(2, m, 4_096, false);
        h.update_low_ply(3, other, 1_000, true);
        h.update_low_ply(LOW_PLY, m, 4_096, false);
        assert_eq!(h.low_ply.get(2, m), 4_096 * 761 / 1024);
        assert_eq!(
            h.low_ply.get(3, other),
            1_000 * HISTORY_MAX / YO_MAIN_BOUND * 761 / 1024
        );
        for ply in (0..LOW_PLY).filter(|&p| p != 2) {
            assert_eq!(h.low_ply.get(ply, m), 0, "ply {ply}");
        }
        assert_eq!(h.low_ply.get(2, other), 0);
        h.low_ply.clear();
        assert_eq!(h.low_ply.get(2, m), 0);
    }

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
        let mut keys = QuietKeys {
            cont: [key, NO_PIECE_TO, NO_PIECE_TO],
            ..QuietKeys::NONE
        };
        assert_eq!(h.quiet_score(Color::White, reply, reply_key, &keys), 500);
        // The pawn history adds twice its score in the structure's row.
        let slot = PawnHistory::slot(0x1234_5678_9ABC_DEF0);
        h.pawn.update(slot, reply_key, 100);
        assert_eq!(h.pawn.get(slot, reply_key), 100);
        keys.pawn_slot = slot;
        assert_eq!(h.quiet_score(Color::White, reply, reply_key, &keys), 700);
        // The row of no structure is never written.
        h.pawn.update(NO_PAWN_SLOT, reply_key, 100);
        assert_eq!(h.pawn.get(NO_PAWN_SLOT, reply_key), 0);
        h.capture.update(reply_key, PieceType::Pawn, -300);
        assert_eq!(h.capture.get(reply_key, PieceType::Pawn), -300);
        assert_eq!(h.capture.get(reply_key, PieceType::Rook), 0);
        h.clear();
        assert_eq!(h.continuation.get(key, reply_key), 0);
        assert_eq!(h.capture.get(reply_key, PieceType::Pawn), 0);
        assert_eq!(h.pawn.get(slot, reply_key), 0);
    }

    #[test]
    fn a_promotion_has_its_own_key() {
        let pos = Position::from_sfen("4k4/9/9/2P6/9/9/9/9/4K4 b - 1").unwrap();
        let plain = crate::position::parse_usi_move_text("7d7c").unwrap();
        let promo = crate::position::parse_usi_move_text("7d7c+").unwrap();
        assert_ne!(piece_to(&pos, plain), piece_to(&pos, promo));
    }
}
