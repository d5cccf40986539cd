//! Export of a float HalfKP network as a YaneuraOu `nn.bin`, and the
//! check of what the integers cost, with the engine's own evaluation.
//!
//! # Quantisation
//! YaneuraOu's arithmetic (`ryuo::nnue::standard`): accumulators `i16`
//! clipped to 0..127, affine layers of `i8` weights on `u8` inputs into
//! `i32`, `clamp(sum >> 6, 0, 127)`, and the value `output / 16`. With an
//! activation of 1.0 being 127:
//! * transformer: `round(127 · (W[k, b] + P[b]))` (the factoriser folded
//!   into every king square's row) and `round(127 · bias)`, `i16`;
//! * hidden layers: weights `round(64 · w)` (`i8`), biases
//!   `round(127 · 64 · b) + 32`: the sum is `127 · 64 · z`, and the `+ 32`
//!   turns the engine's `>> 6` (a floor) into rounding to nearest, so the
//!   integer activations are not biased half a step low;
//! * output: weights `round(w · 600 · 16 / 127)` (`i8`), bias
//!   `round(600 · 16 · b)`, so that `output / 16 = 600 · y` centipawns.
//!
//! The bounds of `crate::halfkp::network` keep every value within its
//! integer; the rounding clamps anyway.
//!
//! # Fitting the rounding to data
//! Rounding each weight to nearest is not the best the format allows.
//! Measured on a network trained in plain float (`--qat-epochs 0`) on gensfen
//! data, rounding the first hidden layer's weights to 1/64 shifted the
//! value by a near-constant 10 cp, the second layer's by 7 cp the other
//! way, the output layer's by 3 cp; on random-game positions the output
//! layer's rounding (a step of 127/9600 ≈ 8 cp per unit of activation)
//! gave 5 cp that varies with the position. So, given some training
//! positions, `QuantisedNet::fit` chooses each hidden and output weight's
//! rounding (down or up) and each bias by least squares: for each layer in
//! turn, it minimises over those positions the squared difference between
//! the integer sum (its inputs from the integer layers before it, already
//! fitted) and the float sum it stands for — greedy flips, a few passes.
//! With the bias alone this is the usual "bias correction" of post-training
//! quantisation; the flips are AdaRound's idea with a greedy search.
//! Weights stay within one step of their float value, so the clipping
//! bounds still hold. Measured (mean |engine − float| on held-out
//! positions): 8.3 → 2.8 cp and 3.7 → 1.2 cp on small networks, 53 → 12 cp
//! after 20 epochs on 300 k positions. A network whose last epochs were
//! quantisation-aware (the default, `crate::halfkp::network`) already uses
//! rounded weights; there the fit changes little (1.84 → 1.78 cp).

use crate::dataset::Dataset;
use crate::halfkp::features::{feature_index, feature_rows, king_is_mirrored, mirror_entry};
use crate::halfkp::gradient::Scratch;
use crate::halfkp::network::{
    ft_integer, quantise, HalfKpNet, ACTIVATION_SCALE, FT_QUANT_LIMIT, FV_SCALE,
    HIDDEN_WEIGHT_SCALE, OUTPUT_BIAS_SCALE, OUTPUT_WEIGHT_SCALE,
};
use ryuo::nnue::standard::arch::padded;
use ryuo::nnue::standard::{
    evaluate_from_scratch, value, Arch, StandardNetwork, FE_END, MAX_VALUE, VERSION,
};

/// Added to the hidden biases so that `>> 6` rounds (module documentation).
const ROUNDING: i32 = 1 << 5;

/// The shift of YaneuraOu's clipped ReLU.
const SHIFT: u32 = 6;

/// One affine layer in the file's integers: `outputs` rows of
/// `padded(inputs)` `i8` weights (the padding zero) and `i32` biases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    /// Inputs read (the file pads rows beyond them).
    pub inputs: usize,
    /// Biases, one per output.
    pub bias: Vec<i32>,
    /// Weights, output-major, rows of `padded(inputs)`.
    pub weights: Vec<i8>,
}

