//! What the caller hands the search: the options (techniques switched on,
//! the evaluation), the limits of one search, and the `Control` shared
//! with the threads for stop and ponderhit.

use super::params::SearchParams;
use crate::nnue::standard::StandardNetwork;
use crate::nnue::{EvalNetwork, Network};
use crate::position::EnteringKingRule;
use crate::time::TimeBudget;
use crate::types::{Move, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Mate solver table size until told otherwise, MiB.
pub const DEFAULT_MATE_HASH_MIB: usize = 64;

/// The forward-pruning and ordering techniques, each switchable, so that
/// each can be measured against the rest (SEARCH_NOTES, 002).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Late move reductions with re-search.
    pub late_move_reductions: bool,
    /// Move-count-based pruning of late quiet moves.
    pub move_count_pruning: bool,
    /// Killer slots per ply: 0, 1 or 2.
    pub killers: u8,
    /// Butterfly history ordering of quiet moves.
    pub history: bool,
    /// Continuation histories (replies to the moves one, two and four
    /// plies back) in the ordering, reductions and pruning of quiet moves.
    pub continuation_history: bool,
    /// Capture history in the ordering of captures.
    pub capture_history: bool,
    /// Pawn history (quiet moves by the pawn structure) in the ordering
    /// and the continuation pruning of quiet moves.
    pub pawn_history: bool,
    /// Correction history of the static evaluation (`correction.rs`).
    pub correction_history: bool,
    /// Its tables keyed by the minor pieces and by each side's non-pawn
    /// pieces on the board (with `correction_history`).
    pub piece_set_correction: bool,
    /// Singular extension of the hash move, with multi-cut and negative
    /// extensions.
    pub singular_extension: bool,
    /// ProbCut: a capture beating beta by a margin at reduced depth cuts.
    pub probcut: bool,
    /// Null-move pruning.
    pub null_move: bool,
    /// Futility pruning of quiet moves at frontier nodes.
    pub futility: bool,
    /// Reverse futility pruning (static null move).
    pub reverse_futility: bool,
    /// Skipping captures that lose material at shallow depth (SEE).
    pub see_pruning: bool,
    /// Extending checking moves by one ply.
    pub check_extension: bool,
    /// Internal iterative reduction when there is no hash move.
    pub iir: bool,
    /// Mate-distance pruning.
    pub mate_distance_pruning: bool,
    /// Aspiration windows at the root.
    pub aspiration: bool,
    /// YaneuraOu's pruning in quiescence: past the first two moves only
    /// checks and recaptures, futility of captures against alpha, only
    /// captures once an evasion holds, a hash bound on the stand-pat
    /// value and a fail high halfway to beta.
    pub qsearch_pruning: bool,
    /// Late move reductions of captures and promotions too (a ply less
    /// than a quiet move, less still for a good capture history).
    pub capture_reductions: bool,
    /// The time manager's scaling of the clock's share by best-move
    /// stability, node effort and a falling score (`timeman.rs`, the
    /// default); off: only the best move's changes scale it.
    pub adaptive_time: bool,
    /// The cheap contact mate-in-one test at nodes without a hash entry,
    /// in the search and in quiescence (`mate::one_ply`).
    pub mate_one_ply: bool,
    /// A third correction of the static evaluation, keyed by the last
    /// move and the moves two and four plies before it (YaneuraOu's and
    /// Stockfish's continuation correction history).
    pub continuation_correction: bool,
    /// Promotions to empty squares are quiet moves (YaneuraOu's order):
    /// picked by history among the quiet moves, pruned and reduced as
    /// they are, left out of quiescence. Off: they are picked with the
    /// captures and searched in quiescence (pawns, bishops, rooks).
    pub quiet_promotions: bool,
    /// YaneuraOu's hash cut: a lower bound cuts only from a deeper search
    /// than this node's (an upper bound from one as deep), and below depth
    /// 6 only where it agrees with the node's type (a lower bound at a
    /// cut node, an upper bound elsewhere). Off: any bound from a search
    /// at least as deep cuts.
    pub strict_hash_cut: bool,
    /// Stockfish's and YaneuraOu's "small ProbCut": a hash lower bound
    /// from a search at most four plies shallower that beats beta by 416
    /// ends the node (PV nodes too; not in check, not at the root).
    pub small_probcut: bool,
    /// A node in check passes on the static value of two plies before it
    /// for the `improving` test of the node two plies below (Stockfish's
    /// and YaneuraOu's); off: that node is never improving.
    pub improving_through_checks: bool,
    /// A quiet hash move whose lower bound ends the node earns the
    /// cutoff bonus in the quiet histories, as if it had been searched
    /// (Stockfish's and YaneuraOu's): the histories learn from the cuts
    /// the table makes too.
    pub hash_cut_history: bool,
    /// A fail high returns its value pulled toward beta by depth
    /// (`(value · depth + beta) / (depth + 1)`, Stockfish's and
    /// YaneuraOu's), so that a shallow bound far above beta is not
    /// trusted at face value higher up.
    pub fail_high_average: bool,
    /// At a PV node, a move whose null-window search beat alpha is
    /// searched again with the full window even when it reached beta
    /// (Stockfish's and YaneuraOu's), so the node's value and line are
    /// exact; off: a fail high below the root stands as a lower bound.
    pub full_window_fail_high: bool,
    /// Futility pruning of a quiet move judges it at a reduced depth
    /// moved by its continuation histories, and its pawn history with
    /// `PawnHistory` (Stockfish's and YaneuraOu's `lmrDepth += history /
    /// 3576`): a move the histories like keeps more margin, one they
    /// dislike loses it sooner.
    pub history_futility: bool,
    /// Quiet moves pruned as YaneuraOu and Stockfish do, at every depth:
    /// by their continuation and pawn histories alone when far below
    /// zero, then by futility and SEE at the depth their reduction would
    /// leave them, moved by all their histories
    /// (`HistoryPruneMargin`, `HistoryPruneDivisor`); it takes the place
    /// of continuation-history pruning, futility and SEE pruning for the
    /// quiet moves that do not check.
    pub history_pruning: bool,
    /// A quiet move cut by futility raises the node's best value to the
    /// futility value (Stockfish's and YaneuraOu's): the move might have
    /// scored that much, so a node that fails low says so, not less.
    pub futility_best_value: bool,
    /// SEE pruning at every depth, YaneuraOu's thresholds: a quiet move
    /// may lose at most `25 · lmrDepth²` (its reduced depth: a late move
    /// that hangs a piece is cut however deep the node), a capture,
    /// promotion or check at most `167 · depth` plus its capture history.
    /// Off: every move at most `see_capture_margin · depth`, to depth
    /// `see_prune_max_depth`, at non-PV nodes.
    pub see_by_reduced_depth: bool,
    /// Futility, continuation-history and SEE pruning judge a move at the
    /// depth YaneuraOu's (larger) reduction would leave it, not Ryuo's
    /// own: late moves of deep nodes are pruned as at shallow ones.
    pub reduced_depth_pruning: bool,
    /// YaneuraOu's form of move-count pruning: past the limit every quiet
    /// move is skipped, checks and drops near the enemy king included,
    /// and the picker yields no more of them (the seed article's form,
    /// off, keeps quiet checks and drops near the king: in positions
    /// full of pieces in hand those are dozens a node).
    pub skip_late_quiets: bool,
    /// YaneuraOu's history updates: a small bonus for the best move and a
    /// much larger malus, fading move by move, for the quiet moves tried
    /// before it (7 to 13 times the bonus at depths 1–2), each table
    /// moved by its share of YaneuraOu's amounts on its own width, after
    /// any best move (not only a fail high). Most quiet moves so carry
    /// negative scores, which `HistoryPruning` and the reductions read as
    /// YaneuraOu's search does; off: bonus and malus are equal.
    pub yo_history: bool,
    /// YaneuraOu's late-move reductions, in 1/1024 plies: every move
    /// after the first from depth 2 (checks, captures, evasions and
    /// killers too), cut nodes some 3.5 plies more, the histories'
    /// score (read on YaneuraOu's scale) a ply per 9,570, a re-search a
    /// ply deeper or shallower by how far the reduced search beat the
    /// best value, and the first move of a non-PV node a ply or two
    /// shallower when its reduction would be large. Meant with
    /// `YoHistory`, whose negative-leaning scores it expects.
    pub yo_lmr: bool,
    /// YaneuraOu's singular extension: a margin about half Ryuo's
    /// (twice that on nodes once on the PV), up to three plies for a
    /// quiet hash move off the PV, the node itself a ply deeper when its
    /// hash move is singular, a multi-cut returning the reduced search's
    /// value whenever it reaches beta, and negative extensions of three
    /// and two plies; no limit by the ply.
    pub yo_singular: bool,
    /// YaneuraOu's capture order: the capture history (on its scale) plus
    /// seven times the victim's value, where Ryuo's orders by the victim
    /// first; a capture counts as good when its exchange loses less than
    /// an eighteenth of that score (Ryuo's: when it loses nothing).
    pub yo_capture_order: bool,
    /// Move-count and SEE pruning at PV nodes too (not the root), as
    /// YaneuraOu prunes: off, a PV node searches every move, and its
    /// late quiet moves each open a subtree.
    pub pv_pruning: bool,
    /// Move-count pruning of quiet evasions too, as YaneuraOu prunes:
    /// off, a node in check searches every evasion (in shogi, dozens of
    /// interposing drops).
    pub check_pruning: bool,
    /// Once a move raises alpha (at PV nodes, the root included), the
    /// later moves are searched two plies shallower, at depths 3 to 13
    /// (Stockfish's and YaneuraOu's): they only have to show they are
    /// not better than a move already found good.
    pub alpha_raised_reduction: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            late_move_reductions: true,
            move_count_pruning: true,
            killers: 2,
            history: true,
            continuation_history: true,
            capture_history: true,
            // Off: with the network, on against off measured +26.1 +- 33.8
            // Elo at 20,000 nodes a move, -0.9 +- 33.8 at 60,000 (400 games
            // each) and -12.8 +- 33.5 at byoyomi 100 ms (406 games).
            pawn_history: false,
            correction_history: true,
            piece_set_correction: true,
            singular_extension: true,
            probcut: true,
            null_move: true,
            futility: true,
            reverse_futility: true,
            see_pruning: true,
            check_extension: true,
            iir: true,
            mate_distance_pruning: true,
            aspiration: true,
            qsearch_pruning: true,
            capture_reductions: true,
            // On: against the stability-only rule at 10 s + 0.1 s,
            // 211-23-166, +39.3 +- 33.4 Elo (400 games, 2026-12-07); at
            // 4 s + 50 ms -3.5 +- 47.4 (200 games).
            adaptive_time: true,
            // On: with the network, on against off measured +77.7 +- 47.9
            // Elo at 10 s + 0.1 s and +50.7 +- 47.6 at byoyomi 100 ms (200
            // games each; -81 +- 70 in 100 games at 10 s + 0.1 s when the
            // test cost a fifth of the speed, now a tenth).
            mate_one_ply: true,
            continuation_correction: false,
            quiet_promotions: false,
            strict_hash_cut: false,
            small_probcut: false,
            improving_through_checks: false,
            hash_cut_history: false,
            fail_high_average: false,
            full_window_fail_high: false,
            history_futility: false,
            history_pruning: false,
            futility_best_value: false,
            see_by_reduced_depth: false,
            reduced_depth_pruning: false,
            skip_late_quiets: false,
            yo_history: false,
            yo_lmr: false,
            yo_singular: false,
            yo_capture_order: false,
            pv_pruning: false,
            check_pruning: false,
            alpha_raised_reduction: false,
        }
    }
}

