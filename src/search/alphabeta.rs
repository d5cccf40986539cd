//! The negamax alpha-beta searcher and its quiescence search. The steps of
//! `search` are numbered; each pruning rule stands in one place with its
//! conditions spelled out (SEARCH_NOTES.md gives their origin).

use super::movepick::MovePicker;
use super::params::*;
use super::see::see_ge;
use super::tt::{value_from_tt, value_to_tt, Bound};
use super::{SearchContext, ThreadData, CURRMOVE_AFTER};
use crate::bitboard;
use crate::eval::capture_value;
use crate::mate::one_ply::contact_mate_in_one;
use crate::movegen::count_legal;
use crate::position::Repetition;
use crate::types::{Move, Value};
use arrayvec::ArrayVec;
use std::sync::atomic::Ordering;

/// Score of being mated at `ply`.
#[inline]
pub fn mated_in(ply: usize) -> Value {
    -MATE + ply as Value
}

/// Score of mating at `ply`.
#[inline]
pub fn mate_in(ply: usize) -> Value {
    MATE - ply as Value
}

/// Looks at the clock and the limits every `NODES_BETWEEN_CHECKS` nodes.
#[inline]
fn check_limits(td: &mut ThreadData, ctx: &SearchContext) {
    if !td.nodes.is_multiple_of(NODES_BETWEEN_CHECKS) {
        return;
    }
    ctx.node_counts[td.id].store(td.nodes, Ordering::Relaxed);
    if ctx.control.is_stopped() || ctx.helpers_stop.load(Ordering::Relaxed) {
        td.stopped = true;
        return;
    }
    if td.id != 0 {
        return; // the main thread applies the limits for all
    }
    if ctx.limits.nodes.is_some_and(|n| ctx.total_nodes(td) >= n) {
        td.stopped = true;
        return;
    }
    if let Some(budget) = ctx.control.time_budget(ctx.limits) {
        // Depth 1 always completes, so there is a move to play.
        if td.root_depth > 1
            && !ctx.control.is_pondering()
            && !ctx.limits.analysing(ctx.control)
            && ctx.control.elapsed() >= budget.maximum
        {
            td.stopped = true;
        }
    }
}

/// The value of a repetition for the side to move at this node.
fn repetition_value(ctx: &SearchContext, r: Repetition, ply: usize) -> Value {
    match r {
        // DrawValue is for the side that started the search.
        Repetition::Draw | Repetition::None if ply.is_multiple_of(2) => ctx.options.draw_value,
        Repetition::Draw | Repetition::None => -ctx.options.draw_value,
        Repetition::Win => mate_in(ply),
        Repetition::Loss => mated_in(ply),
        Repetition::Superior => SUPERIOR_VALUE,
        Repetition::Inferior => -SUPERIOR_VALUE,
    }
}

/// The value of a position past the game's last move (`MaxMovesToDraw`,
/// YaneuraOu's meaning: with 256, the position after the 256th move is a
/// draw): a draw, unless the last move mated (a mate on the last move
/// counts). `None` while the game goes on.
#[inline]
fn move_limit_value(
    td: &ThreadData,
    ctx: &SearchContext,
    ply: usize,
    in_check: bool,
) -> Option<Value> {
    if td.pos.game_ply() <= ctx.options.max_moves_to_draw {
        return None;
    }
    if in_check && count_legal(&td.pos) == 0 {
        return Some(mated_in(ply));
    }
    Some(repetition_value(ctx, Repetition::Draw, ply))
}

/// Whether a stored value with `bound` settles the window (alpha, beta).
#[inline]
fn bound_cuts(bound: Bound, v: Value, alpha: Value, beta: Value) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => v >= beta,
        Bound::Upper => v <= alpha,
        Bound::None => false,
    }
}

