//! The df-pn search proper.
//!
//! Proof numbers (`pn`) and disproof numbers (`dn`) are always from the
//! attacker's point of view: a node is proven when `pn == 0` (mate) and
//! disproven when `dn == 0`. Even plies are OR nodes (attacker to move,
//! checks only), odd plies AND nodes (defender to move, every evasion).
//!
//! Every search has a depth limit (plies left for the mate), which the
//! mate-length minimisation lowers step by step; disproofs caused by the
//! limit are stored with the depth they cover so that they never answer a
//! deeper search.
//!
//! # Repetitions (the graph-history interaction)
//!
//! Every attacker move checks, so a cycle is perpetual check, which is not
//! mate. A node whose board recurs on the current path with an attacker hand
//! no larger than the earlier one is therefore disproven *on this path*
//! (an attacker who could mate from the later position could have mated the
//! same way from the earlier one with a hand at least as good). Such a
//! disproof depends on the path, so:
//! - it is never stored in the table;
//! - the result carries the ply of the ancestor it depends on
//!   (`rep_ply`), and every disproof built on it inherits the smallest such
//!   ply; a node's disproof is stored only when it depends on no ancestor
//!   above the node itself (a cycle back to the node does not make its own
//!   disproof path-dependent);
//! - the parent keeps the value in its own child list for as long as it
//!   works on the node, which keeps the path fixed.
//!
//! Proofs never rest on a repetition (a repetition only ever disproves), so
//! they are always stored.

use super::hand;
use super::moves::{generate_checks, generate_evasions, has_evasion};
use super::one_ply::contact_mate_in_one;
use super::table::{Probe, Table, DEPTH_UNBOUNDED};
use crate::bitboard::{self, Bitboard};
use crate::movegen::MoveList;
use crate::position::Position;
use crate::types::{Hand, Move, PieceType, Square};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Proof or disproof number of a settled node.
pub(super) const INFINITE: u32 = u32::MAX;
/// The largest number an unsettled node may carry.
const MAX_FINITE: u32 = INFINITE - 1;
/// Length of the search path the solver can hold (the deepest mate it can
/// find is one ply shorter).
pub(super) const MAX_PLY: usize = 512;
/// `rep_ply` of a disproof that rests on no repetition.
const NOT_REPETITION: u16 = u16::MAX;
/// Capacity of the stack holding the children of every node on the path;
/// running out of it stops the search like a node limit.
pub(super) const CHILD_STACK_CAPACITY: usize = 1 << 16;
/// Nodes between two looks at the clock and the stop flag.
const LIMIT_CHECK_INTERVAL: u64 = 1024;
/// The 1+ε trick: a child may run until its number exceeds the second-best
/// sibling's by a quarter, not just by one, which saves many switches
/// between siblings of similar promise.
const EPSILON_DIVISOR: u64 = 4;

/// One node of the current path.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PathEntry {
    /// Board key (see `key.rs`).
    pub key: u64,
    /// The attacker's hand.
    pub hand: Hand,
}

/// A child of a node on the path, as its parent sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    mv: Move,
    key: u64,
    /// The attacker's hand after `mv`.
    hand: Hand,
    pn: u32,
    dn: u32,
    /// Proven: the mate length; disproven: the depth the disproof covers.
    len: u16,
    /// Disproven: the ancestor ply the disproof depends on.
    rep_ply: u16,
    /// Proven or disproven: the proof or disproof hand.
    settled_hand: Hand,
}

impl Child {
    fn is_settled(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// What a search of a node found.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeResult {
    pub pn: u32,
    pub dn: u32,
    /// Proven: the mate length; disproven: the depth the disproof covers.
    pub len: u16,
    /// Disproven: the ancestor ply the disproof depends on.
    pub rep_ply: u16,
    /// Proven: the proof hand; disproven: the disproof hand.
    pub hand: Hand,
}

impl NodeResult {
    fn proven(len: u16, hand: Hand) -> NodeResult {
        NodeResult {
            pn: 0,
            dn: INFINITE,
            len,
            rep_ply: NOT_REPETITION,
            hand,
        }
    }

