//! Property-based fuzzing of every input the engine reads (issue 23, item
//! 2): the USI command stream, SFEN strings and USI moves, book files,
//! network files, training records and game records. Each target feeds
//! random and mutated inputs (valid ones changed byte by byte or token by
//! token) and checks that nothing panics and that what is accepted is
//! consistent; proptest shrinks a failure to a small input.
//!
//! `cargo test --release` runs a short pass of every target (about 5 s
//! for the whole file). A longer run by hand, with a seed to repeat it:
//!
//! ```text
//! PROPTEST_CASES=20000 PROPTEST_RNG_SEED=1 cargo test --release --test fuzz
//! ```
//!
//! `PROPTEST_CASES` replaces every target's default count, so give each
//! target its own by filtering on its name: an engine session takes about
//! 10 ms (`-- usi_stream`, 20,000 in 3 minutes), a case of the other
//! targets microseconds (millions in a minute; `nn.bin` mutations 0.4 ms).
//! The last long run (15 minutes on two shared cores): 35,000 sessions
//! and 111 million cases of the other targets in release, 5,000 and 3.9
//! million under `--profile checked` (debug assertions, overflow checks).
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
    pub mod usi_stream;
}

/// Records the largest allocation each test thread asks for (see
/// `alloc_probe`): the file readers must not allocate what a header claims
/// before checking it.
#[global_allocator]
static ALLOCATOR: fuzz::alloc_probe::ProbingAllocator = fuzz::alloc_probe::ProbingAllocator;

use proptest::test_runner::Config as ProptestConfig;

/// The run's settings: `cases` cases (proptest puts `PROPTEST_CASES` over
/// it when that is set: a longer run by hand), and no failure files, as a
/// failure found becomes a plain regression test.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
