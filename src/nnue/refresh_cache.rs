//! A per-thread cache of accumulators by perspective and king bucket
//! (Stockfish's "Finny tables"): a refresh starts from the accumulator last
//! computed for the same perspective and bucket and applies only the
//! features that differ, instead of summing the rows of all ~40 active
//! features.
//!
//! Refreshes are what a king-bucketed network pays for seeing the king: a
//! king move into another bucket rebuilds its side. The positions of one
//! search differ from each other by a few pieces, so the cached entry is
//! usually a handful of rows away (a check for stale entries, summing
//! afresh when the difference is larger than the position, cost more than
//! it saved: 9,389 M against 9,331 M instructions in `bench --depth 9`).
//! The plain network refreshes only when no ancestor within reach has an
//! accumulator, seldom enough that the cache changes nothing there.
//!
//! Exact: rows are added and removed in wrapping 16-bit arithmetic, so an
//! entry always equals the bias plus the rows of the features it records.

use super::features::{active_features, NUM_FEATURES};
use super::kernels::{add_row, sub_row};
use super::network::Network;
use crate::position::Position;
use crate::types::Color;

/// 64-bit words of a feature set.
const WORDS: usize = NUM_FEATURES.div_ceil(64);

/// The active features of one perspective within its bucket, as bits.
type FeatureBits = [u64; WORDS];

/// Accumulators by (perspective, bucket), each with the features it holds.
pub struct RefreshCache {
    hidden: usize,
    buckets: usize,
    /// `2 × buckets × hidden` pre-activations.
    values: Vec<i16>,
    features: Vec<FeatureBits>,
}

impl RefreshCache {
    /// An empty cache; `bind` sizes it for a network.
    pub fn new() -> RefreshCache {
        RefreshCache {
            hidden: 0,
            buckets: 0,
            values: Vec::new(),
            features: Vec::new(),
        }
    }

    /// Sizes the cache for `net`, every entry the bias alone (no features).
    /// Call before searching (it allocates).
    pub fn bind(&mut self, net: &Network) {
        self.hidden = net.hidden();
        self.buckets = net.features().rows() / NUM_FEATURES;
        let entries = 2 * self.buckets;
        self.values = net.ft_bias.repeat(entries);
        self.features = vec![[0; WORDS]; entries];
    }

    /// Writes `perspective`'s accumulator of `pos` into `out`, from the
    /// cached entry of its bucket, which it then replaces.
    pub fn refresh(&mut self, net: &Network, pos: &Position, perspective: Color, out: &mut [i16]) {
        let offset = net.features().offset(pos, perspective);
        let entry = perspective.index() * self.buckets + offset / NUM_FEATURES;
        let mut now: FeatureBits = [0; WORDS];
        for f in active_features(pos, perspective) {
            now[f as usize / 64] |= 1 << (f % 64);
        }
        let h = self.hidden;
        let acc = &mut self.values[entry * h..(entry + 1) * h];
        let before = &mut self.features[entry];
        for (w, (&is, was)) in now.iter().zip(before.iter_mut()).enumerate() {
            let mut changed = is ^ *was;
            while changed != 0 {
                let bit = changed.trailing_zeros() as usize;
                changed &= changed - 1;
                let row = net.row(offset + w * 64 + bit);
                if is >> bit & 1 == 1 {
                    add_row(acc, row);
                } else {
                    sub_row(acc, row);
                }
            }
            *was = is;
        }
        out.copy_from_slice(acc);
    }
}

impl Default for RefreshCache {
    fn default() -> Self {
        RefreshCache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use crate::nnue::features::InputFeatures;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    /// The plain sum: bias plus every active feature's row.
    fn summed(net: &Network, pos: &Position, p: Color) -> Vec<i16> {
        let mut acc = net.ft_bias.clone();
        for f in net.features().active(pos, p) {
            add_row(&mut acc, net.row(f as usize));
        }
        acc
    }

    /// Positions of several unrelated games, kings walking between
    /// buckets, refreshed through one cache: each equals its plain sum.
    #[test]
    fn cached_refreshes_equal_plain_sums() {
        let mut rng = StdRng::seed_from_u64(3);
        for set in [InputFeatures::PieceSquare, InputFeatures::KingBuckets] {
            let net = Network::random_of(set, 32, &mut rng);
            let mut cache = RefreshCache::new();
            cache.bind(&net);
            let mut out = vec![0; 32];
            for _ in 0..6 {
                let mut pos = Position::startpos();
                for _ in 0..100 {
                    let Some(&m) = legal_moves(&pos).choose(&mut rng) else {
                        break;
                    };
                    pos.do_move(m);
                    for p in Color::ALL {
                        cache.refresh(&net, &pos, p, &mut out);
                        assert_eq!(out, summed(&net, &pos, p), "{}", pos.to_sfen());
                    }
                }
            }
        }
    }
}
