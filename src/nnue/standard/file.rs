//! Reading and writing YaneuraOu's classic NNUE files (`nn.bin`), and
//! making valid random ones for the exactness tests.
//!
//! # Layout (little endian)
//! | section | content |
//! | --- | --- |
//! | header | `u32` version `0x7AF32F16`, `u32` structure hash, `u32` length `n`, `n` bytes of architecture string |
//! | transformer | `u32` hash, `i16[half]` biases, `i16[inputs][half]` weights (a row per feature) |
//! | layers | `u32` hash; per affine layer (first hidden, second hidden, output): `i32[out]` biases, `i8[out][padded(in)]` weights |
//!
//! Inputs of an affine layer are padded to a multiple of 32 in the file;
//! the padding weights meet no input and are ignored. Nothing may follow
//! the last layer. The structure hash names the architecture (`arch.rs`);
//! the string is only shown to users, as YaneuraOu does.

use super::arch::{padded, Arch};
use crate::types::Value;
use rand::{Rng, SeedableRng};
use std::fmt;
use std::io::Read;

/// The version word that opens every file.
pub const VERSION: u32 = 0x7AF3_2F16;

/// Longest architecture string accepted (published files carry a few
/// hundred bytes).
const MAX_DESCRIPTION: usize = 4096;

/// A network read from a YaneuraOu-format file.
#[derive(Clone)]
pub struct StandardNetwork {
    pub(crate) arch: Arch,
    /// The architecture string of the file.
    description: String,
    /// Transformer biases and weights (row of `half` per feature).
    pub(crate) ft_bias: Vec<i16>,
    pub(crate) ft_weights: Vec<i16>,
    /// First hidden layer: `l1` rows of `2·half` inputs.
    pub(crate) l1_bias: Vec<i32>,
    pub(crate) l1_weights: Vec<i8>,
    /// The same weights in the order of the AVX2 kernel (`simd.rs`).
    pub(crate) l1_scrambled: Vec<i8>,
    /// Second hidden layer: `l2` rows of `padded(l1)`.
    pub(crate) l2_bias: Vec<i32>,
    pub(crate) l2_weights: Vec<i8>,
    pub(crate) l2_scrambled: Vec<i8>,
    /// Output: one row of `padded(l2)`.
    pub(crate) out_bias: i32,
    pub(crate) out_weights: Vec<i8>,
    /// The value is a correction added to the hand-crafted evaluation
    /// (a hybrid network, read from a Ryuo wrapper: `nnue::load`).
    adds_to_classic: bool,
}

impl fmt::Debug for StandardNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StandardNetwork {{ {} }}", self.arch.name())
    }
}

/// Why a file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    /// The file could not be opened or read.
    Io(String),
    /// The version word is not YaneuraOu's.
    WrongVersion(u32),
    /// The architecture is not one Ryuo computes.
    UnknownArchitecture { hash: u32, description: String },
    /// The string names a supported architecture but the hash is not its.
    HashMismatch {
        arch: &'static str,
        expected: u32,
        found: u32,
    },
    /// A section's hash does not match its architecture.
    SectionHashMismatch {
        section: &'static str,
        expected: u32,
        found: u32,
    },
    /// The file ends before its last layer.
    Truncated { expected: u64, found: u64 },
    /// Bytes follow the last layer.
    TrailingBytes { expected: u64, found: u64 },
    /// Memory for the weights could not be had.
    OutOfMemory,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(e) => write!(f, "cannot read the file: {e}"),
            FileError::WrongVersion(v) => write!(
                f,
                "not a YaneuraOu NNUE file: version {v:#010x}, expected {VERSION:#010x}"
            ),
            FileError::UnknownArchitecture { hash, description } => write!(
                f,
                "unsupported architecture \"{}\" (structure hash {hash:#010x}); supported: {}",
                description.chars().take(300).collect::<String>(),
                super::arch::ARCHITECTURES.map(|(n, _)| n).join(", ")
            ),
            FileError::HashMismatch {
                arch,
                expected,
                found,
            } => write!(
                f,
                "the file declares {arch} but its structure hash is {found:#010x}, not {expected:#010x}"
            ),
            FileError::SectionHashMismatch {
                section,
                expected,
                found,
            } => write!(
                f,
                "{section} hash is {found:#010x}, expected {expected:#010x}: corrupt file"
            ),
            FileError::Truncated { expected, found } => write!(
                f,
                "truncated: the architecture needs {expected} bytes, the file has {found}"
            ),
            FileError::TrailingBytes { expected, found } => write!(
                f,
                "{} unexpected bytes after the last layer (the architecture needs {expected} bytes, the file has {found})",
                found - expected
            ),
            FileError::OutOfMemory => write!(f, "not enough memory for the network"),
        }
    }
}

