//! SFEN reading (with validation) and writing.

use super::Position;
use crate::bitboard::{self, Bitboard};
use crate::types::{Color, Hand, Piece, PieceType, Square};
use std::fmt;

/// Why an SFEN string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// Fewer than three fields, or trailing junk.
    Syntax(String),
    /// A character that names no piece.
    UnknownPiece(char),
    /// A rank with other than nine squares, or other than nine ranks.
    BadGeometry(String),
    /// The side-to-move field is not `b` or `w`.
    BadSideToMove(String),
    /// The hand field cannot be read.
    BadHand(String),
    /// The move number is not a positive integer.
    BadMoveNumber(String),
    /// More pieces of a kind than a shogi set has.
    TooManyPieces(PieceType),
    /// Two kings of one colour.
    TwoKings(Color),
    /// The side not to move has no king.
    MissingKing(Color),
    /// No piece on the board at all.
    EmptyBoard,
    /// Two unpromoted pawns of one side on a file.
    TwoPawns(Color, u8),
    /// A piece that could never move again (pawn/lance on the last rank,
    /// knight on the last two).
    DeadPiece(Square),
    /// The side that is not to move is in check.
    SideNotToMoveInCheck,
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::Syntax(s) => write!(f, "malformed SFEN: {s}"),
            SfenError::UnknownPiece(c) => {
                write!(f, "unknown piece letter '{}'", c.escape_default())
            }
            SfenError::BadGeometry(s) => write!(f, "bad board shape: {s}"),
            SfenError::BadSideToMove(s) => write!(f, "side to move must be 'b' or 'w', not '{s}'"),
            SfenError::BadHand(s) => write!(f, "bad hand: {s}"),
            SfenError::BadMoveNumber(s) => write!(f, "bad move number '{s}'"),
            SfenError::TooManyPieces(pt) => {
                write!(f, "more pieces of kind {} than a set holds", pt.letter())
            }
            SfenError::TwoKings(c) => write!(f, "two kings for {}", color_name(*c)),
            SfenError::MissingKing(c) => write!(f, "{} (not to move) has no king", color_name(*c)),
            SfenError::EmptyBoard => write!(f, "the board is empty"),
            SfenError::TwoPawns(c, file) => {
                write!(f, "two pawns of {} on file {}", color_name(*c), file + 1)
            }
            SfenError::DeadPiece(sq) => write!(f, "piece on {sq} could never move"),
            SfenError::SideNotToMoveInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SfenError {}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn parse_piece(c: u8) -> Result<(Color, PieceType), SfenError> {
    let color = if c.is_ascii_lowercase() {
        Color::White
    } else {
        Color::Black
    };
    PieceType::from_letter(c.to_ascii_uppercase())
        .map(|pt| (color, pt))
        .ok_or(SfenError::UnknownPiece(c as char))
}

