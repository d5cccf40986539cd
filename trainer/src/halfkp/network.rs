//! The float model of a YaneuraOu HalfKP network (`halfkp_256x2-32-32` and
//! its wider relatives), with a factoriser.
//!
//! # Model
//! For each perspective `p` (side to move first) with king square `k` and
//! BonaPieces `b_1..b_38`:
//! `acc_p = bias + Σ_i (W[k·FE_END + b_i] + P[b_i])`, `x_p = clamp(acc_p, 0, 1)`;
//! then `x = [x_stm, x_other]` (2·half), `a1 = clamp(W1·x + b1, 0, 1)` (l1),
//! `a2 = clamp(W2·a1 + b2, 0, 1)` (l2), `y = w3·a2 + b3`. `y` is a
//! win-probability logit: the evaluation is `600 · y` centipawns
//! (`VALUE_SCALE`), the same scale the trainer's targets use.
//!
//! `W` (`table`, 125,388 rows of `half`) is the network's own transformer;
//! `P` (the factoriser, 1,548 rows) is a "virtual" feature set of the
//! BonaPiece alone, shared by every king square. Every sample trains `P`,
//! so a king square seen in few positions still gets sensible weights;
//! `W` learns what depends on the king. The export folds `P` into every
//! king square's rows (`W[k·FE_END + b] + P[b]`), so the file is a plain
//! HalfKP network. `W` starts at zero (an unseen king square is then the
//! factorised network alone) and `P` at small random values.
//!
//! K+P (`kp_256x2-32-32`) is the same model with `W` of 1,710 rows: the
//! BonaPieces and each king's square (`features::feature_rows`). Its rows
//! are shared by every king square already, so it has no factoriser: `W`
//! starts small and random, `P` stays zero.
//!
//! # Quantisation-aware training (`--qat-epochs`, the last 4 by default)
//! When `quantisation_aware`, the forward pass uses the weights as the
//! file will hold them: each transformer weight `W + P` (and bias) rounded
//! to 1/127 (`ft_integer`: the accumulator is then the engine's integer,
//! exactly), the hidden weights to 1/64 and the output weights to
//! 127/9600 (`refresh`, after every step). The gradient is taken for the
//! rounded weights and applied to the float ones (straight-through), which
//! keep every small step. Only the activations' rounding (to 1/127) and
//! the biases' are left to the export.
//!
//! Why, and why only at the end. Measured on the first 300 k positions of
//! a gensfen file, 20 epochs, validation loss of the exported file as the
//! engine evaluates it, two seeds:
//! | training | seed 1 | seed 2 | mean \|engine − float\| |
//! | --- | ---: | ---: | ---: |
//! | plain float, rounded at export (fitted) | 0.005455 | 0.004910 | 11–12 cp |
//! | transformer rounded throughout | 0.005381 | 0.004962 | 10 cp |
//! | everything rounded throughout | 0.005473 | 0.005295 | 1.5–1.8 cp |
//! | plain float, everything rounded in the last 4 epochs (default) | 0.005425 | 0.004883 | 1.6–1.8 cp |
//!
//! Trained in plain float the exported file is 11–12 cp away from the
//! network the trainer reports on (53 cp before the export's fit; the
//! first hidden layer's 1/64 steps over 512 inputs were most of it, then
//! the transformer's rounding). Rounded throughout, the file is the
//! network to 2 cp, but it learns worse: most first-layer weights are
//! within two steps of zero, a coarse network to train. Float first and
//! quantisation-aware in the last, low learning-rate epochs gives both.
//!
//! # Why the clipping bounds (`DenseLayout::limit`)
//! The file stores everything in YaneuraOu's integers (`crate::halfkp::export`):
//! transformer `·127` in `i16`, hidden weights `·64` in `i8`, output weights
//! `·600·16/127` in `i8`. The float parameters are kept where those hold:
//! * `W`, `P` and the transformer bias within ±`FT_LIMIT` = 840/254 ≈ 3.31:
//!   a folded row is then at most 840 in `i16`, and an accumulator (bias +
//!   38 rows) at most 420 + 38·840 = 32,340 ≤ 32,767, so it cannot wrap.
//! * Hidden weights within ±127/64 ≈ 1.98 (`i8` at scale 64).
//! * Output weights within ±127·127/9600 ≈ 1.68 (`i8` at scale 9600/127).
//! * Biases are `i32` in the file: no bound is needed.

