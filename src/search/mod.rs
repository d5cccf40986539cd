//! The search: iterative deepening over a negamax alpha-beta searcher
//! (`alphabeta.rs`), with a shared transposition table.
//!
//! The caller (the USI loop, `bench`, tests) hands in a position, `Limits`
//! and `SearchOptions`, shares a `Control` for stop/ponderhit, and receives
//! progress through the `Reporter` trait. The search knows nothing of USI
//! text.

mod alphabeta;
pub mod history;
pub mod movepick;
pub mod params;
pub mod see;
pub mod tt;

use crate::mate::MateSolver;
use crate::movegen::legal_moves;
use crate::nnue::{Accumulators, Network};
use crate::position::{EnteringKingRule, Position};
use crate::time::TimeBudget;
use crate::types::{Move, Value};
use history::{ButterflyHistory, Killers};
use params::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
pub use tt::{Bound, TranspositionTable};

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
}

impl Default for Features {
    fn default() -> Self {
        Features {
            late_move_reductions: true,
            move_count_pruning: true,
            killers: 2,
            history: true,
            null_move: true,
            futility: true,
            reverse_futility: true,
            see_pruning: true,
            check_extension: true,
            iir: true,
            mate_distance_pruning: true,
            aspiration: true,
        }
    }
}

/// Turns one technique off.
pub type SwitchOff = fn(&mut Features);

impl Features {
    /// Names and setters of the switches, for `bench --ablate` and the USI
    /// options; each entry turns one technique off.
    pub const ABLATIONS: [(&'static str, SwitchOff); 13] = [
        ("LateMoveReductions", |f| f.late_move_reductions = false),
        ("MoveCountPruning", |f| f.move_count_pruning = false),
        ("Killers=1", |f| f.killers = 1),
        ("Killers=0", |f| f.killers = 0),
        ("History", |f| f.history = false),
        ("NullMove", |f| f.null_move = false),
        ("Futility", |f| f.futility = false),
        ("ReverseFutility", |f| f.reverse_futility = false),
        ("SeePruning", |f| f.see_pruning = false),
        ("CheckExtension", |f| f.check_extension = false),
        ("InternalIterativeReduction", |f| f.iir = false),
        ("MateDistancePruning", |f| f.mate_distance_pruning = false),
        ("AspirationWindows", |f| f.aspiration = false),
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
    /// The game is drawn once this many moves are played
    /// (`MaxMovesToDraw`): a position whose game ply (the number of the
    /// move to play, 1 at the start) is beyond it scores as a draw, unless
    /// the side to move is mated. `u32::MAX`: no such rule.
    pub max_moves_to_draw: u32,
    /// The static evaluation.
    pub evaluator: Evaluator,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            multipv: 1,
            draw_value: 0,
            entering_king_rule: EnteringKingRule::Csa27,
            features: Features::default(),
            max_moves_to_draw: u32::MAX,
            evaluator: Evaluator::default(),
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

/// A score as USI shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns, side to move's view.
    Cp(Value),
    /// Mate in this many plies; negative when the side to move is mated.
    Mate(i32),
}

impl Score {
    /// Converts an internal value.
    pub fn from_value(v: Value) -> Score {
        if v >= MATE_IN_MAX_PLY {
            Score::Mate(MATE - v)
        } else if v <= -MATE_IN_MAX_PLY {
            Score::Mate(-(MATE + v))
        } else {
            Score::Cp(v)
        }
    }
}

/// One principal variation, reported after each completed (or failed)
/// root search.
#[derive(Clone, Debug)]
pub struct PvInfo {
    /// 1-based index among the MultiPV lines.
    pub multipv: usize,
    /// Iteration depth.
    pub depth: i32,
    /// Deepest ply reached.
    pub seldepth: i32,
    /// Score of the line.
    pub score: Score,
    /// `Exact`, or `Lower`/`Upper` for an aspiration fail.
    pub bound: Bound,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Permille of the hash table in use.
    pub hashfull: u32,
    /// The moves of the line.
    pub pv: Vec<Move>,
}

/// Receives progress from the search.
pub trait Reporter {
    /// A principal variation (called for every line of every iteration).
    fn pv(&mut self, info: &PvInfo);

    /// Where the root moves being searched go once a search is long
    /// (`CURRMOVE_AFTER`): called by the main thread with the iteration
    /// depth, the move and its 1-based number. `None`: not wanted.
    fn currmove_sink(&self) -> Option<CurrMoveSink> {
        None
    }
}

/// Receives `(depth, move, move number)` for each root move searched.
pub type CurrMoveSink = Box<dyn FnMut(i32, Move, usize) + Send>;

/// How long a search runs before it names each root move it searches
/// (Stockfish's 3 s): a GUI then shows progress within long iterations.
pub const CURRMOVE_AFTER: Duration = Duration::from_millis(3000);

/// A reporter that discards everything.
pub struct Silent;

impl Reporter for Silent {
    fn pv(&mut self, _: &PvInfo) {}
}

/// The outcome of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// The move to play; `None` when there is no legal move (resign).
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// The side to move can declare a win by entering king.
    pub declare_win: bool,
    /// Score of the best move.
    pub score: Value,
    /// Last completed iteration.
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// The final principal variation.
    pub pv: Vec<Move>,
}

/// One root move with what the last iterations learnt of it.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub mv: Move,
    pub score: Value,
    pub previous_score: Value,
    pub seldepth: i32,
    pub pv: Vec<Move>,
}

