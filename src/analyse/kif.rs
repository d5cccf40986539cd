//! KIF as ShogiGUI, Shogidokoro and ShogiHome save it: header lines
//! `key：value` (`手合割：平手`), optionally a board diagram (BOD: `|` rows,
//! `先手の持駒：`, `後手番`), then numbered move lines
//! `   1 ７六歩(77)   ( 0:01/00:00:01)` whose origin square is written in
//! parentheses (`同　歩(23)` for a capture on the last move's square,
//! `打` for a drop, `成`/`不成` for promotion), comments `*`/`#`, and an
//! end line (`投了`, `まで77手で先手の勝ち`). Variations (`変化：`) are
//! skipped: the main line is the game.

use super::record::{play, Format, Record, RecordError, RecordMove, Setup};
use crate::position::Position;
use crate::types::{Color, Move, Piece, PieceType, Square};

/// Piece names as a move writes them, the two-character ones first.
const MOVE_NAMES: [(&str, PieceType); 18] = [
    ("成香", PieceType::ProLance),
    ("成桂", PieceType::ProKnight),
    ("成銀", PieceType::ProSilver),
    ("歩", PieceType::Pawn),
    ("香", PieceType::Lance),
    ("桂", PieceType::Knight),
    ("銀", PieceType::Silver),
    ("金", PieceType::Gold),
    ("角", PieceType::Bishop),
    ("飛", PieceType::Rook),
    ("玉", PieceType::King),
    ("王", PieceType::King),
    ("と", PieceType::ProPawn),
    ("杏", PieceType::ProLance),
    ("圭", PieceType::ProKnight),
    ("全", PieceType::ProSilver),
    ("馬", PieceType::Horse),
    ("龍", PieceType::Dragon),
];

/// Words that end the game in place of a move.
const END_WORDS: [&str; 14] = [
    "投了",
    "中断",
    "千日手",
    "持将棋",
    "詰み",
    "切れ負け",
    "反則勝ち",
    "反則負け",
    "入玉勝ち",
    "不詰",
    "不戦勝",
    "不戦敗",
    "封じ手",
    "宣言勝ち",
];

/// The start positions of the `手合割` names (handicaps: the upper hand,
/// White, moves first).
const HANDICAPS: [(&str, &str); 11] = [
    (
        "平手",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ),
    (
        "香落ち",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "右香落ち",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "角落ち",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛車落ち",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛香落ち",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "二枚落ち",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "四枚落ち",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "六枚落ち",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "八枚落ち",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "十枚落ち",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
];

/// What the lines before the first move said about the start position.
struct Header {
    /// `手合割`, with the line it was on.
    handicap: Option<(String, usize)>,
    /// A board diagram being read.
    board: Setup,
    /// Board rows read (a diagram has nine).
    rows: u8,
    /// Line of the last diagram line, for errors.
    board_line: usize,
}

impl Header {
    /// The start position: the diagram when there is one, else the
    /// handicap (even game by default).
    fn start(&self) -> Result<Position, RecordError> {
        if self.rows > 0 {
            if self.rows != 9 {
                return Err(RecordError::at(
                    self.board_line,
                    format!("the board diagram has {} rows, not 9", self.rows),
                ));
            }
            return self.board.position(self.board_line);
        }
        let (name, line) = self
            .handicap
            .clone()
            .unwrap_or_else(|| ("平手".to_string(), 0));
        let sfen = HANDICAPS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                RecordError::at(
                    line,
                    format!("handicap '{name}' is not supported (give a board diagram)"),
                )
            })?;
        Position::from_sfen(sfen).map_err(|e| RecordError::at(line, e.to_string()))
    }
}

/// Parses a KIF record.
pub fn parse(text: &str) -> Result<Record, RecordError> {
    let mut header = Header {
        handicap: None,
        board: Setup::empty(),
        rows: 0,
        board_line: 0,
    };
    let mut game: Option<(Position, Position)> = None; // (start, current)
    let mut moves: Vec<RecordMove> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let l = raw.trim_start_matches('\u{feff}').trim_end();
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') || t.starts_with('*') || t.starts_with('&') {
            continue;
        }
        if t.starts_with("変化：") || t.starts_with("まで") {
            break;
        }
        if t.starts_with(|c: char| c.is_ascii_digit()) {
            if game.is_none() {
                let start = header.start()?;
                game = Some((start.clone(), start));
            }
            let Some((_, pos)) = game.as_mut() else {
                continue;
            };
            if !read_move_line(pos, &mut moves, t, line)? {
                break;
            }
            continue;
        }
        if game.is_some() {
            return Err(RecordError::at(
                line,
                format!("not a move, comment or end line: '{t}'"),
            ));
        }
        read_header_line(&mut header, t, line)?;
    }
    let start = match game {
        Some((start, _)) => start,
        // A file of `key：value` lines alone is not taken for a game.
        None if header.handicap.is_none() && header.rows == 0 => {
            return Err(RecordError::at(
                0,
                "not a game record: no USI line, CSA statement, KIF header or move found",
            ))
        }
        None => header.start()?,
    };
    Ok(Record {
        format: Format::Kif,
        start,
        moves,
    })
}

