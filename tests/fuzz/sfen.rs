//! SFEN strings and USI moves: `Position::from_sfen` on random and mutated
//! SFENs, `parse_usi_move` on move-like strings. What is accepted must be
//! a consistent position that writes back to the same SFEN and whose moves
//! keep it consistent; an accepted move must be one of the legal moves.

use super::corpus;
use super::mutate::{mutated, mutations};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::movegen::legal_moves;
use ryuo::position::Position;

/// The bytes SFENs are made of.
const SFEN_ALPHABET: &[u8] = b"plnsgbrkPLNSGBRK+123456789/ bw-0";

/// Fields and pieces worth inserting whole.
const SFEN_TOKENS: &[&str] = &[
    " ", "/", "9/", "+P", "+p", "+R", "+k", "K", "k", "18P", "2b", "19p", " b ", " w ", " - ",
    " 1", " 0", " 999999", " 1000000", " -1", "0P", "00", "/9/9", "\u{3000}", "\u{feff}", "\t",
];

/// Checks an accepted position: consistent, written back and read again
/// to the same position, and consistent after each legal move and its
/// undo (with the replies generated from each child).
fn check_accepted(pos: &Position, text: &str) {
    pos.is_ok()
        .unwrap_or_else(|e| panic!("{text:?} accepted as an inconsistent position: {e}"));
    let sfen = pos.to_sfen();
    let again = Position::from_sfen(&sfen)
        .unwrap_or_else(|e| panic!("{text:?} accepted, but its SFEN {sfen:?} is refused: {e}"));
    assert_eq!(again.to_sfen(), sfen, "{text:?}: SFEN round trip");
    assert_eq!(again.key(), pos.key(), "{text:?}: key after the round trip");
    let mut child = pos.clone();
    for m in legal_moves(pos) {
        child.do_move(m);
        child
            .is_ok()
            .unwrap_or_else(|e| panic!("{sfen}: after {m}: {e}"));
        let _ = legal_moves(&child);
        child.undo_move(m);
        assert_eq!(child.key(), pos.key(), "{sfen}: key after {m} and undo");
    }
}

fn check_sfen_text(text: &str) {
    if let Ok(pos) = Position::from_sfen(text) {
        check_accepted(&pos, text);
    }
}

/// A move-like string: squares, drops, promotions, and junk.
fn move_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[1-9][a-i][1-9][a-i]\\+?",
        "[PLNSGBRK]\\*[1-9][a-i]",
        "[0-9a-zA-Z*+]{0,6}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(config(2000))]

    /// Any text at all: refused or consistent, never a panic.
    #[test]
    fn random_text_is_refused_or_consistent(text in any::<String>()) {
        check_sfen_text(&text);
    }

    /// Valid SFENs changed byte by byte and token by token.
    #[test]
    fn mutated_sfens_are_refused_or_consistent(
        which in any::<Index>(),
        changes in mutations(SFEN_ALPHABET, SFEN_TOKENS, 4),
    ) {
        let sfens = corpus::sfens();
        let original = &sfens[which.index(sfens.len())];
        let bytes = mutated(original.as_bytes(), &changes);
        check_sfen_text(&String::from_utf8_lossy(&bytes));
    }

    /// A parsed move is legal; every legal move parses back to itself.
    #[test]
    fn parsed_moves_are_legal(
        which in any::<Index>(),
        picks in proptest::collection::vec(any::<u16>(), 0..12),
        texts in proptest::collection::vec(move_text(), 1..8),
    ) {
        let positions = corpus::positions();
        let (pos, _) = corpus::walk(&positions[which.index(positions.len())], &picks);
        let legal = legal_moves(&pos);
        for text in &texts {
            if let Some(m) = pos.parse_usi_move(text) {
                prop_assert!(legal.contains(&m), "{text:?} parsed as {m} in {}", pos.to_sfen());
            }
        }
        for &m in &legal {
            prop_assert_eq!(pos.parse_usi_move(&m.to_string()), Some(m));
        }
    }
}
