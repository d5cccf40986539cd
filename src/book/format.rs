//! YaneuraOu's text book format, read and written.
//!
//! ```text
//! #YANEURAOU-DB2016 1.00
//! sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
//! 7g7f 3c3d 30 20 12
//! 2g2f none 25 20 8
//! ```
//!
//! A `sfen` line (the ply number may be left out) is followed by its moves,
//! one a line: `move ponder value depth [count]`, `ponder` being `none`
//! when there is none and `value` the score for the side to move. Lines
//! starting with `#` or `//` are comments. A malformed line is skipped (a
//! bad `sfen` line takes its moves with it) and counted, so one typo does
//! not lose a whole book; a file that does not look like a book at all is
//! refused.

use super::{Book, BookBuilder, BookKey, BookMove};
use crate::position::parse_usi_move_text;
use crate::types::{Move, Value};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// Longest line read; a longer one is not a book line (and reading it
/// whole could exhaust memory on a binary file).
const MAX_LINE_BYTES: u64 = 64 << 10;

/// Largest score kept; larger ones (some books write mate as 100000) are
/// clamped to it.
const MAX_VALUE: Value = 32_000;

/// A book read from a file, with what was wrong in it.
#[derive(Debug)]
pub struct Loaded {
    /// The positions read.
    pub book: Book,
    /// Lines skipped as malformed.
    pub skipped: usize,
    /// The first of them: line number and why.
    pub first_problem: Option<String>,
    /// Time taken to read and index the file.
    pub elapsed: Duration,
}

/// Reads the book file at `path`.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let start = Instant::now();
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut loaded = parse(BufReader::with_capacity(1 << 20, file))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    loaded.elapsed = start.elapsed();
    Ok(loaded)
}

/// Reads a book from `input`.
pub fn parse(mut input: impl BufRead) -> Result<Loaded, String> {
    let mut builder = BookBuilder::default();
    let mut skipped = 0;
    let mut first_problem = None;
    let mut current = Current::Nothing;
    let mut looks_like_a_book = false;
    let mut buf = Vec::with_capacity(256);
    let mut number = 0usize;
    loop {
        buf.clear();
        let n = Read::take(&mut input, MAX_LINE_BYTES)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("read error: {e}"))?;
        if n == 0 {
            break;
        }
        number += 1;
        let outcome = if buf.len() as u64 >= MAX_LINE_BYTES && !buf.ends_with(b"\n") {
            Err("line too long".to_string())
        } else {
            match std::str::from_utf8(&buf) {
                Ok(text) => read_line(text, number, &mut builder, &mut current),
                Err(_) => Err("not UTF-8 text".to_string()),
            }
        };
        match outcome {
            Ok(Line::Header) | Ok(Line::Position) => looks_like_a_book = true,
            Ok(Line::Other) => {}
            Err(why) => {
                if !looks_like_a_book {
                    return Err(format!(
                        "not a YaneuraOu book (expected '{HEADER}' or 'sfen …' first; line {number}: {why})"
                    ));
                }
                skipped += 1;
                first_problem.get_or_insert_with(|| format!("line {number}: {why}"));
            }
        }
        if buf.len() as u64 >= MAX_LINE_BYTES && !buf.ends_with(b"\n") {
            skip_rest_of_line(&mut input).map_err(|e| format!("read error: {e}"))?;
        }
    }
    Ok(Loaded {
        book: builder.finish(),
        skipped,
        first_problem,
        elapsed: Duration::ZERO,
    })
}

/// What a line was.
enum Line {
    /// The `#YANEURAOU-DB2016` header.
    Header,
    /// A `sfen` line.
    Position,
    /// A move, a comment or a blank line.
    Other,
}

/// Where the move lines being read go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Current {
    /// No `sfen` line yet: a move line is an error.
    Nothing,
    /// To the position of the last `sfen` line.
    Position,
    /// Nowhere: the last `sfen` line was bad (already counted).
    Skipping,
}

fn read_line(
    text: &str,
    number: usize,
    builder: &mut BookBuilder,
    current: &mut Current,
) -> Result<Line, String> {
    let text = text.trim_end_matches(['\n', '\r']);
    let text = if number == 1 {
        text.trim_start_matches('\u{feff}')
    } else {
        text
    };
    if text.starts_with("#YANEURAOU-DB2016") {
        return Ok(Line::Header);
    }
    if text.starts_with('#') || text.starts_with("//") || text.trim().is_empty() {
        return Ok(Line::Other);
    }
    if let Some(sfen) = text.strip_prefix("sfen ") {
        *current = Current::Skipping;
        let key = BookKey::from_sfen(sfen).map_err(|e| format!("bad sfen: {e}"))?;
        builder.add_position(key);
        *current = Current::Position;
        return Ok(Line::Position);
    }
    match current {
        Current::Nothing => Err("a move line before any sfen line".into()),
        Current::Skipping => Ok(Line::Other),
        Current::Position => {
            builder.add_move(read_move(text)?);
            Ok(Line::Other)
        }
    }
}

