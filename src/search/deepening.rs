//! Iterative deepening at the root: aspiration windows, MultiPV, the
//! time decisions between iterations, the Lazy SMP depth skipping, and the
//! reports of each iteration.

use super::params::*;
use super::timeman::{begin_no_iteration, IterationTimer};
use super::*;
use crate::movegen::legal_moves;
use crate::position::EnteringKingRule;
use crate::types::Move;

/// Lazy SMP diversification: helper `i` skips the iterations for which
/// `((depth + SKIP_PHASE[j]) / SKIP_SIZE[j]) % 2 == 1`, `j = (i - 1) % 20`,
/// so that at any moment the threads work at different depths.
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

fn skips_depth(thread_id: usize, depth: i32) -> bool {
    if thread_id == 0 {
        return false;
    }
    let j = (thread_id - 1) % 20;
    ((depth + SKIP_PHASE[j]) / SKIP_SIZE[j]) % 2 == 1
}

pub(super) fn iterative_deepening(
    td: &mut ThreadData,
    ctx: &SearchContext,
    reporter: &mut dyn Reporter,
) -> SearchResult {
    let legal = legal_moves(&td.pos);
    let mut result = SearchResult::default();
    if ctx.options.entering_king_rule == EnteringKingRule::Try {
        // The try is a move: played, it wins the game.
        if let Some(m) = td.pos.try_rule_move() {
            result.best = Some(m);
            result.score = MATE - 1;
            result.depth = 1;
            result.pv = vec![m];
            return result;
        }
    }
    if td.pos.can_declare_win(ctx.options.entering_king_rule) {
        result.declare_win = true;
        result.score = MATE - 1;
        return result;
    }
    td.root_moves = legal
        .iter()
        .filter(|m| ctx.limits.searchmoves.is_empty() || ctx.limits.searchmoves.contains(m))
        .map(|&mv| RootMove {
            mv,
            score: -INFINITE,
            previous_score: -INFINITE,
            seldepth: 0,
            pv: vec![mv],
            effort: 0,
        })
        .collect();
    if td.root_moves.is_empty() {
        result.score = -MATE;
        return result;
    }
    for f in td.stack.iter_mut() {
        *f = Frame::default();
    }
    td.currmove = if td.id == 0 {
        reporter.currmove_sink()
    } else {
        None
    };
    // The depth limit binds the main thread only. A helper that ran out of
    // depths would idle while the main thread finishes its last iteration
    // (helper 1 skips every odd depth, so a `go depth 11` left it idle for
    // the whole of iteration 11); helpers go on deeper until the main
    // thread is done and stops them.
    let max_depth = if td.id == 0 {
        ctx.limits.depth.unwrap_or(MAX_PLY as i32 - 1)
    } else {
        MAX_PLY as i32 - 1
    }
    .clamp(1, MAX_PLY as i32 - 1);
    let multipv = ctx.options.multipv.clamp(1, td.root_moves.len());
    let mut completed_depth = 0;
    let mut last_best = Move::NONE;
    let game_ply = td.pos.game_ply();
    let mut timer = IterationTimer::new(td.previous_move, game_ply);

    for depth in 1..=max_depth {
        if depth > 1 && skips_depth(td.id, depth) {
            continue;
        }
        td.root_depth = depth;
        for rm in td.root_moves.iter_mut() {
            rm.previous_score = rm.score;
        }
        for pv_index in 0..multipv {
            td.pv_index = pv_index;
            td.seldepth = 0;
            let prev = td.root_moves[pv_index].previous_score;
            let use_window = ctx.options.features.aspiration
                && depth >= ctx.options.params.aspiration_min_depth
                && prev.abs() < MATE_IN_MAX_PLY;
            let mut delta = ctx.options.params.aspiration_delta;
            let (mut alpha, mut beta) = if use_window {
                ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
            } else {
                (-INFINITE, INFINITE)
            };
            let reduce = ctx.options.params.aspiration_fail_high_reduce;
            let mut failed_high = 0;
            loop {
                let search_depth = (depth - reduce * failed_high).max(1);
                let value = alphabeta::search::<true>(td, ctx, 0, alpha, beta, search_depth, false);
                // Stable sort keeps the order of equal moves: the best of the
                // new iteration first, the lines already fixed in front.
                td.root_moves[pv_index..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if td.stopped {
                    break;
                }
                if value <= alpha {
                    report(td, ctx, reporter, pv_index, Bound::Upper);
                    beta = (alpha + beta) / 2;
                    alpha = (value - delta).max(-INFINITE);
                    failed_high = 0;
                } else if value >= beta {
                    report(td, ctx, reporter, pv_index, Bound::Lower);
                    beta = (value + delta).min(INFINITE);
                    failed_high += 1;
                } else {
                    break;
                }
                delta += delta / 2;
            }
            td.root_moves[..=pv_index].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if td.stopped {
                break;
            }
            report(td, ctx, reporter, pv_index, Bound::Exact);
        }
        if td.stopped {
            break;
        }
        completed_depth = depth;
        let best = td.root_moves[0].mv;
        let best_changed = best != last_best;
        last_best = best;
        let score = td.root_moves[0].score;
        let total_time = if td.id == 0 {
            ctx.control.time_budget(ctx.limits).map(|budget| {
                let effort = td.root_moves[0].effort;
                let share = f64::from(ctx.options.params.time_optimum_pct) / 100.0;
                timer.total_time(
                    budget.optimum.mul_f64(share),
                    depth,
                    score,
                    effort,
                    td.nodes,
                )
            })
        } else {
            None
        };
        timer.iteration_done(depth, best_changed, score);

        // A mate found needs no deeper search (unless told to go on).
        if !ctx.control.waits_for_stop(ctx.limits)
            && !ctx.limits.analysing(ctx.control)
            && score.abs() >= MATE_IN_MAX_PLY
            && MATE - score.abs() <= depth
        {
            break;
        }
        if td.id != 0 {
            continue; // helpers search until the main thread stops them
        }
        if let (Some(budget), Some(total_time)) = (ctx.control.time_budget(ctx.limits), total_time)
        {
            if !ctx.control.is_pondering() && !ctx.limits.analysing(ctx.control) {
                let only_move = td.root_moves.len() == 1;
                let elapsed = ctx.control.elapsed();
                if ctx.options.features.adaptive_time {
                    // Stop once `TimeStopPct` of the time is spent (the
                    // next iteration would most likely be cut unfinished);
                    // otherwise it runs until all of it is (`check_limits`).
                    let total = if only_move {
                        budget.optimum.mul_f64(0.2)
                    } else {
                        total_time
                    };
                    let total = total.max(budget.minimum).min(budget.maximum);
                    let stop_pct = ctx.options.params.time_stop_pct;
                    if begin_no_iteration(elapsed, total, budget.minimum, stop_pct) {
                        break;
                    }
                    td.soft_deadline = Some(total);
                } else {
                    // Stable best move: stop early; unstable: use more.
                    let scale = 0.6 + timer.best_move_changes().min(2.0) * 0.7;
                    let optimum = budget.optimum.mul_f64(if only_move { 0.2 } else { scale });
                    if elapsed >= budget.minimum && elapsed >= optimum.min(budget.maximum) {
                        break;
                    }
                }
            }
        }
    }

    td.currmove = None;
    let best = td.root_moves[0].clone();
    result.best = Some(best.mv);
    result.ponder = best.pv.get(1).copied();
    // Stopped before any move was scored: the window bound is no score.
    result.score = if best.score > -INFINITE {
        best.score
    } else if best.previous_score > -INFINITE {
        best.previous_score
    } else {
        td.evaluate(&ctx.options.evaluator)
    };
    result.depth = completed_depth.max(1);
    result.nodes = td.nodes;
    if result.ponder.is_none() {
        result.ponder = ponder_from_tt(td, ctx, best.mv);
    }
    result.pv = best.pv;
    if td.id == 0 {
        td.previous_move = Some(timer.finish(result.score, game_ply));
    }
    result
}

/// A reply to expect after `best`, from the hash table, for pondering.
fn ponder_from_tt(td: &mut ThreadData, ctx: &SearchContext, best: Move) -> Option<Move> {
    td.pos.do_move(best);
    let reply = ctx
        .tt
        .probe(td.pos.key())
        .map(|h| h.mv)
        .filter(|&m| td.pos.is_legal_move(m));
    td.pos.undo_move(best);
    reply
}

fn report(
    td: &ThreadData,
    ctx: &SearchContext,
    reporter: &mut dyn Reporter,
    pv_index: usize,
    bound: Bound,
) {
    let multipv = ctx.options.multipv.clamp(1, td.root_moves.len());
    let lines: Vec<usize> = if bound == Bound::Exact {
        // After the last line of an iteration, all lines; else just this one.
        if pv_index + 1 == multipv {
            (0..multipv).collect()
        } else {
            return;
        }
    } else {
        vec![pv_index]
    };
    for i in lines {
        let rm = &td.root_moves[i];
        let updated = i <= pv_index;
        let v = if updated { rm.score } else { rm.previous_score };
        let v = if v == -INFINITE { rm.previous_score } else { v };
        if v == -INFINITE {
            continue;
        }
        reporter.pv(&PvInfo {
            multipv: i + 1,
            depth: td.root_depth,
            seldepth: rm.seldepth.max(td.seldepth),
            score: Score::from_value(v),
            bound,
            nodes: ctx.total_nodes(td),
            time: ctx.control.since_start(),
            hashfull: ctx.tt.hashfull(),
            pv: rm.pv.clone(),
        });
    }
}
