//! Search behaviour on positions with a known answer.

use ryuo::movegen::legal_moves;
use ryuo::position::Position;
use ryuo::search::{
    Control, Features, Limits, Score, SearchOptions, SearchResult, Searcher, Silent,
};

fn search(sfen: &str, depth: i32) -> SearchResult {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut searcher = Searcher::new(16);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let result = searcher.search(
        &pos,
        &limits,
        &SearchOptions::default(),
        &Control::new(false),
        &mut Silent,
    );
    assert_line_is_legal(&pos, &result.pv);
    result
}

fn assert_line_is_legal(pos: &Position, line: &[ryuo::types::Move]) {
    let mut pos = pos.clone();
    for &m in line {
        assert!(
            pos.is_pseudo_legal(m) && pos.is_legal(m),
            "{m} illegal in {}",
            pos.to_sfen()
        );
        pos.do_move(m);
    }
}

fn mate_score(r: &SearchResult) -> Option<i32> {
    match ryuo::search::Score::from_value(r.score) {
        Score::Mate(n) => Some(n),
        Score::Cp(_) => None,
    }
}

/// Plays `line` and checks it ends in checkmate with every attacker move a check.
fn assert_mating_line(sfen: &str, line: &[ryuo::types::Move], plies: usize) {
    assert_eq!(line.len(), plies, "{line:?}");
    let mut pos = Position::from_sfen(sfen).unwrap();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 {
            assert!(pos.gives_check(m), "{m} must check");
        }
        pos.do_move(m);
    }
    assert!(
        pos.in_check() && legal_moves(&pos).is_empty(),
        "ends in mate"
    );
}

#[test]
fn mate_in_one() {
    let sfen = "1k7/2R6/9/9/9/9/9/9/8K b N2G 1";
    let r = search(sfen, 3);
    assert_eq!(mate_score(&r), Some(1));
    assert_eq!(r.best.unwrap().to_string(), "G*8b");
    assert_mating_line(sfen, &r.pv, 1);
}

#[test]
fn mate_in_three() {
    let sfen = "k8/2s4g+P/5R3/9/9/9/9/9/8K b S 1";
    let r = search(sfen, 5);
    assert_eq!(mate_score(&r), Some(3));
    assert_mating_line(sfen, &r.pv, 3);
}

#[test]
fn mate_in_five() {
    let sfen = "2k3g2/9/9/4R4/9/9/9/9/8K b R2G 1";
    let r = search(sfen, 7);
    assert_eq!(mate_score(&r), Some(5));
    assert_mating_line(sfen, &r.pv, 5);
}