/// Per-ply data a node needs from its ancestors.
#[derive(Clone, Copy, Default)]
pub(crate) struct Frame {
    pub static_eval: Value,
    pub killers: Killers,
    pub current_move: Move,
    pub in_check: bool,
}

/// Everything one search thread owns.
pub(crate) struct ThreadData {
    /// 0 for the main thread, 1.. for helpers (Lazy SMP).
    pub id: usize,
    pub pos: Position,
    pub stack: Vec<Frame>,
    pub history: ButterflyHistory,
    /// Triangular PV table: `pv[ply]` holds the line from `ply` on.
    pub pv: Vec<[Move; MAX_PLY + 1]>,
    pub pv_len: Vec<usize>,
    pub nodes: u64,
    pub seldepth: i32,
    pub root_moves: Vec<RootMove>,
    pub pv_index: usize,
    pub root_depth: i32,
    pub stopped: bool,
    /// Null moves are allowed only from this ply on: a null-move
    /// verification search raises it over the plies it covers.
    pub nmp_min_ply: usize,
    pub lmr: Box<[[i32; 64]; 64]>,
    /// The network's hidden layer along the search path.
    pub accumulators: Accumulators,
    /// The main thread's `currmove` reports, during a search.
    pub currmove: Option<CurrMoveSink>,
}

impl ThreadData {
    fn new(id: usize, pos: Position) -> ThreadData {
        let mut lmr = Box::new([[0i32; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                let x = LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR;
                *r = x as i32;
            }
        }
        ThreadData {
            id,
            pos,
            stack: vec![Frame::default(); MAX_PLY + 8],
            history: ButterflyHistory::default(),
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            pv_index: 0,
            root_depth: 0,
            stopped: false,
            nmp_min_ply: 0,
            lmr,
            accumulators: Accumulators::new(),
            currmove: None,
        }
    }

    /// The static evaluation of the current position, side to move's view.
    #[inline]
    pub fn evaluate(&mut self, evaluator: &Evaluator) -> Value {
        match evaluator {
            Evaluator::Classic => crate::eval::evaluate(&self.pos),
            Evaluator::Network(net) => self.accumulators.evaluate(net, &self.pos),
        }
    }
}

/// The searcher: the hash table and the thread data that persist between
/// searches (histories are kept from move to move within a game).
pub struct Searcher {
    tt: TranspositionTable,
    main: ThreadData,
    /// Helper threads' data for Lazy SMP (`threads - 1` of them).
    helpers: Vec<ThreadData>,
    /// The df-pn solver for `go mate`, allocated on first use.
    mate: Option<MateSolver>,
    mate_hash_mib: usize,
}

/// What the search consults at every node but never changes.
pub(crate) struct SearchContext<'a> {
    pub tt: &'a TranspositionTable,
    pub limits: &'a Limits,
    pub options: &'a SearchOptions,
    pub control: &'a Control,
    /// Set by the main thread when it is done: the helpers stop.
    pub helpers_stop: &'a AtomicBool,
    /// Nodes of each thread, published every few thousand nodes so that
    /// reports and the node limit see the sum.
    pub node_counts: &'a [AtomicU64],
}

