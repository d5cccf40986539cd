//! The opening book: YaneuraOu's text format (`#YANEURAOU-DB2016 1.00`)
//! read into a compact table, probed by position, and the `ryuo book`
//! tools that build books.
//!
//! Positions are keyed by board, hands and side to move ([`key`]); the ply
//! number is ignored, so a book position matches at any ply (YaneuraOu's
//! `IgnoreBookPly` is always on). The table is a sorted array of keys with
//! the range of their moves: a binary search per probe, 12 bytes a
//! position and 16 a move, and no per-position allocation, so a book of a
//! million positions loads in a fraction of a second.
//!
//! Submodules: [`key`] (the position key), [`format`] (reading and writing
//! the text format), [`select`] (the options that filter the candidates
//! and the choice among them), [`make`] (`ryuo book` commands).

pub mod format;
pub mod key;
pub mod make;
pub mod select;

use crate::position::Position;
use crate::types::{Move, Value};
pub use key::BookKey;
pub use select::{BookSettings, Candidate};

/// One move of a book position, as the file gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move (checked for legality only when probed).
    pub mv: Move,
    /// The expected reply, `Move::NONE` for `none`.
    pub ponder: Move,
    /// Score for the side to move, centipawns.
    pub value: Value,
    /// Depth of the search that gave `value` (0 when unknown).
    pub depth: u16,
    /// How often the move was played or chosen (1 when the file omits it).
    pub count: u32,
}

/// A loaded book: positions sorted by key, each with a range of moves.
#[derive(Clone, Debug, Default)]
pub struct Book {
    keys: Vec<BookKey>,
    /// `starts[i]..starts[i + 1]` are the moves of `keys[i]`.
    starts: Vec<u32>,
    moves: Vec<BookMove>,
}

impl Book {
    /// Builds the table from positions in any order, each with its moves
    /// (repeated positions are merged as [`BookBuilder`] does).
    pub fn from_entries(entries: Vec<(BookKey, Vec<BookMove>)>) -> Book {
        let mut builder = BookBuilder::default();
        for (key, moves) in entries {
            builder.add_position(key);
            for m in moves {
                builder.add_move(m);
            }
        }
        builder.finish()
    }

    /// Number of positions.
    pub fn positions(&self) -> usize {
        self.keys.len()
    }

    /// Number of moves over all positions.
    pub fn move_count(&self) -> usize {
        self.moves.len()
    }

    /// The moves stored for `key` (empty when the position is not in the book).
    pub fn moves_of(&self, key: BookKey) -> &[BookMove] {
        match self.keys.binary_search(&key) {
            Ok(i) => &self.moves[self.starts[i] as usize..self.starts[i + 1] as usize],
            Err(_) => &[],
        }
    }

    /// The moves for `pos` as stored (not yet checked for legality); with
    /// `flipped`, when `pos` itself is missing, those of the colour-flipped
    /// position with their moves flipped back.
    pub fn lookup(&self, pos: &Position, flipped: bool) -> Vec<BookMove> {
        let direct = self.moves_of(BookKey::of(pos, false));
        if !direct.is_empty() || !flipped {
            return direct.to_vec();
        }
        self.moves_of(BookKey::of(pos, true))
            .iter()
            .map(|m| BookMove {
                mv: flip_move(m.mv),
                ponder: flip_move(m.ponder),
                ..*m
            })
            .collect()
    }
}

/// Collects positions in file order, then sorts them into a [`Book`].
/// Repeated positions are merged: their moves are concatenated in file
/// order, a move already listed being kept once (its first entry wins).
#[derive(Default)]
pub struct BookBuilder {
    /// Each position: key, first move, number of moves.
    index: Vec<(BookKey, u32, u32)>,
    moves: Vec<BookMove>,
}

impl BookBuilder {
    /// Starts a position; the moves added next are its moves.
    pub fn add_position(&mut self, key: BookKey) {
        self.index.push((key, self.moves.len() as u32, 0));
    }

