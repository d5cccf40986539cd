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

use super::key::words;
use super::{Book, BookBuilder, BookKey, BookMove};
use crate::memory::fits_in_memory;
use crate::types::{Move, PieceType, Square, Value};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

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

/// Reads the book file at `path`. A large file is cut at `sfen` lines
/// into parts read on as many threads as there are cores (at most
/// `MAX_THREADS`): `isready` waits for it.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let start = Instant::now();
    let shown = path.display();
    let mut file = File::open(path).map_err(|e| format!("cannot open {shown}: {e}"))?;
    let len = file.metadata().map_or(0, |m| m.len());
    // While indexing, the table and its copy take up to about twice the
    // text (16 bytes a move line of 20 or more): refuse what cannot fit
    // rather than be killed half way.
    if !fits_in_memory(usize::try_from(len.saturating_mul(2)).unwrap_or(usize::MAX)) {
        return Err(format!(
            "{shown}: {} MiB is more than the free memory can index",
            len >> 20
        ));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bounds = part_bounds(&mut file, len, threads.min(MAX_THREADS));
    let parts: Vec<Result<Reader, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let (from, to) = (w[0], w[1]);
                scope.spawn(move || -> Result<Reader, String> {
                    let mut file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
                    file.seek(SeekFrom::Start(from))
                        .map_err(|e| format!("read error: {e}"))?;
                    let reader = Reader {
                        looks_like_a_book: i > 0, // later parts start at a `sfen` line
                        ..Reader::default()
                    };
                    read_part(file.take(to - from), reader)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("the reading thread failed".into()))
            })
            .collect()
    });
    let mut builder = BookBuilder::default();
    let (mut skipped, mut first_problem, mut lines_before) = (0, None, 0);
    for part in parts {
        let part = part.map_err(|e| format!("{shown}: {e}"))?;
        skipped += part.skipped;
        if first_problem.is_none() {
            first_problem = part
                .first_problem
                .map(|(line, why)| format!("line {}: {why}", line + lines_before));
        }
        lines_before += part.number;
        builder.append(part.builder);
    }
    Ok(Loaded {
        book: builder.finish(),
        skipped,
        first_problem,
        elapsed: start.elapsed(),
    })
}

/// Most threads `load` uses.
const MAX_THREADS: usize = 4;

/// Smallest part worth a thread of its own.
const MIN_PART_BYTES: u64 = 8 << 20;

/// Offsets cutting a file of `len` bytes into up to `parts` parts, each
/// after the first starting at a `sfen` line: `[0, …, len]`.
fn part_bounds(file: &mut File, len: u64, parts: usize) -> Vec<u64> {
    let parts = (len / MIN_PART_BYTES).clamp(1, parts.max(1) as u64);
    let mut bounds = vec![0];
    let mut window = vec![0u8; CHUNK_BYTES];
    for k in 1..parts {
        let guess = len / parts * k;
        let found = file.seek(SeekFrom::Start(guess)).is_ok().then(|| {
            let n = read_full(file, &mut window);
            window[..n]
                .windows(6)
                .position(|w| w == b"\nsfen ")
                .map(|i| guess + i as u64 + 1)
        });
        if let Some(Some(at)) = found {
            if at > *bounds.last().unwrap_or(&0) && at < len {
                bounds.push(at);
            }
        }
    }
    bounds.push(len);
    bounds
}

