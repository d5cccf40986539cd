//! The key a book is indexed by: a hash of the board, the hands and the
//! side to move, computed either from SFEN text (when loading, without
//! building a `Position`: a million positions must load in well under a
//! second) or from a `Position` (when probing). The ply number is not part
//! of it, so a book position matches at any ply.
//!
//! The board is hashed as its canonical SFEN text (runs of empty squares
//! merged, as every SFEN writer does): loading then only checks and hashes
//! the text, and a board written otherwise is rewritten first. Hands are
//! hashed as counts, so their order in the text does not matter.

use crate::position::Position;
use crate::types::{Color, Piece, PieceType, Square};

/// A position as the book sees it: board, hands and side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BookKey(pub u64);

/// The side to move, then 7 hand counts per side (`PieceType::HAND` order).
type SideAndHands = [u8; 1 + 14];

/// Longest canonical board text: 81 promoted pieces and 8 slashes.
const MAX_BOARD_TEXT: usize = 81 * 2 + 8;

impl BookKey {
    /// The key of `pos`; with `flip`, of the colour-flipped position (the
    /// board rotated 180°, colours and hands swapped).
    pub fn of(pos: &Position, flip: bool) -> BookKey {
        let mut codes = [0u8; 81];
        for sq in Square::all() {
            let pc = pos.piece_on(sq);
            if pc.is_empty() {
                continue;
            }
            let (sq, pc) = if flip {
                (sq.rotate(), Piece::new(!pc.color(), pc.kind()))
            } else {
                (sq, pc)
            };
            codes[sq.index()] = pc.index() as u8;
        }
        let mut rest: SideAndHands = [0; 15];
        let side = pos.side_to_move();
        rest[0] = if flip { !side } else { side } as u8;
        for c in Color::ALL {
            let slot = if flip { !c } else { c };
            let hand = pos.hand(c);
            for (i, pt) in PieceType::HAND.into_iter().enumerate() {
                rest[1 + slot.index() * 7 + i] = hand.count(pt) as u8;
            }
        }
        let mut text = [0u8; MAX_BOARD_TEXT];
        let len = board_text(&codes, &mut text);
        BookKey(hash(&text[..len], &rest))
    }

    /// The key of the SFEN fields `board side hand` (a ply number after
    /// them is ignored). Only the syntax is checked: a position the rules
    /// forbid gets a key that no game reaches.
    pub fn from_sfen(sfen: &str) -> Result<BookKey, String> {
        BookKey::from_sfen_bytes(sfen.as_bytes())
    }

    /// `from_sfen` on bytes (the book reader works on raw lines).
    pub fn from_sfen_bytes(sfen: &[u8]) -> Result<BookKey, String> {
        let mut fields = words(sfen);
        let (Some(board), Some(side), Some(hand)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err("an SFEN needs board, side and hand".into());
        };
        let mut rest: SideAndHands = [0; 15];
        rest[0] = match side {
            b"b" => Color::Black as u8,
            b"w" => Color::White as u8,
            _ => return Err("the side to move must be 'b' or 'w'".into()),
        };
        read_hand(hand, &mut rest)?;
        if is_canonical_board(board) {
            return Ok(BookKey(hash(board, &rest)));
        }
        let mut codes = [0u8; 81];
        read_board(board, &mut codes)?;
        let mut text = [0u8; MAX_BOARD_TEXT];
        let len = board_text(&codes, &mut text);
        Ok(BookKey(hash(&text[..len], &rest)))
    }
}

/// The words of `text`, split at ASCII whitespace.
pub fn words(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty())
}

fn piece_of_letter(c: u8) -> Option<(Color, PieceType)> {
    let color = if c.is_ascii_lowercase() {
        Color::White
    } else {
        Color::Black
    };
    PieceType::from_letter(c.to_ascii_uppercase()).map(|pt| (color, pt))
}

