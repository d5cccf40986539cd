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

/// The tunable constants of the search, one field each, carried by
/// `SearchOptions` so that they can be set at run time (USI options under
/// the `tune` cargo feature, for SPSA). [`SearchParams::DEFAULT`] holds the
/// values the engine plays with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    // -- Aspiration windows
    /// First half-width of the aspiration window around the last score.
    pub aspiration_delta: Value,
    /// Depth from which aspiration windows are used.
    pub aspiration_min_depth: i32,
    /// 1: each fail high of the aspiration window searches the root a ply
    /// shallower than the last (Stockfish's and YaneuraOu's
    /// `failedHighCnt`), back to the full depth after a fail low; 0: every
    /// re-search at the full depth.
    pub aspiration_fail_high_reduce: i32,
    // -- Reverse futility (static null move)
    /// Deepest remaining depth where reverse futility applies.
    pub rfp_max_depth: i32,
    /// Margin per ply of depth.
    pub rfp_margin: Value,
    /// 1: a reverse-futility cut returns `(2·beta + eval) / 3` instead of
    /// `eval`, and is not taken when the hash move is quiet (Stockfish's
    /// and YaneuraOu's); 0: `eval`, whatever the hash move.
    pub rfp_blend: i32,
    // -- Null move
    /// Smallest depth for a null-move search.
    pub nmp_min_depth: i32,
    /// Base reduction; `depth / nmp_depth_divisor` is added.
    pub nmp_base_reduction: i32,
    /// See `nmp_base_reduction`.
    pub nmp_depth_divisor: i32,
    /// Depth from which a null-move cutoff is verified by a reduced search
    /// with null moves disabled (guards against zugzwang-like positions).
    pub nmp_verify_depth: i32,
    /// 1: null moves only at cut nodes (YaneuraOu's); 0: at every non-PV
    /// node.
    pub nmp_cut_only: i32,
    /// The static value must reach `beta + nmp_margin_base −
    /// nmp_margin_per_depth · depth` (YaneuraOu's 378 and 16); 0 and 0:
    /// beta itself.
    pub nmp_margin_base: Value,
    /// See `nmp_margin_base`.
    pub nmp_margin_per_depth: Value,
    // -- Razoring
    /// A non-PV node whose value lies below `alpha − razor_base −
    /// razor_per_depth_sq · depth²` is settled by quiescence (YaneuraOu's
    /// 502 and 306); 0: no razoring.
    pub razor_base: Value,
    /// See `razor_base`.
    pub razor_per_depth_sq: Value,
    // -- Hindsight depth
    /// 1: a node whose parent reduced it by 3 plies or more searches a
    /// ply deeper unless the opponent's position got worse, and one
    /// reduced by 2 or more a ply shallower when the two static values
    /// sum above `hindsight_margin` (both sides think they stand well:
    /// a quiet position); 0: the depth as given.
    pub hindsight_depth: i32,
    /// See `hindsight_depth` (YaneuraOu's 173).
    pub hindsight_margin: Value,
    // -- Internal iterative reduction
    /// Depth from which a node without a hash move is searched one ply
    /// shallower.
    pub iir_min_depth: i32,
    // -- Futility pruning (quiet moves at frontier nodes)
    /// Deepest (reduced) depth for futility pruning of quiet moves.
    pub futility_max_depth: i32,
    /// Margin: `futility_base + futility_per_depth * depth`.
    pub futility_base: Value,
    /// See `futility_base`.
    pub futility_per_depth: Value,
    /// Futility of a capture (not a check): its victim's value plus
    /// `capture_futility_base + capture_futility_per_depth · lmrDepth`
    /// on the static value still at or below alpha (YaneuraOu's 231 and
    /// 211); 0: captures are not pruned so.
    pub capture_futility_base: Value,
    /// See `capture_futility_base`.
    pub capture_futility_per_depth: Value,
    // -- Move-count-based pruning (SEARCH_NOTES: 000/001)
    /// Deepest remaining depth for move-count pruning.
    pub mcp_max_depth: i32,
    /// The constant of the move-count limit `(c + d²) / (2 − improving)`.
    pub mcp_base: i32,
    // -- Late move reductions (SEARCH_NOTES: 004)
    /// Smallest depth at which moves are reduced.
    pub lmr_min_depth: i32,
    /// Moves before this index (1-based move count) are never reduced.
    pub lmr_min_move: i32,
    /// Reduction = `base + ln(depth) · ln(moveCount) / divisor`, both in
    /// hundredths (integers, as SPSA perturbs them).
    pub lmr_base_pct: i32,
    /// See `lmr_base_pct`.
    pub lmr_divisor_pct: i32,
    /// History score (twice the butterfly score plus the continuation
    /// scores of the last two moves) that shifts the reduction by one ply.
    pub lmr_history_divisor: i32,
    /// 1: the re-search after a reduced search that beat alpha goes a
    /// ply deeper when it beat the best value so far by
    /// `lmr_deeper_margin`, a ply shallower (none at all when that depth
    /// was the reduced one) when not by `lmr_shallower_margin`
    /// (Stockfish's and YaneuraOu's); 0: always at the full depth. Off
    /// until its equal-time SPRT passes (README, "The re-search's
    /// depth by its margin").
    pub lmr_research_adjust: i32,
    /// See `lmr_research_adjust`.
    pub lmr_deeper_margin: Value,
    /// See `lmr_research_adjust`.
    pub lmr_shallower_margin: Value,
    /// Plies less reduction at a node on or once on a PV (its hash
    /// entry's mark; Stockfish's `ttPv`), where reverse futility is also
    /// skipped; 0: the mark is not used.
    pub lmr_tt_pv_less: i32,
    /// Plies more reduction at cut nodes, on top of the one every cut
    /// node gets (YaneuraOu adds about three and a half in all).
    pub lmr_cut_extra: i32,
    /// How far a move the histories like may be searched beyond the full
    /// depth (a negative reduction, YaneuraOu's up to two plies); 0:
    /// never.
    pub lmr_max_extension: i32,
    // -- Continuation-history pruning
    /// Deepest (reduced) depth at which quiet moves with a bad
    /// continuation record are skipped.
    pub cont_prune_max_depth: i32,
    /// A quiet move is skipped when its continuation score is below
    /// `-cont_prune_margin · depth`.
    pub cont_prune_margin: i32,
    /// `HistoryPruning`: a quiet move is skipped when its continuation
    /// and pawn histories sum below `-history_prune_margin · depth`
    /// (YaneuraOu's 4,097 on tables about twice as wide as ours).
    pub history_prune_margin: i32,
    /// `HistoryPruning`: history points (continuation, pawn and main
    /// together) worth a ply of the reduced depth (YaneuraOu's 3,220 on
    /// its scale).
    pub history_prune_divisor: i32,
    /// `HistoryPruning` judges the quiet moves of nodes up to this depth
    /// (YaneuraOu's: every depth); deeper nodes keep Ryuo's own rules.
    pub history_prune_max_depth: i32,
    /// Quiet moves scoring below `-quiet_sort_limit · depth` are not
    /// sorted, only put after the rest: sorting every quiet move and
    /// drop cost 7 % of the search's time, and most are never searched.
    pub quiet_sort_limit: i32,
    // -- ProbCut
    /// Smallest depth for ProbCut.
    pub probcut_min_depth: i32,
    /// ProbCut looks for a capture beating `beta + probcut_margin`...
    pub probcut_margin: Value,
    /// ...less this when the static evaluation is improving.
    pub probcut_improving: Value,
    // -- Singular extension
    /// Smallest depth for a singular-extension search.
    pub se_min_depth: i32,
    /// The other moves must fail below the hash move's value minus
    /// `se_margin · depth / 16`.
    pub se_margin: Value,
    /// Failing below that by this much more extends by two plies.
    pub se_double_margin: Value,
    /// Most double extensions along one path.
    pub se_max_doubles: i32,
    /// Plies the hash move loses when the other moves are not singular
    /// but its own value reaches beta (YaneuraOu's 3).
    pub se_negative: i32,
    /// Plies it loses otherwise at a cut node (YaneuraOu's 2; 0: none).
    pub se_cut_negative: i32,
    /// Plies a singular hash move is extended at a PV node: 0, 1, or 2
    /// when it is singular by `se_double_margin` more (YaneuraOu extends
    /// its PV by up to three). The PV's one ply costs about two plies of
    /// the depth reached in the same nodes, and is worth them (README,
    /// "What the PV's singular extension costs").
    pub se_pv_extension: i32,
    // -- Correction history
    /// Each correction table adds its entry (within ±1,024) divided by
    /// this to the static evaluation.
    pub correction_divisor: i32,
    // -- SEE pruning
    /// Deepest depth where moves losing more than `see_capture_margin ·
    /// depth` are skipped at non-PV nodes.
    pub see_prune_max_depth: i32,
    /// See `see_prune_max_depth`.
    pub see_capture_margin: Value,
    // -- Quiescence
    /// Delta pruning: a capture that cannot lift the score within this of
    /// alpha is skipped.
    pub qs_delta_margin: Value,
    // -- History
    /// History bonus at `depth`: `min(mul · d² + lin · d, max)`.
    pub history_bonus_mul: i32,
    /// See `history_bonus_mul`.
    pub history_bonus_lin: i32,
    /// See `history_bonus_mul`.
    pub history_bonus_max: i32,
    /// The malus of a move searched before the cutoff move, in percent of
    /// the cutoff bonus (YaneuraOu's is about 1.8 times its bonus: most
    /// moves tried fail, and their histories drift below zero).
    pub history_malus_pct: i32,
    /// Weight of the static evaluation's change across the opponent's last
    /// quiet move in that move's history (YaneuraOu's `evalDiff`, which it
    /// weighs 10); 0: not used.
    pub eval_diff_history: i32,
    /// Added to the ordering score of a quiet move or drop that checks
    /// directly and does not lose more than most of a pawn by exchange
    /// (YaneuraOu's 16,384 on tables about twice as wide); 0: checks are
    /// ordered by their histories alone.
    pub quiet_check_bonus: i32,
    /// Weight of the low-ply history in the ordering of the quiet moves
    /// of the nodes `ply` < 5 from the root, divided by `1 + ply`
    /// (YaneuraOu's and Stockfish's 8); 0: no low-ply history.
    pub low_ply_history: i32,
    // -- Time
    /// With `AdaptiveTime`, no new iteration is begun once this share (in
    /// percent) of the move's scaled time is spent: with each iteration
    /// taking about as long as all before it, a later one would be cut
    /// unfinished at the deadline (Stockfish stops deepening past about
    /// half); 100: every iteration begun that the time allows. 50 against
    /// 100: +46.1 ± 35.9 Elo at 10 s + 0.1 s (README, time management).
    pub time_stop_pct: i32,
    /// With `AdaptiveTime`, the clock's share for the move (the optimum
    /// the factors scale) in percent of what `time.rs` gives: how much of
    /// the main time goes into each move, the maximum still the bound.
    /// 140 against 100: +25.2 ± 33.3 Elo in 400 games at 10 s + 0.1 s,
    /// not significant, so 100 (README, time management).
    pub time_optimum_pct: i32,
}

