//! Mate in one, cheap enough for the main search to ask at every node it
//! has no hash entry for, and for the mate solver at every attacker node
//! it meets for the first time (most leaves of a proof are such mates).
//!
//! Only contact mates are looked for: a piece dropped or moved next to the
//! enemy king, or a knight's check. Those are nearly all one-move mates;
//! a distant slider check mates only when nothing can interpose, and a
//! discovered check is rarer still, so both are left out (a false negative
//! costs nothing but the mate found one ply later). A candidate the king
//! could simply take (next to it and defended by nothing else) is dropped
//! before any move is made; the rest are played and the defender's
//! evasions counted. Pawn drops are never tried: a pawn-drop mate is
//! illegal.

use super::moves::has_evasion;
use crate::bitboard;
use crate::position::Position;
use crate::types::{Move, PieceType};

/// A legal move that mates at once (contact mates only, see the module
/// doc), if the side to move has one.
pub fn contact_mate_in_one(pos: &mut Position) -> Option<Move> {
    if pos.in_check() {
        return None;
    }
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us)?;
    let occ = pos.occupied();
    let near = bitboard::king_attacks(ksq);
    let knight_checks = bitboard::knight_attacks(!us, ksq);
    // One pass over our pieces that matter: the squares next to the king
    // we attack once it has left its square. Those free of our pieces are
    // guarded (a piece dropped or moved there is not simply taken: the
    // king taking it leaves its square too); the rest free of its own
    // pieces are its flights. Most positions guard none, and then only
    // knights can mate by contact.
    let unattacked = pos.king_escapes(!us, ksq, near);
    let guarded = near.and_not(unattacked).and_not(pos.pieces_of(us));
    let flights = unattacked.and_not(pos.pieces_of(!us));
    let hand = pos.hand(us);
    if guarded.is_empty() && !hand.has(PieceType::Knight) {
        // Only a knight's check can mate, and none is in hand: a knight of
        // ours must reach a knight-check square.
        let knights = pos.pieces(us, PieceType::Knight);
        let mut reachable = false;
        for sq in knight_checks.and_not(pos.pieces_of(us)) {
            reachable |= (bitboard::knight_attacks(!us, sq) & knights).any();
        }
        if !reachable {
            return None;
        }
    }
    let checks = pos.check_squares();
    for pt in PieceType::HAND {
        if pt == PieceType::Pawn || !hand.has(pt) {
            continue;
        }
        let contact = if pt == PieceType::Knight {
            knight_checks
        } else {
            checks.squares(pt) & near
        };
        let targets = (contact & !occ).and_not(bitboard::dead_squares(us, pt));
        for to in targets {
            if near.contains(to) && !guarded.contains(to) {
                continue; // the king takes it
            }
            // A flight the dropped piece does not cover stays open (the
            // drop can only block our lines, which `mates` then sees).
            let covered = bitboard::attacks(us, pt, to, occ.with(to).without(ksq));
            if flights.without(to).and_not(covered).any() {
                continue;
            }
            let m = Move::drop(pt, to);
            if mates(pos, m) {
                return Some(m);
            }
        }
    }

    let zone = bitboard::promotion_zone(us);
    let kings = pos.pieces(us, PieceType::King);
    for to in guarded | knight_checks.and_not(pos.pieces_of(us)) {
        // Most knight-check squares are attacked by nothing of ours: the
        // short-circuiting test is far cheaper than listing attackers.
        if !near.contains(to) && !pos.attacks_square(us, to, occ) {
            continue;
        }
        let attackers = pos.attackers_to(us, to, occ);
        for from in attackers.and_not(kings) {
            // Next to the king, another piece must guard the square: one
            // of the other attackers (our king too), or a slider behind
            // the mover once it has left, looked for only when there is
            // no other (most squares have two attackers or none).
            if near.contains(to)
                && attackers.without(from).is_empty()
                && pos
                    .attackers_to(us, to, occ.without(from))
                    .without(from)
                    .is_empty()
            {
                continue;
            }
            let pt = pos.piece_on(from).kind();
            let may_promote = pt.can_promote() && (zone.contains(from) || zone.contains(to));
            for promote in [true, false] {
                if promote && !may_promote {
                    continue;
                }
                let after = if promote { pt.promote() } else { pt };
                if !checks.squares(after).contains(to)
                    || (!near.contains(to) && after != PieceType::Knight)
                {
                    continue;
                }
                let m = Move::normal(from, to, promote);
                if pos.is_pseudo_legal(m)
                    && !king_escapes(pos, ksq, after, to, occ.without(from).with(to))
                    && mates(pos, m)
                {
                    return Some(m);
                }
            }
        }
    }
    None
}

