//! The small value types every other module speaks: colours, squares, pieces,
//! hands and moves. All are `Copy` newtypes or enums so that they cost no more
//! than the integers they wrap while keeping their meaning in the type.

use std::fmt;

/// A side: Black (sente) moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    /// Both colours, in index order.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The colour as an array index.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// One of the 81 squares. The index is `file * 9 + rank`, with file 0 the
/// USI file `1` (Black's right edge) and rank 0 the USI rank `a` (White's back
/// rank). Keeping a file's nine squares contiguous makes lance and rook file
/// attacks a bit trick on the bitboard (see `bitboard.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares on the board.
    pub const NUM: usize = 81;

    /// The square at `index` (0..81); `None` outside the board.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 81 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `index`, which the caller guarantees is below 81.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < 81);
        Square(index as u8)
    }

    /// The square at zero-based file (0 = USI file 1) and rank (0 = rank a).
    #[inline(always)]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        debug_assert!(file < 9 && rank < 9);
        Square(file * 9 + rank)
    }

    /// Index 0..81.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Zero-based file; 0 is USI file `1`.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 / 9
    }

    /// Zero-based rank; 0 is USI rank `a`.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % 9
    }

    /// The rank as seen from `color`: 0 is that side's far (enemy) rank.
    #[inline(always)]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::Black => self.rank(),
            Color::White => 8 - self.rank(),
        }
    }

    /// The same square seen from the other side (180° rotation).
    #[inline(always)]
    pub const fn rotate(self) -> Square {
        Square(80 - self.0)
    }

    /// The square mirrored left to right (file 1 ↔ file 9).
    #[inline(always)]
    pub const fn mirror(self) -> Square {
        Square::from_file_rank(8 - self.file(), self.rank())
    }

    /// Whether the square lies in `color`'s promotion zone (the far three ranks).
    #[inline(always)]
    pub const fn in_promotion_zone(self, color: Color) -> bool {
        // A table: the generator asks this for every piece it moves.
        const ZONE: [[bool; 81]; 2] = {
            let mut t = [[false; 81]; 2];
            let mut sq = 0;
            while sq < 81 {
                t[0][sq] = sq % 9 < 3;
                t[1][sq] = sq % 9 > 5;
                sq += 1;
            }
            t
        };
        ZONE[color as usize][self.0 as usize]
    }

    /// The square one step forward for `color`, if on the board.
    pub const fn forward(self, color: Color) -> Option<Square> {
        match color {
            Color::Black if self.rank() > 0 => Some(Square(self.0 - 1)),
            Color::White if self.rank() < 8 => Some(Square(self.0 + 1)),
            _ => None,
        }
    }

    /// All squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'1' + self.file()) as char,
            (b'a' + self.rank()) as char
        )
    }
}

impl std::str::FromStr for Square {
    type Err = ();
    /// Parses a USI square such as `7g`.
    fn from_str(s: &str) -> Result<Square, ()> {
        match s.as_bytes() {
            [f @ b'1'..=b'9', r @ b'a'..=b'i'] => Ok(Square::from_file_rank(f - b'1', r - b'a')),
            _ => Err(()),
        }
    }
}

/// A kind of piece, promoted kinds included. Unpromoted kinds that can
/// promote are 1..=6 and their promoted forms are exactly 8 higher, so that
/// promotion is `+ 8`. The seven kinds that can be held in hand are 1..=7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    Pawn = 1,
    Lance = 2,
    Knight = 3,
    Silver = 4,
    Bishop = 5,
    Rook = 6,
    Gold = 7,
    King = 8,
    ProPawn = 9,
    ProLance = 10,
    ProKnight = 11,
    ProSilver = 12,
    Horse = 13,
    Dragon = 14,
}

impl PieceType {
    /// Number of slots needed for arrays indexed by piece type (0 unused).
    pub const NUM: usize = 15;

