//! The material-only evaluation of YaneuraOu's lowest material level
//! (`YANEURAOU_ENGINE_MATERIAL`, `MATERIAL_LEVEL` 1): the sum of the piece
//! values of each side's pieces on the board and in hand, nothing else.
//! Selected by `EvalType` = `Material`, it makes Ryuo against YaneuraOu's
//! material build a comparison of the two searches alone. The values are
//! YaneuraOu's published ones (Apery's, WCSC26).

use crate::position::Position;
use crate::types::{Color, PieceType, Value};

/// YaneuraOu's piece values by `PieceType::index()`; the king's never
/// counts (both sides have one).
const VALUE: [Value; PieceType::NUM] = {
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

/// Material balance from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Value {
    let side = |c: Color| -> Value {
        let board: Value = PieceType::ALL
            .iter()
            .map(|&pt| VALUE[pt.index()] * pos.pieces(c, pt).count() as Value)
            .sum();
        let hand = pos.hand(c);
        let held: Value = PieceType::HAND
            .iter()
            .map(|&pt| VALUE[pt.index()] * hand.count(pt) as Value)
            .sum();
        board + held
    };
    let us = pos.side_to_move();
    side(us) - side(!us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_is_the_balance_of_piece_values() {
        assert_eq!(evaluate(&Position::startpos()), 0);
        // White's bishop is in Black's hand and Black's rook is promoted:
        // Black is up 2 × 855 (the bishop moved sides) + 405 (rook to
        // dragon). White to move sees minus that.
        let sfen = "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5+R1/LNSGKGSNL w B 1";
        let pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(evaluate(&pos), -(2 * 855 + 405));
    }
}
