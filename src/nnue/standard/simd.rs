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

/// `out[o] = bias[o] + Σ_j w[o][j] · input[j]` with the weights as
/// `scramble` orders them. `None` when the CPU lacks AVX2 or the shapes
/// are not the kernel's (outputs 8, 16, 32 or 64; inputs a multiple of 32):
/// the caller then runs the portable kernel.
#[inline]
pub fn affine_sparse(out: &mut [i32], input: &[u8], scrambled: &[i8], bias: &[i32]) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    {
        let outputs = out.len();
        let shapes_fit = input.len().is_multiple_of(32)
            && scrambled.len() == input.len() * outputs
            && bias.len() == outputs;
        if !shapes_fit || !crate::hints::has_x86_64_v3() {
            return None;
        }
        // SAFETY: the CPU has AVX2 (checked just above) and the kernels
        // read within the slices whose lengths were checked just above.
        unsafe {
            match outputs {
                8 => avx2::affine_sparse::<1>(out, input, scrambled, bias),
                16 => avx2::affine_sparse::<2>(out, input, scrambled, bias),
                32 => avx2::affine_sparse::<4>(out, input, scrambled, bias),
                64 => avx2::affine_sparse::<8>(out, input, scrambled, bias),
                _ => return None,
            }
        }
        Some(())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (out, input, scrambled, bias);
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// `K` vectors of eight `i32` outputs.
    ///
    /// # Safety
    /// The CPU must have AVX2; `input.len()` must be a multiple of 32,
    /// `w.len() == input.len() * 8 * K`, `out.len() == bias.len() == 8 * K`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn affine_sparse<const K: usize>(
        out: &mut [i32],
        input: &[u8],
        w: &[i8],
        bias: &[i32],
    ) {
        let ones = _mm256_set1_epi16(1);
        let zero = _mm256_setzero_si256();
        let mut acc = [zero; K];
        for (chunk, bytes) in input.chunks_exact(32).enumerate() {
            // SAFETY: `bytes` holds exactly 32 bytes; loadu has no
            // alignment requirement.
            let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
            // Inputs are 0..=127, so a group is a non-negative i32, and
            // positive exactly when one of its bytes is not zero.
            let mut live =
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero))) as u32;
            while live != 0 {
                let g = chunk * 8 + live.trailing_zeros() as usize;
                live &= live - 1;
                let x = _mm256_set1_epi32(i32::from_le_bytes([
                    input[g * 4],
                    input[g * 4 + 1],
                    input[g * 4 + 2],
                    input[g * 4 + 3],
                ]));
                let row = &w[g * 32 * K..(g + 1) * 32 * K];
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: `row` holds 32·K bytes, so bytes 32k..32k+32
                    // are inside it.
                    let wv = unsafe { _mm256_loadu_si256(row.as_ptr().add(32 * k).cast()) };
                    let pairs = _mm256_maddubs_epi16(x, wv);
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(pairs, ones));
                }
            }
        }
        for (k, a) in acc.iter().enumerate() {
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` holds exactly eight i32.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), *a) };
            for (i, lane) in lanes.iter().enumerate() {
                out[8 * k + i] = bias[8 * k + i].wrapping_add(*lane);
            }
        }
    }
}
