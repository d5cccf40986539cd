//! Loss and gradient of the float HalfKP network.
//!
//! Sparse first layer: a sample reads the 2 · 38 rows of `W` and of `P` its
//! features name and writes gradient only for those. The gradient of `W`
//! goes into a per-thread `TableGrad` (only the touched rows); the gradient
//! of `P` is not accumulated per sample at all: a feature's `W` row and
//! its BonaPiece's `P` row always receive the same delta, so `P`'s
//! gradient is the sum of `W`'s over king squares, computed once per
//! batch from the touched rows (`add_factor_gradient`). That halves the
//! per-sample writes. Everything else (biases, `P`, the dense layers) has
//! a dense per-thread buffer, as in Ryuo's own trainer.

use crate::dataset::{Dataset, Sample};
use crate::gradient::{Objective, MIRROR};
use crate::halfkp::features::{mirror_entry, Rows, ENTRIES};
use crate::halfkp::network::{DenseLayout, HalfKpNet};
use ryuo::nnue::standard::{Arch, FE_END};

/// Activations of one sample, kept for the backward pass.
pub struct Scratch {
    /// The rows of `W` each perspective read (side to move's first).
    rows: [Rows; 2],
    /// Accumulators, side to move's then the other's (`2·half`).
    acc: Vec<f32>,
    /// `clamp(acc, 0, 1)`.
    x: Vec<f32>,
    z1: Vec<f32>,
    a1: Vec<f32>,
    z2: Vec<f32>,
    a2: Vec<f32>,
    dz1: Vec<f32>,
    dz2: Vec<f32>,
    dacc: Vec<f32>,
}

#[inline(always)]
fn clip01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// `dst += a · src`.
#[inline(always)]
fn axpy(dst: &mut [f32], a: f32, src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += a * s;
    }
}

/// `Σ a_i b_i`, in eight independent lanes (so that it vectorises; the
/// order is fixed, so the result is deterministic).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut s = lanes.iter().sum::<f32>();
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

impl Scratch {
    /// Scratch for `arch`.
    pub fn new(arch: Arch) -> Scratch {
        let v = |n: usize| vec![0.0f32; n];
        Scratch {
            rows: [Rows::new(), Rows::new()],
            acc: v(2 * arch.half),
            x: v(2 * arch.half),
            z1: v(arch.l1),
            a1: v(arch.l1),
            z2: v(arch.l2),
            a2: v(arch.l2),
            dz1: v(arch.l1),
            dz2: v(arch.l2),
            dacc: v(2 * arch.half),
        }
    }

    /// The logit of a sample (both perspectives' entries, side to move
    /// first), leaving every activation in `self`.
    pub fn forward(&mut self, net: &HalfKpNet, stm: &[u16], other: &[u16]) -> f32 {
        let l = net.layout();
        let h = l.half;
        let d = net.forward_dense();
        self.rows = [net.rows(stm, other), net.rows(other, stm)];
        net.accumulate(&self.rows[0], &mut self.acc[..h]);
        net.accumulate(&self.rows[1], &mut self.acc[h..]);
        for (x, a) in self.x.iter_mut().zip(&self.acc) {
            *x = clip01(*a);
        }
        let w1 = &d[l.l1_weights()..l.l1_bias()];
        self.z1.copy_from_slice(&d[l.l1_bias()..l.l2_weights()]);
        for (j, &x) in self.x.iter().enumerate() {
            if x != 0.0 {
                axpy(&mut self.z1, x, &w1[j * l.l1..(j + 1) * l.l1]);
            }
        }
        for (a, z) in self.a1.iter_mut().zip(&self.z1) {
            *a = clip01(*z);
        }
        let w2 = &d[l.l2_weights()..l.l2_bias()];
        self.z2.copy_from_slice(&d[l.l2_bias()..l.out_weights()]);
        for (k, &a) in self.a1.iter().enumerate() {
            if a != 0.0 {
                axpy(&mut self.z2, a, &w2[k * l.l2..(k + 1) * l.l2]);
            }
        }
        for (a, z) in self.a2.iter_mut().zip(&self.z2) {
            *a = clip01(*z);
        }
        d[l.out_bias()] + dot(&self.a2, &d[l.out_weights()..l.out_bias()])
    }

    /// The hidden layers' pre-activations of the last `forward`.
    pub fn pre_activations(&self) -> (&[f32], &[f32]) {
        (&self.z1, &self.z2)
    }
}