impl Affine {
    /// Rounds a float layer whose weights are input-major
    /// (`w[j · outputs + o]`), with the given scales; `rounding` is added
    /// to every bias.
    fn from_float(w: &[f32], b: &[f32], w_scale: f32, b_scale: f32, rounding: i32) -> Affine {
        let outputs = b.len();
        let inputs = w.len() / outputs;
        let stride = padded(inputs);
        let mut weights = vec![0i8; outputs * stride];
        for o in 0..outputs {
            for j in 0..inputs {
                weights[o * stride + j] = quantise(w[j * outputs + o], w_scale, 127) as i8;
            }
        }
        Affine {
            inputs,
            bias: b
                .iter()
                .map(|&x| quantise(x, b_scale, i32::MAX - ROUNDING) + rounding)
                .collect(),
            weights,
        }
    }

    /// `bias + weights · input` (`input` of `inputs` bytes), as the engine
    /// sums it.
    fn propagate(&self, input: &[u8], out: &mut [i32]) {
        let stride = padded(self.inputs);
        for (o, (dst, &b)) in out.iter_mut().zip(&self.bias).enumerate() {
            let row = &self.weights[o * stride..o * stride + self.inputs];
            let mut sum = 0i32;
            for (&w, &x) in row.iter().zip(input) {
                sum += i32::from(w) * i32::from(x);
            }
            *dst = b.wrapping_add(sum);
        }
    }
}

/// The outputs of `layer` on inputs `x` (input-major, `x[j][s]`), through
/// the clipped ReLU, output-major in the same form.
fn next_inputs(layer: &Affine, x: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let n = x.first().map_or(0, Vec::len);
    let outputs = layer.bias.len();
    let mut out = vec![vec![0u8; n]; outputs];
    let mut input = vec![0u8; x.len()];
    let mut sums = vec![0i32; outputs];
    for s in 0..n {
        for (v, col) in input.iter_mut().zip(x) {
            *v = col[s];
        }
        layer.propagate(&input, &mut sums);
        for (col, &sum) in out.iter_mut().zip(&sums) {
            col[s] = clipped_relu(sum);
        }
    }
    out
}

/// Greedy passes over a layer's weights in `fit_layer`.
const FIT_PASSES: usize = 3;

/// Chooses the rounding of each weight of `layer` (float weights `w`,
/// input-major, times `scale`) and its biases to minimise, per output `o`,
/// `Σ_s (bias + Σ_j q_j · x[j][s] − t[o][s])²` (module documentation).
/// With the bias at its optimum (the mean residual), the sum is the
/// residuals' variance, so a flip of `q_j` by `δ` changes it by
/// `2δ · cov(e, x_j) · n + δ² · var(x_j) · n`; a flip is kept when that is
/// negative. Each weight stays `floor` or `ceil` of `w · scale`.
fn fit_layer(layer: &mut Affine, w: &[f32], scale: f32, x: &[Vec<u8>], t: &[Vec<f64>]) {
    let outputs = layer.bias.len();
    let inputs = layer.inputs;
    let stride = padded(inputs);
    let n = t[0].len();
    let means: Vec<f64> = x
        .iter()
        .map(|c| c.iter().map(|&v| v as f64).sum::<f64>() / n as f64)
        .collect();
    let vars: Vec<f64> = x
        .iter()
        .zip(&means)
        .map(|(c, &m)| c.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>())
        .collect();
    let mut e = vec![0.0f64; n];
    for o in 0..outputs {
        let row = &mut layer.weights[o * stride..o * stride + inputs];
        // Residuals without the bias.
        e.copy_from_slice(&t[o]);
        e.iter_mut().for_each(|v| *v = -*v);
        for (j, &q) in row.iter().enumerate() {
            if q != 0 {
                for (v, &xv) in e.iter_mut().zip(&x[j]) {
                    *v += q as f64 * xv as f64;
                }
            }
        }
        for _ in 0..FIT_PASSES {
            let mut flipped = false;
            let mean_e = e.iter().sum::<f64>() / n as f64;
            let mut mean_e = mean_e;
            for j in 0..inputs {
                if vars[j] == 0.0 {
                    continue;
                }
                let exact = w[j * outputs + o] as f64 * scale as f64;
                let q = row[j] as f64;
                // The other rounding of `exact`, if any.
                let other = if q > exact { q - 1.0 } else { q + 1.0 };
                if (other - exact).abs() >= 1.0 || other.abs() > 127.0 {
                    continue;
                }
                let delta = other - q;
                let cov: f64 = e
                    .iter()
                    .zip(&x[j])
                    .map(|(&v, &xv)| v * xv as f64)
                    .sum::<f64>()
                    - n as f64 * mean_e * means[j];
                if 2.0 * delta * cov + delta * delta * vars[j] < 0.0 {
                    row[j] = other as i8;
                    for (v, &xv) in e.iter_mut().zip(&x[j]) {
                        *v += delta * xv as f64;
                    }
                    mean_e += delta * means[j];
                    flipped = true;
                }
            }
            if !flipped {
                break;
            }
        }
        let mean_e = e.iter().sum::<f64>() / n as f64;
        layer.bias[o] = (-mean_e).round().clamp(i32::MIN as f64, i32::MAX as f64) as i32;
    }
}

