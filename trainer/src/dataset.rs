//! Training samples held compactly in memory.
//!
//! A sample is a position reduced to what the trainer needs: the active
//! features from the side to move's perspective and from the other's, the
//! score (side to move's view, centipawns), the game result (side to
//! move's view: 1 win, 0 draw, −1 loss) and the hand-crafted evaluation
//! (for hybrid networks, `--residual`). Feature lists live in one flat
//! `u16` vector; both perspectives of a position have the same number of
//! features (every piece is one feature in each), so a sample is
//! `features[offsets[i]..offsets[i + 1]]`, the first half for the side to
//! move. A full position costs 2 · 40 · 2 + 8 + 5 = 173 bytes: ten million
//! positions take 1.7 GB.
//!
//! Two encodings of the feature lists exist (`Encoding`): Ryuo's own
//! features for `RYUONNUE` networks, and HalfKP for YaneuraOu `nn.bin`
//! networks (`crate::halfkp::features` documents that one: each
//! perspective is its king square then 38 BonaPieces). A HalfKP dataset
//! also keeps each position as a 32-byte `PackedSfen`, so that the export
//! can be checked with the engine's own evaluation of real positions
//! (2 · 39 · 2 + 8 + 5 + 33 = 202 bytes a position).

use crate::halfkp::features::halfkp_features;
use ryuo::learn::PackedSfen;
use ryuo::nnue::features::InputFeatures;
use ryuo::position::Position;

/// How a dataset encodes the feature lists of its samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Ryuo's own features (`ryuo::nnue::features`), for `RYUONNUE` networks.
    #[default]
    Ryuo,
    /// Ryuo's features per own-king bucket (`InputFeatures::KingBuckets`).
    RyuoKingBuckets,
    /// HalfKP: per perspective its king square then 38 BonaPieces
    /// (`crate::halfkp::features`), for YaneuraOu `nn.bin` networks.
    HalfKp,
}

impl Encoding {
    /// The engine feature set of a Ryuo-format encoding (`None` for HalfKP).
    pub fn input_features(self) -> Option<InputFeatures> {
        match self {
            Encoding::Ryuo => Some(InputFeatures::PieceSquare),
            Encoding::RyuoKingBuckets => Some(InputFeatures::KingBuckets),
            Encoding::HalfKp => None,
        }
    }
}

/// An in-memory set of training samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    encoding: Encoding,
    features: Vec<u16>,
    offsets: Vec<u64>,
    scores: Vec<i16>,
    results: Vec<i8>,
    /// The hand-crafted evaluation of each position (side to move's view),
    /// for networks trained as a correction to it.
    bases: Vec<i16>,
    /// The positions themselves (HalfKP datasets only; `None` for one that
    /// does not pack, which no loader produces).
    packed: Vec<Option<PackedSfen>>,
}

/// One sample, borrowed from a `Dataset`.
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// Active features of the side to move.
    pub stm: &'a [u16],
    /// Active features of the other side.
    pub other: &'a [u16],
    /// Score from the side to move's view, centipawns.
    pub score: i16,
    /// Game result from the side to move's view: 1, 0 or −1.
    pub result: i8,
    /// The hand-crafted evaluation, centipawns, side to move's view.
    pub base: i16,
}

impl Dataset {
    /// An empty dataset of Ryuo's features.
    pub fn new() -> Dataset {
        Dataset::with_encoding(Encoding::Ryuo)
    }

    /// An empty dataset of the given encoding.
    pub fn with_encoding(encoding: Encoding) -> Dataset {
        Dataset {
            encoding,
            offsets: vec![0],
            ..Dataset::default()
        }
    }

    /// How the feature lists are encoded.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The feature set of a Ryuo-format dataset's lists (`None` for HalfKP).
    pub fn input_features(&self) -> Option<InputFeatures> {
        self.encoding.input_features()
    }

    /// The position of sample `i`, if the dataset keeps positions (HalfKP
    /// datasets do).
    pub fn position(&self, i: usize) -> Option<Position> {
        self.packed.get(i)?.as_ref()?.unpack().ok()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Sample `i`.
    pub fn get(&self, i: usize) -> Sample<'_> {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let mid = a + (b - a) / 2;
        Sample {
            stm: &self.features[a..mid],
            other: &self.features[mid..b],
            score: self.scores[i],
            result: self.results[i],
            base: self.bases[i],
        }
    }