impl SearchParams {
    /// The values the engine plays with.
    pub const DEFAULT: SearchParams = SearchParams {
        aspiration_delta: 25,
        aspiration_min_depth: 4,
        aspiration_fail_high_reduce: 0,
        rfp_max_depth: 7,
        rfp_margin: 120,
        rfp_blend: 0,
        nmp_min_depth: 3,
        nmp_base_reduction: 3,
        nmp_depth_divisor: 3,
        nmp_verify_depth: 12,
        nmp_cut_only: 0,
        nmp_margin_base: 0,
        nmp_margin_per_depth: 0,
        razor_base: 0,
        razor_per_depth_sq: 306,
        hindsight_depth: 0,
        hindsight_margin: 173,
        iir_min_depth: 4,
        futility_max_depth: 7,
        futility_base: 150,
        futility_per_depth: 110,
        capture_futility_base: 0,
        capture_futility_per_depth: 211,
        mcp_max_depth: 6,
        mcp_base: 3,
        lmr_min_depth: 3,
        lmr_min_move: 3,
        lmr_base_pct: 50,
        lmr_divisor_pct: 225,
        lmr_history_divisor: 16_000,
        lmr_research_adjust: 0,
        lmr_deeper_margin: 48,
        lmr_shallower_margin: 9,
        lmr_tt_pv_less: 0,
        lmr_cut_extra: 0,
        lmr_max_extension: 0,
        cont_prune_max_depth: 4,
        cont_prune_margin: 4_000,
        history_prune_margin: 2_200,
        history_prune_divisor: 1_760,
        history_prune_max_depth: 64,
        quiet_sort_limit: 3_000,
        probcut_min_depth: 5,
        probcut_margin: 200,
        probcut_improving: 50,
        se_min_depth: 6,
        se_margin: 32,
        se_double_margin: 20,
        se_max_doubles: 0,
        se_negative: 1,
        se_cut_negative: 0,
        se_pv_extension: 1,
        correction_divisor: 16,
        see_prune_max_depth: 6,
        see_capture_margin: 120,
        qs_delta_margin: 200,
        history_bonus_mul: 32,
        history_bonus_lin: 64,
        history_bonus_max: 2_000,
        history_malus_pct: 100,
        eval_diff_history: 0,
        quiet_check_bonus: 0,
        low_ply_history: 0,
        time_stop_pct: 50,
        time_optimum_pct: 100,
    };