use crate::halfkp::features::{canonical, feature_rows, halfkp_features, Rows, ENTRIES};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ryuo::nnue::standard::features::PIECES;
use ryuo::nnue::standard::{Arch, FeatureSet, FE_END};
use ryuo::position::Position;

/// Centipawns per unit of the logit `y` (the trainer's `EVAL_SCALE`).
pub const VALUE_SCALE: f32 = ryuo::nnue::EVAL_SCALE as f32;

/// YaneuraOu's activation scale: an accumulator or hidden unit of 1.0 is
/// the byte 127.
pub const ACTIVATION_SCALE: f32 = 127.0;

/// Scale of the hidden layers' `i8` weights (`1 << kWeightScaleBits`).
pub const HIDDEN_WEIGHT_SCALE: f32 = 64.0;

/// YaneuraOu's `FV_SCALE` the export is made for: value = output / 16.
pub const FV_SCALE: i32 = ryuo::nnue::standard::DEFAULT_FV_SCALE;

/// Scale of the output layer's `i8` weights: `out = 16 · 600 · y` with
/// inputs of 127, so a float weight `w` is `w · 9600 / 127`.
pub const OUTPUT_WEIGHT_SCALE: f32 = FV_SCALE as f32 * VALUE_SCALE / ACTIVATION_SCALE;

/// Scale of the output bias: `16 · 600`.
pub const OUTPUT_BIAS_SCALE: f32 = FV_SCALE as f32 * VALUE_SCALE;

/// Largest quantised transformer value: a bias and 38 rows of it fit an `i16`.
pub const FT_QUANT_LIMIT: i32 = i16::MAX as i32 / (PIECES as i32 + 1);

/// Float bound of `W`, `P` and the transformer bias: half of
/// `FT_QUANT_LIMIT / 127`, so that a folded row `W + P` is within it.
pub const FT_LIMIT: f32 = FT_QUANT_LIMIT as f32 / (2.0 * ACTIVATION_SCALE);

/// Float bound of the hidden layers' weights.
pub const HIDDEN_LIMIT: f32 = 127.0 / HIDDEN_WEIGHT_SCALE;

/// Float bound of the output weights.
pub const OUTPUT_LIMIT: f32 = 127.0 / OUTPUT_WEIGHT_SCALE;

/// Ranges of the dense parameter vector (everything but `W`).
///
/// | range | content |
/// | --- | --- |
/// | `ft_bias` | transformer bias, `half` |
/// | `factor` | `P`, `FE_END` rows of `half` |
/// | `l1_weights` | first hidden layer, input-major: row `j` (input) of `l1` outputs |
/// | `l1_bias` | `l1` |
/// | `l2_weights` | second hidden layer, input-major, `l1` rows of `l2` |
/// | `l2_bias` | `l2` |
/// | `out_weights` | `l2` |
/// | `out_bias` | 1 |
///
/// Input-major hidden weights make the forward pass and the weight
/// gradient `axpy`s over the outputs (vectorised), skipping zero inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseLayout {
    /// Accumulator units per perspective.
    pub half: usize,
    /// Outputs of the first hidden layer.
    pub l1: usize,
    /// Outputs of the second hidden layer.
    pub l2: usize,
}

