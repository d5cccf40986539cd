//! YaneuraOu's `PackedSfen` (a position in 256 bits) and `PackedSfenValue`
//! (a 40-byte training record), written from the format description.
//!
//! The position code is a bit stream, LSB first within each byte: side to
//! move (1 bit), the two king squares (7 bits each, Black first), then every
//! other square in index order as a Huffman code, then the hands. The codes
//! are chosen so that a full 40-piece set fills exactly 256 bits: a piece in
//! hand costs one bit less than on the board, where the saved bit pays for
//! the empty square it would otherwise be. Positions without all 40 pieces
//! (tsume problems) cannot be packed.
//!
//! Hands are written in YaneuraOu's kind order (P L N S B R G); cshogi
//! writes P L N S G B R. Each hand code names its kind, so every reader
//! takes either, and the board bits agree exactly.

use crate::position::{write_sfen, Position, SfenError};
use crate::types::{Color, Hand, Move, Piece, PieceType, Square};
use std::fmt;

/// Why a position could not be packed or a packed code not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// Packing: this side has no king on the board.
    MissingKing(Color),
    /// Packing: the board and hands do not hold the whole set of a kind.
    PieceCount {
        /// The (unpromoted) kind.
        kind: PieceType,
        /// How many there are, both sides, board and hands.
        count: u32,
    },
    /// Unpacking: a king square field outside the board.
    BadKingSquare(u8),
    /// Unpacking: both kings on one square.
    KingsOnOneSquare,
    /// Unpacking: the codes run past the 256th bit.
    Overrun,
    /// Unpacking: a piece in hand with its promotion bit set.
    PromotedInHand,
    /// Unpacking: more pieces of a kind than a set holds.
    TooManyPieces(PieceType),
    /// Unpacking: the decoded position breaks a rule of the game.
    Illegal(SfenError),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::MissingKing(c) => write!(f, "cannot pack: {c:?} has no king"),
            PackError::PieceCount { kind, count } => write!(
                f,
                "cannot pack: {count} pieces of kind {} instead of {}",
                kind.letter(),
                kind.count_in_set()
            ),
            PackError::BadKingSquare(s) => {
                write!(f, "packed sfen: king square {s} is off the board")
            }
            PackError::KingsOnOneSquare => write!(f, "packed sfen: both kings on one square"),
            PackError::Overrun => write!(f, "packed sfen: codes run past 256 bits"),
            PackError::PromotedInHand => write!(f, "packed sfen: promoted piece in hand"),
            PackError::TooManyPieces(pt) => write!(
                f,
                "packed sfen: more pieces of kind {} than a set holds",
                pt.letter()
            ),
            PackError::Illegal(e) => write!(f, "packed sfen: illegal position: {e}"),
        }
    }
}

impl std::error::Error for PackError {}

/// Total bits of a packed position.
const BITS: usize = 256;

/// The hand kinds in the order the format lists them (Gold last, unlike
/// `PieceType::HAND`).
const PACK_ORDER: [PieceType; 7] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Gold,
];

/// Huffman code and length of a board piece by unpromoted kind; `None` is
/// the empty square. A hand piece uses `code >> 1` on `bits - 1` bits.
const fn board_code(kind: Option<PieceType>) -> (u32, u32) {
    match kind {
        None => (0x00, 1),
        Some(PieceType::Pawn) => (0x01, 2),
        Some(PieceType::Lance) => (0x03, 4),
        Some(PieceType::Knight) => (0x0b, 4),
        Some(PieceType::Silver) => (0x07, 4),
        Some(PieceType::Bishop) => (0x1f, 6),
        Some(PieceType::Rook) => (0x3f, 6),
        _ => (0x0f, 5), // Gold
    }
}

const fn hand_code(kind: PieceType) -> (u32, u32) {
    let (code, bits) = board_code(Some(kind));
    (code >> 1, bits - 1)
}

struct BitWriter {
    data: [u8; 32],
    cursor: usize,
}

impl BitWriter {
    fn bit(&mut self, b: bool) {
        // Callers check the piece counts first, so 256 bits always suffice.
        if self.cursor < BITS {
            self.data[self.cursor / 8] |= (b as u8) << (self.cursor % 8);
        }
        self.cursor += 1;
    }

    fn bits(&mut self, value: u32, n: u32) {
        for i in 0..n {
            self.bit(value >> i & 1 != 0);
        }
    }
}

