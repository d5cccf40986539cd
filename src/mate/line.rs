//! From a proof to a short mating line.
//!
//! The first answer is the proof as the table holds it ([`table_line`]):
//! at an attacker node the check with the shortest proof, at a defender
//! node the evasion with the longest, both read from the table, so it
//! costs a few probes per ply and is ready the moment the root is proven.
//!
//! df-pn stops at the first proof it completes, which is often not the
//! shortest. The root is first re-proven with a depth limit two plies
//! shorter than the best mate found, until that fails: when it fails by a
//! disproof the length is exact. The line is then read off top-down. At an
//! attacker node the table's shortest proven check is taken. At a defender
//! node the defence that lasts longest is found by asking, for decreasing
//! lengths `k`, which evasion has no mate within `k - 2` plies: the first
//! one that holds has value exactly `k` (all values are at most the bound
//! carried down). Evasions are tried board moves first, so among equally
//! long defences an interposition from the hand is the last resort.

use super::moves::{generate_checks, generate_evasions};
use super::search::{child_entry, is_or_ply, Outcome, Search};
use super::table::Probe;
use crate::movegen::{legal_moves, MoveList};
use crate::position::Position;
use crate::types::Move;

/// Lowers `len`, a proven mate length at the root, as far as the limits
/// allow, calling `on_shorter` with each shorter length as soon as it is
/// proven (while the table still holds that proof whole). When the last
/// attempt ends in a disproof, the result is the shortest mate; when a
/// limit ends it, an upper bound.
pub(super) fn shortest_length(
    search: &mut Search,
    pos: &mut Position,
    len: u16,
    mut on_shorter: impl FnMut(&mut Search, &mut Position, u16),
) -> u16 {
    let mut len = len;
    while len >= 3 {
        match search.prove(pos, 0, len - 2) {
            Outcome::Proven { len: shorter } => {
                len = shorter;
                on_shorter(search, pos, len);
            }
            Outcome::Disproven | Outcome::Unknown => break,
        }
    }
    len
}

/// Reads the proof of the root (proven within `len`) off the table: checks
/// with the shortest proof, evasions with the longest. An entry the table
/// lost is proven again (the only search done here); `None` if the limits
/// cut that short.
pub(super) fn table_line(search: &mut Search, pos: &mut Position, len: u16) -> Option<Vec<Move>> {
    read_line(search, pos, len, longest_proven_defence)
}

/// The evasion at the defender node `ply` (proven within `remaining`) whose
/// proof in the table is the longest, and that length: every evasion must
/// be proven, from the table or, where it lost the entry, again. Among
/// equally long proofs the first in generation order (board moves before
/// drops) is taken.
fn longest_proven_defence(
    search: &mut Search,
    pos: &mut Position,
    ply: usize,
    remaining: u16,
    evasions: &MoveList,
) -> Option<(Move, u16)> {
    let depth = remaining.checked_sub(1)?;
    let parent = search.path(ply);
    let mut best: Option<(Move, u16)> = None;
    for &m in evasions {
        let entry = child_entry(pos, parent, m, false);
        let len = match search.probe(entry, depth) {
            Probe::Proven { len, .. } => len,
            _ => match prove_child(search, pos, ply, m, depth) {
                Outcome::Proven { len } => len,
                Outcome::Disproven | Outcome::Unknown => return None,
            },
        };
        if best.is_none_or(|(_, best_len)| len > best_len) {
            best = Some((m, len));
        }
    }
    best
}

/// Reads a mating line of at most `len` plies from the root, which is
/// proven within `len`, defending as long as possible at every defender
/// node (which re-proves the defences: slow); `None` if the limits cut the
/// work short.
pub(super) fn extract_line(search: &mut Search, pos: &mut Position, len: u16) -> Option<Vec<Move>> {
    read_line(search, pos, len, longest_defence)
}

/// How a line chooses the defence at the defender node `ply` (proven
/// within `remaining`) among `evasions`: the move and the length after it.
type DefenceRule = fn(&mut Search, &mut Position, usize, u16, &MoveList) -> Option<(Move, u16)>;

/// Walks a mating line from the root (proven within `len`): the check with
/// the shortest proof at attacker nodes, the defence `defence` picks at
/// defender nodes; `None` if a step fails (the limits cut it short).
fn read_line(
    search: &mut Search,
    pos: &mut Position,
    len: u16,
    defence: DefenceRule,
) -> Option<Vec<Move>> {
    let mut line = Vec::new();
    let mut remaining = len;
    let found = loop {
        let ply = line.len();
        let Some((attack, after_attack)) = shortest_attack(search, pos, ply, remaining) else {
            break false;
        };
        play(search, pos, ply, attack, &mut line);
        let mut evasions = MoveList::new();
        generate_evasions(pos, &mut evasions);
        if evasions.is_empty() {
            break true;
        }
        let Some((answer, after_answer)) = defence(search, pos, ply + 1, after_attack, &evasions)
        else {
            break false;
        };
        play(search, pos, ply + 1, answer, &mut line);
        remaining = after_answer;
    };
    for &m in line.iter().rev() {
        pos.undo_move(m);
    }
    found.then_some(line)
}

