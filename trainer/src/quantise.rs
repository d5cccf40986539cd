//! The quantised network: export in the engine's file format
//! (`ryuo::nnue`, module documentation), reading it back, and evaluation
//! with integers exactly as the engine computes it.

use crate::dataset::Dataset;
use crate::network::{out_quant_limit, Network, FT_QUANT_LIMIT, OUT_BIAS_QUANT_LIMIT};
use ryuo::nnue::features::InputFeatures;
use ryuo::nnue::{Network as EngineNetwork, EVAL_SCALE, MAX_EVAL, QA, QB};
use ryuo::position::Position;
use std::io::{Read, Write};

/// A network in the integers of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    /// Hidden width.
    pub hidden: usize,
    /// The feature set (the rows of `ft_weights`).
    pub features: InputFeatures,
    /// Hidden biases, `QA` scale.
    pub ft_bias: Vec<i16>,
    /// Feature weights, `QA` scale, row-major by feature.
    pub ft_weights: Vec<i16>,
    /// Output weights, `QB` scale: side to move's units, then the other's.
    pub out_weights: Vec<i16>,
    /// Output bias, `QA·QB` scale.
    pub out_bias: i32,
    /// The output is added to the hand-crafted evaluation
    /// (`ryuo::nnue::FLAG_ADDS_TO_CLASSIC`).
    pub adds_to_classic: bool,
}

/// `x · scale` rounded to nearest (halves away from zero) within ±`limit`.
fn quantise(x: f32, scale: i32, limit: i32) -> i32 {
    let q = (x as f64 * scale as f64).round();
    q.clamp(-(limit as f64), limit as f64) as i32
}

impl QuantisedNet {
    /// Rounds `net` to the file's integers.
    pub fn from_float(net: &Network) -> QuantisedNet {
        let h = net.hidden;
        let ft = |x: &f32| quantise(*x, QA, FT_QUANT_LIMIT) as i16;
        let out_lim = out_quant_limit(h);
        // The factor rows (king buckets) folded into the set's rows.
        let ft_weights = (0..net.features.rows())
            .flat_map(|f| net.folded_row(f))
            .map(|x| ft(&x))
            .collect();
        QuantisedNet {
            hidden: h,
            features: net.features,
            ft_bias: net.ft_bias().iter().map(ft).collect(),
            ft_weights,
            out_weights: net
                .out_weights()
                .iter()
                .map(|x| quantise(*x, QB, out_lim) as i16)
                .collect(),
            out_bias: quantise(net.out_bias(), QA * QB, OUT_BIAS_QUANT_LIMIT),
            adds_to_classic: false,
        }
    }

    /// Size of the file for hidden width `hidden` and feature set
    /// `features`.
    pub fn file_size(hidden: usize, features: InputFeatures) -> usize {
        EngineNetwork::file_len(hidden, features)
    }

    /// Writes the network file, through the engine's own writer so that
    /// the two cannot disagree on the format.
    pub fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        let net = EngineNetwork::from_parts(
            self.features,
            self.ft_bias.clone(),
            self.ft_weights.clone(),
            self.out_weights.clone(),
            self.out_bias,
            self.adds_to_classic,
        )
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        w.write_all(&net.to_bytes())
    }

    /// Reads a network file with the engine's reader (same checks).
    pub fn read(r: &mut impl Read) -> Result<QuantisedNet, String> {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        let net = EngineNetwork::from_bytes(&bytes).map_err(|e| e.to_string())?;
        let (ft_bias, ft_weights, out_weights, out_bias) = net.parts();
        Ok(QuantisedNet {
            hidden: net.hidden(),
            features: net.features(),
            ft_bias: ft_bias.to_vec(),
            ft_weights: ft_weights.to_vec(),
            out_weights: out_weights.to_vec(),
            out_bias,
            adds_to_classic: net.adds_to_classic(),
        })
    }

    /// The evaluation of `pos` in centipawns, side to move's view, computed
    /// as the engine does: `i16` accumulators, `clamp(acc, 0, QA)`, an `i32`
    /// dot product with the output weights plus the output bias, then
    /// `· EVAL_SCALE / (QA·QB)` truncated, clamped to ±`MAX_EVAL`.
    /// A hybrid network adds the hand-crafted evaluation, clamped again.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let stm = pos.side_to_move();
        let active = |c| self.features.active(pos, c);
        let net = self.evaluate_features(&active(stm), &active(!stm));
        if self.adds_to_classic {
            (net + ryuo::eval::evaluate(pos)).clamp(-MAX_EVAL, MAX_EVAL)
        } else {
            net
        }
    }

    /// `evaluate` on the active features of the side to move and of the
    /// other side.
    pub fn evaluate_features(&self, stm: &[u16], other: &[u16]) -> i32 {
        let h = self.hidden;
        let mut sum = self.out_bias;
        for (half, features) in [stm, other].into_iter().enumerate() {
            let mut acc = self.ft_bias.clone();
            for &f in features {
                let row = &self.ft_weights[f as usize * h..(f as usize + 1) * h];
                for (a, w) in acc.iter_mut().zip(row) {
                    *a = a.wrapping_add(*w);
                }
            }
            let ws = &self.out_weights[half * h..(half + 1) * h];
            let dot = acc.iter().zip(ws).fold(0i32, |s, (&a, &w)| {
                s.wrapping_add(i32::from(a.clamp(0, QA as i16)) * i32::from(w))
            });
            sum = sum.wrapping_add(dot);
        }
        let cp = i64::from(sum) * i64::from(EVAL_SCALE) / i64::from(QA * QB);
        cp.clamp(-(MAX_EVAL as i64), MAX_EVAL as i64) as i32
    }
}

/// Mean absolute difference, in centipawns, between the float network and
/// its quantised form over samples `indices` of `data` (of the network's
/// feature set): what export costs.
pub fn quantisation_gap(net: &Network, data: &Dataset, indices: &[u32]) -> f64 {
    let q = QuantisedNet::from_float(net);
    let total: f64 = indices
        .iter()
        .map(|&i| {
            let s = data.get(i as usize);
            let float = net.forward(s.stm, s.other) as f64 * EVAL_SCALE as f64;
            (q.evaluate_features(s.stm, s.other) as f64 - float).abs()
        })
        .sum();
    total / indices.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_within_limits() {
        assert_eq!(quantise(2.6 / 255.0, 255, 504), 3);
        assert_eq!(quantise(-2.6 / 255.0, 255, 504), -3);
        assert_eq!(quantise(-0.49 / 64.0, 64, 100), 0);
        assert_eq!(quantise(9.0, 255, 504), 504);
        assert_eq!(quantise(-9.0, 255, 504), -504);
    }
}