/// `clamp(x >> 6, 0, 127)`.
fn clipped_relu(x: i32) -> u8 {
    (x >> SHIFT).clamp(0, 127) as u8
}

/// A HalfKP network in the file's integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    /// The architecture.
    pub arch: Arch,
    /// Transformer bias, `i16`.
    pub ft_bias: Vec<i16>,
    /// Transformer rows (factoriser folded in), a row of `half` per feature.
    pub ft_weights: Vec<i16>,
    /// First hidden layer.
    pub l1: Affine,
    /// Second hidden layer.
    pub l2: Affine,
    /// Output layer (one output).
    pub out: Affine,
}

impl QuantisedNet {
    /// `net` rounded to the file's integers (module documentation), the
    /// factoriser folded into every king square's rows.
    pub fn from_float(net: &HalfKpNet) -> QuantisedNet {
        let l = net.layout();
        let h = l.half;
        let d = &net.dense;
        // The rounding of training's quantised transformer, to the bit.
        let lim = FT_QUANT_LIMIT as f32;
        let ft = |x: f32| ft_integer(x).clamp(-lim, lim) as i16;
        let mut ft_weights = Vec::with_capacity(net.table.len());
        for r in 0..net.table.len() / h {
            if !net.factorised() {
                ft_weights.extend(net.table[r * h..(r + 1) * h].iter().map(|&w| ft(w)));
                continue;
            }
            // A king-mirrored network's row for a king on files 6–9 is the
            // mirrored feature's.
            let (king, bp) = ((r / FE_END) as u16, (r % FE_END) as u16);
            let (king, bp) = if net.king_mirror && king_is_mirrored(king) {
                (mirror_entry(king, true), mirror_entry(bp, false))
            } else {
                (king, bp)
            };
            let w = feature_index(king, bp) * h;
            let factor = net.factor_row(bp as usize);
            let row = &net.table[w..w + h];
            ft_weights.extend(row.iter().zip(factor).map(|(w, p)| ft(w + p)));
        }
        let hidden_bias_scale = ACTIVATION_SCALE * HIDDEN_WEIGHT_SCALE;
        QuantisedNet {
            arch: net.arch,
            ft_bias: d[..h].iter().map(|&b| ft(b)).collect(),
            ft_weights,
            l1: Affine::from_float(
                &d[l.l1_weights()..l.l1_bias()],
                &d[l.l1_bias()..l.l2_weights()],
                HIDDEN_WEIGHT_SCALE,
                hidden_bias_scale,
                ROUNDING,
            ),
            l2: Affine::from_float(
                &d[l.l2_weights()..l.l2_bias()],
                &d[l.l2_bias()..l.out_weights()],
                HIDDEN_WEIGHT_SCALE,
                hidden_bias_scale,
                ROUNDING,
            ),
            out: Affine::from_float(
                &d[l.out_weights()..l.out_bias()],
                &d[l.out_bias()..],
                OUTPUT_WEIGHT_SCALE,
                OUTPUT_BIAS_SCALE,
                0,
            ),
        }
    }