/// Plays `m` from the node at `ply` and records the new node on the path.
fn play(search: &mut Search, pos: &mut Position, ply: usize, m: Move, line: &mut Vec<Move>) {
    let entry = child_entry(pos, search.path(ply), m, is_or_ply(ply));
    search.set_path(ply + 1, entry);
    pos.do_move(m);
    line.push(m);
}

/// Plays `m` from `ply`, proves the child within `depth`, takes `m` back.
fn prove_child(
    search: &mut Search,
    pos: &mut Position,
    ply: usize,
    m: Move,
    depth: u16,
) -> Outcome {
    let entry = child_entry(pos, search.path(ply), m, is_or_ply(ply));
    search.set_path(ply + 1, entry);
    pos.do_move(m);
    let outcome = search.prove(pos, ply + 1, depth);
    pos.undo_move(m);
    outcome
}

/// The check at the attacker node `ply` with the shortest proof within
/// `remaining` plies, and the length after it.
fn shortest_attack(
    search: &mut Search,
    pos: &mut Position,
    ply: usize,
    remaining: u16,
) -> Option<(Move, u16)> {
    let mut checks = MoveList::new();
    generate_checks(pos, &mut checks);
    let parent = search.path(ply);
    let mut best: Option<(Move, u16)> = None;
    for &m in &checks {
        let entry = child_entry(pos, parent, m, true);
        if let Probe::Proven { len, .. } = search.probe(entry, remaining - 1) {
            best = shorter(best, m, len);
        }
    }
    if best.is_none() {
        // The table lost the proof: prove the checks again.
        for &m in &checks {
            if let Outcome::Proven { len } = prove_child(search, pos, ply, m, remaining - 1) {
                best = shorter(best, m, len);
            }
        }
    }
    best
}

/// `best` or `(m, len)`, whichever is shorter (`best` on a tie).
fn shorter(best: Option<(Move, u16)>, m: Move, len: u16) -> Option<(Move, u16)> {
    match best {
        Some((_, best_len)) if best_len <= len => best,
        _ => Some((m, len)),
    }
}

/// The evasion at the defender node `ply` (proven within `remaining`)
/// that postpones the mate longest, and the length after it.
fn longest_defence(
    search: &mut Search,
    pos: &mut Position,
    ply: usize,
    remaining: u16,
    evasions: &MoveList,
) -> Option<(Move, u16)> {
    let mut value = remaining.checked_sub(1)?;
    loop {
        for &m in evasions {
            let lasts =
                value < 3 || prove_child(search, pos, ply, m, value - 2) == Outcome::Disproven;
            if lasts {
                if let Outcome::Proven { len } = prove_child(search, pos, ply, m, value) {
                    return Some((m, len));
                }
            }
        }
        if value < 3 || search.aborted {
            return None;
        }
        value -= 2;
    }
}

/// Whether `line` is a mate from `pos`: every move legal, every attacker
/// move a check, and the defender without a legal move at the end.
pub(super) fn is_verified_mate(pos: &mut Position, line: &[Move]) -> bool {
    let mut played = 0;
    let mut ok = line.len() % 2 == 1;
    for (i, &m) in line.iter().enumerate() {
        if !ok {
            break;
        }
        let attacker = i % 2 == 0;
        ok = pos.is_legal_move(m) && (!attacker || pos.gives_check(m));
        if ok {
            pos.do_move(m);
            played += 1;
            ok = !attacker || pos.in_check();
        }
    }
    ok = ok && pos.in_check() && legal_moves(pos).is_empty();
    for &m in line[..played].iter().rev() {
        pos.undo_move(m);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::search::{Buffers, Limits, PathEntry};
    use crate::mate::table::Table;
    use std::sync::atomic::AtomicBool;

    /// The first answer, read off the table right after the proof, is a
    /// mate no longer than the proof says, for problems of every length
    /// in the solver's set.
    #[test]
    fn the_table_line_of_a_proof_is_a_mate() {
        let set = crate::mate::problems::parse(include_str!("../../tests/data/tsume.tsv")).unwrap();
        let stop = AtomicBool::new(false);
        let mut checked = 0;
        for problem in set.iter().filter(|p| p.mate && p.plies <= 15).step_by(3) {
            let mut pos = Position::from_sfen(&problem.sfen).unwrap();
            let mut table = Table::new(16);
            let mut buffers = Buffers::new();
            let limits = Limits {
                stop: &stop,
                deadline: None,
                max_nodes: Some(5_000_000),
            };
            let mut search = Search::new(&mut table, &mut buffers, limits);
            search.set_path(
                0,
                PathEntry {
                    key: pos.board_key(),
                    hand: pos.hand(pos.side_to_move()),
                },
            );
            let Outcome::Proven { len } = search.prove(&mut pos, 0, crate::mate::MAX_MATE_LENGTH)
            else {
                panic!("{}: not proven", problem.sfen);
            };
            let line = table_line(&mut search, &mut pos, len).expect("a line");
            assert!(line.len() <= len as usize, "{}", problem.sfen);
            assert!(is_verified_mate(&mut pos, &line), "{}", problem.sfen);
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} problems");
    }
}
