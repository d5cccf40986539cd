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
use crate::bitboard::{self, Bitboard};
use crate::position::Position;
use crate::types::{Color, Hand, Move, PieceType, Square};

/// A legal move that mates at once (contact mates only, see the module
/// doc), if the side to move has one.
pub fn contact_mate_in_one(pos: &mut Position) -> Option<Move> {
    if pos.in_check() {
        return None;
    }
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us)?;
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let near = bitboard::king_attacks(ksq);
    let knight_checks = bitboard::knight_attacks(!us, ksq).and_not(ours);
    let knights = pos.pieces(us, PieceType::Knight);
    // One pass over our pieces that matter: the squares next to the king
    // we attack once it has left its square. Those free of our pieces are
    // guarded (a piece dropped or moved there is not simply taken: the
    // king taking it leaves its square too); the rest free of its own
    // pieces are its flights. Most positions guard none, and then only
    // knights can mate by contact.
    let unattacked = pos.king_escapes(!us, ksq, near);
    let guarded = near.and_not(unattacked).and_not(ours);
    let flights = unattacked.and_not(pos.pieces_of(!us));
    let hand = pos.hand(us);
    // A knight's check covers no square next to the king: it mates only
    // a king with no flight (and a move of ours rarely opens a line onto
    // one: such mates are left out).
    let knight_may_mate = flights.is_empty();
    if guarded.is_empty() && !(knight_may_mate && knight_reaches(us, knight_checks, knights, hand))
    {
        return None;
    }
    // Drops next to the king only on guarded squares (the king takes an
    // unguarded piece), a knight's only when the king has no flight.
    let empty_guarded = guarded & !occ;
    for pt in PieceType::HAND {
        if pt == PieceType::Pawn || !hand.has(pt) {
            continue;
        }
        let targets = if pt == PieceType::Knight {
            if !knight_may_mate {
                continue;
            }
            knight_checks & !occ
        } else {
            contact_checks(!us, pt, ksq) & empty_guarded
        };
        for to in targets.and_not(bitboard::dead_squares(us, pt)) {
            // A flight the dropped piece does not cover stays open (the
            // drop can only block our lines, which `mates` then sees).
            let covered = bitboard::attacks(us, pt, to, occ.with(to).without(ksq));
            if flights.without(to).and_not(covered).any() {
                continue;
            }
            let m = Move::drop(pt, to);
            if !defender_recaptures(pos, ksq, to, occ.with(to), None) && mates(pos, m) {
                return Some(m);
            }
        }
    }

    // Knight checks: only an unpromoted knight checks from there.
    if knight_may_mate {
        let dead = bitboard::dead_squares(us, PieceType::Knight);
        for to in knight_checks.and_not(dead) {
            for from in bitboard::knight_attacks(!us, to) & knights {
                let m = Move::normal(from, to, false);
                if mates(pos, m) {
                    return Some(m);
                }
            }
        }
    }

    let zone = bitboard::promotion_zone(us);
    let kings = pos.pieces(us, PieceType::King);
    for to in guarded {
        // A flight no piece on `to` could cover (off its steps and lines)
        // stays open whatever moves there: the test below for each mover
        // would reject every one.
        let reach = bitboard::king_attacks(to)
            | bitboard::rook_pseudo_attacks(to)
            | bitboard::bishop_pseudo_attacks(to);
        if flights.without(to).and_not(reach).any() {
            continue;
        }
        let attackers = pos.attackers_to(us, to, occ);
        for from in attackers.and_not(kings) {
            let pt = pos.piece_on(from).kind();
            let may_promote = pt.can_promote() && (zone.contains(from) || zone.contains(to));
            for promote in [true, false] {
                if promote && !may_promote {
                    continue;
                }
                let after = if promote { pt.promote() } else { pt };
                if !contact_checks(!us, after, ksq).contains(to)
                    || (!promote && bitboard::dead_squares(us, pt).contains(to))
                {
                    continue;
                }
                // The square must stay guarded once the mover has left:
                // by another attacker (our king too), or by a slider of
                // ours behind it, looked for only when the mover is the
                // only attacker and such a slider stands on the line.
                if attackers.without(from).is_empty()
                    && ((bitboard::ray_through(to, from) & our_sliders(pos, us))
                        .without(from)
                        .is_empty()
                        || pos
                            .attackers_to(us, to, occ.without(from))
                            .without(from)
                            .is_empty())
                {
                    continue;
                }
                let occ_after = occ.without(from).with(to);
                let covered = bitboard::attacks(us, after, to, occ_after.without(ksq));
                if flights.without(to).and_not(covered).any() {
                    continue;
                }
                let m = Move::normal(from, to, promote);
                if !king_escapes(pos, ksq, covered, to, occ_after)
                    && !defender_recaptures(pos, ksq, to, occ_after, Some(from))
                    && mates(pos, m)
                {
                    return Some(m);
                }
            }
        }
    }
    None
}

