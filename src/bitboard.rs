//! 81-square bitboards and attack tables.
//!
//! Bit `file * 9 + rank` of a `u128` stands for that square, so each file is
//! nine contiguous bits. The slider scheme, chosen by measurement against a
//! plain loop-over-rays generator (see the README's perft figures):
//!
//! * **File direction** (lance, rook, dragon): the ray is contiguous, so the
//!   first blocker is the lowest or highest set bit of `occupied & ray`; no
//!   table at all (`o ^ (o - 1)` toward higher bits, a leading-zero count
//!   toward lower bits).
//! * **Rank and diagonals** (rook, bishop and their promotions): the squares
//!   of the line are gathered into a 7-bit index by one multiplication
//!   (a "kindergarten" fold: the line has one square per file, or one per
//!   rank, so the products never overlap and no carry can spoil them), and a
//!   2 KiB table of line walks answers for every line at once.
//!
//! Everything is computed by `const fn` at compile time: no start-up cost, no
//! mutable statics, and the tables total under 130 KiB (mostly `BETWEEN`).
//! PEXT would save the multiply but needs BMI2 (slow on AMD before Zen 3) and
//! run-time dispatch; magic tables for 81 squares are megabytes.

use crate::types::{Color, PieceType, Square};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(u128);

const ALL_BITS: u128 = (1u128 << 81) - 1;

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const ALL: Bitboard = Bitboard(ALL_BITS);

    /// The set holding just `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// The set with these raw bits (bits above 80 are dropped).
    #[inline(always)]
    pub const fn from_raw(bits: u128) -> Bitboard {
        Bitboard(bits & ALL_BITS)
    }

    /// The raw bits.
    #[inline(always)]
    pub const fn raw(self) -> u128 {
        self.0
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds anything.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        (self.0 >> sq.index()) & 1 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        (self.0 as u64).count_ones() + ((self.0 >> 64) as u64).count_ones()
    }

    /// Whether the set holds two or more squares.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square; the caller checks the set is not empty.
    #[inline(always)]
    pub fn lsb(self) -> Square {
        debug_assert!(self.any());
        let lo = self.0 as u64;
        let idx = if lo != 0 {
            lo.trailing_zeros()
        } else {
            64 + ((self.0 >> 64) as u64).trailing_zeros()
        };
        Square::from_index(idx as usize)
    }

    /// Removes and returns the lowest square; the caller checks non-emptiness.
    #[inline(always)]
    pub fn pop(&mut self) -> Square {
        debug_assert!(self.0 != 0);
        // Work on one 64-bit half: a u128 subtraction would carry across.
        let lo = self.0 as u64;
        if lo != 0 {
            self.0 = (self.0 & !(u64::MAX as u128)) | (lo & lo.wrapping_sub(1)) as u128;
            Square::from_index(lo.trailing_zeros() as usize)
        } else {
            let hi = (self.0 >> 64) as u64;
            self.0 = ((hi & hi.wrapping_sub(1)) as u128) << 64;
            Square::from_index(64 + hi.trailing_zeros() as usize)
        }
    }

    /// The set without `sq`.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1u128 << sq.index()))
    }

    /// `self & !other`.
    #[inline(always)]
    pub const fn and_not(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }

    /// Every square one step forward for `color` (a pawn push of the whole set).
    /// Pawns never stand on their last rank, so nothing wraps to another file.
    #[inline(always)]
    pub const fn shift_forward(self, color: Color) -> Bitboard {
        match color {
            Color::Black => Bitboard(self.0 >> 1),
            Color::White => Bitboard((self.0 << 1) & ALL_BITS),
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let lo = self.0 as u64;
        if lo != 0 {
            self.0 = (self.0 & !(u64::MAX as u128)) | (lo & lo.wrapping_sub(1)) as u128;
            return Some(Square::from_index(lo.trailing_zeros() as usize));
        }
        let hi = (self.0 >> 64) as u64;
        if hi != 0 {
            self.0 = ((hi & hi.wrapping_sub(1)) as u128) << 64;
            return Some(Square::from_index(64 + hi.trailing_zeros() as usize));
        }
        None
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline(always)]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL_BITS)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for rank in 0..9 {
            for file in (0..9).rev() {
                let sq = Square::from_file_rank(file, rank);
                write!(f, "{}", if self.contains(sq) { " X" } else { " ." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Compile-time table construction.

const fn on_board(file: i32, rank: i32) -> bool {
    file >= 0 && file < 9 && rank >= 0 && rank < 9
}

const fn bit(file: i32, rank: i32) -> u128 {
    1u128 << (file * 9 + rank)
}

/// Step offsets (file, rank) for Black; White's are negated ranks and files.
/// Rank decreases toward White's camp, so Black's "forward" is rank - 1.
const fn step_offsets(pt: PieceType) -> &'static [(i32, i32)] {
    match pt {
        PieceType::Pawn => &[(0, -1)],
        PieceType::Knight => &[(-1, -2), (1, -2)],
        PieceType::Silver => &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)],
        PieceType::King => &[
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ],
        // Gold and every gold-moving promoted piece.
        _ => &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)],
    }
}