impl std::error::Error for FileError {}

/// The architecture a string names, if it is one of the supported ones:
/// the transformer's widths and the hidden layers' outputs are read from
/// the layer names (`HalfKP(Friend)[125388->256x2]`, `AffineTransform[32<-512]`
/// or `AffineTransformSparseInput[32<-512]`).
fn arch_named_by(description: &str) -> Option<Arch> {
    let half: usize = description
        .split("->")
        .nth(1)?
        .split('x')
        .next()?
        .parse()
        .ok()?;
    let kp = description.starts_with("Features=K+P");
    // Outputs of the affine layers, output layer first.
    let outs: Vec<usize> = description
        .split("AffineTransform")
        .skip(1)
        .filter_map(|s| {
            let s = s.strip_prefix("SparseInput").unwrap_or(s);
            s.strip_prefix('[')?.split('<').next()?.parse().ok()
        })
        .collect();
    let &[1, l2, l1] = outs.as_slice() else {
        return None;
    };
    super::arch::ARCHITECTURES
        .iter()
        .map(|&(_, a)| a)
        .find(|a| {
            a.half == half
                && a.l1 == l1
                && a.l2 == l2
                && (a.features == super::arch::FeatureSet::Kp) == kp
        })
}

/// Little-endian reads from a stream, every allocation fallible.
struct Input<R: Read> {
    r: R,
    /// Bytes consumed so far.
    at: u64,
    /// The file's length.
    len: u64,
    /// Bytes the architecture needs, once known.
    expected: u64,
}

impl<R: Read> Input<R> {
    fn exact(&mut self, buf: &mut [u8]) -> Result<(), FileError> {
        self.r.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => FileError::Truncated {
                expected: self.expected.max(self.at + buf.len() as u64),
                found: self.len,
            },
            _ => FileError::Io(e.to_string()),
        })?;
        self.at += buf.len() as u64;
        Ok(())
    }

    fn u32(&mut self) -> Result<u32, FileError> {
        let mut b = [0; 4];
        self.exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// `n` values of `N` bytes each, decoded by `f`.
    fn values<T, const N: usize>(
        &mut self,
        n: usize,
        f: impl Fn([u8; N]) -> T,
    ) -> Result<Vec<T>, FileError> {
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| FileError::OutOfMemory)?;
        // The transformer's rows are read at random, two to forty per
        // evaluation: on 4 KiB pages nearly each one misses the TLB.
        crate::hints::advise_huge_pages(v.as_ptr(), n * std::mem::size_of::<T>());
        let mut buf = [0u8; 1 << 16];
        let per = buf.len() / N;
        let mut left = n;
        while left > 0 {
            let take = left.min(per);
            let chunk = &mut buf[..take * N];
            self.exact(chunk)?;
            v.extend(chunk.as_chunks::<N>().0.iter().map(|c| f(*c)));
            left -= take;
        }
        Ok(v)
    }

    fn section_hash(&mut self, section: &'static str, expected: u32) -> Result<(), FileError> {
        let found = self.u32()?;
        if found != expected {
            return Err(FileError::SectionHashMismatch {
                section,
                expected,
                found,
            });
        }
        Ok(())
    }
}

impl StandardNetwork {
    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The architecture string the file carries.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether `bytes` start like a YaneuraOu NNUE file.
    pub fn is_standard_file(bytes: &[u8]) -> bool {
        bytes.len() >= 4 && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == VERSION
    }

    /// Reads a network from an open regular file (`nnue::load` checks
    /// that it is one), from byte `offset` on (past a Ryuo wrapper's
    /// header); any refusal leaves nothing allocated.
    pub fn load(mut file: std::fs::File, offset: u64) -> Result<StandardNetwork, FileError> {
        use std::io::{Seek, SeekFrom};
        let io = |e: std::io::Error| FileError::Io(e.to_string());
        let len = file.metadata().map_err(io)?.len();
        file.seek(SeekFrom::Start(offset)).map_err(io)?;
        StandardNetwork::read(std::io::BufReader::new(file), len.saturating_sub(offset))
    }

    /// Whether the value is added to the hand-crafted evaluation.
    pub fn adds_to_classic(&self) -> bool {
        self.adds_to_classic
    }

    /// Marks the network as a correction to the hand-crafted evaluation
    /// (or not).
    pub fn set_adds_to_classic(&mut self, on: bool) {
        self.adds_to_classic = on;
    }

    /// The static value of `pos` from the network's `output` there: in
    /// YaneuraOu's units (`output / fv_scale`), plus the hand-crafted
    /// evaluation for a hybrid network.
    #[inline]
    pub fn value(&self, output: i32, fv_scale: i32, pos: &crate::position::Position) -> Value {
        let v = super::value(output, fv_scale);
        if self.adds_to_classic {
            (v + crate::eval::evaluate(pos)).clamp(-super::MAX_VALUE, super::MAX_VALUE)
        } else {
            v
        }
    }

