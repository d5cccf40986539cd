//! The training loop: shuffled minibatches, the gradient of each batch
//! split over threads, Adam, weight clipping, a held-out validation set.
//!
//! Determinism: for a given seed and thread count the run is bit-for-bit
//! reproducible. Each thread sums the gradient of a fixed contiguous part
//! of the batch into its own dense buffer; the buffers are then added in
//! thread order, element by element, so no sum depends on timing.

use crate::dataset::Dataset;
use crate::gradient::{
    accumulate_gradient, loss_sum, sum_factor_gradient, Objective, Scratch, MIRROR,
};
use crate::network::{Layout, Network};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use ryuo::nnue::features::InputFeatures;
use std::time::Instant;

/// Hyper-parameters of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Target and loss.
    pub objective: Objective,
    /// Epochs to reach (counting those of a resumed checkpoint).
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch_size: usize,
    /// Adam learning rate at the start.
    pub lr: f32,
    /// Multiply the learning rate by `lr_gamma` every this many epochs
    /// (0: never).
    pub lr_drop_epoch: usize,
    /// Factor of each learning-rate drop.
    pub lr_gamma: f32,
    /// Worker threads.
    pub threads: usize,
    /// Seed of the validation split and of the shuffles.
    pub seed: u64,
    /// Share of the samples held out for validation.
    pub val_fraction: f64,
    /// Samples held out together: runs of this many consecutive samples
    /// go to validation or training as a whole (`split_in_blocks`).
    pub val_block: usize,
    /// King buckets: decoupled weight decay of the bucket rows (each step
    /// multiplies them by `1 − lr · bucket_decay`), pulling every bucket
    /// towards the shared rows unless the data keeps it apart.
    pub bucket_decay: f32,
    /// Also train on each training sample's left-right mirror image (the
    /// rules are symmetric under it: twice the data for free).
    pub mirror: bool,
}

impl TrainConfig {
    /// The learning rate during epoch `epoch` (0-based).
    pub fn lr_at(&self, epoch: usize) -> f32 {
        match self.lr_drop_epoch {
            0 => self.lr,
            n => self.lr * self.lr_gamma.powi((epoch / n) as i32),
        }
    }
}

/// Adam (β1 0.9, β2 0.999, ε 1e-8) over the flat parameter vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// First moments.
    pub m: Vec<f32>,
    /// Second moments.
    pub v: Vec<f32>,
    /// Steps taken.
    pub t: u64,
}

/// Adam's β1.
pub const BETA1: f32 = 0.9;
/// Adam's β2.
pub const BETA2: f32 = 0.999;
/// Adam's ε.
pub const EPSILON: f32 = 1e-8;

impl Adam {
    /// Fresh moments for `len` parameters.
    pub fn new(len: usize) -> Adam {
        Adam {
            m: vec![0.0; len],
            v: vec![0.0; len],
            t: 0,
        }
    }
}

/// A network with its optimiser state and the epochs already trained.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainState {
    /// The network.
    pub net: Network,
    /// Adam's moments.
    pub adam: Adam,
    /// Epochs completed.
    pub epoch: usize,
}

impl TrainState {
    /// A fresh network of width `hidden` initialised from `seed`.
    pub fn new(hidden: usize, seed: u64) -> TrainState {
        TrainState::new_of(InputFeatures::PieceSquare, hidden, seed)
    }

    /// A fresh network of feature set `features` and width `hidden`.
    pub fn new_of(features: InputFeatures, hidden: usize, seed: u64) -> TrainState {
        let net = Network::new_of(features, hidden, seed);
        let adam = Adam::new(net.params.len());
        TrainState {
            net,
            adam,
            epoch: 0,
        }
    }
}

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training loss over the epoch (measured before each step).
    pub train_loss: f64,
    /// Mean validation loss after the epoch (none without validation set).
    pub val_loss: Option<f64>,
    /// Learning rate used.
    pub lr: f32,
    /// Seconds since training started.
    pub elapsed: f64,
    /// Training samples per second in this epoch.
    pub samples_per_sec: f64,
}

/// Where a run stands after a batch (for progress displays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchProgress {
    /// The epoch under way, 1-based.
    pub epoch: usize,
    /// The epoch the run ends with.
    pub epochs: usize,
    /// Batches of this epoch done.
    pub batch: usize,
    /// Batches in an epoch.
    pub batches: usize,
    /// Training samples of this epoch done.
    pub done: usize,
    /// Training samples in an epoch (mirror images included).
    pub samples: usize,
}