impl SearchContext<'_> {
    /// Nodes searched by all threads (as last published, plus `own`'s
    /// exact count for the calling thread).
    pub fn total_nodes(&self, td: &ThreadData) -> u64 {
        self.node_counts
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if i == td.id {
                    td.nodes
                } else {
                    n.load(Ordering::Relaxed)
                }
            })
            .sum()
    }
}

impl Searcher {
    /// A searcher with a hash table of `hash_mib` MiB.
    pub fn new(hash_mib: usize) -> Searcher {
        Self::try_new(hash_mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like `new`, but an error if the hash table cannot be allocated.
    pub fn try_new(hash_mib: usize) -> Result<Searcher, String> {
        Ok(Searcher {
            tt: TranspositionTable::try_new(hash_mib)?,
            main: ThreadData::new(0, Position::startpos()),
            helpers: Vec::new(),
            mate: None,
            mate_hash_mib: DEFAULT_MATE_HASH_MIB,
        })
    }

    /// Size of the hash table, MiB.
    pub fn hash_mib(&self) -> usize {
        self.tt.size_mib()
    }

    /// Reallocates the hash table (its content is lost). A failed
    /// allocation is reported and the old table stays in use.
    pub fn try_resize_hash(&mut self, hash_mib: usize) -> Result<(), String> {
        if self.tt.size_mib() != hash_mib {
            self.tt = TranspositionTable::try_new(hash_mib)?;
        }
        Ok(())
    }

    /// Gives the mate solver a table of `mib` MiB: now if it has one of
    /// another size, else at first use. On failure it keeps the table it
    /// had, and the error says so.
    pub fn set_mate_hash(&mut self, mib: usize) -> Result<(), String> {
        if mib == self.mate_hash_mib {
            return Ok(());
        }
        if self.mate.is_none() {
            self.mate_hash_mib = mib;
            return Ok(());
        }
        let solver = MateSolver::try_new(mib)
            .map_err(|e| format!("{e}; the mate solver keeps {} MiB", self.mate_hash_mib))?;
        self.mate = Some(solver);
        self.mate_hash_mib = mib;
        Ok(())
    }

    /// Allocates the mate solver if it has no table yet. If the size set
    /// cannot be had, it gets a 1 MiB table and the error says so.
    pub fn prepare_mate_solver(&mut self) -> Result<(), String> {
        if self.mate.is_some() {
            return Ok(());
        }
        let (solver, result) = match MateSolver::try_new(self.mate_hash_mib) {
            Ok(solver) => (solver, Ok(())),
            Err(e) => {
                self.mate_hash_mib = 1;
                (
                    MateSolver::new(1),
                    Err(format!("{e}; the mate solver uses 1 MiB")),
                )
            }
        };
        self.mate = Some(solver);
        result
    }

    /// The mate solver, allocated on first use (see `prepare_mate_solver`).
    pub fn mate_solver(&mut self) -> &mut MateSolver {
        let _ = self.prepare_mate_solver();
        self.mate.get_or_insert_with(|| MateSolver::new(1))
    }

    /// Forgets everything learnt: hash table and histories (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.main.history.clear();
        for h in &mut self.helpers {
            h.history.clear();
        }
        if let Some(m) = self.mate.as_mut() {
            m.clear();
        }
    }

    /// The hash table's move for `pos`, if it is legal there.
    pub fn hash_move(&self, pos: &Position) -> Option<Move> {
        self.tt
            .probe(pos.key())
            .map(|h| h.mv)
            .filter(|&m| pos.is_legal_move(m))
    }

    /// Permille of the hash table used by the current search.
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }

