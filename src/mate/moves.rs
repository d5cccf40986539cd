//! The moves of the AND/OR tree: legal checks for the attacker, legal
//! evasions for the defender.
//!
//! Checks are generated only where they can be: a board move only by a
//! piece that can reach a square from which it (or its promoted kind)
//! attacks the king, or by a piece whose leaving opens a line (a
//! discoverer); a drop only on the squares from which the dropped kind
//! attacks the king. Generating every move and keeping the checks spent
//! 38 % of the solver's time; a middle-game position has about a hundred
//! moves and a handful of checks.

use crate::bitboard::{self, Bitboard};
use crate::movegen::{count_legal, generate, generate_legal, GenType, MoveList};
use crate::position::{CheckSquares, Position};
use crate::types::{Move, PieceType, Square};

/// Appends every legal checking move of the side to move to `list`.
pub(super) fn generate_checks(pos: &Position, list: &mut MoveList) {
    let start = list.len();
    let checks = pos.check_squares();
    if pos.in_check() {
        // A counter-check: the answer must both parry and check.
        generate(pos, GenType::Evasions, list);
    } else {
        checking_candidates(pos, &checks, list);
    }
    retain(list, start, |m| {
        checks.gives_check(pos, m) && pos.is_legal(m)
    });
    if !pos.in_check() {
        checking_drops(pos, &checks, list);
    }
}

/// Appends the pseudo-legal board moves that may check: every move of a
/// discoverer, and the moves of the other pieces onto a square from which
/// the piece, promoted or not, attacks the king. A superset of the
/// checks, which `gives_check` then sorts out.
fn checking_candidates(pos: &Position, checks: &CheckSquares, list: &mut MoveList) {
    let us = pos.side_to_move();
    let own = pos.pieces_of(us);
    let occ = pos.occupied();
    let zone = bitboard::promotion_zone(us);
    let discoverers = checks.discoverers() & own;
    for from in own {
        let pt = pos.piece_on(from).kind();
        let reach = bitboard::attacks(us, pt, from, occ).and_not(own);
        let targets = if discoverers.contains(from) {
            reach
        } else if pt.can_promote() {
            reach & (checks.squares(pt) | checks.squares(pt.promote()))
        } else {
            reach & checks.squares(pt)
        };
        if targets.is_empty() {
            continue;
        }
        if !pt.can_promote() {
            push_moves(list, from, targets, false);
            continue;
        }
        let promoting = if zone.contains(from) {
            targets
        } else {
            targets & zone
        };
        push_moves(list, from, promoting, true);
        push_moves(
            list,
            from,
            targets.and_not(bitboard::dead_squares(us, pt)),
            false,
        );
    }
}

/// Appends the moves from `from` to each of `targets`.
fn push_moves(list: &mut MoveList, from: Square, targets: Bitboard, promote: bool) {
    for to in targets {
        list.push(Move::normal(from, to, promote));
    }
}

/// Appends the legal drops that check the enemy king: onto the empty
/// squares from which the dropped kind attacks it.
fn checking_drops(pos: &Position, checks: &CheckSquares, list: &mut MoveList) {
    let us = pos.side_to_move();
    let hand = pos.hand(us);
    let empty = !pos.occupied();
    for pt in PieceType::HAND {
        if !hand.has(pt) {
            continue;
        }
        let targets = (checks.squares(pt) & empty).and_not(bitboard::dead_squares(us, pt));
        for to in targets {
            if pt == PieceType::Pawn
                && (pos.pieces(us, PieceType::Pawn) & bitboard::file_mask(to.file())).any()
            {
                continue; // two pawns on a file
            }
            let m = Move::drop(pt, to);
            if pos.is_legal(m) {
                list.push(m);
            }
        }
    }
}

/// Appends every legal move of the side to move, which is in check, to
/// `list`; board moves come before drops, so that ties in the search
/// prefer answers that are not interpositions from the hand.
pub(super) fn generate_evasions(pos: &Position, list: &mut MoveList) {
    // The legal generator (pins and king steps resolved as it generates,
    // no `is_legal` per move) emits drops after board moves already.
    let start = list.len();
    generate_legal(pos, list);
    debug_assert!(list[start..].is_sorted_by_key(|m| m.is_drop()));
}

/// Whether the side to move, in check, has any legal move.
pub(super) fn has_evasion(pos: &Position) -> bool {
    count_legal(pos) > 0
}

/// Keeps, from `start` on, the moves that satisfy `keep`, in order.
fn retain(list: &mut MoveList, start: usize, keep: impl Fn(Move) -> bool) {
    let mut write = start;
    for read in start..list.len() {
        let m = list[read];
        if keep(m) {
            list[write] = m;
            write += 1;
        }
    }
    list.truncate(write);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<u16> {
        let mut raw: Vec<u16> = moves.into_iter().map(|m| m.raw()).collect();
        raw.sort_unstable();
        raw
    }

    #[test]
    fn checks_are_exactly_the_checking_legal_moves() {
        let sfens = [
            "9/5Pk2/9/8R/8B/9/9/9/9 b 2Srb4g2s4n4l17p 1",
            "4+P2kl/7s1/5R3/7B1/9/9/9/9/9 b GNrb3g3s3n3l17p 1",
            "ln7/1k1+P5/1pp1S4/p8/9/2P6/9/9/9 b BGN2rbg2s2n3l13p 1",
            "7l1/5n1k1/7+RP/6sK1/7L1/9/9/9/9 w r2b4g3s3n2l17p 2",
            "4k4/9/4P4/9/9/9/9/9/4K4 b RBGSNLP 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ];
        // And the solver's problem set and the random perft positions:
        // middle-game positions with discoverers, pins and promotions.
        let sets = [
            include_str!("../../tests/data/tsume.tsv"),
            include_str!("../../tests/data/perft_random.tsv"),
        ];
        let more = sets
            .iter()
            .flat_map(|text| text.lines())
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split('\t').next());
        let mut tested = 0;
        for sfen in sfens.into_iter().chain(more) {
            let mut pos = Position::from_sfen(sfen).unwrap();
            assert_checks_exact(&pos, sfen);
            // One ply on, for many more configurations.
            for m in legal_moves(&pos) {
                pos.do_move(m);
                assert_checks_exact(&pos, &format!("{sfen} moves {}", m.to_usi()));
                pos.undo_move(m);
                tested += 1;
            }
        }
        assert!(tested > 10_000, "only {tested} positions");
    }

    fn assert_checks_exact(pos: &Position, name: &str) {
        let mut checks = MoveList::new();
        generate_checks(pos, &mut checks);
        let expected = legal_moves(pos).into_iter().filter(|&m| pos.gives_check(m));
        assert_eq!(sorted(checks), sorted(expected), "{name}");
    }
}
