//! The hidden layer's pre-activations ("accumulators") of both
//! perspectives, kept per ply of the position's history and updated from
//! the previous ply's by the few features a move changes.
//!
//! Entries live in a small ring indexed by the history length and are
//! tagged with the position key they were computed for. An evaluation
//! looks for its own entry; failing that it walks back a few plies to the
//! nearest valid ancestor and replays the moves from there; failing that
//! it recomputes from scratch. Because validity is checked by key, nothing
//! needs to hook `do_move`/`undo_move`, and a stale entry can never be used
//! for a position it does not belong to (barring a 64-bit key collision).
//!
//! With king buckets (`features::InputFeatures::KingBuckets`) a king move
//! that changes its bucket changes every row of its side's perspective:
//! that perspective is then recomputed from the position, which is only
//! at hand for the last move, so such a move is replayed only as the last
//! one and never taken back (the walks below stop at it).

use super::features::{board_feature, hand_feature, king_bucket, InputFeatures, NUM_FEATURES};
use super::kernels::{add_row, sub_row, update_1_1, update_2_2};
use super::network::Network;
use super::refresh_cache::RefreshCache;
use super::{EVAL_SCALE, QA, QB};
use crate::position::Position;
use crate::types::{Color, Piece, PieceType, Value};
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Ring size: more than the deepest search path, so that the ancestors a
/// node replays from are never overwritten by its own descendants.
const RING: usize = 256;

/// Moves replayed at most before a full refresh is cheaper.
const MAX_REPLAY: usize = 8;

/// After a refresh, the ancestors this many moves back are derived from it
/// (one cheap reverse update each). Nodes whose eval came from the hash
/// table leave no accumulator, so in later iterations whole lines near the
/// root have none; without this every child of such a node refreshed again
/// (3.7 % of evaluations at bench depth 11), with it their siblings replay
/// from a shared ancestor.
const REFRESH_ANCESTORS: usize = 4;

/// Evaluations are clamped to this, well inside the non-mate range.
pub const MAX_EVAL: Value = 20_000;

/// Rows added and removed by one move in one perspective.
type Rows = ArrayVec<usize, 2>;

/// Per-thread accumulator store for one network.
pub struct Accumulators {
    net: Option<Arc<Network>>,
    hidden: usize,
    /// Key of the position each slot was computed for.
    keys: Vec<u64>,
    valid: Vec<bool>,
    /// `RING × 2 perspectives × hidden` pre-activations.
    values: Vec<i16>,
    /// Where refreshes start from.
    cache: RefreshCache,
}

impl Default for Accumulators {
    fn default() -> Self {
        Accumulators::new()
    }
}

impl Accumulators {
    /// An empty store, bound to no network.
    pub fn new() -> Accumulators {
        Accumulators {
            net: None,
            hidden: 0,
            keys: vec![0; RING],
            valid: vec![false; RING],
            values: Vec::new(),
            cache: RefreshCache::new(),
        }
    }

    /// Makes the store serve `net`, dropping what was computed for another
    /// network. Call before searching (it may allocate).
    pub fn bind(&mut self, net: &Arc<Network>) {
        if self.net.as_ref().is_some_and(|n| Arc::ptr_eq(n, net)) {
            return;
        }
        self.net = Some(Arc::clone(net));
        self.hidden = net.hidden();
        self.values = vec![0; RING * 2 * self.hidden];
        self.cache.bind(net);
        self.valid.iter_mut().for_each(|v| *v = false);
    }

    /// The evaluation of `pos` by `net`, from the side to move's point of
    /// view, in centipawns.
    pub fn evaluate(&mut self, net: &Arc<Network>, pos: &Position) -> Value {
        self.bind(net);
        let n = pos.state_count() - 1;
        if !self.is_valid(pos, n) {
            // One copy of the update per feature set, so that the plain
            // set's pays nothing for the buckets (it measured 5-7 % of
            // bench speed when shared).
            match net.features() {
                InputFeatures::PieceSquare => self.update::<false>(net, pos, n),
                InputFeatures::KingBuckets => self.update::<true>(net, pos, n),
            }
        }
        finish(net, pos, self.output(net, n, pos.side_to_move()))
    }

