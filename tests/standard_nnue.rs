//! YaneuraOu-format networks (`nn.bin`): exact against YaneuraOu, the same
//! incrementally as from scratch, and refused with a reason when bad.
//!
//! `tests/data/standard_nnue_expected.tsv` holds YaneuraOu's own `eval` of
//! 2,400 positions for a random network of each architecture
//! (`ryuo nnue random --arch A --seed 1`, remade by
//! `tests/oracle/make_standard_nnue_tsv.sh`); the test regenerates each
//! network from its seed here, without YaneuraOu.

use crate::common;

use common::{Engine, SHORT};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ryuo::nnue::standard::{
    evaluate_from_scratch, value, Arch, StandardAccumulators, StandardNetwork,
};
use ryuo::position::Position;
use std::sync::Arc;

const EXPECTED: &str = include_str!("data/standard_nnue_expected.tsv");

/// The network of `arch` the expected values were computed for, read
/// back through the file format.
fn oracle_network(arch: &str) -> StandardNetwork {
    let arch = Arch::by_name(arch).expect("a supported architecture");
    let bytes = StandardNetwork::random(arch, 1).to_bytes();
    StandardNetwork::from_bytes(&bytes).expect("a valid file")
}

#[test]
fn every_architecture_evaluates_exactly_as_yaneuraou() {
    let mut lines = EXPECTED.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert!(rows.len() >= 2000);
    let positions: Vec<Position> = rows
        .iter()
        .map(|r| Position::from_sfen(r[0]).unwrap())
        .collect();
    for (col, name) in header.iter().enumerate().skip(1) {
        let (arch, fv_scale) = match name.split_once('@') {
            Some((a, s)) => (a, s.parse().unwrap()),
            None => (*name, 16),
        };
        let net = oracle_network(arch);
        let mut mismatches = Vec::new();
        for (row, pos) in rows.iter().zip(&positions) {
            let expected: i32 = row[col].parse().unwrap();
            let got = value(evaluate_from_scratch(&net, pos), fv_scale);
            if got != expected {
                mismatches.push(format!("{}: {got} != {expected}", row[0]));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{name}: {} of {} positions differ, e.g. {:?}",
            mismatches.len(),
            rows.len(),
            &mismatches[..mismatches.len().min(3)]
        );
    }
}

/// Random games with take-backs and null moves, as a search walks a tree,
/// evaluating a share of the nodes: the incremental accumulators (replays,
/// king-move rebuilds through the refresh cache) must equal a computation
/// from scratch everywhere.
fn random_walk(arch: &str, seed: u64, eval_rate: f64) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let net = Arc::new(StandardNetwork::random(Arch::by_name(arch).unwrap(), seed));
    let mut acc = StandardAccumulators::new();
    let mut checked = 0;
    // Prefer captures, drops and king moves: hands fill and empty, and
    // HalfKP accumulators are rebuilt.
    let preferred = |pos: &Position, m: ryuo::types::Move| {
        let king = !m.is_drop() && pos.piece_on(m.from()).kind() == ryuo::types::PieceType::King;
        pos.is_capture(m) || m.is_drop() || king
    };
    common::search_like_walk(&mut rng, 12, 300, preferred, |rng, pos| {
        if rng.gen_bool(eval_rate) {
            let fast = acc.evaluate(&net, pos);
            let slow = evaluate_from_scratch(&net, pos);
            assert_eq!(fast, slow, "{arch}: {}", pos.to_sfen());
            checked += 1;
        }
    });
    checked
}

#[test]
fn incremental_halfkp_matches_from_scratch() {
    assert!(random_walk("halfkp_256x2-32-32", 3, 1.0) > 2000);
    assert!(random_walk("halfkp_256x2-32-32", 4, 0.1) > 200);
}

#[test]
fn incremental_kp_matches_from_scratch() {
    assert!(random_walk("kp_256x2-32-32", 5, 1.0) > 2000);
    assert!(random_walk("kp_256x2-32-32", 6, 0.1) > 200);
}

/// A test file in a fresh temporary folder (removed by the caller's
/// `TempDir`).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ryuo-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The value `eval` prints.
fn printed_eval(e: &mut Engine, sfen: &str) -> i32 {
    e.send(&format!("position sfen {sfen}"));
    e.send("eval");
    let lines = e.expect(|l| l.starts_with("info string network evaluation"), SHORT);
    let line = lines.last().unwrap();
    line.split(": ")
        .nth(1)
        .unwrap()
        .trim_end_matches(" cp")
        .parse()
        .unwrap()
}

