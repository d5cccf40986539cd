//! The integration tests, one module per concern, in one test binary (a
//! binary per file costs a fat-LTO link each). Run one module with a
//! filter: `cargo test --release --test integration search::`.

mod common;

mod analyse;
mod analysis;
mod book;
mod eval;
mod gensfen;
mod hostile_gui;
mod match_options;
mod mate;
mod nnue;
mod packed;
mod perft;
mod search;
mod sfen;
mod standard_nnue;
mod usi;
