//! Ryuo: an alpha-beta shogi engine speaking USI.
//!
//! Data flows one way: `usi` (text protocol) → `search` → `position`,
//! `movegen`, `eval`. The rules core (`types`, `bitboard`, `position`,
//! `movegen`) knows nothing of search or protocol. `analyse` (game
//! records, `ryuo analyse`) sits beside `usi` on top of `search`.

// `unsafe` is denied everywhere but in `hints` (a cache prefetch, a
// huge-page advice, and the CPU dispatch of `cpu_kernel!`) and in
// `nnue::standard::simd` (AVX2 intrinsics no safe code compiles to).
#![deny(unsafe_code)]

pub mod analyse;
pub mod bench;
pub mod bitboard;
pub mod book;
pub mod eval;
pub mod hints;
pub mod learn;
pub mod mate;
pub mod memory;
pub mod movegen;
pub mod nnue;
pub mod perft;
pub mod position;
pub mod progress;
pub mod search;
#[cfg(test)]
mod testing;
pub mod time;
pub mod types;
pub mod usi;