/// Through the real binary: `EvalDir` (a folder holding `nn.bin`), `eval`
/// in YaneuraOu's units with `FV_SCALE`, and searches with the network.
#[test]
fn the_engine_loads_nn_bin_from_eval_dir_and_prints_yaneuraous_values() {
    let dir = TempDir::new("evaldir");
    dir.file("nn.bin", &oracle_network("kp_256x2-32-32").to_bytes());
    let folder = dir.0.to_string_lossy().into_owned();
    let (mut e, ready) = Engine::with(&[("EvalDir", &folder)]);
    assert!(
        ready.iter().any(|l| l.contains("kp_256x2-32-32")),
        "{ready:?}"
    );
    let mut lines = EXPECTED.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = header.iter().position(|&h| h == "kp_256x2-32-32").unwrap();
    for row in lines.take(20) {
        let row: Vec<&str> = row.split('\t').collect();
        assert_eq!(
            printed_eval(&mut e, row[0]),
            row[col].parse::<i32>().unwrap()
        );
    }
    // FV_SCALE divides the output: at 1 the value is 16 times larger,
    // up to the truncation of the division by 16.
    let first: Vec<&str> = EXPECTED.lines().nth(1).unwrap().split('\t').collect();
    e.send("setoption name FV_SCALE value 1");
    let raw = printed_eval(&mut e, first[0]);
    assert_eq!(raw / 16, first[col].parse::<i32>().unwrap());
    let (_, best) = e.play(&format!("position sfen {}", first[0]));
    assert_ne!(best, "resign");
}

/// Bad files never hurt a game: an error naming the cause at `isready`,
/// the network in use kept (the `eval` value does not change), the engine
/// answering on.
#[test]
fn bad_network_files_are_refused_with_their_cause() {
    let dir = TempDir::new("badnn");
    let good = oracle_network("kp_256x2-32-32").to_bytes();
    let good_path = dir.file("good.bin", &good);
    let (mut e, ready) = Engine::with(&[("EvalFile", &good_path)]);
    assert!(ready.iter().all(|l| !l.contains("error")), "{ready:?}");
    let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    let before = printed_eval(&mut e, sfen);

    let mut wrong_version = good.clone();
    wrong_version[0] ^= 0xFF;
    let mut wrong_hash = good.clone();
    wrong_hash[4] ^= 1;
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"xyz");
    let description = "Features=HalfKA_hm[73305->1536x2],Network=AffineTransform[1<-32]";
    let mut unknown = ryuo::nnue::standard::VERSION.to_le_bytes().to_vec();
    unknown.extend_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    unknown.extend_from_slice(&(description.len() as u32).to_le_bytes());
    unknown.extend_from_slice(description.as_bytes());
    let cases: Vec<(String, &str)> = vec![
        (
            dir.0.join("missing.bin").to_string_lossy().into(),
            "cannot read",
        ),
        (
            dir.file("truncated.bin", &good[..good.len() / 2]),
            "truncated",
        ),
        (
            dir.file("version.bin", &wrong_version),
            "not a network file",
        ),
        (dir.file("hash.bin", &wrong_hash), "structure hash"),
        (dir.file("trailing.bin", &trailing), "3 unexpected bytes"),
        (
            dir.file("unknown.bin", &unknown),
            "HalfKA_hm[73305->1536x2]",
        ),
        (dir.file("empty.bin", b""), "not a network file"),
        (
            dir.file("flags.bin", &ryuo::nnue::wrap_standard(&good, 4)),
            "unsupported flags",
        ),
        (
            dir.file(
                "packed_damaged.bin",
                &ryuo::nnue::wrap_standard(b"not deflate data", ryuo::nnue::FLAG_PACKED),
            ),
            "packed network",
        ),
        (
            dir.file(
                "wrapped_truncated.bin",
                &ryuo::nnue::wrap_standard(&good[..good.len() - 1], 1),
            ),
            "truncated",
        ),
        ("/dev/zero".into(), "not a regular file"),
        (dir.0.to_string_lossy().into(), "not a regular file"),
    ];
    for (path, cause) in cases {
        e.send(&format!("setoption name EvalFile value {path}"));
        let lines = e.sync();
        let error = lines
            .iter()
            .find(|l| l.starts_with("info string error"))
            .unwrap_or_else(|| panic!("{path}: no error in {lines:?}"));
        assert!(error.contains(cause), "{path}: {error}");
        assert!(error.contains("previous network is kept"), "{error}");
        assert_eq!(printed_eval(&mut e, sfen), before, "{path}");
    }
    let (_, best) = e.play(&format!("position sfen {sfen}"));
    assert_ne!(best, "resign");
}