/// One thread's gradient of `W`, only for the rows touched in a batch.
pub struct TableGrad {
    half: usize,
    /// Per row of `W`: its index in `rows`, or `NONE`.
    slot: Vec<u32>,
    /// Touched rows in order of first touch.
    rows: Vec<u32>,
    /// Their gradients, `half` each, in the order of `rows`.
    grad: Vec<f32>,
}

const NONE: u32 = u32::MAX;

impl TableGrad {
    /// An empty gradient for the table of `arch`.
    pub fn new(arch: Arch) -> TableGrad {
        TableGrad {
            half: arch.half,
            slot: vec![NONE; arch.features.dimensions()],
            rows: Vec::new(),
            grad: Vec::new(),
        }
    }

    /// The gradient row of `W` row `r`, made (zero) on first touch.
    #[inline(always)]
    fn row_mut(&mut self, r: usize) -> &mut [f32] {
        let h = self.half;
        let mut s = self.slot[r];
        if s == NONE {
            s = self.rows.len() as u32;
            self.slot[r] = s;
            self.rows.push(r as u32);
            self.grad.resize(self.grad.len() + h, 0.0);
        }
        let at = s as usize * h;
        &mut self.grad[at..at + h]
    }

    /// The gradient of row `r`, if touched.
    #[inline(always)]
    pub fn get(&self, r: usize) -> Option<&[f32]> {
        let s = self.slot[r];
        (s != NONE).then(|| &self.grad[s as usize * self.half..(s as usize + 1) * self.half])
    }

    /// Rows touched, in order of first touch.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Forgets every touched row (cost: the touched rows only).
    pub fn clear(&mut self) {
        for &r in &self.rows {
            self.slot[r as usize] = NONE;
        }
        self.rows.clear();
        self.grad.clear();
    }
}

/// Room for a mirrored sample's two perspectives.
type MirrorBuf = [[u16; ENTRIES]; 2];

/// Sample `i` of `data`, mirrored into `buf` when `i` carries `MIRROR`.
fn sample<'a>(data: &'a Dataset, i: u32, buf: &'a mut MirrorBuf) -> Sample<'a> {
    let s = data.get((i & !MIRROR) as usize);
    if i & MIRROR == 0 {
        return s;
    }
    let [b0, b1] = buf;
    for (src, dst) in [(s.stm, &mut *b0), (s.other, &mut *b1)] {
        for (k, (d, &e)) in dst.iter_mut().zip(src).enumerate() {
            *d = mirror_entry(e, k == 0);
        }
    }
    Sample {
        stm: &b0[..s.stm.len()],
        other: &b1[..s.other.len()],
        ..s
    }
}