    /// The network's output (before the division by `FV_SCALE`) for a
    /// sample (both perspectives' entries, side to move first), exactly
    /// as the engine computes it.
    pub fn output(&self, stm: &[u16], other: &[u16]) -> i32 {
        let x = self.transform(stm, other);
        let mut s1 = vec![0i32; self.arch.l1];
        self.l1.propagate(&x, &mut s1);
        let a1: Vec<u8> = s1.iter().map(|&s| clipped_relu(s)).collect();
        let mut s2 = vec![0i32; self.arch.l2];
        self.l2.propagate(&a1, &mut s2);
        let a2: Vec<u8> = s2.iter().map(|&s| clipped_relu(s)).collect();
        let mut out = [0i32];
        self.out.propagate(&a2, &mut out);
        out[0]
    }

    /// The clipped accumulators of a sample (side to move's, then the
    /// other's), as the engine computes them.
    fn transform(&self, stm: &[u16], other: &[u16]) -> Vec<u8> {
        let h = self.arch.half;
        let mut x = vec![0u8; 2 * h];
        for (half, (own, enemy)) in [(stm, other), (other, stm)].into_iter().enumerate() {
            let mut acc = self.ft_bias.clone();
            for f in feature_rows(self.arch.features, own, enemy) {
                let f = f as usize;
                for (a, &w) in acc.iter_mut().zip(&self.ft_weights[f * h..(f + 1) * h]) {
                    *a = a.wrapping_add(w);
                }
            }
            for (o, a) in x[half * h..(half + 1) * h].iter_mut().zip(&acc) {
                *o = (*a).clamp(0, 127) as u8;
            }
        }
        x
    }

    /// Fits the hidden and output layers' rounding and biases to samples
    /// `indices` of `data` (module documentation), first layer first.
    pub fn fit(&mut self, net: &HalfKpNet, data: &Dataset, indices: &[u32]) {
        if indices.is_empty() {
            return;
        }
        let l = net.layout();
        let h = l.half;
        let n = indices.len();
        // The float pre-activations, scaled to the integer sums they stand
        // for (the hidden sums carry `ROUNDING`).
        let hidden_scale = (ACTIVATION_SCALE * HIDDEN_WEIGHT_SCALE) as f64;
        let mut t1 = vec![vec![0.0f64; n]; l.l1];
        let mut t2 = vec![vec![0.0f64; n]; l.l2];
        let mut t3 = vec![vec![0.0f64; n]; 1];
        // Integer transformer outputs, input-major: `x[j][s]`.
        let mut x = vec![vec![0u8; n]; 2 * h];
        let mut sc = Scratch::new(net.arch);
        for (s, &i) in indices.iter().enumerate() {
            let sample = data.get(i as usize);
            let y = sc.forward(net, sample.stm, sample.other);
            let (z1, z2) = sc.pre_activations();
            for (t, &z) in t1.iter_mut().zip(z1) {
                t[s] = z as f64 * hidden_scale + ROUNDING as f64;
            }
            for (t, &z) in t2.iter_mut().zip(z2) {
                t[s] = z as f64 * hidden_scale + ROUNDING as f64;
            }
            t3[0][s] = y as f64 * OUTPUT_BIAS_SCALE as f64;
            let input = self.transform(sample.stm, sample.other);
            for (col, &v) in x.iter_mut().zip(&input) {
                col[s] = v;
            }
        }
        let d = &net.dense;
        let w1 = &d[l.l1_weights()..l.l1_bias()];
        fit_layer(&mut self.l1, w1, HIDDEN_WEIGHT_SCALE, &x, &t1);
        let a1 = next_inputs(&self.l1, &x);
        let w2 = &d[l.l2_weights()..l.l2_bias()];
        fit_layer(&mut self.l2, w2, HIDDEN_WEIGHT_SCALE, &a1, &t2);
        let a2 = next_inputs(&self.l2, &a1);
        let w3 = &d[l.out_weights()..l.out_bias()];
        fit_layer(&mut self.out, w3, OUTPUT_WEIGHT_SCALE, &a2, &t3);
    }