/// Reads `move ponder value depth [count]`; missing numbers are 0 (count 1).
fn read_move(text: &str) -> Result<BookMove, String> {
    let mut fields = text.split_ascii_whitespace();
    let word = fields.next().unwrap_or("");
    let mv = parse_usi_move_text(word).ok_or_else(|| format!("bad move '{}'", short(word)))?;
    let ponder = match fields.next() {
        None | Some("none") => Move::NONE,
        Some(p) => parse_usi_move_text(p).ok_or_else(|| format!("bad ponder '{}'", short(p)))?,
    };
    let mut number = |what: &str, default: i64| -> Result<i64, String> {
        match fields.next() {
            None => Ok(default),
            Some(w) => w
                .parse::<i64>()
                .map_err(|_| format!("bad {what} '{}'", short(w))),
        }
    };
    let value = number("value", 0)?.clamp(-MAX_VALUE as i64, MAX_VALUE as i64) as Value;
    let depth = number("depth", 0)?.clamp(0, u16::MAX as i64) as u16;
    let count = number("count", 1)?.clamp(0, u32::MAX as i64) as u32;
    Ok(BookMove {
        mv,
        ponder,
        value,
        depth,
        count,
    })
}

fn short(text: &str) -> String {
    crate::usi::options::shorten(text, 20)
}

fn skip_rest_of_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let len = chunk.len();
                input.consume(len);
            }
        }
    }
}

/// Writes the header.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{HEADER}")
}

/// Writes one position (`sfen` as `Position::to_sfen` gives it) and its moves.
pub fn write_position(out: &mut impl Write, sfen: &str, moves: &[BookMove]) -> io::Result<()> {
    writeln!(out, "sfen {sfen}")?;
    for m in moves {
        let ponder = if m.ponder.is_some() {
            m.ponder.to_string()
        } else {
            "none".to_string()
        };
        writeln!(out, "{} {ponder} {} {} {}", m.mv, m.value, m.depth, m.count)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    const SMALL: &str = "\u{feff}#YANEURAOU-DB2016 1.00\r
# a comment
// another
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\r
7g7f 3c3d 30 20 12\r
2g2f none 25 20\r
\r
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w -
3c3d none 0 0 3
";

    #[test]
    fn a_small_book_reads_whole() {
        let loaded = parse(SMALL.as_bytes()).unwrap();
        assert_eq!((loaded.skipped, loaded.book.positions()), (0, 2));
        let moves = loaded.book.lookup(&Position::startpos(), false);
        assert_eq!(moves.len(), 2);
        assert_eq!(moves[0].mv.to_string(), "7g7f");
        assert_eq!(moves[0].ponder.to_string(), "3c3d");
        assert_eq!(
            (moves[0].value, moves[0].depth, moves[0].count),
            (30, 20, 12)
        );
        assert_eq!((moves[1].ponder, moves[1].count), (Move::NONE, 1));
    }

    #[test]
    fn bad_lines_are_skipped_and_counted() {
        let text = format!(
            "{SMALL}sfen nonsense b -\n7g7f none 0 0 1\nsfen 9/9/9/9/9/9/9/9/4K4 b -\n1a1b+x none 0 0\n5i5h none abc 0 1\n"
        );
        let loaded = parse(text.as_bytes()).unwrap();
        assert_eq!(loaded.skipped, 3, "{:?}", loaded.first_problem);
        assert_eq!(loaded.book.positions(), 2);
        assert!(loaded
            .first_problem
            .unwrap()
            .starts_with("line 10: bad sfen"));
    }

    #[test]
    fn what_is_not_a_book_is_refused() {
        assert!(parse(&b"\x7fELF\x02\x01\x01\0\0\0"[..]).is_err());
        assert!(parse("hello world\n".as_bytes()).is_err());
        let empty = parse("".as_bytes()).unwrap();
        assert_eq!(empty.book.positions(), 0);
    }

    #[test]
    fn what_is_written_reads_back() {
        let mut text = Vec::new();
        write_header(&mut text).unwrap();
        let pos = Position::startpos();
        let m = BookMove {
            mv: pos.parse_usi_move("2g2f").unwrap(),
            ponder: Move::NONE,
            value: -5,
            depth: 3,
            count: 7,
        };
        write_position(&mut text, &pos.to_sfen(), &[m]).unwrap();
        let loaded = parse(&text[..]).unwrap();
        assert_eq!(loaded.book.lookup(&pos, false), vec![m]);
    }
}
