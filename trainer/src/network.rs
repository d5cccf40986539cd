//! The float network being trained, with every parameter in one flat
//! vector so that gradients, Adam moments and clipping all share one layout.
//!
//! Layout of `params` (H = hidden width, N = rows of feature weights):
//! | range | content |
//! | --- | --- |
//! | `[0, H)` | hidden biases `b` |
//! | `[H, H + N·H)` | feature weights `W`, row `f` at `H + f·H` |
//! | `[H + N·H, H + N·H + 2H)` | output weights: side to move's, then the other's |
//! | last | output bias |
//!
//! The model: `acc_p = b + Σ_{f active in p} W[f]`, `h_p = clamp(acc_p, 0, 1)`,
//! `y = out_bias + w_out[..H]·h_stm + w_out[H..]·h_other`; `y` is a
//! win-probability logit and `y · EVAL_SCALE` the evaluation in centipawns.
//!
//! With king buckets (`InputFeatures::KingBuckets`) the rows are the
//! set's `9 · NUM_FEATURES` and after them `NUM_FEATURES` factor rows: an
//! active feature `b · NUM_FEATURES + f` also adds the factor row of `f`,
//! which every bucket shares. The factor rows start random and the bucket
//! rows at zero, so training starts from a network without buckets and
//! each bucket learns what differs; the export folds the factor into
//! every bucket's row.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ryuo::nnue::features::{InputFeatures, MAX_ACTIVE, NUM_FEATURES};
use ryuo::nnue::{EVAL_SCALE, QA, QB};
use ryuo::position::Position;

/// Largest quantised feature weight or hidden bias. An accumulator sums the
/// bias and at most `MAX_ACTIVE` (64) rows in `i16`: `65 · 504 = 32760 ≤
/// 32767`, so no position the engine accepts can overflow it (a normal
/// position has 40 active features, leaving a wide margin).
pub const FT_QUANT_LIMIT: i32 = i16::MAX as i32 / (MAX_ACTIVE as i32 + 1);

/// Float bound of feature weights and hidden biases: `504 / 255 ≈ 1.976`.
pub const FT_LIMIT: f32 = FT_QUANT_LIMIT as f32 / QA as f32;

/// Largest quantised output weight for hidden width `hidden`: it must fit an
/// `i16`, and the engine's `i32` output sum `Σ_{2H} 255 · w` must stay
/// within 2^30 so that the output bias (also bounded by 2^30) cannot
/// overflow it either. For H = 256 that is 8224 (128.5 in float).
pub fn out_quant_limit(hidden: usize) -> i32 {
    let by_sum = ((1i64 << 30) - 1) / (2 * hidden as i64 * QA as i64);
    by_sum.min(i16::MAX as i64) as i32
}

/// Largest quantised output bias (`QA·QB` scale): 2^30 − 1.
pub const OUT_BIAS_QUANT_LIMIT: i32 = (1 << 30) - 1;

/// Hidden units accumulated together (see `Network::accumulate`).
const TILE: usize = 32;

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// Hidden width `H`.
    pub hidden: usize,
    /// The engine feature set the network reads.
    pub features: InputFeatures,
    /// Every parameter, in the layout of the module documentation.
    pub params: Vec<f32>,
}

/// Ranges of the parameter groups within the flat vector.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Hidden width.
    pub hidden: usize,
    /// The feature set.
    pub features: InputFeatures,
}

/// The most rows one perspective's sample adds: its features and, with
/// king buckets, their factor rows.
pub const MAX_ROWS: usize = 2 * MAX_ACTIVE;

/// The rows a perspective's features add (see the module documentation).
pub type RowList = arrayvec::ArrayVec<u16, MAX_ROWS>;

impl Layout {
    /// Rows of feature weights: the feature set's, then the factor rows.
    pub const fn rows(self) -> usize {
        match self.features {
            InputFeatures::PieceSquare => NUM_FEATURES,
            InputFeatures::KingBuckets => self.features.rows() + NUM_FEATURES,
        }
    }

    /// Whether the feature rows are followed by factor rows.
    pub const fn factorised(self) -> bool {
        matches!(self.features, InputFeatures::KingBuckets)
    }