    /// The bytes of the `nn.bin` file (layout: `ryuo::nnue::standard`'s
    /// `file.rs`; the engine reads it with `StandardNetwork::from_bytes`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let arch = self.arch;
        let description = arch.description();
        let mut out = Vec::with_capacity(arch.file_len(description.len()));
        let u32s = |out: &mut Vec<u8>, v: &[u32]| {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        u32s(&mut out, &[VERSION, arch.hash(), description.len() as u32]);
        out.extend_from_slice(description.as_bytes());
        u32s(&mut out, &[arch.transformer_hash()]);
        for w in self.ft_bias.iter().chain(&self.ft_weights) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        u32s(&mut out, &[arch.network_hash()]);
        for layer in [&self.l1, &self.l2, &self.out] {
            for b in &layer.bias {
                out.extend_from_slice(&b.to_le_bytes());
            }
            out.extend(layer.weights.iter().map(|&w| w as u8));
        }
        debug_assert_eq!(out.len(), arch.file_len(description.len()));
        out
    }

    /// The engine's network for this one (the bytes read back by the
    /// engine's reader).
    pub fn to_engine(&self) -> StandardNetwork {
        StandardNetwork::from_bytes(&self.to_bytes())
            .expect("the engine reads what the trainer writes")
    }
}

/// The file of `net` as the trainer writes it: rounded, then fitted to
/// samples `calibration` of `data` (none: rounding to nearest alone).
pub fn export(net: &HalfKpNet, data: &Dataset, calibration: &[u32]) -> QuantisedNet {
    let mut q = QuantisedNet::from_float(net);
    q.fit(net, data, calibration);
    q
}

/// The engine's evaluation of `pos` with `engine`, in centipawns
/// (`output / 16`, as with the default `FV_SCALE`).
pub fn engine_value(engine: &StandardNetwork, pos: &ryuo::position::Position) -> i32 {
    value(evaluate_from_scratch(engine, pos), FV_SCALE)
}

/// Mean |engine − float| evaluation in centipawns over the samples
/// `indices` of `data` whose position the dataset keeps, and how many
/// those were. The engine evaluates the exported file from the position
/// itself, with its own features and integer code; the float value is
/// clamped to the engine's range (±31,753) first.
pub fn quantisation_gap(
    net: &HalfKpNet,
    engine: &StandardNetwork,
    data: &Dataset,
    indices: &[u32],
) -> (f64, usize) {
    let mut total = 0.0f64;
    let mut n = 0;
    for &i in indices {
        let Some(pos) = data.position(i as usize) else {
            continue;
        };
        let float = net
            .evaluate(&pos)
            .clamp(-MAX_VALUE as f32, MAX_VALUE as f32) as f64;
        total += (engine_value(engine, &pos) as f64 - float).abs();
        n += 1;
    }
    (total / n.max(1) as f64, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_within_limits() {
        assert_eq!(quantise(2.6 / 127.0, 127.0, 840), 3);
        assert_eq!(quantise(-2.6 / 127.0, 127.0, 840), -3);
        assert_eq!(quantise(9.0, 127.0, 840), 840);
        assert_eq!(quantise(-9.0, 64.0, 127), -127);
    }

    #[test]
    fn clipped_relu_floors_then_clamps() {
        assert_eq!(clipped_relu(-1), 0);
        assert_eq!(clipped_relu(63), 0);
        assert_eq!(clipped_relu(64), 1);
        assert_eq!(clipped_relu(1 << 20), 127);
    }
}
