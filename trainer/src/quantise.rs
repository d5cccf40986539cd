//! The quantised network: export in the engine's file format
//! (`ryuo::nnue`, module documentation), reading it back, and evaluation
//! with integers exactly as the engine computes it.

use crate::dataset::Dataset;
use crate::network::{out_quant_limit, Network, FT_QUANT_LIMIT, OUT_BIAS_QUANT_LIMIT};
use ryuo::nnue::features::{active_features, NUM_FEATURES};
use ryuo::nnue::{
    EVAL_SCALE, FEATURE_SET_ID, FLAG_ADDS_TO_CLASSIC, FORMAT_VERSION, MAGIC, MAX_EVAL, MAX_HIDDEN,
    QA, QB,
};
use ryuo::position::Position;
use std::io::{Read, Write};

/// Activation code of the clipped ReLU.
const ACTIVATION_CRELU: u32 = 0;

/// Header length of the format version written (with the flags word).
const HEADER_BYTES: usize = 28;

/// A network in the integers of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    /// Hidden width.
    pub hidden: usize,
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
        let l = net.layout();
        let ft = |x: &f32| quantise(*x, QA, FT_QUANT_LIMIT) as i16;
        let out_lim = out_quant_limit(h);
        QuantisedNet {
            hidden: h,
            ft_bias: net.ft_bias().iter().map(ft).collect(),
            ft_weights: net.params[l.ft_weights()..l.out_weights()]
                .iter()
                .map(ft)
                .collect(),
            out_weights: net
                .out_weights()
                .iter()
                .map(|x| quantise(*x, QB, out_lim) as i16)
                .collect(),
            out_bias: quantise(net.out_bias(), QA * QB, OUT_BIAS_QUANT_LIMIT),
            adds_to_classic: false,
        }
    }

    /// Size of the file for hidden width `hidden`.
    pub fn file_size(hidden: usize) -> usize {
        HEADER_BYTES + 2 * hidden + 2 * hidden * NUM_FEATURES + 4 * hidden + 4
    }

    /// Writes the network file.
    pub fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(Self::file_size(self.hidden));
        out.extend_from_slice(MAGIC);
        for x in [
            FORMAT_VERSION,
            FEATURE_SET_ID,
            self.hidden as u32,
            ACTIVATION_CRELU,
            self.flags(),
        ] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for v in [&self.ft_bias, &self.ft_weights, &self.out_weights] {
            for x in v.iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.out_bias.to_le_bytes());
        w.write_all(&out)
    }

    /// Reads a network file, checking header and size as the engine does.
    pub fn read(r: &mut impl Read) -> Result<QuantisedNet, String> {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err("not a Ryuo network".into());
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        if u32_at(8) != FORMAT_VERSION || u32_at(12) != FEATURE_SET_ID || u32_at(20) != 0 {
            return Err("unsupported version, feature set or activation".into());
        }
        let flags = u32_at(24);
        if flags & !FLAG_ADDS_TO_CLASSIC != 0 {
            return Err(format!("unsupported flags {flags:#x}"));
        }
        let h = u32_at(16) as usize;
        if h == 0 || !h.is_multiple_of(16) || h > MAX_HIDDEN {
            return Err(format!("bad hidden width {h}"));
        }
        if bytes.len() != Self::file_size(h) {
            return Err(format!(
                "size {} instead of {}",
                bytes.len(),
                Self::file_size(h)
            ));
        }
        let mut o = HEADER_BYTES;
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = bytes[o..o + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            o += 2 * n;
            v
        };
        let ft_bias = i16s(h);
        let ft_weights = i16s(h * NUM_FEATURES);
        let out_weights = i16s(2 * h);
        let out_bias = i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
        Ok(QuantisedNet {
            hidden: h,
            ft_bias,
            ft_weights,
            out_weights,
            out_bias,
            adds_to_classic: flags & FLAG_ADDS_TO_CLASSIC != 0,
        })
    }

    /// The header's flags word.
    fn flags(&self) -> u32 {
        if self.adds_to_classic {
            FLAG_ADDS_TO_CLASSIC
        } else {
            0
        }
    }

    /// The evaluation of `pos` in centipawns, side to move's view, computed
    /// as the engine does: `i16` accumulators, `clamp(acc, 0, QA)`, an `i32`
    /// dot product with the output weights plus the output bias, then
    /// `· EVAL_SCALE / (QA·QB)` truncated, clamped to ±`MAX_EVAL`.
    /// A hybrid network adds the hand-crafted evaluation, clamped again.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let stm = pos.side_to_move();
        let net = self.evaluate_features(&active_features(pos, stm), &active_features(pos, !stm));
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
/// its quantised form over samples `indices` of `data`: what export costs.
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