/// Whether a knight of ours, in hand or on the board, can reach one of
/// the knight-check squares `targets`.
fn knight_reaches(us: Color, targets: Bitboard, knights: Bitboard, hand: Hand) -> bool {
    if hand.has(PieceType::Knight) {
        return targets.any();
    }
    let mut reaches = false;
    for sq in targets {
        reaches |= (bitboard::knight_attacks(!us, sq) & knights).any();
    }
    reaches
}

/// The squares next to the enemy king on `ksq` (knight-check squares for
/// a knight) from which a piece of ours of kind `pt` checks it; `them` is
/// the king's colour. Next to the king, sliders need no occupancy.
#[inline]
fn contact_checks(them: Color, pt: PieceType, ksq: Square) -> Bitboard {
    let near = bitboard::king_attacks(ksq);
    match pt {
        PieceType::Pawn | PieceType::Lance => bitboard::pawn_attacks(them, ksq),
        PieceType::Knight => bitboard::knight_attacks(them, ksq),
        PieceType::Silver => bitboard::silver_attacks(them, ksq),
        PieceType::Bishop => near & bitboard::bishop_pseudo_attacks(ksq),
        PieceType::Rook => near & bitboard::rook_pseudo_attacks(ksq),
        PieceType::King | PieceType::Horse | PieceType::Dragon => near,
        _ => bitboard::gold_attacks(them, ksq),
    }
}

/// Our sliders (lances, bishops, rooks, horses, dragons): the pieces
/// that can guard a square from behind a piece that leaves the line.
fn our_sliders(pos: &Position, us: Color) -> Bitboard {
    let t = |pt| pos.pieces(us, pt);
    t(PieceType::Lance)
        | t(PieceType::Bishop)
        | t(PieceType::Rook)
        | t(PieceType::Horse)
        | t(PieceType::Dragon)
}

