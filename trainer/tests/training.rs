//! End-to-end tests of the trainer on positions from random games labelled
//! by the hand-written evaluation. Small data and narrow networks: the
//! whole file runs in a few seconds in release.

mod common;

use common::test_positions;
use ryuo::nnue::features::NUM_FEATURES;
use ryuo::nnue::{FEATURE_SET_ID, FORMAT_VERSION, MAGIC, QB};

use ryuo_train::checkpoint;
use ryuo_train::dataset::Dataset;
use ryuo_train::gradient::{accumulate_gradient, Loss, Objective, Scratch};
use ryuo_train::network::Network;
use ryuo_train::quantise::QuantisedNet;
use ryuo_train::selfplay::random_play;
use ryuo_train::train::{train, train_with_progress, BatchProgress, EpochReport};
use ryuo_train::train::{TrainConfig, TrainState};

fn config(epochs: usize, threads: usize) -> TrainConfig {
    common::small_config(epochs, threads, 3e-3)
}

/// Trains a fresh network; returns it and the epoch reports.
fn run(data: &Dataset, hidden: usize, cfg: &TrainConfig) -> (TrainState, Vec<EpochReport>) {
    let mut state = TrainState::new(hidden, cfg.seed);
    let mut reports = Vec::new();
    train(&mut state, data, cfg, |_, r| reports.push(*r));
    (state, reports)
}

#[test]
fn loss_falls_over_a_few_epochs() {
    let data = random_play(4000, 1);
    let (_, reports) = run(&data, 32, &config(5, 2));
    let val: Vec<f64> = reports.iter().map(|r| r.val_loss.unwrap()).collect();
    let train: Vec<f64> = reports.iter().map(|r| r.train_loss).collect();
    assert!(val[4] < 0.6 * val[0], "validation loss {val:?}");
    assert!(train[4] < 0.6 * train[0], "training loss {train:?}");
}

/// Progress comes after every batch and reaches each epoch's samples.
#[test]
fn progress_counts_batches_and_samples() {
    let data = random_play(1000, 4);
    let cfg = config(2, 1); // 900 training samples, batches of 256
    let mut state = TrainState::new(16, cfg.seed);
    let mut seen: Vec<BatchProgress> = Vec::new();
    train_with_progress(&mut state, &data, &cfg, |b| seen.push(*b), |_, _| {});
    assert_eq!(seen.len(), 8);
    let last = seen[3];
    assert_eq!((last.epoch, last.epochs), (1, 2));
    assert_eq!(
        (last.batch, last.batches, last.done, last.samples),
        (4, 4, 900, 900)
    );
    assert_eq!((seen[4].epoch, seen[4].batch, seen[4].done), (2, 1, 256));
}

#[test]
fn same_seed_same_weights_and_losses() {
    let data = random_play(1500, 2);
    let cfg = config(2, 2);
    let (a, ra) = run(&data, 16, &cfg);
    let (b, rb) = run(&data, 16, &cfg);
    assert_eq!(a, b);
    let losses = |r: &[EpochReport]| -> Vec<(f64, Option<f64>)> {
        r.iter().map(|r| (r.train_loss, r.val_loss)).collect()
    };
    assert_eq!(losses(&ra), losses(&rb));
    let (c, _) = run(&data, 16, &TrainConfig { seed: 12, ..cfg });
    assert_ne!(a.net, c.net);
}

#[test]
fn resuming_from_a_checkpoint_continues_the_same_run() {
    let data = random_play(1000, 3);
    let (straight, _) = run(&data, 16, &config(2, 2));
    let (first, _) = run(&data, 16, &config(1, 2));
    let path = std::env::temp_dir().join(format!("ryuo-train-{}.ckpt", std::process::id()));
    checkpoint::save(&first, &path).unwrap();
    let mut resumed = checkpoint::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(resumed, first);
    train(&mut resumed, &data, &config(2, 2), |_, _| {});
    assert_eq!(resumed, straight);
}

#[test]
fn quantised_file_round_trip() {
    let h = 32;
    let net = Network::new(h, 5);
    let q = QuantisedNet::from_float(&net);
    let mut bytes = Vec::new();
    q.write(&mut bytes).unwrap();
    assert_eq!(bytes.len(), 28 + 2 * h + 2 * h * NUM_FEATURES + 4 * h + 4);
    assert_eq!(&bytes[..8], MAGIC);
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    assert_eq!(
        [u32_at(8), u32_at(12), u32_at(16), u32_at(20), u32_at(24)],
        [FORMAT_VERSION, FEATURE_SET_ID, h as u32, 0, 0]
    );
    // Spot values at their documented offsets.
    let i16_at = |o: usize| i16::from_le_bytes([bytes[o], bytes[o + 1]]);
    assert_eq!(i16_at(28), (net.ft_bias()[0] * 255.0).round() as i16);
    let row7 = 28 + 2 * h + 2 * 7 * h;
    assert_eq!(i16_at(row7 + 2 * 3), (net.row(7)[3] * 255.0).round() as i16);
    let out = 28 + 2 * h + 2 * h * NUM_FEATURES;
    assert_eq!(
        i16_at(out + 2 * h),
        (net.out_weights()[h] * QB as f32).round() as i16
    );
    let back = QuantisedNet::read(&mut bytes.as_slice()).unwrap();
    assert_eq!(back, q);
    let hybrid = QuantisedNet {
        adds_to_classic: true,
        ..q.clone()
    };
    let mut hybrid_bytes = Vec::new();
    hybrid.write(&mut hybrid_bytes).unwrap();
    assert_eq!(
        u32_at(24) | 1,
        u32::from_le_bytes(hybrid_bytes[24..28].try_into().unwrap())
    );
    assert_eq!(
        QuantisedNet::read(&mut hybrid_bytes.as_slice()).unwrap(),
        hybrid
    );
    bytes.push(0);
    assert!(QuantisedNet::read(&mut bytes.as_slice()).is_err());
}