impl DenseLayout {
    /// The layout of `arch`.
    pub fn of(arch: Arch) -> DenseLayout {
        DenseLayout {
            half: arch.half,
            l1: arch.l1,
            l2: arch.l2,
        }
    }
    /// Start of the transformer bias.
    pub const fn ft_bias(self) -> usize {
        0
    }
    /// Start of the factoriser rows.
    pub const fn factor(self) -> usize {
        self.half
    }
    /// Start of the first hidden layer's weights.
    pub const fn l1_weights(self) -> usize {
        self.factor() + FE_END * self.half
    }
    /// Start of the first hidden layer's biases.
    pub const fn l1_bias(self) -> usize {
        self.l1_weights() + 2 * self.half * self.l1
    }
    /// Start of the second hidden layer's weights.
    pub const fn l2_weights(self) -> usize {
        self.l1_bias() + self.l1
    }
    /// Start of the second hidden layer's biases.
    pub const fn l2_bias(self) -> usize {
        self.l2_weights() + self.l1 * self.l2
    }
    /// Start of the output weights.
    pub const fn out_weights(self) -> usize {
        self.l2_bias() + self.l2
    }
    /// Index of the output bias.
    pub const fn out_bias(self) -> usize {
        self.out_weights() + self.l2
    }
    /// Number of dense parameters.
    pub const fn len(self) -> usize {
        self.out_bias() + 1
    }
    /// Never empty (there is an output bias).
    pub const fn is_empty(self) -> bool {
        false
    }
    /// The clipping bound of dense parameter `i` (module documentation).
    pub fn limit(self, i: usize) -> f32 {
        if i < self.l1_weights() {
            FT_LIMIT
        } else if i < self.l1_bias() || (self.l2_weights()..self.l2_bias()).contains(&i) {
            HIDDEN_LIMIT
        } else if (self.out_weights()..self.out_bias()).contains(&i) {
            OUTPUT_LIMIT
        } else {
            f32::MAX // a bias
        }
    }
}

/// `x · scale` rounded to nearest (halves away from zero) within ±`limit`:
/// the export's rounding of the dense layers' weights and biases.
pub fn quantise(x: f32, scale: f32, limit: i32) -> i32 {
    let q = (x as f64 * scale as f64).round();
    q.clamp(-(limit as f64), limit as f64) as i32
}

/// `round(127 · x)`, the transformer's integer for a float weight (the
/// export writes exactly this), as an `f32`. Adding and subtracting
/// 1.5 · 2²³ rounds to nearest (ties to even) in any `|127 · x| < 2²²`, and
/// unlike `f32::round` it vectorises.
#[inline(always)]
pub fn ft_integer(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x * ACTIVATION_SCALE + MAGIC) - MAGIC
}

/// The float HalfKP network.
#[derive(Clone, Debug, PartialEq)]
pub struct HalfKpNet {
    /// The architecture (HalfKP or K+P).
    pub arch: Arch,
    /// `W`: a row of `half` per feature `king · FE_END + bona_piece`.
    pub table: Vec<f32>,
    /// King-mirrored (`--king-mirror`): a perspective whose king is on
    /// USI files 6–9 is read mirrored left to right (`features::canonical`),
    /// so only the rows of kings on files 1–5 learn, each from twice the
    /// positions; the export writes the mirrored rows for the other files.
    pub king_mirror: bool,
    /// Everything else, laid out as `DenseLayout`.
    pub dense: Vec<f32>,
    /// Quantisation-aware: the forward pass uses the weights as the file
    /// will hold them (module documentation). Off in a new network; the
    /// training loop sets it for its last `qat_epochs` epochs. After
    /// changing it, call `refresh`.
    pub quantisation_aware: bool,
    /// `dense` with the hidden and output weights rounded to the file's
    /// steps, when quantisation-aware (only its dense layers are read);
    /// `refresh` makes it.
    rounded: Vec<f32>,
}

/// `n` zeros for a table read and written at random rows: backed by
/// transparent huge pages where the system allows (`ryuo::hints`), so that
/// the rows of a 128 MB table do not miss the TLB on every access.
/// (No difference measurable on the shared test machine, ±10 % noise.)
pub fn zeroed_table(n: usize) -> Vec<f32> {
    // Zeroed allocations this large are fresh pages nobody touched yet,
    // which is when the advice takes effect.
    let v = vec![0.0f32; n];
    if std::env::var_os("NOHUGE").is_none() {
        ryuo::hints::advise_huge_pages(v.as_ptr(), n * std::mem::size_of::<f32>());
    }
    v
}

