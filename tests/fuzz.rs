//! Property-based fuzzing of every input the engine reads (issue 23, item
//! 2): SFEN strings and USI moves, book files, network files, training
//! records and game records. Each target feeds random and mutated inputs
//! (valid ones changed byte by byte or token by token) and checks that
//! nothing panics and that what is accepted is consistent; proptest
//! shrinks a failure to a small input.
//!
//! `cargo test --release` runs a short pass of every target (a few
//! seconds each). A longer run by hand, with a seed to repeat it:
//!
//! ```text
//! PROPTEST_CASES=20000 PROPTEST_RNG_SEED=1 cargo test --release --test fuzz
//! ```
//!
//! (`PROPTEST_CASES` replaces each target's default count.)
//! A failure found is fixed in the engine and kept as a plain regression
//! test beside the target that found it.

mod fuzz {
    pub mod alloc_probe;
    pub mod book;
    pub mod corpus;
    pub mod mutate;
    pub mod network;
    pub mod packed;
    pub mod record;
    pub mod sfen;
}

/// Records the largest allocation each test thread asks for (see
/// `alloc_probe`): the file readers must not allocate what a header claims
/// before checking it.
#[global_allocator]
static ALLOCATOR: fuzz::alloc_probe::ProbingAllocator = fuzz::alloc_probe::ProbingAllocator;

use proptest::test_runner::Config as ProptestConfig;

/// The run's settings: `default_cases` cases, or `PROPTEST_CASES` divided
/// by `divisor` when that is set (a longer run by hand); no failure files,
/// as a failure found becomes a plain regression test.
fn config(default_cases: u32, divisor: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let cases = match std::env::var_os("PROPTEST_CASES") {
        Some(_) => (base.cases / divisor).max(1),
        None => default_cases,
    };
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..base
    }
}
