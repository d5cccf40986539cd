//! Lookup tables derived from `params.rs` at compile time, so that the
//! evaluation's inner loop is a couple of loads per piece.
//!
//! Placement relative to a king is looked up in two steps:
//! `REL[king][square]` gives the piece's offset class from that king as the
//! piece's owner sees the board (files folded left-right, ranks signed), and
//! `OWN_KP[kind][class]` / `ENEMY_KP[kind][class]` give its value. White's
//! squares are rotated 180° before the lookup, so one table serves both sides
//! and the evaluation is colour-symmetric by construction.

use super::params::*;
use crate::types::PieceType;

/// Offset classes: 9 absolute file distances × 17 signed rank distances.
const OFFSET_CLASSES: usize = 9 * 17;

/// The class that maps to zero in every value table: used when a king is
/// missing (tsume positions), so that lookups need no branch.
pub const NO_KING_CLASS: u8 = OFFSET_CLASSES as u8;

/// The `REL` row to use when the king is missing.
pub const NO_KING_ROW: usize = 81;

/// Entries per value table: every offset class plus `NO_KING_CLASS`.
pub const CLASSES: usize = OFFSET_CLASSES + 1;

/// `REL[king][sq]`: the offset class of `sq` from `king`, from Black's view
/// (callers rotate White's squares). Row `NO_KING_ROW` is all `NO_KING_CLASS`.
pub static REL: [[u8; 81]; 82] = {
    let mut t = [[NO_KING_CLASS; 81]; 82];
    let mut k = 0;
    while k < 81 {
        let mut s = 0;
        while s < 81 {
            t[k][s] = class_of(k, s) as u8;
            s += 1;
        }
        k += 1;
    }
    t
};

/// The class of square index `s` seen from a king on square index `k`.
const fn class_of(k: usize, s: usize) -> usize {
    let df = (s / 9) as i32 - (k / 9) as i32;
    let dr = (s % 9) as i32 - (k % 9) as i32; // negative: in front (toward rank a)
    (df.unsigned_abs() as usize) * 17 + (dr + 8) as usize
}

/// The signed rank distance and Chebyshev distance encoded by a class.
const fn decode(class: usize) -> (i32, usize) {
    let df = (class / 17) as i32;
    let dr = (class % 17) as i32 - 8;
    let adr = dr.unsigned_abs() as i32;
    let cheb = if df > adr { df } else { adr };
    (dr, cheb as usize)
}

/// Value of a piece of each kind by offset class from its own king.
pub static OWN_KP: [[i16; CLASSES]; PieceType::NUM] = {
    let mut t = [[0i16; CLASSES]; PieceType::NUM];
    let mut pt = 1;
    while pt < PieceType::NUM {
        let mut c = 0;
        while c < OFFSET_CLASSES {
            let (dr, cheb) = decode(c);
            let mut v = OWN_KING_PROXIMITY[pt][cheb];
            if dr < 0 && cheb <= 2 {
                v += OWN_KING_SHIELD[pt];
            }
            t[pt][c] = v as i16;
            c += 1;
        }
        pt += 1;
    }
    t
};

/// Value of a piece of each kind by offset class from the enemy king.
pub static ENEMY_KP: [[i16; CLASSES]; PieceType::NUM] = {
    let mut t = [[0i16; CLASSES]; PieceType::NUM];
    let mut pt = 1;
    while pt < PieceType::NUM {
        let mut c = 0;
        while c < OFFSET_CLASSES {
            let (_, cheb) = decode(c);
            t[pt][c] = ENEMY_KING_PROXIMITY[pt][cheb] as i16;
            c += 1;
        }
        pt += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

    #[test]
    fn classes_fold_files_and_keep_rank_sign() {
        let k: Square = "5h".parse().unwrap();
        let left: Square = "6g".parse().unwrap();
        let right: Square = "4g".parse().unwrap();
        let behind: Square = "4i".parse().unwrap();
        assert_eq!(REL[k.index()][left.index()], REL[k.index()][right.index()]);
        assert_ne!(
            REL[k.index()][right.index()],
            REL[k.index()][behind.index()]
        );
        let gold = PieceType::Gold.index();
        // In front of the king gets the shield bonus, behind it does not.
        let front = OWN_KP[gold][REL[k.index()][right.index()] as usize];
        let back = OWN_KP[gold][REL[k.index()][behind.index()] as usize];
        assert!(front > back);
    }

    #[test]
    fn missing_king_row_is_zero() {
        for &class in &REL[NO_KING_ROW] {
            let c = class as usize;
            for (own, enemy) in OWN_KP.iter().zip(&ENEMY_KP) {
                assert_eq!((own[c], enemy[c]), (0, 0));
            }
        }
    }
}
