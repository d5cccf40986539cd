//! Accumulators of a classic network along the search path.
//!
//! As for Ryuo's own networks (`nnue/accumulator.rs`), entries live in a
//! ring indexed by the history length and are tagged with the position
//! key they were computed for, so nothing hooks `do_move`. Each
//! perspective is kept on its own: under HalfKP a king move rebuilds only
//! its owner's accumulator, and the other one still follows the move.
//!
//! A rebuild goes through a refresh cache (Stockfish's "Finny tables"):
//! per perspective and king square, the accumulator last built there and
//! the features it holds. Rebuilding is then adding and removing the few
//! features that differ from that entry, not summing all forty.

use super::features::{Active, Layout, MAX_ACTIVE};
use super::file::StandardNetwork;
use super::layers::propagate;
use crate::nnue::kernels::{add_row, sub_row, update_1_1, update_2_2};
use crate::position::Position;
use crate::types::{Color, PieceType, Square};
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Ring size: more than the deepest search path.
const RING: usize = 256;

/// Moves replayed at most before a rebuild is cheaper.
const MAX_REPLAY: usize = 8;

/// Per-thread accumulator store for one classic network.
pub struct StandardAccumulators {
    net: Option<Arc<StandardNetwork>>,
    half: usize,
    layout: Layout,
    /// Key of the position each slot was computed for, and which
    /// perspectives of it are computed.
    keys: Vec<u64>,
    valid: Vec<[bool; 2]>,
    /// `RING × 2 perspectives × half` sums.
    values: Vec<i16>,
    /// Refresh cache: `2 perspectives × blocks` entries of `half` sums and
    /// the sorted features they hold.
    cache_values: Vec<i16>,
    cache_features: Vec<Active>,
    blocks: usize,
}

impl Default for StandardAccumulators {
    fn default() -> Self {
        StandardAccumulators::new()
    }
}

impl StandardAccumulators {
    /// An empty store, bound to no network.
    pub fn new() -> StandardAccumulators {
        StandardAccumulators {
            net: None,
            half: 0,
            layout: Layout::new(super::arch::FeatureSet::Kp),
            keys: vec![0; RING],
            valid: vec![[false; 2]; RING],
            values: Vec::new(),
            cache_values: Vec::new(),
            cache_features: Vec::new(),
            blocks: 0,
        }
    }

    /// Makes the store serve `net`, dropping what was computed for another
    /// network. Call before searching (it allocates).
    pub fn bind(&mut self, net: &Arc<StandardNetwork>) {
        if self.net.as_ref().is_some_and(|n| Arc::ptr_eq(n, net)) {
            return;
        }
        let arch = net.arch();
        self.net = Some(Arc::clone(net));
        self.half = arch.half;
        self.layout = Layout::new(arch.features);
        self.values = vec![0; RING * 2 * self.half];
        self.valid.iter_mut().for_each(|v| *v = [false; 2]);
        self.blocks = if self.layout.king_move_refreshes() {
            Square::NUM
        } else {
            1
        };
        self.cache_values = net
            .ft_bias
            .iter()
            .copied()
            .cycle()
            .take(2 * self.blocks * self.half)
            .collect();
        self.cache_features = vec![Active::new(); 2 * self.blocks];
    }

    /// The output of `net` on `pos` (before the division by `FV_SCALE`).
    pub fn evaluate(&mut self, net: &Arc<StandardNetwork>, pos: &Position) -> i32 {
        self.bind(net);
        let n = pos.state_count() - 1;
        for p in Color::ALL {
            self.ensure(pos, n, p);
        }
        let stm = pos.side_to_move();
        let slot = n % RING;
        propagate(
            net,
            &self.values[self.range(slot, stm)],
            &self.values[self.range(slot, !stm)],
        )
    }

    fn is_valid(&self, pos: &Position, i: usize, p: Color) -> bool {
        let slot = i % RING;
        self.valid[slot][p.index()] && self.keys[slot] == pos.state_key(i)
    }

    fn mark_valid(&mut self, pos: &Position, i: usize, p: Color) {
        let slot = i % RING;
        let key = pos.state_key(i);
        if self.keys[slot] != key {
            self.keys[slot] = key;
            self.valid[slot] = [false; 2];
        }
        self.valid[slot][p.index()] = true;
    }

    fn range(&self, slot: usize, p: Color) -> std::ops::Range<usize> {
        let start = (slot * 2 + p.index()) * self.half;
        start..start + self.half
    }

    /// Whether the move into state `i` moved `p`'s king and so changed
    /// every HalfKP feature of `p`.
    fn rebuilds(&self, pos: &Position, i: usize, p: Color) -> bool {
        if !self.layout.king_move_refreshes() {
            return false;
        }
        let change = pos.state_change(i);
        change.mv.is_some()
            && !change.mv.is_drop()
            && change.moved.kind() == PieceType::King
            && change.moved.color() == p
    }