const fn step_table(pt: PieceType) -> [[Bitboard; 81]; 2] {
    let offs = step_offsets(pt);
    let mut t = [[Bitboard(0); 81]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 81 {
            let f = (sq / 9) as i32;
            let r = (sq % 9) as i32;
            let mut bits = 0u128;
            let mut i = 0;
            while i < offs.len() {
                let (df, dr) = offs[i];
                let (df, dr) = if c == 0 { (df, dr) } else { (-df, -dr) };
                if on_board(f + df, r + dr) {
                    bits |= bit(f + df, r + dr);
                }
                i += 1;
            }
            t[c][sq] = Bitboard(bits);
            sq += 1;
        }
        c += 1;
    }
    t
}

/// Squares reached from `sq` sliding by (df, dr) on an empty board.
const fn ray(sq: usize, df: i32, dr: i32) -> u128 {
    let mut f = (sq / 9) as i32 + df;
    let mut r = (sq % 9) as i32 + dr;
    let mut bits = 0u128;
    while on_board(f, r) {
        bits |= bit(f, r);
        f += df;
        r += dr;
    }
    bits
}

const fn ray_table(df: i32, dr: i32) -> [Bitboard; 81] {
    let mut t = [Bitboard(0); 81];
    let mut sq = 0;
    while sq < 81 {
        t[sq] = Bitboard(ray(sq, df, dr));
        sq += 1;
    }
    t
}

/// `LINE_WALK[pos][occ7]`: the positions 0..9 on a nine-square line reached
/// from `pos` when bit `j` of `occ7` says inner position `j + 1` is occupied;
/// the blockers themselves are included.
const fn line_walk_table() -> [[u16; 128]; 9] {
    let mut t = [[0u16; 128]; 9];
    let mut pos = 0;
    while pos < 9 {
        let mut occ = 0;
        while occ < 128 {
            let occupied = (occ << 1) as u16; // bit p set: position p occupied
            let mut set = 0u16;
            let mut p = pos as i32 + 1;
            while p < 9 {
                set |= 1 << p;
                if occupied & (1 << p) != 0 {
                    break;
                }
                p += 1;
            }
            p = pos as i32 - 1;
            while p >= 0 {
                set |= 1 << p;
                if occupied & (1 << p) != 0 {
                    break;
                }
                p -= 1;
            }
            t[pos][occ] = set;
            occ += 1;
        }
        pos += 1;
    }
    t
}

/// `SPREAD_FILES[s]`: rank-0 squares of the files in the 9-bit set `s`.
/// `SPREAD_RANKS[s]`: every square whose rank is in the 9-bit set `s`.
const fn spread_tables() -> ([Bitboard; 512], [Bitboard; 512]) {
    let mut files = [Bitboard(0); 512];
    let mut ranks = [Bitboard(0); 512];
    let mut s = 0;
    while s < 512 {
        let mut fb = 0u128;
        let mut rb = 0u128;
        let mut i = 0;
        while i < 9 {
            if s & (1 << i) != 0 {
                fb |= bit(i, 0);
                let mut f = 0;
                while f < 9 {
                    rb |= bit(f, i);
                    f += 1;
                }
            }
            i += 1;
        }
        files[s as usize] = Bitboard(fb);
        ranks[s as usize] = Bitboard(rb);
        s += 1;
    }
    (files, ranks)
}

/// Direction codes between two squares (0: not on a common line).
/// 1..=8 index `DIRS`, so "same direction from the king" tests alignment.
const DIRS: [(i32, i32); 8] = [
    (0, -1),
    (0, 1),
    (1, 0),
    (-1, 0),
    (1, -1),
    (-1, 1),
    (1, 1),
    (-1, -1),
];

