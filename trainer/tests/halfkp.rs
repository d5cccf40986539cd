//! End-to-end tests of HalfKP (YaneuraOu `nn.bin`) training: the export
//! loads in the engine and evaluates like the float network, training
//! lowers the loss, the factoriser is folded in, the gradient is right, runs
//! are reproducible and resumable. Each network holds 32 M weights (and
//! twice that in Adam moments): about 400 MB a test.

mod common;

use common::test_positions;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use ryuo::nnue::standard::{evaluate_from_scratch, Arch, StandardNetwork, FE_END};
use ryuo::position::Position;
use ryuo_train::dataset::{Dataset, Encoding};
use ryuo_train::gradient::{Loss, Objective};
use ryuo_train::halfkp::checkpoint;
use ryuo_train::halfkp::export::{engine_value, export, quantisation_gap, QuantisedNet};
use ryuo_train::halfkp::features::{feature_index, halfkp_features};
use ryuo_train::halfkp::gradient::{full_gradient, loss_sum};
use ryuo_train::halfkp::network::HalfKpNet;
use ryuo_train::halfkp::train::{train, HalfKpState};
use ryuo_train::selfplay::{random_play_encoded, random_positions};
use ryuo_train::train::{split, EpochReport, TrainConfig};

fn arch() -> Arch {
    Arch::by_name("halfkp_256x2-32-32").unwrap()
}

fn config(epochs: usize, threads: usize) -> TrainConfig {
    common::small_config(epochs, threads, 1e-3)
}

fn data(n: usize, seed: u64) -> Dataset {
    random_play_encoded(n, seed, Encoding::HalfKp)
}

/// Trains a fresh network, its last epoch quantisation-aware; returns it
/// and the epoch reports.
fn run(data: &Dataset, cfg: &TrainConfig) -> (HalfKpState, Vec<EpochReport>) {
    run_qat(data, cfg, 1)
}

/// Trains a fresh network, the last `qat_epochs` quantisation-aware.
fn run_qat(
    data: &Dataset,
    cfg: &TrainConfig,
    qat_epochs: usize,
) -> (HalfKpState, Vec<EpochReport>) {
    let mut state = HalfKpState::new(arch(), cfg.seed);
    let mut reports = Vec::new();
    train(&mut state, data, cfg, qat_epochs, |_, r| reports.push(*r));
    (state, reports)
}

/// Asserts that the trainer's integer model of an exported file `q` is
/// the engine's evaluation of it, exactly, on random-game positions and
/// on samples `val` of `data`; returns those samples' positions.
fn assert_the_engine_computes_the_file(
    q: &QuantisedNet,
    engine: &StandardNetwork,
    data: &Dataset,
    val: &[u32],
) -> Vec<Position> {
    let held_out: Vec<Position> = val
        .iter()
        .map(|&i| data.position(i as usize).unwrap())
        .collect();
    for pos in test_positions(300).iter().chain(&held_out) {
        let stm = pos.side_to_move();
        let (us, them) = (halfkp_features(pos, stm), halfkp_features(pos, !stm));
        assert_eq!(q.output(&us, &them), evaluate_from_scratch(engine, pos));
    }
    held_out
}

#[test]
fn export_loads_in_the_engine_and_tracks_the_float_network() {
    // Trained in plain float (`--qat-epochs 0`): the export's rounding and fit
    // do all the work.
    let data = data(4000, 1);
    let (state, _) = run_qat(&data, &config(3, 2), 0);
    let net = &state.net;
    let (_, train_idx) = split(data.len(), 0.1, 11);
    let q = export(net, &data, &train_idx[..1000]);
    let bytes = q.to_bytes();
    let engine = StandardNetwork::from_bytes(&bytes).unwrap();
    assert_eq!(engine.arch(), arch());
    assert_eq!(
        engine.to_bytes(),
        bytes,
        "the engine writes the same file back"
    );
    let (val, _) = split(data.len(), 0.1, 11);
    let held_out = assert_the_engine_computes_the_file(&q, &engine, &data, &val);
    // The engine's value is the float network's within a few centipawns
    // on held-out positions (measured 2.8 cp; 8.3 cp with every weight
    // rounded to nearest, without the fit).
    let mean = held_out
        .iter()
        .map(|pos| (engine_value(&engine, pos) as f32 - net.evaluate(pos)).abs())
        .sum::<f32>()
        / held_out.len() as f32;
    assert!(mean < 4.0, "mean |engine − float| {mean} cp");
    let (gap, n) = quantisation_gap(net, &engine, &data, &val);
    assert_eq!(n, val.len());
    assert!((gap - mean as f64).abs() < 0.01, "{gap} vs {mean}");
    let plain = QuantisedNet::from_float(net).to_engine();
    let (plain_gap, _) = quantisation_gap(net, &plain, &data, &val);
    assert!(gap < plain_gap, "fitted {gap} cp, rounded {plain_gap} cp");
}

