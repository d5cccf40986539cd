//! Static evaluation (placeholder: material only, until the full
//! evaluation lands).

use crate::position::Position;
use crate::types::{Color, PieceType, Value};

/// Material value of a piece of kind `pt` standing on the board.
pub fn piece_value(pt: PieceType) -> Value {
    match pt {
        PieceType::Pawn => 100,
        PieceType::Lance => 250,
        PieceType::Knight => 280,
        PieceType::Silver => 400,
        PieceType::Gold => 500,
        PieceType::Bishop => 700,
        PieceType::Rook => 800,
        PieceType::King => 15_000,
        PieceType::ProPawn => 500,
        PieceType::ProLance => 480,
        PieceType::ProKnight => 480,
        PieceType::ProSilver => 480,
        PieceType::Horse => 950,
        PieceType::Dragon => 1100,
    }
}

/// What capturing a piece of kind `pt` gains: it leaves the enemy board and
/// joins our hand.
pub fn capture_value(pt: PieceType) -> Value {
    piece_value(pt) + piece_value(pt.unpromote())
}

/// Score from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Position) -> Value {
    let mut score = 0;
    for c in Color::ALL {
        let sign = if c == pos.side_to_move() { 1 } else { -1 };
        for pt in PieceType::ALL {
            if pt != PieceType::King {
                score += sign * piece_value(pt) * pos.pieces(c, pt).count() as Value;
            }
        }
        for pt in PieceType::HAND {
            score += sign * piece_value(pt) * pos.hand(c).count(pt) as Value;
        }
    }
    score
}

/// Human-readable breakdown for the USI `eval` command.
pub fn explain(pos: &Position) -> String {
    format!("material {}", evaluate(pos))
}