    /// Number of search threads (Lazy SMP: one main thread and helpers
    /// sharing the hash table).
    pub fn set_threads(&mut self, threads: usize) {
        let helpers = threads.max(1) - 1;
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let id = self.helpers.len() + 1;
            self.helpers.push(ThreadData::new(id, Position::startpos()));
        }
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Searches `pos` within `limits`, reporting through `reporter`.
    ///
    /// With several threads, the helpers run the same iterative deepening
    /// on their own copies of the position, sharing only the hash table
    /// and skipping some depths so that they explore other parts of the
    /// tree; the main thread decides when to stop and which result to play.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        options: &SearchOptions,
        control: &Control,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.tt.new_search();
        let helpers_stop = AtomicBool::new(false);
        let node_counts: Vec<AtomicU64> = (0..self.threads()).map(|_| AtomicU64::new(0)).collect();
        let ctx = SearchContext {
            tt: &self.tt,
            limits,
            options,
            control,
            helpers_stop: &helpers_stop,
            node_counts: &node_counts,
        };
        for td in std::iter::once(&mut self.main).chain(self.helpers.iter_mut()) {
            td.pos = pos.search_copy();
            td.nodes = 0;
            td.stopped = false;
            if let Evaluator::Network(net) = &options.evaluator {
                td.accumulators.bind(net);
            }
        }
        let main = &mut self.main;
        let (mut result, helper_results) = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .helpers
                .iter_mut()
                .filter_map(|td| {
                    let ctx = &ctx;
                    std::thread::Builder::new()
                        .stack_size(HELPER_STACK_BYTES)
                        .spawn_scoped(scope, move || iterative_deepening(td, ctx, &mut Silent))
                        .ok()
                })
                .collect();
            let result = iterative_deepening(main, &ctx, reporter);
            // USI: in infinite or ponder mode the answer waits for stop/ponderhit.
            while (control.waits_for_stop(limits) || control.is_pondering())
                && !control.is_stopped()
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            helpers_stop.store(true, Ordering::Relaxed);
            let helper_results: Vec<SearchResult> =
                handles.into_iter().filter_map(|h| h.join().ok()).collect();
            (result, helper_results)
        });
        result.nodes += helper_results.iter().map(|r| r.nodes).sum::<u64>();
        // Best-thread vote: a helper that completed a deeper iteration with
        // a score at least as good is trusted over the main thread.
        if !result.declare_win && result.best.is_some() {
            if let Some(better) = helper_results
                .iter()
                .filter(|r| r.best.is_some() && r.depth > result.depth && r.score >= result.score)
                .max_by_key(|r| (r.depth, r.score))
            {
                let nodes = result.nodes;
                result = better.clone();
                result.nodes = nodes;
            }
        }
        result
    }
}

/// Stack of a helper thread: the recursive search keeps ~10 KiB a ply.
const HELPER_STACK_BYTES: usize = 64 << 20;

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

fn iterative_deepening(
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
    let max_depth = ctx
        .limits
        .depth
        .unwrap_or(MAX_PLY as i32 - 1)
        .clamp(1, MAX_PLY as i32 - 1);
    let multipv = ctx.options.multipv.clamp(1, td.root_moves.len());
    let mut completed_depth = 0;
    let mut last_best = Move::NONE;
    let mut best_move_changes = 0.0f64;

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
                && depth >= ASPIRATION_MIN_DEPTH
                && prev.abs() < MATE_IN_MAX_PLY;
            let mut delta = ASPIRATION_DELTA;
            let (mut alpha, mut beta) = if use_window {
                ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
            } else {
                (-INFINITE, INFINITE)
            };
            loop {
                let value = alphabeta::search::<true>(td, ctx, 0, alpha, beta, depth, false);
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
                } else if value >= beta {
                    report(td, ctx, reporter, pv_index, Bound::Lower);
                    beta = (value + delta).min(INFINITE);
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
        if best != last_best {
            best_move_changes += 1.0;
        }
        best_move_changes *= 0.5;
        last_best = best;

        // A mate found needs no deeper search (unless told to go on).
        let score = td.root_moves[0].score;
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
        if let Some(budget) = ctx.control.time_budget(ctx.limits) {
            if !ctx.control.is_pondering() && !ctx.limits.analysing(ctx.control) {
                // Stable best move: stop early; unstable: use more.
                let scale = 0.6 + best_move_changes.min(2.0) * 0.7;
                let only_move = td.root_moves.len() == 1;
                let optimum = budget.optimum.mul_f64(if only_move { 0.2 } else { scale });
                let elapsed = ctx.control.elapsed();
                if elapsed >= budget.minimum && elapsed >= optimum.min(budget.maximum) {
                    break;
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