/// A line before the moves: header, board diagram, or an error.
fn read_header_line(h: &mut Header, t: &str, line: usize) -> Result<(), RecordError> {
    if let Some(row) = t.strip_prefix('|') {
        h.board_line = line;
        if h.rows >= 9 {
            return Err(RecordError::at(line, "more than nine board rows"));
        }
        board_row(&mut h.board, h.rows, row).map_err(|m| RecordError::at(line, m))?;
        h.rows += 1;
        return Ok(());
    }
    if t.starts_with('+') || t.starts_with('９') || t.starts_with("手数") {
        return Ok(()); // diagram frame, file labels, the moves' heading
    }
    match t {
        "先手番" | "下手番" => h.board.side = Color::Black,
        "後手番" | "上手番" => h.board.side = Color::White,
        _ => {
            let Some((key, value)) = t.split_once('：') else {
                return Err(RecordError::at(line, format!("not a KIF line: '{t}'")));
            };
            let value = value.trim();
            match key.trim() {
                "手合割" => h.handicap = Some((value.to_string(), line)),
                "先手の持駒" | "下手の持駒" => {
                    hand(&mut h.board, Color::Black, value).map_err(|m| RecordError::at(line, m))?
                }
                "後手の持駒" | "上手の持駒" => {
                    hand(&mut h.board, Color::White, value).map_err(|m| RecordError::at(line, m))?
                }
                _ => {} // 開始日時, 先手, 棋戦, …
            }
        }
    }
    Ok(())
}

/// The value of a kanji numeral 一…九, 十…十八 (counts in hand).
fn kanji_number(s: &str) -> Option<u32> {
    const DIGITS: &str = "一二三四五六七八九";
    let digit = |c: char| DIGITS.chars().position(|d| d == c).map(|i| i as u32 + 1);
    let mut chars = s.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (None, _, _) => Some(1),
        (Some('十'), None, _) => Some(10),
        (Some('十'), Some(c), None) => digit(c).map(|d| 10 + d),
        (Some(c), None, _) => digit(c),
        _ => None,
    }
}

/// The single-character piece names of a diagram and of hands.
fn diagram_piece(c: char) -> Option<PieceType> {
    MOVE_NAMES
        .iter()
        .find(|(n, _)| n.chars().count() == 1 && n.starts_with(c))
        .map(|(_, pt)| *pt)
        .or(match c {
            '竜' => Some(PieceType::Dragon),
            _ => None,
        })
}

/// `角　歩二` (or `なし`): the pieces in `c`'s hand.
fn hand(s: &mut Setup, c: Color, value: &str) -> Result<(), String> {
    if value == "なし" || value.is_empty() {
        return Ok(());
    }
    for item in value.split(|ch: char| ch.is_whitespace() || ch == '、') {
        let mut chars = item.chars();
        let Some(first) = chars.next() else {
            continue;
        };
        let pt = diagram_piece(first)
            .filter(|pt| PieceType::HAND.contains(pt))
            .ok_or_else(|| format!("'{item}' is not a piece in hand"))?;
        let n = kanji_number(chars.as_str()).ok_or_else(|| format!("bad count in '{item}'"))?;
        s.hands[c.index()][pt.index()] += n;
    }
    Ok(())
}

/// A diagram row after its `|`: nine cells of a side mark (` ` or `v`)
/// and a piece or `・`, files 9 to 1.
fn board_row(s: &mut Setup, rank: u8, row: &str) -> Result<(), String> {
    let mut chars = row.chars();
    for file in (0..9u8).rev() {
        let (Some(mark), Some(name)) = (chars.next(), chars.next()) else {
            return Err("a board row needs nine cells".into());
        };
        let sq = Square::from_file_rank(file, rank);
        s.board[sq.index()] = match name {
            '・' => Piece::EMPTY,
            _ => {
                let pt = diagram_piece(name).ok_or_else(|| format!("unknown piece '{name}'"))?;
                let c = match mark {
                    'v' | 'V' => Color::White,
                    _ => Color::Black,
                };
                Piece::new(c, pt)
            }
        };
    }
    Ok(())
}