/// Turns one technique off.
pub type SwitchOff = fn(&mut Features);

/// Turns one technique on or off.
pub type Switch = fn(&mut Features, bool);

impl Features {
    /// The techniques that are off by default (measured, not kept), by
    /// USI option name: each entry sets one on or off.
    pub const OPT_IN: [(&'static str, Switch); 22] = [
        ("PawnHistory", |f, on| f.pawn_history = on),
        ("ContinuationCorrection", |f, on| {
            f.continuation_correction = on
        }),
        ("QuietPromotions", |f, on| f.quiet_promotions = on),
        ("StrictHashCut", |f, on| f.strict_hash_cut = on),
        ("SmallProbCut", |f, on| f.small_probcut = on),
        ("ImprovingThroughChecks", |f, on| {
            f.improving_through_checks = on
        }),
        ("HashCutHistory", |f, on| f.hash_cut_history = on),
        ("FailHighAverage", |f, on| f.fail_high_average = on),
        ("FullWindowFailHigh", |f, on| f.full_window_fail_high = on),
        ("HistoryFutility", |f, on| f.history_futility = on),
        ("HistoryPruning", |f, on| f.history_pruning = on),
        ("FutilityBestValue", |f, on| f.futility_best_value = on),
        ("SeeByReducedDepth", |f, on| f.see_by_reduced_depth = on),
        ("ReducedDepthPruning", |f, on| f.reduced_depth_pruning = on),
        ("SkipLateQuiets", |f, on| f.skip_late_quiets = on),
        ("YoHistory", |f, on| f.yo_history = on),
        ("YoLmr", |f, on| f.yo_lmr = on),
        ("YoSingular", |f, on| f.yo_singular = on),
        ("YoCaptureOrder", |f, on| f.yo_capture_order = on),
        ("PvPruning", |f, on| f.pv_pruning = on),
        ("CheckPruning", |f, on| f.check_pruning = on),
        ("AlphaRaisedReduction", |f, on| {
            f.alpha_raised_reduction = on
        }),
    ];

    /// Names and setters of the switches, for `bench --ablate` and the USI
    /// options; each entry turns one technique off.
    pub const ABLATIONS: [(&'static str, SwitchOff); 23] = [
        ("LateMoveReductions", |f| f.late_move_reductions = false),
        ("MoveCountPruning", |f| f.move_count_pruning = false),
        ("Killers=1", |f| f.killers = 1),
        ("Killers=0", |f| f.killers = 0),
        ("History", |f| f.history = false),
        ("ContinuationHistory", |f| f.continuation_history = false),
        ("CaptureHistory", |f| f.capture_history = false),
        ("CorrectionHistory", |f| f.correction_history = false),
        ("PieceSetCorrection", |f| f.piece_set_correction = false),
        ("SingularExtension", |f| f.singular_extension = false),
        ("ProbCut", |f| f.probcut = false),
        ("NullMove", |f| f.null_move = false),
        ("Futility", |f| f.futility = false),
        ("ReverseFutility", |f| f.reverse_futility = false),
        ("SeePruning", |f| f.see_pruning = false),
        ("CheckExtension", |f| f.check_extension = false),
        ("InternalIterativeReduction", |f| f.iir = false),
        ("MateDistancePruning", |f| f.mate_distance_pruning = false),
        ("AspirationWindows", |f| f.aspiration = false),
        ("QsearchPruning", |f| f.qsearch_pruning = false),
        ("CaptureReductions", |f| f.capture_reductions = false),
        ("MateOnePly", |f| f.mate_one_ply = false),
        // Acts only on a clock: a `bench --ablate` row (fixed depth)
        // shows no change.
        ("AdaptiveTime", |f| f.adaptive_time = false),
    ];
}

/// Which static evaluation the search calls.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// The hand-crafted evaluation of `eval/`: the baseline the networks
    /// are measured against.
    Classic,
    /// A learned network (`nnue/`).
    Network(Arc<Network>),
    /// Material only, with YaneuraOu's piece values (`eval/material.rs`):
    /// the yardstick of the search against YaneuraOu's material build.
    Material,
    /// A YaneuraOu-format network (`nnue/standard/`) and the `FV_SCALE`
    /// its output is divided by.
    Standard(Arc<StandardNetwork>, i32),
}

impl Evaluator {
    /// The static value of `pos` for the side to move, computed from
    /// scratch (no accumulators): what `eval` and `ryuo nnue eval` print.
    /// A YaneuraOu-format network's value is in YaneuraOu's units, not
    /// clamped to the search's limit, so that the two engines compare.
    pub fn value_from_scratch(&self, pos: &crate::position::Position) -> Value {
        match self {
            Evaluator::Classic => crate::eval::evaluate(pos),
            Evaluator::Material => crate::eval::material::evaluate(pos),
            Evaluator::Network(net) => crate::nnue::evaluate_from_scratch(net, pos),
            Evaluator::Standard(net, fv_scale) => net.value(
                crate::nnue::standard::evaluate_from_scratch(net, pos),
                *fv_scale,
                pos,
            ),
        }
    }