#[test]
fn being_mated_is_reported_negative() {
    // White to move is already mated: no legal move.
    let r = search("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 3);
    assert!(r.best.is_none());
    // White to move is mated in two plies (9a8a S*8b).
    let r = search("k8/2s4g+P/+R8/9/9/9/9/9/8K w S 2", 4);
    assert_eq!(mate_score(&r), Some(-2));
}

#[test]
fn a_hanging_rook_is_taken() {
    let r = search(
        "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        4,
    );
    assert_eq!(r.best.unwrap().to_string(), "5g5f");
    assert!(r.score > 500, "{}", r.score);
}

#[test]
fn a_mate_threat_is_answered() {
    // White threatens G*5h mate (the pawn on 5g guards 5h). Taking the
    // silver on 1c with the rook loses at once.
    let sfen = "4k4/9/8s/9/9/9/4p4/9/4K3R b g 1";
    let r = search(sfen, 5);
    let best = r.best.unwrap();
    assert_ne!(best.to_string(), "1i1c");
    let mut pos = Position::from_sfen(sfen).unwrap();
    pos.do_move(best);
    for reply in legal_moves(&pos) {
        pos.do_move(reply);
        let mated = pos.in_check() && legal_moves(&pos).is_empty();
        pos.undo_move(reply);
        assert!(!mated, "{best} allows {reply} mate");
    }
}

#[test]
fn entering_king_declaration_is_found_at_the_root() {
    let r = search(
        "+R+B+P+P+P+P+P+P+P/1+P+P+PK4/9/9/9/9/9/9/4k4 b RBGGGGSSSS 1",
        5,
    );
    assert!(r.declare_win);
}

#[test]
fn search_never_returns_an_illegal_move() {
    let text = include_str!("data/perft_random.tsv");
    for line in text.lines().filter(|l| !l.starts_with('#')).step_by(7) {
        let sfen = line.split('\t').next().unwrap();
        let pos = Position::from_sfen(sfen).unwrap();
        assert_best_is_legal(&pos, &search(sfen, 3));
    }
}

/// The best move is legal; without one, the side to move declared a win
/// or has no legal move.
fn assert_best_is_legal(pos: &Position, r: &SearchResult) {
    let sfen = pos.to_sfen();
    match r.best {
        Some(m) => assert!(pos.is_pseudo_legal(m) && pos.is_legal(m), "{sfen}: {m}"),
        None => assert!(r.declare_win || legal_moves(pos).is_empty(), "{sfen}"),
    }
}

#[test]
fn node_limit_is_respected() {
    let pos = Position::startpos();
    let mut searcher = Searcher::new(16);
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let r = searcher.search(
        &pos,
        &limits,
        &SearchOptions::default(),
        &Control::new(false),
        &mut Silent,
    );
    assert!(r.best.is_some());
    assert!(r.nodes < 20_000 + 2_048, "{}", r.nodes);
}

#[test]
fn multipv_gives_distinct_lines() {
    struct Collect(Vec<(usize, i32, String)>);
    impl ryuo::search::Reporter for Collect {
        fn pv(&mut self, info: &ryuo::search::PvInfo) {
            self.0
                .push((info.multipv, info.depth, info.pv[0].to_string()));
        }
    }
    let pos = Position::startpos();
    let mut searcher = Searcher::new(16);
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let options = SearchOptions {
        multipv: 3,
        ..SearchOptions::default()
    };
    let mut c = Collect(Vec::new());
    searcher.search(&pos, &limits, &options, &Control::new(false), &mut c);
    let last: Vec<&(usize, i32, String)> = c.0.iter().filter(|(_, d, _)| *d == 4).collect();
    let mut firsts: Vec<&String> = last.iter().map(|(_, _, m)| m).collect();
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{:?}", c.0);
}

#[test]
fn several_threads_always_return_legal_moves() {
    let text = include_str!("data/perft_random.tsv");
    let mut searcher = Searcher::new(16);
    for threads in [2, 3, 4] {
        searcher.set_threads(threads).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')).step_by(11) {
            let sfen = line.split('\t').next().unwrap();
            let pos = Position::from_sfen(sfen).unwrap();
            let limits = Limits {
                depth: Some(5),
                ..Limits::default()
            };
            let r = searcher.search(
                &pos,
                &limits,
                &SearchOptions::default(),
                &Control::new(false),
                &mut Silent,
            );
            match r.best {
                Some(m) => assert!(pos.is_pseudo_legal(m) && pos.is_legal(m), "{sfen}: {m}"),
                None => assert!(r.declare_win || legal_moves(&pos).is_empty(), "{sfen}"),
            }
            assert_line_is_legal(&pos, &r.pv);
            if let Some(p) = r.ponder {
                let mut after = pos.clone();
                after.do_move(r.best.unwrap());
                assert!(
                    after.is_pseudo_legal(p) && after.is_legal(p),
                    "{sfen}: ponder {p}"
                );
            }
        }
    }
}

/// Threads are user input: a count whose tables exceed the free memory is
/// refused before anything is allocated, and the threads stay as they were.
#[test]
fn too_many_threads_are_refused_and_the_old_count_kept() {
    let mut searcher = Searcher::new(1);
    searcher.set_threads(2).unwrap();
    assert!(searcher.set_threads(usize::MAX).is_err());
    assert_eq!(searcher.threads(), 2);
}