    /// Reads a network from the bytes of a file.
    pub fn from_bytes(bytes: &[u8]) -> Result<StandardNetwork, FileError> {
        StandardNetwork::read(bytes, bytes.len() as u64)
    }

    /// Reads a network from `r`, which holds `len` bytes.
    fn read(r: impl Read, len: u64) -> Result<StandardNetwork, FileError> {
        let mut input = Input {
            r,
            at: 0,
            len,
            expected: 0,
        };
        let version = input.u32()?;
        if version != VERSION {
            return Err(FileError::WrongVersion(version));
        }
        let hash = input.u32()?;
        let description_len = input.u32()? as usize;
        let named = |description: String| match arch_named_by(&description) {
            Some(arch) => FileError::HashMismatch {
                arch: arch.name(),
                expected: arch.hash(),
                found: hash,
            },
            None => FileError::UnknownArchitecture { hash, description },
        };
        if description_len > MAX_DESCRIPTION {
            return Err(named(format!("<{description_len} bytes>")));
        }
        let mut text = vec![0; description_len];
        input.exact(&mut text)?;
        let description = String::from_utf8_lossy(&text).into_owned();
        let Some(arch) = Arch::by_hash(hash) else {
            return Err(named(description));
        };
        input.expected = arch.file_len(description_len) as u64;
        if len > input.expected {
            return Err(FileError::TrailingBytes {
                expected: input.expected,
                found: len,
            });
        }
        if len < input.expected {
            return Err(FileError::Truncated {
                expected: input.expected,
                found: len,
            });
        }
        let (half, l1, l2) = (arch.half, arch.l1, arch.l2);
        let i16s = |input: &mut Input<_>, n| input.values(n, i16::from_le_bytes);
        let i32s = |input: &mut Input<_>, n| input.values(n, i32::from_le_bytes);
        let i8s = |input: &mut Input<_>, n| input.values(n, |[b]: [u8; 1]| b as i8);
        input.section_hash("feature transformer", arch.transformer_hash())?;
        let ft_bias = i16s(&mut input, half)?;
        let ft_weights = i16s(&mut input, half * arch.features.dimensions())?;
        input.section_hash("network", arch.network_hash())?;
        let l1_bias = i32s(&mut input, l1)?;
        let l1_weights = i8s(&mut input, l1 * padded(2 * half))?;
        let l2_bias = i32s(&mut input, l2)?;
        let l2_weights = i8s(&mut input, l2 * padded(l1))?;
        let out_bias = i32s(&mut input, 1)?[0];
        let out_weights = i8s(&mut input, padded(l2))?;
        // The length was checked against the header, but a file may grow
        // while it is read.
        if input
            .r
            .read(&mut [0u8; 1])
            .map_err(|e| FileError::Io(e.to_string()))?
            != 0
        {
            return Err(FileError::TrailingBytes {
                expected: input.expected,
                found: input.expected + 1,
            });
        }
        Ok(StandardNetwork {
            arch,
            description,
            ft_bias,
            ft_weights,
            l1_bias,
            l1_scrambled: Vec::new(),
            l1_weights,
            l2_bias,
            l2_weights,
            l2_scrambled: Vec::new(),
            out_bias,
            out_weights,
            adds_to_classic: false,
        }
        .in_kernel_order())
    }

    /// The file bytes of this network.
    pub fn to_bytes(&self) -> Vec<u8> {
        let arch = self.arch;
        let mut out = Vec::with_capacity(arch.file_len(self.description.len()));
        let u32s = |out: &mut Vec<u8>, v: &[u32]| {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
        };
        u32s(
            &mut out,
            &[VERSION, arch.hash(), self.description.len() as u32],
        );
        out.extend_from_slice(self.description.as_bytes());
        u32s(&mut out, &[arch.transformer_hash()]);
        for w in self.ft_bias.iter().chain(&self.ft_weights) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        u32s(&mut out, &[arch.network_hash()]);
        let layers = [
            (&self.l1_bias[..], &self.l1_weights[..]),
            (&self.l2_bias[..], &self.l2_weights[..]),
            (std::slice::from_ref(&self.out_bias), &self.out_weights[..]),
        ];
        for (bias, weights) in layers {
            bias.iter()
                .for_each(|b| out.extend_from_slice(&b.to_le_bytes()));
            out.extend(weights.iter().map(|&w| w as u8));
        }
        out
    }