impl HalfKpNet {
    /// A network of `arch` initialised from `seed`: `W` zero; `P` uniform
    /// in ±0.1 (BonaPiece 0, an absent piece, at zero: no normal position
    /// trains it) and the transformer bias 0.5, the middle of the clipped
    /// ReLU, as in Ryuo's own trainer; hidden weights uniform in
    /// ±1/√inputs (PyTorch's default) and hidden biases 0.5, so that most
    /// units start inside the clipped ReLU's slope; output bias 0.
    pub fn new(arch: Arch, seed: u64) -> HalfKpNet {
        let l = DenseLayout::of(arch);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut dense = vec![0.0f32; l.len()];
        dense[..l.half].fill(0.5);
        let mut table = zeroed_table(arch.features.dimensions() * arch.half);
        // K+P has no factoriser (its rows are already shared by every king
        // square): `W` starts as `P` would, `P` stays zero.
        let first = match arch.features {
            FeatureSet::HalfKp => &mut dense[l.factor()..l.l1_weights()],
            FeatureSet::Kp => &mut table[..],
        };
        for w in &mut first[l.half..] {
            *w = rng.gen_range(-0.1..0.1);
        }
        let mut uniform = |range: std::ops::Range<usize>, fan_in: usize| {
            let a = 1.0 / (fan_in as f32).sqrt();
            for w in &mut dense[range] {
                *w = rng.gen_range(-a..a);
            }
        };
        uniform(l.l1_weights()..l.l1_bias(), 2 * l.half);
        uniform(l.l2_weights()..l.l2_bias(), l.l1);
        uniform(l.out_weights()..l.out_bias(), l.l2);
        dense[l.l1_bias()..l.l2_weights()].fill(0.5);
        dense[l.l2_bias()..l.out_weights()].fill(0.5);
        HalfKpNet {
            arch,
            table,
            king_mirror: false,
            dense,
            quantisation_aware: false,
            rounded: Vec::new(),
        }
        .refreshed()
    }

    /// `self` after `refresh`.
    fn refreshed(mut self) -> HalfKpNet {
        self.refresh();
        self
    }

    /// Brings the rounded weights the forward pass reads up to date with
    /// `dense`: call after changing `dense` (the training step does).
    pub fn refresh(&mut self) {
        if !self.quantisation_aware {
            self.rounded = Vec::new();
            return;
        }
        let l = self.layout();
        self.rounded.clone_from(&self.dense);
        let hidden = l.l1_weights()..l.l1_bias();
        let hidden2 = l.l2_weights()..l.l2_bias();
        let out = l.out_weights()..l.out_bias();
        for (range, scale) in [
            (hidden, HIDDEN_WEIGHT_SCALE),
            (hidden2, HIDDEN_WEIGHT_SCALE),
            (out, OUTPUT_WEIGHT_SCALE),
        ] {
            for w in &mut self.rounded[range] {
                *w = quantise(*w, scale, 127) as f32 / scale;
            }
        }
    }

    /// The dense parameters as the forward pass reads its hidden and
    /// output layers: rounded when quantisation-aware.
    pub fn forward_dense(&self) -> &[f32] {
        if self.quantisation_aware {
            &self.rounded
        } else {
            &self.dense
        }
    }

    /// The dense layout.
    pub fn layout(&self) -> DenseLayout {
        DenseLayout::of(self.arch)
    }

    /// Row of BonaPiece `bp` in `P`.
    pub fn factor_row(&self, bp: usize) -> &[f32] {
        let h = self.arch.half;
        let start = self.layout().factor() + bp * h;
        &self.dense[start..start + h]
    }

    /// Whether `P` exists: HalfKP's factoriser; K+P's rows are shared by
    /// every king square already.
    pub fn factorised(&self) -> bool {
        self.arch.features == FeatureSet::HalfKp
    }