    fn disproven(depth: u16, hand: Hand, rep_ply: u16) -> NodeResult {
        NodeResult {
            pn: INFINITE,
            dn: 0,
            len: depth,
            rep_ply,
            hand,
        }
    }

    fn working(pn: u32, dn: u32, hand: Hand) -> NodeResult {
        NodeResult {
            pn,
            dn,
            len: 0,
            rep_ply: NOT_REPETITION,
            hand,
        }
    }
}

/// The answer of `Search::prove`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Mate within `len` plies.
    Proven { len: u16 },
    /// No mate within the depth asked (on this path).
    Disproven,
    /// A limit stopped the search.
    Unknown,
}

/// The buffers a search works in, allocated once by the solver.
pub(super) struct Buffers {
    children: Vec<Child>,
    path: Vec<PathEntry>,
}

impl Buffers {
    pub(super) fn new() -> Buffers {
        Buffers {
            children: Vec::with_capacity(CHILD_STACK_CAPACITY),
            path: vec![PathEntry::default(); MAX_PLY + 1],
        }
    }
}

/// When to give up.
pub(super) struct Limits<'a> {
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
}

/// One search session over a table.
pub(super) struct Search<'a> {
    table: &'a mut Table,
    buffers: &'a mut Buffers,
    pub limits: Limits<'a>,
    /// Nodes visited so far.
    pub nodes: u64,
    /// Set when a limit was hit; every search returns at once afterwards.
    pub aborted: bool,
}

impl<'a> Search<'a> {
    pub(super) fn new(table: &'a mut Table, buffers: &'a mut Buffers, limits: Limits<'a>) -> Self {
        buffers.children.clear();
        Search {
            table,
            buffers,
            limits,
            nodes: 0,
            aborted: false,
        }
    }

    /// Records the node at `ply` of the path (the root or a node the caller
    /// reached by playing moves).
    pub(super) fn set_path(&mut self, ply: usize, entry: PathEntry) {
        self.buffers.path[ply] = entry;
    }

    /// The path entry at `ply`.
    pub(super) fn path(&self, ply: usize) -> PathEntry {
        self.buffers.path[ply]
    }

    /// Searches the node at `ply` (already on the path) until it is settled
    /// for a mate within `depth` plies or a limit is hit.
    pub(super) fn prove(&mut self, pos: &mut Position, ply: usize, depth: u16) -> Outcome {
        if self.aborted {
            return Outcome::Unknown;
        }
        // A settled result holds even if a limit struck on the way back.
        let result = self.mid(pos, ply, depth, INFINITE, INFINITE);
        if result.pn == 0 {
            Outcome::Proven { len: result.len }
        } else if result.dn == 0 {
            Outcome::Disproven
        } else {
            Outcome::Unknown
        }
    }

    /// What the table says about the node at `ply` for `depth`.
    pub(super) fn probe(&mut self, entry: PathEntry, depth: u16) -> Probe {
        self.table.probe(entry.key, entry.hand, depth)
    }

    fn count_node(&mut self) {
        self.nodes += 1;
        if self.limits.max_nodes.is_some_and(|max| self.nodes >= max) {
            self.aborted = true;
        }
        if self.nodes.is_multiple_of(LIMIT_CHECK_INTERVAL)
            && (self.limits.stop.load(Ordering::Relaxed)
                || self.limits.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.aborted = true;
        }
    }

    /// The closest ancestor with the same board, the same side to move and
    /// an attacker hand at least as large: the current node repeats it.
    fn repeated_ancestor(&self, ply: usize) -> Option<usize> {
        let current = self.buffers.path[ply];
        let mut i = ply;
        while i >= 2 {
            i -= 2;
            let earlier = self.buffers.path[i];
            if earlier.key == current.key && earlier.hand.is_superset_of(current.hand) {
                return Some(i);
            }
        }
        None
    }

