//! Training YaneuraOu-format HalfKP networks (`--arch halfkp_256x2-32-32`):
//! the files the engine reads as `ryuo::nnue::standard` networks, and
//! YaneuraOu itself too.
//!
//! - `features`: a perspective as its king square and 38 BonaPieces;
//! - `network`: the float model with its factoriser, bounds, initialisation;
//! - `gradient`: sparse forward and backward;
//! - `train`: minibatches, Adam on the dense parameters, lazy Adam on the
//!   32 M-weight transformer table;
//! - `export`: the `nn.bin` writer (factoriser folded in, YaneuraOu's
//!   integers) and the gap measured with the engine's evaluation;
//! - `checkpoint`: float checkpoints.

pub mod checkpoint;
pub mod export;
pub mod features;
pub mod gradient;
pub mod network;
pub mod train;
