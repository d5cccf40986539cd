//! The transposition table: a fixed number of 64-byte clusters of four
//! entries, shared by all search threads without locks.
//!
//! Each entry is two `AtomicU64`s: the data word and `key ^ data`. A reader
//! accepts an entry only if the two words, XORed, give its key, so an entry
//! torn by a concurrent writer reads as a miss (Hyatt's lockless hashing).
//! All accesses are `Relaxed` atomics: no `unsafe`, no data race (the
//! cluster prefetch is a cache hint that touches no data). The move
//! in an entry is still only a hint: the search validates it with
//! `is_pseudo_legal` and `is_legal` before use.

use crate::search::params::{MATE_IN_MAX_PLY, MAX_PLY};
use crate::types::{Move, Value};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// What a stored value says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// No information (empty entry).
    None = 0,
    /// The true score is at most the value (fail low).
    Upper = 1,
    /// The true score is at least the value (fail high).
    Lower = 2,
    /// The value is exact.
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// A decoded hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// Best or refutation move found (validate before use).
    pub mv: Move,
    /// Score, mate scores relative to the probing ply (see `value_from_tt`).
    pub value: Value,
    /// Static evaluation of the position.
    pub eval: Value,
    /// Remaining depth the value was searched to.
    pub depth: i32,
    /// Kind of bound.
    pub bound: Bound,
    /// Whether the entry was stored by a PV node.
    pub is_pv: bool,
}

const DEPTH_OFFSET: i32 = 16;
const ENTRIES: usize = 4;

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Cluster {
    entries: [Entry; ENTRIES],
}

/// The table.
pub struct TranspositionTable {
    clusters: Vec<Cluster>,
    generation: AtomicU8,
}

