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
//! the board and hands it holds. Rebuilding is then adding and removing the
//! few features of the squares and hand counts that differ from that entry,
//! not summing all forty. After a rebuild the few ancestors linked to it by
//! the same king square are derived backwards, so that the siblings of a
//! node whose evaluation came from the hash table replay from a shared
//! ancestor instead of rebuilding too.

use super::features::{hand_piece, Layout, PIECES};
use super::file::StandardNetwork;
use super::layers::propagate;
use crate::nnue::kernels::{add_row, sub_row, update_1_1, update_2_2};
use crate::position::Position;
use crate::types::{Color, Hand, Piece, PieceType, Square};
use std::sync::Arc;

/// Ring size: more than the deepest search path.
const RING: usize = 256;

/// Moves replayed at most before a rebuild is cheaper.
const MAX_REPLAY: usize = 8;

/// Ancestors derived backwards after a rebuild.
const REBUILD_ANCESTORS: usize = 4;

/// What a refresh cache entry's accumulator holds: a board, hands, and the
/// number of absent pieces (each one the feature of BonaPiece 0).
#[derive(Clone)]
struct CacheEntry {
    board: [Piece; Square::NUM],
    hands: [Hand; 2],
    absent: u32,
}

impl CacheEntry {
    const EMPTY: CacheEntry = CacheEntry {
        board: [Piece::EMPTY; Square::NUM],
        hands: [Hand::EMPTY; 2],
        absent: 0,
    };
}

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
    /// the position they hold.
    cache_values: Vec<i16>,
    cache_entries: Vec<CacheEntry>,
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
            cache_entries: Vec::new(),
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
        self.cache_entries = vec![CacheEntry::EMPTY; 2 * self.blocks];
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
                    self.transfer(pos, i, p, offset, false);
                }
            }
            None => self.rebuild(pos, n, p),
        }
    }

    /// Computes `p`'s accumulator of state `i` from state `i - 1`'s
    /// (forward) or of `i - 1` from `i`'s (backward: the same rows with
    /// added and removed swapped, exact in wrapping arithmetic). The move
    /// into `i` must not be `p`'s king move under HalfKP.
    fn transfer(&mut self, pos: &Position, i: usize, p: Color, offset: u32, backward: bool) {
        let Some(net) = self.net.clone() else { return };
        let change = pos.state_change(i);
        let (mut added, mut removed) = self.layout.changed(p, offset, &change).unwrap_or_default();
        let (mut src, mut dst) = (self.range((i - 1) % RING, p), self.range(i % RING, p));
        if backward {
            std::mem::swap(&mut added, &mut removed);
            std::mem::swap(&mut src, &mut dst);
        }
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
        self.mark_valid(pos, if backward { i - 1 } else { i }, p);
    }

    /// Rebuilds `p`'s accumulator of state `n` through the refresh cache,
    /// then derives its ancestors linked by the same king square.
    fn rebuild(&mut self, pos: &Position, n: usize, p: Color) {
        let Some(net) = self.net.clone() else { return };
        let layout = self.layout;
        let offset = layout.piece_offset(pos, p);
        let block = if self.blocks == 1 {
            0
        } else {
            offset as usize / super::arch::FE_END
        };
        let e = p.index() * self.blocks + block;
        let dst = self.range(n % RING, p);
        let acc = &mut self.cache_values[e * self.half..(e + 1) * self.half];
        let entry = &mut self.cache_entries[e];
        let mut present = 0;
        for sq in Square::all() {
            let (old, new) = (entry.board[sq.index()], pos.piece_on(sq));
            present += u32::from(!new.is_empty() && new.kind() != PieceType::King);
            if old == new {
                continue;
            }
            if !old.is_empty() {
                if let Some(f) = layout.piece_feature(p, offset, old, sq) {
                    sub_row(acc, net.row(f));
                }
            }
            if !new.is_empty() {
                if let Some(f) = layout.piece_feature(p, offset, new, sq) {
                    add_row(acc, net.row(f));
                }
            }
            entry.board[sq.index()] = new;
        }
        for owner in Color::ALL {
            let (old, new) = (entry.hands[owner.index()], pos.hand(owner));
            for pt in PieceType::HAND {
                let (a, b) = (old.count(pt), new.count(pt));
                present += b;
                for slot in b..a {
                    sub_row(acc, net.row(offset + hand_piece(p, owner, pt, slot)));
                }
                for slot in a..b {
                    add_row(acc, net.row(offset + hand_piece(p, owner, pt, slot)));
                }
            }
            entry.hands[owner.index()] = new;
        }
        // SFEN validation caps a position at a set's pieces.
        let absent = PIECES as u32 - present.min(PIECES as u32);
        for _ in absent..entry.absent {
            sub_row(acc, net.row(offset));
        }
        for _ in entry.absent..absent {
            add_row(acc, net.row(offset));
        }
        entry.absent = absent;
        self.values[dst].copy_from_slice(acc);
        self.mark_valid(pos, n, p);
        let lowest = n.saturating_sub(REBUILD_ANCESTORS);
        let mut i = n;
        while i > lowest && !self.rebuilds(pos, i, p) {
            self.transfer(pos, i, p, offset, true);
            i -= 1;
        }
    }
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
