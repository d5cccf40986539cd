//! The key a book is indexed by: a hash of the board, the hands and the
//! side to move, computed either from SFEN text (when loading, without
//! building a `Position`: a million positions must load in well under a
//! second) or from a `Position` (when probing). The ply number is not part
//! of it, so a book position matches at any ply.

use crate::position::Position;
use crate::types::{Color, Piece, PieceType, Square};

/// A position as the book sees it: board, hands and side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BookKey(pub u64);

/// The canonical bytes hashed into a key: 81 piece codes (`Piece::index`,
/// square index order), the side to move, then 7 hand counts per side.
type Canonical = [u8; 81 + 1 + 14];

impl BookKey {
    /// The key of `pos`; with `flip`, of the colour-flipped position (the
    /// board rotated 180°, colours and hands swapped).
    pub fn of(pos: &Position, flip: bool) -> BookKey {
        let mut bytes: Canonical = [0; 96];
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
            bytes[sq.index()] = pc.index() as u8;
        }
        let side = pos.side_to_move();
        let side = if flip { !side } else { side };
        bytes[81] = side as u8;
        for c in Color::ALL {
            let slot = if flip { !c } else { c };
            let hand = pos.hand(c);
            for (i, pt) in PieceType::HAND.into_iter().enumerate() {
                bytes[82 + slot.index() * 7 + i] = hand.count(pt) as u8;
            }
        }
        BookKey(hash(&bytes))
    }

    /// The key of the SFEN fields `board side hand` (a ply number after
    /// them is ignored). Only the syntax is checked: a position the rules
    /// forbid gets a key that no game reaches.
    pub fn from_sfen(sfen: &str) -> Result<BookKey, String> {
        let mut fields = sfen.split_ascii_whitespace();
        let (Some(board), Some(side), Some(hand)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err("an SFEN needs board, side and hand".into());
        };
        let mut bytes: Canonical = [0; 96];
        read_board(board, &mut bytes)?;
        bytes[81] = match side {
            "b" => Color::Black as u8,
            "w" => Color::White as u8,
            _ => return Err("the side to move must be 'b' or 'w'".into()),
        };
        read_hand(hand, &mut bytes)?;
        Ok(BookKey(hash(&bytes)))
    }
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
/// any other byte. A table: the board is most of a book's text.
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

/// What promotion adds to an unpromoted piece code.
const PROMOTION: u8 = PieceType::ProPawn as u8 - PieceType::Pawn as u8;

fn read_board(text: &str, bytes: &mut Canonical) -> Result<(), String> {
    let mut rank = 0u8;
    let mut file: i32 = 8; // each rank runs from file 9 to file 1
    let mut promoted = false;
    for &c in text.as_bytes() {
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
            bytes[Square::from_file_rank(file as u8, rank).index()] = code;
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

fn read_hand(text: &str, bytes: &mut Canonical) -> Result<(), String> {
    if text == "-" {
        return Ok(());
    }
    let mut count: u32 = 0;
    for &c in text.as_bytes() {
        if c.is_ascii_digit() {
            count = (count * 10 + (c - b'0') as u32).min(99);
            continue;
        }
        let (color, pt) = piece_of_letter(c).ok_or("an unknown piece letter in the hand")?;
        let i = PieceType::HAND
            .iter()
            .position(|&h| h == pt)
            .ok_or("a king in hand")?;
        let slot = &mut bytes[82 + color.index() * 7 + i];
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

/// A 64-bit hash of the canonical bytes (FNV-style mixing, finished with
/// the SplitMix64 avalanche): fast, stable across builds and platforms.
fn hash(bytes: &Canonical) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x0000_0100_0000_01b3);
        h = h.rotate_left(29);
    }
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
        ] {
            assert!(BookKey::from_sfen(bad).is_err(), "{bad}");
        }
    }
}