    /// The multiple-iterative-deepening step of df-pn: searches the node at
    /// `ply` until its proof number reaches `th_pn` or its disproof number
    /// reaches `th_dn`.
    fn mid(
        &mut self,
        pos: &mut Position,
        ply: usize,
        depth: u16,
        th_pn: u32,
        th_dn: u32,
    ) -> NodeResult {
        let PathEntry { key, hand } = self.buffers.path[ply];
        self.count_node();
        if self.aborted {
            return NodeResult::working(1, 1, hand);
        }
        if let Some(ancestor) = self.repeated_ancestor(ply) {
            return NodeResult::disproven(DEPTH_UNBOUNDED, hand, ancestor as u16);
        }
        let first_visit = match self.table.probe(key, hand, depth) {
            Probe::Proven { len, hand } => return NodeResult::proven(len, hand),
            Probe::Disproven { depth, hand } => {
                return NodeResult::disproven(depth, hand, NOT_REPETITION)
            }
            // Numbers already past the thresholds: the parent held stale
            // ones (a first visit does not read its children's entries,
            // below), and now learns these at the cost of one probe.
            Probe::Working { pn, dn } if pn >= th_pn || dn >= th_dn => {
                return NodeResult::working(pn, dn, hand)
            }
            Probe::Working { .. } => false,
            Probe::Unknown => true,
        };
        let or_node = is_or_ply(ply);
        if or_node && first_visit {
            // A contact mate ends the node before its checks are made
            // (most leaves of a proof are such nodes; a node seen before
            // was tested then). On tsume320.tsv at 100,000 nodes a
            // problem: 197 mates of 240 instead of 187.
            if let Some(m) = contact_mate_in_one(pos) {
                let proof = hand::before_attacker_move(Hand::EMPTY, m, captured_kind(pos, m));
                let result = NodeResult::proven(1, proof);
                self.store(key, hand, depth, &result, 1);
                return result;
            }
        }
        if or_node && depth == 1 {
            // Only a mate in one can do: the checks are tried in turn
            // rather than made children with table entries of their own.
            // Every depth-limited search (the shortening) ends in such
            // nodes.
            let result = self.mate_in_one_or_none(pos, hand);
            if !self.aborted {
                self.store(key, hand, depth, &result, 1);
            }
            return result;
        }
        let start_nodes = self.nodes;
        let first = self.buffers.children.len();
        if !self.expand(pos, ply, or_node) {
            self.aborted = true;
            return NodeResult::working(1, 1, hand);
        }
        let last = self.buffers.children.len();
        if first == last {
            // No check: no mate. No evasion: mate.
            let result = if or_node {
                NodeResult::disproven(
                    DEPTH_UNBOUNDED,
                    hand::disproof_ceiling(hand),
                    NOT_REPETITION,
                )
            } else {
                NodeResult::proven(0, interposition_needs(pos, hand, Hand::EMPTY))
            };
            self.store(key, hand, depth, &result, 1);
            return result;
        }
        if !or_node && depth < 2 {
            // The defender can move and no plies are left to mate after it.
            self.buffers.children.truncate(first);
            let result = NodeResult::disproven(1, hand, NOT_REPETITION);
            self.store(key, hand, depth, &result, 1);
            return result;
        }
        debug_assert!(ply + 1 < self.buffers.path.len());

        // Siblings are read from the table once, and only at a node seen
        // before: at a first visit nearly every child is new too (95 % of
        // such probes found nothing, on line 230 of tsume320.tsv), each
        // probe a likely cache miss, and most children are never visited.
        // A stale value (from here, or a transposition since) only costs a
        // visit, in which the child sees its own entry: settled, or working
        // numbers past the thresholds, it returns at once.
        if !first_visit {
            self.load_children(first, last, depth - 1);
        }
        let (mut pn, mut dn);
        loop {
            let scan = Scan::of(&self.buffers.children[first..last], or_node);
            (pn, dn) = scan.node_numbers(or_node);
            if pn == 0 || dn == 0 || pn >= th_pn || dn >= th_dn || self.aborted {
                break;
            }
            let (best, child_th_pn, child_th_dn) =
                scan.select_child(&self.buffers.children[first..last], or_node, th_pn, th_dn);
            let child = self.buffers.children[first + best];
            self.buffers.path[ply + 1] = PathEntry {
                key: child.key,
                hand: child.hand,
            };
            // The child's own probe waits less if its bucket comes while
            // the move is made.
            self.table.prefetch(child.key);
            pos.do_move(child.mv);
            let result = self.mid(pos, ply + 1, depth - 1, child_th_pn, child_th_dn);
            pos.undo_move(child.mv);
            if self.aborted {
                break;
            }
            let c = &mut self.buffers.children[first + best];
            c.pn = result.pn;
            c.dn = result.dn;
            c.len = result.len;
            c.rep_ply = result.rep_ply;
            c.settled_hand = result.hand;
        }

        let mut result = if pn == 0 {
            self.conclude_proven(pos, first, last, or_node, hand)
        } else if dn == 0 {
            self.conclude_disproven(pos, first, last, or_node, hand)
        } else {
            NodeResult::working(pn, dn, hand)
        };
        self.buffers.children.truncate(first);
        if self.aborted && result.pn != 0 && result.dn != 0 {
            return result;
        }
        if result.dn == 0 && result.rep_ply != NOT_REPETITION {
            if (result.rep_ply as usize) < ply {
                return result; // depends on the path above: keep it out of the table
            }
            result.rep_ply = NOT_REPETITION;
        }
        let amount = (self.nodes - start_nodes + 1).min(u32::MAX as u64) as u32;
        self.store(key, hand, depth, &result, amount);
        result
    }

