//! What the unit tests share: a sample of middle-game positions.

use crate::movegen::legal_moves;
use crate::position::Position;

/// The positions of `tests/data/perft_random.tsv` (from random games, with
/// cshogi's perft counts).
pub fn random_positions() -> impl Iterator<Item = Position> {
    include_str!("../tests/data/perft_random.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| Position::from_sfen(l.split('\t').next().unwrap_or(l)).expect("a valid SFEN"))
}

/// Calls `f` on each of the random positions and on every position one
/// legal move after it.
pub fn for_random_positions_and_children(mut f: impl FnMut(&mut Position)) {
    for mut pos in random_positions() {
        f(&mut pos);
        for m in legal_moves(&pos) {
            pos.do_move(m);
            f(&mut pos);
            pos.undo_move(m);
        }
    }
}
