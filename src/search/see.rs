//! Static exchange evaluation: the material outcome of the capture sequence
//! on one square, each side recapturing with its least valuable attacker and
//! free to stop. Sliders behind a capturer join in (x-rays). In shogi a
//! capture gains the piece twice over (off the enemy board, into our hand),
//! so the exchange is counted with `eval::capture_value`.

use crate::bitboard::{self, Bitboard};
use crate::eval::capture_value;
use crate::position::Position;
use crate::types::{Color, Move, PieceType, Square, Value};

/// Attack order, cheapest first (gold-moving promoted pieces are worth
/// about a gold).
const ORDER: [PieceType; 14] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::ProPawn,
    PieceType::ProLance,
    PieceType::ProKnight,
    PieceType::Silver,
    PieceType::ProSilver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Horse,
    PieceType::Dragon,
    PieceType::King,
];

/// Sliders of either colour that reach `to` through `occ` along the line
/// through `gone`, the square just emptied: the only ones a capture from
/// there can uncover (a knight's square lies on no line).
fn x_rays(pos: &Position, to: Square, gone: Square, occ: Bitboard) -> Bitboard {
    if bitboard::bishop_pseudo_attacks(to).contains(gone) {
        return bitboard::bishop_attacks(to, occ)
            & (pos.pieces_of_type(PieceType::Bishop) | pos.pieces_of_type(PieceType::Horse));
    }
    if !bitboard::rook_pseudo_attacks(to).contains(gone) {
        return Bitboard::EMPTY;
    }
    let lances = pos.pieces_of_type(PieceType::Lance);
    (bitboard::rook_attacks(to, occ)
        & (pos.pieces_of_type(PieceType::Rook) | pos.pieces_of_type(PieceType::Dragon)))
        | (bitboard::lance_attacks(Color::White, to, occ) & lances & pos.pieces_of(Color::Black))
        | (bitboard::lance_attacks(Color::Black, to, occ) & lances & pos.pieces_of(Color::White))
}

/// The least valuable of `mine` (attackers of one colour, not empty),
/// in `ORDER`. The gold-moving kinds and silvers are looked through only
/// when one of them is there: most exchanges are settled by pawns,
/// lances, knights and the big pieces.
#[inline(always)]
fn least_valuable(pos: &Position, mine: Bitboard) -> Option<(PieceType, Square)> {
    for pt in [PieceType::Pawn, PieceType::Lance, PieceType::Knight] {
        let b = mine & pos.pieces_of_type(pt);
        if b.any() {
            return Some((pt, b.lsb()));
        }
    }
    // ORDER[3..9]: the gold-moving kinds and the silvers.
    let first = if (mine & (pos.golds() | pos.pieces_of_type(PieceType::Silver))).any() {
        3
    } else {
        9
    };
    ORDER[first..].iter().find_map(|&pt| {
        let b = mine & pos.pieces_of_type(pt);
        b.any().then(|| (pt, b.lsb()))
    })
}

/// Where the exchange started by `m` stands after its first move, against
/// `threshold`: `Err` with the answer when that move settles it (it wins
/// too little even unanswered, or enough even if the mover is lost),
/// else `Ok` with the balance for `resolve` and the occupancy after it.
#[inline(always)]
fn first_move(pos: &Position, m: Move, threshold: Value) -> Result<(Value, Bitboard), bool> {
    let to = m.to();
    let (moved, occ) = if m.is_drop() {
        (m.dropped(), pos.occupied().with(to))
    } else {
        let pt = pos.piece_on(m.from()).kind();
        let after = if m.is_promotion() { pt.promote() } else { pt };
        (after, (pos.occupied().without(m.from())).with(to))
    };
    let mut gain = if m.is_drop() || pos.piece_on(to).is_empty() {
        0
    } else {
        capture_value(pos.piece_on(to).kind())
    };
    if m.is_promotion() {
        let base = pos.piece_on(m.from()).kind();
        gain += capture_value(moved) - capture_value(base);
    }
    let swap = gain - threshold;
    if swap < 0 {
        return Err(false);
    }
    let swap = capture_value(moved) - swap;
    if swap <= 0 {
        return Err(true);
    }
    Ok((swap, occ))
}

/// The recaptures on `to` after the side to move's first move, from the
/// balance `swap`, occupancy `occ` and the `attackers` of both colours,
/// each side taking with the piece `least` picks: whether the first
/// mover's side comes out at the threshold.
#[inline(always)]
fn resolve(
    pos: &Position,
    to: Square,
    mut swap: Value,
    mut occ: Bitboard,
    mut attackers: Bitboard,
    least: impl Fn(&Position, Bitboard) -> Option<(PieceType, Square)>,
) -> bool {
    let mut stm = pos.side_to_move();
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let mine = attackers & pos.pieces_of(stm);
        if mine.is_empty() {
            break;
        }
        res = !res;
        let Some((pt, sq)) = least(pos, mine) else {
            break;
        };
        if pt == PieceType::King {
            // The king may only take last: if the other side still attacks,
            // the capture is illegal and the result flips back.
            if (attackers & pos.pieces_of(!stm)).any() {
                res = !res;
            }
            break;
        }
        swap = capture_value(pt) - swap;
        if swap < res as Value {
            break;
        }
        occ = occ.without(sq);
        attackers |= x_rays(pos, to, sq, occ) & occ;
    }
    res
}