    /// Quiet moves searched before the rest are cut: `(c + d²) / (2 −
    /// improving)`.
    #[inline]
    pub fn move_count_limit(&self, depth: i32, improving: bool) -> i32 {
        (self.mcp_base + depth * depth) / (2 - improving as i32)
    }

    /// Malus for a move searched before the cutoff move at `depth`.
    #[inline]
    pub fn history_malus(&self, depth: i32) -> i32 {
        self.history_bonus(depth) * self.history_malus_pct / 100
    }

    /// Bonus for the move that caused a beta cutoff at `depth`.
    #[inline]
    pub fn history_bonus(&self, depth: i32) -> i32 {
        (self.history_bonus_mul * depth * depth + self.history_bonus_lin * depth)
            .min(self.history_bonus_max)
    }

    /// The late-move reduction at `depth` for the `move_count`-th move
    /// (both at least 1), before history adjusts it.
    pub fn lmr_reduction(&self, depth: usize, move_count: usize) -> i32 {
        let base = f64::from(self.lmr_base_pct) / 100.0;
        let divisor = f64::from(self.lmr_divisor_pct.max(1)) / 100.0;
        (base + (depth as f64).ln() * (move_count as f64).ln() / divisor) as i32
    }
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams::DEFAULT
    }
}

/// One tunable for SPSA: its name (the USI option of a `tune` build), how
/// to read and write it, its range and the size of SPSA's perturbation.
pub struct Tunable {
    /// CamelCase name, used as the USI option name.
    pub name: &'static str,
    /// Reads the value.
    pub get: fn(&SearchParams) -> i32,
    /// Writes the value.
    pub set: fn(&mut SearchParams, i32),
    /// Smallest value allowed.
    pub min: i32,
    /// Largest value allowed.
    pub max: i32,
    /// SPSA's perturbation `c` at the start of a run.
    pub step: i32,
}

