//! The learned evaluation: a small NNUE-style network.
//!
//! Shape: `NUM_FEATURES` sparse inputs (`features.rs`) → a hidden layer of
//! `H` units per perspective (the *accumulator*, shared weights for both
//! sides) → clipped ReLU → one output from the side to move's accumulator
//! followed by the other side's. Because only a handful of inputs change per
//! move, the accumulators are updated incrementally along the search path.
//!
//! # Quantisation
//! The trainer learns in floating point and exports integers:
//! * feature weights and hidden biases × `QA` (255) as `i16`, so the
//!   clipped ReLU is `clamp(acc, 0, QA)`;
//! * output weights × `QB` (512: trained output weights are small, a few
//!   hundredths, and need the resolution) as `i16`, output bias × `QA·QB`
//!   as `i32`.
//!
//! The float network's output `y` is a win-probability logit:
//! `P(win) = sigmoid(y)`, and the evaluation in centipawns is
//! `y · EVAL_SCALE`; so the engine computes `out · EVAL_SCALE / (QA·QB)`.
//!
//! # File format (little endian)
//! | offset | size | content |
//! | --- | --- | --- |
//! | 0 | 8 | magic `RYUONNUE` |
//! | 8 | 4 | format version, `u32`: 2 (1 is read too) |
//! | 12 | 4 | feature set, `u32`: 1 (`features.rs`: piece-square + hand slots, N = `NUM_FEATURES`) or 2 (the same per own-king bucket, N = 9 · `NUM_FEATURES`) |
//! | 16 | 4 | hidden width `H`, `u32`, a multiple of 16, at most 2048 |
//! | 20 | 4 | activation, `u32` = 0 (clipped ReLU) |
//! | 24 | 4 | flags, `u32` (version 2 only): bit 0 = the output is added to the hand-crafted evaluation |
//! | 28 | 2·H | hidden biases, `i16[H]` (offset 24 in version 1) |
//! | … | 2·H·N | feature weights, `i16[N][H]` (row per feature) |
//! | … | 4·H | output weights, `i16[2H]`: side to move's units, then the other's |
//! | … | 4 | output bias, `i32` |
//!
//! Nothing may follow. The engine rejects a file whose size or header does
//! not match.
//!
//! # Wrapped YaneuraOu networks (format version 3)
//! A YaneuraOu-format network (`standard`) has no room for flags, so a
//! network of that format which corrects the hand-crafted evaluation (a
//! hybrid HalfKP network from `ryuo-train --arch halfkp… --residual`) is
//! wrapped:
//!
//! | offset | size | content |
//! | --- | --- | --- |
//! | 0 | 8 | magic `RYUONNUE` |
//! | 8 | 4 | format version, `u32` = 3 |
//! | 12 | 4 | flags, `u32`: bit 0 as above; bit 1 = packed |
//! | 16 | … | the `nn.bin` file, unchanged, or packed (`standard::pack`) |

pub mod features;

/// Scale of hidden activations: the clipped ReLU saturates at `QA`.
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 512;
/// Centipawns per unit of the network's logit output; also the `K` of the
/// trainer's `sigmoid(score / K)` target.
pub const EVAL_SCALE: i32 = 600;
/// File magic.
pub const MAGIC: &[u8; 8] = b"RYUONNUE";
/// File format version written (version 1, without the flags word, is
/// still read).
pub const FORMAT_VERSION: u32 = 2;
/// Identifier of the piece-square feature set in `features.rs` (the
/// king-bucketed set is 2: `features::InputFeatures`).
pub const FEATURE_SET_ID: u32 = 1;
/// Widest hidden layer a file may declare.
pub const MAX_HIDDEN: usize = 2048;
/// Format version of a file wrapping a YaneuraOu-format network.
pub const WRAPPER_VERSION: u32 = 3;
/// Bytes before a wrapped network: magic, version, flags.
pub const WRAPPER_HEADER: usize = 16;
/// Wrapper flag: the network is packed (`standard::pack`).
pub const FLAG_PACKED: u32 = 2;
/// Largest packed file read (a packed network is smaller than its
/// `nn.bin`, at most `standard::pack::MAX_UNPACKED`).
const MAX_PACKED_FILE: u64 = standard::pack::MAX_UNPACKED;

