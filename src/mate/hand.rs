//! Hand arithmetic for proof and disproof hands.
//!
//! A proof hand is the part of the attacker's hand a proof really needs: the
//! same board is then proven for every hand that holds at least as much. A
//! disproof hand is the most the attacker could hold and still fail: the
//! board is disproven for every hand that holds no more. Storing these
//! instead of the exact hand lets one table entry answer many positions.

use crate::types::{Hand, Move, PieceType};

/// The per-kind maximum of two hands.
pub(super) fn union(a: Hand, b: Hand) -> Hand {
    let mut hand = a;
    for pt in PieceType::HAND {
        hand.set(pt, a.count(pt).max(b.count(pt)));
    }
    hand
}

/// The per-kind minimum of two hands.
pub(super) fn intersection(a: Hand, b: Hand) -> Hand {
    let mut hand = a;
    for pt in PieceType::HAND {
        hand.set(pt, a.count(pt).min(b.count(pt)));
    }
    hand
}

/// The largest disproof hand an attacker holding `hand` may claim before
/// looking at any move: more of a kind it already holds adds no new drop,
/// but a first piece of a kind it lacks would.
pub(super) fn disproof_ceiling(hand: Hand) -> Hand {
    let mut ceiling = Hand::EMPTY;
    for pt in PieceType::HAND {
        if hand.has(pt) {
            ceiling.set(pt, pt.count_in_set());
        }
    }
    ceiling
}

/// The attacker's hand after its move `m` (`captured`: the kind `m`
/// takes, if any): the dropped piece leaves it, a captured one joins it.
pub(super) fn after_attacker_move(before: Hand, m: Move, captured: Option<PieceType>) -> Hand {
    let mut hand = before;
    if m.is_drop() {
        hand.remove(m.dropped());
    } else if let Some(pt) = captured {
        hand.add(pt);
    }
    hand
}

/// The attacker's hand before its move `m` given the hand after it
/// (`captured`: the kind `m` took, if any), saturating at zero and at a full
/// set so that the result stays a valid hand. Used to carry proof and
/// disproof hands from a child to its OR parent.
pub(super) fn before_attacker_move(after: Hand, m: Move, captured: Option<PieceType>) -> Hand {
    let mut hand = after;
    if m.is_drop() {
        let pt = m.dropped();
        if hand.count(pt) < pt.count_in_set() {
            hand.add(pt);
        }
    } else if let Some(pt) = captured {
        if hand.has(pt) {
            hand.remove(pt);
        }
    }
    hand
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

    fn hand(pieces: &[(PieceType, u32)]) -> Hand {
        let mut h = Hand::EMPTY;
        for &(pt, n) in pieces {
            h.set(pt, n);
        }
        h
    }

    #[test]
    fn lattice_operations() {
        let a = hand(&[(PieceType::Pawn, 3), (PieceType::Gold, 1)]);
        let b = hand(&[(PieceType::Pawn, 1), (PieceType::Rook, 2)]);
        let u = union(a, b);
        assert!(u.is_superset_of(a) && u.is_superset_of(b));
        assert_eq!(u.total(), 6);
        let i = intersection(a, b);
        assert_eq!(i, hand(&[(PieceType::Pawn, 1)]));
        let c = disproof_ceiling(a);
        assert_eq!(c, hand(&[(PieceType::Pawn, 18), (PieceType::Gold, 4)]));
    }

    #[test]
    fn hands_before_a_move() {
        let to = Square::from_index(40);
        let after = hand(&[(PieceType::Silver, 1)]);
        let drop = Move::drop(PieceType::Gold, to);
        assert_eq!(
            before_attacker_move(after, drop, None),
            hand(&[(PieceType::Silver, 1), (PieceType::Gold, 1)])
        );
        let capture = Move::normal(Square::from_index(41), to, false);
        assert_eq!(
            before_attacker_move(after, capture, Some(PieceType::Silver)),
            Hand::EMPTY
        );
        assert_eq!(
            before_attacker_move(Hand::EMPTY, capture, Some(PieceType::Silver)),
            Hand::EMPTY
        );
    }
}