const fn direction_between(a: usize, b: usize) -> u8 {
    let df = (b / 9) as i32 - (a / 9) as i32;
    let dr = (b % 9) as i32 - (a % 9) as i32;
    if a == b {
        return 0;
    }
    let (sf, sr) = (df.signum(), dr.signum());
    if !(df == 0 || dr == 0 || df == dr || df == -dr) {
        return 0;
    }
    let mut i = 0;
    while i < 8 {
        if DIRS[i].0 == sf && DIRS[i].1 == sr {
            return i as u8 + 1;
        }
        i += 1;
    }
    0
}

const fn direction_table() -> [[u8; 81]; 81] {
    let mut t = [[0u8; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut b = 0;
        while b < 81 {
            t[a][b] = direction_between(a, b);
            b += 1;
        }
        a += 1;
    }
    t
}

const fn between_table() -> [[Bitboard; 81]; 81] {
    let mut t = [[Bitboard(0); 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut b = 0;
        while b < 81 {
            let d = DIRECTION[a][b];
            if d != 0 {
                let (df, dr) = DIRS[(d - 1) as usize];
                let mut f = (a / 9) as i32 + df;
                let mut r = (a % 9) as i32 + dr;
                let mut bits = 0u128;
                while (f * 9 + r) as usize != b {
                    bits |= bit(f, r);
                    f += df;
                    r += dr;
                }
                t[a][b] = Bitboard(bits);
            }
            b += 1;
        }
        a += 1;
    }
    t
}

static PAWN: [[Bitboard; 81]; 2] = step_table(PieceType::Pawn);
static KNIGHT: [[Bitboard; 81]; 2] = step_table(PieceType::Knight);
static SILVER: [[Bitboard; 81]; 2] = step_table(PieceType::Silver);
static GOLD: [[Bitboard; 81]; 2] = step_table(PieceType::Gold);
static KING: [[Bitboard; 81]; 2] = step_table(PieceType::King);
/// `KING_TWO_STEPS[sq]`: the squares a king on `sq` reaches in one or two
/// steps, `sq` itself left out.
static KING_TWO_STEPS: [Bitboard; 81] = {
    let king = step_table(PieceType::King);
    let mut t = [Bitboard(0); 81];
    let mut sq = 0;
    while sq < 81 {
        let near = king[0][sq].0;
        let mut bits = near;
        let mut s = 0;
        while s < 81 {
            if near & (1u128 << s) != 0 {
                bits |= king[0][s].0;
            }
            s += 1;
        }
        t[sq] = Bitboard(bits & !(1u128 << sq));
        sq += 1;
    }
    t
};
/// Lance rays on an empty board: Black's toward rank a, White's toward rank i.
static LANCE_RAY: [[Bitboard; 81]; 2] = [ray_table(0, -1), ray_table(0, 1)];
/// The two diagonals through each square, the square itself excluded.
static DIAGONAL: [[Bitboard; 81]; 2] = {
    let a = ray_table(1, 1);
    let b = ray_table(-1, -1);
    let c = ray_table(1, -1);
    let d = ray_table(-1, 1);
    let mut t = [[Bitboard(0); 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        t[0][sq] = Bitboard(a[sq].0 | b[sq].0);
        t[1][sq] = Bitboard(c[sq].0 | d[sq].0);
        sq += 1;
    }
    t
};
static LINE_WALK: [[u16; 128]; 9] = line_walk_table();
static SPREAD: ([Bitboard; 512], [Bitboard; 512]) = spread_tables();
static DIRECTION: [[u8; 81]; 81] = direction_table();
static BETWEEN: [[Bitboard; 81]; 81] = between_table();
/// `RAYS[d][sq]`: the squares from `sq` to the edge in direction code `d`
/// (the codes of `DIRECTION`; row 0, "no line", is empty).
static RAYS: [[Bitboard; 81]; 9] = {
    let mut t = [[Bitboard(0); 81]; 9];
    let mut d = 1;
    while d < 9 {
        let (df, dr) = DIRS[d - 1];
        t[d] = ray_table(df, dr);
        d += 1;
    }
    t
};

/// `NEAR[sq]`: the squares within two files and three ranks of `sq`, where
/// every step piece that could reach a square next to `sq` must stand.
static NEAR: [Bitboard; 81] = {
    let mut t = [Bitboard(0); 81];
    let mut sq = 0;
    while sq < 81 {
        let (f, r) = ((sq / 9) as i32, (sq % 9) as i32);
        let mut bits = 0u128;
        let mut df = -2;
        while df <= 2 {
            let mut dr = -3;
            while dr <= 3 {
                if on_board(f + df, r + dr) {
                    bits |= bit(f + df, r + dr);
                }
                dr += 1;
            }
            df += 1;
        }
        t[sq] = Bitboard(bits);
        sq += 1;
    }
    t
};

/// Inner ranks b..h of every file: only they can block a diagonal.
const INNER_RANKS: u128 = {
    let mut bits = 0u128;
    let mut f = 0;
    while f < 9 {
        bits |= 0b0_1111_1110u128 << (f * 9);
        f += 1;
    }
    bits
};
/// Multiplier folding one square per file onto bits 72..81 by rank.
const FOLD_FILES: u128 = {
    let mut m = 0u128;
    let mut k = 0;
    while k < 9 {
        m |= 1u128 << (9 * k);
        k += 1;
    }
    m
};

// ---------------------------------------------------------------------------
// Attack queries.

/// Squares a pawn of `c` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    PAWN[c.index()][sq.index()]
}

/// Squares a knight of `c` on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    KNIGHT[c.index()][sq.index()]
}

/// Squares a silver of `c` on `sq` attacks.
#[inline(always)]
pub fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    SILVER[c.index()][sq.index()]
}