    /// The evaluator of a loaded network file.
    pub fn of(network: &EvalNetwork, fv_scale: i32) -> Evaluator {
        match network {
            EvalNetwork::Ryuo(net) => Evaluator::Network(Arc::clone(net)),
            EvalNetwork::Standard(net) => Evaluator::Standard(Arc::clone(net), fv_scale),
        }
    }
}

impl Default for Evaluator {
    /// The network embedded in the binary.
    fn default() -> Self {
        crate::nnue::embedded().map_or(Evaluator::Classic, Evaluator::Network)
    }
}

/// Settings that hold across searches.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Number of principal variations to report (MultiPV).
    pub multipv: usize,
    /// Score of a draw by repetition for the side to move, centipawns.
    pub draw_value: Value,
    /// Which entering-king declaration rule applies.
    pub entering_king_rule: EnteringKingRule,
    /// Pruning and ordering switches.
    pub features: Features,
    /// The search's tunable constants.
    pub params: SearchParams,
    /// The game is drawn once this many moves are played
    /// (`MaxMovesToDraw`): a position whose game ply (the number of the
    /// move to play, 1 at the start) is beyond it scores as a draw, unless
    /// the side to move is mated. `u32::MAX`: no such rule.
    pub max_moves_to_draw: u32,
    /// The static evaluation.
    pub evaluator: Evaluator,
    /// Percent of a timed move's optimum time for the df-pn mate test at
    /// the root before the alpha-beta search (`root_mate.rs`); 0: none.
    pub root_mate_percent: u32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            multipv: 1,
            draw_value: 0,
            entering_king_rule: EnteringKingRule::Csa27,
            features: Features::default(),
            params: SearchParams::DEFAULT,
            max_moves_to_draw: u32::MAX,
            evaluator: Evaluator::default(),
            root_mate_percent: 0,
        }
    }
}