/// Adds `scale ·` the gradient of the loss summed over samples `indices`
/// to `dense` (layout `DenseLayout`; its `P` part is left to
/// `add_factor_gradient`) and to `table`; returns the summed loss.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn accumulate_gradient(
    net: &HalfKpNet,
    obj: &Objective,
    data: &Dataset,
    indices: &[u32],
    scale: f32,
    sc: &mut Scratch,
    dense: &mut [f32],
    table: &mut TableGrad,
) -> f64 {
    let l = net.layout();
    let (h, l1, l2) = (l.half, l.l1, l.l2);
    // Quantisation-aware, the gradient is that of the rounded weights,
    // applied to the float ones (straight-through).
    let d = net.forward_dense();
    let w1 = &d[l.l1_weights()..l.l1_bias()];
    let w2 = &d[l.l2_weights()..l.l2_bias()];
    let w3 = &d[l.out_weights()..l.out_bias()];
    let mut total = 0.0f64;
    let mut buf: MirrorBuf = [[0; ENTRIES]; 2];
    for &i in indices {
        let s = sample(data, i, &mut buf);
        let y = sc.forward(net, s.stm, s.other);
        let (loss, slope) = obj.loss_and_slope(obj.logit(y, &s), obj.target(&s));
        total += loss;
        let g = slope * scale;
        if g == 0.0 {
            continue;
        }
        // Output layer.
        dense[l.out_bias()] += g;
        axpy(&mut dense[l.out_weights()..l.out_bias()], g, &sc.a2);
        let mut any = false;
        for ((dz, &z), &w) in sc.dz2.iter_mut().zip(&sc.z2).zip(w3) {
            *dz = if z > 0.0 && z < 1.0 { g * w } else { 0.0 };
            any |= *dz != 0.0;
        }
        if !any {
            continue;
        }
        // Second hidden layer.
        for (b, dz) in dense[l.l2_bias()..l.out_weights()].iter_mut().zip(&sc.dz2) {
            *b += dz;
        }
        let gw2 = &mut dense[l.l2_weights()..l.l2_bias()];
        any = false;
        for k in 0..l1 {
            let a = sc.a1[k];
            if a != 0.0 {
                axpy(&mut gw2[k * l2..(k + 1) * l2], a, &sc.dz2);
            }
            let z = sc.z1[k];
            sc.dz1[k] = if z > 0.0 && z < 1.0 {
                dot(&w2[k * l2..(k + 1) * l2], &sc.dz2)
            } else {
                0.0
            };
            any |= sc.dz1[k] != 0.0;
        }
        if !any {
            continue;
        }
        // First hidden layer.
        for (b, dz) in dense[l.l1_bias()..l.l2_weights()].iter_mut().zip(&sc.dz1) {
            *b += dz;
        }
        let gw1 = &mut dense[l.l1_weights()..l.l1_bias()];
        for j in 0..2 * h {
            let x = sc.x[j];
            if x != 0.0 {
                axpy(&mut gw1[j * l1..(j + 1) * l1], x, &sc.dz1);
            }
            let a = sc.acc[j];
            sc.dacc[j] = if a > 0.0 && a < 1.0 {
                dot(&w1[j * l1..(j + 1) * l1], &sc.dz1)
            } else {
                0.0
            };
        }
        // Transformer: bias, then the touched rows of `W` (and, through
        // them, `P`).
        for (u, b) in dense[..h].iter_mut().enumerate() {
            *b += sc.dacc[u] + sc.dacc[h + u];
        }
        for (half, rows) in sc.rows.iter().enumerate() {
            let delta = &sc.dacc[half * h..(half + 1) * h];
            if delta.iter().all(|&v| v == 0.0) {
                continue;
            }
            for &r in rows {
                let row = table.row_mut(r as usize);
                for (r, dv) in row.iter_mut().zip(delta) {
                    *r += dv;
                }
            }
        }
    }
    total
}

/// The BonaPiece of `W` row `r`.
#[inline(always)]
pub fn bona_piece_of_row(r: usize) -> usize {
    r % FE_END
}

/// Adds to `factor` (the `P` part of a dense gradient: `FE_END` rows of
/// `half`) the gradient `g` of `W` row `r`: `P[bp]` is in every feature
/// `(king, bp)`, so its gradient is the sum of theirs.
#[inline(always)]
pub fn add_factor_gradient(factor: &mut [f32], half: usize, r: usize, g: &[f32]) {
    let bp = bona_piece_of_row(r);
    for (p, v) in factor[bp * half..(bp + 1) * half].iter_mut().zip(g) {
        *p += v;
    }
}

/// The whole gradient as two dense vectors (`W`'s, then the dense
/// parameters' with `P` included), for tests: one thread, no batching.
pub fn full_gradient(
    net: &HalfKpNet,
    obj: &Objective,
    data: &Dataset,
    indices: &[u32],
) -> (Vec<f32>, Vec<f32>) {
    let l: DenseLayout = net.layout();
    let mut dense = vec![0.0f32; l.len()];
    let mut table = TableGrad::new(net.arch);
    let mut sc = Scratch::new(net.arch);
    accumulate_gradient(
        net, obj, data, indices, 1.0, &mut sc, &mut dense, &mut table,
    );
    let mut full = vec![0.0f32; net.table.len()];
    let h = l.half;
    for &r in table.rows() {
        let g = table.get(r as usize).unwrap();
        full[r as usize * h..(r as usize + 1) * h].copy_from_slice(g);
        if net.factorised() {
            add_factor_gradient(&mut dense[l.factor()..l.l1_weights()], h, r as usize, g);
        }
    }
    (full, dense)
}

/// Summed loss over samples `indices`, without gradient.
pub fn loss_sum(net: &HalfKpNet, obj: &Objective, data: &Dataset, indices: &[u32]) -> f64 {
    let mut sc = Scratch::new(net.arch);
    let mut buf: MirrorBuf = [[0; ENTRIES]; 2];
    indices
        .iter()
        .map(|&i| {
            let s = sample(data, i, &mut buf);
            let y = sc.forward(net, s.stm, s.other);
            obj.loss_and_slope(obj.logit(y, &s), obj.target(&s)).0
        })
        .sum()
}