impl Position {
    /// Reads an SFEN string (`board side hand [move-number]`) and checks it
    /// is a position the rules allow. A missing move number is taken as 1.
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        let fields: Vec<&str> = sfen.split_ascii_whitespace().collect();
        if fields.len() < 3 {
            return Err(SfenError::Syntax(format!(
                "expected board, side and hand, got {} field(s)",
                fields.len()
            )));
        }
        if fields.len() > 4 {
            return Err(SfenError::Syntax(format!("unexpected '{}'", fields[4])));
        }
        let mut pos = Position::empty();
        pos.read_board(fields[0])?;
        pos.side_to_move = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(SfenError::BadSideToMove(other.to_string())),
        };
        pos.read_hands(fields[2])?;
        pos.game_ply = match fields.get(3) {
            None => 1,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if (1..1_000_000).contains(&n) => n,
                _ => return Err(SfenError::BadMoveNumber(s.to_string())),
            },
        };
        pos.validate()?;
        pos.init_state();
        if pos.king_sq[(!pos.side_to_move).index()]
            .is_some_and(|k| pos.is_attacked_by(pos.side_to_move, k))
        {
            return Err(SfenError::SideNotToMoveInCheck);
        }
        Ok(pos)
    }

    fn read_board(&mut self, text: &str) -> Result<(), SfenError> {
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 9 {
            return Err(SfenError::BadGeometry(format!(
                "{} ranks instead of 9",
                ranks.len()
            )));
        }
        for (rank, row) in ranks.iter().enumerate() {
            let mut file: i32 = 8; // SFEN lists each rank from file 9 to file 1
            let mut promoted = false;
            for &c in row.as_bytes() {
                if c == b'+' {
                    if promoted {
                        return Err(SfenError::Syntax("'++' in board".into()));
                    }
                    promoted = true;
                    continue;
                }
                if c.is_ascii_digit() {
                    if promoted || c == b'0' {
                        return Err(SfenError::Syntax(format!(
                            "bad '{}' in rank {}",
                            c as char,
                            rank + 1
                        )));
                    }
                    file -= (c - b'0') as i32;
                    if file < -1 {
                        return Err(SfenError::BadGeometry(format!(
                            "rank {} is longer than 9",
                            rank + 1
                        )));
                    }
                    continue;
                }
                let (color, mut pt) = parse_piece(c)?;
                if promoted {
                    if !pt.can_promote() {
                        return Err(SfenError::Syntax(format!(
                            "'+{}' cannot be promoted",
                            c as char
                        )));
                    }
                    pt = pt.promote();
                    promoted = false;
                }
                if file < 0 {
                    return Err(SfenError::BadGeometry(format!(
                        "rank {} is longer than 9",
                        rank + 1
                    )));
                }
                let sq = Square::from_file_rank(file as u8, rank as u8);
                if pt == PieceType::King && self.king_sq[color.index()].is_some() {
                    return Err(SfenError::TwoKings(color));
                }
                self.put_piece(sq, Piece::new(color, pt));
                file -= 1;
            }
            if promoted {
                return Err(SfenError::Syntax("'+' at the end of a rank".into()));
            }
            if file != -1 {
                return Err(SfenError::BadGeometry(format!(
                    "rank {} has {} squares",
                    rank + 1,
                    8 - file
                )));
            }
        }
        Ok(())
    }

    fn read_hands(&mut self, text: &str) -> Result<(), SfenError> {
        if text == "-" {
            return Ok(());
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let mut count: u32 = 0;
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                count = count
                    .saturating_mul(10)
                    .saturating_add((bytes[i] - b'0') as u32);
                i += 1;
            }
            let has_count = i > start;
            if has_count && count < 1 {
                return Err(SfenError::BadHand(format!("zero count in '{text}'")));
            }
            if !has_count {
                count = 1;
            }
            let Some(&c) = bytes.get(i) else {
                return Err(SfenError::BadHand(format!("'{text}' ends with a count")));
            };
            i += 1;
            let (color, pt) = parse_piece(c).map_err(|_| {
                SfenError::BadHand(format!("unknown piece '{}'", (c as char).escape_default()))
            })?;
            if pt == PieceType::King {
                return Err(SfenError::BadHand("a king cannot be in hand".into()));
            }
            if count > pt.count_in_set() {
                return Err(SfenError::TooManyPieces(pt));
            }
            let hand = &mut self.hands[color.index()];
            let total = hand.count(pt) + count;
            if total > pt.count_in_set() {
                return Err(SfenError::TooManyPieces(pt));
            }
            hand.set(pt, total);
        }
        Ok(())
    }

    /// Rule checks on a freshly read board and hands.
    fn validate(&self) -> Result<(), SfenError> {
        if self.occupied().is_empty() {
            return Err(SfenError::EmptyBoard);
        }
        let them = !self.side_to_move;
        if self.king_sq[them.index()].is_none() {
            return Err(SfenError::MissingKing(them));
        }
        for pt in PieceType::HAND {
            let total =
                self.material_count(Color::Black, pt) + self.material_count(Color::White, pt);
            if total > pt.count_in_set() {
                return Err(SfenError::TooManyPieces(pt));
            }
        }
        for c in Color::ALL {
            let pawns = self.pieces(c, PieceType::Pawn);
            for file in 0..9 {
                if (pawns & bitboard::file_mask(file)).more_than_one() {
                    return Err(SfenError::TwoPawns(c, file));
                }
            }
            for pt in [PieceType::Pawn, PieceType::Lance, PieceType::Knight] {
                let dead: Bitboard = self.pieces(c, pt) & bitboard::dead_squares(c, pt);
                if dead.any() {
                    return Err(SfenError::DeadPiece(dead.lsb()));
                }
            }
        }
        Ok(())
    }

    /// The SFEN of this position, hands in the usual order (R B G S N L P).
    pub fn to_sfen(&self) -> String {
        write_sfen(&self.board, &self.hands, self.side_to_move, self.game_ply)
    }

    /// The position mirrored left to right (file 1 ↔ file 9), hands and side
    /// to move kept. The rules are symmetric under this mirror, so tests and
    /// trainers may use a position and its mirror image alike.
    pub fn mirrored(&self) -> Position {
        let mut pos = Position::empty();
        for sq in self.occupied() {
            pos.put_piece(sq.mirror(), self.board[sq.index()]);
        }
        pos.hands = self.hands;
        pos.side_to_move = self.side_to_move;
        pos.game_ply = self.game_ply;
        pos.init_state();
        pos
    }

    /// Same board and hands with colours swapped and the board rotated 180°:
    /// the position as the other side sees it (for symmetry tests).
    pub fn flipped(&self) -> Position {
        let mut pos = Position::empty();
        for sq in self.occupied() {
            let pc = self.board[sq.index()];
            pos.put_piece(sq.rotate(), Piece::new(!pc.color(), pc.kind()));
        }
        pos.hands = [self.hands[1], self.hands[0]];
        pos.side_to_move = !self.side_to_move;
        pos.game_ply = self.game_ply;
        pos.init_state();
        pos
    }
}

