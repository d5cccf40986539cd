//! YaneuraOu's classic NNUE networks (`nn.bin`: `halfkp_256x2-32-32` and
//! its relatives), the evaluation files most shogi engine users have.
//!
//! The file format and the arithmetic are YaneuraOu's published ones, so
//! that a file evaluates to exactly the same value here as there (tested
//! against values YaneuraOu computed: `tests/standard_nnue.rs`). The code is
//! Ryuo's own:
//! - `arch.rs`: the supported architectures and their structure hashes;
//! - `file.rs`: reading, writing and random valid files;
//! - `features.rs`: HalfKP and K+P features of a Ryuo position;
//! - `accumulator.rs`: incremental accumulators with a refresh cache;
//! - `layers.rs`: the dense layers;
//! - `pack.rs`: a compact lossless form of a file, for git and the binary;
//! - `simd.rs`: the first hidden layer in AVX2 (its `unsafe` is the
//!   crate's only use outside `hints`).
//!
//! The value in YaneuraOu's units is `output / FV_SCALE` (truncated), FV_SCALE
//! 16 by default; some public networks are meant for another scale.

mod accumulator;
pub mod arch;
pub mod features;
mod file;
mod layers;
pub mod pack;
mod simd;

pub use accumulator::{evaluate_from_scratch, StandardAccumulators};
pub use arch::{Arch, FeatureSet, ARCHITECTURES, FE_END};
pub use file::{FileError, StandardNetwork, VERSION};

use crate::types::Value;

/// YaneuraOu's default `FV_SCALE`.
pub const DEFAULT_FV_SCALE: i32 = 16;

/// The largest static value YaneuraOu gives (`VALUE_MAX_EVAL`): its values
/// are clamped to this before anything else sees them.
pub const MAX_VALUE: Value = 31_753;

/// The evaluation, in YaneuraOu's units, of a network output.
#[inline(always)]
pub fn value(output: i32, fv_scale: i32) -> Value {
    (output / fv_scale.max(1)).clamp(-MAX_VALUE, MAX_VALUE)
}
