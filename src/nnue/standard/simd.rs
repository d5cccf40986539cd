//! The hidden layers with AVX2 intrinsics: the one place besides
//! `hints` where the crate allows `unsafe`.
//!
//! That layer is most of a classic network's cost after the accumulator
//! (512 or 2,048 byte inputs times 8 to 32 outputs). Its `u8 × i8` products
//! fit `vpmaddubsw`, which no compiler emits from plain Rust (it saturates,
//! so it is not an exact translation of any integer expression), and its
//! inputs are mostly zero after clipping, which only explicit code can
//! skip. Hence: per group of four input bytes that is not all zero, one
//! broadcast and, per eight outputs, `vpmaddubsw` + `vpmaddwd` + add.
//! Exact: a pair of products is at most 2 · 127 · 128 = 32,512 and never
//! saturates, so the sums equal the portable kernel's.

#![allow(unsafe_code)]

/// The weights of a layer (rows of `stride`, of which the first `inputs`
/// meet an input) in the order the kernel reads them: for each group of
/// four inputs, for each output, the four weights. The padding columns are
/// zero, so the kernel may read the padded input (zero there too) whatever
/// a file holds in them.
pub fn scramble(weights: &[i8], outputs: usize, stride: usize, inputs: usize) -> Vec<i8> {
    let mut out = vec![0i8; stride * outputs];
    for g in 0..stride / 4 {
        for o in 0..outputs {
            for b in 0..4 {
                let j = g * 4 + b;
                if j < inputs {
                    out[(g * outputs + o) * 4 + b] = weights[o * stride + j];
                }
            }
        }
    }
    out
}

/// Most input bytes a layer has (two perspectives of 1,024).
pub const MAX_INPUTS: usize = 2048;

/// Groups of four inputs at most, and room for one chunk's unconditional
/// write past the last live one.
const LIVE_SLOTS: usize = MAX_INPUTS / 4 + 8;

/// The kernels' list of live input groups, kept by the caller so that it
/// is not zeroed for every call.
pub struct LiveGroups([u16; LIVE_SLOTS]);

impl LiveGroups {
    pub fn new() -> LiveGroups {
        LiveGroups([0; LIVE_SLOTS])
    }
}