    /// The attacker node with one ply left, whose attacker hand is `hand`:
    /// proven by a check that leaves no evasion (each check tried counts as
    /// a node), else disproven for one ply with any hand up to `hand` (a
    /// smaller hand has fewer drops, and leaves the defender more to
    /// interpose).
    #[inline(never)]
    fn mate_in_one_or_none(&mut self, pos: &mut Position, hand: Hand) -> NodeResult {
        let mut checks = MoveList::new();
        generate_checks(pos, &mut checks);
        for &m in &checks {
            self.count_node();
            if self.aborted {
                return NodeResult::working(1, 1, hand);
            }
            let captured = captured_kind(pos, m);
            pos.do_move(m);
            let mated_needs = (!has_evasion(pos)).then(|| {
                interposition_needs(
                    pos,
                    hand::after_attacker_move(hand, m, captured),
                    Hand::EMPTY,
                )
            });
            pos.undo_move(m);
            if let Some(needs) = mated_needs {
                let proof = hand::before_attacker_move(needs, m, captured);
                return NodeResult::proven(1, proof);
            }
        }
        NodeResult::disproven(1, hand, NOT_REPETITION)
    }

    /// Pushes the children of the node at `ply` on the child stack; false
    /// when the stack is full. Kept out of `mid` so that the move list does
    /// not sit in every recursive frame.
    #[inline(never)]
    fn expand(&mut self, pos: &Position, ply: usize, or_node: bool) -> bool {
        let mut list = MoveList::new();
        if or_node {
            generate_checks(pos, &mut list);
        } else {
            generate_evasions(pos, &mut list);
        }
        let children = &mut self.buffers.children;
        if children.len() + list.len() > children.capacity() {
            return false;
        }
        let parent = self.buffers.path[ply];
        let defender_king = if or_node {
            pos.king_square(!pos.side_to_move())
        } else {
            None
        };
        for &mv in &list {
            let entry = child_entry(pos, parent, mv, or_node);
            // The bucket is on its way while the other children are made
            // (prefetching them all just before the probes left no time
            // to overlap).
            self.table.prefetch(entry.key);
            let pn = if or_node {
                initial_pn(pos, mv, defender_king)
            } else {
                1
            };
            children.push(Child {
                mv,
                key: entry.key,
                hand: entry.hand,
                pn,
                dn: 1,
                len: 0,
                rep_ply: NOT_REPETITION,
                settled_hand: Hand::EMPTY,
            });
        }
        true
    }