    /// Adds a move to the last position started (ignored before any).
    pub fn add_move(&mut self, m: BookMove) {
        if let Some(last) = self.index.last_mut() {
            self.moves.push(m);
            last.2 += 1;
        }
    }

    /// Appends what `other` collected, as if read after this.
    pub fn append(&mut self, other: BookBuilder) {
        let offset = self.moves.len() as u32;
        self.index.extend(
            other
                .index
                .into_iter()
                .map(|(key, first, len)| (key, first + offset, len)),
        );
        self.moves.extend(other.moves);
    }

    /// Positions started so far (repeats included).
    pub fn positions(&self) -> usize {
        self.index.len()
    }

    /// Sorts by key and builds the table. Positions without moves are
    /// left out.
    pub fn finish(mut self) -> Book {
        // Repeated positions keep their file order (by first move).
        self.index
            .sort_unstable_by_key(|&(key, first, _)| (key, first));
        let mut book = Book {
            keys: Vec::with_capacity(self.index.len()),
            starts: Vec::with_capacity(self.index.len() + 1),
            moves: Vec::with_capacity(self.moves.len()),
        };
        for &(key, first, len) in &self.index {
            let moves = &self.moves[first as usize..(first + len) as usize];
            if moves.is_empty() {
                continue;
            }
            if book.keys.last() != Some(&key) {
                book.keys.push(key);
                book.starts.push(book.moves.len() as u32);
            }
            let start = *book.starts.last().unwrap_or(&0) as usize;
            for m in moves {
                if !book.moves[start..].iter().any(|old| old.mv == m.mv) {
                    book.moves.push(*m);
                }
            }
        }
        book.starts.push(book.moves.len() as u32);
        book
    }
}

/// The same move seen from the other side (squares rotated 180°).
pub fn flip_move(m: Move) -> Move {
    if !m.is_some() {
        m
    } else if m.is_drop() {
        Move::drop(m.dropped(), m.to().rotate())
    } else {
        Move::normal(m.from().rotate(), m.to().rotate(), m.is_promotion())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_usi_move_text;

    fn mv(text: &str) -> Move {
        parse_usi_move_text(text).unwrap()
    }

    fn entry(text: &str, value: Value) -> BookMove {
        BookMove {
            mv: mv(text),
            ponder: Move::NONE,
            value,
            depth: 0,
            count: 1,
        }
    }

    #[test]
    fn moves_flip_both_ways() {
        assert_eq!(flip_move(mv("7g7f")), mv("3c3d"));
        assert_eq!(flip_move(mv("8h2b+")), mv("2b8h+"));
        assert_eq!(flip_move(mv("P*5e")), mv("P*5e"));
        assert_eq!(flip_move(mv("G*1a")), mv("G*9i"));
        assert_eq!(flip_move(Move::NONE), Move::NONE);
    }

    #[test]
    fn repeated_positions_merge_and_lookup_finds_them() {
        let start = Position::startpos();
        let k = BookKey::of(&start, false);
        let other = BookKey(k.0 ^ 1);
        let book = Book::from_entries(vec![
            (k, vec![entry("7g7f", 10)]),
            (other, vec![entry("2g2f", 5)]),
            (k, vec![entry("7g7f", 99), entry("2g2f", 3)]),
        ]);
        assert_eq!(book.positions(), 2);
        assert_eq!(book.move_count(), 3);
        let found = book.lookup(&start, false);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].mv, found[0].value), (mv("7g7f"), 10));
        assert!(book.moves_of(BookKey(k.0 ^ 2)).is_empty());
    }

    #[test]
    fn the_flipped_position_is_found_when_asked() {
        // Black's 7g7f answered: in the book only as White's mirror image.
        let mut pos = Position::startpos();
        pos.do_move(mv("7g7f"));
        let flipped = pos.flipped();
        let book = Book::from_entries(vec![(BookKey::of(&flipped, false), vec![entry("7g7f", 0)])]);
        assert!(book.lookup(&pos, false).is_empty());
        let found = book.lookup(&pos, true);
        assert_eq!(found[0].mv, mv("3c3d"));
        assert!(pos.is_legal_move(found[0].mv));
    }
}
