//! The king-bucketed network (`--arch ryuo-kb`): factorised training, the
//! export that folds the factor into every bucket, and the engine reading
//! that file exactly as the trainer computes it.

mod common;

use common::test_positions;
use rand::{Rng, SeedableRng};
use ryuo::nnue::features::{InputFeatures, NUM_FEATURES};
use ryuo_train::dataset::Encoding;
use ryuo_train::gradient::{accumulate_gradient, sum_factor_gradient, Loss, Objective, Scratch};
use ryuo_train::network::Network;
use ryuo_train::quantise::QuantisedNet;
use ryuo_train::selfplay::random_play_encoded;
use ryuo_train::train::{train, TrainConfig, TrainState};

const KB: InputFeatures = InputFeatures::KingBuckets;

fn config(epochs: usize) -> TrainConfig {
    TrainConfig {
        mirror: true,
        ..common::small_config(epochs, 2, 3e-3)
    }
}

/// Bucket rows start at zero and the factor rows as a plain network's
/// rows (same seed, same draws): before training, the two are one network.
#[test]
fn a_fresh_king_bucket_network_is_the_plain_network() {
    let plain = Network::new(32, 4);
    let kb = Network::new_of(KB, 32, 4);
    for pos in test_positions(50) {
        assert_eq!(plain.evaluate(&pos), kb.evaluate(&pos), "{}", pos.to_sfen());
    }
}

/// Training lowers the loss, moves the bucket rows off zero, and the
/// exported file (factor folded in) evaluates in the engine exactly as the
/// trainer's integer model, incrementally along games too.
#[test]
fn a_trained_king_bucket_network_exports_what_the_engine_reads() {
    let data = random_play_encoded(3000, 8, Encoding::RyuoKingBuckets);
    let mut state = TrainState::new_of(KB, 32, 11);
    let mut val = Vec::new();
    train(&mut state, &data, &config(3), |_, r| {
        val.push(r.val_loss.unwrap())
    });
    assert!(val[2] < val[0], "validation loss {val:?}");
    let l = state.net.layout();
    let bucket_rows = &state.net.params[l.ft_weights()..l.ft_weights() + KB.rows() * 32];
    assert!(bucket_rows.iter().any(|&w| w != 0.0));
    // A checkpoint keeps the feature set.
    let path = std::env::temp_dir().join(format!("ryuo-kb-{}.ckpt", std::process::id()));
    ryuo_train::checkpoint::save(&state, &path).unwrap();
    let back = ryuo_train::checkpoint::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back, state);

    let q = QuantisedNet::from_float(&state.net);
    let mut bytes = Vec::new();
    q.write(&mut bytes).unwrap();
    let engine = std::sync::Arc::new(ryuo::nnue::Network::from_bytes(&bytes).unwrap());
    assert_eq!(engine.features(), KB);
    let mut acc = ryuo::nnue::Accumulators::new();
    let mut gap = 0.0;
    let all = test_positions(300);
    for pos in &all {
        let exact = q.evaluate(pos);
        assert_eq!(ryuo::nnue::evaluate_from_scratch(&engine, pos), exact);
        assert_eq!(acc.evaluate(&engine, pos), exact, "{}", pos.to_sfen());
        gap += (exact as f32 - state.net.evaluate(pos)).abs();
    }
    let mean = gap / all.len() as f32;
    assert!(mean < 5.0, "quantised vs float: mean {mean} cp");
}

/// A fresh king-bucket network of width `h` (seed `seed`) whose bucket rows
/// are small random values (seed `rows_seed`) instead of zero, so that
/// the bucket and factor rows differ.
fn with_random_buckets(h: usize, seed: u64, rows_seed: u64) -> Network {
    let mut net = Network::new_of(KB, h, seed);
    let l = net.layout();
    let mut rng = rand::rngs::StdRng::seed_from_u64(rows_seed);
    for w in &mut net.params[l.ft_weights()..l.ft_weights() + KB.rows() * h] {
        *w = rng.gen_range(-0.05..0.05);
    }
    net
}