fn pack(mv: Move, value: Value, eval: Value, depth: i32, bound: Bound, pv: bool, gen: u8) -> u64 {
    let d = (depth + DEPTH_OFFSET).clamp(1, 255) as u64;
    mv.raw() as u64
        | ((value as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (d << 48)
        | ((bound as u64) << 56)
        | ((pv as u64) << 58)
        | (((gen & 31) as u64) << 59)
}

fn entry_depth(data: u64) -> i32 {
    ((data >> 48) & 0xff) as i32 - DEPTH_OFFSET
}

fn entry_gen(data: u64) -> u8 {
    (data >> 59) as u8 & 31
}

impl TranspositionTable {
    /// A table of `mib` MiB (at least one cluster); the engine itself only
    /// allocates fallibly (`try_new`).
    #[cfg(test)]
    fn new(mib: usize) -> TranspositionTable {
        Self::try_new(mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of `mib` MiB, or an error if the memory cannot be had.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, String> {
        Ok(TranspositionTable {
            clusters: crate::memory::try_table(mib.max(1), "hash table")?,
            generation: AtomicU8::new(0),
        })
    }

    /// Size in MiB.
    pub fn size_mib(&self) -> usize {
        (self.clusters.len() * std::mem::size_of::<Cluster>()) >> 20
    }

    /// Empties every entry (new game).
    pub fn clear(&self) {
        let step = crate::memory::FILL_STEP_BYTES / std::mem::size_of::<Cluster>();
        for part in self.clusters.chunks(step.max(1)) {
            // Quitting: what the table holds no longer matters.
            if crate::memory::fills_abandoned() {
                break;
            }
            for c in part {
                for e in &c.entries {
                    e.check.store(0, Relaxed);
                    e.data.store(0, Relaxed);
                }
            }
        }
        self.generation.store(0, Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    fn cluster(&self, key: u64) -> &Cluster {
        let i = ((key as u128 * self.clusters.len() as u128) >> 64) as usize;
        &self.clusters[i]
    }

    /// Starts loading `key`'s cluster into the cache, so that a `probe`
    /// soon after does not wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::hints::prefetch(self.cluster(key));
    }

    /// Looks `key` up.
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        for e in &self.cluster(key).entries {
            let data = e.data.load(Relaxed);
            if data != 0 && e.check.load(Relaxed) ^ data == key {
                return Some(TtHit {
                    mv: Move::from_raw(data as u16),
                    value: (data >> 16) as u16 as i16 as Value,
                    eval: (data >> 32) as u16 as i16 as Value,
                    depth: entry_depth(data),
                    bound: Bound::from_bits(data >> 56),
                    is_pv: (data >> 58) & 1 != 0,
                });
            }
        }
        None
    }

    /// Stores a result. Replaces the entry of the same key, else the one
    /// least worth keeping (shallow and old). A shallower result for the
    /// same key keeps the old move if it brings none.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Move,
        value: Value,
        eval: Value,
        depth: i32,
        bound: Bound,
        is_pv: bool,
    ) {
        let gen = self.generation.load(Relaxed) & 31;
        let cluster = self.cluster(key);
        let mut victim = &cluster.entries[0];
        let mut victim_worth = i32::MAX;
        for e in &cluster.entries {
            let data = e.data.load(Relaxed);
            if data == 0 || e.check.load(Relaxed) ^ data == key {
                let same_key = data != 0;
                // Keep a deeper exact-ish entry of this key from the same
                // search unless the new one is exact or nearly as deep.
                if same_key
                    && bound != Bound::Exact
                    && entry_gen(data) == gen
                    && entry_depth(data) > depth + 3
                {
                    return;
                }
                let mv = if same_key && mv == Move::NONE {
                    Move::from_raw(data as u16)
                } else {
                    mv
                };
                let new = pack(mv, value, eval, depth, bound, is_pv, gen);
                e.data.store(new, Relaxed);
                e.check.store(key ^ new, Relaxed);
                return;
            }
            let age = (gen.wrapping_sub(entry_gen(data)) & 31) as i32;
            let worth = entry_depth(data) - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let new = pack(mv, value, eval, depth, bound, is_pv, gen);
        victim.data.store(new, Relaxed);
        victim.check.store(key ^ new, Relaxed);
    }

    /// Permille of sampled entries written during the current search.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation.load(Relaxed) & 31;
        let sample = self.clusters.len().min(250);
        let mut used = 0;
        for c in &self.clusters[..sample] {
            for e in &c.entries {
                let d = e.data.load(Relaxed);
                if d != 0 && entry_gen(d) == gen {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES)) as u32
    }
}

/// Converts a score for storage: mate scores become relative to this node,
/// so a mate found at one ply reads correctly from another.
#[inline]
pub fn value_to_tt(v: Value, ply: usize) -> Value {
    if v >= MATE_IN_MAX_PLY {
        v + ply as Value
    } else if v <= -MATE_IN_MAX_PLY {
        v - ply as Value
    } else {
        v
    }
}

/// The inverse of `value_to_tt`.
#[inline]
pub fn value_from_tt(v: Value, ply: usize) -> Value {
    if v >= MATE_IN_MAX_PLY {
        v - ply as Value
    } else if v <= -MATE_IN_MAX_PLY {
        v + ply as Value
    } else {
        v
    }
}

const _: () = assert!(MAX_PLY < 200);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::MATE;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        let mv = Move::from_raw(0x1234);
        tt.store(key, mv, -321, 45, 7, Bound::Lower, true);
        let hit = tt.probe(key).expect("stored");
        assert_eq!(hit.mv, mv);
        assert_eq!((hit.value, hit.eval, hit.depth), (-321, 45, 7));
        assert_eq!(hit.bound, Bound::Lower);
        assert!(hit.is_pv);
        assert!(tt.probe(key ^ 1).is_none());
        tt.clear();
        assert!(tt.probe(key).is_none());
    }

    #[test]
    fn mate_scores_are_ply_relative() {
        // Mate in 5 plies from the root, found at ply 3: mate in 2 from there.
        let at_node = MATE - 5;
        let stored = value_to_tt(at_node, 3);
        assert_eq!(stored, MATE - 2);
        // Read back at ply 7 (a transposition deeper in the tree).
        assert_eq!(value_from_tt(stored, 7), MATE - 9);
        let tt = TranspositionTable::new(1);
        tt.store(99, Move::NONE, stored, 0, 4, Bound::Exact, false);
        assert_eq!(value_from_tt(tt.probe(99).unwrap().value, 3), at_node);
        assert_eq!(value_to_tt(-MATE + 4, 2), -MATE + 2);
        assert_eq!(value_to_tt(150, 9), 150);
    }

    #[test]
    fn negative_depth_and_replacement() {
        let tt = TranspositionTable::new(1);
        tt.store(5, Move::NONE, 10, 10, -1, Bound::Upper, false);
        assert_eq!(tt.probe(5).unwrap().depth, -1);
        // A deeper result for the same key replaces the shallow one.
        tt.store(5, Move::from_raw(77), 20, 10, 9, Bound::Exact, false);
        let hit = tt.probe(5).unwrap();
        assert_eq!((hit.depth, hit.mv.raw()), (9, 77));
        // A much shallower non-exact one does not erase it.
        tt.store(5, Move::NONE, 30, 10, 1, Bound::Lower, false);
        assert_eq!(tt.probe(5).unwrap().depth, 9);
    }
}