/// Piece code (`Piece::index`, never 0) of each SFEN piece letter; 0 for
/// any other byte.
const LETTER_CODE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let upper = (c as u8).to_ascii_uppercase();
        if let Some(pt) = PieceType::from_letter(upper) {
            let color = if (c as u8).is_ascii_lowercase() {
                Color::White
            } else {
                Color::Black
            };
            table[c] = Piece::new(color, pt).index() as u8;
        }
        c += 1;
    }
    table
};

/// Squares each board byte covers: 1 for a piece letter, n for a digit
/// n, 0 for `+` and `/`, and `INVALID` for anything else.
const WIDTH: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut c = 0;
    while c < 256 {
        if LETTER_CODE[c] != 0 {
            table[c] = 1;
        }
        c += 1;
    }
    let mut d = 1;
    while d <= 9 {
        table[b'0' as usize + d] = d as u8;
        d += 1;
    }
    table[b'+' as usize] = 0;
    table[b'/' as usize] = 0;
    table
};

const INVALID: u8 = 100;

/// Whether `text` is a board in canonical form: nine ranks of nine
/// squares, no two digits in a row, every `+` before a piece that can
/// promote. One pass and few branches: this runs for every book position.
fn is_canonical_board(text: &[u8]) -> bool {
    let mut squares = 0u32;
    let mut ranks = 0u32;
    let mut previous = b'/';
    for &c in text {
        let w = WIDTH[c as usize];
        if w == INVALID
            || (previous.is_ascii_digit() && c.is_ascii_digit())
            || (previous == b'+' && !b"PLNSBRplnsbr".contains(&c))
        {
            return false;
        }
        if c == b'/' {
            ranks += 1;
            if squares != 9 * ranks {
                return false;
            }
        }
        squares += w as u32;
        previous = c;
    }
    ranks == 8 && squares == 81 && previous != b'+'
}

/// What promotion adds to an unpromoted piece code.
const PROMOTION: u8 = PieceType::ProPawn as u8 - PieceType::Pawn as u8;

/// Reads a board in any valid form into piece codes (square index order).
fn read_board(text: &[u8], codes: &mut [u8; 81]) -> Result<(), String> {
    let mut rank = 0u8;
    let mut file: i32 = 8; // each rank runs from file 9 to file 1
    let mut promoted = false;
    for &c in text {
        let code = LETTER_CODE[c as usize];
        if code != 0 {
            let code = if promoted {
                let kind = PieceType::from_index(code & 15);
                if !kind.is_some_and(PieceType::can_promote) {
                    return Err("a '+' before a piece that cannot promote".into());
                }
                promoted = false;
                code + PROMOTION
            } else {
                code
            };
            if file < 0 {
                return Err("a rank longer than 9 squares".into());
            }
            codes[Square::from_file_rank(file as u8, rank).index()] = code;
            file -= 1;
            continue;
        }
        match c {
            b'/' => {
                if file != -1 || promoted || rank == 8 {
                    return Err("bad board shape".into());
                }
                rank += 1;
                file = 8;
            }
            b'+' if !promoted => promoted = true,
            b'1'..=b'9' if !promoted => {
                file -= (c - b'0') as i32;
                if file < -1 {
                    return Err("a rank longer than 9 squares".into());
                }
            }
            _ => return Err("an unknown character in the board".into()),
        }
    }
    if rank != 8 || file != -1 || promoted {
        return Err("bad board shape".into());
    }
    Ok(())
}

/// Writes the canonical SFEN board of `codes` into `out`; its length.
fn board_text(codes: &[u8; 81], out: &mut [u8; MAX_BOARD_TEXT]) -> usize {
    let mut len = 0;
    let mut push = |b: u8| {
        out[len] = b;
        len += 1;
    };
    for rank in 0..9 {
        let mut empty = 0;
        for file in (0..9).rev() {
            let code = codes[Square::from_file_rank(file, rank).index()];
            let Some(kind) = PieceType::from_index(code & 15) else {
                empty += 1;
                continue;
            };
            if empty > 0 {
                push(b'0' + empty);
                empty = 0;
            }
            if kind.is_promoted() {
                push(b'+');
            }
            let letter = kind.letter() as u8;
            push(if code & 16 != 0 {
                letter.to_ascii_lowercase()
            } else {
                letter
            });
        }
        if empty > 0 {
            push(b'0' + empty);
        }
        if rank < 8 {
            push(b'/');
        }
    }
    len
}

