//! Loss and gradient of the float network on a set of samples.
//!
//! The first layer is sparse: forward and backward touch only the rows of
//! the active features, so a sample costs about `2 · 40 · H` additions each
//! way whatever `NUM_FEATURES` is.

use crate::dataset::{Dataset, Sample};
use crate::network::{accumulate_table, Network, RowList};
use ryuo::nnue::features::{InputFeatures, MAX_ACTIVE, NUM_FEATURES};
use ryuo::nnue::EVAL_SCALE;

/// The training objective on `p = sigmoid(y)` against the target `t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Loss {
    /// `(p − t)²`: bounded, so a few badly scored positions (mate scores,
    /// blunders in the data) cannot dominate a batch; the usual NNUE choice.
    #[default]
    Mse,
    /// Cross-entropy, reported as `KL(t ‖ p)` (cross-entropy minus the
    /// target's entropy, so a perfect fit scores 0); gradient `p − t`.
    Ce,
}

/// How a sample's target is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    /// Weight of the score in the target; `1 − lambda` goes to the result.
    pub lambda: f32,
    /// The loss.
    pub loss: Loss,
    /// The network learns a correction to the hand-crafted evaluation: its
    /// logit is added to `base / EVAL_SCALE`.
    pub residual: bool,
}

impl Objective {
    /// `t = λ·sigmoid(score / EVAL_SCALE) + (1 − λ)·(result + 1) / 2`.
    pub fn target(&self, s: &Sample) -> f32 {
        let from_score = sigmoid(s.score as f32 / EVAL_SCALE as f32);
        let from_result = (s.result as f32 + 1.0) / 2.0;
        self.lambda * from_score + (1.0 - self.lambda) * from_result
    }

    /// The logit of the whole evaluation given the network's `y`.
    #[inline]
    pub fn logit(&self, y: f32, s: &Sample) -> f32 {
        if self.residual {
            y + s.base as f32 / EVAL_SCALE as f32
        } else {
            y
        }
    }

