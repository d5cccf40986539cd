//! Hints to the CPU and to the kernel about memory: the one module where
//! the crate allows `unsafe`, each use a single call that changes no
//! program-visible memory.
//!
//! - [`prefetch`]: the search spent about a fifth of its time waiting for
//!   transposition table clusters to arrive from memory (`perf annotate`:
//!   the first load of `TranspositionTable::probe`). Asking for the child's
//!   cluster before the move is made lets that wait overlap with
//!   `do_move` and the node's first steps.
//! - [`advise_huge_pages`]: random probes into a table of many megabytes
//!   also miss the TLB on every 4 KiB page; backed by 2 MiB pages, the
//!   table needs a few hundred TLB entries instead of thousands.
//!
//! Safe Rust has neither, so these wrap the intrinsic and the system call.

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

/// Asks Linux to back the whole 4 KiB pages within `len` bytes from `ptr`
/// with transparent huge pages. Call it on memory not yet touched (as
/// reserved `Vec` capacity is), so the first touch gets huge pages.
///
/// Most systems enable transparent huge pages only for memory advised so
/// (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`). Where they
/// are off or unsupported the call fails, harmlessly: the memory stays as
/// it was. Elsewhere than Linux this does nothing.
#[allow(unsafe_code)]
pub fn advise_huge_pages<T>(ptr: *const T, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (ptr as usize).next_multiple_of(PAGE);
        let end = (ptr as usize).saturating_add(len) / PAGE * PAGE;
        if end > start {
            // SAFETY: the range lies inside an allocation the caller owns;
            // MADV_HUGEPAGE changes only how the kernel backs it, never its
            // contents, and its failure leaves everything as it was.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Whether the CPU has x86-64-v3's instructions (AVX2, BMI1/2, POPCNT,
/// LZCNT, FMA), for the kernels that [`cpu_kernel!`] compiles twice.
/// Setting the environment variable `RYUO_GENERIC_CPU` forces the portable
/// path (to compare the two: both must give the same `bench` signature).
#[inline]
pub fn has_x86_64_v3() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        if std::env::var_os("RYUO_GENERIC_CPU").is_some() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

/// Whether the CPU has AVX-512 VNNI with 256-bit forms (`vpdpbusd ymm`),
/// which the classic networks' hidden layers use when present: one
/// instruction for four `u8 × i8` products summed into `i32`, exact.
/// `RYUO_GENERIC_CPU` or `RYUO_NO_VNNI` in the environment turn it off (to
/// compare with an AVX2-only build).
#[inline]
pub fn has_avx512_vnni() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        if std::env::var_os("RYUO_NO_VNNI").is_some() || !has_x86_64_v3() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512vnni")
                && std::arch::is_x86_feature_detected!("avx512vl")
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

/// Defines a function whose body is compiled twice: for the portable
/// x86-64 baseline (which has no POPCNT, so `count_ones` is a dozen
/// instructions, and 128-bit vectors only) and for x86-64-v3, chosen at
/// run time by [`has_x86_64_v3`]. The plain `cargo build` stays portable
/// and still uses the newer instructions where the CPU has them. Both
/// versions compute the same integers, so results never depend on the CPU.
///
/// The function is kept out of line: its arguments stay function
/// parameters, whose `&mut` the compiler knows alias nothing, which the
/// accumulator loops need to vectorise.
#[macro_export]
macro_rules! cpu_kernel {
    ($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$attr])*
        #[inline(never)]
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn body($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,fma")]
                fn v3($($arg: $ty),*) $(-> $ret)? {
                    body($($arg),*)
                }
                if $crate::hints::has_x86_64_v3() {
                    // SAFETY: the CPU has every feature `v3` is compiled
                    // for (checked just above).
                    #[allow(unsafe_code)]
                    let result = unsafe { v3($($arg),*) };
                    return result;
                }
            }
            body($($arg),*)
        }
    };
}
