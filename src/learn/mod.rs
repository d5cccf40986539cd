//! Training data for a learned evaluation.
//!
//! `packed` holds YaneuraOu's 32-byte `PackedSfen` position code and the
//! 40-byte `PackedSfenValue` record (position, score, move, ply, result),
//! `file` reads and writes files of records, and `gensfen` makes them by
//! self-play; `manifest` describes a file (its making and a content hash,
//! `fnv`) and `shards` writes, checks and merges files with manifests. The format is YaneuraOu's so that existing trainers and tools
//! (cshogi, nnue-pytorch forks) read our data and we read theirs.

pub mod file;
pub mod fnv;
pub mod gensfen;
pub mod manifest;
pub mod packed;
pub mod shards;

pub use file::{read_records, PsvReadError, PsvReader, PsvWriter};
pub use packed::{PackError, PackedSfen, PackedSfenValue};
