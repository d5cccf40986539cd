//! The network's weights: reading the file format of `nnue/mod.rs`, with
//! every allocation fallible (a network file names its own size).

use super::features::InputFeatures;
use super::{FORMAT_VERSION, MAGIC, MAX_HIDDEN};
use std::fmt;

/// Length of the header of a version-1 file; version 2 adds a `u32` of
/// flags.
const HEADER_BYTES_V1: usize = 24;

/// Flag: the network's output is a correction added to the hand-crafted
/// evaluation (a hybrid evaluation) rather than the whole evaluation.
pub const FLAG_ADDS_TO_CLASSIC: u32 = 1;

/// A quantised network, ready for integer inference.
#[derive(Clone)]
pub struct Network {
    hidden: usize,
    /// The input feature set (the rows of `ft_weights`).
    features: InputFeatures,
    /// Hidden biases, `QA` scale.
    pub(crate) ft_bias: Vec<i16>,
    /// Feature weights, `QA` scale, one row of `hidden` per feature.
    pub(crate) ft_weights: Vec<i16>,
    /// Output weights, `QB` scale: side to move's units, then the other's.
    pub(crate) out_weights: Vec<i16>,
    /// Output bias, `QA·QB` scale.
    pub(crate) out_bias: i32,
    /// `FLAG_*` bits.
    flags: u32,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network {{ hidden: {}, features: {:?} }}",
            self.hidden, self.features
        )
    }
}

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// The file could not be read.
    Io(String),
    /// Not a Ryuo network (bad magic).
    BadMagic,
    /// A format version this build cannot read.
    UnsupportedVersion(u32),
    /// A feature set this build does not compute.
    UnsupportedFeatureSet(u32),
    /// An activation this build does not compute.
    UnsupportedActivation(u32),
    /// Flags this build does not know.
    UnsupportedFlags(u32),
    /// A hidden width that is zero, not a multiple of 16 or too wide.
    BadHiddenWidth(u32),
    /// The file is not exactly as long as its header says.
    BadLength {
        /// Length the header implies.
        expected: usize,
        /// Length found.
        found: usize,
    },
    /// Memory for the weights could not be had.
    OutOfMemory,
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetworkError::Io(e) => write!(f, "cannot read the network file: {e}"),
            NetworkError::BadMagic => write!(f, "not a Ryuo network file (bad magic)"),
            NetworkError::UnsupportedVersion(v) => write!(f, "unsupported format version {v}"),
            NetworkError::UnsupportedFeatureSet(v) => write!(f, "unsupported feature set {v}"),
            NetworkError::UnsupportedActivation(v) => write!(f, "unsupported activation {v}"),
            NetworkError::UnsupportedFlags(v) => write!(f, "unsupported flags {v:#x}"),
            NetworkError::BadHiddenWidth(h) => write!(
                f,
                "hidden width {h} is not a positive multiple of 16 up to {MAX_HIDDEN}"
            ),
            NetworkError::BadLength { expected, found } => {
                write!(f, "file is {found} bytes, the header implies {expected}")
            }
            NetworkError::OutOfMemory => write!(f, "not enough memory for the network"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// Little-endian reader over a byte slice whose length was checked first.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let v = u32::from_le_bytes(
            self.bytes[self.at..self.at + 4]
                .try_into()
                .unwrap_or([0; 4]),
        );
        self.at += 4;
        v
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetworkError> {
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| NetworkError::OutOfMemory)?;
        let end = self.at + 2 * n;
        v.extend(
            self.bytes[self.at..end]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]])),
        );
        self.at = end;
        Ok(v)
    }
}

impl Network {
    /// Hidden units per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Whether the output is added to the hand-crafted evaluation.
    pub fn adds_to_classic(&self) -> bool {
        self.flags & FLAG_ADDS_TO_CLASSIC != 0
    }

    /// The input feature set.
    pub fn features(&self) -> InputFeatures {
        self.features
    }

    /// Length of a current-version file with this hidden width and
    /// feature set.
    pub fn file_len(hidden: usize, features: InputFeatures) -> usize {
        Network::file_len_of(FORMAT_VERSION, hidden, features)
    }