/// Whether the enemy king on `ksq` surely has a flight square once a
/// piece of the side to move stands on `to` (occupancy `occ`), covering
/// `covered` (its attacks with the king's square empty): a square next
/// to the king, not `to`, holding none of its own pieces, that neither
/// the new piece nor any other of ours attacks. A quick test before
/// playing the move: most checks next to a king leave it a flight. It
/// may miss a flight (a piece that moved off its square still counts as
/// attacking from there), never invent one.
fn king_escapes(pos: &Position, ksq: Square, covered: Bitboard, to: Square, occ: Bitboard) -> bool {
    let us = pos.side_to_move();
    // The king leaves its square: sliders see through it (a king stepping
    // straight back from a rook stays in check).
    let occ = occ.without(ksq);
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

/// Whether a defender other than the king surely takes the checker a move
/// of ours puts on `to` (occupancy `occ` after it; `from` its square for a
/// board move): the test before playing a candidate whose check the king
/// cannot escape, where such a capture is the usual answer. Only a capture
/// known legal counts: by a piece not pinned before the move nor on the
/// line the move may open from `from` to the king, and not after a move
/// that may check twice (a discovered check). So it never rejects a mate.
fn defender_recaptures(
    pos: &Position,
    ksq: Square,
    to: Square,
    occ: Bitboard,
    from: Option<Square>,
) -> bool {
    let them = !pos.side_to_move();
    let mut takers = (pos.attackers_to(them, to, occ) & occ)
        .without(ksq)
        .and_not(pos.pinned(them));
    if let Some(from) = from {
        if pos.blockers_for_king(them).contains(from) {
            return false;
        }
        takers = takers.and_not(bitboard::ray_through(ksq, from));
    }
    takers.any()
}

/// Whether the legal-or-not move `m` is legal and leaves the defender, in
/// check, without a legal move.
fn mates(pos: &mut Position, m: Move) -> bool {
    if !pos.is_legal(m) {
        return false;
    }
    pos.do_move(m);
    let mated = pos.in_check() && !can_evade(pos);
    pos.undo_move(m);
    mated
}

/// Whether the side to move, in check, has a legal move. A checker next
/// to the king or a knight cannot be blocked, so then the answer is read
/// off the board (a king step to a square nothing attacks, or a capture
/// of the checker by a piece free to leave its square), much cheaper
/// than generating the moves; a double check leaves only the king's
/// steps. A distant slider's check goes to the generator.
fn can_evade(pos: &Position) -> bool {
    let def = pos.side_to_move();
    let Some(ksq) = pos.king_square(def) else {
        return has_evasion(pos);
    };
    let checkers = pos.checkers();
    let single = !checkers.more_than_one();
    if single && bitboard::between(ksq, checkers.lsb()).any() {
        return has_evasion(pos);
    }
    // The king leaves its square: a slider checking through it sees on.
    let occ = pos.occupied().without(ksq);
    for sq in bitboard::king_attacks(ksq).and_not(pos.pieces_of(def)) {
        if !pos.attacks_square(!def, sq, occ) {
            return true;
        }
    }
    if !single {
        return false;
    }
    let checker = checkers.lsb();
    let pinned = pos.pinned(def);
    let takers = pos.attackers_to(def, checker, pos.occupied()).without(ksq);
    for from in takers {
        if !pinned.contains(from) || bitboard::same_ray(ksq, from, checker) {
            return true;
        }
    }
    false
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

    /// The board-read answer of `can_evade` is the generator's, in every
    /// position in check among the random perft positions, their children
    /// and grandchildren.
    #[test]
    fn can_evade_agrees_with_the_generator() {
        let text = include_str!("../../tests/data/perft_random.tsv");
        let (mut checked, mut mated) = (0, 0);
        let mut test = |pos: &Position| {
            if pos.in_check() {
                let evades = has_evasion(pos);
                assert_eq!(can_evade(pos), evades, "{}", pos.to_sfen());
                checked += 1;
                mated += usize::from(!evades);
            }
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut pos = Position::from_sfen(line.split('\t').next().unwrap()).unwrap();
            for &m in legal_moves(&pos).clone().iter() {
                pos.do_move(m);
                test(&pos);
                for &r in legal_moves(&pos).clone().iter() {
                    pos.do_move(r);
                    test(&pos);
                    pos.undo_move(r);
                }
                pos.undo_move(m);
            }
        }
        eprintln!("can_evade: {checked} positions in check, {mated} mated");
        assert!(checked > 1000 && mated > 10, "{checked} {mated}");
    }

    /// A move after which `defender_recaptures` sees a sure capture of
    /// the moved piece never mates: over every legal move of the random
    /// perft positions and their children, and it does reject many.
    #[test]
    fn a_sure_recapture_is_no_mate() {
        let (mut rejected, mut moves) = (0, 0);
        let check = |pos: &mut Position| {
            let Some(ksq) = pos.king_square(!pos.side_to_move()) else {
                return;
            };
            for &m in legal_moves(pos).clone().iter() {
                let (from, occ) = if m.is_drop() {
                    (None, pos.occupied().with(m.to()))
                } else {
                    (
                        Some(m.from()),
                        pos.occupied().without(m.from()).with(m.to()),
                    )
                };
                moves += 1;
                if defender_recaptures(pos, ksq, m.to(), occ, from) {
                    rejected += 1;
                    assert!(!mates(pos, m), "{} {}", pos.to_sfen(), m.to_usi());
                }
            }
        };
        crate::testing::for_random_positions_and_children(check);
        assert!(rejected * 10 > moves, "{rejected} of {moves}");
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
        let (mut found, mut exists) = (0, 0);
        let check = |pos: &mut Position| {
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
        crate::testing::for_random_positions_and_children(check);
        eprintln!("contact mate-in-one: found {found} of {exists}");
        assert!(exists > 100, "{exists}");
        assert!(found * 10 >= exists * 8, "found {found} of {exists}");
    }
}