/// Reads as much of `buf` as `file` gives; the number of bytes read.
fn read_full(file: &mut File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// Bytes read at a time; also the longest line accepted (a longer one is
/// no book line, and reading it whole could exhaust memory on a binary
/// file).
const CHUNK_BYTES: usize = 1 << 20;

/// Reads a book from `input` (on this thread).
pub fn parse(input: impl Read) -> Result<Loaded, String> {
    let reader = read_part(input, Reader::default())?;
    Ok(Loaded {
        book: reader.builder.finish(),
        skipped: reader.skipped,
        first_problem: reader
            .first_problem
            .map(|(line, why)| format!("line {line}: {why}")),
        elapsed: Duration::ZERO,
    })
}

/// Reads `input` into `reader`, a chunk at a time, line by line.
fn read_part(mut input: impl Read, mut reader: Reader) -> Result<Reader, String> {
    let mut buf = vec![0u8; CHUNK_BYTES];
    let mut filled = 0;
    let mut skipping_long_line = false;
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("read error: {e}")),
        };
        filled += n;
        let mut start = 0;
        while let Some(i) = buf[start..filled].iter().position(|&b| b == b'\n') {
            if skipping_long_line {
                skipping_long_line = false;
            } else {
                reader.line(&buf[start..start + i])?;
            }
            start += i + 1;
        }
        if n == 0 {
            if start < filled && !skipping_long_line {
                reader.line(&buf[start..filled])?;
            }
            break;
        }
        if start == 0 && filled == buf.len() {
            // A whole chunk without a newline.
            if !skipping_long_line {
                reader.number += 1;
                reader.problem("line too long".into())?;
            }
            skipping_long_line = true;
            filled = 0;
            continue;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
    }
    Ok(reader)
}

/// Where the move lines being read go.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Current {
    /// No `sfen` line yet: a move line is an error.
    #[default]
    Nothing,
    /// To the position of the last `sfen` line.
    Position,
    /// Nowhere: the last `sfen` line was bad (already counted).
    Skipping,
}

/// The state of a book being read.
#[derive(Default)]
struct Reader {
    builder: BookBuilder,
    current: Current,
    /// Lines read so far.
    number: usize,
    /// Whether a header or `sfen` line has been seen.
    looks_like_a_book: bool,
    skipped: usize,
    /// Line number and why.
    first_problem: Option<(usize, String)>,
}

impl Reader {
    /// Reads one line (without its `\n`).
    fn line(&mut self, mut text: &[u8]) -> Result<(), String> {
        self.number += 1;
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
        if self.number == 1 {
            text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
        }
        match self.read(text) {
            Ok(()) => Ok(()),
            Err(why) => self.problem(why),
        }
    }

    /// Counts a malformed line; refuses the file if nothing so far made
    /// it look like a book.
    fn problem(&mut self, why: String) -> Result<(), String> {
        let number = self.number;
        if !self.looks_like_a_book {
            return Err(format!(
                "not a YaneuraOu book (expected '{HEADER}' or 'sfen …' first; line {number}: {why})"
            ));
        }
        self.skipped += 1;
        self.first_problem.get_or_insert((number, why));
        Ok(())
    }

    fn read(&mut self, text: &[u8]) -> Result<(), String> {
        if text.starts_with(b"#YANEURAOU-DB2016") {
            self.looks_like_a_book = true;
            return Ok(());
        }
        if text.starts_with(b"#")
            || text.starts_with(b"//")
            || text.iter().all(u8::is_ascii_whitespace)
        {
            return Ok(());
        }
        if let Some(sfen) = text.strip_prefix(b"sfen ") {
            self.current = Current::Skipping;
            let key = BookKey::from_sfen_bytes(sfen).map_err(|e| format!("bad sfen: {e}"))?;
            self.builder.add_position(key);
            self.current = Current::Position;
            self.looks_like_a_book = true;
            return Ok(());
        }
        match self.current {
            Current::Nothing => Err("a move line before any sfen line".into()),
            Current::Skipping => Ok(()),
            Current::Position => {
                self.builder.add_move(read_move(text)?);
                Ok(())
            }
        }
    }
}