/// Squares a gold (or gold-moving promoted piece) of `c` on `sq` attacks.
#[inline(always)]
pub fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    GOLD[c.index()][sq.index()]
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING[0][sq.index()]
}

/// Squares a king on `sq` reaches in one or two steps (not `sq`): next to
/// it, or next to a square next to it.
#[inline(always)]
pub fn king_two_steps(sq: Square) -> Bitboard {
    KING_TWO_STEPS[sq.index()]
}

/// Squares a lance of `c` on `sq` attacks given the occupancy.
#[inline(always)]
pub fn lance_attacks(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let ray = LANCE_RAY[c.index()][sq.index()].0;
    let o = occ.0 & ray;
    match c {
        // Toward lower bits: keep the ray from the highest blocker upward.
        Color::Black => {
            if o == 0 {
                Bitboard(ray)
            } else {
                let top = 127 - o.leading_zeros();
                Bitboard(ray & (u128::MAX << top))
            }
        }
        // Toward higher bits: up to and including the lowest blocker.
        Color::White => Bitboard((o ^ o.wrapping_sub(1)) & ray),
    }
}

/// Squares a rook moving only along its file attacks.
#[inline(always)]
pub fn file_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    lance_attacks(Color::Black, sq, occ) | lance_attacks(Color::White, sq, occ)
}

/// Squares a rook moving only along its rank attacks.
#[inline(always)]
pub fn rank_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let (file, rank) = (sq.file() as usize, sq.rank() as u32);
    // Files 1..=7 of this rank sit at bits 9, 18, ..., 63 after the shift.
    let inner = ((occ.0 >> rank) as u64) & 0x8040_2010_0804_0200;
    let idx = (inner.wrapping_mul(0x0001_0101_0101_0101) >> 57) as usize;
    let files = LINE_WALK[file][idx];
    Bitboard(SPREAD.0[files as usize].0 << rank)
}

#[inline(always)]
fn diagonal_attacks(d: usize, sq: Square, occ: Bitboard) -> Bitboard {
    let mask = DIAGONAL[d][sq.index()].0;
    // One square per rank on a diagonal: fold them by rank into bits 73..80.
    let folded = (occ.0 & mask & INNER_RANKS).wrapping_mul(FOLD_FILES);
    let idx = ((folded >> 73) & 0x7f) as usize;
    let ranks = LINE_WALK[sq.rank() as usize][idx];
    Bitboard(SPREAD.1[ranks as usize].0 & mask)
}

/// Squares a bishop on `sq` attacks given the occupancy.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    diagonal_attacks(0, sq, occ) | diagonal_attacks(1, sq, occ)
}

/// Squares a rook on `sq` attacks given the occupancy.
#[inline(always)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    file_attacks(sq, occ) | rank_attacks(sq, occ)
}

/// Squares a bishop attacks on an empty board.
#[inline(always)]
pub fn bishop_pseudo_attacks(sq: Square) -> Bitboard {
    PSEUDO[0][sq.index()]
}

