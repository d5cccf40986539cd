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

/// A change that keeps an SFEN well formed, so that what it tests is the
/// rules check: a square given a piece (any kind, either colour, promoted
/// or not) or emptied, the side to move flipped, the hands replaced.
#[derive(Clone, Debug)]
enum Edit {
    Square(Index, &'static str),
    FlipSide,
    Hands(String),
}

/// What a square may hold ("" is empty).
const CELLS: &[&str] = &[
    "", "P", "L", "N", "S", "G", "B", "R", "K", "+P", "+L", "+N", "+S", "+B", "+R", "p", "l", "n",
    "s", "g", "b", "r", "k", "+p", "+l", "+n", "+s", "+b", "+r",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        6 => (any::<Index>(), proptest::sample::select(CELLS)).prop_map(|(i, c)| Edit::Square(i, c)),
        1 => Just(Edit::FlipSide),
        1 => "-|([1-9]?[0-9]?[PLNSGBRKplnsgbrk]){1,5}".prop_map(Edit::Hands),
    ]
}

/// `sfen` with `edits` made on its fields and squares.
fn edited(sfen: &str, edits: &[Edit]) -> String {
    let fields: Vec<&str> = sfen.split(' ').collect();
    let mut squares: Vec<String> = Vec::with_capacity(81);
    for rank in fields[0].split('/') {
        let mut promoted = false;
        for c in rank.chars() {
            match c {
                '+' => promoted = true,
                '1'..='9' => (0..c.to_digit(10).unwrap()).for_each(|_| squares.push(String::new())),
                _ => {
                    squares.push(format!("{}{c}", if promoted { "+" } else { "" }));
                    promoted = false;
                }
            }
        }
    }
    let (mut side, mut hands) = (fields[1].to_string(), fields[2].to_string());
    for e in edits {
        match e {
            Edit::Square(i, cell) => *i.get_mut(&mut squares) = cell.to_string(),
            Edit::FlipSide => side = if side == "b" { "w".into() } else { "b".into() },
            Edit::Hands(h) => hands = h.clone(),
        }
    }
    let ranks: Vec<String> = squares
        .chunks(9)
        .map(|rank| {
            let mut text = String::new();
            let mut empty = 0;
            for cell in rank {
                if cell.is_empty() {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    text.push_str(&empty.to_string());
                    empty = 0;
                }
                text.push_str(cell);
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            text
        })
        .collect();
    format!("{} {side} {hands} {}", ranks.join("/"), fields[3])
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
    #![proptest_config(config(4000))]

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

    /// Valid SFENs with squares, side and hands changed: positions the
    /// rules may or may not allow (two pawns on a file, dead pieces, a
    /// king missing or in check, too many pieces).
    #[test]
    fn edited_positions_are_refused_or_consistent(
        which in any::<Index>(),
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let sfens = corpus::sfens();
        check_sfen_text(&edited(&sfens[which.index(sfens.len())], &edits));
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

/// Editing nothing gives the SFEN back.
#[test]
fn no_edit_is_the_identity() {
    for sfen in corpus::sfens() {
        assert_eq!(&edited(sfen, &[]), sfen);
    }
}