/// The file of the YaneuraOu-format network `nn_bin` (its bytes, or packed
/// ones with `FLAG_PACKED`) wrapped with `flags` (see the module
/// documentation).
pub fn wrap_standard(nn_bin: &[u8], flags: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(WRAPPER_HEADER + nn_bin.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&WRAPPER_VERSION.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(nn_bin);
    out
}

mod accumulator;
mod kernels;
pub mod network;
mod refresh_cache;
pub mod standard;

pub use accumulator::{evaluate_from_scratch, Accumulators, MAX_EVAL};
pub use network::{Network, NetworkError, FLAG_ADDS_TO_CLASSIC};

/// The file name of the network built into the binary.
pub const EMBEDDED_NAME: &str = "default.nnue";

/// The bytes of the network built into the binary (`nets/default.nnue`;
/// its lineage is in the README).
pub const EMBEDDED_BYTES: &[u8] = include_bytes!("nets/default.nnue");

/// The network built into the binary, read once. `None` only if that file
/// were corrupt, which a test rules out.
pub fn embedded() -> Option<std::sync::Arc<Network>> {
    static EMBEDDED: std::sync::OnceLock<Option<std::sync::Arc<Network>>> =
        std::sync::OnceLock::new();
    EMBEDDED
        .get_or_init(|| {
            Network::from_bytes(EMBEDDED_BYTES)
                .ok()
                .map(std::sync::Arc::new)
        })
        .clone()
}

/// A network of either kind, as an evaluation file gives it.
#[derive(Clone, Debug)]
pub enum EvalNetwork {
    /// Ryuo's own format (`RYUONNUE`).
    Ryuo(std::sync::Arc<Network>),
    /// A YaneuraOu-format file (`nn.bin`).
    Standard(std::sync::Arc<standard::StandardNetwork>),
}

impl EvalNetwork {
    /// What was loaded, for the `info string` that confirms it.
    pub fn describe(&self) -> String {
        match self {
            EvalNetwork::Ryuo(net) => format!(
                "Ryuo network, {} hidden units{}",
                net.hidden(),
                match net.features() {
                    features::InputFeatures::PieceSquare => "",
                    features::InputFeatures::KingBuckets => ", king buckets",
                }
            ),
            EvalNetwork::Standard(net) if net.adds_to_classic() => format!(
                "YaneuraOu NNUE {}, added to the hand-crafted evaluation",
                net.arch().name()
            ),
            EvalNetwork::Standard(net) => {
                format!("YaneuraOu NNUE {}", net.arch().name())
            }
        }
    }
}

/// Why an evaluation file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// It could not be opened or read.
    Io(String),
    /// A device or pipe, not a file (it could be read for ever).
    NotAFile,
    /// Neither format's opening bytes.
    UnknownFormat,
    /// A Ryuo network file, refused.
    Ryuo(NetworkError),
    /// A YaneuraOu network file, refused.
    Standard(standard::FileError),
    /// A packed network that does not unpack.
    Packed(standard::pack::PackError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "cannot read the file: {e}"),
            LoadError::NotAFile => write!(f, "not a regular file"),
            LoadError::UnknownFormat => write!(
                f,
                "not a network file: neither Ryuo's (starting RYUONNUE) nor YaneuraOu's (version {:#010x})",
                standard::VERSION
            ),
            LoadError::Ryuo(e) => write!(f, "{e}"),
            LoadError::Standard(e) => write!(f, "{e}"),
            LoadError::Packed(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// Reads an evaluation file of either format, told apart by its first
/// bytes (a Ryuo file wrapping a YaneuraOu network by its version). Only
/// regular files are read, and never more than their format allows, so a
/// device or a huge file cannot stall the engine.
pub fn load(path: &std::path::Path) -> Result<EvalNetwork, LoadError> {
    use std::io::Read;
    let io = |e: std::io::Error| LoadError::Io(e.to_string());
    let mut file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(LoadError::NotAFile);
    }
    let mut head = Vec::with_capacity(8);
    (&mut file).take(8).read_to_end(&mut head).map_err(io)?;
    if head.as_slice() == MAGIC {
        let mut words = Vec::with_capacity(8);
        (&mut file).take(8).read_to_end(&mut words).map_err(io)?;
        let word =
            |i: usize| u32::from_le_bytes([words[i], words[i + 1], words[i + 2], words[i + 3]]);
        if words.len() == 8 && word(0) == WRAPPER_VERSION {
            let flags = word(4);
            if flags & !(FLAG_ADDS_TO_CLASSIC | FLAG_PACKED) != 0 {
                return Err(LoadError::Ryuo(NetworkError::UnsupportedFlags(flags)));
            }
            let mut net = if flags & FLAG_PACKED != 0 {
                let len = file.metadata().map_err(io)?.len();
                if len > MAX_PACKED_FILE {
                    return Err(LoadError::Packed(standard::pack::PackError::Corrupt(
                        "file too large",
                    )));
                }
                let mut packed = Vec::new();
                packed
                    .try_reserve_exact(len as usize)
                    .map_err(|_| LoadError::Packed(standard::pack::PackError::Memory))?;
                file.read_to_end(&mut packed).map_err(io)?;
                let nn_bin = standard::pack::unpack(&packed).map_err(LoadError::Packed)?;
                standard::StandardNetwork::from_bytes(&nn_bin).map_err(LoadError::Standard)?
            } else {
                standard::StandardNetwork::load(file, WRAPPER_HEADER as u64)
                    .map_err(LoadError::Standard)?
            };
            net.set_adds_to_classic(flags & FLAG_ADDS_TO_CLASSIC != 0);
            return Ok(EvalNetwork::Standard(std::sync::Arc::new(net)));
        }
        let net = Network::load(path).map_err(LoadError::Ryuo)?;
        Ok(EvalNetwork::Ryuo(std::sync::Arc::new(net)))
    } else if standard::StandardNetwork::is_standard_file(&head) {
        let net = standard::StandardNetwork::load(file, 0).map_err(LoadError::Standard)?;
        Ok(EvalNetwork::Standard(std::sync::Arc::new(net)))
    } else {
        Err(LoadError::UnknownFormat)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_network_is_valid() {
        let net = super::embedded().expect("nets/default.nnue is a valid network");
        assert!(net.hidden() >= 16);
    }
}
