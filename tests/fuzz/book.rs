//! Book files: `book::format::parse` on random and mutated YaneuraOu book
//! texts. A text is refused or read with its bad lines counted, never a
//! panic; a book read can be looked up.

use super::corpus;
use super::mutate::{mutated, mutations};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::book::format;

/// Bytes of book lines.
const BOOK_ALPHABET: &[u8] = b"plnsgbrkPLNSGBRK+*123456789abcdefghi/ bw-\n\r#";

/// Lines and fields worth inserting whole.
const BOOK_TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    "sfen ",
    "\nsfen ",
    "#YANEURAOU-DB2016 1.00\n",
    "//",
    " none ",
    " 7g7f ",
    " P*5e ",
    " 8h2b+ ",
    " 99999999999999999999",
    " -99999999999999999999",
    " +5",
    " -",
    "\u{feff}",
    " 1000000",
];

/// Reads `bytes` as a book; if read, looks up every corpus position in it
/// (directly and flipped) and checks the counts it reports.
fn check_book(bytes: &[u8]) {
    let Ok(loaded) = format::parse(bytes) else {
        return;
    };
    let lines = bytes.split(|&b| b == b'\n').count();
    assert!(
        loaded.skipped <= lines,
        "{} skipped of {lines} lines",
        loaded.skipped
    );
    assert!(loaded.book.positions() <= lines);
    assert!(loaded.book.move_count() <= lines);
    for pos in corpus::positions() {
        let _ = loaded.book.lookup(pos, false);
        let _ = loaded.book.lookup(pos, true);
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// Any bytes at all.
    #[test]
    fn random_bytes_are_refused_or_read(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_book(&bytes);
    }

    /// Valid books changed byte by byte and line by line.
    #[test]
    fn mutated_books_are_refused_or_read(
        which in any::<Index>(),
        changes in mutations(BOOK_ALPHABET, BOOK_TOKENS, 6),
    ) {
        let books = corpus::books();
        check_book(&mutated(&books[which.index(books.len())], &changes));
    }
}

/// The valid books are read whole: no line skipped.
#[test]
fn the_corpus_books_are_read_whole() {
    for book in corpus::books() {
        let loaded = format::parse(&book[..]).expect("a valid book");
        assert_eq!(loaded.skipped, 0, "{:?}", loaded.first_problem);
        assert!(loaded.book.positions() > 0);
    }
}