/// What ends a search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Time budget (none: no time limit).
    pub time: Option<TimeBudget>,
    /// Search until `stop` (USI `go infinite`): never return on its own.
    pub infinite: bool,
    /// Only these root moves (USI `searchmoves`); empty means all.
    pub searchmoves: Vec<Move>,
    /// Analysis (`ConsiderationMode`): while the answer waits for `stop`
    /// (`go infinite`) or `ponderhit` (`go ponder`), nothing ends the
    /// iterations early: not a mate found, not the time heuristics.
    pub no_early_stop: bool,
}

impl Limits {
    /// Whether the search, at this moment, only ends on `stop` or
    /// `ponderhit` (see `no_early_stop`).
    #[inline]
    pub fn analysing(&self, control: &Control) -> bool {
        self.no_early_stop && (control.waits_for_stop(self) || control.is_pondering())
    }
}

/// Shared between the searching threads and the thread that controls them.
#[derive(Debug)]
pub struct Control {
    stop: AtomicBool,
    pondering: AtomicBool,
    epoch: Instant,
    /// Milliseconds after `epoch` from which the time budget counts.
    origin_ms: AtomicU64,
    /// The budget from the clock sent with `ponderhit` (YaneuraOu and
    /// ShogiHome send one after a `go ponder` without a clock); it
    /// replaces the budget of `go`.
    ponderhit_budget: OnceLock<TimeBudget>,
}