macro_rules! tunables {
    ($($name:literal $field:ident ($min:expr, $max:expr, $step:expr)),* $(,)?) => {
        /// Every field of `SearchParams` with its range, for the USI options
        /// of a `tune` build and the SPSA driver (`ryuo tune-spec`).
        pub const TUNABLES: &[Tunable] = &[$(Tunable {
            name: $name,
            get: |p| p.$field,
            set: |p, v| p.$field = v,
            min: $min,
            max: $max,
            step: $step,
        }),*];
    };
}

tunables! {
    "AspirationDelta" aspiration_delta (5, 100, 5),
    "AspirationMinDepth" aspiration_min_depth (1, 10, 1),
    "AspirationFailHighReduce" aspiration_fail_high_reduce (0, 1, 1),
    "RfpMaxDepth" rfp_max_depth (1, 14, 1),
    "RfpMargin" rfp_margin (30, 400, 15),
    "RfpBlend" rfp_blend (0, 1, 1),
    "NmpMinDepth" nmp_min_depth (1, 8, 1),
    "NmpBaseReduction" nmp_base_reduction (1, 10, 1),
    "NmpDepthDivisor" nmp_depth_divisor (1, 8, 1),
    "NmpVerifyDepth" nmp_verify_depth (4, 40, 2),
    "NmpCutOnly" nmp_cut_only (0, 1, 1),
    "NmpMarginBase" nmp_margin_base (0, 800, 30),
    "NmpMarginPerDepth" nmp_margin_per_depth (0, 60, 4),
    "RazorBase" razor_base (0, 1500, 50),
    "RazorPerDepthSq" razor_per_depth_sq (50, 800, 25),
    "HindsightDepth" hindsight_depth (0, 1, 1),
    "HindsightMargin" hindsight_margin (0, 600, 20),
    "IirMinDepth" iir_min_depth (2, 10, 1),
    "FutilityMaxDepth" futility_max_depth (1, 14, 1),
    "FutilityBase" futility_base (0, 500, 20),
    "FutilityPerDepth" futility_per_depth (20, 400, 15),
    "CaptureFutilityBase" capture_futility_base (0, 800, 25),
    "CaptureFutilityPerDepth" capture_futility_per_depth (20, 500, 15),
    "McpMaxDepth" mcp_max_depth (1, 14, 1),
    "McpBase" mcp_base (0, 20, 1),
    "LmrMinDepth" lmr_min_depth (1, 8, 1),
    "LmrMinMove" lmr_min_move (1, 10, 1),
    "LmrBasePct" lmr_base_pct (-100, 200, 10),
    "LmrDivisorPct" lmr_divisor_pct (100, 600, 20),
    "LmrHistoryDivisor" lmr_history_divisor (1000, 60000, 1600),
    "LmrResearchAdjust" lmr_research_adjust (0, 1, 1),
    "LmrDeeperMargin" lmr_deeper_margin (0, 300, 10),
    "LmrShallowerMargin" lmr_shallower_margin (-50, 100, 5),
    "LmrTtPvLess" lmr_tt_pv_less (0, 6, 1),
    "LmrCutExtra" lmr_cut_extra (0, 6, 1),
    "LmrMaxExtension" lmr_max_extension (0, 2, 1),
    "ContPruneMaxDepth" cont_prune_max_depth (0, 14, 1),
    "ContPruneMargin" cont_prune_margin (500, 20000, 500),
    "HistoryPruneMargin" history_prune_margin (500, 8000, 200),
    "HistoryPruneDivisor" history_prune_divisor (500, 8000, 200),
    "HistoryPruneMaxDepth" history_prune_max_depth (1, 64, 1),
    "QuietSortLimit" quiet_sort_limit (500, 100000, 500),
    "ProbCutMinDepth" probcut_min_depth (2, 14, 1),
    "ProbCutMargin" probcut_margin (50, 600, 20),
    "ProbCutImproving" probcut_improving (0, 200, 10),
    "SeMinDepth" se_min_depth (2, 14, 1),
    "SeMargin" se_margin (4, 128, 4),
    "SeDoubleMargin" se_double_margin (0, 200, 8),
    "SeMaxDoubles" se_max_doubles (0, 16, 1),
    "SeNegative" se_negative (0, 4, 1),
    "SeCutNegative" se_cut_negative (0, 3, 1),
    "SePvExtension" se_pv_extension (0, 2, 1),
    "CorrectionDivisor" correction_divisor (4, 64, 2),
    "SeePruneMaxDepth" see_prune_max_depth (1, 14, 1),
    "SeeCaptureMargin" see_capture_margin (20, 400, 15),
    "QsDeltaMargin" qs_delta_margin (0, 1000, 25),
    "HistoryBonusMul" history_bonus_mul (0, 128, 4),
    "HistoryBonusLin" history_bonus_lin (0, 256, 8),
    "HistoryBonusMax" history_bonus_max (200, 8000, 150),
    "HistoryMalusPct" history_malus_pct (25, 400, 15),
    "EvalDiffHistory" eval_diff_history (0, 40, 2),
    "QuietCheckBonus" quiet_check_bonus (0, 60000, 2000),
    "LowPlyHistory" low_ply_history (0, 32, 2),
    "TimeStopPct" time_stop_pct (30, 100, 5),
    "TimeOptimumPct" time_optimum_pct (50, 300, 10),
}

