//! `ryuo bench`: a fixed list of positions (`bench.sfen`) searched to a
//! fixed depth from a cleared table. The node total is deterministic for a
//! build and serves as the search's signature (`Bench: N` in commit
//! messages); nodes/s measures speed. `--ablate` switches each pruning and
//! ordering technique off in turn and prints the node and time ratios
//! against the full search (the method of SEARCH_NOTES, 002).

use crate::nnue::standard::StandardAccumulators;
use crate::nnue::Accumulators;
use crate::position::Position;
use crate::search::{Control, Evaluator, Features, Limits, SearchOptions, Searcher, Silent};
use crate::types::Move;
use std::io::Write;
use std::time::{Duration, Instant};

/// Depth searched when none is given (about 10–20 s in a release build).
pub const DEFAULT_DEPTH: i32 = 12;

/// The bench positions, in file order.
pub fn positions() -> Vec<&'static str> {
    include_str!("bench.sfen")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Totals of one bench run.
#[derive(Clone, Copy, Debug)]
pub struct BenchTotals {
    /// Nodes over all positions.
    pub nodes: u64,
    /// Search time over all positions.
    pub time: Duration,
}

/// Searches every bench position to `depth` with `threads` threads and
/// `options` (evaluation, switches), printing a line each when `verbose`,
/// and returns the totals; an error if the hash table cannot be allocated.
pub fn run(
    depth: i32,
    hash_mib: usize,
    threads: usize,
    options: &SearchOptions,
    verbose: bool,
    out: &mut impl Write,
) -> Result<BenchTotals, String> {
    let mut searcher = Searcher::try_new(hash_mib)?;
    searcher.set_threads(threads)?;
    let control = Control::default();
    Ok(run_on(
        &mut searcher,
        depth,
        options,
        verbose,
        out,
        &control,
    ))
}

/// The bench on `searcher` as it is (hash size, threads), which it clears
/// before each position; ends early once `control` is stopped (`stop` or
/// `quit` at the USI prompt).
pub fn run_on(
    searcher: &mut Searcher,
    depth: i32,
    options: &SearchOptions,
    verbose: bool,
    out: &mut impl Write,
    control: &Control,
) -> BenchTotals {
    let list = positions();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut totals = BenchTotals {
        nodes: 0,
        time: Duration::ZERO,
    };
    for (i, sfen) in list.iter().enumerate() {
        let pos = Position::from_sfen(sfen).expect("bench positions are valid");
        if control.is_stopped() {
            break;
        }
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search(&pos, &limits, options, control, &mut Silent);
        let elapsed = start.elapsed();
        totals.nodes += result.nodes;
        totals.time += elapsed;
        if verbose {
            let best = if result.declare_win {
                "win".to_string()
            } else {
                result.best.map_or("resign".to_string(), |m| m.to_string())
            };
            let _ = writeln!(
                out,
                "{:>2}/{} depth {:>2} nodes {:>10} time {:>6} ms score {:>6} bestmove {}",
                i + 1,
                list.len(),
                result.depth,
                result.nodes,
                elapsed.as_millis(),
                result.score,
                best
            );
        }
    }
    totals
}

/// Prints the summary lines of a run.
pub fn print_totals(t: &BenchTotals, out: &mut impl Write) {
    let secs = t.time.as_secs_f64().max(1e-9);
    let _ = writeln!(out, "Total time (ms): {}", t.time.as_millis());
    let _ = writeln!(out, "Total nodes: {}", t.nodes);
    let _ = writeln!(out, "Nodes/second: {:.0}", t.nodes as f64 / secs);
}

/// Runs the bench with everything on, then with each technique off alone,
/// and prints the table: node ratio and time ratio against the full search.
pub fn ablate(
    depth: i32,
    hash_mib: usize,
    base_options: &SearchOptions,
    out: &mut impl Write,
) -> Result<(), String> {
    let base = run(depth, hash_mib, 1, base_options, false, out)?;
    let _ = writeln!(
        out,
        "Ablation at depth {depth}, {} positions",
        positions().len()
    );
    let _ = writeln!(
        out,
        "| switched off | nodes | node ratio | time (ms) | time ratio |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: |");
    let _ = writeln!(
        out,
        "| (nothing: baseline) | {} | 1.00 | {} | 1.00 |",
        base.nodes,
        base.time.as_millis()
    );
    let _ = out.flush();
    for (name, switch_off) in Features::ABLATIONS {
        let mut options = base_options.clone();
        switch_off(&mut options.features);
        let t = run(depth, hash_mib, 1, &options, false, out)?;
        let _ = writeln!(
            out,
            "| {name} | {} | {:.2} | {} | {:.2} |",
            t.nodes,
            t.nodes as f64 / base.nodes as f64,
            t.time.as_millis(),
            t.time.as_secs_f64() / base.time.as_secs_f64().max(1e-9)
        );
        let _ = out.flush();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_positions_are_valid() {
        let list = super::positions();
        assert!(list.len() >= 20 && list.len() <= 40, "{}", list.len());
        for sfen in list {
            crate::position::Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        }
    }
}

/// What `ryuo nnue bench` measured.
#[derive(Clone, Copy, Debug)]
pub struct EvalThroughput {
    /// Evaluations made (one after every move).
    pub evals: u64,
    /// Time spent making the moves and evaluating.
    pub time: Duration,
    /// Sum of the values (YaneuraOu's units for its networks), so that two
    /// engines can show they evaluated the same positions the same.
    pub checksum: i64,
}

/// Plays each game's moves from its start position `repeat` times,
/// evaluating after every move: incremental evaluation as a search does it
/// along one line. Only the moves and the evaluations are timed.
pub fn eval_throughput(
    evaluator: &Evaluator,
    games: &[(Position, Vec<Move>)],
    repeat: usize,
) -> EvalThroughput {
    let mut ryuo = Accumulators::new();
    let mut standard = StandardAccumulators::new();
    let mut result = EvalThroughput {
        evals: 0,
        time: Duration::ZERO,
        checksum: 0,
    };
    for _ in 0..repeat {
        for (start, moves) in games {
            let mut pos = start.clone();
            let begin = Instant::now();
            for &m in moves {
                pos.do_move(m);
                let v = match evaluator {
                    Evaluator::Classic => crate::eval::evaluate(&pos),
                    Evaluator::Material => crate::eval::material::evaluate(&pos),
                    Evaluator::Network(net) => ryuo.evaluate(net, &pos),
                    Evaluator::Standard(net, fv_scale) => {
                        net.value(standard.evaluate(net, &pos), *fv_scale, &pos)
                    }
                };
                result.checksum += i64::from(v);
            }
            result.time += begin.elapsed();
            result.evals += moves.len() as u64;
        }
    }
    result
}
