//! The architectures of YaneuraOu's classic NNUE files that Ryuo reads,
//! with the structure hashes and architecture strings those files carry.
//!
//! Every one is the same pipeline with other widths: sparse features →
//! `half` accumulator units per perspective (side to move first) →
//! clipped to 0..127 → affine `2·half → l1` → clipped ReLU → affine
//! `l1 → l2` → clipped ReLU → affine `l2 → 1`. The hashes are YaneuraOu's
//! published formulas (each layer folds its predecessor's hash with a
//! layer constant); a file's header hash names its architecture.

use crate::types::Square;

/// Entries of the BonaPiece space: hand slots, then 18 board kinds × 81
/// squares (YaneuraOu's `fe_end`).
pub const FE_END: usize = 1548;

/// Which sparse input features a network reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureSet {
    /// HalfKP(Friend): every non-king piece relative to the perspective's
    /// own king square (81 × `FE_END` inputs); a king move refreshes that
    /// perspective's accumulator.
    HalfKp,
    /// K+P: the pieces alone (`FE_END` inputs) plus both king squares
    /// (2 × 81 inputs); never refreshed.
    Kp,
}

impl FeatureSet {
    /// Number of input features.
    pub const fn dimensions(self) -> usize {
        match self {
            FeatureSet::HalfKp => Square::NUM * FE_END,
            FeatureSet::Kp => FE_END + 2 * Square::NUM,
        }
    }

    /// YaneuraOu's hash of the feature set.
    const fn hash(self) -> u32 {
        const HALF_KP_FRIEND: u32 = 0x5D69_D5B9 ^ 1;
        const K: u32 = 0xD3CE_E169;
        const P: u32 = 0x764C_FB4B;
        match self {
            FeatureSet::HalfKp => HALF_KP_FRIEND,
            // FeatureSet<K, P>: head ^ (tail << 1) ^ (tail >> 31).
            FeatureSet::Kp => K ^ (P << 1) ^ (P >> 31),
        }
    }

    /// The feature set's name in architecture strings.
    const fn name(self) -> &'static str {
        match self {
            FeatureSet::HalfKp => "HalfKP(Friend)",
            FeatureSet::Kp => "K+P",
        }
    }
}

/// One supported architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    /// The sparse inputs.
    pub features: FeatureSet,
    /// Accumulator units per perspective.
    pub half: usize,
    /// Outputs of the first and second hidden layers.
    pub l1: usize,
    pub l2: usize,
}

/// Every architecture a file may declare, by its usual name.
pub const ARCHITECTURES: [(&str, Arch); 5] = [
    (
        "halfkp_256x2-32-32",
        Arch::new(FeatureSet::HalfKp, 256, 32, 32),
    ),
    (
        "halfkp_512x2-16-32",
        Arch::new(FeatureSet::HalfKp, 512, 16, 32),
    ),
    (
        "halfkp_1024x2-8-32",
        Arch::new(FeatureSet::HalfKp, 1024, 8, 32),
    ),
    (
        "halfkp_1024x2-8-64",
        Arch::new(FeatureSet::HalfKp, 1024, 8, 64),
    ),
    ("kp_256x2-32-32", Arch::new(FeatureSet::Kp, 256, 32, 32)),
];

/// Inputs of an affine layer are padded to a multiple of this in the file
/// (YaneuraOu's widest SIMD register in bytes).
const INPUT_PADDING: usize = 32;

/// `n` rounded up to the layers' input padding.
pub const fn padded(n: usize) -> usize {
    n.div_ceil(INPUT_PADDING) * INPUT_PADDING
}

/// The hash of an affine layer of `outputs` on a layer hashed `prev`.
const fn affine_hash(outputs: usize, prev: u32) -> u32 {
    (0xCC03_DAE4u32.wrapping_add(outputs as u32)) ^ (prev >> 1) ^ (prev << 31)
}

/// The hash of a clipped ReLU on a layer hashed `prev`.
const fn clipped_relu_hash(prev: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(prev)
}

impl Arch {
    const fn new(features: FeatureSet, half: usize, l1: usize, l2: usize) -> Arch {
        Arch {
            features,
            half,
            l1,
            l2,
        }
    }

    /// The architecture with this usual name (`halfkp_256x2-32-32`, …).
    pub fn by_name(name: &str) -> Option<Arch> {
        ARCHITECTURES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, a)| a)
    }

    /// The usual name of this architecture.
    pub fn name(&self) -> &'static str {
        ARCHITECTURES
            .iter()
            .find(|(_, a)| a == self)
            .map_or("?", |(n, _)| n)
    }

    /// Hash of the feature transformer section.
    pub const fn transformer_hash(&self) -> u32 {
        self.features.hash() ^ (2 * self.half) as u32
    }

    /// Hash of the layers section.
    pub const fn network_hash(&self) -> u32 {
        let input_slice = 0xEC42_E90Du32 ^ (2 * self.half) as u32;
        let hidden1 = clipped_relu_hash(affine_hash(self.l1, input_slice));
        let hidden2 = clipped_relu_hash(affine_hash(self.l2, hidden1));
        affine_hash(1, hidden2)
    }

    /// Hash of the whole structure, in the file header.
    pub const fn hash(&self) -> u32 {
        self.transformer_hash() ^ self.network_hash()
    }

    /// The architecture string written into files (the form most published
    /// files carry; readers identify the structure by its hash).
    pub fn description(&self) -> String {
        let (h, l1, l2) = (self.half, self.l1, self.l2);
        format!(
            "Features={}[{}->{h}x2],Network=AffineTransform[1<-{l2}](ClippedReLU[{l2}](\
             AffineTransform[{l2}<-{l1}](ClippedReLU[{l1}](AffineTransform[{l1}<-{}](\
             InputSlice[{}(0:{})])))))",
            self.features.name(),
            self.features.dimensions(),
            2 * h,
            2 * h,
            2 * h
        )
    }

    /// The architecture whose structure hash is `hash`.
    pub fn by_hash(hash: u32) -> Option<Arch> {
        ARCHITECTURES
            .iter()
            .find(|(_, a)| a.hash() == hash)
            .map(|&(_, a)| a)
    }

    /// Bytes of a file of this architecture with a header string of
    /// `description_len` bytes.
    pub const fn file_len(&self, description_len: usize) -> usize {
        let header = 12 + description_len;
        let transformer = 4 + 2 * self.half + 2 * self.half * self.features.dimensions();
        let layers = 4
            + self.l1 * 4
            + self.l1 * padded(2 * self.half)
            + self.l2 * 4
            + self.l2 * padded(self.l1)
            + 4
            + padded(self.l2);
        header + transformer + layers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_architecture_has_its_published_hash() {
        // The header hash every public halfkp_256x2-32-32 `nn.bin` carries.
        let arch = Arch::by_name("halfkp_256x2-32-32").unwrap();
        assert_eq!(arch.hash(), 0x3E5A_A6EE);
        assert_eq!(Arch::by_hash(0x3E5A_A6EE), Some(arch));
        assert_eq!(arch.features.dimensions(), 125_388);
    }

    #[test]
    fn hashes_tell_the_architectures_apart() {
        for (i, (_, a)) in ARCHITECTURES.iter().enumerate() {
            for (_, b) in &ARCHITECTURES[i + 1..] {
                assert_ne!(a.hash(), b.hash());
            }
            assert_eq!(Arch::by_name(a.name()), Some(*a));
        }
    }
}