impl BatchProgress {
    /// After `batch` batches of `epoch` (0-based), `done` samples.
    pub(crate) fn after(
        config: &TrainConfig,
        epoch: usize,
        batch: usize,
        done: usize,
        samples: usize,
    ) -> BatchProgress {
        BatchProgress {
            epoch: epoch + 1,
            epochs: config.epochs,
            batch,
            batches: samples.div_ceil(config.batch_size.max(1)),
            done,
            samples,
        }
    }
}

/// The validation and training indices of `n` samples.
pub fn split(n: usize, val_fraction: f64, seed: u64) -> (Vec<u32>, Vec<u32>) {
    split_in_blocks(n, val_fraction, seed, 1)
}

/// The validation and training indices of `n` samples, holding out whole
/// runs of `block` consecutive samples. Gensfen files keep a game's
/// positions together, and positions of one game are near copies of each
/// other: held out one by one, the validation set shares its games with
/// the training set and rewards a network that memorises games. Blocks of
/// a few games' length give a validation loss of games not trained on.
/// `block` 1 is the plain split.
pub fn split_in_blocks(
    n: usize,
    val_fraction: f64,
    seed: u64,
    block: usize,
) -> (Vec<u32>, Vec<u32>) {
    assert!(n <= u32::MAX as usize, "too many samples");
    let block = block.max(1);
    let mut blocks: Vec<u32> = (0..n.div_ceil(block) as u32).collect();
    blocks.shuffle(&mut StdRng::seed_from_u64(seed ^ 0x5EED_5A1D));
    let n_val = ((n as f64) * val_fraction.clamp(0.0, 1.0)).round() as usize;
    // Whole blocks go to validation until it holds `n_val` samples (the
    // last one taken may overshoot by part of a block).
    let (mut val, mut train) = (Vec::with_capacity(n_val), Vec::with_capacity(n));
    for b in blocks {
        let start = b as usize * block;
        let side = if val.len() < n_val {
            &mut val
        } else {
            &mut train
        };
        side.extend(start as u32..(start + block).min(n) as u32);
    }
    (val, train)
}

/// Splits `items` into `parts` contiguous pieces as equal as possible.
pub(crate) fn pieces<T>(items: &[T], parts: usize) -> impl Iterator<Item = &[T]> {
    let per = items.len().div_ceil(parts.max(1)).max(1);
    items.chunks(per)
}

