//! Self-play training data: the committed sample reads back as legal
//! records; a small run is deterministic, keeps only what it should, and
//! writes the same bytes whatever the thread count; shards differ, carry
//! manifests, and merge into their concatenation.

use ryuo::learn::gensfen::{self, GensfenConfig, Shard};
use ryuo::learn::manifest::{manifest_path, Manifest};
use ryuo::learn::{read_records, PackedSfenValue, PsvWriter};
use ryuo::movegen::legal_moves;
use ryuo::position::Position;
use ryuo::progress::Progress;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Checks what every gensfen record must satisfy: the position unpacks, is
/// not in check, the move is legal and not a capture, score and result in
/// range, ply after the shortest random opening.
fn check_record(i: usize, r: &PackedSfenValue, eval_limit: i16, random_min: u16) {
    let pos = r.position().unwrap_or_else(|e| panic!("record {i}: {e}"));
    let mv = r.best_move();
    assert!(legal_moves(&pos).contains(&mv), "record {i}: {mv} illegal");
    assert!(!pos.in_check(), "record {i}: in check");
    assert!(!pos.is_capture(mv), "record {i}: capture {mv}");
    assert!((-1..=1).contains(&r.game_result), "record {i}");
    assert!(r.score.abs() <= eval_limit, "record {i}: score {}", r.score);
    assert!(r.game_ply > random_min, "record {i}: ply {}", r.game_ply);
}

/// `tests/data/sample.psv` (5,000 records, 200,000 bytes) was made with
///
/// ```text
/// target/release/ryuo gensfen --count 5000 --nodes 5000 --threads 1 --seed 1 \
///     --out tests/data/sample.psv
/// ```
///
/// (defaults: random plies 8..16, eval limit 3000, max ply 320) at commit
/// 44101eb, before games were numbered: the same command now plays other
/// games. A fixture for trainer tests.
#[test]
fn sample_records_are_legal() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.psv");
    let records = read_records(path).unwrap();
    assert_eq!(records.len(), 5000);
    for (i, r) in records.iter().enumerate() {
        check_record(i, r, 3000, 8);
    }
    // Both results occur, and draws are a minority.
    let wins = records.iter().filter(|r| r.game_result == 1).count();
    let losses = records.iter().filter(|r| r.game_result == -1).count();
    assert!(wins > 1000 && losses > 1000, "{wins} {losses}");
}

fn generate(config: &GensfenConfig) -> Vec<u8> {
    let mut w = PsvWriter::new(Vec::new());
    let stats = gensfen::run(config, &mut w, &mut Progress::hidden()).unwrap();
    assert_eq!(stats.positions, config.count);
    assert_eq!(stats.ends.iter().sum::<u64>(), stats.games);
    w.finish().unwrap()
}

#[test]
fn one_thread_is_deterministic() {
    let config = GensfenConfig {
        count: 120,
        nodes: Some(800),
        seed: 42,
        random_min: 4,
        random_max: 6,
        eval_limit: 1000,
        ..GensfenConfig::default()
    };
    let a = generate(&config);
    assert_eq!(a.len(), 120 * PackedSfenValue::SIZE);
    assert_eq!(a, generate(&config));
    for (i, chunk) in a.chunks_exact(PackedSfenValue::SIZE).enumerate() {
        let r = PackedSfenValue::from_bytes(chunk.try_into().unwrap());
        check_record(i, &r, 1000, 4);
    }
    let other = generate(&GensfenConfig { seed: 43, ..config });
    assert_ne!(a, other);
}

#[test]
fn two_threads_write_the_count() {
    let config = GensfenConfig {
        count: 60,
        depth: Some(2),
        threads: 2,
        ..GensfenConfig::default()
    };
    let a = generate(&config);
    assert_eq!(a.len(), 60 * PackedSfenValue::SIZE);
}

/// Games are numbered and written in number order, so the thread count
/// changes only the speed.
#[test]
fn the_thread_count_does_not_change_the_file() {
    let config = GensfenConfig {
        count: 250,
        nodes: Some(300),
        seed: 9,
        ..GensfenConfig::default()
    };
    let one = generate(&config);
    for threads in [2, 3] {
        assert!(
            one == generate(&GensfenConfig {
                threads,
                ..config.clone()
            })
        );
    }
}

