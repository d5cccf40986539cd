//! A cache prefetch hint: the one place the crate allows `unsafe`.
//!
//! The search spends about a fifth of its time waiting for transposition
//! table clusters to arrive from memory (`perf annotate`: the first load of
//! `TranspositionTable::probe`). Asking for the child's cluster before the
//! move is made lets that wait overlap with `do_move` and the node's first
//! steps. Safe Rust has no prefetch, so this wraps the intrinsic.

/// Asks the CPU to start loading the cache line holding `*ptr`.
///
/// A hint only: it never faults, whatever the address, and changes no
/// memory, so calling it with any pointer is sound.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` neither reads nor writes program-visible memory
    // and does not fault on invalid addresses; SSE is part of x86_64's
    // baseline, so the instruction always exists.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(ptr.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}