/// The gradient of bucket rows and factor rows alike matches finite
/// differences (bucket rows made non-zero first).
#[test]
fn king_bucket_gradient_matches_finite_differences() {
    let data = random_play_encoded(6, 5, Encoding::RyuoKingBuckets);
    let indices: Vec<u32> = (0..data.len() as u32).collect();
    let obj = Objective {
        lambda: 0.5,
        loss: Loss::Mse,
        residual: false,
    };
    let h = 32;
    let mut net = with_random_buckets(h, 6, 3);
    let l = net.layout();
    for w in &mut net.params[l.out_weights()..l.out_bias()] {
        *w *= 4.0;
    }
    let mut grad = vec![0.0f32; net.params.len()];
    let mut scratch = Scratch::new(h);
    accumulate_gradient(
        &net,
        &obj,
        &data,
        &indices,
        1.0,
        &mut scratch,
        &mut grad,
        &[],
    );
    let factor_start = l.ft_weights() + KB.rows() * h;
    let nonzero: Vec<usize> = (0..net.params.len()).filter(|&i| grad[i] != 0.0).collect();
    let in_factor = nonzero
        .iter()
        .filter(|&&i| (factor_start..factor_start + NUM_FEATURES * h).contains(&i))
        .count();
    let in_buckets = nonzero
        .iter()
        .filter(|&&i| (l.ft_weights()..factor_start).contains(&i))
        .count();
    assert!(
        in_factor > 50 && in_buckets > 50,
        "{in_factor} {in_buckets}"
    );
    // Units near a kink of the clipped ReLU have no usable difference.
    let near_kink = common::units_near_a_kink(&net, &data);
    let mut checked = 0;
    for &i in nonzero.iter().step_by(7) {
        if i < l.out_weights() && near_kink[i % h] {
            continue;
        }
        common::assert_matches_finite_difference(&mut net, &obj, &data, &indices, i, grad[i]);
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
}

/// The trainer's fast path (folded rows forward, gradient into the bucket
/// rows, factor rows' gradient summed from them once) gives the gradient
/// of the plain path (bucket row and factor row per feature and sample).
#[test]
fn folded_gradient_equals_the_per_sample_factor_gradient() {
    let data = random_play_encoded(40, 7, Encoding::RyuoKingBuckets);
    let indices: Vec<u32> = (0..data.len() as u32).collect();
    let obj = Objective {
        lambda: 0.7,
        loss: Loss::Mse,
        residual: false,
    };
    let h = 32;
    let net = with_random_buckets(h, 8, 5);
    let l = net.layout();
    let mut scratch = Scratch::new(h);
    let mut plain = vec![0.0f32; net.params.len()];
    let loss_plain = accumulate_gradient(
        &net,
        &obj,
        &data,
        &indices,
        0.5,
        &mut scratch,
        &mut plain,
        &[],
    );
    let mut folded_rows = Vec::new();
    net.fold_into(&mut folded_rows);
    assert_eq!(folded_rows.len(), KB.rows() * h);
    let mut fast = vec![0.0f32; net.params.len()];
    let loss_fast = accumulate_gradient(
        &net,
        &obj,
        &data,
        &indices,
        0.5,
        &mut scratch,
        &mut fast,
        &folded_rows,
    );
    sum_factor_gradient(&net, &mut fast);
    assert!(
        (loss_plain - loss_fast).abs() <= 1e-6 * loss_plain,
        "{loss_plain} {loss_fast}"
    );
    let factor_start = l.ft_weights() + KB.rows() * h;
    let factor_nonzero = plain[factor_start..l.out_weights()]
        .iter()
        .filter(|&&g| g != 0.0)
        .count();
    assert!(factor_nonzero > 100, "{factor_nonzero}");
    for (i, (a, b)) in plain.iter().zip(&fast).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 + 1e-4 * a.abs(),
            "parameter {i}: {a} against {b}"
        );
    }
}

/// `bucket_decay` pulls the bucket rows towards zero (the shared rows):
/// the same run with it ends with smaller bucket rows.
#[test]
fn bucket_decay_shrinks_the_bucket_rows() {
    let data = random_play_encoded(1500, 9, Encoding::RyuoKingBuckets);
    let norm = |decay: f32| {
        let mut state = TrainState::new_of(KB, 16, 11);
        let cfg = TrainConfig {
            bucket_decay: decay,
            ..config(2)
        };
        train(&mut state, &data, &cfg, |_, _| {});
        let l = state.net.layout();
        state.net.params[l.ft_weights()..l.ft_weights() + KB.rows() * 16]
            .iter()
            .map(|w| (w * w) as f64)
            .sum::<f64>()
    };
    let (plain, decayed) = (norm(0.0), norm(100.0));
    assert!(decayed < 0.5 * plain, "{decayed} against {plain}");
}
