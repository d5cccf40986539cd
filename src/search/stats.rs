//! The shape of the search tree, counted by remaining depth (built with
//! `--features stats`; in other builds `count` is empty and `report` says
//! nothing, so the searcher pays nothing).
//!
//! Why: at equal nodes YaneuraOu's search completes two plies more than
//! Ryuo's on the same positions. Node counts per remaining depth, the share
//! of nodes that reach the move loop, the moves searched there and the
//! steps that end a node before its moves tell where the two trees differ;
//! the late move reductions and their re-searches, how its moves are
//! searched, and how often the first move (the hash move, or without one
//! the picker's first) is the one that fails high (README, "The shape of
//! the tree"). Counted at non-PV nodes not in check, summed over every
//! search of the process; the nodes those rows leave out (quiescence, PV
//! and in-check nodes, the root) are counted whole, as `Total`s, and the
//! moves of PV and in-check nodes by depth, since at low depth they open
//! most of the tree.

/// What is counted at a node of remaining depth `d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A node entered (after the horizon test).
    Node = 0,
    /// A node that reached its move loop.
    Loop,
    /// A move searched in the loop (after the pruning of step 10).
    Move,
    /// A node ended by the hash table's value.
    HashCut,
    /// A node ended by reverse futility.
    ReverseFutility,
    /// A node ended by the null move.
    NullMove,
    /// A node ended by ProbCut.
    ProbCut,
    /// A move searched first at a reduced depth (late move reduction).
    Reduced,
    /// A reduced move searched again deeper, having beaten alpha.
    Researched,
    /// `Reduced`, at a cut node (the rest are at all nodes).
    ReducedAtCut,
    /// `Researched`, at a cut node.
    ResearchedAtCut,
    /// A move of the loop failed high.
    Cutoff,
    /// `Cutoff` by the first move searched.
    CutoffFirst,
    /// The sum, over the cutoffs, of the cutting move's number in the
    /// move count (how far down the order the cutoffs come; `count_by`).
    CutoffIndex,
    /// `Move`: a capture or promotion.
    MoveTactical,
    /// `Move`: a check that is not a capture or promotion.
    MoveCheck,
    /// `Move`: a quiet drop that does not check.
    MoveDrop,
    /// A move searched at a PV node (these nodes are not in the rows).
    PvMove,
    /// A move searched at a non-PV node in check (nor these).
    CheckMove,
    /// `Loop` with a hash move (the move tried first).
    LoopHashMove,
    /// `Cutoff` by the hash move: with `LoopHashMove`, how often the
    /// table's move is right, apart from the order of the rest.
    CutoffHashMove,
    /// `Loop` without a hash move whose first move searched is a capture
    /// or promotion.
    NoHashFirstTactical,
    /// `Cutoff` at a node without a hash move.
    CutoffNoHash,
    /// `CutoffNoHash` by the first move searched.
    CutoffNoHashFirst,
    /// `CutoffNoHash` by a capture or promotion.
    CutoffNoHashTactical,
}

/// Nodes counted whatever their depth: the ones the per-depth rows leave
/// out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Total {
    /// A quiescence node entered.
    Qsearch = 0,
    /// A PV node of the main search entered.
    Pv,
    /// A non-PV node of the main search entered in check.
    Check,
    /// A search of the root (aspiration re-searches each count).
    Root,
    /// A move searched at the root.
    RootMove,
}

/// Depths counted apart; deeper ones share the last row.
#[cfg(feature = "stats")]
const DEPTHS: usize = 64;
#[cfg(feature = "stats")]
const EVENTS: usize = 25;
#[cfg(feature = "stats")]
const TOTAL_KINDS: usize = 5;

/// The report's name of each `Event`, in order (the array's length ties
/// it to `EVENTS`).
#[cfg(feature = "stats")]
const EVENT_NAMES: [&str; EVENTS] = [
    "nodes",
    "loop",
    "moves",
    "hash",
    "rfp",
    "null",
    "probcut",
    "lmr",
    "research",
    "lmr_cut",
    "research_cut",
    "cut",
    "cut1",
    "cutidx",
    "mtact",
    "mcheck",
    "mdrop",
    "pvmove",
    "checkmove",
    "loop_tt",
    "cut_tt",
    "ntt_first_tact",
    "cut_ntt",
    "cut_ntt1",
    "cut_ntt_tact",
];