struct BitReader<'a> {
    data: &'a [u8; 32],
    cursor: usize,
}

impl BitReader<'_> {
    fn bit(&mut self) -> Result<bool, PackError> {
        if self.cursor >= BITS {
            return Err(PackError::Overrun);
        }
        let b = self.data[self.cursor / 8] >> (self.cursor % 8) & 1 != 0;
        self.cursor += 1;
        Ok(b)
    }

    fn bits(&mut self, n: u32) -> Result<u32, PackError> {
        let mut v = 0;
        for i in 0..n {
            v |= (self.bit()? as u32) << i;
        }
        Ok(v)
    }

    /// Reads one code of `table` (code, length, meaning). Both tables are
    /// complete prefix codes of at most six bits, so some entry matches.
    fn code<T: Copy>(&mut self, table: &[(u32, u32, T)]) -> Result<T, PackError> {
        let (mut code, mut bits) = (0, 0);
        while bits < 6 {
            code |= (self.bit()? as u32) << bits;
            bits += 1;
            if let Some(&(_, _, k)) = table.iter().find(|e| (e.0, e.1) == (code, bits)) {
                return Ok(k);
            }
        }
        Err(PackError::Overrun) // unreachable with complete tables
    }
}

/// Decoding table of a board square: an empty square or a kind.
const BOARD_TABLE: [(u32, u32, Option<PieceType>); 8] = {
    let mut t = [(0, 0, None); 8];
    let mut i = 0;
    while i < 8 {
        let kind = if i == 0 {
            None
        } else {
            Some(PACK_ORDER[i - 1])
        };
        let (code, bits) = board_code(kind);
        t[i] = (code, bits, kind);
        i += 1;
    }
    t
};

/// Decoding table of a piece in hand.
const HAND_TABLE: [(u32, u32, PieceType); 7] = {
    let mut t = [(0, 0, PieceType::Pawn); 7];
    let mut i = 0;
    while i < 7 {
        let (code, bits) = hand_code(PACK_ORDER[i]);
        t[i] = (code, bits, PACK_ORDER[i]);
        i += 1;
    }
    t
};

/// A position in 32 bytes, YaneuraOu's `PackedSfen`. The move number is not
/// part of it (a `PackedSfenValue` carries the ply).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedSfen(pub [u8; 32]);