/// Puts the training indices in the order of epoch `epoch` (0-based). The
/// order depends only on the seed and the epoch number, so a resumed run
/// shuffles as an uninterrupted one would.
pub(crate) fn epoch_order(train_idx: &mut [u32], seed: u64, epoch: usize) {
    train_idx.sort_unstable();
    let salt = (epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    train_idx.shuffle(&mut StdRng::seed_from_u64(seed ^ salt));
}

/// Mean loss of `net` over samples `indices`, on `threads` threads.
pub fn mean_loss(
    net: &Network,
    obj: &Objective,
    data: &Dataset,
    indices: &[u32],
    threads: usize,
) -> f64 {
    parallel_mean(indices, threads, |part| loss_sum(net, obj, data, part))
}

/// The mean over `indices` of a per-sample quantity whose sum over a part
/// of them `part_sum` gives, the parts summed on `threads` threads.
pub(crate) fn parallel_mean(
    indices: &[u32],
    threads: usize,
    part_sum: impl Fn(&[u32]) -> f64 + Sync,
) -> f64 {
    if indices.is_empty() {
        return 0.0;
    }
    let part_sum = &part_sum;
    let sums: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = pieces(indices, threads)
            .map(|part| s.spawn(move || part_sum(part)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    sums.iter().sum::<f64>() / indices.len() as f64
}

/// Per-thread buffers reused across steps.
struct Workers {
    grads: Vec<Vec<f32>>,
    scratch: Vec<Scratch>,
    /// A factorised network's rows folded (`Network::fold_into`), read by
    /// every thread's forward pass; empty otherwise.
    folded: Vec<f32>,
}

/// One Adam step on the batch `batch`; returns the batch's summed loss.
fn step(
    state: &mut TrainState,
    obj: &Objective,
    data: &Dataset,
    batch: &[u32],
    lr: f32,
    bucket_decay: f32,
    workers: &mut Workers,
) -> f64 {
    let threads = workers.grads.len();
    let scale = 1.0 / batch.len() as f32;
    state.net.fold_into(&mut workers.folded);
    let net = &state.net;
    let folded = &workers.folded[..];
    // 1. Gradients, one dense buffer per thread.
    let losses: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = pieces(batch, threads)
            .zip(workers.grads.iter_mut().zip(workers.scratch.iter_mut()))
            .map(|(part, (grad, scratch))| {
                s.spawn(move || {
                    grad.fill(0.0);
                    let loss =
                        accumulate_gradient(net, obj, data, part, scale, scratch, grad, folded);
                    if !folded.is_empty() {
                        sum_factor_gradient(net, grad);
                    }
                    loss
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let used = losses.len();
    // 2. Sum the buffers in thread order and apply Adam, in parallel over
    //    parameter ranges (element-wise, so the result is the same).
    state.adam.t += 1;
    let t = state.adam.t as i32;
    let (c1, c2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
    let segments = segments(state.net.layout(), 1.0 - lr * bucket_decay);
    let segments = &segments;
    let adam = &AdamStep { lr, c1, c2 };
    let len = state.net.params.len();
    let per = len.div_ceil(threads);
    let grads = &workers.grads[..used];
    std::thread::scope(|s| {
        let params = state.net.params.chunks_mut(per);
        let ms = state.adam.m.chunks_mut(per);
        let vs = state.adam.v.chunks_mut(per);
        for (k, ((p, m), v)) in params.zip(ms).zip(vs).enumerate() {
            s.spawn(move || {
                let base = k * per;
                for seg in segments {
                    let lo = seg.range.start.max(base);
                    let hi = seg.range.end.min(base + p.len());
                    if lo >= hi {
                        continue;
                    }
                    let local = lo - base..hi - base;
                    adam.apply(
                        seg,
                        &mut p[local.clone()],
                        &mut m[local.clone()],
                        &mut v[local],
                        grads,
                        lo,
                    );
                }
            });
        }
    });
    losses.iter().sum()
}

/// Parameters that share one clipping bound and one decay factor.
struct Segment {
    range: std::ops::Range<usize>,
    lim: f32,
    keep: f32,
}

/// The layout cut into `Segment`s: the hidden biases, the bucket rows (the
/// only ones that decay, by `keep` a step), the other feature rows, the
/// output weights and the output bias.
fn segments(layout: Layout, keep: f32) -> [Segment; 5] {
    let ft = layout.ft_weights();
    let buckets_end = if layout.factorised() {
        ft + layout.features.rows() * layout.hidden
    } else {
        ft
    };
    let seg = |range: std::ops::Range<usize>, keep| Segment {
        lim: layout.limit(range.start),
        range,
        keep,
    };
    [
        seg(0..ft, 1.0),
        seg(ft..buckets_end, keep),
        seg(buckets_end..layout.out_weights(), 1.0),
        seg(layout.out_weights()..layout.out_bias(), 1.0),
        seg(layout.out_bias()..layout.len(), 1.0),
    ]
}

/// The constants of one Adam step: the rate and the bias corrections.
struct AdamStep {
    lr: f32,
    c1: f32,
    c2: f32,
}

impl AdamStep {
    /// Updates `p` (parameters `at..` of the layout, inside `seg`) and its
    /// moments from the gradient buffers summed in order. In tiles with constants only,
    /// so that the compiler vectorises it: element by element, with a
    /// branch per parameter, it took about a fifth of a king-bucket run's
    /// time (6 M parameters a step; 10 % now, by `perf`).
    #[inline(never)]
    fn apply(
        &self,
        seg: &Segment,
        p: &mut [f32],
        m: &mut [f32],
        v: &mut [f32],
        grads: &[Vec<f32>],
        at: usize,
    ) {
        let (lim, keep) = (seg.lim, seg.keep);
        const TILE: usize = 256;
        let mut tile = [0.0f32; TILE];
        let mut start = 0;
        while start < p.len() {
            let n = TILE.min(p.len() - start);
            let g = &mut tile[..n];
            g.fill(0.0);
            for buf in grads {
                for (a, b) in g.iter_mut().zip(&buf[at + start..at + start + n]) {
                    *a += b;
                }
            }
            let range = start..start + n;
            for (((p, m), v), &g) in p[range.clone()]
                .iter_mut()
                .zip(&mut m[range.clone()])
                .zip(&mut v[range])
                .zip(g.iter())
            {
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                let update = self.lr * (*m / self.c1) / ((*v / self.c2).sqrt() + EPSILON);
                *p = (*p * keep - update).clamp(-lim, lim);
            }
            start += n;
        }
    }
}

/// Trains `state` on `data` until `config.epochs` epochs are done, calling
/// `on_epoch` after each (to print, checkpoint, export).
pub fn train(
    state: &mut TrainState,
    data: &Dataset,
    config: &TrainConfig,
    on_epoch: impl FnMut(&TrainState, &EpochReport),
) {
    train_with_progress(state, data, config, |_| {}, on_epoch);
}

/// `train`, calling `on_batch` after every batch too.
pub fn train_with_progress(
    state: &mut TrainState,
    data: &Dataset,
    config: &TrainConfig,
    mut on_batch: impl FnMut(&BatchProgress),
    mut on_epoch: impl FnMut(&TrainState, &EpochReport),
) {
    let threads = config.threads.max(1);
    let (val, mut train_idx) = split_in_blocks(
        data.len(),
        config.val_fraction,
        config.seed,
        config.val_block,
    );
    if config.mirror {
        assert!(data.len() < MIRROR as usize, "too many samples to mirror");
        let originals = train_idx.clone();
        train_idx.extend(originals.iter().map(|&i| i | MIRROR));
    }
    let mut workers = Workers {
        grads: (0..threads)
            .map(|_| vec![0.0; state.net.params.len()])
            .collect(),
        scratch: (0..threads)
            .map(|_| Scratch::new(state.net.hidden))
            .collect(),
        folded: Vec::new(),
    };
    let obj = &config.objective;
    let start = Instant::now();
    while state.epoch < config.epochs {
        let epoch = state.epoch;
        let lr = config.lr_at(epoch);
        epoch_order(&mut train_idx, config.seed, epoch);
        let epoch_start = Instant::now();
        let mut total = 0.0;
        let mut done = 0;
        for (i, batch) in train_idx.chunks(config.batch_size.max(1)).enumerate() {
            total += step(
                state,
                obj,
                data,
                batch,
                lr,
                config.bucket_decay,
                &mut workers,
            );
            done += batch.len();
            on_batch(&BatchProgress::after(
                config,
                epoch,
                i + 1,
                done,
                train_idx.len(),
            ));
        }
        let secs = epoch_start.elapsed().as_secs_f64();
        state.epoch += 1;
        let report = EpochReport {
            epoch: state.epoch,
            train_loss: total / train_idx.len().max(1) as f64,
            val_loss: (!val.is_empty()).then(|| mean_loss(&state.net, obj, data, &val, threads)),
            lr,
            elapsed: start.elapsed().as_secs_f64(),
            samples_per_sec: train_idx.len() as f64 / secs.max(1e-9),
        };
        on_epoch(state, &report);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_a_partition() {
        let (val, train) = split(1000, 0.1, 3);
        assert_eq!(val.len(), 100);
        let mut all: Vec<u32> = val.iter().chain(&train).copied().collect();
        all.sort();
        assert_eq!(all, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn block_split_holds_out_whole_runs() {
        assert_eq!(split(1000, 0.1, 3), split_in_blocks(1000, 0.1, 3, 1));
        let (val, train) = split_in_blocks(1005, 0.1, 3, 50);
        assert_eq!(val.len() + train.len(), 1005);
        assert!((100..=150).contains(&val.len()), "{}", val.len());
        let mut all: Vec<u32> = val.iter().chain(&train).copied().collect();
        all.sort();
        assert_eq!(all, (0..1005).collect::<Vec<u32>>());
        // No block is cut between the two sides.
        let held: std::collections::HashSet<u32> = val.iter().map(|i| i / 50).collect();
        assert!(train.iter().all(|i| !held.contains(&(i / 50))));
    }

    #[test]
    fn learning_rate_drops_in_steps() {
        let c = TrainConfig {
            objective: Objective {
                lambda: 1.0,
                loss: Default::default(),
                residual: false,
            },
            epochs: 1,
            batch_size: 1,
            lr: 1.0,
            lr_drop_epoch: 2,
            lr_gamma: 0.5,
            threads: 1,
            seed: 0,
            val_fraction: 0.0,
            val_block: 1,
            bucket_decay: 0.0,
            mirror: false,
        };
        let lrs: Vec<f32> = (0..5).map(|e| c.lr_at(e)).collect();
        assert_eq!(lrs, [1.0, 1.0, 0.5, 0.5, 0.25]);
    }
}