/// Squares a rook attacks on an empty board.
#[inline(always)]
pub fn rook_pseudo_attacks(sq: Square) -> Bitboard {
    PSEUDO[1][sq.index()]
}

/// Where a bishop (`[0]`) or a rook (`[1]`) must stand to attack, on an
/// empty board, some square next to `sq`: a cheap first filter for sliders
/// that might cover a king's escape squares.
#[inline(always)]
pub fn slider_lines_near(slider: usize, sq: Square) -> Bitboard {
    LINES_NEAR[slider][sq.index()]
}

static LINES_NEAR: [[Bitboard; 81]; 2] = {
    let mut t = [[Bitboard(0); 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        let mut around = KING[0][sq].0;
        while around != 0 {
            let s = around.trailing_zeros() as usize;
            around &= around - 1;
            t[0][sq].0 |= PSEUDO[0][s].0;
            t[1][sq].0 |= PSEUDO[1][s].0;
        }
        sq += 1;
    }
    t
};

/// Empty-board attacks of the bishop (`[0]`) and the rook (`[1]`).
static PSEUDO: [[Bitboard; 81]; 2] = {
    let mut t = [[Bitboard(0); 81]; 2];
    let mut sq = 0;
    while sq < 81 {
        t[0][sq] = Bitboard(ray(sq, 1, 1) | ray(sq, -1, -1) | ray(sq, 1, -1) | ray(sq, -1, 1));
        t[1][sq] = Bitboard(ray(sq, 0, 1) | ray(sq, 0, -1) | ray(sq, 1, 0) | ray(sq, -1, 0));
        sq += 1;
    }
    t
};

/// Lance rays on an empty board.
#[inline(always)]
pub fn lance_pseudo_attacks(c: Color, sq: Square) -> Bitboard {
    LANCE_RAY[c.index()][sq.index()]
}

/// Squares a piece of colour `c` and kind `pt` on `sq` attacks.
#[inline(always)]
pub fn attacks(c: Color, pt: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
    match pt {
        PieceType::Pawn => pawn_attacks(c, sq),
        PieceType::Lance => lance_attacks(c, sq, occ),
        PieceType::Knight => knight_attacks(c, sq),
        PieceType::Silver => silver_attacks(c, sq),
        PieceType::Bishop => bishop_attacks(sq, occ),
        PieceType::Rook => rook_attacks(sq, occ),
        PieceType::King => king_attacks(sq),
        PieceType::Horse => bishop_attacks(sq, occ) | king_attacks(sq),
        PieceType::Dragon => rook_attacks(sq, occ) | king_attacks(sq),
        _ => gold_attacks(c, sq),
    }
}

/// The squares from which a step piece (or a slider's single step) could
/// attack a square next to `sq`: within two files and three ranks of it.
#[inline(always)]
pub fn near(sq: Square) -> Bitboard {
    NEAR[sq.index()]
}

/// Squares strictly between `a` and `b` when they share a line; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN[a.index()][b.index()]
}

/// Whether `b` and `c` lie on the same ray leaving `a` (so a piece pinned to
/// a king on `a` may move from `b` to `c`).
#[inline(always)]
pub fn same_ray(a: Square, b: Square, c: Square) -> bool {
    let d = DIRECTION[a.index()][b.index()];
    d != 0 && d == DIRECTION[a.index()][c.index()]
}

/// The squares from `a` through `b` to the edge of the board (`b` and
/// beyond, `a` excluded) when they share a line; else empty. A piece on `b`
/// pinned to a king on `a` may move only there.
#[inline(always)]
pub fn ray_through(a: Square, b: Square) -> Bitboard {
    RAYS[DIRECTION[a.index()][b.index()] as usize][a.index()]
}

/// Whether `a` and `b` share a rank, file or diagonal.
#[inline(always)]
pub fn aligned(a: Square, b: Square) -> bool {
    DIRECTION[a.index()][b.index()] != 0
}

/// The squares of ranks where `color`'s piece of kind `pt` could never move
/// again, which are closed to its drops and non-promoting moves: the last
/// rank for pawn and lance, the last two for a knight.
#[inline(always)]
pub fn dead_squares(color: Color, pt: PieceType) -> Bitboard {
    DEAD[color.index()][pt as usize]
}