    fn file_len_of(version: u32, hidden: usize, features: InputFeatures) -> usize {
        let header = HEADER_BYTES_V1 + if version >= 2 { 4 } else { 0 };
        header + 2 * hidden + 2 * hidden * features.rows() + 4 * hidden + 4
    }

    /// Reads a network from the bytes of a file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < HEADER_BYTES_V1 + 4 || &bytes[..8] != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let mut r = Reader { bytes, at: 8 };
        let version = r.u32();
        if !(1..=FORMAT_VERSION).contains(&version) {
            return Err(NetworkError::UnsupportedVersion(version));
        }
        let feature_set = r.u32();
        let features = InputFeatures::from_id(feature_set)
            .ok_or(NetworkError::UnsupportedFeatureSet(feature_set))?;
        let hidden_raw = r.u32();
        let hidden = hidden_raw as usize;
        if hidden == 0 || !hidden.is_multiple_of(16) || hidden > MAX_HIDDEN {
            return Err(NetworkError::BadHiddenWidth(hidden_raw));
        }
        let activation = r.u32();
        if activation != 0 {
            return Err(NetworkError::UnsupportedActivation(activation));
        }
        let flags = if version >= 2 { r.u32() } else { 0 };
        if flags & !FLAG_ADDS_TO_CLASSIC != 0 {
            return Err(NetworkError::UnsupportedFlags(flags));
        }
        let expected = Network::file_len_of(version, hidden, features);
        if bytes.len() != expected {
            return Err(NetworkError::BadLength {
                expected,
                found: bytes.len(),
            });
        }
        let ft_bias = r.i16s(hidden)?;
        let ft_weights = r.i16s(hidden * features.rows())?;
        let out_weights = r.i16s(2 * hidden)?;
        let out_bias = r.u32() as i32;
        Ok(Network {
            hidden,
            features,
            ft_bias,
            ft_weights,
            out_weights,
            out_bias,
            flags,
        })
    }

    /// Reads a network file.
    pub fn load(path: &std::path::Path) -> Result<Network, NetworkError> {
        let bytes = read_file_fallibly(path)?;
        Network::from_bytes(&bytes)
    }

    /// The file bytes of this network (the inverse of `from_bytes`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Network::file_len(self.hidden, self.features));
        out.extend_from_slice(MAGIC);
        for v in [
            FORMAT_VERSION,
            self.features.id(),
            self.hidden as u32,
            0,
            self.flags,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self
            .ft_bias
            .iter()
            .chain(&self.ft_weights)
            .chain(&self.out_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.out_bias.to_le_bytes());
        out
    }

    /// A network from its quantised parts (what a trainer exports), checked
    /// like a file: sizes must agree with the hidden width and the feature
    /// set.
    pub fn from_parts(
        features: InputFeatures,
        ft_bias: Vec<i16>,
        ft_weights: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: i32,
        adds_to_classic: bool,
    ) -> Result<Network, NetworkError> {
        let hidden = ft_bias.len();
        if hidden == 0 || !hidden.is_multiple_of(16) || hidden > MAX_HIDDEN {
            return Err(NetworkError::BadHiddenWidth(hidden as u32));
        }
        let found = ft_weights.len() + out_weights.len();
        let expected = hidden * features.rows() + 2 * hidden;
        if found != expected {
            return Err(NetworkError::BadLength { expected, found });
        }
        let net = Network {
            hidden,
            features,
            ft_bias,
            ft_weights,
            out_weights,
            out_bias,
            flags: 0,
        };
        Ok(net.with_adds_to_classic(adds_to_classic))
    }

    /// The quantised parts: hidden biases, feature weights (row per
    /// feature), output weights (side to move's units first), output bias.
    pub fn parts(&self) -> (&[i16], &[i16], &[i16], i32) {
        (
            &self.ft_bias,
            &self.ft_weights,
            &self.out_weights,
            self.out_bias,
        )
    }

    /// A network with weights drawn from `rng` (for tests of the
    /// inference code, which must agree with itself whatever the weights).
    pub fn random(hidden: usize, rng: &mut impl rand::Rng) -> Network {
        Network::random_of(InputFeatures::PieceSquare, hidden, rng)
    }

    /// A random network (as `random`) reading the feature set `features`.
    pub fn random_of(features: InputFeatures, hidden: usize, rng: &mut impl rand::Rng) -> Network {
        let mut ints = |n: usize, lim: i16| (0..n).map(|_| rng.gen_range(-lim..=lim)).collect();
        Network {
            hidden,
            features,
            ft_bias: ints(hidden, 100),
            ft_weights: ints(hidden * features.rows(), 60),
            out_weights: ints(2 * hidden, 100),
            out_bias: 1234,
            flags: 0,
        }
    }

    /// The same network with its output added to the hand-crafted
    /// evaluation, or not.
    pub fn with_adds_to_classic(mut self, on: bool) -> Network {
        self.flags = if on { FLAG_ADDS_TO_CLASSIC } else { 0 };
        self
    }

    /// The row of feature weights of `feature`.
    #[inline(always)]
    pub(crate) fn row(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }
}