/// Shard i's games depend on i, not on the shard count; different shards
/// play different games.
#[test]
fn shards_play_their_own_games() {
    let shard = |index, count| {
        generate(&GensfenConfig {
            count: 40,
            nodes: Some(200),
            shard: Shard { index, count },
            ..GensfenConfig::default()
        })
    };
    let (a, b) = (shard(1, 2), shard(1, 5));
    assert!(a == b);
    let whole = shard(0, 1);
    assert!(whole == shard(0, 3));
    assert_ne!(whole[..32], a[..32], "first positions");
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryuo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ryuo(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ryuo"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `ryuo gensfen` with the settings of these tests and `extra`.
fn gensfen_cli(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["gensfen", "--count", "60", "--nodes", "200", "--seed", "4"];
    args.extend_from_slice(extra);
    let out = ryuo(&args, dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    assert!(err.contains("gensfen: done, 60 positions"), "{err}");
    out
}

#[test]
fn the_command_writes_the_same_file_and_manifest_on_one_and_two_threads() {
    let dir = scratch("gensfen-threads");
    gensfen_cli(&dir, &["--threads", "1", "--out", "one.psv"]);
    gensfen_cli(&dir, &["--threads", "2", "--out", "two.psv"]);
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    assert!(read("one.psv") == read("two.psv"));
    assert_eq!(read("one.psv").len(), 60 * PackedSfenValue::SIZE);
    let manifest = |f: &str| Manifest::read(&manifest_path(&dir.join(f))).unwrap();
    let (one, two) = (manifest("one.psv"), manifest("two.psv"));
    assert_eq!(one.file, "one.psv");
    assert_eq!((one.records, one.bytes), (60, 2400));
    assert_eq!(one.content_hash, two.content_hash);
    assert_eq!(one.gensfen, two.gensfen);
    let run = one.gensfen.unwrap();
    assert_eq!((run.seed, run.shard, run.count), (4, Shard::WHOLE, 60));
    assert_eq!((run.nodes, run.random_plies), (Some(200), [8, 16]));
    assert!(!one.engine.commit.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merge_into_their_concatenation_and_are_checked() {
    let dir = scratch("gensfen-merge");
    let mut concatenated = Vec::new();
    for i in 0..3 {
        let (shard, out) = (format!("{i}/3"), format!("s{i}.psv"));
        gensfen_cli(&dir, &["--shard", &shard, "--out", &out]);
        concatenated.extend(std::fs::read(dir.join(&out)).unwrap());
    }
    let merged = ryuo(
        &["gensfen-merge", "all.psv", "s0.psv", "s1.psv", "s2.psv"],
        &dir,
    );
    assert!(merged.status.success(), "{merged:?}");
    assert!(std::fs::read(dir.join("all.psv")).unwrap() == concatenated);
    let m = Manifest::read(&manifest_path(&dir.join("all.psv"))).unwrap();
    assert_eq!(m.records, 180);
    let shards: Vec<Shard> = m.runs().iter().map(|r| r.shard).collect();
    assert_eq!(shards, [0, 1, 2].map(|index| Shard { index, count: 3 }));
    assert!(ryuo(&["gensfen-verify", "all.psv", "s1.psv"], &dir)
        .status
        .success());

    // The same shard twice is the same games.
    let twice = ryuo(
        &["gensfen-merge", "x.psv", "s0.psv", "s1.psv", "s0.psv"],
        &dir,
    );
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("shard 0 of seed 4"));

    // A changed byte fails the check, and the merge.
    let mut bytes = std::fs::read(dir.join("s1.psv")).unwrap();
    bytes[100] ^= 1;
    std::fs::write(dir.join("s1.psv"), bytes).unwrap();
    let verify = ryuo(&["gensfen-verify", "s0.psv", "s1.psv"], &dir);
    assert_eq!(verify.status.code(), Some(2));
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(text.contains("s0.psv: ok"), "{text}");
    assert!(text.contains("s1.psv: FAILED"), "{text}");
    let merge = ryuo(&["gensfen-merge", "y.psv", "s0.psv", "s1.psv"], &dir);
    assert_eq!(merge.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&merge.stderr).contains("content hash"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_shard_is_refused() {
    let dir = scratch("gensfen-bad-shard");
    for bad in ["3/2", "2/2", "a/b", "0/0", "1", "-1/2"] {
        let shard = format!("--shard={bad}");
        let out = ryuo(
            &[
                "gensfen", "--count", "1", "--nodes", "10", &shard, "--out", "x.psv",
            ],
            &dir,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--shard"), "{bad}: {err}");
    }
    assert!(!dir.join("x.psv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn psv_dump_prints_records_and_refuses_truncation() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.psv");
    let exe = env!("CARGO_BIN_EXE_ryuo");
    let out = Command::new(exe)
        .args(["psv-dump", sample, "--limit", "3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let records = read_records(sample).unwrap();
    assert_eq!(text.lines().count(), 3);
    for (line, r) in text.lines().zip(&records) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "{line}");
        let pos = Position::from_sfen(f[0]).unwrap();
        assert_eq!(pos.parse_usi_move(f[1]), Some(r.best_move()));
        assert_eq!(
            f[2..],
            [r.score, r.game_ply as i16, r.game_result as i16].map(|v| v.to_string())
        );
    }

    let dir = std::env::temp_dir().join(format!("ryuo-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.psv");
    let bytes = std::fs::read(sample).unwrap();
    std::fs::write(&cut, &bytes[..2 * PackedSfenValue::SIZE + 7]).unwrap();
    let out = Command::new(exe)
        .arg("psv-dump")
        .arg(&cut)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated"));
    std::fs::remove_dir_all(&dir).unwrap();
}