/// A mask of the given relative ranks for `color` (0 = the far rank).
pub const fn relative_ranks(color: Color, from: u8, to_inclusive: u8) -> Bitboard {
    let mut set = 0u16;
    let mut r = from;
    while r <= to_inclusive {
        let abs = match color {
            Color::Black => r,
            Color::White => 8 - r,
        };
        set |= 1 << abs;
        r += 1;
    }
    let mut bits = 0u128;
    let mut f = 0;
    while f < 9 {
        bits |= (set as u128) << (9 * f);
        f += 1;
    }
    Bitboard(bits)
}

static DEAD: [[Bitboard; 15]; 2] = {
    let mut t = [[Bitboard(0); 15]; 2];
    let mut c = 0;
    while c < 2 {
        let color = if c == 0 { Color::Black } else { Color::White };
        t[c][1] = relative_ranks(color, 0, 0);
        t[c][2] = relative_ranks(color, 0, 0);
        t[c][3] = relative_ranks(color, 0, 1);
        c += 1;
    }
    t
};

/// `color`'s promotion zone (its far three ranks).
#[inline(always)]
pub fn promotion_zone(color: Color) -> Bitboard {
    ZONE[color.index()]
}

static ZONE: [Bitboard; 2] = [
    relative_ranks(Color::Black, 0, 2),
    relative_ranks(Color::White, 0, 2),
];

/// The nine squares of a file (0 = USI file 1).
#[inline(always)]
pub fn file_mask(file: u8) -> Bitboard {
    Bitboard(0x1ffu128 << (9 * file as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn king_two_steps_are_the_squares_next_to_a_neighbour() {
        for k in 0..81 {
            let k = Square::from_index(k);
            let near = king_attacks(k);
            for to in 0..81 {
                let to = Square::from_index(to);
                let expect = to != k && (near.contains(to) || (near & king_attacks(to)).any());
                assert_eq!(king_two_steps(k).contains(to), expect, "{k:?} {to:?}");
            }
        }
    }

    /// Slow reference: walk each ray square by square.
    fn slow_slider(sq: Square, occ: Bitboard, dirs: &[(i32, i32)]) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i32 + df, sq.rank() as i32 + dr);
            while on_board(f, r) {
                let s = Square::from_file_rank(f as u8, r as u8);
                out = out.with(s);
                if occ.contains(s) {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        out
    }

    #[test]
    fn sliders_match_slow_reference() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..3000 {
            let occ = Bitboard::from_raw(rng.gen::<u128>() & rng.gen::<u128>());
            for sq in Square::all() {
                let diag = [(1, 1), (-1, -1), (1, -1), (-1, 1)];
                let orth = [(0, 1), (0, -1), (1, 0), (-1, 0)];
                assert_eq!(bishop_attacks(sq, occ), slow_slider(sq, occ, &diag));
                assert_eq!(rook_attacks(sq, occ), slow_slider(sq, occ, &orth));
                assert_eq!(
                    lance_attacks(Color::Black, sq, occ),
                    slow_slider(sq, occ, &[(0, -1)])
                );
                assert_eq!(
                    lance_attacks(Color::White, sq, occ),
                    slow_slider(sq, occ, &[(0, 1)])
                );
            }
        }
    }

    #[test]
    fn step_tables() {
        let sq: Square = "5e".parse().unwrap();
        assert_eq!(king_attacks(sq).count(), 8);
        assert_eq!(gold_attacks(Color::Black, sq).count(), 6);
        assert!(pawn_attacks(Color::Black, sq).contains("5d".parse().unwrap()));
        assert!(pawn_attacks(Color::White, sq).contains("5f".parse().unwrap()));
        let n = knight_attacks(Color::Black, sq);
        assert!(n.contains("4c".parse().unwrap()) && n.contains("6c".parse().unwrap()));
    }

    #[test]
    fn ray_through_matches_same_ray() {
        for a in Square::all() {
            for b in Square::all() {
                let r = ray_through(a, b);
                for c in Square::all() {
                    assert_eq!(r.contains(c), same_ray(a, b, c), "{a} {b} {c}");
                }
            }
        }
    }

    #[test]
    fn between_and_rays() {
        let a: Square = "1a".parse().unwrap();
        let b: Square = "9i".parse().unwrap();
        assert_eq!(between(a, b).count(), 7);
        assert!(between(a, "2c".parse().unwrap()).is_empty());
        assert!(same_ray(a, "5e".parse().unwrap(), "7g".parse().unwrap()));
        assert!(!same_ray(
            "5e".parse().unwrap(),
            "4d".parse().unwrap(),
            "6f".parse().unwrap()
        ));
    }
}