/// The report's name of each `Total`, in order.
#[cfg(feature = "stats")]
const TOTAL_NAMES: [&str; TOTAL_KINDS] = ["qs", "pv", "check", "root", "rootmoves"];

#[cfg(feature = "stats")]
static COUNTS: [[std::sync::atomic::AtomicU64; EVENTS]; DEPTHS] =
    [const { [const { std::sync::atomic::AtomicU64::new(0) }; EVENTS] }; DEPTHS];

#[cfg(feature = "stats")]
static TOTALS: [std::sync::atomic::AtomicU64; TOTAL_KINDS] =
    [const { std::sync::atomic::AtomicU64::new(0) }; TOTAL_KINDS];

/// Counts a node of kind `total` if `counted`.
#[inline(always)]
pub fn count_total(counted: bool, total: Total) {
    #[cfg(feature = "stats")]
    if counted {
        TOTALS[total as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    #[cfg(not(feature = "stats"))]
    let _ = (counted, total);
}

/// Counts `event` at remaining depth `depth` if the node is `counted`
/// (non-PV, not in check).
#[inline(always)]
pub fn count(counted: bool, event: Event, depth: i32) {
    count_by(counted, event, depth, 1);
}

/// Adds `n` to `event` at remaining depth `depth` if the node is `counted`.
#[inline(always)]
pub fn count_by(counted: bool, event: Event, depth: i32, n: u64) {
    #[cfg(feature = "stats")]
    if counted {
        let d = depth.clamp(0, DEPTHS as i32 - 1) as usize;
        COUNTS[d][event as usize].fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
    #[cfg(not(feature = "stats"))]
    let _ = (counted, event, depth, n);
}

/// The counts so far, a line per depth that saw a node: `stats depth D
/// nodes N loop L moves M hash H rfp R null U probcut P lmr E research
/// S lmr_cut C research_cut R cut X cut1 F cutidx I mtact T mcheck K
/// mdrop D pvmove V checkmove M loop_tt L cut_tt C ntt_first_tact N
/// cut_ntt X cut_ntt1 F cut_ntt_tact T` (the `Event`s in order), then
/// `stats total qs Q pv P check C root R rootmoves M` (the `Total`s);
/// `None` in a build without the feature.
pub fn report() -> Option<String> {
    #[cfg(feature = "stats")]
    {
        use std::fmt::Write;
        let mut text = String::new();
        for (d, row) in COUNTS.iter().enumerate() {
            let c: Vec<u64> = row
                .iter()
                .map(|a| a.load(std::sync::atomic::Ordering::Relaxed))
                .collect();
            if c[Event::Node as usize] + c[Event::PvMove as usize] + c[Event::CheckMove as usize]
                == 0
            {
                continue;
            }
            let _ = write!(text, "stats depth {d}");
            for (name, n) in EVENT_NAMES.iter().zip(&c) {
                let _ = write!(text, " {name} {n}");
            }
            text.push('\n');
        }
        text.push_str("stats total");
        for (name, a) in TOTAL_NAMES.iter().zip(&TOTALS) {
            let n = a.load(std::sync::atomic::Ordering::Relaxed);
            let _ = write!(text, " {name} {n}");
        }
        text.push('\n');
        Some(text)
    }
    #[cfg(not(feature = "stats"))]
    None
}

#[cfg(all(test, feature = "stats"))]
mod tests {
    use super::*;

    #[test]
    fn counts_show_in_the_report() {
        count(true, Event::Node, 63);
        count(true, Event::Node, 200);
        count(true, Event::Loop, 63);
        let text = report().unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("stats depth 63 "))
            .unwrap();
        let nodes: u64 = line.split_whitespace().nth(4).unwrap().parse().unwrap();
        assert!(nodes >= 2, "{line}");
    }
}
