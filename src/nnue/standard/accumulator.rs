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
//! not summing all forty. (Deriving the ancestors backwards after a rebuild,
//! as `nnue/accumulator.rs` does, made no measurable difference in `bench`
//! nodes/s here: a rebuild through the cache is already cheap.)

use super::features::{hand_piece, Layout, MAX_ACTIVE, PIECES};
use super::file::StandardNetwork;
use super::layers::{propagate, Scratch};
use crate::bitboard::Bitboard;
use crate::nnue::kernels::{add_row, apply_rows, sub_row, update_1_1, update_2_2};
use crate::position::Position;
use crate::types::{Color, Hand, Piece, PieceType, Square};
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Ring size: more than the deepest search path.
const RING: usize = 256;

/// Moves replayed at most before a rebuild is cheaper.
const MAX_REPLAY: usize = 8;

/// At most this many features are added, and as many removed, by a
/// rebuild: every square and hand slot of a set changed, and the absent.
const MAX_ROWS: usize = 2 * (PIECES + 2);

/// Features a rebuild adds or removes.
type Rows = ArrayVec<u32, MAX_ROWS>;

/// What a refresh cache entry's accumulator holds: the squares of each
/// piece (by colour and kind), the hands, and the number of absent pieces
/// (each one the feature of BonaPiece 0). Bitboards make the difference
/// with a position a few XORs.
#[derive(Clone)]
struct CacheEntry {
    pieces: [[Bitboard; PieceType::NUM]; 2],
    hands: [Hand; 2],
    absent: u32,
}

impl CacheEntry {
    const EMPTY: CacheEntry = CacheEntry {
        pieces: [[Bitboard::EMPTY; PieceType::NUM]; 2],
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
    scratch: Box<Scratch>,
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
            scratch: Scratch::new(),
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
            self.ensure(net, pos, n, p);
        }
        let stm = pos.side_to_move();
        let slot = n % RING;
        propagate(
            net,
            &self.values[self.range(slot, stm)],
            &self.values[self.range(slot, !stm)],
            &mut self.scratch,
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
    fn ensure(&mut self, net: &StandardNetwork, pos: &Position, n: usize, p: Color) {
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
                    self.replay(net, pos, i, p, offset);
                }
            }
            None => self.rebuild(net, pos, n, p),
        }
    }

    /// Computes `p`'s accumulator of state `i` from state `i - 1`'s. The
    /// move into `i` must not be `p`'s king move under HalfKP.
    fn replay(&mut self, net: &StandardNetwork, pos: &Position, i: usize, p: Color, offset: u32) {
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
    fn rebuild(&mut self, net: &StandardNetwork, pos: &Position, n: usize, p: Color) {
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
        let (mut added, mut removed) = (Rows::new(), Rows::new());
        for c in Color::ALL {
            for pt in PieceType::ALL {
                let (old, new) = (entry.pieces[c.index()][pt.index()], pos.pieces(c, pt));
                if old == new {
                    continue;
                }
                let piece = Piece::new(c, pt);
                for sq in old.and_not(new) {
                    removed.extend(layout.piece_feature(p, offset, piece, sq));
                }
                for sq in new.and_not(old) {
                    added.extend(layout.piece_feature(p, offset, piece, sq));
                }
                entry.pieces[c.index()][pt.index()] = new;
            }
        }
        let kings = pos.pieces_of_type(PieceType::King);
        let mut present = pos.occupied().and_not(kings).count();
        for owner in Color::ALL {
            let (old, new) = (entry.hands[owner.index()], pos.hand(owner));
            for pt in PieceType::HAND {
                let (a, b) = (old.count(pt), new.count(pt));
                present += b;
                removed.extend((b..a).map(|slot| offset + hand_piece(p, owner, pt, slot)));
                added.extend((a..b).map(|slot| offset + hand_piece(p, owner, pt, slot)));
            }
            entry.hands[owner.index()] = new;
        }
        // SFEN validation caps a position at a set's pieces.
        let absent = PIECES as u32 - present.min(PIECES as u32);
        removed.extend((absent..entry.absent).map(|_| offset));
        added.extend((entry.absent..absent).map(|_| offset));
        entry.absent = absent;
        let rows = |features: &Rows| -> ArrayVec<&[i16], MAX_ROWS> {
            features.iter().map(|&f| net.row(f)).collect()
        };
        // A stale entry (the king back on a square after many moves) can
        // differ by more features than a position has: then sum afresh.
        if added.len() + removed.len() > MAX_ACTIVE {
            let active = layout.active(pos, p);
            if active.len() < added.len() + removed.len() {
                acc.copy_from_slice(&net.ft_bias);
                added = active.iter().copied().collect();
                removed.clear();
            }
        }
        apply_rows(acc, &rows(&added), &rows(&removed));

        self.values[dst].copy_from_slice(acc);
        self.mark_valid(pos, n, p);
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
    propagate(net, &acc(stm), &acc(!stm), &mut Scratch::new())
}
