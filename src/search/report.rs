//! What the search hands back: the result, and the progress reported
//! through the `Reporter` trait while it runs (scores, lines, currmove).

use super::params::*;
use super::*;
use crate::types::{Move, Value};
use std::time::Duration;

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
