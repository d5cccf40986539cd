//! The accumulator kernels both network kinds share: adding and removing
//! rows of feature weights, in wrapping 16-bit arithmetic (exact whatever
//! the order, so an incremental update equals a rebuild).

/// Lanes of the vectorised loops: hidden widths are multiples of 16, and
/// fixed-size chunks let the compiler use full SIMD registers.
pub(crate) const LANES: usize = 16;

/// Splits a slice whose length is a multiple of `LANES` into lanes-sized
/// arrays, so that the loops below have no bounds checks and vectorise.
/// The loops are kept out of line (`cpu_kernel!`, which also compiles them
/// for AVX2): inlined into the search, LLVM loses the guarantee that output
/// and inputs do not overlap and falls back to scalar code (seen in
/// `perf annotate`).
#[inline(always)]
pub(crate) fn lanes(v: &[i16]) -> &[[i16; LANES]] {
    v.as_chunks::<LANES>().0
}

#[inline(always)]
pub(crate) fn lanes_mut(v: &mut [i16]) -> &mut [[i16; LANES]] {
    v.as_chunks_mut::<LANES>().0
}

crate::cpu_kernel! {
/// `out = input + add - sub` (a quiet move: one feature off, one on).
pub(crate) fn update_1_1(out: &mut [i16], input: &[i16], add: &[i16], sub: &[i16]) {
    for (((o, i), a), s) in lanes_mut(out)
        .iter_mut()
        .zip(lanes(input))
        .zip(lanes(add))
        .zip(lanes(sub))
    {
        for k in 0..LANES {
            o[k] = i[k].wrapping_add(a[k]).wrapping_sub(s[k]);
        }
    }
}
}

crate::cpu_kernel! {
/// `out = input + add[0] + add[1] - sub[0] - sub[1]` (a capture).
pub(crate) fn update_2_2(out: &mut [i16], input: &[i16], add: [&[i16]; 2], sub: [&[i16]; 2]) {
    let (a0, a1) = (lanes(add[0]), lanes(add[1]));
    let (s0, s1) = (lanes(sub[0]), lanes(sub[1]));
    for (j, (o, i)) in lanes_mut(out).iter_mut().zip(lanes(input)).enumerate() {
        let (a0, a1, s0, s1) = (&a0[j], &a1[j], &s0[j], &s1[j]);
        for k in 0..LANES {
            o[k] = i[k]
                .wrapping_add(a0[k])
                .wrapping_add(a1[k])
                .wrapping_sub(s0[k])
                .wrapping_sub(s1[k]);
        }
    }
}
}

crate::cpu_kernel! {
pub(crate) fn add_row(acc: &mut [i16], row: &[i16]) {
    for (a, w) in lanes_mut(acc).iter_mut().zip(lanes(row)) {
        for k in 0..LANES {
            a[k] = a[k].wrapping_add(w[k]);
        }
    }
}
}

crate::cpu_kernel! {
pub(crate) fn sub_row(acc: &mut [i16], row: &[i16]) {
    for (a, w) in lanes_mut(acc).iter_mut().zip(lanes(row)) {
        for k in 0..LANES {
            a[k] = a[k].wrapping_sub(w[k]);
        }
    }
}
}

/// Accumulator lanes kept in registers at a time by `apply_rows` (eight
/// AVX2 registers).
const TILE: usize = 128;

crate::cpu_kernel! {
/// `acc += Σ add − Σ sub`, a tile at a time, so that a rebuild reads and
/// writes the accumulator once instead of once per row.
pub(crate) fn apply_rows(acc: &mut [i16], add: &[&[i16]], sub: &[&[i16]]) {
    for (t, tile) in acc.as_chunks_mut::<TILE>().0.iter_mut().enumerate() {
        let mut r = *tile;
        let at = t * TILE;
        for row in add {
            let w: &[i16; TILE] = row[at..at + TILE].try_into().expect("rows are as wide as acc");
            for k in 0..TILE {
                r[k] = r[k].wrapping_add(w[k]);
            }
        }
        for row in sub {
            let w: &[i16; TILE] = row[at..at + TILE].try_into().expect("rows are as wide as acc");
            for k in 0..TILE {
                r[k] = r[k].wrapping_sub(w[k]);
            }
        }
        *tile = r;
    }
}
}