#[test]
fn stop_reaches_every_thread() {
    use std::sync::Arc;
    let pos = Position::startpos();
    let mut searcher = Searcher::new(16);
    searcher.set_threads(3).unwrap();
    let control = Arc::new(Control::new(false));
    let c = Arc::clone(&control);
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        c.stop();
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let start = std::time::Instant::now();
    let r = searcher.search(
        &pos,
        &limits,
        &SearchOptions::default(),
        &control,
        &mut Silent,
    );
    stopper.join().unwrap();
    assert!(r.best.is_some());
    // Generous: the machine may be loaded; the point is that it returns.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_repetition_reached_by_a_quiet_move_at_the_horizon_is_a_draw() {
    // The start position has stood three times; 7b8b brings it a fourth
    // time (sennichite). At depth 1 the move's child is a quiescence node,
    // which must see the repetition, not stand pat on the evaluation.
    let mut pos = Position::startpos();
    let cycle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    let line = cycle.iter().cycle().take(3 * cycle.len() + 3);
    for text in line {
        let m = pos.parse_usi_move(text).unwrap();
        pos.do_move(m);
    }
    let repeat = pos.parse_usi_move("7b8b").unwrap();
    let mut searcher = Searcher::new(16);
    let limits = Limits {
        depth: Some(1),
        searchmoves: vec![repeat],
        ..Limits::default()
    };
    let options = SearchOptions {
        draw_value: -37,
        ..SearchOptions::default()
    };
    let result = searcher.search(&pos, &limits, &options, &Control::new(false), &mut Silent);
    assert_eq!(result.pv.first(), Some(&repeat));
    // The draw is scored from the root side's view: its own draw value.
    assert_eq!(result.score, -37);
}

/// The evaluation kernels compiled for x86-64-v3 (chosen at run time) and
/// the portable ones compute the same numbers: `bench` visits the same
/// nodes with either (`RYUO_GENERIC_CPU` forces the portable path).
#[test]
fn cpu_specific_kernels_search_the_same_tree() {
    let bench_nodes = |generic: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ryuo"));
        cmd.args(["bench", "--depth", "7"]);
        if generic {
            cmd.env("RYUO_GENERIC_CPU", "1");
        } else {
            cmd.env_remove("RYUO_GENERIC_CPU");
        }
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        out.lines()
            .find_map(|l| l.strip_prefix("Total nodes: "))
            .map(str::to_string)
            .unwrap()
    };
    assert_eq!(bench_nodes(false), bench_nodes(true));
}

/// A fresh search of `sfen` to `depth` with the default options but the
/// switches `set` changes; its line must be legal.
fn search_with_features(sfen: &str, depth: i32, set: impl Fn(&mut Features)) -> SearchResult {
    let mut options = SearchOptions::default();
    set(&mut options.features);
    search_with_options(sfen, depth, &options)
}

/// A fresh search of `sfen` to `depth` with `options`; its line must be
/// legal.
fn search_with_options(sfen: &str, depth: i32, options: &SearchOptions) -> SearchResult {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut searcher = Searcher::new(16);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let r = searcher.search(&pos, &limits, options, &Control::new(false), &mut Silent);
    assert_line_is_legal(&pos, &r.pv);
    r
}

/// The mate-in-one test inside the search and quiescence (`MateOnePly`)
/// reaches the search (the trees of the bench's tactical and endgame
/// positions change) and keeps its answers sound: the same mates, and
/// lines that are legal and end in mate. Whether it saves nodes is a
/// bench figure (8 % at depth 12), not a test.
#[test]
fn mate_in_one_nodes_keep_the_search_sound() {
    let run = |sfen: &str, depth: i32, on: bool| {
        search_with_features(sfen, depth, |f| f.mate_one_ply = on)
    };
    for (sfen, depth, plies) in [
        ("k8/2s4g+P/5R3/9/9/9/9/9/8K b S 1", 5, 3),
        ("2k3g2/9/9/4R4/9/9/9/9/8K b R2G 1", 7, 5),
    ] {
        let r = run(sfen, depth, true);
        assert_eq!(mate_score(&r), Some(plies), "{sfen}");
        assert_mating_line(sfen, &r.pv, plies as usize);
    }
    let bench = include_str!("../src/bench.sfen");
    let endgames: Vec<&str> = bench
        .lines()
        .skip_while(|l| !l.contains("-- tactical"))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert!(endgames.len() >= 5);
    let (mut on, mut off) = (0, 0);
    for sfen in endgames {
        on += run(sfen, 7, true).nodes;
        off += run(sfen, 7, false).nodes;
    }
    assert_ne!(on, off, "the switch changes nothing");
}

/// The pawn history (`PawnHistory`, off by default) reaches the search:
/// with it on, the bench's middle-game trees change, and every line stays
/// legal and the mates the same.
#[test]
fn pawn_history_changes_the_tree_and_keeps_it_sound() {
    let run = |sfen: &str, depth: i32, on: bool| {
        search_with_features(sfen, depth, |f| f.pawn_history = on)
    };
    assert!(!SearchOptions::default().features.pawn_history);
    let sfen = "k8/2s4g+P/5R3/9/9/9/9/9/8K b S 1";
    let r = run(sfen, 5, true);
    assert_eq!(mate_score(&r), Some(3));
    assert_mating_line(sfen, &r.pv, 3);
    let bench = include_str!("../src/bench.sfen");
    let middle: Vec<&str> = bench
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(4)
        .collect();
    let (mut on, mut off) = (0, 0);
    for sfen in middle {
        on += run(sfen, 8, true).nodes;
        off += run(sfen, 8, false).nodes;
    }
    assert_ne!(on, off, "the switch changes nothing");
}