#[test]
fn a_quantisation_aware_network_is_the_files_to_the_centipawn() {
    let data = data(4000, 1);
    let (state, reports) = run(&data, &config(3, 2));
    assert!(state.net.quantisation_aware);
    let val_loss = reports[2].val_loss.unwrap();
    let (val, train_idx) = split(data.len(), 0.1, 11);
    let engine = export(&state.net, &data, &train_idx[..1000]).to_engine();
    let (gap, _) = quantisation_gap(&state.net, &engine, &data, &val);
    // Only the activations' rounding and the biases' remain.
    assert!(gap < 1.5, "gap {gap} cp");
    // Rounding to nearest alone is nearly as close.
    let plain = QuantisedNet::from_float(&state.net).to_engine();
    let (plain_gap, _) = quantisation_gap(&state.net, &plain, &data, &val);
    assert!(plain_gap < 2.0, "gap {plain_gap} cp");
    // It learns about as well as the plain float network.
    let (_, float) = run_qat(&data, &config(3, 2), 0);
    let float_loss = float[2].val_loss.unwrap();
    assert!(val_loss < 1.1 * float_loss, "{val_loss} vs {float_loss}");
}

#[test]
fn loss_falls_over_a_few_epochs() {
    let data = data(4000, 2);
    let (_, reports) = run(&data, &config(5, 2));
    let val: Vec<f64> = reports.iter().map(|r| r.val_loss.unwrap()).collect();
    let train: Vec<f64> = reports.iter().map(|r| r.train_loss).collect();
    assert!(val[4] < 0.7 * val[0], "validation loss {val:?}");
    assert!(train[4] < 0.7 * train[0], "training loss {train:?}");
    // Mirrored samples train too (twice the steps, same validation set).
    let (_, mirrored) = run(
        &data,
        &TrainConfig {
            mirror: true,
            ..config(2, 2)
        },
    );
    assert!(mirrored[1].val_loss.unwrap() < val[0]);
}

