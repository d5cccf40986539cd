//! Helpers shared by the trainer's test files.
#![allow(dead_code)]

use ryuo::position::Position;
use ryuo_train::dataset::Dataset;
use ryuo_train::gradient::{loss_sum, Loss, Objective};
use ryuo_train::network::Network;
use ryuo_train::selfplay::random_positions;
use ryuo_train::train::TrainConfig;

/// Positions from random games that the test nets did not train on.
pub fn test_positions(n: usize) -> Vec<Position> {
    let mut out = Vec::new();
    random_positions(n, 99, |p| out.push(p.clone()));
    out
}

/// Hidden units whose pre-activation lies within 2e-3 of a kink of the
/// clipped ReLU in some sample of `data`: a finite difference of step 1e-3
/// (f32 rules out a much smaller one) is no use for their first-layer
/// parameters.
pub fn units_near_a_kink(net: &Network, data: &Dataset) -> Vec<bool> {
    let h = net.hidden;
    let mut near_kink = vec![false; h];
    let mut acc = vec![0.0f32; h];
    for i in 0..data.len() {
        let s = data.get(i);
        for features in [s.stm, s.other] {
            net.accumulate(features, &mut acc);
            for (k, a) in near_kink.iter_mut().zip(&acc) {
                *k |= a.abs() < 2e-3 || (a - 1.0).abs() < 2e-3;
            }
        }
    }
    near_kink
}

/// Asserts that `analytic`, the gradient of parameter `i`, matches the
/// central finite difference of the summed loss over `indices`.
pub fn assert_matches_finite_difference(
    net: &mut Network,
    obj: &Objective,
    data: &Dataset,
    indices: &[u32],
    i: usize,
    analytic: f32,
) {
    let e = 1e-3f32;
    let kept = net.params[i];
    net.params[i] = kept + e;
    let plus = loss_sum(net, obj, data, indices);
    net.params[i] = kept - e;
    let minus = loss_sum(net, obj, data, indices);
    net.params[i] = kept;
    let numeric = (plus - minus) / (2.0 * e as f64);
    let analytic = analytic as f64;
    assert!(
        (numeric - analytic).abs() <= 2e-4 + 2e-2 * analytic.abs(),
        "{:?} parameter {i}: numeric {numeric}, analytic {analytic}",
        obj.loss
    );
}

/// A small run: batches of 256, learning rate `lr` throughout, λ 0.75,
/// 10 % held out, seed 11.
pub fn small_config(epochs: usize, threads: usize, lr: f32) -> TrainConfig {
    TrainConfig {
        objective: Objective {
            lambda: 0.75,
            loss: Loss::Mse,
            residual: false,
        },
        epochs,
        batch_size: 256,
        lr,
        lr_drop_epoch: 0,
        lr_gamma: 1.0,
        threads,
        seed: 11,
        val_fraction: 0.1,
        val_block: 1,
        bucket_decay: 0.0,
        mirror: false,
    }
}