    /// A valid network of `arch` with random weights drawn from `seed`:
    /// large enough that clipping, shifts and rounding all happen (the
    /// transformer weights ±40, its biases ±100, the int8 weights ±60 and
    /// the layer biases ±2,000), so that two implementations that agree on
    /// many positions with it agree on the arithmetic. Padding weights
    /// are zero, as trainers write them. The same seed gives the same
    /// file on every machine (`StdRng` is seeded, not from the system).
    pub fn random(arch: Arch, seed: u64) -> StandardNetwork {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (half, l1, l2) = (arch.half, arch.l1, arch.l2);
        let mut layer = |rows: usize, inputs: usize| {
            let bias: Vec<i32> = (0..rows).map(|_| rng.gen_range(-2000..=2000)).collect();
            let mut weights = vec![0i8; rows * padded(inputs)];
            for row in weights.chunks_mut(padded(inputs)) {
                row[..inputs]
                    .iter_mut()
                    .for_each(|w| *w = rng.gen_range(-60..=60));
            }
            (bias, weights)
        };
        let (l1_bias, l1_weights) = layer(l1, 2 * half);
        let (l2_bias, l2_weights) = layer(l2, l1);
        let (out_bias, out_weights) = layer(1, l2);
        let ft_bias = (0..half).map(|_| rng.gen_range(-100..=100)).collect();
        let ft_weights = (0..half * arch.features.dimensions())
            .map(|_| rng.gen_range(-40..=40))
            .collect();
        StandardNetwork {
            arch,
            description: arch.description(),
            ft_bias,
            ft_weights,
            l1_bias,
            l1_scrambled: Vec::new(),
            l1_weights,
            l2_bias,
            l2_weights,
            l2_scrambled: Vec::new(),
            out_bias: out_bias[0],
            out_weights,
            adds_to_classic: false,
        }
        .in_kernel_order()
    }

    /// Fills the hidden layers' weights in the AVX2 kernel's order.
    fn in_kernel_order(mut self) -> StandardNetwork {
        use super::simd::scramble;
        let (half, l1, l2) = (self.arch.half, self.arch.l1, self.arch.l2);
        self.l1_scrambled = scramble(&self.l1_weights, l1, padded(2 * half), 2 * half);
        self.l2_scrambled = scramble(&self.l2_weights, l2, padded(l1), l1);
        self
    }

    /// The transformer row of `feature`.
    #[inline(always)]
    pub(crate) fn row(&self, feature: u32) -> &[i16] {
        let h = self.arch.half;
        let start = feature as usize * h;
        &self.ft_weights[start..start + h]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Vec<u8> {
        let arch = Arch::by_name("kp_256x2-32-32").unwrap();
        StandardNetwork::random(arch, 3).to_bytes()
    }

    #[test]
    fn files_round_trip_and_have_the_computed_length() {
        let bytes = small();
        let net = StandardNetwork::from_bytes(&bytes).unwrap();
        assert_eq!(bytes.len(), net.arch.file_len(net.description.len()));
        assert_eq!(net.to_bytes(), bytes);
        assert_eq!(arch_named_by(net.description()), Some(net.arch));
    }

    #[test]
    fn bad_files_are_refused_with_their_cause() {
        let bytes = small();
        let err = |b: &[u8]| StandardNetwork::from_bytes(b).err().unwrap();
        assert!(matches!(
            err(&bytes[..bytes.len() - 1]),
            FileError::Truncated { .. }
        ));
        assert!(matches!(err(&bytes[..6]), FileError::Truncated { .. }));
        let mut b = bytes.clone();
        b.push(0);
        assert!(matches!(err(&b), FileError::TrailingBytes { .. }));
        let mut b = bytes.clone();
        b[0] ^= 1;
        assert!(matches!(err(&b), FileError::WrongVersion(_)));
        let mut b = bytes.clone();
        b[4] ^= 1;
        assert!(matches!(
            err(&b),
            FileError::HashMismatch {
                arch: "kp_256x2-32-32",
                ..
            }
        ));
        // A section hash, just after the header.
        let mut b = bytes.clone();
        let at = 12 + u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        b[at] ^= 1;
        assert!(matches!(err(&b), FileError::SectionHashMismatch { .. }));
    }

    #[test]
    fn descriptions_of_other_architectures_are_named_in_the_error() {
        let other = "Features=HalfKA_hm[73305->1536x2],Network=AffineTransform[1<-32](...)";
        let mut bytes = VERSION.to_le_bytes().to_vec();
        bytes.extend_from_slice(&0x1234_5678u32.to_le_bytes());
        bytes.extend_from_slice(&(other.len() as u32).to_le_bytes());
        bytes.extend_from_slice(other.as_bytes());
        let e = StandardNetwork::from_bytes(&bytes).err().unwrap();
        assert!(matches!(e, FileError::UnknownArchitecture { .. }));
        assert!(e.to_string().contains("HalfKA_hm[73305->1536x2]"));
    }
}
