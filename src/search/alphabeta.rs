//! The negamax alpha-beta searcher and its quiescence search. The steps of
//! `search` are numbered; each pruning rule stands in one place with its
//! conditions spelled out (SEARCH_NOTES.md gives their origin).

use super::correction::{pawn_key, MoveKeys};
use super::history::{piece_to, Histories, PawnHistory, QuietKeys, NO_PAWN_SLOT, NO_PIECE_TO};
use super::movepick::{
    drop_near_king, CaptureOrder, LateQuiets, MovePicker, Ordering as MoveOrdering,
};
use super::options::Features;
use super::params::*;
use super::see::see_ge;
use super::stats::{self, Event, Total};
use super::tt::{value_from_tt, value_to_tt, Bound};
use super::{SearchContext, ThreadData, CURRMOVE_AFTER};
use crate::eval::capture_value;
use crate::mate::one_ply::contact_mate_in_one;
use crate::movegen::{count_legal, MAX_MOVES};
use crate::position::{piece_material, Repetition};
use crate::types::{Move, Value};
use arrayvec::ArrayVec;
use std::sync::atomic::Ordering;
use std::sync::OnceLock;

/// `HistoryFutility`: history points worth one ply of futility depth
/// (Stockfish's 3576; its continuation histories run to about twice
/// our `HISTORY_MAX`, so the same divisor moves the depth half as far).
const FUTILITY_HISTORY_DIVISOR: i32 = 3_576;

/// `HistoryPruning`'s futility value of a quiet move: the static value
/// plus this, plus `HP_FUTILITY_NO_BEST` while no move has raised alpha,
/// plus `HP_FUTILITY_PER_DEPTH` a ply of its reduced depth, plus
/// `HP_FUTILITY_ABOVE_ALPHA` when the static value is above alpha
/// (YaneuraOu's 42, 151, 120 and 86); applied below a reduced depth of
/// `HP_FUTILITY_MAX_DEPTH` (its 13).
const HP_FUTILITY_BASE: Value = 42;
const HP_FUTILITY_NO_BEST: Value = 151;
const HP_FUTILITY_PER_DEPTH: Value = 120;
const HP_FUTILITY_ABOVE_ALPHA: Value = 86;
const HP_FUTILITY_MAX_DEPTH: i32 = 13;

/// `SeeByReducedDepth` and `HistoryPruning`: a quiet move may lose this
/// times its reduced depth squared (YaneuraOu's 25).
const SEE_QUIET_PER_DEPTH_SQ: Value = 25;

/// `SeeByReducedDepth`: a capture, promotion or check may lose this per
/// ply of depth, plus its capture history (YaneuraOu's 167).
const SEE_TACTICAL_PER_DEPTH: Value = 167;

/// `ReducedDepthPruning`: YaneuraOu's reduction table, `unit · ln(i)` for a
/// depth or move count `i` (2763 / 128), the product in 1/1024 plies.
const YO_LMR_UNIT: f64 = 2_763.0 / 128.0;

