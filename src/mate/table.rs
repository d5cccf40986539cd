//! The solver's transposition table.
//!
//! Entries are keyed by the board key (board and side to move) and the
//! attacker's hand; the defender's hand follows from those two, since no
//! piece enters or leaves the game. All hand variants of a board share a
//! bucket so that a probe can apply hand domination.
//!
//! An entry is one of three records:
//! - *proven*: mate in at most `depth` plies for every attacker hand that
//!   holds at least the stored proof hand;
//! - *disproven*: no mate within `depth` plies (`DEPTH_UNBOUNDED`: none at
//!   all) for every attacker hand that holds no more than the stored
//!   disproof hand;
//! - *working*: proof and disproof numbers of a search still in progress
//!   for the exact hand and remaining depth.
//!
//! A probe that finds no record for its depth still takes numbers to start
//! from (see [`Probe::Working`]): those of a search of the same node with
//! more depth, or a mate too long for the depth asked. The mate-length
//! minimisation re-proves the same tree with a bound two plies shorter
//! each time, and without them every step began every node from nothing.
//!
//! Settled records never depend on the path that reached them: the search
//! does not store disproofs that rest on a repetition of an ancestor.

use crate::types::Hand;

/// Remaining depth meaning "any depth" in a disproven record.
pub(super) const DEPTH_UNBOUNDED: u16 = u16::MAX;

/// Entries per bucket.
const BUCKET_SIZE: usize = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Empty,
    Working,
    Proven,
    Disproven,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    hand: Hand,
    pn: u32,
    dn: u32,
    /// Nodes spent on this entry: the replacement scheme keeps costly ones.
    amount: u32,
    /// Proven: the mate length; disproven: the depth covered; working: the
    /// remaining depth of the search that wrote it.
    depth: u16,
    kind: Kind,
}

/// Two cache lines.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Bucket([Entry; BUCKET_SIZE]);

/// What the table knows about a node, for a search with a given remaining
/// depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Probe {
    /// Mate within `len` plies (no more than the depth asked), needing at
    /// most `hand`.
    Proven { len: u16, hand: Hand },
    /// No mate within `depth` plies (at least the depth asked) for any
    /// hand up to `hand`.
    Disproven { depth: u16, hand: Hand },
    /// A search at this very depth left these numbers; failing one, a
    /// search with more depth did (the closest in depth), or the node is a
    /// mate longer than the depth asked (1 and 1: worth a look first).
    /// Numbers to start from, not a result. On `tsume320.tsv` (`--hash
    /// 256`) fewer mates longer than the set's at every budget from
    /// 100,000 to 1,500,000 nodes a problem, e.g. 11 instead of 20 at
    /// 200,000 (README, "Numbers to start from").
    Working { pn: u32, dn: u32 },
    /// Nothing useful.
    Unknown,
}

/// The table: a fixed number of buckets allocated up front.
pub(super) struct Table {
    buckets: Vec<Bucket>,
}