// -- History -------------------------------------------------------------------
/// Bound of history scores (gravity keeps them within ±this).
pub const HISTORY_MAX: i32 = 16_384;

// -- Time ------------------------------------------------------------------------
/// Nodes between two looks at the clock and the stop flag.
pub const NODES_BETWEEN_CHECKS: u64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tunable reads and writes its own field, and its range holds
    /// the default.
    #[test]
    fn tunables_cover_distinct_fields_within_range() {
        let mut names = std::collections::HashSet::new();
        for t in TUNABLES {
            assert!(names.insert(t.name), "{} twice", t.name);
            let v = (t.get)(&SearchParams::DEFAULT);
            assert!(t.min <= v && v <= t.max && t.step > 0, "{}", t.name);
            let mut p = SearchParams::DEFAULT;
            (t.set)(&mut p, v + 1);
            assert_eq!((t.get)(&p), v + 1, "{}", t.name);
            let changed = TUNABLES
                .iter()
                .filter(|u| (u.get)(&p) != (u.get)(&SearchParams::DEFAULT))
                .count();
            assert_eq!(changed, 1, "{} shares a field", t.name);
        }
    }

    /// `HistoryMalusPct` scales the cutoff bonus: 100 is the bonus itself.
    #[test]
    fn the_malus_is_its_share_of_the_bonus() {
        let mut p = SearchParams::DEFAULT;
        for d in 1..20 {
            assert_eq!(p.history_malus(d), p.history_bonus(d));
        }
        p.history_malus_pct = 180;
        assert_eq!(p.history_malus(3), p.history_bonus(3) * 180 / 100);
        assert!(p.history_malus(3) > p.history_bonus(3));
    }

    /// The integer form of the LMR formula gives the reductions of the
    /// former floating-point constants (0.5 + ln d · ln m / 2.25).
    #[test]
    fn lmr_reduction_matches_the_formula() {
        let p = SearchParams::DEFAULT;
        for d in 1..64usize {
            for m in 1..64usize {
                let x = 0.5 + (d as f64).ln() * (m as f64).ln() / 2.25;
                assert_eq!(p.lmr_reduction(d, m), x as i32);
            }
        }
    }
}
