//! A game record as read from a file: the start position and the moves,
//! each checked for legality as it is read. The format (USI line, CSA,
//! KIF) is detected from the text; the bytes may be UTF-8 (with or
//! without a BOM) or Shift_JIS (CP932), as Japanese GUIs save KIF.

use super::{csa, kif};
use crate::position::Position;
use crate::types::{Color, Move, Piece, PieceType, Square};
use std::fmt;

/// The formats `ryuo analyse` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `position startpos moves …`, `sfen … moves …` on the first line.
    Usi,
    /// CSA standard game record (`+7776FU`).
    Csa,
    /// KIF as ShogiGUI, Shogidokoro and ShogiHome save it (`７六歩(77)`).
    Kif,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Usi => "USI",
            Format::Csa => "CSA",
            Format::Kif => "KIF",
        })
    }
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The move, legal in the position before it.
    pub mv: Move,
    /// The move as the record writes it (`７六歩(77)`, `+7776FU`, `7g7f`).
    pub text: String,
    /// 1-based line of the record it was read from.
    pub line: usize,
}

/// A game: where it starts and the moves played.
#[derive(Clone)]
pub struct Record {
    /// Which format it was read from.
    pub format: Format,
    /// The position before the first move.
    pub start: Position,
    /// The moves in order, each legal where it was played.
    pub moves: Vec<RecordMove>,
}

/// Why a record could not be read; `line` is 1-based, 0 when the problem
/// is the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// Where the problem is.
    pub line: usize,
    /// What it is.
    pub message: String,
}

impl RecordError {
    /// An error at `line`.
    pub fn at(line: usize, message: impl Into<String>) -> RecordError {
        RecordError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for RecordError {}

/// The text of a record file: UTF-8 when the bytes are valid UTF-8 (a BOM
/// is dropped), Shift_JIS (CP932) otherwise. Never fails: a byte no
/// decoding accepts becomes U+FFFD and the parser reports that line.
pub fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::SHIFT_JIS
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

/// Decodes and parses a record file's bytes.
pub fn parse_bytes(bytes: &[u8]) -> Result<Record, RecordError> {
    parse(&decode(bytes))
}

/// Parses a record, detecting its format.
pub fn parse(text: &str) -> Result<Record, RecordError> {
    match detect(text) {
        Format::Usi => parse_usi(text),
        Format::Csa => csa::parse(text),
        Format::Kif => kif::parse(text),
    }
}

/// Guesses the format from the first meaningful line: a USI position
/// command, a CSA line (version, names, `$` fields, `P` position lines,
/// a move or a turn mark), else KIF.
pub fn detect(text: &str) -> Format {
    let first = text
        .lines()
        .map(|l| l.trim_start_matches('\u{feff}').trim())
        .find(|l| !l.is_empty() && !l.starts_with('\''));
    let Some(first) = first else {
        return Format::Kif;
    };
    let word = first.split_whitespace().next().unwrap_or("");
    if matches!(word, "position" | "startpos" | "sfen") {
        return Format::Usi;
    }
    let b = first.as_bytes();
    let csa = first == "+"
        || first == "-"
        || first.starts_with("V2")
        || first.starts_with("N+")
        || first.starts_with("N-")
        || first.starts_with('$')
        || (b.len() >= 2 && b[0] == b'P' && matches!(b[1], b'I' | b'1'..=b'9' | b'+' | b'-'))
        || (b.len() >= 7 && matches!(b[0], b'+' | b'-') && b[1..5].iter().all(u8::is_ascii_digit));
    if csa {
        Format::Csa
    } else {
        Format::Kif
    }
}

/// Reads a USI position line (the first non-empty line):
/// `[position] startpos|sfen <sfen> [moves m1 m2 …]`.
pub fn parse_usi(text: &str) -> Result<Record, RecordError> {
    let Some((index, line)) = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}').trim()))
        .find(|(_, l)| !l.is_empty())
    else {
        return Err(RecordError::at(0, "empty record"));
    };
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&"position") {
        words.remove(0);
    }
    let split = words
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(words.len());
    let start = match &words[..split] {
        ["startpos"] => Position::startpos(),
        ["sfen", sfen @ ..] if !sfen.is_empty() => Position::from_sfen(&sfen.join(" "))
            .map_err(|e| RecordError::at(index, format!("bad SFEN: {e}")))?,
        _ => {
            return Err(RecordError::at(
                index,
                "expected '[position] startpos|sfen <sfen> [moves ...]'",
            ))
        }
    };
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for (i, &w) in words.iter().enumerate().skip(split + 1) {
        let number = i - split;
        let mv = pos.parse_usi_move(w).ok_or_else(|| {
            RecordError::at(
                index,
                format!(
                    "move {number} '{w}' is not a legal move in {}",
                    pos.to_sfen()
                ),
            )
        })?;
        pos.do_move(mv);
        moves.push(RecordMove {
            mv,
            text: w.to_string(),
            line: index,
        });
    }
    Ok(Record {
        format: Format::Usi,
        start,
        moves,
    })
}

/// Plays `mv` on `pos` if it is legal; otherwise the error names the line
/// and the record's text. Shared by the CSA and KIF parsers.
pub(super) fn play(
    pos: &mut Position,
    moves: &mut Vec<RecordMove>,
    mv: Move,
    text: &str,
    line: usize,
) -> Result<(), RecordError> {
    pos.try_do_move(mv).map_err(|_| {
        RecordError::at(
            line,
            format!("'{text}' ({mv}) is not a legal move in {}", pos.to_sfen()),
        )
    })?;
    moves.push(RecordMove {
        mv,
        text: text.to_string(),
        line,
    });
    Ok(())
}