/// Reads a whole file, refusing sizes that cannot be a network and failing
/// softly when memory is short.
fn read_file_fallibly(path: &std::path::Path) -> Result<Vec<u8>, NetworkError> {
    use std::io::Read;
    let io = |e: std::io::Error| NetworkError::Io(e.to_string());
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let max = Network::file_len_of(FORMAT_VERSION, MAX_HIDDEN, InputFeatures::KingBuckets) as u64;
    if len > max {
        return Err(NetworkError::BadLength {
            expected: max as usize,
            found: len as usize,
        });
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(len as usize)
        .map_err(|_| NetworkError::OutOfMemory)?;
    file.read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn bytes_round_trip() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let net = Network::random(32, &mut rng);
        let bytes = net.to_bytes();
        assert_eq!(
            bytes.len(),
            Network::file_len(32, InputFeatures::PieceSquare)
        );
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.ft_weights, net.ft_weights);
        assert_eq!(back.out_weights, net.out_weights);
        assert_eq!(back.out_bias, net.out_bias);
        let kb = Network::random_of(InputFeatures::KingBuckets, 16, &mut rng);
        let bytes = kb.to_bytes();
        assert_eq!(
            bytes.len(),
            Network::file_len(16, InputFeatures::KingBuckets)
        );
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.features(), InputFeatures::KingBuckets);
        assert_eq!(back.ft_weights, kb.ft_weights);
        // The same bytes declared as the other set are the wrong length.
        let mut b = bytes.clone();
        b[12] = 1;
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetworkError::BadLength { .. })
        ));
        b[12] = 3;
        assert_eq!(
            Network::from_bytes(&b).err(),
            Some(NetworkError::UnsupportedFeatureSet(3))
        );
    }

    #[test]
    fn version_1_files_are_read() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let net = Network::random(16, &mut rng);
        let mut bytes = net.to_bytes();
        bytes[8] = 1; // version 1: no flags word
        bytes.drain(24..28);
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.ft_weights, net.ft_weights);
        assert!(!back.adds_to_classic());
        let hybrid = Network::from_bytes(&net.with_adds_to_classic(true).to_bytes()).unwrap();
        assert!(hybrid.adds_to_classic());
    }

    #[test]
    fn bad_files_are_refused() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let bytes = Network::random(16, &mut rng).to_bytes();
        assert_eq!(
            Network::from_bytes(b"short").err(),
            Some(NetworkError::BadMagic)
        );
        let mut b = bytes.clone();
        b[8] = 9;
        assert_eq!(
            Network::from_bytes(&b).err(),
            Some(NetworkError::UnsupportedVersion(9))
        );
        let mut b = bytes.clone();
        b[16] = 17;
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetworkError::BadHiddenWidth(17))
        ));
        let b = &bytes[..bytes.len() - 1];
        assert!(matches!(
            Network::from_bytes(b),
            Err(NetworkError::BadLength { .. })
        ));
        assert!(matches!(
            Network::load(std::path::Path::new("/no/such/file.nnue")),
            Err(NetworkError::Io(_))
        ));
    }
}