impl fmt::Debug for PackedSfen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PackedSfen(")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// What the decoder found, before the rules are checked.
struct Decoded {
    side: Color,
    board: [Option<(Color, PieceType)>; 81],
    hands: [[u32; PieceType::NUM]; 2],
}

impl PackedSfen {
    /// Packs `pos`, which must have both kings and all 40 pieces.
    pub fn pack(pos: &Position) -> Result<PackedSfen, PackError> {
        let king = |c| pos.king_square(c).ok_or(PackError::MissingKing(c));
        let (bk, wk) = (king(Color::Black)?, king(Color::White)?);
        for kind in PACK_ORDER {
            let count =
                pos.material_count(Color::Black, kind) + pos.material_count(Color::White, kind);
            if count != kind.count_in_set() {
                return Err(PackError::PieceCount { kind, count });
            }
        }
        let mut w = BitWriter {
            data: [0; 32],
            cursor: 0,
        };
        w.bit(pos.side_to_move() == Color::White);
        w.bits(bk.index() as u32, 7);
        w.bits(wk.index() as u32, 7);
        for sq in Square::all() {
            if sq == bk || sq == wk {
                continue;
            }
            let pc = pos.piece_on(sq);
            match pc.piece_type() {
                None => w.bits(0, 1),
                Some(pt) => {
                    let base = pt.unpromote();
                    let (code, bits) = board_code(Some(base));
                    w.bits(code, bits);
                    if base != PieceType::Gold {
                        w.bit(pt.is_promoted());
                    }
                    w.bit(pc.color() == Color::White);
                }
            }
        }
        for c in Color::ALL {
            for kind in PACK_ORDER {
                for _ in 0..pos.hand(c).count(kind) {
                    let (code, bits) = hand_code(kind);
                    w.bits(code, bits);
                    if kind != PieceType::Gold {
                        w.bit(false);
                    }
                    w.bit(c == Color::White);
                }
            }
        }
        debug_assert_eq!(w.cursor, BITS);
        Ok(PackedSfen(w.data))
    }

    /// The position, with move number 1, checked against the rules.
    pub fn unpack(&self) -> Result<Position, PackError> {
        self.unpack_at(1)
    }

    /// The position with the given SFEN move number (0 is taken as 1),
    /// checked against the rules.
    pub fn unpack_at(&self, move_number: u32) -> Result<Position, PackError> {
        Position::from_sfen(&self.to_sfen(move_number)?).map_err(PackError::Illegal)
    }

    /// The SFEN text of the decoded position, without the rule checks that
    /// `unpack` adds (bit-level errors are still reported).
    pub fn to_sfen(&self, move_number: u32) -> Result<String, PackError> {
        let d = self.decode()?;
        let mut board = [Piece::EMPTY; Square::NUM];
        for (sq, cell) in board.iter_mut().zip(&d.board) {
            if let Some((c, pt)) = *cell {
                *sq = Piece::new(c, pt);
            }
        }
        let mut hands = [Hand::EMPTY; 2];
        for (hand, counts) in hands.iter_mut().zip(&d.hands) {
            for pt in PACK_ORDER {
                hand.set(pt, counts[pt.index()]);
            }
        }
        Ok(write_sfen(&board, &hands, d.side, move_number.max(1)))
    }

    fn decode(&self) -> Result<Decoded, PackError> {
        let mut r = BitReader {
            data: &self.0,
            cursor: 0,
        };
        let side = if r.bit()? { Color::White } else { Color::Black };
        let mut d = Decoded {
            side,
            board: [None; 81],
            hands: [[0; PieceType::NUM]; 2],
        };
        let mut kings = [0usize; 2];
        for (c, k) in Color::ALL.into_iter().zip(kings.iter_mut()) {
            let sq = r.bits(7)? as u8;
            let sq = Square::new(sq).ok_or(PackError::BadKingSquare(sq))?;
            *k = sq.index();
            d.board[sq.index()] = Some((c, PieceType::King));
        }
        if kings[0] == kings[1] {
            return Err(PackError::KingsOnOneSquare);
        }
        let mut counts = [0u32; PieceType::NUM];
        let mut count = |kind: PieceType| {
            counts[kind.index()] += 1;
            if counts[kind.index()] > kind.count_in_set() {
                Err(PackError::TooManyPieces(kind))
            } else {
                Ok(())
            }
        };
        for sq in 0..81 {
            if kings.contains(&sq) {
                continue;
            }
            if let Some(kind) = r.code(&BOARD_TABLE)? {
                let promoted = kind != PieceType::Gold && r.bit()?;
                let c = if r.bit()? { Color::White } else { Color::Black };
                count(kind)?;
                let pt = if promoted { kind.promote() } else { kind };
                d.board[sq] = Some((c, pt));
            }
        }
        while r.cursor < BITS {
            let kind = r.code(&HAND_TABLE)?;
            if kind != PieceType::Gold && r.bit()? {
                return Err(PackError::PromotedInHand);
            }
            let c = if r.bit()? { Color::White } else { Color::Black };
            count(kind)?;
            d.hands[c.index()][kind.index()] += 1;
        }
        Ok(d)
    }
}

/// One training record, YaneuraOu's `PackedSfenValue`: 40 bytes, little
/// endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedSfenValue {
    /// The position.
    pub sfen: PackedSfen,
    /// Search score, side to move's view.
    pub score: i16,
    /// The move played or searched, YaneuraOu's `Move16`. Ryuo's `Move`
    /// uses the same 16 bits (to, from or dropped kind, drop and promotion
    /// flags), so `Move::from_raw` reads it.
    pub mv: u16,
    /// Move number of the position (1 for the start).
    pub game_ply: u16,
    /// The game's result for the side to move: 1 won, 0 draw, -1 lost.
    pub game_result: i8,
}

impl PackedSfenValue {
    /// Size of a record in bytes.
    pub const SIZE: usize = 40;

    /// A record of `pos` (its move number as the ply, saturated to 16 bits).
    pub fn new(
        pos: &Position,
        score: i16,
        mv: Move,
        game_result: i8,
    ) -> Result<PackedSfenValue, PackError> {
        Ok(PackedSfenValue {
            sfen: PackedSfen::pack(pos)?,
            score,
            mv: mv.raw(),
            game_ply: pos.game_ply().min(u16::MAX as u32) as u16,
            game_result,
        })
    }

