//! The network evaluation: the incremental accumulators must agree with a
//! from-scratch computation on every position a search can reach, through
//! captures, promotions, drops, null moves and take-backs.

use crate::common;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use ryuo::movegen::legal_moves;
use ryuo::nnue::features::{active_features, mirror_feature, InputFeatures, NUM_FEATURES};
use ryuo::nnue::{evaluate_from_scratch, Accumulators, Network};
use ryuo::position::Position;
use ryuo::types::{Color, Move, PieceType};
use std::sync::Arc;

/// Random walk with take-backs, like a search visiting a tree: compares the
/// incremental evaluation with the reference at every node.
#[test]
fn incremental_evaluation_matches_refresh() {
    let checked = random_walk(2024, 1.0, InputFeatures::PieceSquare);
    assert!(checked > 5000);
}

/// As above, evaluating only now and then, as a search whose hash table
/// supplies most evals does: long stretches without an accumulator force
/// refreshes, whose ancestors are then derived backwards and replayed from.
#[test]
fn sparse_evaluation_matches_refresh() {
    let checked = random_walk(7, 0.07, InputFeatures::PieceSquare);
    assert!(checked > 300);
}

/// Both walks with king buckets, king moves preferred too: a king move to
/// another bucket must refresh its side, and is never replayed across.
#[test]
fn king_bucket_evaluation_matches_refresh() {
    assert!(random_walk(31, 1.0, InputFeatures::KingBuckets) > 5000);
    assert!(random_walk(32, 0.07, InputFeatures::KingBuckets) > 300);
}

/// Walks random games with take-backs and null moves, evaluating each node
/// with probability `eval_rate`; returns the evaluations compared.
fn random_walk(seed: u64, eval_rate: f64, features: InputFeatures) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let net = Arc::new(Network::random_of(features, 32, &mut rng));
    let mut acc = Accumulators::new();
    let mut checked = 0;
    let mut rebucketed = 0;
    // Prefer captures and drops so that hands fill and empty (and, with
    // buckets, king moves).
    let kings = features == InputFeatures::KingBuckets;
    let preferred = |pos: &Position, m: Move| {
        pos.is_capture(m)
            || m.is_drop()
            || (kings && pos.piece_on(m.from()).kind() == PieceType::King)
    };
    common::search_like_walk(&mut rng, 20, 400, preferred, |rng, pos| {
        let offset = |c| features.offset(pos, c);
        let m = pos.last_move();
        if kings && m.is_some() {
            let mut before = pos.clone();
            before.undo_move(m);
            let mover = !pos.side_to_move();
            rebucketed += usize::from(
                offset(mover) / NUM_FEATURES != features.offset(&before, mover) / NUM_FEATURES,
            );
        }
        if rng.gen_bool(eval_rate) {
            let fast = acc.evaluate(&net, pos);
            let slow = evaluate_from_scratch(&net, pos);
            assert_eq!(fast, slow, "{}", pos.to_sfen());
            checked += 1;
        }
    });
    assert!(!kings || rebucketed > 100, "{rebucketed} bucket changes");
    checked
}

/// A colour-flipped position is the same position for the network: the
/// side to move's score is identical.
#[test]
fn evaluation_is_colour_symmetric() {
    let mut rng = StdRng::seed_from_u64(5);
    for features in [InputFeatures::PieceSquare, InputFeatures::KingBuckets] {
        colour_symmetry(&mut rng, features);
    }
}

fn colour_symmetry(rng: &mut StdRng, features: InputFeatures) {
    let net = Arc::new(Network::random_of(features, 32, rng));
    let mut pos = Position::startpos();
    for _ in 0..120 {
        let moves = legal_moves(&pos);
        let Some(&m) = moves.choose(rng) else {
            break;
        };
        pos.do_move(m);
        let flipped = pos.flipped();
        assert_eq!(
            evaluate_from_scratch(&net, &pos),
            evaluate_from_scratch(&net, &flipped),
            "{}",
            pos.to_sfen()
        );
    }
}

/// A fresh store and a store that already served other positions (or
/// another network) give the same answers.
#[test]
fn switching_networks_drops_old_accumulators() {
    let mut rng = StdRng::seed_from_u64(9);
    let a = Arc::new(Network::random(32, &mut rng));
    let b = Arc::new(Network::random(48, &mut rng));
    let pos = Position::startpos();
    let mut acc = Accumulators::new();
    let va = acc.evaluate(&a, &pos);
    let vb = acc.evaluate(&b, &pos);
    assert_eq!(va, evaluate_from_scratch(&a, &pos));
    assert_eq!(vb, evaluate_from_scratch(&b, &pos));
    assert_eq!(acc.evaluate(&a, &pos), va);
}

/// `mirror_feature` maps a position's features onto its mirror image's,
/// from both perspectives.
#[test]
fn mirrored_features_are_the_mirror_positions_features() {
    let mut rng = StdRng::seed_from_u64(77);
    let mut pos = Position::startpos();
    for _ in 0..150 {
        let moves = legal_moves(&pos);
        let Some(&m) = moves.choose(&mut rng) else {
            break;
        };
        pos.do_move(m);
        let mirror = pos.mirrored();
        for c in Color::ALL {
            let mut a: Vec<usize> = active_features(&pos, c)
                .iter()
                .map(|&f| mirror_feature(f as usize))
                .collect();
            let mut b: Vec<usize> = active_features(&mirror, c)
                .iter()
                .map(|&f| f as usize)
                .collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{}", pos.to_sfen());
            for set in [InputFeatures::PieceSquare, InputFeatures::KingBuckets] {
                let mut a: Vec<usize> = set
                    .active(&pos, c)
                    .iter()
                    .map(|&f| set.mirror(f as usize))
                    .collect();
                let mut b: Vec<usize> =
                    set.active(&mirror, c).iter().map(|&f| f as usize).collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{set:?} {}", pos.to_sfen());
            }
        }
    }
}
