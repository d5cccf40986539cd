//! `ryuo-train`: the trainer of Ryuo's NNUE evaluation network.
//!
//! Data flows one way: loaders (`psv` files, or `selfplay` random games)
//! fill a compact `dataset`; `train` runs minibatch Adam on the float
//! `network` using `gradient`; `quantise` writes the engine's file and
//! evaluates it with the engine's integer arithmetic; `checkpoint` saves
//! and resumes float runs.

#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod dataset;
pub mod gradient;
pub mod halfkp;
pub mod network;
pub mod psv;
pub mod quantise;
pub mod selfplay;
pub mod train;