/// The search-parity switches that are off by default
/// (`ContinuationCorrection`, `QuietPromotions`, `StrictHashCut`,
/// `SmallProbCut`, `ImprovingThroughChecks`, `HashCutHistory`,
/// `FailHighAverage`, `FullWindowFailHigh`, `HistoryFutility`,
/// `FutilityBestValue`, `SeeByReducedDepth`, `ReducedDepthPruning`,
/// `HistoryPruning`, `YoHistory`, `YoLmr`, `YoSingular`, `YoCaptureOrder`,
/// `PvPruning`, `CheckPruning`, `AlphaRaisedReduction`) reach the search:
/// each changes the bench's middle-game trees, and with each the lines
/// stay legal and the mates the same.
#[test]
fn search_parity_switches_keep_the_search_sound() {
    let defaults = SearchOptions::default().features;
    assert!(!defaults.continuation_correction && !defaults.quiet_promotions);
    assert!(!defaults.strict_hash_cut && !defaults.small_probcut);
    assert!(!defaults.improving_through_checks && !defaults.hash_cut_history);
    assert!(!defaults.fail_high_average && !defaults.full_window_fail_high);
    assert!(!defaults.history_futility && !defaults.futility_best_value);
    assert!(!defaults.see_by_reduced_depth && !defaults.reduced_depth_pruning);
    assert!(!defaults.history_pruning && !defaults.yo_history);
    assert!(!defaults.yo_lmr && !defaults.yo_singular && !defaults.yo_capture_order);
    assert!(!defaults.pv_pruning && !defaults.check_pruning && !defaults.alpha_raised_reduction);
    let parity = [
        "ContinuationCorrection",
        "QuietPromotions",
        "StrictHashCut",
        "SmallProbCut",
        "ImprovingThroughChecks",
        "HashCutHistory",
        "FailHighAverage",
        "FullWindowFailHigh",
        "HistoryFutility",
        "FutilityBestValue",
        "SeeByReducedDepth",
        "ReducedDepthPruning",
        "HistoryPruning",
        "YoHistory",
        "YoLmr",
        "YoSingular",
        "YoCaptureOrder",
        "PvPruning",
        "CheckPruning",
        "AlphaRaisedReduction",
    ];
    let switches: Vec<_> = ryuo::search::Features::OPT_IN
        .into_iter()
        .filter(|(name, _)| parity.contains(name))
        .collect();
    assert_eq!(switches.len(), parity.len());
    let bench = include_str!("../src/bench.sfen");
    let middle: Vec<&str> = bench
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    for (name, switch) in switches {
        let run =
            |sfen: &str, depth: i32, on: bool| search_with_features(sfen, depth, |f| switch(f, on));
        let sfen = "k8/2s4g+P/5R3/9/9/9/9/9/8K b S 1";
        let r = run(sfen, 5, true);
        assert_eq!(mate_score(&r), Some(3), "{name}");
        assert_mating_line(sfen, &r.pv, 3);
        // The first position whose tree the switch changes (the small
        // ProbCut's margin is seldom met in a short search).
        let changed = middle
            .iter()
            .any(|sfen| run(sfen, 9, true).nodes != run(sfen, 9, false).nodes);
        assert!(changed, "{name} changes nothing");
    }
}