    /// Makes state `n`'s accumulators from a valid ancestor's, or from
    /// scratch. `BUCKETS`: the network has king buckets.
    fn update<const BUCKETS: bool>(&mut self, net: &Network, pos: &Position, n: usize) {
        let set = net.features();
        // The buckets of every state replayed from or taken back to: the
        // position's, or for the side whose king the last move took to
        // another bucket (that side is refreshed), the bucket it came from.
        let mut offsets = [0; 2];
        if BUCKETS {
            offsets = [set.offset(pos, Color::Black), set.offset(pos, Color::White)];
            let change = (n > 0).then(|| pos.state_change(n));
            if let Some(change) = change.filter(|c| c.mv.is_some() && moves_bucket(set, c)) {
                let mover = change.moved.color();
                offsets[mover.index()] = king_bucket(mover, Some(change.mv.from())) * NUM_FEATURES;
            }
        }
        let lowest = n.saturating_sub(MAX_REPLAY);
        let base = (lowest..n)
            .rev()
            .take_while(|&j| !BUCKETS || j + 1 == n || !changes_bucket(set, pos, j + 1))
            .find(|&j| self.is_valid(pos, j));
        match base {
            Some(base) => {
                (base + 1..=n).for_each(|i| self.transfer::<BUCKETS>(net, pos, i, false, offsets))
            }
            None => {
                self.refresh(net, pos, n);
                let lowest = n.saturating_sub(REFRESH_ANCESTORS);
                (lowest + 1..=n)
                    .rev()
                    .take_while(|&i| !BUCKETS || !changes_bucket(set, pos, i))
                    .for_each(|i| self.transfer::<BUCKETS>(net, pos, i, true, offsets));
            }
        }
    }

    fn is_valid(&self, pos: &Position, i: usize) -> bool {
        let slot = i % RING;
        self.valid[slot] && self.keys[slot] == pos.state_key(i)
    }

    /// The accumulator of `perspective` in `slot`.
    fn range(&self, slot: usize, perspective: Color) -> std::ops::Range<usize> {
        let start = (slot * 2 + perspective.index()) * self.hidden;
        start..start + self.hidden
    }

    /// Computes the accumulators of history state `i` (the position's
    /// own) from its features.
    fn refresh(&mut self, net: &Network, pos: &Position, i: usize) {
        let slot = i % RING;
        for p in Color::ALL {
            self.refresh_perspective(net, pos, slot, p);
        }
        self.keys[slot] = pos.state_key(i);
        self.valid[slot] = true;
    }

    /// Computes `p`'s accumulator of the position in `slot`.
    fn refresh_perspective(&mut self, net: &Network, pos: &Position, slot: usize, p: Color) {
        let range = self.range(slot, p);
        self.cache.refresh(net, pos, p, &mut self.values[range]);
    }

    /// The move into state `i`, applied forward (`i - 1` → `i`) or
    /// backward (`i` → `i - 1`): the same rows with the roles of added and
    /// removed swapped, exact in wrapping arithmetic. `offsets` are each
    /// perspective's first row (its king's bucket). A forward king move
    /// that changes its bucket (only ever the position's last move)
    /// refreshes its side.
    fn transfer<const BUCKETS: bool>(
        &mut self,
        net: &Network,
        pos: &Position,
        i: usize,
        backward: bool,
        offsets: [usize; 2],
    ) {
        let change = pos.state_change(i);
        let (src, dst) = if backward {
            (i % RING, (i - 1) % RING)
        } else {
            ((i - 1) % RING, i % RING)
        };
        let rebucketed = (BUCKETS && change.mv.is_some() && moves_bucket(net.features(), &change))
            .then(|| change.moved.color());
        for p in Color::ALL {
            if rebucketed == Some(p) {
                debug_assert!(!backward && i == pos.state_count() - 1);
                self.refresh_perspective(net, pos, dst, p);
                continue;
            }
            let (added, removed) = if change.mv.is_some() {
                let (added, removed) = if BUCKETS {
                    changed_features(p, &change, offsets[p.index()])
                } else {
                    changed_piece_square(p, &change)
                };
                if backward {
                    (removed, added)
                } else {
                    (added, removed)
                }
            } else {
                (Rows::new(), Rows::new()) // null move: nothing changes
            };
            let (from, to) = (self.range(src, p), self.range(dst, p));
            let (input, output) = if from.start < to.start {
                let (a, b) = self.values.split_at_mut(to.start);
                (&a[from], &mut b[..self.hidden])
            } else {
                let (a, b) = self.values.split_at_mut(from.start);
                (&b[..self.hidden], &mut a[to])
            };
            match (added.as_slice(), removed.as_slice()) {
                (&[a], &[r]) => update_1_1(output, input, net.row(a), net.row(r)),
                (&[a1, a2], &[r1, r2]) => update_2_2(
                    output,
                    input,
                    [net.row(a1), net.row(a2)],
                    [net.row(r1), net.row(r2)],
                ),
                _ => {
                    output.copy_from_slice(input);
                    for &f in &added {
                        add_row(output, net.row(f));
                    }
                    for &f in &removed {
                        sub_row(output, net.row(f));
                    }
                }
            }
        }
        self.keys[dst] = pos.state_key(if backward { i - 1 } else { i });
        self.valid[dst] = true;
    }