/// The bound a node's result is stored with: a fail high is a lower
/// bound; a PV node that raised alpha knows the exact value; the rest are
/// upper bounds.
#[inline]
fn result_bound(best_value: Value, beta: Value, exact: bool) -> Bound {
    if best_value >= beta {
        Bound::Lower
    } else if exact {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

fn update_pv(td: &mut ThreadData, ply: usize, m: Move) {
    let child_len = td.pv_len[ply + 1].max(ply + 1);
    td.pv[ply][ply] = m;
    for i in ply + 1..child_len {
        td.pv[ply][i] = td.pv[ply + 1][i];
    }
    td.pv_len[ply] = child_len;
}

/// Negamax alpha-beta search of the position in `td.pos` to `depth` plies.
/// `PV`: the node lies on the principal variation (full window).
/// `cut_node`: a null-window node expected to fail high.
pub(crate) fn search<const PV: bool>(
    td: &mut ThreadData,
    ctx: &SearchContext,
    ply: usize,
    mut alpha: Value,
    mut beta: Value,
    mut depth: i32,
    cut_node: bool,
) -> Value {
    let root = ply == 0;
    let features = &ctx.options.features;
    let params = &ctx.options.params;

    // Step 1. Quiescence at the horizon.
    if depth <= 0 {
        return qsearch::<PV>(td, ctx, ply, alpha, beta);
    }
    td.pv_len[ply] = ply;
    td.nodes += 1;
    check_limits(td, ctx);
    if td.stopped {
        return 0;
    }
    if PV && ply as i32 + 1 > td.seldepth {
        td.seldepth = ply as i32 + 1;
    }
    let in_check = td.pos.in_check();

    if !root {
        // Step 2. Game rules: repetition, declaration, the ply limit.
        let rep = td.pos.repetition(ply);
        if rep != Repetition::None {
            return repetition_value(ctx, rep, ply);
        }
        if let Some(v) = move_limit_value(td, ctx, ply, in_check) {
            return v;
        }
        if td.pos.can_declare_win(ctx.options.entering_king_rule) {
            return mate_in(ply + 1);
        }
        if ply >= MAX_PLY - 2 {
            return if in_check {
                0
            } else {
                td.evaluate(&ctx.options.evaluator)
            };
        }
        // Step 3. Mate-distance pruning: no line from here beats a mate
        // already found closer to the root.
        if features.mate_distance_pruning {
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }
    }

    // Step 4. Transposition table.
    let key = td.pos.key();
    let tt_hit = ctx.tt.probe(key);
    let tt_move = if root {
        td.root_moves[td.pv_index].mv
    } else {
        tt_hit.map_or(Move::NONE, |h| h.mv)
    };
    let tt_value = tt_hit.map(|h| value_from_tt(h.value, ply));
    if !PV {
        if let (Some(h), Some(v)) = (tt_hit, tt_value) {
            if h.depth >= depth && bound_cuts(h.bound, v, alpha, beta) {
                return v;
            }
        }
    }

    // Step 4b. Mate in one: a contact mate ends the node at once (not at
    // PV nodes, whose line is printed move by move).
    if !PV && !in_check && tt_hit.is_none() && features.mate_one_ply {
        if let Some(m) = contact_mate_in_one(&mut td.pos) {
            let v = mate_in(ply + 1);
            let eval = td.evaluate(&ctx.options.evaluator);
            // Proven at any depth.
            ctx.tt.store(
                key,
                m,
                value_to_tt(v, ply),
                eval,
                MAX_PLY as i32,
                Bound::Exact,
                false,
            );
            return v;
        }
    }

    // Step 5. Static evaluation.
    td.stack[ply].in_check = in_check;
    td.stack[ply + 2].killers = Default::default();
    let static_eval = if in_check {
        -INFINITE
    } else if let Some(h) = tt_hit {
        h.eval
    } else {
        td.evaluate(&ctx.options.evaluator)
    };
    td.stack[ply].static_eval = static_eval;
    // Improving: better than two plies ago (same side to move).
    let improving = !in_check
        && ply >= 2
        && td.stack[ply - 2].static_eval != -INFINITE
        && static_eval > td.stack[ply - 2].static_eval;
    let mut eval = static_eval;
    if let (Some(h), Some(v)) = (tt_hit, tt_value) {
        if !in_check
            && (h.bound == Bound::Exact
                || (h.bound == Bound::Lower && v > eval)
                || (h.bound == Bound::Upper && v < eval))
        {
            eval = v;
        }
    }

    if !PV && !in_check {
        // Step 6. Reverse futility: far above beta with little depth left,
        // assume a quiet move keeps it there.
        if features.reverse_futility
            && depth <= params.rfp_max_depth
            && eval - params.rfp_margin * (depth - improving as i32) >= beta
            && eval.abs() < MATE_IN_MAX_PLY
        {
            return eval;
        }

        // Step 7. Null move: even passing keeps us above beta.
        if features.null_move
            && ply >= td.nmp_min_ply
            && depth >= params.nmp_min_depth
            && eval >= beta
            && static_eval >= beta
            && beta.abs() < MATE_IN_MAX_PLY
            && td.pos.last_move() != Move::NULL
        {
            let r = params.nmp_base_reduction + depth / params.nmp_depth_divisor;
            td.stack[ply].current_move = Move::NULL;
            td.pos.do_null_move();
            let v = -search::<false>(td, ctx, ply + 1, -beta, -beta + 1, depth - r, !cut_node);
            td.pos.undo_null_move();
            if td.stopped {
                return 0;
            }
            if v >= beta {
                let v = if v >= MATE_IN_MAX_PLY { beta } else { v };
                if depth < params.nmp_verify_depth {
                    return v;
                }
                // Verification at high depth: a reduced search of this node
                // with no null move in its first three quarters (zugzwang
                // positions are the ones a null move misjudges).
                let outer_min_ply = td.nmp_min_ply;
                td.nmp_min_ply = ply + (3 * (depth - r) / 4).max(1) as usize;
                let verified = search::<false>(td, ctx, ply, beta - 1, beta, depth - r, false);
                td.nmp_min_ply = outer_min_ply;
                if verified >= beta {
                    return v;
                }
            }
        }
    }

    // Step 8. Internal iterative reduction: without a hash move, this node
    // was not searched before; search it shallower first.
    if features.iir && (PV || cut_node) && depth >= params.iir_min_depth && tt_move == Move::NONE {
        depth -= 1;
    }

    // Step 9. The moves.
    let us = td.pos.side_to_move();
    let them_king = td.pos.king_square(!us);
    let killer_slots = features.killers as usize;
    let mut picker = MovePicker::new(
        &td.pos,
        tt_move,
        td.stack[ply].killers,
        killer_slots,
        features.history,
    );
    let mut best_value = -INFINITE;
    let mut best_move = Move::NONE;
    let mut move_count = 0usize;
    let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();

    let check_squares = td.pos.check_squares();
    while let Some(m) = picker.next(&td.pos, &td.history) {
        if root && !td.root_moves[td.pv_index..].iter().any(|rm| rm.mv == m) {
            continue;
        }
        if !td.pos.is_legal(m) {
            continue;
        }
        move_count += 1;
        if root && td.currmove.is_some() && ctx.control.since_start() >= CURRMOVE_AFTER {
            let number = move_count + td.pv_index;
            if let Some(report) = td.currmove.as_mut() {
                report(td.root_depth, m, number);
            }
        }
        let capture = td.pos.is_capture(m);
        let promotion = m.is_promotion();
        let quiet = !capture && !promotion;
        let gives_check = check_squares.gives_check(&td.pos, m);
        let is_killer = td.stack[ply].killers.contains(m, killer_slots);
        let mut new_depth = depth - 1;

        // Step 10. Pruning at shallow depth (never at the root, never once
        // a mate is the only hope).
        if !root && best_value > -MATE_IN_MAX_PLY {
            // Move-count pruning (000/001): late quiet, non-checking moves at
            // non-PV nodes not in check. Drops near the enemy king may set
            // up a mate (tsumero) and are kept.
            let near_king = m.is_drop()
                && them_king.is_some_and(|k| {
                    bitboard::king_attacks(k).contains(m.to())
                        || (bitboard::king_attacks(k) & bitboard::king_attacks(m.to())).any()
                });
            if features.move_count_pruning
                && !PV
                && !in_check
                && quiet
                && !gives_check
                && !near_king
                && depth <= params.mcp_max_depth
                && move_count as i32 > params.move_count_limit(depth, improving)
            {
                // Only this move: the picker must still yield later quiet
                // checks, which this rule never prunes.
                continue;
            }
            let lmr_depth = new_depth - td.lmr[depth.min(63) as usize][move_count.min(63)];
            // Futility: a quiet move at a frontier node cannot lift a
            // hopeless static eval to alpha.
            if features.futility
                && !in_check
                && quiet
                && !gives_check
                && lmr_depth < params.futility_max_depth
                && static_eval + params.futility_base + params.futility_per_depth * lmr_depth.max(0)
                    <= alpha
            {
                continue;
            }
            // SEE: skip captures and quiet moves that lose material badly.
            // Checks too: a checking drop that simply loses the piece is no
            // threat, and positions full of pieces in hand have hundreds.
            if features.see_pruning
                && !PV
                && depth <= params.see_prune_max_depth
                && !see_ge(&td.pos, m, -params.see_capture_margin * depth)
            {
                continue;
            }
        }

        // The child's hash entry, fetched while the extension is decided and
        // the move is made.
        ctx.tt.prefetch(td.pos.key_after(m));

        // Step 11. Extensions: a board-move check that does not lose
        // material, within twice the iteration depth. Checking drops are
        // not extended: with pieces in hand there are dozens of them at
        // every node, and extending them multiplied the nodes of a
        // full-hands bench position at depth 8 by 50 (408 M against 8 M).
        if features.check_extension
            && gives_check
            && !m.is_drop()
            && (ply as i32) < 2 * td.root_depth
            && see_ge(&td.pos, m, 0)
        {
            new_depth += 1;
        }

        // Step 12. Make the move and search it. The child's line starts
        // empty: a null-window child that fails high leaves no line of its
        // own, and a stale one from an earlier sibling must not be copied
        // into this node's line (it once put moves after a mate in a PV).
        td.stack[ply].current_move = m;
        if PV {
            td.pv_len[ply + 1] = ply + 1;
        }
        td.pos.do_move(m);
        let mut value;
        let reducible = features.late_move_reductions
            && depth >= params.lmr_min_depth
            && move_count >= params.lmr_min_move as usize + root as usize
            && quiet
            && !gives_check
            && !in_check
            && m != tt_move
            && !is_killer;
        if reducible {
            // Late move reduction (004): reduced null-window search first.
            let mut r = td.lmr[depth.min(63) as usize][move_count.min(63)];
            r += !PV as i32 + cut_node as i32 - improving as i32;
            if features.history {
                r -= td.history.get(us, m) / params.lmr_history_divisor;
            }
            // At least one ply, at most new_depth; with LmrMinDepth 1, a
            // depth-1 node has new_depth 0 and is searched unreduced.
            let d = (new_depth - r.max(0)).max(1).min(new_depth);
            value = -search::<false>(td, ctx, ply + 1, -(alpha + 1), -alpha, d, true);
            // Re-search at full depth when the reduced search beats alpha.
            if value > alpha && d < new_depth {
                value =
                    -search::<false>(td, ctx, ply + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
            }
        } else if !PV || move_count > 1 {
            value = -search::<false>(td, ctx, ply + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
        } else {
            value = alpha + 1; // forces the full-window search below
        }
        // Principal variation search: full window for the first move and
        // for any move that beat alpha inside it.
        if PV && (move_count == 1 || (value > alpha && (root || value < beta))) {
            td.pv_len[ply + 1] = ply + 1;
            value = -search::<true>(td, ctx, ply + 1, -beta, -alpha, new_depth, false);
        }
        td.pos.undo_move(m);
        if td.stopped {
            return 0;
        }

        // Step 13. Bookkeeping at the root: scores and lines of root moves.
        if root {
            let seldepth = td.seldepth;
            let line: Vec<Move> = std::iter::once(m)
                .chain(td.pv[1][1..td.pv_len[1].max(1)].iter().copied())
                .collect();
            if let Some(rm) = td.root_moves.iter_mut().find(|rm| rm.mv == m) {
                if move_count == 1 || value > alpha {
                    rm.score = value;
                    rm.seldepth = seldepth;
                    rm.pv = line;
                } else {
                    rm.score = -INFINITE;
                }
            }
        }

        // Step 14. New best move.
        if value > best_value {
            best_value = value;
            if value > alpha {
                best_move = m;
                if PV {
                    update_pv(td, ply, m);
                }
                if value >= beta {
                    break;
                }
                alpha = value;
            }
        }
        if quiet && m != best_move {
            let _ = quiets_tried.try_push(m);
        }
    }

    // Step 15. No legal move: mated (shogi has no stalemate).
    if move_count == 0 {
        return mated_in(ply);
    }

    // Step 16. Learn from a cutoff: killers and history of quiet moves.
    if best_value >= beta && best_move.is_some() {
        let quiet_best = !td.pos.is_capture(best_move) && !best_move.is_promotion();
        if quiet_best {
            if killer_slots > 0 {
                if killer_slots == 1 {
                    td.stack[ply].killers.0[0] = best_move;
                } else {
                    td.stack[ply].killers.update(best_move);
                }
            }
            if features.history {
                let bonus = params.history_bonus(depth);
                td.history.update(us, best_move, bonus);
                for &q in &quiets_tried {
                    td.history.update(us, q, -bonus);
                }
            }
        }
    }

    // Step 17. Store.
    let bound = result_bound(best_value, beta, PV && best_move.is_some());
    ctx.tt.store(
        key,
        best_move,
        value_to_tt(best_value, ply),
        static_eval,
        depth,
        bound,
        PV,
    );
    best_value
}

/// Quiescence search: captures and material-winning promotions until the
/// position is quiet, standing pat on the static evaluation; all evasions
/// when in check.
pub(crate) fn qsearch<const PV: bool>(
    td: &mut ThreadData,
    ctx: &SearchContext,
    ply: usize,
    mut alpha: Value,
    beta: Value,
) -> Value {
    let params = &ctx.options.params;
    td.nodes += 1;
    check_limits(td, ctx);
    if td.stopped {
        return 0;
    }
    if PV {
        td.pv_len[ply] = ply;
        if ply as i32 + 1 > td.seldepth {
            td.seldepth = ply as i32 + 1;
        }
    }
    let in_check = td.pos.in_check();
    if ply >= MAX_PLY - 2 {
        return if in_check {
            0
        } else {
            td.evaluate(&ctx.options.evaluator)
        };
    }
    // A quiet move at depth 1 arrives here too: a repeated position is a
    // draw (or a perpetual-check result), not a stand-pat score.
    let rep = td.pos.repetition(ply);
    if rep != Repetition::None {
        return repetition_value(ctx, rep, ply);
    }
    if let Some(v) = move_limit_value(td, ctx, ply, in_check) {
        return v;
    }

    let key = td.pos.key();
    let tt_hit = ctx.tt.probe(key);
    let tt_value = tt_hit.map(|h| value_from_tt(h.value, ply));
    if !PV {
        if let (Some(h), Some(v)) = (tt_hit, tt_value) {
            if bound_cuts(h.bound, v, alpha, beta) {
                return v;
            }
        }
    }

    let static_eval;
    let mut best_value;
    if in_check {
        static_eval = -INFINITE;
        best_value = -INFINITE;
    } else {
        static_eval = tt_hit.map_or_else(|| td.evaluate(&ctx.options.evaluator), |h| h.eval);
        // Stand pat: the side to move may decline every capture.
        best_value = static_eval;
        if best_value >= beta {
            if tt_hit.is_none() {
                ctx.tt.store(
                    key,
                    Move::NONE,
                    value_to_tt(best_value, ply),
                    static_eval,
                    -1,
                    Bound::Lower,
                    false,
                );
            }
            return best_value;
        }
        alpha = alpha.max(best_value);
    }

    let tt_move = tt_hit.map_or(Move::NONE, |h| h.mv);
    let mut picker = MovePicker::new_qsearch(&td.pos, tt_move);
    let mut best_move = Move::NONE;
    let mut move_count = 0;
    while let Some(m) = picker.next(&td.pos, &td.history) {
        if !td.pos.is_legal(m) {
            continue;
        }
        move_count += 1;
        if !in_check {
            let capture = td.pos.is_capture(m);
            // Only promotions that gain material count as tactical here.
            if !capture {
                let pt = td.pos.moved_piece(m).kind();
                if !matches!(
                    pt,
                    crate::types::PieceType::Pawn
                        | crate::types::PieceType::Bishop
                        | crate::types::PieceType::Rook
                ) {
                    continue;
                }
            }
            // Delta pruning: even winning the piece does not reach alpha.
            if capture
                && static_eval
                    + capture_value(td.pos.piece_on(m.to()).kind())
                    + params.qs_delta_margin
                    <= alpha
            {
                continue;
            }
            if !see_ge(&td.pos, m, 0) {
                continue;
            }
        }
        ctx.tt.prefetch(td.pos.key_after(m));
        td.pos.do_move(m);
        let value = -qsearch::<PV>(td, ctx, ply + 1, -beta, -alpha);
        td.pos.undo_move(m);
        if td.stopped {
            return 0;
        }
        if value > best_value {
            best_value = value;
            if value > alpha {
                best_move = m;
                if PV {
                    update_pv(td, ply, m);
                }
                if value >= beta {
                    break;
                }
                alpha = value;
            }
        }
    }
    if in_check && move_count == 0 {
        return mated_in(ply);
    }
    let bound = result_bound(best_value, beta, PV && best_move.is_some());
    ctx.tt.store(
        key,
        best_move,
        value_to_tt(best_value, ply),
        static_eval,
        -1,
        bound,
        PV,
    );
    best_value
}
