//! The searcher and its threads: per-thread data (stack, histories, PV,
//! accumulators), the context every node reads, and Lazy SMP (helper
//! threads sharing the transposition table).

use super::correction::CorrectionHistory;
use super::deepening::iterative_deepening;
use super::history::{ContinuationHistory, Histories, Killers, PawnHistory};
use super::params::*;
use super::timeman::PreviousMove;
use super::tt::TranspositionTable;
use super::*;
use crate::mate::MateSolver;
use crate::nnue::standard::StandardAccumulators;
use crate::nnue::{Accumulators, MAX_EVAL};
use crate::position::Position;
use crate::types::{Move, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// One root move with what the last iterations learnt of it.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub mv: Move,
    pub score: Value,
    pub previous_score: Value,
    pub seldepth: i32,
    pub pv: Vec<Move>,
    /// Nodes spent searching this move in this search (the time manager's
    /// node effort).
    pub effort: u64,
}

/// Per-ply data a node needs from its ancestors.
#[derive(Clone, Copy, Default)]
pub(crate) struct Frame {
    pub static_eval: Value,
    pub killers: Killers,
    pub current_move: Move,
    /// `history::piece_to` of `current_move` (`NO_PIECE_TO` for a null
    /// move), for the continuation histories of the plies below.
    pub cont_key: usize,
    pub in_check: bool,
    /// The move a singular-extension search leaves out at this ply.
    pub excluded: Move,
    /// Double extensions on the path to this ply (bounded, or the
    /// search could extend without end).
    pub double_extensions: i32,
    /// The node is or was on a principal variation (its own PV flag or
    /// its hash entry's mark; Stockfish's `ttPv`).
    pub tt_pv: bool,
    /// Plies the late-move reduction took from the move searched below
    /// this ply while that reduced search runs (0 otherwise): the child
    /// reads it to adjust its own depth (`HindsightDepth`).
    pub reduction: i32,
    /// Fail highs of the nodes at this ply below the grandparent's
    /// current move (`YoLmr` reduces more when the replies keep failing
    /// high: Stockfish's `cutoffCnt`).
    pub cutoff_cnt: i32,
}

/// Everything one search thread owns.
pub(crate) struct ThreadData {
    /// 0 for the main thread, 1.. for helpers (Lazy SMP).
    pub id: usize,
    pub pos: Position,
    pub stack: Vec<Frame>,
    pub history: Histories,
    pub correction: CorrectionHistory,
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
    /// Late-move reductions by depth and move count, from `lmr_params`.
    pub lmr: Box<[[i32; 64]; 64]>,
    /// The parameters `lmr` was computed from (rebuilt when they change).
    lmr_params: SearchParams,
    /// The network's hidden layer along the search path.
    pub accumulators: Accumulators,
    /// The same for a YaneuraOu-format network.
    pub standard_accumulators: StandardAccumulators,
    /// The main thread's `currmove` reports, during a search.
    pub currmove: Option<CurrMoveSink>,
    /// The main thread stops an iteration once this much time has gone
    /// by (set by the time manager between iterations).
    pub soft_deadline: Option<Duration>,
    /// The main thread's last search, for the time manager of the next.
    pub previous_move: Option<PreviousMove>,
}

impl ThreadData {
    fn new(id: usize, pos: Position) -> ThreadData {
        let mut lmr = Box::new([[0i32; 64]; 64]);
        fill_lmr_table(&mut lmr, &SearchParams::DEFAULT);
        ThreadData {
            id,
            pos,
            stack: vec![Frame::default(); MAX_PLY + 8],
            history: Histories::default(),
            correction: CorrectionHistory::default(),
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
            lmr_params: SearchParams::DEFAULT,
            accumulators: Accumulators::new(),
            standard_accumulators: StandardAccumulators::new(),
            currmove: None,
            soft_deadline: None,
            previous_move: None,
        }
    }

    /// The static evaluation of the current position, side to move's view.
    #[inline]
    pub fn evaluate(&mut self, evaluator: &Evaluator) -> Value {
        match evaluator {
            Evaluator::Classic => crate::eval::evaluate(&self.pos),
            Evaluator::Material => crate::eval::material::evaluate(&self.pos),
            Evaluator::Network(net) => self.accumulators.evaluate(net, &self.pos),
            Evaluator::Standard(net, fv_scale) => {
                let output = self.standard_accumulators.evaluate(net, &self.pos);
                net.value(output, *fv_scale, &self.pos)
                    .clamp(-MAX_EVAL, MAX_EVAL)
            }
        }
    }
}