fn read_hand(text: &[u8], rest: &mut SideAndHands) -> Result<(), String> {
    if text == b"-" {
        return Ok(());
    }
    let mut count: u32 = 0;
    for &c in text {
        if c.is_ascii_digit() {
            count = (count * 10 + (c - b'0') as u32).min(99);
            continue;
        }
        let (color, pt) = piece_of_letter(c).ok_or("an unknown piece letter in the hand")?;
        let i = PieceType::HAND
            .iter()
            .position(|&h| h == pt)
            .ok_or("a king in hand")?;
        let slot = &mut rest[1 + color.index() * 7 + i];
        let total = *slot as u32 + count.max(1);
        if total > pt.count_in_set() {
            return Err("more pieces in hand than a set holds".into());
        }
        *slot = total as u8;
        count = 0;
    }
    if count != 0 {
        return Err("the hand ends with a count".into());
    }
    Ok(())
}

/// A 64-bit hash of the board text and the side and hands (FNV-style
/// mixing eight bytes at a time, finished with the SplitMix64
/// avalanche): fast, and stable across builds and platforms.
fn hash(board: &[u8], rest: &SideAndHands) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |word: u64| {
        h = (h ^ word)
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(29);
    };
    let mut chunks = board.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        mix(u64::from_le_bytes(word));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(u64::from_le_bytes(tail) ^ (board.len() as u64) << 56);
    let mut word = [0u8; 8];
    word.copy_from_slice(&rest[..8]);
    mix(u64::from_le_bytes(word));
    word = [0u8; 8];
    word[..7].copy_from_slice(&rest[8..]);
    mix(u64::from_le_bytes(word));
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SFENS: [&str; 3] = [
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b Bb 5",
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    ];

    #[test]
    fn text_and_position_keys_agree_and_ignore_the_ply() {
        for sfen in SFENS {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(BookKey::from_sfen(sfen), Ok(BookKey::of(&pos, false)));
            let without_ply: Vec<&str> = sfen.split(' ').take(3).collect();
            assert_eq!(
                BookKey::from_sfen(&without_ply.join(" ")),
                Ok(BookKey::of(&pos, false))
            );
            let flipped = pos.flipped();
            assert_eq!(BookKey::of(&flipped, false), BookKey::of(&pos, true));
            assert_ne!(BookKey::of(&pos, false), BookKey::of(&pos, true), "{sfen}");
        }
    }

    #[test]
    fn hand_order_does_not_matter_and_sides_differ() {
        let a = BookKey::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2PGr -").unwrap();
        let b = BookKey::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b rGPP").unwrap();
        let c = BookKey::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w 2PGr").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_board_written_oddly_gets_the_same_key() {
        let canonical = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
        let odd = "lnsgkgsnl/1r32b1/ppppppppp/54/9/111111111/PPPPPPPPP/1B5R1/LNSGKGSNL b -";
        assert!(!is_canonical_board(
            odd.split(' ').next().unwrap().as_bytes()
        ));
        assert_eq!(BookKey::from_sfen(canonical), BookKey::from_sfen(odd));
        let pos = Position::startpos();
        assert_eq!(BookKey::from_sfen(canonical), Ok(BookKey::of(&pos, false)));
    }

    #[test]
    fn bad_text_is_refused() {
        for bad in [
            "",
            "9/9 b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b K",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 19P",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/+LNSGKGSN+G b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+ b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGK++GSN b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL/ b -",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGS1L2 b -",
        ] {
            assert!(BookKey::from_sfen(bad).is_err(), "{bad}");
        }
    }
}