/// A file or rank digit: ASCII, full-width or (ranks) kanji.
fn digit(c: char) -> Option<u8> {
    let n = match c {
        '1'..='9' => c as u32 - '0' as u32,
        '１'..='９' => c as u32 - '０' as u32,
        _ => "一二三四五六七八九".chars().position(|d| d == c)? as u32 + 1,
    };
    Some(n as u8)
}

/// Reads `  12 ７六歩(77)   ( 0:01/00:00:01)`; plays the move. `Ok(false)`
/// for an end word (`投了`, …): the game is over.
fn read_move_line(
    pos: &mut Position,
    moves: &mut Vec<RecordMove>,
    t: &str,
    line: usize,
) -> Result<bool, RecordError> {
    let body = t
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    if END_WORDS.iter().any(|w| body.starts_with(w)) {
        return Ok(false);
    }
    let err = |m: String| RecordError::at(line, m);
    let (mv, consumed) = parse_move(pos, moves.last().map(|m| m.mv), body).map_err(&err)?;
    let text = body[..consumed].trim_end();
    play(pos, moves, mv, text, line)?;
    Ok(true)
}

/// The move written at the start of `body`, and how many bytes it took.
fn parse_move(pos: &Position, last: Option<Move>, body: &str) -> Result<(Move, usize), String> {
    let bad = || format!("not a KIF move: '{body}'");
    let mut rest = body;
    // Destination: `７六`, or `同` (the last move's square).
    let to = if let Some(r) = rest.strip_prefix('同') {
        rest = r.trim_start_matches([' ', '\u{3000}']);
        last.filter(|m| m.is_some())
            .map(Move::to)
            .ok_or_else(|| format!("'同' with no move before it: '{body}'"))?
    } else {
        let mut chars = rest.chars();
        let (Some(f), Some(r)) = (chars.next(), chars.next()) else {
            return Err(bad());
        };
        let (f, r) = (digit(f).ok_or_else(bad)?, digit(r).ok_or_else(bad)?);
        rest = chars.as_str();
        Square::from_file_rank(f - 1, r - 1)
    };
    // The piece as it stands before the move.
    let (name, pt) = MOVE_NAMES
        .iter()
        .chain(&[("竜", PieceType::Dragon)])
        .find(|(n, _)| rest.starts_with(n))
        .ok_or_else(bad)?;
    rest = &rest[name.len()..];
    // Relative qualifiers (左, 右, …) say nothing the origin does not.
    rest = rest.trim_start_matches(['左', '右', '上', '引', '寄', '直', '行', '入']);
    let (promote, drop) = if let Some(r) = rest.strip_prefix("不成") {
        rest = r;
        (false, false)
    } else if let Some(r) = rest.strip_prefix('生') {
        rest = r;
        (false, false)
    } else if let Some(r) = rest.strip_prefix('成') {
        rest = r;
        (true, false)
    } else if let Some(r) = rest.strip_prefix('打') {
        rest = r;
        (false, true)
    } else {
        (false, false)
    };
    let from = match rest.strip_prefix('(') {
        Some(r) => {
            let b = r.as_bytes();
            match b {
                [f @ b'1'..=b'9', rk @ b'1'..=b'9', b')', ..] => {
                    rest = &r[3..];
                    Some(Square::from_file_rank(f - b'1', rk - b'1'))
                }
                _ => return Err(bad()),
            }
        }
        None => None,
    };
    let consumed = body.len() - rest.len();
    let mv = match from {
        Some(_) if drop => return Err(format!("a drop with an origin square: '{body}'")),
        Some(from) => {
            let on = pos.piece_on(from);
            if on.piece_type() != Some(*pt) || on.color() != pos.side_to_move() {
                return Err(format!(
                    "the record moves {name} from {from}, which holds {}: '{body}'",
                    if on.is_empty() {
                        "nothing".to_string()
                    } else {
                        on.sfen()
                    }
                ));
            }
            Move::normal(from, to, promote)
        }
        // No origin: a drop (`打`, or a drop written without it).
        None if !promote && PieceType::HAND.contains(pt) => Move::drop(*pt, to),
        None => return Err(format!("no origin square '(..)': '{body}'")),
    };
    Ok((mv, consumed))
}

#[cfg(test)]
mod tests {
    use super::super::record::{detect, parse_bytes};
    use super::*;

