//! The search: iterative deepening over a negamax alpha-beta searcher
//! (`alphabeta.rs`), with a shared transposition table.
//!
//! The caller (the USI loop, `bench`, tests) hands in a position, `Limits`
//! and `SearchOptions`, shares a `Control` for stop/ponderhit, and receives
//! progress through the `Reporter` trait. The search knows nothing of USI
//! text.
//!
//! Files: `options.rs` (what the caller hands in: options, limits,
//! control), `report.rs` (what comes back: result, scores, progress),
//! `threads.rs` (the `Searcher`, per-thread data, Lazy SMP),
//! `deepening.rs` (iterative deepening at the root), `alphabeta.rs` (the
//! tree search and quiescence), `movepick.rs`, `history.rs`, `correction.rs`, `tt.rs`,
//! `see.rs`, `params.rs`, `timeman.rs` (how long to go on, between
//! iterations), `root_mate.rs` (the df-pn mate test before a timed
//! search), `stats.rs` (the tree's shape by depth, in `stats` builds).

mod alphabeta;
mod correction;
mod deepening;
pub mod history;
pub mod movepick;
mod options;
pub mod params;
mod report;
mod root_mate;
pub mod see;
pub mod stats;
mod threads;
mod timeman;
pub mod tt;

pub use options::*;
pub use report::*;
pub use threads::*;
pub use tt::{Bound, TranspositionTable};