    /// Loss of logit `y` against target `t`, and its derivative in `y`.
    pub fn loss_and_slope(&self, y: f32, t: f32) -> (f64, f32) {
        let p = sigmoid(y);
        match self.loss {
            Loss::Mse => {
                let d = p - t;
                ((d as f64) * (d as f64), 2.0 * d * p * (1.0 - p))
            }
            Loss::Ce => {
                let (p64, t64) = (p as f64, t as f64);
                let eps = 1e-12;
                let xlogy = |a: f64, b: f64| {
                    if a > 0.0 {
                        a * (a / b.max(eps)).ln()
                    } else {
                        0.0
                    }
                };
                let kl = xlogy(t64, p64) + xlogy(1.0 - t64, 1.0 - p64);
                (kl, p - t)
            }
        }
    }
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Scratch space for one thread's forward and backward passes.
pub struct Scratch {
    acc: [Vec<f32>; 2],
    delta: [Vec<f32>; 2],
}

impl Scratch {
    /// Scratch for hidden width `hidden`.
    pub fn new(hidden: usize) -> Scratch {
        let v = || vec![0.0f32; hidden];
        Scratch {
            acc: [v(), v()],
            delta: [v(), v()],
        }
    }
}

/// The logit of a sample, leaving both perspectives' pre-activations in
/// `scratch`; `rows` are each perspective's rows of `table`.
fn forward(net: &Network, table: &[f32], rows: &[RowList; 2], scratch: &mut Scratch) -> f32 {
    let h = net.hidden;
    let w = net.out_weights();
    let mut y = net.out_bias();
    for (half, features) in rows.iter().enumerate() {
        let acc = &mut scratch.acc[half];
        accumulate_table(table, net.ft_bias(), features, acc);
        y += acc
            .iter()
            .zip(&w[half * h..(half + 1) * h])
            .map(|(a, w)| a.clamp(0.0, 1.0) * w)
            .sum::<f32>();
    }
    y
}

/// Set in a sample index: use the sample's left-right mirror image (see
/// `InputFeatures::mirror`) instead of the sample itself.
pub const MIRROR: u32 = 1 << 31;

/// Room for one perspective's features of a mirrored sample.
type MirrorBuf = [[u16; MAX_ACTIVE]; 2];

/// Sample `i` of `data`, mirrored into `buf` when `i` carries `MIRROR`.
fn sample<'a>(data: &'a Dataset, i: u32, buf: &'a mut MirrorBuf) -> Sample<'a> {
    let s = data.get((i & !MIRROR) as usize);
    if i & MIRROR == 0 {
        return s;
    }
    let set = data.input_features().unwrap_or(InputFeatures::PieceSquare);
    let [b0, b1] = buf;
    for (src, dst) in [(s.stm, &mut *b0), (s.other, &mut *b1)] {
        for (d, &f) in dst.iter_mut().zip(src) {
            *d = set.mirror(f as usize) as u16;
        }
    }
    Sample {
        stm: &b0[..s.stm.len()],
        other: &b1[..s.other.len()],
        ..s
    }
}

/// The rows a sample's perspective reads: with `folded` rows, its features
/// alone; else `Layout::rows_of` (with factor rows).
fn rows_for(net: &Network, folded: bool, features: &[u16]) -> RowList {
    if folded {
        features.iter().copied().take(MAX_ACTIVE).collect()
    } else {
        net.layout().rows_of(features)
    }
}

/// Adds `scale ·` the gradient of the loss summed over samples `indices`
/// of `data` to `grad` (the network's layout); returns the summed loss.
///
/// `folded`, when not empty, is `Network::fold_into`'s copy of a
/// factorised network's rows: the forward pass reads one folded row per
/// feature instead of a bucket row and a factor row, and the gradient goes
/// to the bucket rows only. A factor row's gradient is then the sum of its
/// bucket rows' (`sum_factor_gradient`), which the caller adds once per
/// batch instead of once per sample.
#[allow(clippy::too_many_arguments)]
pub fn accumulate_gradient(
    net: &Network,
    obj: &Objective,
    data: &Dataset,
    indices: &[u32],
    scale: f32,
    scratch: &mut Scratch,
    grad: &mut [f32],
    folded: &[f32],
) -> f64 {
    let h = net.hidden;
    let layout = net.layout();
    let w = net.out_weights();
    let is_folded = !folded.is_empty();
    let table = if is_folded {
        folded
    } else {
        net.feature_rows()
    };
    let mut total = 0.0f64;
    let mut buf: MirrorBuf = [[0; MAX_ACTIVE]; 2];
    for &i in indices {
        let s = sample(data, i, &mut buf);
        let rows = [
            rows_for(net, is_folded, s.stm),
            rows_for(net, is_folded, s.other),
        ];
        let y = obj.logit(forward(net, table, &rows, scratch), &s);
        let (loss, slope) = obj.loss_and_slope(y, obj.target(&s));
        total += loss;
        let g = slope * scale;
        if g == 0.0 {
            continue;
        }
        grad[layout.out_bias()] += g;
        for half in 0..2 {
            let acc = &scratch.acc[half];
            let ws = &w[half * h..(half + 1) * h];
            let start = layout.out_weights() + half * h;
            let gw = &mut grad[start..start + h];
            let delta = &mut scratch.delta[half];
            for j in 0..h {
                let a = acc[j];
                gw[j] += g * a.clamp(0.0, 1.0);
                // The clipped ReLU passes gradient only strictly inside.
                delta[j] = if a > 0.0 && a < 1.0 { g * ws[j] } else { 0.0 };
            }
        }
        let (d0, d1) = (&scratch.delta[0], &scratch.delta[1]);
        for (gb, (a, b)) in grad[..h].iter_mut().zip(d0.iter().zip(d1)) {
            *gb += a + b;
        }
        let weights = &mut grad[layout.ft_weights()..layout.out_weights()];
        for (half, features) in rows.iter().enumerate() {
            add_to_rows(weights, h, features, &scratch.delta[half]);
        }
    }
    total
}

/// Sets each factor row of `grad` (a factorised network's layout) to the
/// sum of its bucket rows' gradients: what per-sample factor updates would
/// have added (see `accumulate_gradient`).
pub fn sum_factor_gradient(net: &Network, grad: &mut [f32]) {
    let layout = net.layout();
    if !layout.factorised() {
        return;
    }
    let h = net.hidden;
    let start = layout.ft_weights();
    let (buckets, factors) =
        grad[start..layout.out_weights()].split_at_mut(net.features.rows() * h);
    factors.fill(0.0);
    for bucket in buckets.chunks(NUM_FEATURES * h) {
        for (a, b) in factors.iter_mut().zip(bucket) {
            *a += b;
        }
    }
}

/// Units handled together by `add_to_rows`.
const TILE: usize = 32;

/// Adds `delta` to row `f` of `rows` (rows of `h`) for every `f` in
/// `features`, a tile of `delta` held in registers at a time.
fn add_to_rows(rows: &mut [f32], h: usize, features: &[u16], delta: &[f32]) {
    let mut start = 0;
    while start + TILE <= h {
        let d: &[f32; TILE] = delta[start..start + TILE].try_into().unwrap();
        for &f in features {
            let at = f as usize * h + start;
            let row: &mut [f32; TILE] = (&mut rows[at..at + TILE]).try_into().unwrap();
            for (g, d) in row.iter_mut().zip(d) {
                *g += d;
            }
        }
        start += TILE;
    }
    for &f in features {
        let at = f as usize * h;
        for (g, d) in rows[at + start..at + h].iter_mut().zip(&delta[start..]) {
            *g += d;
        }
    }
}

/// Summed loss over samples `indices`, without gradient.
pub fn loss_sum(net: &Network, obj: &Objective, data: &Dataset, indices: &[u32]) -> f64 {
    let mut scratch = Scratch::new(net.hidden);
    let mut buf: MirrorBuf = [[0; MAX_ACTIVE]; 2];
    let layout = net.layout();
    indices
        .iter()
        .map(|&i| {
            let s = sample(data, i, &mut buf);
            let rows = [layout.rows_of(s.stm), layout.rows_of(s.other)];
            let y = obj.logit(forward(net, net.feature_rows(), &rows, &mut scratch), &s);
            obj.loss_and_slope(y, obj.target(&s)).0
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrored_samples_map_features_and_keep_labels() {
        use ryuo::position::Position;
        let mut data = Dataset::new();
        // The first position is its own mirror image; the second is not.
        let symmetric =
            Position::from_sfen("4k4/9/ppppppppp/9/9/9/PPPPPPPPP/9/4K4 b 2G 1").unwrap();
        data.push_position(&symmetric, 40, 1);
        let lopsided = Position::from_sfen(
            "lnsgkgsnl/1r5b1/ppppppp1p/7p1/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
        )
        .unwrap();
        data.push_position(&lopsided, -25, -1);
        let net = Network::new(32, 3);
        let obj = Objective {
            lambda: 0.5,
            loss: Loss::Mse,
            residual: false,
        };
        let plain = loss_sum(&net, &obj, &data, &[0]);
        assert_eq!(plain, loss_sum(&net, &obj, &data, &[MIRROR]));
        let mut buf: MirrorBuf = [[0; MAX_ACTIVE]; 2];
        let m = sample(&data, 1 | MIRROR, &mut buf);
        let s = data.get(1);
        assert_eq!((m.score, m.result), (s.score, s.result));
        assert_ne!(m.stm, s.stm);
        let back: Vec<u16> = m
            .stm
            .iter()
            .map(|&f| ryuo::nnue::features::mirror_feature(f as usize) as u16)
            .collect();
        assert_eq!(back, s.stm);
    }

    #[test]
    fn slopes_match_finite_differences() {
        for loss in [Loss::Mse, Loss::Ce] {
            let obj = Objective {
                lambda: 0.5,
                loss,
                residual: false,
            };
            for (y, t) in [(0.3f32, 0.8f32), (-1.5, 0.2), (2.0, 0.5)] {
                let e = 1e-3;
                let (lp, _) = obj.loss_and_slope(y + e, t);
                let (lm, _) = obj.loss_and_slope(y - e, t);
                let (_, slope) = obj.loss_and_slope(y, t);
                let numeric = (lp - lm) / (2.0 * e as f64);
                assert!((numeric - slope as f64).abs() < 1e-3, "{loss:?} {y} {t}");
            }
        }
    }

    #[test]
    fn target_mixes_score_and_result() {
        let s = Sample {
            stm: &[],
            other: &[],
            score: 0,
            result: 1,
            base: 0,
        };
        let obj = Objective {
            lambda: 0.25,
            loss: Loss::Mse,
            residual: false,
        };
        assert!((obj.target(&s) - (0.25 * 0.5 + 0.75)).abs() < 1e-6);
    }
}
