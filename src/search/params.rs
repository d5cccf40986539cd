//! Every tunable of the search in one place, named after what it does.

use crate::types::Value;

/// Deepest ply a search may reach (stack and PV sizes).
pub const MAX_PLY: usize = 128;

/// Score bounds. Mate scores count plies: `MATE - n` is mate in `n` plies.
pub const INFINITE: Value = 32_001;
/// Score of giving mate at the root (mate in 0 plies).
pub const MATE: Value = 32_000;
/// Scores beyond this are mate scores.
pub const MATE_IN_MAX_PLY: Value = MATE - MAX_PLY as Value;
/// A cycle that gained material (superior repetition) is worth this much:
/// a sure advantage, but not a mate.
pub const SUPERIOR_VALUE: Value = 5_000;

// -- Aspiration windows ------------------------------------------------------
/// First half-width of the aspiration window around the last score.
pub const ASPIRATION_DELTA: Value = 25;
/// Depth from which aspiration windows are used.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;

// -- Reverse futility (static null move) -------------------------------------
/// Deepest remaining depth where reverse futility applies.
pub const RFP_MAX_DEPTH: i32 = 7;
/// Margin per ply of depth.
pub const RFP_MARGIN: Value = 120;

// -- Null move ---------------------------------------------------------------
/// Smallest depth for a null-move search.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Base reduction; `depth / NMP_DEPTH_DIVISOR` is added.
pub const NMP_BASE_REDUCTION: i32 = 3;
/// See `NMP_BASE_REDUCTION`.
pub const NMP_DEPTH_DIVISOR: i32 = 3;
/// Depth from which a null-move cutoff is verified by a reduced search
/// with null moves disabled (guards against zugzwang-like positions).
pub const NMP_VERIFY_DEPTH: i32 = 12;

// -- Internal iterative reduction --------------------------------------------
/// Depth from which a node without a hash move is searched one ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

// -- Futility pruning (quiet moves at frontier nodes) ------------------------
/// Deepest (reduced) depth for futility pruning of quiet moves.
pub const FUTILITY_MAX_DEPTH: i32 = 7;
/// Margin: `FUTILITY_BASE + FUTILITY_PER_DEPTH * depth`.
pub const FUTILITY_BASE: Value = 150;
/// See `FUTILITY_BASE`.
pub const FUTILITY_PER_DEPTH: Value = 110;

// -- Move-count-based pruning (SEARCH_NOTES: 000/001) ------------------------
/// Deepest remaining depth for move-count pruning.
pub const MCP_MAX_DEPTH: i32 = 6;

/// Quiet moves searched before the rest are cut: `(3 + d²) / (2 − improving)`.
#[inline]
pub const fn move_count_limit(depth: i32, improving: bool) -> i32 {
    (3 + depth * depth) / (2 - improving as i32)
}

// -- Late move reductions (SEARCH_NOTES: 004) --------------------------------
/// Smallest depth at which moves are reduced.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Moves before this index (1-based move count) are never reduced.
pub const LMR_MIN_MOVE: usize = 3;
/// Reduction = `LMR_BASE + ln(depth) * ln(moveCount) / LMR_DIVISOR`.
pub const LMR_BASE: f64 = 0.5;
/// See `LMR_BASE`.
pub const LMR_DIVISOR: f64 = 2.25;
/// History score that shifts the reduction by one ply.
pub const LMR_HISTORY_DIVISOR: i32 = 8_000;

// -- SEE pruning ---------------------------------------------------------------
/// Deepest depth where captures losing more than `SEE_CAPTURE_MARGIN *
/// depth` are skipped at non-PV nodes.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 6;
/// See `SEE_PRUNE_MAX_DEPTH`.
pub const SEE_CAPTURE_MARGIN: Value = 120;

// -- Quiescence ----------------------------------------------------------------
/// Delta pruning: a capture that cannot lift the score within this of alpha
/// is skipped.
pub const QS_DELTA_MARGIN: Value = 200;

// -- History -------------------------------------------------------------------
/// Bound of history scores (gravity keeps them within ±this).
pub const HISTORY_MAX: i32 = 16_384;

/// Bonus for the move that caused a beta cutoff at `depth`.
#[inline]
pub const fn history_bonus(depth: i32) -> i32 {
    let b = 32 * depth * depth + 64 * depth;
    if b > 2_000 {
        2_000
    } else {
        b
    }
}

// -- Time ------------------------------------------------------------------------
/// Nodes between two looks at the clock and the stop flag.
pub const NODES_BETWEEN_CHECKS: u64 = 1024;
