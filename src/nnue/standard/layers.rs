//! The dense part of a classic network, run on the two accumulators:
//! clip to bytes, two hidden affine layers with clipped ReLUs, one output.
//!
//! All integer arithmetic, as YaneuraOu defines it: the accumulators are
//! clipped to 0..127, an affine layer sums `i8` weights times `u8` inputs
//! into `i32` with its bias, and the clipped ReLU is `clamp(x >> 6, 0,
//! 127)` (arithmetic shift). Sums cannot overflow: at most 2,048 inputs of
//! 127 × 128.

use super::file::StandardNetwork;
use super::simd::{affine_sparse, LiveGroups, MAX_INPUTS};

/// Widest first hidden layer and second hidden layer of the supported
/// architectures.
const MAX_L1: usize = 32;
const MAX_L2: usize = 64;

/// The shift of the clipped ReLU (YaneuraOu's `kWeightScaleBits`).
const WEIGHT_SCALE_BITS: u32 = 6;

crate::cpu_kernel! {
/// `out[i] = clamp(acc[i], 0, 127)`.
fn clip_accumulator(out: &mut [u8], acc: &[i16]) {
    for (o, &a) in out.iter_mut().zip(acc) {
        *o = a.clamp(0, 127) as u8;
    }
}
}

crate::cpu_kernel! {
/// `out[o] = bias[o] + Σ_j weights[o·stride + j] · input[j]`, `j` over the
/// input (the row's padding beyond it is skipped).
fn affine(out: &mut [i32], input: &[u8], weights: &[i8], bias: &[i32], stride: usize) {
    for (o, (dst, &b)) in out.iter_mut().zip(bias).enumerate() {
        let row = &weights[o * stride..o * stride + input.len()];
        let mut sum = 0i32;
        for (&w, &x) in row.iter().zip(input) {
            sum += i32::from(w) * i32::from(x);
        }
        *dst = b.wrapping_add(sum);
    }
}
}

/// `clamp(x >> 6, 0, 127)` for each `x`.
#[inline(always)]
fn clipped_relu(out: &mut [u8], input: &[i32]) {
    for (o, &x) in out.iter_mut().zip(input) {
        *o = (x >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// Buffers of `propagate` kept between calls: zeroing two kilobytes per
/// evaluation showed in profiles.
pub struct Scratch {
    input: [u8; MAX_INPUTS],
    live: LiveGroups,
}

impl Scratch {
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch {
            input: [0; MAX_INPUTS],
            live: LiveGroups::new(),
        })
    }
}

/// The network's output (before the division by `FV_SCALE`) for the side
/// to move's accumulator `us` and the other side's `them`.
pub fn propagate(net: &StandardNetwork, us: &[i16], them: &[i16], scratch: &mut Scratch) -> i32 {
    let (half, l1, l2) = (net.arch.half, net.arch.l1, net.arch.l2);
    let Scratch { input, live } = scratch;
    clip_accumulator(&mut input[..half], us);
    clip_accumulator(&mut input[half..2 * half], them);
    let input = &input[..2 * half];

    let mut sums = [0i32; MAX_L2];
    let mut hidden1 = [0u8; MAX_L1];
    let fast = affine_sparse(
        &mut sums[..l1],
        input,
        &net.l1_scrambled,
        &net.l1_bias,
        live,
    );
    if fast.is_none() {
        let stride = net.l1_weights.len() / l1;
        affine(
            &mut sums[..l1],
            input,
            &net.l1_weights,
            &net.l1_bias,
            stride,
        );
    }
    clipped_relu(&mut hidden1[..l1], &sums[..l1]);

    let mut hidden2 = [0u8; MAX_L2];
    // The kernel reads the padded input: `hidden1` is zero past `l1`.
    let padded_hidden1 = &hidden1[..super::arch::padded(l1)];
    let fast = affine_sparse(
        &mut sums[..l2],
        padded_hidden1,
        &net.l2_scrambled,
        &net.l2_bias,
        live,
    );
    if fast.is_none() {
        let stride = net.l2_weights.len() / l2;
        affine(
            &mut sums[..l2],
            &hidden1[..l1],
            &net.l2_weights,
            &net.l2_bias,
            stride,
        );
    }
    clipped_relu(&mut hidden2[..l2], &sums[..l2]);

    let mut out = [0i32];
    affine(
        &mut out,
        &hidden2[..l2],
        &net.out_weights,
        std::slice::from_ref(&net.out_bias),
        net.out_weights.len(),
    );
    out[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipped_relu_shifts_arithmetically_and_clamps() {
        let mut out = [0u8; 5];
        clipped_relu(&mut out, &[-1, 63, 64, 127 * 64 + 63, 1 << 20]);
        assert_eq!(out, [0, 0, 1, 127, 127]);
    }

    #[test]
    fn affine_skips_the_row_padding() {
        let mut out = [0i32; 2];
        // Rows of stride 4, inputs of 2: the padding weights (99) are unused.
        let weights = [1, -2, 99, 99, 3, 4, 99, 99];
        affine(&mut out, &[10, 20], &weights, &[5, -5], 4);
        assert_eq!(out, [5 + 10 - 40, -5 + 30 + 80]);
    }
}
