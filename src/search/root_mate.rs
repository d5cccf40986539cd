//! The mate test at the root (`RootMatePercent`): before the alpha-beta
//! search of a timed move, the df-pn solver (`crate::mate`) may spend a
//! share of the move's time looking for a forced mate of the side to move.
//! Long checking sequences with drops lie far beyond what the alpha-beta
//! search reaches in the same time (it extends no checking drop), while a
//! proof-number search solves many of them in milliseconds; a proven mate
//! is played at once, anything else leaves the rest of the time to the
//! alpha-beta search.

use super::*;
use crate::mate::{MateResult, MateSolver};
use crate::position::{EnteringKingRule, Position, Repetition};
use crate::types::Move;
use std::time::Instant;

/// Looks for a mate of the side to move in `pos` with `options`' share of
/// the move's optimum time, when the search is a timed one that a mate
/// would end: not pondering, not waiting for `stop`, no depth or node
/// limit (those ask for the alpha-beta search's answer: `go depth`,
/// `bench`, fixed-node matches), one line wanted, every root move allowed.
/// The line returned is a verified mate that the game's
/// record does not spoil (no fourfold repetition on the way) and that ends
/// within `MaxMovesToDraw`.
pub(super) fn find(
    solver: &mut MateSolver,
    pos: &Position,
    limits: &Limits,
    options: &SearchOptions,
    control: &Control,
) -> Option<Vec<Move>> {
    let percent = options.root_mate_percent;
    if percent == 0
        || control.is_pondering()
        || control.waits_for_stop(limits)
        || limits.depth.is_some()
        || limits.nodes.is_some()
        || options.multipv != 1
        || !limits.searchmoves.is_empty()
    {
        return None;
    }
    let budget = control.time_budget(limits)?;
    let mut root = pos.search_copy();
    // The declaration and the try end the game faster; the iterative
    // deepening plays them.
    if root.can_declare_win(options.entering_king_rule)
        || (options.entering_king_rule == EnteringKingRule::Try && root.try_rule_move().is_some())
    {
        return None;
    }
    let slice = budget.optimum.mul_f64(f64::from(percent.min(100)) / 100.0);
    let deadline = Instant::now() + slice;
    match solver.solve_first(&mut root, control.stop_flag(), Some(deadline), None) {
        MateResult::Mate(line) if playable(&mut root, &line, options.max_moves_to_draw) => {
            Some(line)
        }
        _ => None,
    }
}

/// Whether `line`, a verified mate from `pos`, can be played out in the
/// game: the mating move comes by the `MaxMovesToDraw` limit, and no
/// position on the way repeats for the fourth time with the positions of
/// the game record (the solver sees only its own line).
fn playable(pos: &mut Position, line: &[Move], max_moves_to_draw: u32) -> bool {
    let last_move_ply = u64::from(pos.game_ply()) + line.len() as u64 - 1;
    if last_move_ply > u64::from(max_moves_to_draw) {
        return false;
    }
    let mut played = 0;
    let mut ok = true;
    for &m in line {
        pos.do_move(m);
        played += 1;
        if matches!(
            pos.repetition(0),
            Repetition::Draw | Repetition::Win | Repetition::Loss
        ) {
            ok = false;
            break;
        }
    }
    for &m in line[..played].iter().rev() {
        pos.undo_move(m);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mate_past_the_move_limit_is_not_playable() {
        // G*5b mates: the gold, guarded by the pawn on 5c, covers every
        // square the king on 5a could go to.
        let sfen = |ply: u32| format!("4k4/9/4P4/9/9/9/9/9/4K4 b G {ply}");
        let mut pos = Position::from_sfen(&sfen(1)).unwrap();
        let line = vec![pos.parse_usi_move("G*5b").unwrap()];
        assert!(playable(&mut pos, &line, u32::MAX));
        assert!(playable(&mut pos, &line, 1));
        let mut later = Position::from_sfen(&sfen(9)).unwrap();
        assert!(!playable(&mut later, &line, 8));
        assert!(playable(&mut later, &line, 9));
    }
}