#[test]
fn the_factoriser_is_folded_into_every_king_square() {
    // `W` is zero at initialisation: only the factoriser `P` (random) and
    // the dense layers hold weights. Give the absent-piece row weights too.
    let mut net = HalfKpNet::new(arch(), 3);
    let l = net.layout();
    let mut rng = StdRng::seed_from_u64(4);
    for w in &mut net.dense[l.factor()..l.factor() + l.half] {
        *w = rng.gen_range(-0.1..0.1);
    }
    let start = Position::startpos();
    // The same pieces with Black's king on 4h (and 6h), and White's on 6b:
    // every feature's BonaPiece is the same, only the king square differs.
    let moved = |sfen: &str| Position::from_sfen(sfen).unwrap();
    let others = [
        moved("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B3K1R1/LNSG1GSNL b - 1"),
        moved("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B1K3R1/LNSG1GSNL b - 1"),
        moved("lnsg1gsnl/1r1k3b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
    ];
    let engine = QuantisedNet::from_float(&net).to_engine();
    let value = evaluate_from_scratch(&engine, &start);
    for pos in &others {
        assert_eq!(
            evaluate_from_scratch(&engine, pos),
            value,
            "{}",
            pos.to_sfen()
        );
        assert!((net.evaluate(pos) - net.evaluate(&start)).abs() < 1e-3);
    }
    // The file's rows are W + P, for every king square.
    let q = QuantisedNet::from_float(&net);
    let h = l.half;
    for f in [
        feature_index(0, 90),
        feature_index(44, 100),
        feature_index(80, 0),
    ] {
        let bp = f % FE_END;
        for u in [0, 77, 255] {
            let expected = (127.0 * (net.table[f * h + u] + net.factor_row(bp)[u])).round();
            assert_eq!(q.ft_weights[f * h + u] as f32, expected);
        }
    }
    // A king-specific row changes the value of that king square only.
    let stm = Position::side_to_move(&others[0]);
    let features = halfkp_features(&others[0], stm);
    let row = feature_index(features[0], features[5]);
    for w in &mut net.table[row * h..(row + 1) * h] {
        *w = 0.3;
    }
    let engine = QuantisedNet::from_float(&net).to_engine();
    assert_ne!(evaluate_from_scratch(&engine, &others[0]), value);
    assert_eq!(evaluate_from_scratch(&engine, &others[1]), value);
    assert_eq!(evaluate_from_scratch(&engine, &start), value);
}

/// The samples and objective of the gradient checks: six positions, all
/// of them used, an MSE half score, half result.
fn finite_difference_case() -> (Dataset, Vec<u32>, Objective) {
    let data = data(6, 5);
    let indices: Vec<u32> = (0..data.len() as u32).collect();
    let obj = Objective {
        lambda: 0.5,
        loss: Loss::Mse,
        residual: false,
    };
    (data, indices, obj)
}

#[test]
fn gradient_matches_finite_differences() {
    let (data, indices, obj) = finite_difference_case();
    let mut net = HalfKpNet::new(arch(), 6);
    // The exact gradient of the float network (quantisation-aware, the
    // rounding makes the loss piecewise constant in most weights and the
    // gradient is straight-through).
    net.quantisation_aware = false;
    let l = net.layout();
    let h = l.half;
    let mut rng = StdRng::seed_from_u64(7);
    // King-specific weights on the rows in use, and larger output weights,
    // so that every part of the gradient is clearly non-zero.
    for i in 0..data.len() {
        let s = data.get(i);
        for e in [s.stm, s.other] {
            for &bp in &e[1..] {
                let r = feature_index(e[0], bp);
                for w in &mut net.table[r * h..(r + 1) * h] {
                    *w = rng.gen_range(-0.05..0.05);
                }
            }
        }
    }
    for w in &mut net.dense[l.out_weights()..l.out_bias()] {
        *w *= 4.0;
    }
    let (g_table, g_dense) = full_gradient(&net, &obj, &data, &indices);
    let nonzero = |g: &[f32], range: std::ops::Range<usize>| -> Vec<usize> {
        range.filter(|&i| g[i] != 0.0).collect()
    };
    let mut pick = |mut v: Vec<usize>, n: usize| {
        v.shuffle(&mut rng);
        v.truncate(n);
        v
    };
    // (is a table entry, index)
    let mut params: Vec<(bool, usize)> = Vec::new();
    let table = pick(nonzero(&g_table, 0..g_table.len()), 300);
    assert!(table.len() == 300);
    params.extend(table.into_iter().map(|i| (true, i)));
    let factor = pick(nonzero(&g_dense, l.factor()..l.l1_weights()), 300);
    assert!(factor.len() == 300);
    params.extend(factor.into_iter().map(|i| (false, i)));
    let rest: Vec<usize> = nonzero(&g_dense, 0..l.factor())
        .into_iter()
        .chain(nonzero(&g_dense, l.l1_weights()..l.len()))
        .collect();
    for range in [
        l.l1_weights()..l.l1_bias(),
        l.l2_weights()..l.l2_bias(),
        l.out_weights()..l.len(),
    ] {
        assert!(rest.iter().any(|i| range.contains(i)), "{range:?}");
    }
    params.extend(pick(rest, 400).into_iter().map(|i| (false, i)));
    // Entries of untouched rows have zero gradient, numerically too.
    params.push((true, feature_index(40, 1000) * h + 3));
    params.push((false, l.factor() + 1000 * h + 3));
    let (checked, near_kink) =
        check_finite_differences(&mut net, &obj, &data, &params, (&g_table, &g_dense));
    assert!(checked > 900, "{checked} checked, {near_kink} near a kink");
}

#[test]
fn same_seed_same_run_and_a_checkpoint_resumes_it() {
    let data = data(1500, 3);
    let cfg = config(2, 2);
    let (a, ra) = run(&data, &cfg);
    let (b, rb) = run(&data, &cfg);
    assert!(a == b, "same seed, different weights");
    let losses = |r: &[EpochReport]| -> Vec<(f64, Option<f64>)> {
        r.iter().map(|r| (r.train_loss, r.val_loss)).collect()
    };
    assert_eq!(losses(&ra), losses(&rb));
    drop(b);
    // The first of the two epochs (plain float: only the last is
    // quantisation-aware).
    let (first, _) = run_qat(&data, &config(1, 2), 0);
    let path = std::env::temp_dir().join(format!("ryuo-train-hkp-{}.ckpt", std::process::id()));
    checkpoint::save(&first, &path).unwrap();
    let mut resumed = checkpoint::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(resumed == first, "the checkpoint does not read back");
    drop(first);
    train(&mut resumed, &data, &cfg, 1, |_, _| {});
    assert!(resumed == a, "the resumed run differs");
}

#[test]
fn trains_on_the_committed_gensfen_sample() {
    use ryuo_train::psv::{load_file, LoadOptions, LoadStats};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/sample.psv");
    let opts = LoadOptions {
        threads: 2,
        ..LoadOptions::default()
    };
    let mut data = Dataset::with_encoding(Encoding::HalfKp);
    let mut stats = LoadStats::default();
    load_file(&path, &opts, &mut data, &mut stats).unwrap();
    assert_eq!(stats, LoadStats { kept: 5000, bad: 0 });
    let raw = std::fs::read(&path).unwrap();
    for i in [0, 1234, 4999] {
        let record =
            ryuo::learn::PackedSfenValue::from_bytes(raw[40 * i..40 * (i + 1)].try_into().unwrap());
        let pos = record.position().unwrap();
        let kept = data.position(i).unwrap();
        assert_eq!(kept.to_sfen().rsplit_once(' ').unwrap().0, {
            pos.to_sfen().rsplit_once(' ').unwrap().0.to_string()
        });
        let s = data.get(i);
        assert_eq!(s.stm, &halfkp_features(&pos, pos.side_to_move())[..]);
        assert_eq!(s.other, &halfkp_features(&pos, !pos.side_to_move())[..]);
        assert_eq!((s.score, s.result), (record.score, record.game_result));
    }
    let cfg = TrainConfig {
        lr: 2e-3,
        ..config(3, 2)
    };
    let (_, reports) = run(&data, &cfg);
    let val: Vec<f64> = reports.iter().map(|r| r.val_loss.unwrap()).collect();
    assert!(val[2] < val[0], "validation loss {val:?}");
}

/// `--residual`: the network learns what the hand-crafted evaluation
/// misses. Scored by the hand-crafted value plus 120 cp, the hybrid file
/// (the `nn.bin` in Ryuo's wrapper, flagged) evaluates in the engine to
/// about that, the network supplying the 120.
#[test]
fn a_hybrid_network_learns_the_correction_and_the_engine_adds_it() {
    const SHIFT: i32 = 120;
    let mut data = Dataset::with_encoding(Encoding::HalfKp);
    let mut held_out = Vec::new();
    let mut n = 0;
    random_positions(5000, 21, |pos| {
        let classic = ryuo::eval::evaluate(pos);
        if classic.abs() > 1500 {
            return;
        }
        n += 1;
        if n % 10 == 0 {
            held_out.push(pos.clone());
        } else {
            data.push_position(pos, (classic + SHIFT) as i16, 0);
        }
    });
    let cfg = TrainConfig {
        objective: Objective {
            lambda: 1.0,
            loss: Loss::Mse,
            residual: true,
        },
        lr: 2e-3,
        ..config(4, 2)
    };
    let (state, _) = run(&data, &cfg);
    let (_, train_idx) = split(data.len(), 0.1, 11);
    let nn_bin = export(&state.net, &data, &train_idx[..1000]).to_bytes();
    let path = std::env::temp_dir().join(format!("ryuo-hybrid-{}.nnue", std::process::id()));
    std::fs::write(
        &path,
        ryuo::nnue::wrap_standard(&nn_bin, ryuo::nnue::FLAG_ADDS_TO_CLASSIC),
    )
    .unwrap();
    let loaded = ryuo::nnue::load(&path);
    let _ = std::fs::remove_file(&path);
    let evaluator = ryuo::search::Evaluator::of(&loaded.expect("a valid hybrid file"), 16);
    let (mut network, mut whole) = (0.0, 0.0);
    for pos in &held_out {
        let classic = ryuo::eval::evaluate(pos);
        let value = evaluator.value_from_scratch(pos);
        network += f64::from(value - classic - SHIFT).abs();
        whole += f64::from(value - classic).abs();
    }
    let k = held_out.len() as f64;
    assert!(k > 100.0);
    assert!(
        network / k < 25.0,
        "mean |value − (classic + {SHIFT})| {}",
        network / k
    );
    assert!(
        whole / k > 90.0,
        "the network adds the shift: {}",
        whole / k
    );
}

/// `--king-mirror`: only the rows of kings on USI files 1–5 learn; the
/// file writes the mirrored rows for files 6–9, so that the engine's
/// value of a position and of its mirror image are the same (kings off
/// the centre file, whose perspectives are read as they are), and the
/// file still tracks the float network.
#[test]
fn a_king_mirrored_network_learns_45_king_squares_and_exports_all_81() {
    use ryuo_train::halfkp::features::king_is_mirrored;
    let data = data(4000, 4);
    let mut state = HalfKpState::new(arch(), 11);
    state.net.king_mirror = true;
    train(&mut state, &data, &config(2, 2), 1, |_, _| {});
    let net = &state.net;
    let h = arch().half;
    let (mut learnt, mut mirrored_rows_touched) = (0, 0);
    for (r, row) in net.table.chunks_exact(h).enumerate() {
        let touched = row.iter().any(|&w| w != 0.0);
        if king_is_mirrored((r / FE_END) as u16) {
            mirrored_rows_touched += touched as usize;
        } else {
            learnt += touched as usize;
        }
    }
    assert_eq!(mirrored_rows_touched, 0);
    assert!(learnt > 1000, "{learnt} rows learnt");

    let (val, train_idx) = split(data.len(), 0.1, 11);
    let engine = export(net, &data, &train_idx[..1000]).to_engine();
    let mut symmetric = 0;
    for pos in test_positions(600) {
        let off_centre = ryuo::types::Color::ALL
            .iter()
            .all(|&c| pos.king_square(c).is_some_and(|k| k.file() != 4));
        if off_centre {
            let mirror = pos.mirrored();
            assert_eq!(
                evaluate_from_scratch(&engine, &pos),
                evaluate_from_scratch(&engine, &mirror),
                "{}",
                pos.to_sfen()
            );
            symmetric += 1;
        }
    }
    assert!(symmetric > 100, "{symmetric} positions compared");
    let (gap, _) = quantisation_gap(net, &engine, &data, &val);
    assert!(gap < 4.0, "mean |engine − float| {gap} cp");
}

/// Checks the analytic gradient of each `(in_table, index)` parameter
/// (`g_table`, `g_dense`: `full_gradient`'s) against a central finite
/// difference of the summed loss; returns how many were checked and how
/// many were skipped for lying within a step of a clipped ReLU's kink
/// (where the loss has no derivative).
fn check_finite_differences(
    net: &mut HalfKpNet,
    obj: &Objective,
    data: &Dataset,
    params: &[(bool, usize)],
    (g_table, g_dense): (&[f32], &[f32]),
) -> (usize, usize) {
    let indices: Vec<u32> = (0..data.len() as u32).collect();
    let (mut checked, mut near_kink) = (0, 0);
    for &(in_table, i) in params {
        let analytic = if in_table { g_table[i] } else { g_dense[i] } as f64;
        let e = 1e-3f32;
        let mut at = |delta: f32| {
            let p = if in_table {
                &mut net.table[i]
            } else {
                &mut net.dense[i]
            };
            let kept = *p;
            *p = kept + delta;
            let loss = loss_sum(net, obj, data, &indices);
            let p = if in_table {
                &mut net.table[i]
            } else {
                &mut net.dense[i]
            };
            *p = kept;
            loss
        };
        let (plus, zero, minus) = (at(e), at(0.0), at(-e));
        let (fwd, bwd) = ((plus - zero) / e as f64, (zero - minus) / e as f64);
        let tol = 1e-4 + 2e-2 * analytic.abs();
        if (fwd - bwd).abs() > tol {
            near_kink += 1;
            continue;
        }
        let numeric = (plus - minus) / (2.0 * e as f64);
        assert!(
            (numeric - analytic).abs() <= tol,
            "{} {i}: numeric {numeric}, analytic {analytic}",
            if in_table { "table" } else { "dense" }
        );
        checked += 1;
    }
    (checked, near_kink)
}

fn kp_arch() -> Arch {
    Arch::by_name("kp_256x2-32-32").unwrap()
}

/// `kp_256x2-32-32` (BonaPieces and both kings' squares, no factoriser):
/// trained from the HalfKP encoding, its loss falls, and its file is what
/// the engine evaluates, to the unit, within a few centipawns of the float
/// network.
#[test]
fn a_kp_network_trains_and_the_engine_evaluates_its_file() {
    let data = data(4000, 3);
    let cfg = config(3, 2);
    let mut state = HalfKpState::new(kp_arch(), cfg.seed);
    assert!(!state.net.factorised());
    assert_eq!(state.net.table.len(), (FE_END + 162) * 256);
    let mut reports = Vec::new();
    train(&mut state, &data, &cfg, 1, |_, r| reports.push(*r));
    let losses: Vec<f64> = reports.iter().map(|r| r.val_loss.unwrap()).collect();
    assert!(losses[2] < losses[0], "{losses:?}");
    let l = state.net.layout();
    assert!(
        state.net.dense[l.factor()..l.l1_weights()]
            .iter()
            .all(|&p| p == 0.0),
        "K+P has no factoriser: P stays zero"
    );
    let (val, train_idx) = split(data.len(), 0.1, 11);
    let q = export(&state.net, &data, &train_idx[..1000]);
    let bytes = q.to_bytes();
    let engine = StandardNetwork::from_bytes(&bytes).unwrap();
    assert_eq!(engine.arch(), kp_arch());
    assert_the_engine_computes_the_file(&q, &engine, &data, &val);
    let (gap, _) = quantisation_gap(&state.net, &engine, &data, &val);
    assert!(gap < 2.0, "mean |engine − float| {gap} cp");
}

/// The K+P gradient of `W` (the 40 rows of each perspective, kings
/// included) and of the dense layers matches finite differences.
#[test]
fn kp_gradient_matches_finite_differences() {
    let (data, indices, obj) = finite_difference_case();
    let mut net = HalfKpNet::new(kp_arch(), 6);
    net.quantisation_aware = false;
    let l = net.layout();
    for w in &mut net.dense[l.out_weights()..l.out_bias()] {
        *w *= 4.0;
    }
    let (g_table, g_dense) = full_gradient(&net, &obj, &data, &indices);
    assert!(g_dense[l.factor()..l.l1_weights()]
        .iter()
        .all(|&g| g == 0.0));
    let h = l.half;
    // Both kings' rows have gradient.
    let king_rows = |block: usize| {
        (FE_END + block..FE_END + block + 81)
            .any(|r| g_table[r * h..(r + 1) * h].iter().any(|&g| g != 0.0))
    };
    assert!(king_rows(0) && king_rows(81));
    let mut rng = StdRng::seed_from_u64(8);
    let mut pick = |mut v: Vec<usize>, n: usize| {
        v.shuffle(&mut rng);
        v.truncate(n);
        v
    };
    let table: Vec<usize> = pick(
        (0..g_table.len()).filter(|&i| g_table[i] != 0.0).collect(),
        300,
    );
    let dense: Vec<usize> = pick(
        (0..l.factor())
            .chain(l.l1_weights()..l.len())
            .filter(|&i| g_dense[i] != 0.0)
            .collect(),
        300,
    );
    assert_eq!((table.len(), dense.len()), (300, 300));
    let params: Vec<(bool, usize)> = table
        .into_iter()
        .map(|i| (true, i))
        .chain(dense.into_iter().map(|i| (false, i)))
        .collect();
    let (checked, near_kink) =
        check_finite_differences(&mut net, &obj, &data, &params, (&g_table, &g_dense));
    assert!(checked > 450, "{checked} checked, {near_kink} near a kink");
}