    /// The rows of `W` the perspective of entries `own` reads (the other
    /// perspective's entries `enemy`), as `feature_rows`, read mirrored
    /// when king-mirrored (`features::canonical`).
    pub fn rows(&self, own: &[u16], enemy: &[u16]) -> Rows {
        let mut buf = [0u16; ENTRIES];
        let own = if self.king_mirror {
            canonical(own, &mut buf)
        } else {
            own
        };
        feature_rows(self.arch.features, own, enemy)
    }

    /// `acc = bias + Σ (W[r] + P[bona piece of r])` over a perspective's
    /// rows `rows` (`P` only where factorised). Row by row: the accumulator
    /// stays in L1 and each row streams in whole (measured 15 % faster than
    /// adding tiles of 32 units over all rows, as Ryuo's own network does:
    /// here the rows come from memory more than from the caches).
    pub fn accumulate(&self, rows: &[u32], acc: &mut [f32]) {
        let h = self.arch.half;
        let bias = &self.dense[..h];
        let acc = &mut acc[..h];
        if !self.quantisation_aware {
            acc.copy_from_slice(bias);
            self.add_rows(rows, acc, |w| w);
            return;
        }
        // The engine's integers: exact in `f32` (at most 41 · 840).
        for (t, &b) in acc.iter_mut().zip(bias) {
            *t = ft_integer(b);
        }
        self.add_rows(rows, acc, ft_integer);
        for t in acc {
            *t *= 1.0 / ACTIVATION_SCALE;
        }
    }

    /// `acc += op(W[r] + P[bona piece of r])` for each row `r` of `rows`;
    /// without a factoriser (K+P) `op(W[r])`, reading no `P` row at all.
    #[inline(always)]
    fn add_rows(&self, rows: &[u32], acc: &mut [f32], op: impl Fn(f32) -> f32) {
        let h = self.arch.half;
        let l = self.layout();
        let factor = &self.dense[l.factor()..l.l1_weights()];
        let factorised = self.factorised();
        for &r in rows {
            let r = r as usize;
            let wr = &self.table[r * h..(r + 1) * h];
            if factorised {
                let p = r % FE_END * h;
                for ((t, a), b) in acc.iter_mut().zip(wr).zip(&factor[p..p + h]) {
                    *t += op(a + b);
                }
            } else {
                for (t, &a) in acc.iter_mut().zip(wr) {
                    *t += op(a);
                }
            }
        }
    }

    /// The logit `y` of a sample given both perspectives' entries (side to
    /// move first).
    pub fn forward(&self, stm: &[u16], other: &[u16]) -> f32 {
        crate::halfkp::gradient::Scratch::new(self.arch).forward(self, stm, other)
    }

    /// The float evaluation of `pos` in centipawns, side to move's view.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let stm = pos.side_to_move();
        self.forward(&halfkp_features(pos, stm), &halfkp_features(pos, !stm)) * VALUE_SCALE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_keep_the_integers_in_range() {
        assert_eq!(FT_QUANT_LIMIT, 840);
        let folded = (2.0 * FT_LIMIT * ACTIVATION_SCALE).round() as i32;
        assert!(folded <= FT_QUANT_LIMIT);
        assert!((FT_LIMIT * ACTIVATION_SCALE).round() as i32 + 38 * folded <= i16::MAX as i32);
        assert!((HIDDEN_LIMIT * HIDDEN_WEIGHT_SCALE).round() as i32 <= 127);
        assert!((OUTPUT_LIMIT * OUTPUT_WEIGHT_SCALE).round() as i32 <= 127);
    }

    #[test]
    fn layout_covers_the_dense_vector() {
        let arch = Arch::by_name("halfkp_256x2-32-32").unwrap();
        let l = DenseLayout::of(arch);
        assert_eq!(
            l.len(),
            256 + 1548 * 256 + 512 * 32 + 32 + 32 * 32 + 32 + 32 + 1
        );
        let net = HalfKpNet::new(arch, 1);
        assert_eq!(net.dense.len(), l.len());
        assert_eq!(net.table.len(), 125_388 * 256);
        assert_eq!(net, HalfKpNet::new(arch, 1));
    }
}