impl Default for Control {
    fn default() -> Self {
        Control::new(false)
    }
}

impl Control {
    /// A fresh control, the clock starting now; `pondering` for `go ponder`.
    pub fn new(pondering: bool) -> Control {
        Control::new_at(Instant::now(), pondering)
    }

    /// A fresh control whose clock started at `start` (when the GUI's `go`
    /// arrived, so that getting ready counts against the budget).
    pub fn new_at(start: Instant, pondering: bool) -> Control {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            epoch: start,
            origin_ms: AtomicU64::new(0),
            ponderhit_budget: OnceLock::new(),
        }
    }

    /// Asks every search thread to stop as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The stop flag itself, for solvers that poll an `AtomicBool`.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// The opponent played the expected move: the time budget counts from now.
    pub fn ponderhit(&self) {
        let now = self.epoch.elapsed().as_millis() as u64;
        self.origin_ms.store(now, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Relaxed);
    }

    /// `ponderhit` with the time budget from the clock it carried.
    pub fn ponderhit_with(&self, budget: TimeBudget) {
        let _ = self.ponderhit_budget.set(budget);
        self.ponderhit();
    }

    /// The time budget in force: the one from `ponderhit`, else `limits`'.
    #[inline]
    pub fn time_budget(&self, limits: &Limits) -> Option<TimeBudget> {
        self.ponderhit_budget.get().copied().or(limits.time)
    }

    /// Whether the search answers only on `stop` (`go infinite`, or a
    /// `go ponder` without a clock until a `ponderhit` brings one).
    pub fn waits_for_stop(&self, limits: &Limits) -> bool {
        limits.infinite && self.ponderhit_budget.get().is_none()
    }

    /// Whether the search is pondering (no time limit applies yet).
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// Time counted against the budget.
    pub fn elapsed(&self) -> Duration {
        let origin = Duration::from_millis(self.origin_ms.load(Ordering::Relaxed));
        self.epoch.elapsed().saturating_sub(origin)
    }

    /// Time since the search started (for `info time`).
    pub fn since_start(&self) -> Duration {
        self.epoch.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every opt-in switch is off by default (its USI option says
    /// `default false`), turns one field on, and has a name of its own.
    #[test]
    fn opt_in_switches_are_off_by_default_and_distinct() {
        let mut names = std::collections::HashSet::new();
        for (name, switch) in Features::OPT_IN {
            assert!(names.insert(name), "{name} twice");
            let mut f = Features::default();
            switch(&mut f, false);
            assert_eq!(f, Features::default(), "{name} is on by default");
            switch(&mut f, true);
            assert_ne!(f, Features::default(), "{name} sets nothing");
        }
    }
}