/// Reads `move ponder value depth [count]`; missing numbers are 0 (count 1).
fn read_move(text: &[u8]) -> Result<BookMove, String> {
    let mut fields = words(text);
    let mv = fields.next().unwrap_or(b"");
    let mv = usi_move(mv).ok_or_else(|| format!("bad move '{}'", short(mv)))?;
    let ponder = match fields.next() {
        None | Some(b"none") => Move::NONE,
        Some(p) => usi_move(p).ok_or_else(|| format!("bad ponder '{}'", short(p)))?,
    };
    let mut number = |what: &str, default: i64| -> Result<i64, String> {
        match fields.next() {
            None => Ok(default),
            Some(w) => integer(w).ok_or_else(|| format!("bad {what} '{}'", short(w))),
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

/// A USI move from its bytes, like `parse_usi_move_text` without the
/// detour through `str` (two million of them in a large book).
fn usi_move(word: &[u8]) -> Option<Move> {
    let square = |f: u8, r: u8| {
        ((b'1'..=b'9').contains(&f) && (b'a'..=b'i').contains(&r))
            .then(|| Square::from_file_rank(f - b'1', r - b'a'))
    };
    match *word {
        [p, b'*', f, r] => {
            let pt = PieceType::from_letter(p).filter(|&pt| pt != PieceType::King)?;
            Some(Move::drop(pt, square(f, r)?))
        }
        [f1, r1, f2, r2] => Some(Move::normal(square(f1, r1)?, square(f2, r2)?, false)),
        [f1, r1, f2, r2, b'+'] => Some(Move::normal(square(f1, r1)?, square(f2, r2)?, true)),
        _ => None,
    }
}

/// A decimal integer, optionally signed; saturates instead of overflowing.
fn integer(word: &[u8]) -> Option<i64> {
    let (negative, digits) = match word {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, word),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits.iter().fold(0i64, |n, &d| {
        n.saturating_mul(10).saturating_add((d - b'0') as i64)
    });
    Some(if negative { -n } else { n })
}

fn short(text: &[u8]) -> String {
    crate::usi::output::shorten(&String::from_utf8_lossy(text), 20)
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
    use crate::position::{parse_usi_move_text, Position};

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

    const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

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
        let endless = parse(std::io::repeat(0).take(10 << 20)).unwrap_err();
        assert!(endless.contains("line 1: line too long"), "{endless}");
        let long = format!(
            "{HEADER}\n{}\nsfen {}\n7g7f none 0 0\n",
            "#".repeat(3 << 20),
            START
        );
        let loaded = parse(long.as_bytes()).unwrap();
        assert_eq!((loaded.skipped, loaded.book.positions()), (1, 1));
        assert!(loaded
            .first_problem
            .unwrap()
            .starts_with("line 2: line too long"));
        let empty = parse("".as_bytes()).unwrap();
        assert_eq!(empty.book.positions(), 0);
    }

    #[test]
    fn moves_read_as_the_rules_core_reads_them() {
        for text in [
            "7g7f", "8h2b+", "P*5e", "G*1a", "1i9a", "9a1i+", "K*5e", "7g7", "0a1a", "1j1a",
            "7g7f=", "x*5e", "P*5", "",
        ] {
            assert_eq!(
                usi_move(text.as_bytes()),
                parse_usi_move_text(text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_file_read_in_parts_reads_as_a_whole() {
        let mut text = Vec::new();
        crate::book::make::synth(150_000, 9, &mut text).unwrap();
        text.extend_from_slice(b"7g7f none bad 0\n");
        let path = std::env::temp_dir().join(format!("ryuo-parts-{}.db", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let mut file = File::open(&path).unwrap();
        assert_eq!(part_bounds(&mut file, text.len() as u64, 4).len(), 3);
        let parts = load(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let whole = parse(&text[..]).unwrap();
        assert_eq!(parts.book.positions(), 150_000);
        assert_eq!(parts.book.positions(), whole.book.positions());
        assert_eq!(parts.book.move_count(), whole.book.move_count());
        assert_eq!(parts.skipped, 1);
        assert_eq!(parts.first_problem, whole.first_problem);
        assert_eq!(parts.book.keys, whole.book.keys);
        assert_eq!(parts.book.moves, whole.book.moves);
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