    const GAME: &str = "\u{feff}# ---- ShogiHome 棋譜ファイル ----\n\
開始日時：2024/01/01 10:00:00\n\
手合割：平手\n\
先手：先手さん\n\
後手：後手さん\n\
手数----指手---------消費時間--\n\
   1 ７六歩(77)   ( 0:01/00:00:01)\n\
*初手のコメント\n\
   2 ３四歩(33)   ( 0:02/00:00:02)\n\
   3 ２二角成(88)   ( 0:01/00:00:02)\n\
   4 同　銀(31)   ( 0:01/00:00:03)\n\
   5 ４五角打   ( 0:01/00:00:04)+\n\
   6 ３三銀(22)   ( 0:01/00:00:04)\n\
   7 ３四角(45)   ( 0:01/00:00:05)\n\
   8 ４二玉(51)   ( 0:01/00:00:05)\n\
   9 ２三角不成(34)   ( 0:01/00:00:06)\n\
  10 投了   ( 0:01/00:00:07)\n\
まで9手で先手の勝ち\n\
\n\
変化：5手\n\
   5 ６五角打   ( 0:01/00:00:04)\n";

    fn usi(r: &Record) -> Vec<String> {
        r.moves.iter().map(|m| m.mv.to_string()).collect()
    }

    #[test]
    fn reads_utf8() {
        assert_eq!(detect(GAME), Format::Kif);
        let r = parse(GAME).unwrap();
        assert_eq!(
            usi(&r),
            ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "2b3c", "4e3d", "5a4b", "3d2c"]
        );
        assert_eq!(r.moves[3].text, "同　銀(31)");
        assert_eq!(r.moves[4].text, "４五角打");
        assert_eq!(r.moves[8].text, "２三角不成(34)");
        assert_eq!(r.moves[0].line, 7);
        assert_eq!(r.start.to_sfen(), crate::position::STARTPOS_SFEN);
    }

    #[test]
    fn reads_shift_jis() {
        let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(GAME.trim_start_matches('\u{feff}'));
        assert!(!bad);
        assert!(std::str::from_utf8(&bytes).is_err());
        let r = parse_bytes(&bytes).unwrap();
        assert_eq!(r.format, Format::Kif);
        assert_eq!(usi(&r).len(), 9);
        assert_eq!(r.moves[3].text, "同　銀(31)");
    }

    #[test]
    fn reads_a_board_diagram() {
        let text = "後手の持駒：飛　歩十八\n\
  ９ ８ ７ ６ ５ ４ ３ ２ １\n\
+---------------------------+\n\
| ・ ・ ・ ・v玉 ・ ・ ・ ・|一\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二\n\
| ・ ・ ・ ・ 金 ・ ・ ・ ・|三\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|四\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七\n\
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八\n\
| ・ ・ ・ ・ 玉 ・ ・ ・ 龍|九\n\
+---------------------------+\n\
先手の持駒：金二\n\
先手番\n\
手数----指手---------消費時間--\n\
   1 ５二金打\n\
まで1手で先手の勝ち\n";
        let r = parse(text).unwrap();
        assert_eq!(r.start.to_sfen(), "4k4/9/4G4/9/9/9/9/9/4K3+R b 2Gr18p 1");
        assert_eq!(usi(&r), ["G*5b"]);
    }

    #[test]
    fn promotion_and_handicap() {
        let text = "手合割：角落ち\n   1 ３四歩(33)\n   2 ２六歩(27)\n";
        let r = parse(text).unwrap();
        assert_eq!(r.start.side_to_move(), Color::White);
        assert_eq!(usi(&r), ["3c3d", "2g2f"]);
        let text = "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　金(41)\n";
        assert!(parse(text).is_err(), "a gold does not move so");
    }

    #[test]
    fn errors() {
        // Illegal move: names the line.
        let e = parse("手合割：平手\n   1 ７五歩(77)\n").err().unwrap();
        assert_eq!(e.line, 2, "{e}");
        // The wrong piece at the origin.
        let e = parse("   1 ７六銀(77)\n").err().unwrap();
        assert!(e.message.contains("holds"), "{e}");
        // 同 with no move before it, garbage, unknown handicap.
        assert!(parse("   1 同　歩(77)\n").is_err());
        assert!(parse("こんにちは\n").is_err());
        assert!(parse("   1 xyz\n").is_err());
        assert!(parse("   1 ７六歩(7\n").is_err());
        assert!(parse("   1 ７六歩(77)\nfoo\n").is_err());
        assert!(parse("手合割：謎落ち\n   1 ７六歩(77)\n").is_err());
        assert!(parse("| ・ ・|一\n").is_err());
        assert!(parse("先手の持駒：象\n").is_err());
        assert!(parse("root:x:0:0:root:/root:/bin/bash\n").is_err());
        assert!(parse("先手：誰か\n").is_err());
        assert!(parse("手合割：平手\n").is_ok());
    }

    #[test]
    fn kanji_numbers() {
        assert_eq!(kanji_number(""), Some(1));
        assert_eq!(kanji_number("九"), Some(9));
        assert_eq!(kanji_number("十"), Some(10));
        assert_eq!(kanji_number("十八"), Some(18));
        assert_eq!(kanji_number("百"), None);
    }
}