    /// Makes perspective `p` of the current state `n` valid: replayed from
    /// the nearest valid ancestor that the same king square links to it,
    /// else rebuilt from the refresh cache.
    fn ensure(&mut self, pos: &Position, n: usize, p: Color) {
        if self.is_valid(pos, n, p) {
            return;
        }
        let lowest = n.saturating_sub(MAX_REPLAY);
        let mut j = n;
        let base = loop {
            if j <= lowest || self.rebuilds(pos, j, p) {
                break None;
            }
            j -= 1;
            if self.is_valid(pos, j, p) {
                break Some(j);
            }
        };
        match base {
            Some(base) => {
                let offset = self.layout.piece_offset(pos, p);
                for i in base + 1..=n {
                    self.replay(pos, i, p, offset);
                }
            }
            None => self.rebuild(pos, n, p),
        }
    }

    /// Computes `p`'s accumulator of state `i` from state `i - 1`'s.
    fn replay(&mut self, pos: &Position, i: usize, p: Color, offset: u32) {
        let Some(net) = self.net.clone() else { return };
        let change = pos.state_change(i);
        let (added, removed) = self.layout.changed(p, offset, &change).unwrap_or_default();
        let (src, dst) = (self.range((i - 1) % RING, p), self.range(i % RING, p));
        let (input, output) = if src.start < dst.start {
            let (a, b) = self.values.split_at_mut(dst.start);
            (&a[src], &mut b[..self.half])
        } else {
            let (a, b) = self.values.split_at_mut(src.start);
            (&b[..self.half], &mut a[dst])
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
                added.iter().for_each(|&f| add_row(output, net.row(f)));
                removed.iter().for_each(|&f| sub_row(output, net.row(f)));
            }
        }
        self.mark_valid(pos, i, p);
    }

    /// Rebuilds `p`'s accumulator of state `n` through the refresh cache.
    fn rebuild(&mut self, pos: &Position, n: usize, p: Color) {
        let Some(net) = self.net.clone() else { return };
        let mut now = self.layout.active(pos, p);
        now.sort_unstable();
        let block = if self.blocks == 1 {
            0
        } else {
            self.layout.piece_offset(pos, p) as usize / super::arch::FE_END
        };
        let entry = p.index() * self.blocks + block;
        let dst = self.range(n % RING, p);
        let acc = &mut self.cache_values[entry * self.half..(entry + 1) * self.half];
        let (added, removed) = sorted_difference(&now, &self.cache_features[entry]);
        added.iter().for_each(|&f| add_row(acc, net.row(f)));
        removed.iter().for_each(|&f| sub_row(acc, net.row(f)));
        self.cache_features[entry] = now;
        self.values[dst].copy_from_slice(acc);
        self.mark_valid(pos, n, p);
    }
}

/// Features in `now` but not in `before`, and in `before` but not in
/// `now`, counting repeats (absent pieces repeat one feature).
fn sorted_difference(
    now: &[u32],
    before: &[u32],
) -> (ArrayVec<u32, MAX_ACTIVE>, ArrayVec<u32, MAX_ACTIVE>) {
    let (mut added, mut removed) = (ArrayVec::new(), ArrayVec::new());
    let (mut i, mut j) = (0, 0);
    while i < now.len() || j < before.len() {
        match (now.get(i), before.get(j)) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(&a), Some(&b)) if a < b => {
                added.push(a);
                i += 1;
            }
            (Some(&a), None) => {
                added.push(a);
                i += 1;
            }
            (_, Some(&b)) => {
                removed.push(b);
                j += 1;
            }
            (None, None) => unreachable!("the loop condition"),
        }
    }
    (added, removed)
}

/// The output of `net` on `pos` computed from scratch: the reference the
/// incremental path is tested against.
pub fn evaluate_from_scratch(net: &StandardNetwork, pos: &Position) -> i32 {
    let layout = Layout::new(net.arch().features);
    let acc = |p: Color| {
        let mut acc = net.ft_bias.clone();
        for f in layout.active(pos, p) {
            for (a, &w) in acc.iter_mut().zip(net.row(f)) {
                *a = a.wrapping_add(w);
            }
        }
        acc
    };
    let stm = pos.side_to_move();
    propagate(net, &acc(stm), &acc(!stm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_difference_counts_repeats() {
        let (a, r) = sorted_difference(&[1, 1, 1, 5, 9], &[1, 3, 5, 5]);
        assert_eq!(a.as_slice(), &[1, 1, 9]);
        assert_eq!(r.as_slice(), &[3, 5]);
    }
}