    /// Every piece type in index order.
    pub const ALL: [PieceType; 14] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
        PieceType::King,
        PieceType::ProPawn,
        PieceType::ProLance,
        PieceType::ProKnight,
        PieceType::ProSilver,
        PieceType::Horse,
        PieceType::Dragon,
    ];

    /// The kinds that can be held in hand and dropped, in hand order.
    pub const HAND: [PieceType; 7] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ];

    /// The piece type with index `i` (1..=14).
    #[inline(always)]
    pub const fn from_index(i: u8) -> Option<PieceType> {
        if i >= 1 && i <= 14 {
            // SAFETY-free: a lookup keeps this a plain match for the compiler.
            Some(Self::ALL[(i - 1) as usize])
        } else {
            None
        }
    }

    /// Index 1..=14.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether this kind has a promoted form.
    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        (self as u8) <= 6
    }

    /// Whether this kind is a promoted one.
    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 9
    }

    /// The promoted form; the caller checks `can_promote`.
    #[inline(always)]
    pub const fn promote(self) -> PieceType {
        debug_assert!(self.can_promote());
        Self::ALL[(self as u8 + 7) as usize]
    }

    /// The unpromoted form (what a captured piece becomes in hand).
    #[inline(always)]
    pub const fn unpromote(self) -> PieceType {
        if self.is_promoted() {
            Self::ALL[(self as u8 - 9) as usize]
        } else {
            self
        }
    }

    /// The upper-case SFEN letter of the unpromoted kind.
    pub const fn letter(self) -> char {
        match self.unpromote() {
            PieceType::Pawn => 'P',
            PieceType::Lance => 'L',
            PieceType::Knight => 'N',
            PieceType::Silver => 'S',
            PieceType::Bishop => 'B',
            PieceType::Rook => 'R',
            PieceType::Gold => 'G',
            _ => 'K',
        }
    }

    /// The unpromoted kind named by an upper-case SFEN letter.
    pub const fn from_letter(c: u8) -> Option<PieceType> {
        match c {
            b'P' => Some(PieceType::Pawn),
            b'L' => Some(PieceType::Lance),
            b'N' => Some(PieceType::Knight),
            b'S' => Some(PieceType::Silver),
            b'B' => Some(PieceType::Bishop),
            b'R' => Some(PieceType::Rook),
            b'G' => Some(PieceType::Gold),
            b'K' => Some(PieceType::King),
            _ => None,
        }
    }

    /// How many pieces of this (unpromoted) kind exist in a shogi set.
    pub const fn count_in_set(self) -> u32 {
        match self.unpromote() {
            PieceType::Pawn => 18,
            PieceType::Lance | PieceType::Knight | PieceType::Silver | PieceType::Gold => 4,
            _ => 2,
        }
    }
}

/// A piece on the board: a kind and a colour, or `Piece::EMPTY`.
/// Encoded as `kind | colour << 4` so that it indexes small tables directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Piece(u8);

impl Piece {
    /// No piece.
    pub const EMPTY: Piece = Piece(0);
    /// Size of arrays indexed by `Piece::index`.
    pub const NUM: usize = 32;

    /// The piece of `color` and `pt`.
    #[inline(always)]
    pub const fn new(color: Color, pt: PieceType) -> Piece {
        Piece(pt as u8 | (color as u8) << 4)
    }

    /// Whether the square holds nothing.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The colour; meaningless for `EMPTY`.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 & 16 != 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The kind; `None` for `EMPTY`.
    #[inline(always)]
    pub const fn piece_type(self) -> Option<PieceType> {
        PieceType::from_index(self.0 & 15)
    }

    /// The kind of a piece known not to be empty.
    #[inline(always)]
    pub fn kind(self) -> PieceType {
        debug_assert!(!self.is_empty());
        // One load: do/undo and the generators ask this constantly.
        const KIND: [PieceType; 16] = {
            let mut t = [PieceType::Pawn; 16];
            let mut i = 1;
            while i < 15 {
                t[i] = PieceType::ALL[i - 1];
                i += 1;
            }
            t
        };
        KIND[(self.0 & 15) as usize]
    }

    /// Index 0..32 for tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The SFEN text: `P`, `+r`, ….
    pub fn sfen(self) -> String {
        match self.piece_type() {
            None => String::new(),
            Some(pt) => {
                let mut s = String::new();
                if pt.is_promoted() {
                    s.push('+');
                }
                let c = pt.letter();
                s.push(if self.color() == Color::White {
                    c.to_ascii_lowercase()
                } else {
                    c
                });
                s
            }
        }
    }
}

/// The pieces one side holds in hand, packed in a `u32`: a field per kind
/// with a spare bit above each, so that "hand A has at least everything hand
/// B has" is one subtraction and a mask (used for superior/inferior
/// repetition and hand domination in the mate solver).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

impl Hand {
    /// An empty hand.
    pub const EMPTY: Hand = Hand(0);
    const SHIFT: [u32; 8] = [0, 0, 8, 12, 16, 20, 24, 28];
    const MASK: [u32; 8] = [0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7];
    const BORROW: u32 =
        (1 << 5) | (1 << 11) | (1 << 15) | (1 << 19) | (1 << 22) | (1 << 26) | (1 << 31);

    /// How many pieces of kind `pt` (a hand kind) are held.
    #[inline(always)]
    pub const fn count(self, pt: PieceType) -> u32 {
        let i = pt as usize;
        (self.0 >> Self::SHIFT[i]) & Self::MASK[i]
    }

    /// Whether at least one piece of kind `pt` is held.
    #[inline(always)]
    pub const fn has(self, pt: PieceType) -> bool {
        self.count(pt) != 0
    }

    /// One more piece of kind `pt`.
    #[inline(always)]
    pub fn add(&mut self, pt: PieceType) {
        self.0 += 1 << Self::SHIFT[pt as usize];
    }