    /// Gives the children what the table knows of them.
    fn load_children(&mut self, first: usize, last: usize, depth: u16) {
        for i in first..last {
            let c = self.buffers.children[i];
            if c.is_settled() {
                continue;
            }
            let child = &mut self.buffers.children[i];
            match self.table.probe(c.key, c.hand, depth) {
                Probe::Proven { len, hand } => {
                    (child.pn, child.dn, child.len, child.settled_hand) = (0, INFINITE, len, hand);
                }
                Probe::Disproven { depth, hand } => {
                    (child.pn, child.dn, child.len, child.settled_hand) =
                        (INFINITE, 0, depth, hand);
                    child.rep_ply = NOT_REPETITION;
                }
                Probe::Working { pn, dn } => (child.pn, child.dn) = (pn, dn),
                Probe::Unknown => {}
            }
        }
    }

    /// The result of a node with a proven child (OR) or only proven
    /// children (AND).
    fn conclude_proven(
        &self,
        pos: &Position,
        first: usize,
        last: usize,
        or_node: bool,
        hand: Hand,
    ) -> NodeResult {
        let children = &self.buffers.children[first..last];
        if or_node {
            let best = children
                .iter()
                .filter(|c| c.pn == 0)
                .min_by_key(|c| c.len)
                .expect("a proven child");
            let proof =
                hand::before_attacker_move(best.settled_hand, best.mv, captured_kind(pos, best.mv));
            NodeResult::proven(best.len + 1, proof)
        } else {
            let len = children.iter().map(|c| c.len).max().unwrap_or(0) + 1;
            let proof = children
                .iter()
                .fold(Hand::EMPTY, |acc, c| hand::union(acc, c.settled_hand));
            NodeResult::proven(len, interposition_needs(pos, hand, proof))
        }
    }

    /// The result of a node with only disproven children (OR) or a
    /// disproven child (AND).
    fn conclude_disproven(
        &self,
        pos: &Position,
        first: usize,
        last: usize,
        or_node: bool,
        hand: Hand,
    ) -> NodeResult {
        let children = &self.buffers.children[first..last];
        if or_node {
            let mut disproof = hand::disproof_ceiling(hand);
            let mut depth = DEPTH_UNBOUNDED;
            let mut rep_ply = NOT_REPETITION;
            for c in children {
                let before =
                    hand::before_attacker_move(c.settled_hand, c.mv, captured_kind(pos, c.mv));
                disproof = hand::intersection(disproof, before);
                depth = depth.min(c.len);
                rep_ply = rep_ply.min(c.rep_ply);
            }
            NodeResult::disproven(one_ply_more(depth), disproof, rep_ply)
        } else {
            // Prefer a refutation that holds on any path, then the deepest.
            let best = children
                .iter()
                .filter(|c| c.dn == 0)
                .max_by_key(|c| (c.rep_ply, c.len))
                .expect("a disproven child");
            let mut disproof = best.settled_hand;
            if best.mv.is_drop() {
                // The defender needs the dropped piece: the attacker may not
                // hold more of that kind than now.
                let pt = best.mv.dropped();
                disproof.set(pt, disproof.count(pt).min(hand.count(pt)));
            }
            NodeResult::disproven(one_ply_more(best.len), disproof, best.rep_ply)
        }
    }

    fn store(&mut self, key: u64, hand: Hand, depth: u16, result: &NodeResult, amount: u32) {
        if result.pn == 0 {
            self.table
                .store_proven(key, result.hand, result.len, amount);
        } else if result.dn == 0 {
            self.table
                .store_disproven(key, result.hand, result.len, amount);
        } else {
            self.table
                .store_working(key, hand, depth, (result.pn, result.dn), amount);
        }
    }
}