impl Table {
    /// A table of about `mib` MiB (at least one bucket).
    pub(super) fn new(mib: usize) -> Table {
        Self::try_new(mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like `new`, but an error if the memory cannot be had.
    pub(super) fn try_new(mib: usize) -> Result<Table, String> {
        Ok(Table {
            buckets: crate::memory::try_table(mib, "mate solver table")?,
        })
    }

    /// Forgets everything.
    pub(super) fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift maps the key onto any table size without a modulo.
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    fn bucket(&mut self, key: u64) -> &mut [Entry; BUCKET_SIZE] {
        let index = self.index(key);
        &mut self.buckets[index].0
    }

    /// Starts bringing the bucket of `key` into the cache. A node probes
    /// all its children at once: prefetching each bucket as its child is
    /// made lets the memory accesses overlap instead of queueing behind
    /// each probe. A prefetch, not a load: a load kept alive (`black_box`)
    /// made the CPU wait for each line in turn (a fifth of the solver's
    /// time).
    pub(super) fn prefetch(&self, key: u64) {
        let bucket = &self.buckets[self.index(key)];
        crate::hints::prefetch(bucket);
        crate::hints::prefetch(&bucket.0[BUCKET_SIZE - 1]);
    }

    /// What is known of the board `key` with attacker hand `hand` for a
    /// search that may still use `depth` plies.
    pub(super) fn probe(&mut self, key: u64, hand: Hand, depth: u16) -> Probe {
        let mut best = Probe::Unknown;
        // Numbers to start from if nothing holds at this depth: the
        // closest deeper working record (its depth and numbers), else
        // whether a proof too long for this depth exists.
        let mut deeper: Option<(u16, u32, u32)> = None;
        let mut too_long = false;
        for e in self.bucket(key).iter() {
            if e.key != key {
                continue;
            }
            match e.kind {
                Kind::Proven if hand.is_superset_of(e.hand) && e.depth <= depth => {
                    let shorter = match best {
                        Probe::Proven { len, .. } => e.depth < len,
                        _ => true,
                    };
                    if shorter {
                        best = Probe::Proven {
                            len: e.depth,
                            hand: e.hand,
                        };
                    }
                }
                Kind::Disproven
                    if e.hand.is_superset_of(hand)
                        && e.depth >= depth
                        && !matches!(best, Probe::Proven { .. }) =>
                {
                    best = Probe::Disproven {
                        depth: e.depth,
                        hand: e.hand,
                    };
                }
                Kind::Working if e.hand == hand && e.depth == depth && best == Probe::Unknown => {
                    best = Probe::Working { pn: e.pn, dn: e.dn };
                }
                Kind::Working
                    if e.hand == hand
                        && e.depth > depth
                        && deeper.is_none_or(|(d, _, _)| e.depth < d) =>
                {
                    deeper = Some((e.depth, e.pn, e.dn));
                }
                // A mate, but longer than the depth asked.
                Kind::Proven if hand.is_superset_of(e.hand) => too_long = true,
                _ => {}
            }
        }
        match (best, deeper) {
            (Probe::Unknown, Some((_, pn, dn))) => Probe::Working { pn, dn },
            (Probe::Unknown, None) if too_long => Probe::Working { pn: 1, dn: 1 },
            _ => best,
        }
    }

    /// Records a search in progress.
    pub(super) fn store_working(
        &mut self,
        key: u64,
        hand: Hand,
        depth: u16,
        (pn, dn): (u32, u32),
        amount: u32,
    ) {
        let bucket = self.bucket(key);
        let same = |e: &Entry| {
            e.kind == Kind::Working && e.key == key && e.hand == hand && e.depth == depth
        };
        let amount = match bucket.iter().find(|e| same(e)) {
            Some(old) => old.amount.saturating_add(amount),
            None => amount,
        };
        let slot = match bucket.iter().position(same) {
            Some(i) => i,
            None => victim(bucket),
        };
        bucket[slot] = Entry {
            key,
            hand,
            pn,
            dn,
            amount,
            depth,
            kind: Kind::Working,
        };
    }

    /// Records a mate in `len` plies needing at most `proof_hand`.
    pub(super) fn store_proven(&mut self, key: u64, proof_hand: Hand, len: u16, amount: u32) {
        let bucket = self.bucket(key);
        let mut amount = amount;
        for e in bucket.iter_mut().filter(|e| e.key == key) {
            let redundant = match e.kind {
                Kind::Proven if proof_hand.is_superset_of(e.hand) && e.depth <= len => {
                    return; // an existing record already says as much
                }
                Kind::Proven => e.hand.is_superset_of(proof_hand) && e.depth >= len,
                Kind::Working => e.hand.is_superset_of(proof_hand) && e.depth >= len,
                _ => false,
            };
            if redundant {
                amount = amount.saturating_add(e.amount);
                e.kind = Kind::Empty;
            }
        }
        let slot = victim(bucket);
        bucket[slot] = Entry {
            key,
            hand: proof_hand,
            pn: 0,
            dn: u32::MAX,
            amount,
            depth: len,
            kind: Kind::Proven,
        };
    }

    /// Records that there is no mate within `depth` plies for any attacker
    /// hand up to `disproof_hand`.
    pub(super) fn store_disproven(
        &mut self,
        key: u64,
        disproof_hand: Hand,
        depth: u16,
        amount: u32,
    ) {
        let bucket = self.bucket(key);
        let mut amount = amount;
        for e in bucket.iter_mut().filter(|e| e.key == key) {
            let redundant = match e.kind {
                Kind::Disproven if e.hand.is_superset_of(disproof_hand) && e.depth >= depth => {
                    return;
                }
                Kind::Disproven => disproof_hand.is_superset_of(e.hand) && e.depth <= depth,
                Kind::Working => disproof_hand.is_superset_of(e.hand) && e.depth <= depth,
                _ => false,
            };
            if redundant {
                amount = amount.saturating_add(e.amount);
                e.kind = Kind::Empty;
            }
        }
        let slot = victim(bucket);
        bucket[slot] = Entry {
            key,
            hand: disproof_hand,
            pn: u32::MAX,
            dn: 0,
            amount,
            depth,
            kind: Kind::Disproven,
        };
    }
}

/// The slot to overwrite: an empty one, else the one that cost least.
fn victim(bucket: &[Entry; BUCKET_SIZE]) -> usize {
    if let Some(i) = bucket.iter().position(|e| e.kind == Kind::Empty) {
        return i;
    }
    let mut best = 0;
    for (i, e) in bucket.iter().enumerate() {
        if e.amount < bucket[best].amount {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PieceType;

    fn golds(n: u32) -> Hand {
        let mut h = Hand::EMPTY;
        h.set(PieceType::Gold, n);
        h
    }

    #[test]
    fn proofs_cover_larger_hands_and_longer_depths() {
        let mut table = Table::new(1);
        table.store_proven(42, golds(1), 5, 10);
        assert_eq!(
            table.probe(42, golds(2), 7),
            Probe::Proven {
                len: 5,
                hand: golds(1)
            }
        );
        assert_eq!(table.probe(42, golds(0), 7), Probe::Unknown);
        // Too long for 3 plies: numbers to start from, not a proof.
        assert_eq!(
            table.probe(42, golds(1), 3),
            Probe::Working { pn: 1, dn: 1 }
        );
        assert_eq!(table.probe(43, golds(1), 7), Probe::Unknown);
    }

    #[test]
    fn disproofs_cover_smaller_hands_and_shorter_depths() {
        let mut table = Table::new(1);
        table.store_disproven(42, golds(2), 9, 10);
        assert!(matches!(
            table.probe(42, golds(1), 7),
            Probe::Disproven { depth: 9, .. }
        ));
        assert_eq!(table.probe(42, golds(3), 7), Probe::Unknown);
        assert_eq!(table.probe(42, golds(1), 11), Probe::Unknown);
    }

    #[test]
    fn working_entries_need_the_exact_hand_and_start_shallower_searches() {
        let mut table = Table::new(1);
        table.store_working(7, golds(1), 9, (3, 4), 1);
        assert_eq!(table.probe(7, golds(1), 9), Probe::Working { pn: 3, dn: 4 });
        assert_eq!(table.probe(7, golds(2), 9), Probe::Unknown);
        // A shallower search starts from the deeper one's numbers; a
        // deeper one does not (it could mate where the other could not).
        assert_eq!(table.probe(7, golds(1), 7), Probe::Working { pn: 3, dn: 4 });
        assert_eq!(table.probe(7, golds(1), 11), Probe::Unknown);
        table.store_working(7, golds(1), 8, (5, 2), 1);
        assert_eq!(table.probe(7, golds(1), 7), Probe::Working { pn: 5, dn: 2 });
        table.store_working(7, golds(1), 9, (5, 6), 1);
        assert_eq!(table.probe(7, golds(1), 9), Probe::Working { pn: 5, dn: 6 });
        table.store_proven(7, golds(1), 9, 1);
        assert!(matches!(table.probe(7, golds(1), 9), Probe::Proven { .. }));
    }

    #[test]
    fn a_mate_too_long_for_the_depth_is_a_start_not_a_proof() {
        let mut table = Table::new(1);
        table.store_proven(5, golds(1), 9, 1);
        assert_eq!(table.probe(5, golds(1), 7), Probe::Working { pn: 1, dn: 1 });
        assert_eq!(table.probe(5, golds(0), 7), Probe::Unknown);
    }
}