    /// The rows that `features` (of the feature set) add.
    pub fn rows_of(self, features: &[u16]) -> RowList {
        let mut rows = RowList::new();
        rows.extend(features.iter().copied().take(MAX_ACTIVE));
        if self.factorised() {
            let base = self.features.rows();
            rows.extend(
                features
                    .iter()
                    .take(MAX_ACTIVE)
                    .map(|&f| (base + f as usize % NUM_FEATURES) as u16),
            );
        }
        rows
    }

    /// Start of the hidden biases.
    pub const fn ft_bias(self) -> usize {
        0
    }
    /// Start of the feature weights.
    pub const fn ft_weights(self) -> usize {
        self.hidden
    }
    /// Start of the output weights.
    pub const fn out_weights(self) -> usize {
        self.hidden + self.rows() * self.hidden
    }
    /// Index of the output bias.
    pub const fn out_bias(self) -> usize {
        self.out_weights() + 2 * self.hidden
    }
    /// Number of parameters.
    pub const fn len(self) -> usize {
        self.out_bias() + 1
    }
    /// Whether the layout holds no parameter (never: there is an output bias).
    pub const fn is_empty(self) -> bool {
        false
    }
    /// The clipping bound of parameter `i` (the quantised file must hold it).
    pub fn limit(self, i: usize) -> f32 {
        if i < self.out_weights() {
            FT_LIMIT
        } else if i < self.out_bias() {
            out_quant_limit(self.hidden) as f32 / QB as f32
        } else {
            OUT_BIAS_QUANT_LIMIT as f32 / (QA * QB) as f32
        }
    }
}

impl Network {
    /// A network initialised deterministically from `seed`: hidden biases
    /// 0.5 (the middle of the clipped ReLU, so every unit starts with a
    /// gradient), feature weights uniform in ±0.1 (40 of them sum to a
    /// spread of about ±0.4), output weights uniform in ±1/√(2H), output
    /// bias 0.
    pub fn new(hidden: usize, seed: u64) -> Network {
        Network::new_of(InputFeatures::PieceSquare, hidden, seed)
    }

    /// A network of feature set `features`, initialised as `new` does;
    /// with king buckets the random rows are the factor rows and the
    /// bucket rows start at zero.
    pub fn new_of(features: InputFeatures, hidden: usize, seed: u64) -> Network {
        assert!(hidden > 0, "hidden width must be positive");
        let layout = Layout { hidden, features };
        let mut rng = StdRng::seed_from_u64(seed);
        let mut params = vec![0.0f32; layout.len()];
        params[..hidden].fill(0.5);
        let random_rows = if layout.factorised() {
            layout.ft_weights() + features.rows() * hidden..layout.out_weights()
        } else {
            layout.ft_weights()..layout.out_weights()
        };
        for w in &mut params[random_rows] {
            *w = rng.gen_range(-0.1..0.1);
        }
        let a = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut params[layout.out_weights()..layout.out_bias()] {
            *w = rng.gen_range(-a..a);
        }
        Network {
            hidden,
            features,
            params,
        }
    }

    /// The parameter layout.
    pub fn layout(&self) -> Layout {
        Layout {
            hidden: self.hidden,
            features: self.features,
        }
    }

    /// The weights of feature `f` of the feature set as the engine adds
    /// them: its row, plus its factor row with king buckets.
    pub fn folded_row(&self, f: usize) -> Vec<f32> {
        let mut row = self.row(f).to_vec();
        if self.layout().factorised() {
            let factor = self.row(self.features.rows() + f % NUM_FEATURES);
            row.iter_mut().zip(factor).for_each(|(a, b)| *a += b);
        }
        row
    }

    /// Hidden biases.
    pub fn ft_bias(&self) -> &[f32] {
        &self.params[..self.hidden]
    }

    /// Row of feature `f`.
    pub fn row(&self, f: usize) -> &[f32] {
        let start = self.layout().ft_weights() + f * self.hidden;
        &self.params[start..start + self.hidden]
    }

    /// Output weights, side to move's units then the other's.
    pub fn out_weights(&self) -> &[f32] {
        let l = self.layout();
        &self.params[l.out_weights()..l.out_bias()]
    }

    /// Output bias.
    pub fn out_bias(&self) -> f32 {
        self.params[self.layout().out_bias()]
    }

    /// Pre-activation of one perspective: bias plus the rows of its
    /// features (`Layout::rows_of`).
    pub fn accumulate(&self, features: &[u16], acc: &mut [f32]) {
        self.accumulate_rows(&self.layout().rows_of(features), acc);
    }