/// Whether the node at `ply` is an OR node (attacker to move): the root
/// is, and the sides alternate.
pub(super) fn is_or_ply(ply: usize) -> bool {
    ply.is_multiple_of(2)
}

/// The path entry of the child reached by `m` from the node `parent` (the
/// position `pos`, before `m`); `or_node` tells whether the attacker moves.
pub(super) fn child_entry(pos: &Position, parent: PathEntry, m: Move, or_node: bool) -> PathEntry {
    let hand = if or_node {
        hand::after_attacker_move(parent.hand, m, captured_kind(pos, m))
    } else {
        parent.hand
    };
    PathEntry {
        key: pos.board_key_after(m),
        hand,
    }
}

/// The depth a parent's disproof covers given its child's.
fn one_ply_more(depth: u16) -> u16 {
    if depth == DEPTH_UNBOUNDED {
        depth
    } else {
        (depth + 1).min(DEPTH_UNBOUNDED - 1)
    }
}

/// The kind (unpromoted) a board move captures.
fn captured_kind(pos: &Position, m: Move) -> Option<PieceType> {
    if m.is_drop() {
        return None;
    }
    pos.piece_on(m.to()).piece_type().map(PieceType::unpromote)
}

/// The proof hand of an AND node given the union of its children's: if the
/// defender could interpose a dropped piece against the check but holds no
/// piece of some kind, the proof relied on the attacker holding all of that
/// kind, so the proof hand must keep the attacker's whole count of it.
fn interposition_needs(pos: &Position, attacker_hand: Hand, proof: Hand) -> Hand {
    let defender = pos.side_to_move();
    let Some(ksq) = pos.king_square(defender) else {
        return proof;
    };
    let checkers = pos.checkers();
    if checkers.is_empty()
        || checkers.more_than_one()
        || bitboard::between(ksq, checkers.lsb()).is_empty()
    {
        return proof;
    }
    let defender_hand = pos.hand(defender);
    let mut proof = proof;
    for pt in PieceType::HAND {
        if !defender_hand.has(pt) {
            proof.set(pt, attacker_hand.count(pt));
        }
    }
    proof
}

/// One pass over a node's children: what both its numbers and the choice
/// of the child to search next need (one pass rather than three: the loop
/// over the children runs at every step of every node).
///
/// Interpositions are expanded with delay: of the drops on one square at
/// a defender node, only the first not yet proven counts (the weakest
/// piece, as the generator orders them), the others wait. Their proofs are
/// nearly always alike (the attacker takes the piece and goes on), so
/// counting each would make every distant check look as hard as its
/// interpositions are many. A disproven drop always counts. On
/// tsume320.tsv: 204 mates of 240 instead of 197 at 100,000 nodes a
/// problem, 216 instead of 207 at 200,000.
struct Scan {
    /// The child with the smallest selection number (pn at an OR node, dn
    /// at an AND node), the first of equals.
    best: usize,
    /// Its selection number, and the second smallest.
    best_s: u32,
    second_s: u32,
    /// The sum of the other number, `INFINITE` if one is infinite.
    sum: u32,
}

impl Scan {
    fn of(children: &[Child], or_node: bool) -> Scan {
        let (mut best, mut best_s, mut second_s) = (0, INFINITE, INFINITE);
        let mut sum = 0u64;
        let mut infinite_sum = false;
        // Squares where a drop waits for the proof of an earlier drop on
        // the same square (see the type's doc).
        let mut waiting = Bitboard::EMPTY;
        for (i, c) in children.iter().enumerate() {
            if !or_node && c.mv.is_drop() {
                let to = c.mv.to();
                if waiting.contains(to) && c.dn != 0 {
                    continue;
                }
                if c.pn != 0 {
                    waiting = waiting.with(to);
                }
            }
            let (s, t) = if or_node { (c.pn, c.dn) } else { (c.dn, c.pn) };
            if s < best_s {
                (best, second_s, best_s) = (i, best_s, s);
            } else if s < second_s {
                second_s = s;
            }
            infinite_sum |= t == INFINITE;
            sum += t as u64;
        }
        let sum = if infinite_sum {
            INFINITE
        } else {
            sum.min(MAX_FINITE as u64) as u32
        };
        Scan {
            best,
            best_s,
            second_s,
            sum,
        }
    }

