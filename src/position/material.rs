//! The material balance, kept by `do_move` as YaneuraOu keeps its
//! `materialValue`: with a material-only evaluation (`EvalType` =
//! `Material`) summing the pieces at every node cost 7 % of the search's
//! instructions. The values are YaneuraOu's published ones (Apery's,
//! WCSC26); a piece in hand is worth what it is worth on the board.

use super::Position;
use crate::types::{Color, PieceType, Value};

/// YaneuraOu's piece values by `PieceType::index()`; the king's never
/// counts (both sides have one).
const MATERIAL_VALUE: [Value; PieceType::NUM] = {
    let mut v = [0; PieceType::NUM];
    v[PieceType::Pawn as usize] = 90;
    v[PieceType::Lance as usize] = 315;
    v[PieceType::Knight as usize] = 405;
    v[PieceType::Silver as usize] = 495;
    v[PieceType::Gold as usize] = 540;
    v[PieceType::Bishop as usize] = 855;
    v[PieceType::Rook as usize] = 990;
    v[PieceType::ProPawn as usize] = 540;
    v[PieceType::ProLance as usize] = 540;
    v[PieceType::ProKnight as usize] = 540;
    v[PieceType::ProSilver as usize] = 540;
    v[PieceType::Horse as usize] = 945;
    v[PieceType::Dragon as usize] = 1395;
    v
};

/// YaneuraOu's value of a piece of kind `pt` on the board (its
/// `PieceValue`), for the search's use of it (`YoLmr`).
#[inline]
pub fn piece_material(pt: PieceType) -> Value {
    MATERIAL_VALUE[pt.index()]
}

/// What taking a piece of kind `pt` gains the taker: the piece off the
/// board and its unpromoted kind in hand.
#[inline]
pub(super) fn capture_gain(pt: PieceType) -> Value {
    MATERIAL_VALUE[pt.index()] + MATERIAL_VALUE[pt.unpromote().index()]
}

/// What promoting a piece of kind `pt` gains its side.
#[inline]
pub(super) fn promotion_gain(pt: PieceType) -> Value {
    MATERIAL_VALUE[pt.promote().index()] - MATERIAL_VALUE[pt.index()]
}

/// `v` seen from `c`'s side when `v` is Black's (and, the same flip, a
/// gain of `c`'s as a change of Black's balance).
#[inline]
pub(super) fn relative(c: Color, v: Value) -> Value {
    if c == Color::Black {
        v
    } else {
        -v
    }
}

/// The balance summed afresh, Black's pieces minus White's: what the
/// incremental value is set from and checked against.
pub(super) fn compute(pos: &Position) -> Value {
    let side = |c: Color| -> Value {
        let board: Value = PieceType::ALL
            .iter()
            .map(|&pt| MATERIAL_VALUE[pt.index()] * pos.pieces(c, pt).count() as Value)
            .sum();
        let hand = pos.hand(c);
        let held: Value = PieceType::HAND
            .iter()
            .map(|&pt| MATERIAL_VALUE[pt.index()] * hand.count(pt) as Value)
            .sum();
        board + held
    };
    side(Color::Black) - side(Color::White)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_and_promotions_keep_the_balance() {
        // Black's bishop takes White's bishop, promoting: +2 × 855 (the
        // bishop off White's board, into Black's hand) + 90 (bishop to
        // horse). White's silver takes the horse: −945 − 855 for Black.
        let mut pos = Position::startpos();
        assert_eq!(pos.material(Color::Black), 0);
        let mut played = Vec::new();
        for (usi, black) in [
            ("7g7f", 0),
            ("3c3d", 0),
            ("8h2b+", 2 * 855 + 90),
            ("3a2b", 2 * 855 + 90 - 945 - 855),
        ] {
            let m = pos.parse_usi_move(usi).unwrap();
            pos.do_move(m);
            played.push(m);
            assert_eq!(pos.material(Color::Black), black, "after {usi}");
            assert_eq!(pos.material(Color::White), -black);
            assert_eq!(compute(&pos), black);
        }
        for m in played.into_iter().rev() {
            pos.undo_move(m);
        }
        assert_eq!(pos.material(Color::Black), 0);
    }
}