/// How far above beta a hash lower bound must lie for the small ProbCut
/// (YaneuraOu's 416).
const SMALL_PROBCUT_MARGIN: Value = 416;

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
        if td.root_depth > 1 && !ctx.control.is_pondering() && !ctx.limits.analysing(ctx.control) {
            let elapsed = ctx.control.elapsed();
            let soft = td.soft_deadline.is_some_and(|d| elapsed >= d);
            if soft || elapsed >= budget.maximum {
                td.stopped = true;
            }
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

/// Whether a stored value with `bound` is a better estimate of a node than
/// its static value `eval`: exact, or a bound on the far side of `eval`.
#[inline]
fn bound_refines(bound: Bound, v: Value, eval: Value) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => v > eval,
        Bound::Upper => v < eval,
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

/// Keys of the moves one, two and four plies before the node at `ply`, for
/// the continuation histories (`NO_PIECE_TO` before the root or with the
/// technique switched off).
#[inline]
fn continuation_keys(td: &ThreadData, ctx: &SearchContext, ply: usize) -> [usize; 3] {
    if !ctx.options.features.continuation_history {
        return [NO_PIECE_TO; 3];
    }
    let back = |n: usize| {
        if ply >= n {
            td.stack[ply - n].cont_key
        } else {
            NO_PIECE_TO
        }
    };
    [back(1), back(2), back(4)]
}

/// Rewards the quiet move `m` (key `to`) by `bonus` (a malus when
/// negative) in the butterfly, continuation and pawn histories (the last
/// learns a bonus at 5/6 and a malus at 1/2: YaneuraOu's 850 and 550 of
/// 1,024).
#[inline]
fn update_quiet_histories(
    td: &mut ThreadData,
    us: crate::types::Color,
    m: Move,
    to: usize,
    keys: &QuietKeys,
    bonus: i32,
) {
    td.history.main.update(us, m, bonus);
    for &prev in &keys.cont {
        td.history.continuation.update(prev, to, bonus);
    }
    let pawn_bonus = if bonus > 0 { bonus * 5 / 6 } else { bonus / 2 };
    td.history.pawn.update(keys.pawn_slot, to, pawn_bonus);
}

/// The keys of the quiet histories at the node at `ply`: the moves that
/// led to it and its pawn-structure slot.
fn quiet_keys(td: &ThreadData, ctx: &SearchContext, ply: usize) -> QuietKeys {
    QuietKeys {
        cont: continuation_keys(td, ctx, ply),
        pawn_slot: if ctx.options.features.pawn_history {
            PawnHistory::slot(pawn_key(&td.pos))
        } else {
            NO_PAWN_SLOT
        },
    }
}

/// The cutoff bonus of `depth` for the hash move `m` of a node the hash
/// table ended with a lower bound, when `m` is a quiet move of this
/// position (a 64-bit key collision could hand over any move;
/// `is_pseudo_legal` also turns down an empty hash move).
fn reward_hash_cut(td: &mut ThreadData, ctx: &SearchContext, ply: usize, m: Move, depth: i32) {
    let features = &ctx.options.features;
    if !features.history
        || !td.pos.is_pseudo_legal(m)
        || td.pos.is_capture(m)
        || (m.is_promotion() && !features.quiet_promotions)
    {
        return;
    }
    let keys = quiet_keys(td, ctx, ply);
    let us = td.pos.side_to_move();
    let key = piece_to(&td.pos, m);
    let bonus = if features.yo_history {
        (130 * depth - 71).min(1043) // YaneuraOu's bonus for a hash cut
    } else {
        ctx.options.params.history_bonus(depth)
    };
    let how = Learning::new(ctx, ply);
    learn_quiet(td, how, us, m, key, &keys, bonus);
}

/// How the quiet histories learn at a node: with YaneuraOu's updates
/// (`YoHistory`), and at which ply the low-ply history does
/// (`LowPlyHistory`; `None`: off).
#[derive(Clone, Copy)]
struct Learning {
    yo: bool,
    low_ply: Option<usize>,
}

impl Learning {
    fn new(ctx: &SearchContext, ply: usize) -> Learning {
        Learning {
            yo: ctx.options.features.yo_history,
            low_ply: (ctx.options.params.low_ply_history != 0).then_some(ply),
        }
    }
}

/// Adds `amount` to the quiet histories of `m` (key `to`): Ryuo's update,
/// or YaneuraOu's (`amount` on its scale, shared out per table); and to
/// the low-ply history.
#[inline]
fn learn_quiet(
    td: &mut ThreadData,
    how: Learning,
    us: crate::types::Color,
    m: Move,
    to: usize,
    keys: &QuietKeys,
    amount: i32,
) {
    let yo = how.yo;
    if yo {
        td.history.update_quiet_yo(us, m, to, keys, amount);
    } else {
        update_quiet_histories(td, us, m, to, keys, amount);
    }
    if let Some(ply) = how.low_ply {
        td.history.update_low_ply(ply, m, amount, yo);
    }
}

/// `YoHistory`: YaneuraOu's bonus of the best move at `depth` (before its
/// share per table), on its scale.
#[inline]
fn yo_history_bonus(depth: i32) -> i32 {
    (128 * depth - 77).min(1529)
}

/// `YoHistory`: YaneuraOu's malus of a move tried before the best one at
/// `depth`: 7 to 13 times the bonus at depths 1 and 2, where most
/// updates happen.
#[inline]
fn yo_history_malus(depth: i32) -> i32 {
    (882 * depth - 204).min(2122)
}

/// Keys of the moves that led to the node at `ply`, for the continuation
/// correction (`MoveKeys::NONE` with it switched off).
#[inline]
fn correction_keys(td: &ThreadData, ctx: &SearchContext, ply: usize) -> MoveKeys {
    if !ctx.options.features.continuation_correction {
        return MoveKeys::NONE;
    }
    let back = |n: usize| {
        if ply >= n {
            td.stack[ply - n].cont_key
        } else {
            NO_PIECE_TO
        }
    };
    MoveKeys {
        last: back(1),
        earlier: [back(2), back(4)],
    }
}

/// The static evaluation `raw` at `ply` corrected by the correction
/// history (kept clear of mate scores); `-INFINITE` (in check) stays as
/// it is.
#[inline]
fn corrected_eval(td: &ThreadData, ctx: &SearchContext, ply: usize, raw: Value) -> Value {
    if raw == -INFINITE || !ctx.options.features.correction_history {
        return raw;
    }
    let keys = correction_keys(td, ctx, ply);
    let c = td.correction.correction(
        &td.pos,
        keys,
        ctx.options.features.piece_set_correction,
        ctx.options.params.correction_divisor,
    );
    (raw + c).clamp(-MATE_IN_MAX_PLY + 1, MATE_IN_MAX_PLY - 1)
}

fn update_pv(td: &mut ThreadData, ply: usize, m: Move) {
    let child_len = td.pv_len[ply + 1].max(ply + 1);
    td.pv[ply][ply] = m;
    for i in ply + 1..child_len {
        td.pv[ply][i] = td.pv[ply + 1][i];
    }
    td.pv_len[ply] = child_len;
}

/// The value of a contact mate in one for the side to move at `ply`, if
/// there is one (`MateOnePly`, in the search and in quiescence): at PV
/// nodes the mating move ends the line, and the hash entry holds at any
/// depth, since the mate is proven however deep the node is searched.
fn contact_mate_value<const PV: bool>(
    td: &mut ThreadData,
    ctx: &SearchContext,
    ply: usize,
    key: u64,
) -> Option<Value> {
    let m = contact_mate_in_one(&mut td.pos)?;
    let v = mate_in(ply + 1);
    if PV {
        td.pv_len[ply + 1] = ply + 1;
        update_pv(td, ply, m);
    }
    let eval = td.evaluate(&ctx.options.evaluator);
    ctx.tt.store(
        key,
        m,
        value_to_tt(v, ply),
        eval,
        MAX_PLY as i32,
        Bound::Exact,
        false,
    );
    Some(v)
}

/// YaneuraOu's late-move reduction of the `move_count`-th move at `depth`
/// before the move is made, in 1/1024 plies: `(u ln d)(u ln m)`, two
/// fifths more when not improving, a fixed 1,133, less at a PV node
/// (its window is the root's), and 1,013 more on a PV-marked node.
fn yo_base_reduction(depth: i32, move_count: usize, improving: bool, pv: bool, tt_pv: bool) -> i32 {
    let scale = yo_log(depth.max(1) as usize) * yo_log(move_count.max(1));
    let scale = scale as i32;
    scale - 585 * pv as i32 + (!improving as i32) * scale * 206 / 512 + 1133 + 1013 * tt_pv as i32
}

/// `YO_LMR_UNIT · ln(i)` for a depth or move count `i` (at least 1), from
/// a table: computed at the call, LLVM hoisted the depth's logarithm out
/// of the move loop, and every node paid for it with YaneuraOu's forms
/// off (1 % of the search's time, callgrind).
fn yo_log(i: usize) -> f64 {
    static TABLE: OnceLock<[f64; MAX_MOVES + 1]> = OnceLock::new();
    let table = TABLE.get_or_init(|| std::array::from_fn(|i| YO_LMR_UNIT * (i.max(1) as f64).ln()));
    table[i.min(MAX_MOVES)]
}

/// How the move picker orders captures under `features`.
fn capture_order(features: &Features) -> CaptureOrder {
    if features.yo_capture_order {
        CaptureOrder::Yo
    } else if features.capture_history {
        CaptureOrder::VictimThenHistory
    } else {
        CaptureOrder::Victim
    }
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
    // The tree's shape by depth (`stats` builds only): non-PV nodes not in
    // check, counted at the depth they were entered with.
    let counted = !PV && !in_check;
    let entry_depth = depth;
    stats::count(counted, Event::Node, entry_depth);
    stats::count_total(PV, Total::Pv);
    stats::count_total(!PV && in_check, Total::Check);
    stats::count_total(root, Total::Root);

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
    // A singular-extension search of this node without its hash move:
    // the hash entry's value is not this search's, nothing is pruned
    // before the moves, and nothing is stored.
    let excluded = td.stack[ply].excluded;
    let excluding = excluded.is_some();
    if !excluding {
        td.stack[ply].tt_pv = PV || tt_hit.is_some_and(|h| h.is_pv);
    }
    let tt_pv_reduces = params.lmr_tt_pv_less > 0 && td.stack[ply].tt_pv;
    if !PV && !excluding {
        if let (Some(h), Some(v)) = (tt_hit, tt_value) {
            let deep_enough = if features.strict_hash_cut {
                h.depth > depth - (v <= beta) as i32 && (cut_node == (v >= beta) || depth > 5)
            } else {
                h.depth >= depth
            };
            if deep_enough && bound_cuts(h.bound, v, alpha, beta) {
                stats::count(counted, Event::HashCut, entry_depth);
                if features.hash_cut_history && v >= beta {
                    reward_hash_cut(td, ctx, ply, h.mv, depth);
                }
                return v;
            }
        }
    }

    // Step 4b. Mate in one: a contact mate ends the node at once (at PV
    // nodes the mating move ends the line). Not at the root, which must
    // score its moves; not with a hash entry, whose node was asked before.
    if !root && !in_check && !excluding && tt_hit.is_none() && features.mate_one_ply {
        if let Some(v) = contact_mate_value::<PV>(td, ctx, ply, key) {
            return v;
        }
    }

    // Step 5. Static evaluation: the evaluator's value (kept in the hash
    // table) plus what the correction history learnt of its errors.
    td.stack[ply].in_check = in_check;
    td.stack[ply + 2].killers = Default::default();
    td.stack[ply + 2].cutoff_cnt = 0;
    let raw_eval = if in_check {
        -INFINITE
    } else if let Some(h) = tt_hit {
        h.eval
    } else {
        td.evaluate(&ctx.options.evaluator)
    };
    let static_eval = corrected_eval(td, ctx, ply, raw_eval);
    // In check there is no static value; with `improving_through_checks`
    // the frame carries the one of two plies before (Stockfish's), so
    // that the node two plies below still compares with something.
    td.stack[ply].static_eval = if in_check && features.improving_through_checks && ply >= 2 {
        td.stack[ply - 2].static_eval
    } else {
        static_eval
    };
    // Improving: better than two plies ago (same side to move).
    let improving = !in_check
        && ply >= 2
        && td.stack[ply - 2].static_eval != -INFINITE
        && static_eval > td.stack[ply - 2].static_eval;
    // The opponent's last quiet move, judged by how the static value moved
    // across it: a move that left us worse off than before is a good move
    // of theirs (YaneuraOu's and Stockfish's `evalDiff`).
    if params.eval_diff_history > 0
        && !in_check
        && !excluding
        && ply >= 1
        && !td.stack[ply - 1].in_check
        && td.stack[ply - 1].static_eval != -INFINITE
        && td.pos.last_move() != Move::NULL
        && td.pos.captured_piece().is_empty()
    {
        // YaneuraOu's bounds and offset: a large swing is as telling as
        // a moderate one, and a quiet move is slightly favoured.
        let diff = (-(td.stack[ply - 1].static_eval + static_eval)).clamp(-214, 171) + 60;
        let prev = td.pos.last_move();
        td.history.main.update(
            !td.pos.side_to_move(),
            prev,
            diff * params.eval_diff_history,
        );
    }
    let mut eval = static_eval;
    if let (Some(h), Some(v)) = (tt_hit, tt_value) {
        if !in_check && bound_refines(h.bound, v, eval) {
            eval = v;
        }
    }

    // Step 5b. Hindsight depth (`HindsightDepth`): the parent's reduction
    // judged by the static values. A much-reduced node whose opponent did
    // not get worse is searched a ply deeper; a reduced node where both
    // sides stand well (a quiet position) a ply shallower.
    if params.hindsight_depth > 0 && !in_check && !excluding && ply >= 1 {
        // A reduced parent was not in check (LMR skips such nodes), so its
        // static value is a real one.
        let prior_reduction = td.stack[ply - 1].reduction;
        let parent_eval = td.stack[ply - 1].static_eval;
        if prior_reduction >= 3 && static_eval <= -parent_eval {
            depth += 1;
        }
        if prior_reduction >= 2 && depth >= 2 && static_eval + parent_eval > params.hindsight_margin
        {
            depth -= 1;
        }
    }

    if !PV && !in_check && !excluding {
        // Step 5c. Razoring (`RazorBase`): far below alpha, only a capture
        // could help; quiescence decides.
        if params.razor_base > 0
            && eval < alpha - params.razor_base - params.razor_per_depth_sq * depth * depth
        {
            return qsearch::<false>(td, ctx, ply, alpha, beta);
        }

        // Step 6. Reverse futility: far above beta with little depth left,
        // assume a quiet move keeps it there. With `RfpBlend`, not when the
        // hash move is quiet (a move that held here before), and the value
        // returned lies between beta and eval.
        if features.reverse_futility
            && !tt_pv_reduces
            && depth <= params.rfp_max_depth
            && eval - params.rfp_margin * (depth - improving as i32) >= beta
            && eval.abs() < MATE_IN_MAX_PLY
            && (params.rfp_blend == 0 || tt_move == Move::NONE || td.pos.is_capture(tt_move))
        {
            stats::count(counted, Event::ReverseFutility, entry_depth);
            return if params.rfp_blend == 0 {
                eval
            } else {
                (2 * beta + eval) / 3
            };
        }

        // Step 7. Null move: even passing keeps us above beta.
        if features.null_move
            && ply >= td.nmp_min_ply
            && depth >= params.nmp_min_depth
            && (params.nmp_cut_only == 0 || cut_node)
            && eval >= beta
            && static_eval >= beta + params.nmp_margin_base - params.nmp_margin_per_depth * depth
            && beta.abs() < MATE_IN_MAX_PLY
            && td.pos.last_move() != Move::NULL
        {
            let r = params.nmp_base_reduction + depth / params.nmp_depth_divisor;
            td.stack[ply].current_move = Move::NULL;
            td.stack[ply].cont_key = NO_PIECE_TO;
            td.pos.do_null_move();
            let v = -search::<false>(td, ctx, ply + 1, -beta, -beta + 1, depth - r, !cut_node);
            td.pos.undo_null_move();
            if td.stopped {
                return 0;
            }
            if v >= beta {
                let v = if v >= MATE_IN_MAX_PLY { beta } else { v };
                if depth < params.nmp_verify_depth {
                    stats::count(counted, Event::NullMove, entry_depth);
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
                    stats::count(counted, Event::NullMove, entry_depth);
                    return v;
                }
            }
        }

        // Step 7b. ProbCut: a good capture whose reduced search beats beta
        // by a margin would almost surely beat beta at full depth.
        let probcut_beta =
            beta + params.probcut_margin - params.probcut_improving * improving as i32;
        if features.probcut
            && depth >= params.probcut_min_depth
            && beta.abs() < MATE_IN_MAX_PLY
            && !tt_hit
                .zip(tt_value)
                .is_some_and(|(h, v)| h.depth >= depth - 3 && v < probcut_beta)
        {
            if let Some(v) = probcut(
                td,
                ctx,
                ply,
                probcut_beta,
                static_eval,
                depth,
                cut_node,
                tt_move,
            )
            // A mate found this way is not shifted by the margin: the
            // node is searched as usual.
            .filter(|v| v.abs() < MATE_IN_MAX_PLY)
            {
                ctx.tt.store(
                    key,
                    td.stack[ply].current_move,
                    value_to_tt(v, ply),
                    raw_eval,
                    depth - 3,
                    Bound::Lower,
                    false,
                );
                stats::count(counted, Event::ProbCut, entry_depth);
                return v - (probcut_beta - beta);
            }
        }
    }

    // Step 8. Internal iterative reduction: without a hash move, this node
    // was not searched before; search it shallower first.
    if features.iir
        && (PV || cut_node)
        && !excluding
        && depth >= params.iir_min_depth
        && tt_move == Move::NONE
    {
        depth -= 1;
    }

    // Step 8b. Small ProbCut: a hash lower bound from nearly as deep a
    // search, far above beta, is trusted without searching.
    if features.small_probcut && !root && !in_check && !excluding && beta.abs() < MATE_IN_MAX_PLY {
        let small_probcut_beta = beta + SMALL_PROBCUT_MARGIN;
        if let (Some(h), Some(v)) = (tt_hit, tt_value) {
            if matches!(h.bound, Bound::Lower | Bound::Exact)
                && h.depth >= depth - 4
                && v >= small_probcut_beta
                && v.abs() < MATE_IN_MAX_PLY
            {
                return small_probcut_beta;
            }
        }
    }

    // Step 9. The moves.
    let us = td.pos.side_to_move();
    let them_king = td.pos.king_square(!us);
    let killer_slots = features.killers as usize;
    let keys = quiet_keys(td, ctx, ply);
    stats::count(counted, Event::Loop, entry_depth);
    stats::count(
        counted && tt_move.is_some(),
        Event::LoopHashMove,
        entry_depth,
    );
    let mut picker = MovePicker::new(
        &td.pos,
        tt_move,
        td.stack[ply].killers,
        MoveOrdering {
            killer_slots,
            history: features.history,
            captures: capture_order(features),
            keys,
            depth,
            quiet_promotions: features.quiet_promotions,
            quiet_sort_limit: params.quiet_sort_limit,
            quiet_check_bonus: params.quiet_check_bonus,
            ply,
            low_ply_history: params.low_ply_history,
        },
    );
    let mut best_value = -INFINITE;
    let mut best_move = Move::NONE;
    let mut move_count = 0usize;
    // Moves searched without raising alpha, for the maluses: (move, key).
    let mut quiets_tried: ArrayVec<(Move, usize), 64> = ArrayVec::new();
    let mut captures_tried: ArrayVec<(Move, usize), 32> = ArrayVec::new();

    // `YoLmr`'s and `YoSingular`'s per-node terms: a node whose hash move
    // captures reduces its other moves more (and extends its hash move
    // less); how far the correction history moved the static value (its
    // evaluation's likely error) reduces less (and extends less).
    let yo_lmr = features.yo_lmr && features.late_move_reductions;
    let yo_singular = features.yo_singular && features.singular_extension;
    let tt_capture = (yo_lmr || yo_singular) && tt_move.is_some() && td.pos.is_capture(tt_move);
    let correction = if (yo_lmr || yo_singular) && raw_eval != -INFINITE {
        static_eval - raw_eval
    } else {
        0
    };

    // Gathered once: every move is made and taken back before the next.
    let check_squares = td.pos.check_squares();
    let legality = td.pos.legality_context();
    // Past this many moves, quiet moves are pruned (`i32::MAX`: never).
    let move_count_limit = if features.move_count_pruning
        && (!PV || features.pv_pruning)
        && (!in_check || features.check_pruning)
        && depth <= params.mcp_max_depth
    {
        params.move_count_limit(depth, improving)
    } else {
        i32::MAX
    };
    while let Some(m) = picker.next(&td.pos, &td.history) {
        // Legal quiet moves the picker passed over for move-count pruning.
        move_count += picker.take_passed();
        if root && !td.root_moves[td.pv_index..].iter().any(|rm| rm.mv == m) {
            continue;
        }
        if m == excluded || !td.pos.is_legal_in(&legality, m) {
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
        // A promotion to an empty square is tactical unless
        // `quiet_promotions` counts it among the quiet moves.
        let promotion = m.is_promotion() && !features.quiet_promotions;
        let quiet = !capture && !promotion;
        let gives_check = check_squares.gives_check(&td.pos, m);
        let prunable = !root && best_value > -MATE_IN_MAX_PLY;

        // Step 10. Pruning at shallow depth (never at the root, never once
        // a mate is the only hope). Move-count pruning (000/001) first: it
        // ends most of the moves a node is given past its limit, so it
        // comes before the history lookups the other rules need.
        // Late quiet, non-checking moves at non-PV nodes not in check;
        // drops near the enemy king may set up a mate (tsumero) and are
        // kept.
        if prunable
            && quiet
            && move_count as i32 > move_count_limit
            && (features.skip_late_quiets || (!gives_check && !drop_near_king(m, them_king)))
        {
            // `SkipLateQuiets` prunes every later quiet move too; else
            // only this one: the picker must still yield later quiet
            // checks, which this rule never prunes.
            if features.skip_late_quiets {
                picker.skip_quiets();
            } else {
                picker.prune_late_quiets(LateQuiets::new(&td.pos, check_squares));
            }
            continue;
        }
        let is_killer = td.stack[ply].killers.contains(m, killer_slots);
        let key = piece_to(&td.pos, m);
        // How well this quiet move did as a reply to the last two moves.
        let cont_score = if quiet {
            td.history.continuation.get(keys.cont[0], key)
                + td.history.continuation.get(keys.cont[1], key)
        } else {
            0
        };
        let mut new_depth = depth - 1;

        if prunable {
            // The depth YaneuraOu's reduction (in 1/1024 plies) would
            // leave the move (`ReducedDepthPruning`, `HistoryPruning`).
            let yo_reduced_depth = || {
                let tt_pv = td.stack[ply].tt_pv;
                new_depth - yo_base_reduction(depth, move_count, improving, PV, tt_pv) / 1024
            };
            let lmr_depth = if features.reduced_depth_pruning {
                yo_reduced_depth()
            } else {
                new_depth - td.lmr[depth.min(63) as usize][move_count.min(63)]
            };
            // How well this quiet move did as a reply, with the pawn
            // structure's history: read only where a rule asks.
            let reply_score = || cont_score + td.history.pawn.get(keys.pawn_slot, key);
            // `HistoryPruning` (YaneuraOu's and Stockfish's rule for quiet
            // moves, at any depth): the move is judged at the depth its
            // reduction would leave it, moved by its histories, so a move
            // the histories dislike is cut however deep the node, one they
            // like keeps its margin. It replaces the three rules below for
            // the moves it judges.
            let history_judged = features.history_pruning
                && quiet
                && !gives_check
                && !in_check
                && depth <= params.history_prune_max_depth;
            if history_judged {
                let reply = reply_score();
                if reply < -params.history_prune_margin * depth {
                    continue;
                }
                let history = reply + td.history.main.get(us, m);
                let reduced_depth = yo_reduced_depth() + history / params.history_prune_divisor;
                let futility_value = static_eval
                    + HP_FUTILITY_BASE
                    + HP_FUTILITY_NO_BEST * (!best_move.is_some()) as i32
                    + HP_FUTILITY_PER_DEPTH * reduced_depth
                    + HP_FUTILITY_ABOVE_ALPHA * (static_eval > alpha) as i32;
                if reduced_depth < HP_FUTILITY_MAX_DEPTH && futility_value <= alpha {
                    if best_value <= futility_value
                        && best_value.abs() < MATE_IN_MAX_PLY
                        && futility_value.abs() < MATE_IN_MAX_PLY
                    {
                        best_value = futility_value;
                    }
                    continue;
                }
                let d = reduced_depth.max(0);
                if !see_ge(&td.pos, m, -SEE_QUIET_PER_DEPTH_SQ * d * d) {
                    continue;
                }
            }
            // Continuation-history pruning: a quiet move that has kept
            // failing as the reply to the last two moves (and in this pawn
            // structure), at low depth.
            if features.continuation_history
                && !in_check
                && quiet
                && !gives_check
                && !is_killer
                && lmr_depth < params.cont_prune_max_depth
                && !history_judged
                && reply_score() < -params.cont_prune_margin * depth
            {
                continue;
            }
            let futility_depth = if features.history_futility && quiet {
                lmr_depth + reply_score() / FUTILITY_HISTORY_DIVISOR
            } else {
                lmr_depth
            };
            // Futility: a quiet move at a frontier node cannot lift a
            // hopeless static eval to alpha.
            if features.futility
                && !in_check
                && quiet
                && !gives_check
                && futility_depth < params.futility_max_depth
                && !history_judged
            {
                let futility_value = static_eval
                    + params.futility_base
                    + params.futility_per_depth * futility_depth.max(0);
                if futility_value <= alpha {
                    if features.futility_best_value
                        && futility_value > best_value
                        && best_value.abs() < MATE_IN_MAX_PLY
                    {
                        best_value = futility_value;
                    }
                    continue;
                }
            }
            // Capture futility (`CaptureFutilityBase`, YaneuraOu's 231 and
            // 211 a ply): winning the piece, and a margin, still leaves the
            // static value at or below alpha.
            if params.capture_futility_base > 0
                && capture
                && !gives_check
                && !in_check
                && lmr_depth < 7
                && static_eval
                    + params.capture_futility_base
                    + params.capture_futility_per_depth * lmr_depth.max(0)
                    + capture_value(td.pos.piece_on(m.to()).kind())
                    <= alpha
            {
                continue;
            }
            // SEE: skip captures and quiet moves that lose material badly.
            // Checks too: a checking drop that simply loses the piece is no
            // threat, and positions full of pieces in hand have hundreds.
            if features.see_pruning {
                let threshold = if !features.see_by_reduced_depth {
                    ((!PV || features.pv_pruning) && depth <= params.see_prune_max_depth)
                        .then(|| -params.see_capture_margin * depth)
                } else if quiet && !gives_check {
                    let d = futility_depth.max(0);
                    Some(-SEE_QUIET_PER_DEPTH_SQ * d * d)
                } else {
                    let history = if capture && features.capture_history {
                        td.history.capture.get(key, td.pos.piece_on(m.to()).kind())
                    } else {
                        0
                    };
                    Some(-(SEE_TACTICAL_PER_DEPTH * depth + history * 34 / 1024).max(0))
                };
                // A good capture passed `see_ge(m, 0)` in the picker.
                let known = |t: Value| t <= 0 && picker.exchange_known_good();
                if !history_judged && threshold.is_some_and(|t| !known(t) && !see_ge(&td.pos, m, t))
                {
                    continue;
                }
            }
        }

        // The child's hash entry, fetched while the extension is decided and
        // the move is made.
        ctx.tt.prefetch(td.pos.key_after(m));

        // Step 11. Extensions, within twice the iteration depth.
        // Singular extension: the hash move, a lower bound from a search
        // nearly as deep, is searched deeper when every other move fails
        // clearly below its value (a reduced search without it says so),
        // twice as deep when far below. Otherwise: if even the other
        // moves reach beta, the node fails high at once (multi-cut); if
        // the hash move alone is expected to cut, it is searched
        // shallower (negative extension; `SeCutNegative`: at any cut node).
        let mut extension = 0;
        if features.singular_extension && !root && m == tt_move && !excluding {
            let tt_pv = td.stack[ply].tt_pv;
            let deep_enough = if yo_singular {
                depth >= 6 + tt_pv as i32
            } else {
                depth >= params.se_min_depth && (ply as i32) < 2 * td.root_depth
            };
            if let (true, Some(h), Some(tv)) = (deep_enough, tt_hit, tt_value) {
                if h.bound != Bound::Upper
                    && h.bound != Bound::None
                    && h.depth >= depth - 3
                    && tv.abs() < MATE_IN_MAX_PLY
                {
                    let singular_beta = if yo_singular {
                        tv - (60 + 66 * (tt_pv && !PV) as i32) * depth / 55
                    } else {
                        tv - params.se_margin * depth / 16
                    };
                    td.stack[ply].excluded = m;
                    let v = search::<false>(
                        td,
                        ctx,
                        ply,
                        singular_beta - 1,
                        singular_beta,
                        (depth - 1) / 2,
                        cut_node,
                    );
                    td.stack[ply].excluded = Move::NONE;
                    if td.stopped {
                        return 0;
                    }
                    // Multi-cut: YaneuraOu returns the reduced search's
                    // value once it reaches beta; Ryuo's form, the margin's
                    // bound once that is at beta.
                    let multi_cut = if yo_singular {
                        (v >= beta && v.abs() < MATE_IN_MAX_PLY).then_some(v)
                    } else {
                        (singular_beta >= beta).then_some(singular_beta)
                    };
                    let (negative, cut_negative) = if yo_singular {
                        (3, 2)
                    } else {
                        (params.se_negative, params.se_cut_negative)
                    };
                    if v < singular_beta {
                        if yo_singular {
                            // YaneuraOu's margins: a quiet hash move off
                            // the PV is extended by three plies unless the
                            // static value's correction is large. Its
                            // |correction| / 210,590 on its scale (131,072
                            // a point) is 0.62 a point here.
                            let corr_adj = correction.abs() * 62 / 100;
                            let deep = (ply as i32 > td.root_depth) as i32;
                            let double_margin = -4 + 212 * PV as i32
                                - 182 * (!tt_capture) as i32
                                - corr_adj
                                - 44 * deep;
                            let triple_margin = 73 + 320 * PV as i32 - 218 * (!tt_capture) as i32
                                + 92 * tt_pv as i32
                                - corr_adj
                                - 45 * deep;
                            extension = 1
                                + (v < singular_beta - double_margin) as i32
                                + (v < singular_beta - triple_margin) as i32;
                            depth += 1;
                        } else {
                            // A second ply when far below: at PV nodes
                            // with `SePvExtension` 2 (0: none there),
                            // elsewhere within `SeMaxDoubles` a path.
                            let far_below = v < singular_beta - params.se_double_margin;
                            extension = if PV {
                                params.se_pv_extension.min(1)
                                    + (params.se_pv_extension >= 2 && far_below) as i32
                            } else {
                                1 + (far_below
                                    && td.stack[ply].double_extensions < params.se_max_doubles)
                                    as i32
                            };
                        }
                    } else if let Some(value) = multi_cut {
                        return value;
                    } else if tv >= beta {
                        extension = -negative;
                    } else if cut_node {
                        extension = -cut_negative;
                    }
                }
            }
        }
        // A board-move check that does not lose material. Checking drops
        // are not extended: with pieces in hand there are dozens of them
        // at every node, and extending them multiplied the nodes of a
        // full-hands bench position at depth 8 by 50 (408 M against 8 M).
        if extension == 0
            && features.check_extension
            && gives_check
            && !m.is_drop()
            && (ply as i32) < 2 * td.root_depth
            && see_ge(&td.pos, m, 0)
        {
            extension = 1;
        }
        new_depth += extension;
        td.stack[ply + 1].double_extensions =
            td.stack[ply].double_extensions + (extension >= 2) as i32;

        // Step 12. Make the move and search it. The child's line starts
        // empty: a null-window child that fails high leaves no line of its
        // own, and a stale one from an earlier sibling must not be copied
        // into this node's line (it once put moves after a mate in a PV).
        td.stack[ply].current_move = m;
        td.stack[ply].cont_key = key;
        if PV {
            td.pv_len[ply + 1] = ply + 1;
        }
        // `YoLmr`: YaneuraOu's reduction of this move, in 1/1024 plies
        // (read before the move, which takes the victim off the board).
        let yo_r = if yo_lmr {
            let tt_pv = td.stack[ply].tt_pv;
            let mut r = yo_base_reduction(depth, move_count, improving, PV, tt_pv);
            if tt_pv {
                let (above_alpha, deep) = tt_hit
                    .zip(tt_value)
                    .map_or((false, false), |(h, v)| (v > alpha, h.depth >= depth));
                r -= 2819
                    + 973 * PV as i32
                    + 905 * above_alpha as i32
                    + deep as i32 * (935 + 959 * cut_node as i32);
            }
            // YaneuraOu's |correction| / 25,600 on its scale, where a
            // point of the static value is 131,072: 5.12 a point.
            r += 691 - 65 * move_count as i32 - correction.abs() * 512 / 100;
            if cut_node {
                r += 3611 + 985 * (!tt_move.is_some()) as i32;
            }
            r += 1054 * tt_capture as i32;
            let next_cutoffs = td.stack[ply + 1].cutoff_cnt;
            if next_cutoffs > 1 {
                r += 251 + 1124 * (next_cutoffs > 2) as i32 + 1042 * (!PV && !cut_node) as i32;
            }
            r -= 2239 * (m == tt_move) as i32;
            let stat = if capture {
                let victim = td.pos.piece_on(m.to()).kind();
                863 * piece_material(victim) / 128 + td.history.yo_capture_stat(key, victim)
            } else {
                td.history.yo_quiet_stat(us, m, key, &keys)
            };
            r -= stat * 428 / 4096;
            if !PV && !cut_node {
                r += r * 273 / (256 * depth + 260);
            }
            r
        } else {
            0
        };
        let yo_reduced = yo_lmr && depth >= 2 && move_count > 1;
        let reducible = !yo_lmr
            && features.late_move_reductions
            && depth >= params.lmr_min_depth
            && move_count >= params.lmr_min_move as usize + root as usize
            && (quiet || features.capture_reductions)
            && !gives_check
            && !in_check
            && m != tt_move
            && !is_killer;
        // Read before the move, which takes the victim off the board.
        let capture_stat = if reducible && capture && features.capture_history {
            td.history.capture.get(key, td.pos.piece_on(m.to()).kind())
        } else {
            0
        };
        let nodes_before = td.nodes;
        stats::count(counted, Event::Move, entry_depth);
        stats::count(
            counted && tt_move == Move::NONE && move_count == 1 && !quiet,
            Event::NoHashFirstTactical,
            entry_depth,
        );
        stats::count(PV, Event::PvMove, entry_depth);
        stats::count(!PV && in_check, Event::CheckMove, entry_depth);
        stats::count_total(root, Total::RootMove);
        stats::count(counted && !quiet, Event::MoveTactical, entry_depth);
        stats::count(
            counted && quiet && gives_check,
            Event::MoveCheck,
            entry_depth,
        );
        stats::count(
            counted && quiet && !gives_check && m.is_drop(),
            Event::MoveDrop,
            entry_depth,
        );
        td.pos.do_move(m);
        // Late move reduction (004): the depth of the reduced null-window
        // search, and the margins (deeper, shallower) by which its
        // re-search goes a ply deeper or shallower, if at all.
        let reduced = if yo_reduced {
            // YaneuraOu's: at least a ply, at most two beyond the full
            // depth, a ply more at PV nodes.
            let d = (new_depth - yo_r / 1024).min(new_depth + 2).max(1) + PV as i32;
            Some((d, Some((48, 9))))
        } else if reducible {
            let mut r = td.lmr[depth.min(63) as usize][move_count.min(63)];
            r += !PV as i32 + cut_node as i32 - improving as i32;
            r += params.lmr_cut_extra * cut_node as i32;
            if tt_pv_reduces {
                r -= params.lmr_tt_pv_less;
            }
            // Captures and promotions (YaneuraOu reduces them too): a ply
            // less than a quiet move, less still when the capture history
            // likes the capture.
            if !quiet {
                r -= 1 + 2 * capture_stat / params.lmr_history_divisor;
            }
            if quiet && features.history {
                // Reduce less the moves the histories like, more the rest.
                let stat = 2 * td.history.main.get(us, m) + cont_score;
                r -= stat / params.lmr_history_divisor;
            }
            // At least one ply, at most new_depth; with LmrMinDepth 1, a
            // depth-1 node has new_depth 0 and is searched unreduced.
            let d = (new_depth - r.max(-params.lmr_max_extension))
                .max(1)
                .min(new_depth + params.lmr_max_extension);
            let adjust = (params.lmr_research_adjust != 0)
                .then_some((params.lmr_deeper_margin, params.lmr_shallower_margin));
            Some((d, adjust))
        } else {
            None
        };
        let mut value;
        if let Some((d, adjust)) = reduced {
            stats::count(counted && d < new_depth, Event::Reduced, entry_depth);
            stats::count(
                counted && cut_node && d < new_depth,
                Event::ReducedAtCut,
                entry_depth,
            );
            td.stack[ply].reduction = new_depth - d;
            value = -search::<false>(td, ctx, ply + 1, -(alpha + 1), -alpha, d, true);
            td.stack[ply].reduction = 0;
            // Re-search when the reduced search beats alpha: at the full
            // depth, or a ply deeper or shallower by how far it beat the
            // best value (a clear gain is worth a closer look; a marginal
            // one at the reduced depth may stand).
            if value > alpha {
                let mut full = new_depth;
                if let Some((deeper, shallower)) = adjust {
                    full += (d < new_depth && value > best_value + deeper) as i32
                        - (value < best_value + shallower) as i32;
                }
                if full > d {
                    stats::count(counted, Event::Researched, entry_depth);
                    stats::count(counted && cut_node, Event::ResearchedAtCut, entry_depth);
                    value =
                        -search::<false>(td, ctx, ply + 1, -(alpha + 1), -alpha, full, !cut_node);
                }
                // YaneuraOu's continuation bonus after a reduced search
                // that beat alpha.
                if yo_lmr && quiet {
                    td.history.update_continuation_yo(key, &keys, 1426);
                }
            }
        } else if !PV || move_count > 1 {
            // `YoLmr`: the first move of a non-PV node is searched a ply or
            // two shallower when its reduction would be large.
            let shallower = if yo_lmr {
                let r = yo_r + 1057 * (!tt_move.is_some()) as i32;
                (r > 4628) as i32 + (r > 5772 && new_depth > 2) as i32
            } else {
                0
            };
            value = -search::<false>(
                td,
                ctx,
                ply + 1,
                -(alpha + 1),
                -alpha,
                new_depth - shallower,
                !cut_node,
            );
        } else {
            value = alpha + 1; // forces the full-window search below
        }
        // Principal variation search: full window for the first move and
        // for any move that beat alpha inside it.
        if PV
            && (move_count == 1
                || (value > alpha && (root || value < beta || features.full_window_fail_high)))
        {
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
            let effort = td.nodes - nodes_before;
            let child_line = &td.pv[1][1..td.pv_len[1].max(1)];
            if let Some(rm) = td.root_moves.iter_mut().find(|rm| rm.mv == m) {
                rm.effort += effort;
                if move_count == 1 || value > alpha {
                    rm.score = value;
                    rm.seldepth = seldepth;
                    // Into the line's own buffer: no allocation once it
                    // has grown to the longest line.
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend_from_slice(child_line);
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
                    td.stack[ply].cutoff_cnt += (extension < 2 || PV) as i32;
                    stats::count(counted, Event::Cutoff, entry_depth);
                    stats::count(counted && move_count == 1, Event::CutoffFirst, entry_depth);
                    stats::count(counted && m == tt_move, Event::CutoffHashMove, entry_depth);
                    let no_hash = counted && tt_move == Move::NONE;
                    stats::count(no_hash, Event::CutoffNoHash, entry_depth);
                    stats::count(
                        no_hash && move_count == 1,
                        Event::CutoffNoHashFirst,
                        entry_depth,
                    );
                    stats::count(no_hash && !quiet, Event::CutoffNoHashTactical, entry_depth);
                    stats::count_by(counted, Event::CutoffIndex, entry_depth, move_count as u64);
                    break;
                }
                if features.alpha_raised_reduction
                    && depth > 2
                    && depth < 14
                    && value.abs() < MATE_IN_MAX_PLY
                {
                    depth -= 2;
                }
                alpha = value;
            }
        }
        if m != best_move {
            if quiet {
                let _ = quiets_tried.try_push((m, key));
            } else if capture {
                let _ = captures_tried.try_push((m, key));
            }
        }
    }

    // Step 15. No legal move: mated (shogi has no stalemate). Without
    // its excluded move, a node with only that move fails low.
    if move_count == 0 {
        return if excluding { alpha } else { mated_in(ply) };
    }

    // Step 16. Learn from a cutoff: killers and the histories. The best
    // move earns a bonus; the moves of its kind searched before it (quiet
    // moves for a quiet best move, captures always) a malus.
    // `YoHistory` learns from any best move, as YaneuraOu does (an exact
    // value at a PV node too); the killers only from cutoffs.
    let learn = best_move.is_some() && (best_value >= beta || features.yo_history);
    if learn {
        let yo = features.yo_history;
        // The best move's bonus, the first earlier move's malus and how
        // each further one fades (in 1/1024), and the captures' amounts.
        let (quiet_bonus, mut quiet_malus, fade, capture_bonus, capture_malus) = if yo {
            let bonus = yo_history_bonus(depth) + 353 * (best_move == tt_move) as i32;
            let malus = yo_history_malus(depth);
            (
                bonus * 806 / 1024,
                malus * 1113 / 1024 * 977 / 1024,
                977,
                Histories::yo_capture_amount(bonus * 1286 / 1024),
                Histories::yo_capture_amount(malus * 1559 / 1024),
            )
        } else {
            let (bonus, malus) = (params.history_bonus(depth), params.history_malus(depth));
            (bonus, malus, 1024, bonus, malus)
        };
        let quiet_best = !td.pos.is_capture(best_move)
            && (features.quiet_promotions || !best_move.is_promotion());
        if quiet_best {
            if killer_slots > 0 && best_value >= beta {
                if killer_slots == 1 {
                    td.stack[ply].killers.0[0] = best_move;
                } else {
                    td.stack[ply].killers.update(best_move);
                }
            }
            if features.history {
                let best_key = piece_to(&td.pos, best_move);
                let how = Learning::new(ctx, ply);
                learn_quiet(td, how, us, best_move, best_key, &keys, quiet_bonus);
                for &(q, q_key) in &quiets_tried {
                    learn_quiet(td, how, us, q, q_key, &keys, -quiet_malus);
                    quiet_malus = quiet_malus * fade / 1024;
                }
            }
        } else if features.capture_history && td.pos.is_capture(best_move) {
            let victim = td.pos.piece_on(best_move.to()).kind();
            let best_key = piece_to(&td.pos, best_move);
            td.history.capture.update(best_key, victim, capture_bonus);
        }
        if features.capture_history {
            for &(c, c_key) in &captures_tried {
                let victim = td.pos.piece_on(c.to()).kind();
                td.history.capture.update(c_key, victim, -capture_malus);
            }
        }
    }

    // A singular-extension search stores nothing and teaches nothing: it
    // left the best move out.
    if excluding {
        return best_value;
    }

    // Step 17. Learn the static evaluation's error, where the result says
    // something about it: not in check, not settled by a capture, and a
    // bound on the right side of the static value (a fail high above it,
    // a fail low below it, or an exact value).
    let settled_by_capture = best_move.is_some() && td.pos.is_capture(best_move);
    let informative = if best_value >= beta {
        best_value > static_eval
    } else if best_move.is_some() {
        true
    } else {
        best_value < static_eval
    };
    if features.correction_history
        && !in_check
        && !settled_by_capture
        && informative
        && best_value.abs() < MATE_IN_MAX_PLY
    {
        let keys = correction_keys(td, ctx, ply);
        td.correction.update(
            &td.pos,
            keys,
            features.piece_set_correction,
            static_eval,
            best_value,
            depth,
        );
    }

    // A fail high far above beta from a shallow search is pulled toward
    // beta: the deeper the search, the more its value is trusted.
    if features.fail_high_average
        && best_value >= beta
        && best_value.abs() < MATE_IN_MAX_PLY
        && beta.abs() < MATE_IN_MAX_PLY
    {
        best_value = (best_value * depth + beta) / (depth + 1);
    }

    // A node that failed low below a PV node joins the PV's marks: the
    // parent's move was probably good, so this node's moves matter.
    if params.lmr_tt_pv_less > 0 && best_move == Move::NONE && ply > 0 {
        td.stack[ply].tt_pv |= td.stack[ply - 1].tt_pv;
    }

    // Step 18. Store.
    let bound = result_bound(best_value, beta, PV && best_move.is_some());
    ctx.tt.store(
        key,
        best_move,
        value_to_tt(best_value, ply),
        raw_eval,
        depth,
        bound,
        td.stack[ply].tt_pv,
    );
    best_value
}

/// ProbCut's move loop: the captures (and promotions) whose exchange gains
/// at least what the static evaluation misses of `probcut_beta`, each
/// verified by quiescence and then by a search four plies shallower.
/// The value of the first that reaches `probcut_beta` (its move left in
/// `td.stack[ply].current_move`), or `None`.
#[allow(clippy::too_many_arguments)]
fn probcut(
    td: &mut ThreadData,
    ctx: &SearchContext,
    ply: usize,
    probcut_beta: Value,
    static_eval: Value,
    depth: i32,
    cut_node: bool,
    tt_move: Move,
) -> Option<Value> {
    let mut picker = MovePicker::new_qsearch(
        &td.pos,
        tt_move,
        capture_order(&ctx.options.features),
        ctx.options.features.quiet_promotions,
    );
    let threshold = probcut_beta - static_eval;
    while let Some(m) = picker.next(&td.pos, &td.history) {
        if !td.pos.is_legal(m) || !see_ge(&td.pos, m, threshold) {
            continue;
        }
        ctx.tt.prefetch(td.pos.key_after(m));
        td.stack[ply].current_move = m;
        td.stack[ply].cont_key = piece_to(&td.pos, m);
        td.pos.do_move(m);
        let mut v = -qsearch::<false>(td, ctx, ply + 1, -probcut_beta, -probcut_beta + 1);
        if v >= probcut_beta && !td.stopped {
            v = -search::<false>(
                td,
                ctx,
                ply + 1,
                -probcut_beta,
                -probcut_beta + 1,
                depth - 4,
                !cut_node,
            );
        }
        td.pos.undo_move(m);
        if td.stopped {
            return None;
        }
        if v >= probcut_beta {
            return Some(v);
        }
    }
    None
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
    let pruning = ctx.options.features.qsearch_pruning;
    td.nodes += 1;
    stats::count_total(true, Total::Qsearch);
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

    // A contact mate in one at a node without a hash entry (YaneuraOu asks
    // here too): with a material-only or misjudging evaluation, a mate one
    // ply below the horizon is otherwise scored as quiet.
    if ctx.options.features.mate_one_ply && !in_check && tt_hit.is_none() {
        if let Some(v) = contact_mate_value::<PV>(td, ctx, ply, key) {
            return v;
        }
    }

    let raw_eval;
    let static_eval;
    let mut best_value;
    if in_check {
        raw_eval = -INFINITE;
        static_eval = -INFINITE;
        best_value = -INFINITE;
    } else {
        raw_eval = tt_hit.map_or_else(|| td.evaluate(&ctx.options.evaluator), |h| h.eval);
        static_eval = corrected_eval(td, ctx, ply, raw_eval);
        // Stand pat: the side to move may decline every capture. A hash
        // bound on the right side of the static value is a better guess.
        best_value = static_eval;
        if let (Some(h), Some(v)) = (tt_hit.filter(|_| pruning), tt_value) {
            if v.abs() < MATE_IN_MAX_PLY && bound_refines(h.bound, v, best_value) {
                best_value = v;
            }
        }
        if best_value >= beta {
            // Halfway to beta: a fail high by a static value is uncertain.
            if pruning && best_value.abs() < MATE_IN_MAX_PLY {
                best_value = (best_value + beta) / 2;
            }
            if tt_hit.is_none() {
                ctx.tt.store(
                    key,
                    Move::NONE,
                    value_to_tt(best_value, ply),
                    raw_eval,
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
    let mut picker = MovePicker::new_qsearch(
        &td.pos,
        tt_move,
        capture_order(&ctx.options.features),
        ctx.options.features.quiet_promotions,
    );
    let mut best_move = Move::NONE;
    let mut move_count = 0;
    let futility_base = static_eval + params.qs_delta_margin;
    let last_to = td.pos.last_move();
    let last_to = (last_to.is_some() && last_to != Move::NULL).then(|| last_to.to());
    while let Some(m) = picker.next(&td.pos, &td.history) {
        if !td.pos.is_legal(m) {
            continue;
        }
        move_count += 1;
        let capture = td.pos.is_capture(m);
        let mut see_nonnegative = false;
        if !pruning {
            // Delta pruning: even winning the piece does not reach alpha.
            if !in_check
                && capture
                && futility_base + capture_value(td.pos.piece_on(m.to()).kind()) <= alpha
            {
                continue;
            }
        } else if in_check {
            // Once an evasion holds, only captures are tried.
            if best_value > -MATE_IN_MAX_PLY && !capture {
                continue;
            }
        } else if Some(m.to()) != last_to && !td.pos.gives_check(m) {
            // Neither a recapture nor a check (tested move by move: a node
            // here has a few captures, too few to pay for the check squares
            // of every kind): the first two are tried, and only when
            // winning the piece can lift the score to alpha.
            if move_count > 2 {
                continue;
            }
            let futility_value = futility_base
                + if capture {
                    capture_value(td.pos.piece_on(m.to()).kind())
                } else {
                    0
                };
            if futility_value <= alpha {
                best_value = best_value.max(futility_value);
                continue;
            }
            if !see_ge(&td.pos, m, alpha - futility_base) {
                best_value = best_value.max(alpha.min(futility_base));
                continue;
            }
            // Passed at a threshold of at least 0: the test below is too.
            see_nonnegative = alpha >= futility_base;
        }
        if !in_check {
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
            if !see_nonnegative && !see_ge(&td.pos, m, 0) {
                continue;
            }
        }
        ctx.tt.prefetch(td.pos.key_after(m));
        if ctx.options.features.continuation_correction {
            // The child's continuation correction reads it.
            td.stack[ply].cont_key = piece_to(&td.pos, m);
        }
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
        raw_eval,
        -1,
        bound,
        PV,
    );
    best_value
}