    /// The node's (pn, dn): the minimum and the sum, as the node type
    /// orders them.
    fn node_numbers(&self, or_node: bool) -> (u32, u32) {
        if or_node {
            (self.best_s, self.sum)
        } else {
            (self.sum, self.best_s)
        }
    }

    /// The child to search next and its (pn, dn) thresholds.
    fn select_child(
        &self,
        children: &[Child],
        or_node: bool,
        th_pn: u32,
        th_dn: u32,
    ) -> (usize, u32, u32) {
        let (th_select, th_sum) = if or_node {
            (th_pn, th_dn)
        } else {
            (th_dn, th_pn)
        };
        let c = &children[self.best];
        let child_sum_number = if or_node { c.dn } else { c.pn };
        let child_th_select = th_select.min(widen(self.second_s));
        let child_th_sum =
            (th_sum as u64 - self.sum as u64 + child_sum_number as u64).min(INFINITE as u64) as u32;
        if or_node {
            (self.best, child_th_select, child_th_sum)
        } else {
            (self.best, child_th_sum, child_th_select)
        }
    }
}

/// The proof number a check starts with, before its node is expanded: 2
/// for a check from a distance, which the defender may also answer by
/// interposing (more evasions to refute), 1 for a check from an adjacent
/// square or by a knight. The solver then tries the checks that leave the
/// defender fewest answers first (on `tsume320.tsv` at 200,000 and
/// 400,000 nodes a problem: 2 mates more of 240, the no-mates the same).
fn initial_pn(pos: &Position, mv: Move, defender_king: Option<Square>) -> u32 {
    let knight = if mv.is_drop() {
        mv.dropped() == PieceType::Knight
    } else {
        pos.piece_on(mv.from()).kind() == PieceType::Knight
    };
    let close = defender_king.is_some_and(|k| bitboard::king_attacks(k).contains(mv.to()));
    if knight || close {
        1
    } else {
        2
    }
}