    /// Adds a sample from its feature lists (which must have equal lengths);
    /// a HalfKP dataset records no position for it.
    pub fn push_features(&mut self, stm: &[u16], other: &[u16], score: i16, result: i8, base: i16) {
        self.push_raw(stm, other, score, result, base);
        if self.encoding == Encoding::HalfKp {
            self.packed.push(None);
        }
    }

    /// Adds the lists and labels of a sample, nothing else.
    fn push_raw(&mut self, stm: &[u16], other: &[u16], score: i16, result: i8, base: i16) {
        assert_eq!(stm.len(), other.len(), "perspectives differ in length");
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.features.extend_from_slice(stm);
        self.features.extend_from_slice(other);
        self.offsets.push(self.features.len() as u64);
        self.scores.push(score);
        self.results.push(result.clamp(-1, 1));
        self.bases.push(base);
    }

    /// Adds `pos` labelled with `score` and `result` (side to move's view).
    /// This is the one entry point every loader goes through.
    pub fn push_position(&mut self, pos: &Position, score: i16, result: i8) {
        let stm = pos.side_to_move();
        let base = ryuo::eval::evaluate(pos).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        match self.encoding.input_features() {
            Some(set) => {
                let us = set.active(pos, stm);
                let them = set.active(pos, !stm);
                self.push_raw(&us, &them, score, result, base);
            }
            None => {
                let us = halfkp_features(pos, stm);
                let them = halfkp_features(pos, !stm);
                self.push_raw(&us, &them, score, result, base);
                self.packed.push(PackedSfen::pack(pos).ok());
            }
        }
    }

    /// Appends sample `i` of `other` (of the same encoding), position
    /// included.
    pub fn push_from(&mut self, other: &Dataset, i: usize) {
        assert_eq!(self.encoding, other.encoding, "datasets differ in encoding");
        let s = other.get(i);
        self.push_raw(s.stm, s.other, s.score, s.result, s.base);
        if self.encoding == Encoding::HalfKp {
            self.packed.push(other.packed[i]);
        }
    }

    /// Appends every sample of `other`, in order.
    pub fn append(&mut self, other: &Dataset) {
        for i in 0..other.len() {
            self.push_from(other, i);
        }
    }

    /// Makes room for `samples` more positions of 40 pieces, so that a
    /// large file loads without the vectors doubling past what it needs.
    pub fn reserve(&mut self, samples: usize) {
        let per_sample = match self.encoding {
            Encoding::Ryuo | Encoding::RyuoKingBuckets => 80,
            Encoding::HalfKp => 78,
        };
        self.features.reserve(samples * per_sample);
        self.offsets.reserve(samples);
        self.scores.reserve(samples);
        self.results.reserve(samples);
        self.bases.reserve(samples);
        if self.encoding == Encoding::HalfKp {
            self.packed.reserve(samples);
        }
    }

    /// Bytes held (capacity aside).
    pub fn memory_bytes(&self) -> usize {
        self.features.len() * 2
            + self.offsets.len() * 8
            + self.len() * 5
            + self.packed.len() * std::mem::size_of::<Option<PackedSfen>>()
    }

    /// Releases spare capacity after loading.
    pub fn shrink_to_fit(&mut self) {
        self.features.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.scores.shrink_to_fit();
        self.results.shrink_to_fit();
        self.bases.shrink_to_fit();
        self.packed.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ryuo::nnue::features::active_features;
    use ryuo::types::Color;

    #[test]
    fn stores_both_perspectives_of_a_position() {
        let pos = Position::startpos();
        let mut d = Dataset::new();
        d.push_position(&pos, 35, 1);
        d.push_position(&pos, -12, -1);
        assert_eq!(d.len(), 2);
        let s = d.get(1);
        assert_eq!(s.stm, &active_features(&pos, Color::Black)[..]);
        assert_eq!(s.other, &active_features(&pos, Color::White)[..]);
        assert_eq!((s.score, s.result), (-12, -1));
        assert_eq!(d.memory_bytes(), 2 * 160 + 3 * 8 + 2 * 5);
        assert_eq!(s.base as i32, ryuo::eval::evaluate(&pos));
    }
}