    /// One piece of kind `pt` fewer; the caller checks `has(pt)`.
    #[inline(always)]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.has(pt));
        self.0 -= 1 << Self::SHIFT[pt as usize];
    }

    /// `n` pieces of kind `pt`; the caller keeps `n` within the field.
    pub fn set(&mut self, pt: PieceType, n: u32) {
        let i = pt as usize;
        debug_assert!(n <= Self::MASK[i]);
        self.0 = (self.0 & !(Self::MASK[i] << Self::SHIFT[i])) | (n << Self::SHIFT[i]);
    }

    /// Whether nothing is held.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether this hand holds at least as many of every kind as `other`.
    #[inline(always)]
    pub const fn is_superset_of(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & Self::BORROW == 0
    }

    /// The raw packed value (for hashing and compact storage).
    #[inline(always)]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND.iter().map(|&pt| self.count(pt)).sum()
    }
}

/// A move in 16 bits: destination in bits 0–6; origin square in bits 7–13,
/// or for a drop the dropped piece kind there with bit 14 set; bit 15 marks a
/// promotion. 16 bits keep move lists and hash entries small.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// No move (also the empty hash-table move).
    pub const NONE: Move = Move(0);
    /// The null move used by null-move pruning ("1b1b" can never be real).
    pub const NULL: Move = Move(1 << 7 | 1);

    const DROP: u16 = 1 << 14;
    const PROMOTE: u16 = 1 << 15;

    /// A board move.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        Move(to.0 as u16 | (from.0 as u16) << 7 | if promote { Self::PROMOTE } else { 0 })
    }

    /// A drop of `pt` (a hand kind) on `to`.
    #[inline(always)]
    pub const fn drop(pt: PieceType, to: Square) -> Move {
        Move(to.0 as u16 | (pt as u16) << 7 | Self::DROP)
    }

    /// Rebuilds a move from its raw bits (for hash tables); validate before use.
    #[inline(always)]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }

    /// The raw 16 bits.
    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Whether this is neither `NONE` nor `NULL`.
    #[inline(always)]
    pub const fn is_some(self) -> bool {
        self.0 != Self::NONE.0 && self.0 != Self::NULL.0
    }

    /// The destination square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 & 0x7f) as u8)
    }

    /// The origin square of a board move (meaningless for a drop).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square(((self.0 >> 7) & 0x7f) as u8)
    }

    /// Whether this is a drop.
    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.0 & Self::DROP != 0
    }

    /// Whether this board move promotes.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & Self::PROMOTE != 0
    }

    /// The dropped kind of a drop move.
    #[inline(always)]
    pub fn dropped(self) -> PieceType {
        debug_assert!(self.is_drop());
        // One load, no range test: the generators and the move picker ask
        // this of every drop.
        const DROPPED: [PieceType; 128] = {
            let mut t = [PieceType::Pawn; 128];
            let mut i = 0;
            while i < 128 {
                if let Some(pt) = PieceType::from_index(i as u8) {
                    t[i] = pt;
                }
                i += 1;
            }
            t
        };
        DROPPED[((self.0 >> 7) & 0x7f) as usize]
    }

    /// The USI text (`7g7f`, `8h2b+`, `P*5e`); `none` and `null` for the sentinels.
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Move::NONE {
            return write!(f, "none");
        }
        if *self == Move::NULL {
            return write!(f, "null");
        }
        if self.is_drop() {
            write!(f, "{}*{}", self.dropped().letter(), self.to())
        } else {
            write!(
                f,
                "{}{}{}",
                self.from(),
                self.to(),
                if self.is_promotion() { "+" } else { "" }
            )
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Centipawn-like score used by the search and evaluation.
pub type Value = i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
        }
        let sq: Square = "7g".parse().unwrap();
        assert_eq!((sq.file(), sq.rank()), (6, 6));
        assert!("0a".parse::<Square>().is_err());
        assert!("1j".parse::<Square>().is_err());
    }

    #[test]
    fn promotion_is_plus_eight() {
        for pt in PieceType::ALL {
            if pt.can_promote() {
                assert_eq!(pt.promote() as u8, pt as u8 + 8);
                assert_eq!(pt.promote().unpromote(), pt);
            }
        }
        assert!(!PieceType::Gold.can_promote());
        assert!(!PieceType::King.can_promote());
    }

    #[test]
    fn hand_counts_and_superset() {
        let mut a = Hand::EMPTY;
        for pt in PieceType::HAND {
            for _ in 0..pt.count_in_set() {
                a.add(pt);
            }
            assert_eq!(a.count(pt), pt.count_in_set());
        }
        let mut b = a;
        b.remove(PieceType::Silver);
        assert!(a.is_superset_of(b));
        assert!(!b.is_superset_of(a));
        let mut c = Hand::EMPTY;
        c.add(PieceType::Pawn);
        let mut d = Hand::EMPTY;
        d.add(PieceType::Rook);
        assert!(!c.is_superset_of(d) && !d.is_superset_of(c));
    }

    #[test]
    fn move_encoding() {
        let m = Move::normal("8h".parse().unwrap(), "2b".parse().unwrap(), true);
        assert_eq!(m.to_string(), "8h2b+");
        let d = Move::drop(PieceType::Pawn, "5e".parse().unwrap());
        assert_eq!(d.to_string(), "P*5e");
        assert!(d.is_drop() && !m.is_drop());
        assert_eq!(d.dropped(), PieceType::Pawn);
        assert_ne!(Move::NULL, Move::NONE);
    }
}
