//! `go mate`: a mate for the side to move, every attacking move a check
//! (tsume shogi rules), answered as `checkmate <moves>|nomate|timeout`.
//!
//! The df-pn solver (`crate::mate`) does the work; its line is checked once
//! more here with [`is_tsume`] before it is printed, so a GUI never gets a
//! line that is not a mate.

use super::go::MateLimit;
use crate::mate::MateResult;
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::search::{Control, Searcher};
use crate::types::Move;
use std::time::Instant;

/// What `go mate` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateAnswer {
    /// A mating line, attacker's move first.
    Mate(Vec<Move>),
    /// Proven: no mate.
    NoMate,
    /// Neither found nor disproved in time (or stopped).
    Timeout,
}

impl MateAnswer {
    /// The USI answer line.
    pub fn usi_line(&self) -> String {
        match self {
            MateAnswer::Mate(line) => format!("checkmate {}", super::output::moves_text(line)),
            MateAnswer::NoMate => "checkmate nomate".to_string(),
            MateAnswer::Timeout => "checkmate timeout".to_string(),
        }
    }
}

/// Looks for a mate in `pos` within `limit`, stopping early on `control`.
pub fn solve_mate(
    searcher: &mut Searcher,
    pos: &Position,
    limit: MateLimit,
    control: &Control,
) -> MateAnswer {
    let deadline = match limit {
        // A limit past what the clock can represent is no limit.
        MateLimit::Time(t) => Instant::now().checked_add(t.saturating_sub(control.elapsed())),
        MateLimit::Infinite => None,
    };
    let mut root = pos.clone();
    let result = searcher
        .mate_solver()
        .solve(&mut root, control.stop_flag(), deadline, None);
    match result {
        MateResult::Mate(line) if is_tsume(pos, &line) => MateAnswer::Mate(line),
        MateResult::Mate(_) | MateResult::Timeout => MateAnswer::Timeout,
        MateResult::NoMate => MateAnswer::NoMate,
    }
}

/// Whether `line` is a mate by tsume rules from `root`: legal moves, every
/// attacker move a check, ending with the defender unable to move.
pub fn is_tsume(root: &Position, line: &[Move]) -> bool {
    if line.len().is_multiple_of(2) {
        return false;
    }
    let mut pos = root.clone();
    for (i, &m) in line.iter().enumerate() {
        if pos.try_do_move(m).is_err() {
            return false;
        }
        if i % 2 == 0 && !pos.in_check() {
            return false;
        }
    }
    legal_moves(&pos).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn moves(pos: &Position, line: &[&str]) -> Vec<Move> {
        let mut p = pos.clone();
        line.iter()
            .map(|t| {
                let m = p.parse_usi_move(t).unwrap();
                p.do_move(m);
                m
            })
            .collect()
    }

    #[test]
    fn tsume_lines_are_verified() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        assert!(is_tsume(&pos, &moves(&pos, &["G*5b"])));
        assert!(!is_tsume(&pos, &moves(&pos, &["G*4b"])));
        assert!(!is_tsume(&pos, &moves(&pos, &["G*4b", "5a6a"])));
        assert!(!is_tsume(&pos, &[]));
    }

    #[test]
    fn mate_in_one_no_check_and_no_mate() {
        let mut searcher = Searcher::new(4);
        let control = Control::new(false);
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        let limit = MateLimit::Time(Duration::from_secs(5));
        let answer = solve_mate(&mut searcher, &pos, limit, &control);
        assert_eq!(answer.usi_line(), "checkmate G*5b");
        let bare = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap();
        assert_eq!(
            solve_mate(&mut searcher, &bare, limit, &control),
            MateAnswer::NoMate
        );
        // Checks exist, but a lone gold cannot mate a king in open space.
        let open = Position::from_sfen("9/9/9/9/4k4/9/9/9/4K4 b G 1").unwrap();
        assert_eq!(
            solve_mate(&mut searcher, &open, limit, &control),
            MateAnswer::NoMate
        );
    }
}