/// The 1+ε threshold above the second-best sibling's number.
fn widen(second: u32) -> u32 {
    if second >= MAX_FINITE {
        return INFINITE;
    }
    let second = second as u64;
    (second + 1)
        .max(second + second / EPSILON_DIVISOR)
        .min(INFINITE as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(mv: Move, pn: u32, dn: u32) -> Child {
        Child {
            mv,
            key: 0,
            hand: Hand::EMPTY,
            pn,
            dn,
            len: 0,
            rep_ply: NOT_REPETITION,
            settled_hand: Hand::EMPTY,
        }
    }

    /// With one ply left, the attacker node tries its checks in turn: it
    /// is proven exactly when a check mates at once (the exact mate-in-one
    /// test of `mate::mate_in_one` as the oracle), and the result is
    /// stored. Positions: the set's roots, and for its short mates the
    /// position before the solver's mating move.
    #[test]
    fn one_ply_left_is_proven_exactly_by_a_mate_in_one() {
        let set = crate::mate::problems::parse(include_str!("../../tests/data/tsume.tsv")).unwrap();
        let stop = AtomicBool::new(false);
        let mut positions = Vec::new();
        let mut solver = crate::mate::MateSolver::new(16);
        for problem in &set {
            let mut pos = Position::from_sfen(&problem.sfen).unwrap();
            positions.push(pos.clone());
            if !problem.mate || problem.plies > 9 {
                continue;
            }
            let result = solver.solve(&mut pos, &stop, None, Some(1_000_000));
            let crate::mate::MateResult::Mate(line) = result else {
                panic!("{}: no mate found", problem.sfen);
            };
            for &m in &line[..line.len() - 1] {
                pos.do_move(m);
            }
            positions.push(pos);
        }
        let (mut mates, mut others) = (0, 0);
        for mut pos in positions {
            let mut table = Table::new(1);
            let mut buffers = Buffers::new();
            let limits = Limits {
                stop: &stop,
                deadline: None,
                max_nodes: None,
            };
            let mut search = Search::new(&mut table, &mut buffers, limits);
            let root = PathEntry {
                key: pos.board_key(),
                hand: pos.hand(pos.side_to_move()),
            };
            search.set_path(0, root);
            let sfen = pos.to_sfen();
            let expected = crate::mate::mate_in_one(&mut pos).is_some();
            let outcome = search.prove(&mut pos, 0, 1);
            let wanted = if expected {
                Outcome::Proven { len: 1 }
            } else {
                Outcome::Disproven
            };
            assert_eq!(outcome, wanted, "{sfen}");
            assert_ne!(search.probe(root, 1), Probe::Unknown, "{sfen}: not stored");
            if expected {
                mates += 1;
            } else {
                others += 1;
            }
        }
        assert!(
            mates >= 30 && others >= 100,
            "{mates} mates in one, {others} others"
        );
    }

    /// A node whose table entry already holds working numbers past the
    /// thresholds it is searched with (its parent held stale ones) returns
    /// them at once, without expanding; within the thresholds it is
    /// searched.
    #[test]
    fn working_numbers_past_the_thresholds_return_at_once() {
        let set = crate::mate::problems::parse(include_str!("../../tests/data/tsume.tsv")).unwrap();
        let problem = set.iter().find(|p| p.mate && p.plies >= 9).unwrap();
        let mut pos = Position::from_sfen(&problem.sfen).unwrap();
        let stop = AtomicBool::new(false);
        let mut table = Table::new(1);
        let mut buffers = Buffers::new();
        let root = PathEntry {
            key: pos.board_key(),
            hand: pos.hand(pos.side_to_move()),
        };
        let depth = DEPTH_UNBOUNDED;
        table.store_working(root.key, root.hand, depth, (40, 30), 1);
        let limits = Limits {
            stop: &stop,
            deadline: None,
            max_nodes: None,
        };
        let mut search = Search::new(&mut table, &mut buffers, limits);
        search.set_path(0, root);
        let result = search.mid(&mut pos, 0, depth, 20, 100);
        assert_eq!((result.pn, result.dn, search.nodes), (40, 30, 1));
        let result = search.mid(&mut pos, 0, depth, 100, 100);
        assert!(search.nodes > 2, "searched: {} nodes", search.nodes);
        assert!(result.pn >= 100 || result.dn >= 100 || result.pn == 0 || result.dn == 0);
    }

    #[test]
    fn drops_on_one_square_count_once_until_proven() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let king_move = Move::normal(sq("5a"), sq("4a"), false);
        let drops =
            [PieceType::Pawn, PieceType::Lance, PieceType::Gold].map(|pt| Move::drop(pt, sq("5b")));
        let elsewhere = Move::drop(PieceType::Pawn, sq("5c"));
        let mut children = vec![child(king_move, 1, 1)];
        children.extend(drops.map(|m| child(m, 1, 1)));
        children.push(child(elsewhere, 1, 1));
        let numbers = |c: &[Child]| Scan::of(c, false).node_numbers(false);
        // The king move, the pawn on 5b and the pawn on 5c.
        assert_eq!(numbers(&children), (3, 1));
        // The pawn on 5b proven: the lance takes its turn.
        (children[1].pn, children[1].dn) = (0, INFINITE);
        assert_eq!(numbers(&children), (3, 1));
        // A waiting drop found disproven counts at once.
        (children[3].pn, children[3].dn) = (INFINITE, 0);
        assert_eq!(numbers(&children).1, 0);
        // All proven: the node is.
        for c in &mut children {
            (c.pn, c.dn) = (0, INFINITE);
        }
        assert_eq!(numbers(&children), (0, INFINITE));
    }
}