    /// The output layer on state `i`'s accumulators.
    fn output(&self, net: &Network, i: usize, stm: Color) -> Value {
        let h = self.hidden;
        let slot = i % RING;
        let us = &self.values[self.range(slot, stm)];
        let them = &self.values[self.range(slot, !stm)];
        let sum = dot_crelu(us, &net.out_weights[..h])
            .wrapping_add(dot_crelu(them, &net.out_weights[h..]))
            .wrapping_add(net.out_bias);
        let cp = i64::from(sum) * i64::from(EVAL_SCALE) / i64::from(QA * QB);
        cp.clamp(-(MAX_EVAL as i64), MAX_EVAL as i64) as Value
    }
}

/// The network's output in centipawns, plus the hand-crafted evaluation
/// when the network is a correction to it.
#[inline]
fn finish(net: &Network, pos: &Position, output: Value) -> Value {
    if net.adds_to_classic() {
        (output + crate::eval::evaluate(pos)).clamp(-MAX_EVAL, MAX_EVAL)
    } else {
        output
    }
}

/// Whether the move into state `i` moved a king to another bucket.
fn changes_bucket(set: InputFeatures, pos: &Position, i: usize) -> bool {
    let change = pos.state_change(i);
    change.mv.is_some() && moves_bucket(set, &change)
}

/// Whether `change` (a move, not a null move) takes a king to another
/// bucket.
#[inline(always)]
fn moves_bucket(set: InputFeatures, change: &crate::position::StateChange) -> bool {
    change.moved.kind() == PieceType::King
        && !change.mv.is_drop()
        && set.king_move_changes_bucket(change.moved.color(), change.mv.from(), change.mv.to())
}

/// The features a move adds and removes, seen from `p`, whose rows start
/// at `offset`.
fn changed_features(
    p: Color,
    change: &crate::position::StateChange,
    offset: usize,
) -> (Rows, Rows) {
    let (mut added, mut removed) = changed_piece_square(p, change);
    added.iter_mut().for_each(|f| *f += offset);
    removed.iter_mut().for_each(|f| *f += offset);
    (added, removed)
}

/// The piece-square features a move adds and removes, seen from `p`.
fn changed_piece_square(p: Color, change: &crate::position::StateChange) -> (Rows, Rows) {
    let mut added = Rows::new();
    let mut removed = Rows::new();
    let mover = change.moved.color();
    let to = change.mv.to();
    if change.mv.is_drop() {
        let pt = change.mv.dropped();
        let slot = change.hand_before.count(pt).saturating_sub(1);
        removed.push(hand_feature(p, mover, pt, slot));
        added.push(board_feature(p, change.moved, to));
    } else {
        removed.push(board_feature(p, change.moved, change.mv.from()));
        let after = if change.mv.is_promotion() {
            Piece::new(mover, change.moved.kind().promote())
        } else {
            change.moved
        };
        added.push(board_feature(p, after, to));
        if !change.captured.is_empty() {
            let base: PieceType = change.captured.kind().unpromote();
            removed.push(board_feature(p, change.captured, to));
            added.push(hand_feature(p, mover, base, change.hand_before.count(base)));
        }
    }
    (added, removed)
}

crate::cpu_kernel! {
/// `Σ clamp(acc, 0, QA) · w` in 32 bits (the trainer bounds the weights so
/// that it cannot overflow; wrapping keeps a hostile file from panicking,
/// and being associative lets LLVM reorder the sum into `pmaddwd`-style
/// vector code — this plain form vectorises, per-lane sums did not).
fn dot_crelu(acc: &[i16], weights: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&a, &w) in acc.iter().zip(weights) {
        sum = sum.wrapping_add(i32::from(a.clamp(0, QA as i16)) * i32::from(w));
    }
    sum
}
}

/// The evaluation of `pos` computed from scratch, without any stored
/// state: the reference the incremental path is tested against.
pub fn evaluate_from_scratch(net: &Arc<Network>, pos: &Position) -> Value {
    let mut acc = Accumulators::new();
    acc.bind(net);
    let n = pos.state_count() - 1;
    acc.refresh(net, pos, n);
    finish(net, pos, acc.output(net, n, pos.side_to_move()))
}