/// Every search constant at the edge of its tuning range (all at their
/// minimum, then all at their maximum, then each alone at either edge)
/// still searches soundly: SPSA perturbs values up to these bounds, and a
/// panic there (LmrMinDepth 1 once made a depth-1 node clamp to an empty
/// range) loses the game on time.
#[test]
fn every_tunable_at_its_bounds_searches_soundly() {
    use ryuo::search::params::{SearchParams, Tunable, TUNABLES};
    let sfens: Vec<&str> = include_str!("data/perft_random.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .step_by(40)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut settings = Vec::new();
    for edge in [|t: &Tunable| t.min, |t: &Tunable| t.max] {
        let mut all = SearchParams::DEFAULT;
        for t in TUNABLES {
            (t.set)(&mut all, edge(t));
            let mut one = SearchParams::DEFAULT;
            (t.set)(&mut one, edge(t));
            settings.push(one);
        }
        settings.push(all);
    }
    for params in settings {
        let options = SearchOptions {
            params,
            ..SearchOptions::default()
        };
        for sfen in &sfens {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut searcher = Searcher::new(1);
            let limits = Limits {
                nodes: Some(3_000),
                ..Limits::default()
            };
            let r = searcher.search(&pos, &limits, &options, &Control::new(false), &mut Silent);
            assert_line_is_legal(&pos, &r.pv);
            assert_best_is_legal(&pos, &r);
        }
    }
}

/// A 17-ply mate of `tests/data/tsume320.tsv` (the set's shortest known;
/// the first proof the solver finds is longer), White to move: beyond a
/// short alpha-beta search, a few thousand nodes for the df-pn solver.
const LONG_MATE: &str =
    "l1s2g2l/3k2s2/1pn1p4/p2bg1p1p/4N2p1/1gppPBP1P/P1N4SL/1SK1G2R1/L5+rN1 w 6p 92";

/// A search with a time budget of `ms` (minimum, optimum and maximum
/// alike) and `RootMatePercent` = `percent`.
fn timed_search(sfen: &str, ms: u64, percent: u32, depth: Option<i32>) -> SearchResult {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut searcher = Searcher::new(16);
    let options = SearchOptions {
        root_mate_percent: percent,
        ..SearchOptions::default()
    };
    let t = std::time::Duration::from_millis(ms);
    let limits = Limits {
        time: Some(ryuo::time::TimeBudget {
            minimum: t,
            optimum: t,
            maximum: t,
        }),
        depth,
        ..Limits::default()
    };
    let r = searcher.search(&pos, &limits, &options, &Control::new(false), &mut Silent);
    assert_line_is_legal(&pos, &r.pv);
    assert_best_is_legal(&pos, &r);
    r
}

/// The root mate test (`RootMatePercent`) answers a timed search with the
/// solver's mate: the best move starts a verified mating line, and the
/// score is a mate of that line's length. At 100 % the alpha-beta search
/// gets no time, so the mate can only be the solver's.
#[test]
fn the_root_mate_test_plays_a_long_mate() {
    let r = timed_search(LONG_MATE, 1_000, 100, None);
    let len = r.pv.len();
    assert!(len >= 17, "{len}");
    assert_eq!(mate_score(&r), Some(len as i32));
    assert_eq!(r.best, r.pv.first().copied());
    assert_mating_line(LONG_MATE, &r.pv, len);
}

/// Switched off, or in a search bound by depth (the alpha-beta search's
/// own answer is wanted: `go depth`, bench), the test does not run: the
/// result is that of the iterations, one ply here.
#[test]
fn the_root_mate_test_stays_out_when_off_or_depth_bound() {
    let off = timed_search(LONG_MATE, 4_000, 0, Some(1));
    assert_eq!(off.depth, 1);
    let on_depth_bound = timed_search(LONG_MATE, 4_000, 50, Some(1));
    assert_eq!(on_depth_bound.depth, 1);
}

/// `SePvExtension` reaches the PV nodes' singular extension: summed over
/// the bench's positions at a fixed depth, the search without it (0) is
/// smaller than the default's (1), which is smaller than two plies'
/// (2), and every line stays legal (README, "What the PV's singular
/// extension costs"; position by position the order can differ).
#[test]
fn the_pv_singular_extension_setting_changes_the_tree() {
    use ryuo::search::params::SearchParams;
    let sfens: Vec<&str> = include_str!("../src/bench.sfen")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let nodes = |pv_extension: i32| -> u64 {
        let options = SearchOptions {
            params: SearchParams {
                se_pv_extension: pv_extension,
                ..SearchParams::DEFAULT
            },
            ..SearchOptions::default()
        };
        let mut total = 0;
        for sfen in &sfens {
            let r = search_with_options(sfen, 9, &options);
            assert_best_is_legal(&Position::from_sfen(sfen).unwrap(), &r);
            total += r.nodes;
        }
        total
    };
    let (none, one, two) = (nodes(0), nodes(1), nodes(2));
    assert!(none < one && one < two, "{none} {one} {two}");
}
