//! The material-only evaluation of YaneuraOu's lowest material level
//! (`YANEURAOU_ENGINE_MATERIAL`, `MATERIAL_LEVEL` 1): the sum of the piece
//! values of each side's pieces on the board and in hand, nothing else.
//! Selected by `EvalType` = `Material`, it makes Ryuo against YaneuraOu's
//! material build a comparison of the two searches alone. The values are
//! YaneuraOu's published ones (Apery's, WCSC26).

use crate::position::Position;
use crate::types::Value;

/// Material balance from the side to move's point of view (the position
/// keeps it incrementally, `Position::material`).
#[inline]
pub fn evaluate(pos: &Position) -> Value {
    pos.material(pos.side_to_move())
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