/// Whether the exchange started by `m` wins at least `threshold`.
pub fn see_ge(pos: &Position, m: Move, threshold: Value) -> bool {
    let (swap, occ) = match first_move(pos, m, threshold) {
        Ok(start) => start,
        Err(settled) => return settled,
    };
    // Both colours' attackers at once (`occ` drops the mover from its
    // square; the piece tables still hold it). A square no enemy piece
    // reaches ends the exchange at once.
    let attackers = pos.all_attackers_to(m.to(), occ) & occ;
    if (attackers & pos.pieces_of(!pos.side_to_move())).is_empty() {
        return true;
    }
    resolve(pos, m.to(), swap, occ, attackers, least_valuable)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The previous, simpler form of what changed: the early exit by an
    /// attack test, then every kind walked in `ORDER` for the least
    /// valuable attacker. The oracle of the faster one.
    fn see_ge_reference(pos: &Position, m: Move, threshold: Value) -> bool {
        let (swap, occ) = match first_move(pos, m, threshold) {
            Ok(start) => start,
            Err(settled) => return settled,
        };
        if !pos.attacks_square(!pos.side_to_move(), m.to(), occ) {
            return true;
        }
        let attackers = pos.all_attackers_to(m.to(), occ) & occ;
        resolve(pos, m.to(), swap, occ, attackers, |pos, mine| {
            ORDER.iter().find_map(|&pt| {
                let b = mine & pos.pieces_of_type(pt);
                b.any().then(|| (pt, b.lsb()))
            })
        })
    }

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_usi_move(s).unwrap_or_else(|| panic!("{s}"))
    }

    /// The same answers as the reference for every move of the random
    /// perft positions and their children, at thresholds around each
    /// exchange's outcome.
    #[test]
    fn agrees_with_the_reference() {
        use crate::movegen::{generate, GenType, MoveList};
        let mut tested = 0;
        let mut check = |pos: &Position| {
            let mut moves = MoveList::new();
            generate(pos, GenType::All, &mut moves);
            for &m in moves.iter() {
                for t in [
                    -3000, -1200, -600, -250, -90, -1, 0, 1, 90, 250, 600, 1200, 3000,
                ] {
                    assert_eq!(
                        see_ge(pos, m, t),
                        see_ge_reference(pos, m, t),
                        "{} {} {t}",
                        pos.to_sfen(),
                        m.to_usi()
                    );
                    tested += 1;
                }
            }
        };
        crate::testing::for_random_positions_and_children(|pos| check(pos));
        assert!(tested > 100_000, "{tested}");
    }

    #[test]
    fn free_piece_and_defended_piece() {
        // A black rook takes an undefended white silver: wins a silver.
        let pos = Position::from_sfen("4k4/9/9/9/4s4/9/9/9/K3R4 b - 1").unwrap();
        let m = mv(&pos, "5i5e");
        assert!(see_ge(&pos, m, capture_value(PieceType::Silver)));
        assert!(!see_ge(&pos, m, capture_value(PieceType::Silver) + 1));
        // The silver defended by a white gold: rook for silver loses.
        let pos = Position::from_sfen("4k4/9/9/4g4/4s4/9/9/9/K3R4 b - 1").unwrap();
        let m = mv(&pos, "5i5e");
        assert!(!see_ge(&pos, m, 0));
        let expect = capture_value(PieceType::Silver) - capture_value(PieceType::Rook);
        assert!(see_ge(&pos, m, expect));
        assert!(!see_ge(&pos, m, expect + 1));
    }

    #[test]
    fn x_ray_through_the_first_capturer() {
        // Black lance behind a black rook on the file: rook takes a pawn
        // defended by a gold; after gold takes the rook, the lance retakes.
        let pos = Position::from_sfen("4k4/9/4g4/4p4/9/9/4R4/4L4/K8 b - 1").unwrap();
        let m = mv(&pos, "5g5d");
        let p = capture_value(PieceType::Pawn);
        let r = capture_value(PieceType::Rook);
        let g = capture_value(PieceType::Gold);
        assert!(see_ge(&pos, m, p - r + g));
        assert!(!see_ge(&pos, m, p - r + g + 1));
    }

    #[test]
    fn quiet_move_to_an_attacked_square() {
        // Dropping a gold where a white pawn takes it loses the gold.
        let pos = Position::from_sfen("4k4/9/4p4/9/9/9/9/9/K8 b G 1").unwrap();
        let m = Move::drop(PieceType::Gold, "5d".parse().unwrap());
        assert!(!see_ge(&pos, m, 0));
        let safe = Move::drop(PieceType::Gold, "1e".parse().unwrap());
        assert!(see_ge(&pos, safe, 0));
    }
}