/// Positions from random games that the test nets did not train on.
#[test]
fn quantised_evaluation_tracks_the_float_one() {
    let data = random_play(4000, 4);
    let (state, _) = run(&data, 32, &config(4, 2));
    let net = &state.net;
    let q = QuantisedNet::from_float(net);
    // The float network with the rounded weights: the integer pipeline must
    // reproduce it to within truncation.
    let mut dequantised = net.clone();
    let l = net.layout();
    for (i, p) in dequantised.params.iter_mut().enumerate() {
        let scale = if i < l.out_weights() {
            255.0
        } else if i < l.out_bias() {
            QB as f32
        } else {
            255.0 * QB as f32
        };
        *p = (*p * scale).round() / scale;
    }
    let positions = test_positions(300);
    let mut total_err = 0.0;
    let mut worst = 0.0f32;
    for pos in &positions {
        let qe = q.evaluate(pos) as f32;
        let exact = dequantised.evaluate(pos);
        assert!((qe - exact).abs() <= 1.01, "{qe} vs {exact}");
        let err = (qe - net.evaluate(pos)).abs();
        total_err += err;
        worst = worst.max(err);
    }
    // Against the float network the error is what the format's resolution
    // allows: most of it comes from output weights rounded to 1/QB = 1/64
    // when they are of the order of 0.1 (with QB = 64 the mean was 12 cp,
    // the worst 25 cp; QB = 512 brings it to a few cp).
    let mean = total_err / positions.len() as f32;
    assert!(
        mean < 5.0 && worst < 15.0,
        "mean {mean} cp, worst {worst} cp"
    );
}

#[test]
fn engine_reads_the_file_and_evaluates_like_the_trainer() {
    let data = random_play(2000, 8);
    let (state, _) = run(&data, 32, &config(2, 2));
    // Both a plain and a hybrid (adds the hand-crafted evaluation) file.
    for adds_to_classic in [false, true] {
        let q = QuantisedNet {
            adds_to_classic,
            ..QuantisedNet::from_float(&state.net)
        };
        let mut bytes = Vec::new();
        q.write(&mut bytes).unwrap();
        let engine = std::sync::Arc::new(ryuo::nnue::Network::from_bytes(&bytes).unwrap());
        assert_eq!(engine.adds_to_classic(), adds_to_classic);
        for pos in test_positions(300) {
            assert_eq!(
                ryuo::nnue::evaluate_from_scratch(&engine, &pos),
                q.evaluate(&pos),
                "{}",
                pos.to_sfen()
            );
        }
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let data = random_play(6, 5);
    let indices: Vec<u32> = (0..data.len() as u32).collect();
    for loss in [Loss::Mse, Loss::Ce] {
        let obj = Objective {
            lambda: 0.5,
            loss,
            residual: false,
        };
        // 36 units: one register tile of 32 and a remainder of 4.
        let mut net = Network::new(36, 6);
        // Larger output weights make every gradient clearly non-zero.
        let l = net.layout();
        for w in &mut net.params[l.out_weights()..l.out_bias()] {
            *w *= 4.0;
        }
        let mut grad = vec![0.0f32; net.params.len()];
        let mut scratch = Scratch::new(net.hidden);
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
        // Every non-zero gradient entry, plus some zero ones (rows of
        // inactive features), is checked.
        let mut checked: Vec<usize> = (0..net.params.len()).filter(|&i| grad[i] != 0.0).collect();
        assert!(
            checked.len() > 100,
            "only {} non-zero entries",
            checked.len()
        );
        checked.extend([l.ft_weights() + 5, l.out_weights() - 1]);
        // Units near a kink of the clipped ReLU have no usable difference.
        let near_kink = common::units_near_a_kink(&net, &data);
        let h = net.hidden;
        let unit = |i: usize| (i < l.out_weights()).then_some(i % h);
        checked.retain(|&i| unit(i).is_none_or(|j| !near_kink[j]));
        assert!(checked.len() > 100);
        for i in checked {
            common::assert_matches_finite_difference(&mut net, &obj, &data, &indices, i, grad[i]);
        }
    }
}

#[test]
fn trains_on_the_committed_gensfen_sample() {
    use ryuo_train::psv::{load_file, LoadOptions, LoadStats};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/sample.psv");
    let opts = LoadOptions {
        threads: 2,
        ..LoadOptions::default()
    };
    let (mut data, mut stats) = (Dataset::new(), LoadStats::default());
    load_file(&path, &opts, &mut data, &mut stats).unwrap();
    assert_eq!(stats, LoadStats { kept: 5000, bad: 0 });
    let raw = std::fs::read(&path).unwrap();
    let first = ryuo::learn::PackedSfenValue::from_bytes(raw[..40].try_into().unwrap());
    assert_eq!(data.get(0).score, first.score);
    assert_eq!(data.get(0).result, first.game_result);
    let (_, reports) = run(&data, 32, &config(4, 2));
    let val: Vec<f64> = reports.iter().map(|r| r.val_loss.unwrap()).collect();
    assert!(val[3] < val[0], "validation loss {val:?}");
}