/// `out[o] = bias[o] + Σ_j w[o][j] · input[j]` with the weights as
/// `scramble` orders them. `None` when the CPU lacks AVX2 or the shapes
/// are not the kernel's (outputs 8, 16, 32 or 64; inputs a multiple of 32
/// up to 2,048): the caller then runs the portable kernel. Uses AVX-512
/// VNNI where the CPU has it (one instruction for the two of AVX2), with
/// the same integers.
#[inline]
pub fn affine_sparse(
    out: &mut [i32],
    input: &[u8],
    scrambled: &[i8],
    bias: &[i32],
    live: &mut LiveGroups,
) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    {
        let outputs = out.len();
        let shapes_fit = input.len().is_multiple_of(32)
            && input.len() <= MAX_INPUTS
            && scrambled.len() == input.len() * outputs
            && bias.len() == outputs;
        if !shapes_fit || !crate::hints::has_x86_64_v3() {
            return None;
        }
        let vnni = crate::hints::has_avx512_vnni();
        // SAFETY: the CPU has the features of the functions called
        // (checked just above), and they read within the slices whose
        // lengths were checked just above.
        unsafe {
            let count = x86::live_groups(input, &mut live.0);
            let live = &live.0[..count];
            match (outputs, vnni) {
                (8, false) => x86::avx2::<1>(out, input, live, scrambled, bias),
                (16, false) => x86::avx2::<2>(out, input, live, scrambled, bias),
                (32, false) => x86::avx2::<4>(out, input, live, scrambled, bias),
                (64, false) => x86::avx2::<8>(out, input, live, scrambled, bias),
                (8, true) => x86::vnni::<1>(out, input, live, scrambled, bias),
                (16, true) => x86::vnni::<2>(out, input, live, scrambled, bias),
                (32, true) => x86::vnni::<4>(out, input, live, scrambled, bias),
                (64, true) => x86::vnni::<8>(out, input, live, scrambled, bias),
                _ => return None,
            }
        }
        Some(())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (out, input, scrambled, bias, live);
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::LIVE_SLOTS;
    use std::arch::x86_64::*;

    /// For each mask of eight groups, the positions of its set bits in
    /// order (the rest of the row is filler that is never read).
    const LIVE_ORDER: [[u8; 8]; 256] = {
        let mut table = [[0u8; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if mask & (1 << bit) != 0 {
                    table[mask][n] = bit as u8;
                    n += 1;
                }
                bit += 1;
            }
            mask += 1;
        }
        table
    };

    /// The indices of the groups of four input bytes that are not all
    /// zero, found without a branch per group (a loop that stops at each
    /// chunk's last live group mispredicts once per chunk: it cost more
    /// than the products). Returns how many there are.
    ///
    /// # Safety
    /// The CPU must have AVX2; `input.len()` must be at most `MAX_INPUTS`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn live_groups(input: &[u8], live: &mut [u16; LIVE_SLOTS]) -> usize {
        let zero = _mm256_setzero_si256();
        let mut count = 0;
        for (chunk, bytes) in input.chunks_exact(32).enumerate() {
            // SAFETY: `bytes` holds exactly 32 bytes; loadu has no
            // alignment requirement.
            let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
            // Inputs are 0..=127, so a group is a non-negative i32, and
            // positive exactly when one of its bytes is not zero.
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero)));
            let order = &LIVE_ORDER[mask as u8 as usize];
            let base = (chunk * 8) as u16;
            for (slot, &bit) in live[count..count + 8].iter_mut().zip(order) {
                *slot = base + u16::from(bit);
            }
            count += mask.count_ones() as usize;
        }
        count
    }

    /// Defines a kernel of `K` vectors of eight `i32` outputs that adds,
    /// for each live group, its four bytes times each output's four
    /// weights with `$mac`.
    macro_rules! sparse_kernel {
        ($(#[$attr:meta])* $name:ident, $features:literal, |$acc:ident, $x:ident, $w:ident| $mac:expr) => {
            $(#[$attr])*
            /// Two sets of accumulators take alternate groups: one set
            /// would chain every group's products on the last one's
            /// (five cycles a step for `vpdpbusd`).
            ///
            /// # Safety
            /// The CPU must have the enabled features; `live` must hold
            /// group indices of `input` (`live_groups`),
            /// `w.len() == input.len() * 8 * K`,
            /// `out.len() == bias.len() == 8 * K`.
            #[target_feature(enable = $features)]
            pub unsafe fn $name<const K: usize>(
                out: &mut [i32],
                input: &[u8],
                live: &[u16],
                w: &[i8],
                bias: &[i32],
            ) {
                /// Adds group `g`'s four input bytes times each output's
                /// four weights to `acc`.
                ///
                /// # Safety
                /// As the kernel's, and group `g` lies in `input` and its
                /// weights, 32·K bytes from 32·K·g, in `w`.
                #[target_feature(enable = $features)]
                #[inline]
                unsafe fn add_group<const K: usize>(
                    acc: &mut [__m256i; K],
                    input: &[u8],
                    w: &[i8],
                    g: usize,
                ) {
                    // SAFETY: the caller's; unaligned reads have no
                    // alignment requirement.
                    unsafe {
                        let $x = _mm256_set1_epi32(
                            input.as_ptr().add(g * 4).cast::<i32>().read_unaligned(),
                        );
                        let row = w.as_ptr().add(g * 32 * K);
                        for (k, $acc) in acc.iter_mut().enumerate() {
                            let $w = _mm256_loadu_si256(row.add(32 * k).cast());
                            *$acc = $mac;
                        }
                    }
                }
                // Indexed by constants only (pairs of groups, then the odd
                // one), so both sets stay in registers: a set chosen by
                // `i & 1` was kept on the stack, a store and a load per
                // product, and the loop ran at the store-forwarding latency.
                let mut even = [_mm256_setzero_si256(); K];
                let mut odd = [_mm256_setzero_si256(); K];
                let mut pairs = live.chunks_exact(2);
                for pair in &mut pairs {
                    // SAFETY: `live` holds group indices of `input`, whose
                    // weights `w` holds (the kernel's contract).
                    unsafe {
                        add_group::<K>(&mut even, input, w, usize::from(pair[0]));
                        add_group::<K>(&mut odd, input, w, usize::from(pair[1]));
                    }
                }
                if let [last] = pairs.remainder() {
                    // SAFETY: as just above.
                    unsafe { add_group::<K>(&mut even, input, w, usize::from(*last)) };
                }
                for (a, b) in even.iter_mut().zip(&odd) {
                    *a = _mm256_add_epi32(*a, *b);
                }
                // `affine_sparse` checked the shapes before choosing `K`.
                debug_assert!(out.len() == 8 * K && bias.len() == 8 * K);
                for (k, a) in even.iter().enumerate() {
                    // SAFETY: `out` and `bias` hold 8·K i32 (the kernel's
                    // contract); unaligned accesses have no alignment
                    // requirement. The add wraps, as `wrapping_add`.
                    unsafe {
                        let b = _mm256_loadu_si256(bias.as_ptr().add(8 * k).cast());
                        let sum = _mm256_add_epi32(*a, b);
                        _mm256_storeu_si256(out.as_mut_ptr().add(8 * k).cast(), sum);
                    }
                }
            }
        };
    }

    sparse_kernel!(
        /// AVX2: `vpmaddubsw` (pairs of products into `i16`, at most
        /// 2 · 127 · 128 = 32,512: never saturated), `vpmaddwd` by ones
        /// (into `i32`), add.
        avx2,
        "avx2",
        |acc, x, w| _mm256_add_epi32(
            *acc,
            _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), _mm256_set1_epi16(1))
        )
    );

    sparse_kernel!(
        /// AVX-512 VNNI on 256-bit vectors: `vpdpbusd`, the four products
        /// summed straight into `i32`.
        vnni,
        "avx2,avx512vnni,avx512vl",
        |acc, x, w| _mm256_dpbusd_epi32(*acc, x, w)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every kernel the CPU has against the plain sum, over the full `i8`
    /// weight range (products at the `vpmaddubsw` bound) and inputs with
    /// some, no and only zero groups, for each output width.
    #[test]
    fn kernels_equal_the_plain_sum() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        // Every third group zero (an odd number of live groups at these
        // sizes), none (an even number: no odd group left over), all.
        let patterns: [fn(usize) -> bool; 3] = [|g| g % 3 == 0, |_| false, |_| true];
        for (outputs, inputs, zero_group) in [8, 16, 32, 64]
            .into_iter()
            .flat_map(|o| [32, 512, 2048].map(|i| (o, i)))
            .flat_map(|(o, i)| patterns.map(|z| (o, i, z)))
        {
            let weights: Vec<i8> = (0..outputs * inputs).map(|_| rng.gen()).collect();
            let bias: Vec<i32> = (0..outputs)
                .map(|_| rng.gen_range(-99_999..99_999))
                .collect();
            let input: Vec<u8> = (0..inputs)
                .map(|i| {
                    if zero_group(i / 4) {
                        0
                    } else {
                        rng.gen_range(0..=127)
                    }
                })
                .collect();
            let expected: Vec<i32> = (0..outputs)
                .map(|o| {
                    let row = &weights[o * inputs..(o + 1) * inputs];
                    let sum: i32 = row
                        .iter()
                        .zip(&input)
                        .map(|(&w, &x)| i32::from(w) * i32::from(x))
                        .sum();
                    bias[o] + sum
                })
                .collect();
            let scrambled = scramble(&weights, outputs, inputs, inputs);
            let mut got = vec![0; outputs];
            let mut live = LiveGroups::new();
            if affine_sparse(&mut got, &input, &scrambled, &bias, &mut live).is_some() {
                assert_eq!(got, expected, "{outputs} outputs, {inputs} inputs");
            }
            #[cfg(target_arch = "x86_64")]
            if crate::hints::has_x86_64_v3() {
                // The AVX2 kernel too, on a CPU whose default is VNNI.
                let mut got = vec![0; outputs];
                // SAFETY: the CPU has AVX2 (checked above); the shapes
                // are the kernel's.
                #[allow(unsafe_code)]
                unsafe {
                    let count = x86::live_groups(&input, &mut live.0);
                    let groups = &live.0[..count];
                    match outputs {
                        8 => x86::avx2::<1>(&mut got, &input, groups, &scrambled, &bias),
                        16 => x86::avx2::<2>(&mut got, &input, groups, &scrambled, &bias),
                        32 => x86::avx2::<4>(&mut got, &input, groups, &scrambled, &bias),
                        _ => x86::avx2::<8>(&mut got, &input, groups, &scrambled, &bias),
                    }
                }
                assert_eq!(got, expected, "AVX2, {outputs} outputs, {inputs} inputs");
            }
        }
    }
}