/// Whether the enemy king on `ksq` surely has a flight square once a
/// piece of kind `pt` of the side to move stands on `to` (occupancy
/// `occ`): a square next to it, not `to`, holding none of its own pieces,
/// that neither the new piece nor any other of ours attacks. A quick test
/// before playing the move: most checks next to a king leave it a flight.
/// It may miss a flight (a piece that moved off its square still counts as
/// attacking from there), never invent one.
fn king_escapes(
    pos: &Position,
    ksq: crate::types::Square,
    pt: PieceType,
    to: crate::types::Square,
    occ: crate::bitboard::Bitboard,
) -> bool {
    let us = pos.side_to_move();
    // The king leaves its square: sliders, the new piece's too, see
    // through it (a king stepping straight back from a rook stays in check).
    let occ = occ.without(ksq);
    let covered = bitboard::attacks(us, pt, to, occ);
    let flights = bitboard::king_attacks(ksq)
        .and_not(pos.pieces_of(!us))
        .and_not(covered)
        .without(to);
    for sq in flights {
        if !pos.attacks_square(us, sq, occ) {
            return true;
        }
    }
    false
}

/// Whether the legal-or-not move `m` is legal and leaves the defender, in
/// check, without a legal move.
fn mates(pos: &mut Position, m: Move) -> bool {
    if !pos.is_legal(m) {
        return false;
    }
    pos.do_move(m);
    let mated = pos.in_check() && !has_evasion(pos);
    pos.undo_move(m);
    mated
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    fn find(sfen: &str) -> Option<String> {
        let mut pos = Position::from_sfen(sfen).unwrap();
        contact_mate_in_one(&mut pos).map(|m| m.to_usi())
    }

    #[test]
    fn finds_contact_mates() {
        // Head gold, guarded by the pawn.
        assert_eq!(
            find("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").as_deref(),
            Some("G*5b")
        );
        // An unguarded gold is taken by the king.
        assert_eq!(find("4k4/9/9/9/9/9/9/9/4K4 b G 1"), None);
        // A pawn drop would mate: illegal, not found.
        assert_eq!(find("3rkr3/3p1p3/4+P4/9/9/9/9/9/4K4 b P 1"), None);
        // A silver moves up next to the king, guarded by a gold.
        assert_eq!(
            find("3gkg3/9/3SGS3/9/9/9/9/9/4K4 b - 1").is_some(),
            exact(&mut Position::from_sfen("3gkg3/9/3SGS3/9/9/9/9/9/4K4 b - 1").unwrap())
        );
    }

    /// The slow, exact answer (every check tried): is any move a mate?
    fn exact(pos: &mut Position) -> bool {
        crate::mate::mate_in_one(pos).is_some()
    }

    /// Every move returned mates, on the random perft positions and all
    /// their children; and the detector misses few of the mates the
    /// exhaustive test finds (only distant and discovered ones).
    #[test]
    fn every_answer_mates_and_few_are_missed() {
        let text = include_str!("../../tests/data/perft_random.tsv");
        let (mut found, mut exists) = (0, 0);
        let mut check = |pos: &mut Position| {
            let fast = contact_mate_in_one(pos);
            if let Some(m) = fast {
                assert!(pos.is_legal_move(m), "{} {m}", pos.to_sfen());
                pos.do_move(m);
                assert!(
                    pos.in_check() && legal_moves(pos).is_empty(),
                    "{}",
                    pos.to_sfen()
                );
                pos.undo_move(m);
                found += 1;
            }
            if !pos.in_check() && exact(pos) {
                exists += 1;
            }
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut pos = Position::from_sfen(line.split('\t').next().unwrap()).unwrap();
            check(&mut pos);
            for &m in legal_moves(&pos).clone().iter() {
                pos.do_move(m);
                check(&mut pos);
                pos.undo_move(m);
            }
        }
        eprintln!("contact mate-in-one: found {found} of {exists}");
        assert!(exists > 100, "{exists}");
        assert!(found * 10 >= exists * 8, "found {found} of {exists}");
    }
}