/// Fills the late-move reduction table from `params`.
fn fill_lmr_table(lmr: &mut [[i32; 64]; 64], params: &SearchParams) {
    for (d, row) in lmr.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = params.lmr_reduction(d, m);
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
    /// The root mate test's own solver (`RootMatePercent`), with a small
    /// table: the test with `go mate`'s 64 MiB measured some 60 Elo worse
    /// than with 1 MiB over three runs, for no reason found, perhaps by
    /// chance (README, "A df-pn mate test at the root"); and it leaves
    /// `go mate`'s table alone.
    root_mate: MateSolver,
}

/// Table of the root mate test's solver, MiB: it has a few milliseconds
/// a move (at most some ten thousand nodes at byoyomi 100 ms), and its
/// 32,768 entries, replaced by the work they hold, keep what matters.
const ROOT_MATE_HASH_MIB: usize = 1;

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
            root_mate: MateSolver::try_new(ROOT_MATE_HASH_MIB)?,
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
        self.main.correction.clear();
        self.main.previous_move = None;
        for h in &mut self.helpers {
            h.history.clear();
            h.correction.clear();
        }
        if let Some(m) = self.mate.as_mut() {
            m.clear();
        }
        self.root_mate.clear();
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
    /// sharing the hash table). Each helper has its own tables (about
    /// 33 MB, mostly the continuation and pawn histories and the
    /// continuation correction): more than the
    /// free memory is refused and the threads stay as they were.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        let helpers = threads.max(1) - 1;
        let added = helpers.saturating_sub(self.helpers.len());
        let bytes = added.saturating_mul(
            ContinuationHistory::BYTES
                + PawnHistory::BYTES
                + CorrectionHistory::CONTINUATION_BYTES
                + THREAD_OTHER_BYTES,
        );
        if !crate::memory::fits_in_memory(bytes) {
            return Err(format!(
                "cannot allocate {} MiB for {threads} search threads: more than the free memory",
                bytes >> 20
            ));
        }
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let id = self.helpers.len() + 1;
            self.helpers.push(ThreadData::new(id, Position::startpos()));
        }
        Ok(())
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
    /// Before them, with `RootMatePercent` set, the root test's solver may
    /// look for a mate in a share of the time (`root_mate.rs`).
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        options: &SearchOptions,
        control: &Control,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        if let Some(line) =
            super::root_mate::find(&mut self.root_mate, pos, limits, options, control)
        {
            return self.play_mate(line, control, reporter);
        }
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
            if td.lmr_params != options.params {
                fill_lmr_table(&mut td.lmr, &options.params);
                td.lmr_params = options.params;
            }
            td.nodes = 0;
            td.stopped = false;
            td.soft_deadline = None;
            if options.params.low_ply_history != 0 {
                // Its plies are counted from this search's root.
                td.history.low_ply.clear();
            }
            match &options.evaluator {
                Evaluator::Network(net) => td.accumulators.bind(net),
                Evaluator::Standard(net, _) => td.standard_accumulators.bind(net),
                Evaluator::Classic | Evaluator::Material => {}
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

    /// The result of a search answered by the root mate test: `line`, a
    /// verified mate, reported as one principal variation.
    fn play_mate(
        &self,
        line: Vec<Move>,
        control: &Control,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let nodes = self.root_mate.nodes();
        let len = line.len() as i32;
        reporter.pv(&PvInfo {
            multipv: 1,
            depth: len,
            seldepth: len,
            score: Score::Mate(len),
            bound: Bound::Exact,
            nodes,
            time: control.since_start(),
            hashfull: self.tt.hashfull(),
            pv: line.clone(),
        });
        SearchResult {
            best: line.first().copied(),
            ponder: line.get(1).copied(),
            declare_win: false,
            score: MATE - len,
            depth: len,
            nodes,
            pv: line,
        }
    }
}

/// Stack of a helper thread: the recursive search keeps ~10 KiB a ply.
const HELPER_STACK_BYTES: usize = 64 << 20;

/// A helper's tables besides the continuation and pawn histories (principal
/// variations, frames, accumulators, the other histories), rounded up.
const THREAD_OTHER_BYTES: usize = 2 << 20;