/// A YaneuraOu-format network in Ryuo's wrapper (format version 3) with
/// the hybrid flag adds its value to the hand-crafted evaluation, in the
/// library and in the engine's `eval`; without the flag it is the plain
/// network.
#[test]
fn a_wrapped_network_adds_the_hand_crafted_evaluation() {
    use ryuo::search::Evaluator;
    let dir = TempDir::new("wrapped");
    let nn_bin = oracle_network("halfkp_256x2-32-32").to_bytes();
    let flag = ryuo::nnue::FLAG_ADDS_TO_CLASSIC;
    let hybrid_path = dir.file("hybrid.nnue", &ryuo::nnue::wrap_standard(&nn_bin, flag));
    let plain_path = dir.file("plain.nnue", &ryuo::nnue::wrap_standard(&nn_bin, 0));
    let hybrid = ryuo::nnue::load(hybrid_path.as_ref()).expect("a valid wrapped file");
    let plain = ryuo::nnue::load(plain_path.as_ref()).expect("a valid wrapped file");
    // Packed (`ryuo nnue pack`), the same network.
    let ryuo::nnue::EvalNetwork::Standard(net) = &hybrid else {
        panic!("a YaneuraOu-format network")
    };
    let packed = ryuo::nnue::standard::pack::pack(net);
    let packed_path = dir.file(
        "packed.nnue",
        &ryuo::nnue::wrap_standard(&packed, flag | ryuo::nnue::FLAG_PACKED),
    );
    let unpacked = ryuo::nnue::load(packed_path.as_ref()).expect("a valid packed file");
    let ryuo::nnue::EvalNetwork::Standard(unpacked) = &unpacked else {
        panic!("a YaneuraOu-format network")
    };
    assert!(unpacked.adds_to_classic());
    assert_eq!(unpacked.to_bytes(), nn_bin);
    assert!(hybrid
        .describe()
        .contains("added to the hand-crafted evaluation"));
    assert!(!plain.describe().contains("hand-crafted"));
    let (hybrid, plain) = (Evaluator::of(&hybrid, 16), Evaluator::of(&plain, 16));

    let mut lines = EXPECTED.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = header
        .iter()
        .position(|&h| h == "halfkp_256x2-32-32")
        .unwrap();
    let rows: Vec<(String, i32)> = lines
        .take(50)
        .map(|row| {
            let row: Vec<&str> = row.split('\t').collect();
            (row[0].to_string(), row[col].parse().unwrap())
        })
        .collect();
    let mut differs = 0;
    for (sfen, network) in &rows {
        let pos = Position::from_sfen(sfen).unwrap();
        let classic = ryuo::eval::evaluate(&pos);
        assert_eq!(plain.value_from_scratch(&pos), *network, "{sfen}");
        assert_eq!(hybrid.value_from_scratch(&pos), network + classic, "{sfen}");
        differs += (classic != 0) as usize;
    }
    assert!(differs > 25, "the positions must tell the two apart");

    let (mut e, ready) = Engine::with(&[("EvalFile", &hybrid_path)]);
    assert!(ready.iter().all(|l| !l.contains("error")), "{ready:?}");
    for (sfen, network) in rows.iter().take(10) {
        let classic = ryuo::eval::evaluate(&Position::from_sfen(sfen).unwrap());
        assert_eq!(printed_eval(&mut e, sfen), network + classic, "{sfen}");
    }
    let (_, best) = e.play(&format!("position sfen {}", rows[0].0));
    assert_ne!(best, "resign");
}

/// `EvalType` = `Material`: YaneuraOu's piece values alone (the yardstick
/// against its material build), printed by `eval` and used by `go`;
/// `Network` returns to the network, `ClassicEval` still selects the
/// hand-crafted evaluation.
#[test]
fn eval_type_selects_material_classic_or_network() {
    let (mut e, _) = Engine::with(&[("EvalType", "Material")]);
    // White's bishop is in Black's hand: Black is up 2 × 855.
    let sfen = "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b B 1";
    e.send(&format!("position sfen {sfen}"));
    e.send("eval");
    let last = |l: &str| l.starts_with("eval (side to move");
    let lines = e.expect(last, SHORT);
    let material = lines.iter().find(|l| l.contains("material evaluation"));
    assert!(
        material.is_some_and(|l| l.ends_with(": 1710 cp")),
        "{lines:?}"
    );
    let (_, best) = e.play(&format!("position sfen {sfen}"));
    assert!(best.starts_with("bestmove") && best != "bestmove resign");
    e.send("setoption name EvalType value Network");
    e.send("eval");
    let lines = e.expect(last, SHORT);
    assert!(
        lines.iter().any(|l| l.contains("network evaluation")),
        "{lines:?}"
    );
    e.send("setoption name ClassicEval value true");
    e.send("eval");
    let lines = e.expect(last, SHORT);
    assert!(
        lines.iter().all(|l| !l.contains("network evaluation")),
        "{lines:?}"
    );
}

/// The incremental path against YaneuraOu: 200 self-play games
/// (`tests/data/eval_bench_games.txt`) played move by move, evaluating
/// after every move, sum to what YaneuraOu's own incremental evaluation
/// sums to over the same games with the same network (17,074,559 over
/// 25,152 positions, measured with a local `evalbench` patch of
/// YaneuraOu: `ryuo nnue bench` prints the same checksum).
#[test]
fn incremental_evaluation_over_games_sums_as_yaneuraou() {
    let net = Arc::new(oracle_network("halfkp_256x2-32-32"));
    let games: Vec<(Position, Vec<ryuo::types::Move>)> = include_str!("data/eval_bench_games.txt")
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut pos = Position::startpos();
            let moves = words[2..]
                .iter()
                .map(|w| {
                    let m = pos.parse_usi_move(w).expect("legal");
                    pos.do_move(m);
                    m
                })
                .collect();
            (Position::startpos(), moves)
        })
        .collect();
    let evaluator = ryuo::search::Evaluator::Standard(net, 16);
    let t = ryuo::bench::eval_throughput(&evaluator, &games, 1);
    assert_eq!(t.evals, 25_152);
    assert_eq!(t.checksum, 17_074_559);
}