/// A start position being put together square by square (CSA `P1`…`P9`
/// lines, a KIF board diagram); `position` checks it as any SFEN is.
#[derive(Clone)]
pub(super) struct Setup {
    /// The piece on each square, by `Square::index`.
    pub board: [Piece; 81],
    /// Pieces in hand, by colour and `PieceType` index.
    pub hands: [[u32; PieceType::NUM]; 2],
    /// The side to move.
    pub side: Color,
}

impl Setup {
    /// An empty board, Black to move.
    pub fn empty() -> Setup {
        Setup {
            board: [Piece::EMPTY; 81],
            hands: [[0; PieceType::NUM]; 2],
            side: Color::Black,
        }
    }

    /// The even-game start position.
    pub fn even() -> Setup {
        let start = Position::startpos();
        let mut s = Setup::empty();
        for sq in Square::all() {
            s.board[sq.index()] = start.piece_on(sq);
        }
        s
    }

    /// The SFEN of the setup, with move number 1.
    pub fn sfen(&self) -> String {
        crate::position::write_sfen_with_counts(
            &self.board,
            |c, pt| self.hands[c.index()][pt.index()],
            self.side,
            1,
        )
    }

    /// The position, checked by the SFEN reader; errors name `line`.
    pub fn position(&self, line: usize) -> Result<Position, RecordError> {
        let sfen = self.sfen();
        Position::from_sfen(&sfen)
            .map_err(|e| RecordError::at(line, format!("bad start position {sfen}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_lines() {
        for text in [
            "position startpos moves 7g7f 3c3d 8h2b+",
            "startpos moves 7g7f 3c3d 8h2b+\n",
            "\n\nposition sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 8h2b+",
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 8h2b+",
        ] {
            assert_eq!(detect(text), Format::Usi, "{text}");
            let r = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let usi: Vec<String> = r.moves.iter().map(|m| m.mv.to_string()).collect();
            assert_eq!(usi, ["7g7f", "3c3d", "8h2b+"]);
        }
        let r = parse("startpos").unwrap();
        assert!(r.moves.is_empty());
    }

    #[test]
    fn usi_errors() {
        let e = parse("startpos moves 7g7f 7g7f").err().unwrap();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("move 2 '7g7f'"), "{e}");
        assert!(parse("position sfen garbage moves 7g7f").is_err());
        assert!(parse("position startpos moves xyz").is_err());
        assert!(parse_usi("").is_err());
    }

    #[test]
    fn decodes_utf8_bom_and_shift_jis() {
        assert_eq!(decode("手合割：平手".as_bytes()), "手合割：平手");
        assert_eq!(decode(b"\xEF\xBB\xBFabc"), "abc");
        // 手合割：平手 in CP932.
        let sjis = b"\x8e\xe8\x8d\x87\x8a\x84\x81\x46\x95\xbd\x8e\xe8";
        assert_eq!(decode(sjis), "手合割：平手");
    }

    #[test]
    fn setup_even_is_startpos() {
        assert_eq!(Setup::even().sfen(), crate::position::STARTPOS_SFEN);
        let mut s = Setup::empty();
        s.board[Square::from_file_rank(4, 0).index()] = Piece::new(Color::White, PieceType::King);
        s.board[Square::from_file_rank(4, 8).index()] = Piece::new(Color::Black, PieceType::King);
        s.hands[0][PieceType::Pawn.index()] = 2;
        s.hands[1][PieceType::Rook.index()] = 1;
        s.side = Color::White;
        assert_eq!(s.sfen(), "4k4/9/9/9/9/9/9/9/4K4 w 2Pr 1");
        assert!(s.position(3).is_ok());
    }

    /// Every prefix of the fixtures, and random mixes of record-like
    /// pieces, parse to a record or an error: never a panic.
    #[test]
    fn no_panics_on_damaged_records() {
        use rand::{Rng, SeedableRng};
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/analyse/");
        for name in ["game.kif", "game.csa", "game.usi"] {
            let bytes = std::fs::read(format!("{dir}{name}")).unwrap_or_default();
            for end in 0..=bytes.len() {
                let _ = parse_bytes(&bytes[..end]);
            }
        }
        // Record-like pieces, separated by tabs.
        let pieces: Vec<&str> = "\n\t \t　\t+\t-\tP1\tPI\tP+\t00AL\t7776\tFU\tTO\tRY\t%\t,\t\
            １\t九\t同\t歩\t成\t不成\t打\t(77)\t(\t)\t|\t ・\tv玉\t：\t手合割\t平手\t\
            の持駒\t十八\t先手番\tposition\tstartpos\tsfen\tmoves\t7g7f\tP*5e\t   1 \t投了\t\u{feff}\t\u{0}"
            .split('\t')
            .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let n = rng.gen_range(1..30);
            let text: String = (0..n)
                .map(|_| pieces[rng.gen_range(0..pieces.len())])
                .collect();
            let _ = parse(&text);
        }
    }

    #[test]
    fn garbage_is_an_error() {
        for text in [
            "hello world",
            "\u{0}\u{1}\u{2}",
            "+9999ZZ",
            "PI\n+\n+7776XX",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
        assert!(parse_bytes(&[0xff, 0xfe, 0x00, 0x81]).is_err());
    }
}