    /// Every row of feature weights (factor rows included), as
    /// `Layout::rows_of` indexes them.
    pub fn feature_rows(&self) -> &[f32] {
        let l = self.layout();
        &self.params[l.ft_weights()..l.out_weights()]
    }

    /// Pre-activation of one perspective: bias plus the given rows.
    pub fn accumulate_rows(&self, features: &[u16], acc: &mut [f32]) {
        accumulate_table(self.feature_rows(), self.ft_bias(), features, acc);
    }

    /// The bucket rows with their factor rows folded in (`folded_row` of
    /// every feature of the set), written into `out`; empty without
    /// factor rows. The trainer reads these in its forward pass, one row
    /// a feature instead of two.
    pub fn fold_into(&self, out: &mut Vec<f32>) {
        out.clear();
        if !self.layout().factorised() {
            return;
        }
        let (buckets, factors) = self
            .feature_rows()
            .split_at(self.features.rows() * self.hidden);
        out.extend_from_slice(buckets);
        for bucket in out.chunks_mut(NUM_FEATURES * self.hidden) {
            for (a, b) in bucket.iter_mut().zip(factors) {
                *a += b;
            }
        }
    }

    /// The logit `y` for the given active features of the side to move and
    /// of the other side.
    pub fn forward(&self, stm: &[u16], other: &[u16]) -> f32 {
        let h = self.hidden;
        let mut acc = vec![0.0f32; h];
        let w = self.out_weights();
        let mut y = self.out_bias();
        for (half, features) in [stm, other].into_iter().enumerate() {
            self.accumulate(features, &mut acc);
            let ws = &w[half * h..(half + 1) * h];
            y += acc
                .iter()
                .zip(ws)
                .map(|(a, w)| a.clamp(0.0, 1.0) * w)
                .sum::<f32>();
        }
        y
    }

    /// The float evaluation of `pos` in centipawns, side to move's view.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let stm = pos.side_to_move();
        let us = self.features.active(pos, stm);
        let them = self.features.active(pos, !stm);
        self.forward(&us, &them) * EVAL_SCALE as f32
    }

    /// Clamps every parameter to the bound its quantised form can hold.
    pub fn clip(&mut self) {
        let l = self.layout();
        for (i, p) in self.params.iter_mut().enumerate() {
            let lim = l.limit(i);
            *p = p.clamp(-lim, lim);
        }
    }
}

/// Pre-activation of one perspective: `bias` plus the rows `features` of
/// `rows` (rows of `bias.len()` units).
///
/// Works in tiles of `TILE` units so that a tile of the accumulator stays
/// in registers while every active row is added to it; each unit still
/// sums bias then rows in feature order.
pub fn accumulate_table(rows: &[f32], bias: &[f32], features: &[u16], acc: &mut [f32]) {
    let h = bias.len();
    let mut start = 0;
    while start + TILE <= h {
        let mut tile: [f32; TILE] = bias[start..start + TILE].try_into().unwrap();
        for &f in features {
            let at = f as usize * h + start;
            let row: &[f32; TILE] = rows[at..at + TILE].try_into().unwrap();
            for (t, w) in tile.iter_mut().zip(row) {
                *t += w;
            }
        }
        acc[start..start + TILE].copy_from_slice(&tile);
        start += TILE;
    }
    if start < h {
        acc[start..h].copy_from_slice(&bias[start..]);
        for &f in features {
            let at = f as usize * h;
            for (a, w) in acc[start..h].iter_mut().zip(&rows[at + start..at + h]) {
                *a += w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_keep_integer_sums_in_range() {
        assert_eq!(FT_QUANT_LIMIT, 504);
        assert!((MAX_ACTIVE as i32 + 1) * FT_QUANT_LIMIT <= i16::MAX as i32);
        for h in [16, 256, 2048] {
            let q = out_quant_limit(h) as i64;
            assert!(q <= i16::MAX as i64);
            let max_sum = 2 * h as i64 * QA as i64 * q + OUT_BIAS_QUANT_LIMIT as i64;
            assert!(max_sum <= i32::MAX as i64, "H = {h}");
        }
    }

    #[test]
    fn same_seed_same_network() {
        assert_eq!(Network::new(16, 7), Network::new(16, 7));
        assert_ne!(Network::new(16, 7), Network::new(16, 8));
    }
}