impl fmt::Display for Position {
    /// A board diagram as Black sees it, with hands, SFEN and key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  9  8  7  6  5  4  3  2  1")?;
        writeln!(f, "+---------------------------+")?;
        for rank in 0..9u8 {
            write!(f, "|")?;
            for file in (0..9).rev() {
                let pc = self.board[Square::from_file_rank(file, rank).index()];
                let t = if pc.is_empty() {
                    ".".to_string()
                } else {
                    pc.sfen()
                };
                write!(f, "{t:>3}")?;
            }
            writeln!(f, "| {}", (b'a' + rank) as char)?;
        }
        writeln!(f, "+---------------------------+")?;
        writeln!(f, "sfen: {}", self.to_sfen())?;
        writeln!(f, "key: {:016x}", self.key())?;
        let checkers: Vec<String> = self.checkers().map(|s| s.to_string()).collect();
        write!(
            f,
            "checkers: {}",
            if checkers.is_empty() {
                "-".to_string()
            } else {
                checkers.join(" ")
            }
        )
    }
}

/// The SFEN text of a board, hands (in the usual order R B G S N L P),
/// side to move and move number; shared by `Position::to_sfen` and the
/// decoders of other formats (`learn::packed`), which then parse it back
/// through `from_sfen` for the rule checks.
pub(crate) fn write_sfen(
    board: &[Piece; Square::NUM],
    hands: &[Hand; 2],
    side: Color,
    move_number: u32,
) -> String {
    write_sfen_with_counts(board, |c, pt| hands[c.index()].count(pt), side, move_number)
}

/// `write_sfen` with the hands given as counts (`hand_count(colour,
/// kind)`), for readers of other formats whose counts may exceed what a
/// `Hand` holds: the SFEN reader then refuses them with its own message.
pub(crate) fn write_sfen_with_counts(
    board: &[Piece; Square::NUM],
    hand_count: impl Fn(Color, PieceType) -> u32,
    side: Color,
    move_number: u32,
) -> String {
    let mut s = String::with_capacity(96);
    for rank in 0..9 {
        let mut empty = 0;
        for file in (0..9).rev() {
            let pc = board[Square::from_file_rank(file, rank).index()];
            if pc.is_empty() {
                empty += 1;
            } else {
                if empty > 0 {
                    s.push((b'0' + empty) as char);
                    empty = 0;
                }
                s.push_str(&pc.sfen());
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank < 8 {
            s.push('/');
        }
    }
    s.push_str(if side == Color::Black { " b " } else { " w " });
    let order = [
        PieceType::Rook,
        PieceType::Bishop,
        PieceType::Gold,
        PieceType::Silver,
        PieceType::Knight,
        PieceType::Lance,
        PieceType::Pawn,
    ];
    let mut any = false;
    for c in Color::ALL {
        for pt in order {
            let n = hand_count(c, pt);
            if n > 0 {
                any = true;
                if n > 1 {
                    s.push_str(&n.to_string());
                }
                let l = pt.letter();
                s.push(if c == Color::White {
                    l.to_ascii_lowercase()
                } else {
                    l
                });
            }
        }
    }
    if !any {
        s.push('-');
    }
    s.push(' ');
    s.push_str(&move_number.to_string());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_round_trip() {
        let pos = Position::startpos();
        assert_eq!(pos.to_sfen(), super::super::STARTPOS_SFEN);
    }

    #[test]
    fn hands_in_any_order_and_counts() {
        let a = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P2GR3p 5").unwrap();
        assert_eq!(a.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b R2GP3p 5");
        assert_eq!(a.game_ply(), 5);
        let b = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 18p").unwrap();
        assert_eq!(b.hand(Color::White).count(PieceType::Pawn), 18);
    }

    #[test]
    fn flipped_twice_is_identity() {
        let s = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
        let pos = Position::from_sfen(s).unwrap();
        assert_eq!(pos.flipped().flipped().to_sfen(), s);
    }
}