    /// The move as a ryuo `Move` (check legality before playing it).
    pub fn best_move(&self) -> Move {
        Move::from_raw(self.mv)
    }

    /// The position, with the record's ply as move number.
    pub fn position(&self) -> Result<Position, PackError> {
        self.sfen.unpack_at(self.game_ply as u32)
    }

    /// The 40 bytes of the record (padding 0).
    pub fn to_bytes(&self) -> [u8; 40] {
        let mut b = [0u8; 40];
        b[..32].copy_from_slice(&self.sfen.0);
        b[32..34].copy_from_slice(&self.score.to_le_bytes());
        b[34..36].copy_from_slice(&self.mv.to_le_bytes());
        b[36..38].copy_from_slice(&self.game_ply.to_le_bytes());
        b[38] = self.game_result as u8;
        b
    }

    /// Reads a record; the padding byte is ignored, nothing is validated
    /// (`position` does that).
    pub fn from_bytes(b: &[u8; 40]) -> PackedSfenValue {
        let mut sfen = [0u8; 32];
        sfen.copy_from_slice(&b[..32]);
        PackedSfenValue {
            sfen: PackedSfen(sfen),
            score: i16::from_le_bytes([b[32], b[33]]),
            mv: u16::from_le_bytes([b[34], b[35]]),
            game_ply: u16::from_le_bytes([b[36], b[37]]),
            game_result: b[38] as i8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start position as cshogi 2.4.6 packs it (`Board().to_psfen`).
    const STARTPOS_HEX: &str = "58a451220ceb67227e9653221caf447824c22b119e53221ceb6f223e9651220c";

    fn hex(p: &PackedSfen) -> String {
        p.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn startpos_matches_cshogi() {
        let p = PackedSfen::pack(&Position::startpos()).unwrap();
        assert_eq!(hex(&p), STARTPOS_HEX);
        assert_eq!(
            p.unpack().unwrap().to_sfen(),
            crate::position::STARTPOS_SFEN
        );
    }

    #[test]
    fn hand_codes_are_one_bit_shorter() {
        for kind in PACK_ORDER {
            let (_, b) = board_code(Some(kind));
            assert_eq!(hand_code(kind).1, b - 1);
        }
    }

    /// Both tables are prefix codes that use up every bit pattern (Kraft
    /// sum 1), so decoding never gets stuck.
    #[test]
    fn tables_are_complete_prefix_codes() {
        fn check(codes: &[(u32, u32)]) {
            let kraft: f64 = codes.iter().map(|&(_, b)| 0.5f64.powi(b as i32)).sum();
            assert_eq!(kraft, 1.0);
            for (i, &(c1, b1)) in codes.iter().enumerate() {
                for &(c2, b2) in &codes[i + 1..] {
                    let b = b1.min(b2);
                    assert_ne!(c1 & ((1 << b) - 1), c2 & ((1 << b) - 1));
                }
            }
        }
        check(&BOARD_TABLE.map(|(c, b, _)| (c, b)));
        check(&HAND_TABLE.map(|(c, b, _)| (c, b)));
    }

    #[test]
    fn move16_is_ryuo_move() {
        // YaneuraOu: to | from << 7 (| 1 << 15 promotes); drop: to | kind << 7 | 1 << 14.
        let m = Move::normal("7g".parse().unwrap(), "7f".parse().unwrap(), false);
        assert_eq!(m.raw(), 59 | 60 << 7);
        let d = Move::drop(PieceType::Gold, "5e".parse().unwrap());
        assert_eq!(d.raw(), 40 | 7 << 7 | 1 << 14);
        let p = Move::normal("8h".parse().unwrap(), "2b".parse().unwrap(), true);
        assert_eq!(p.raw(), 10 | 70 << 7 | 1 << 15);
    }

    #[test]
    fn record_bytes_round_trip() {
        let pos = Position::startpos();
        let mv = pos.parse_usi_move("7g7f").unwrap();
        let r = PackedSfenValue::new(&pos, -123, mv, -1).unwrap();
        let b = r.to_bytes();
        assert_eq!(&b[32..], &[0x85, 0xff, 0x3b, 0x1e, 1, 0, 0xff, 0]);
        assert_eq!(PackedSfenValue::from_bytes(&b), r);
        assert_eq!(r.best_move(), mv);
    }
}
