//! `go mate`: a mate for the side to move, every attacking move a check
//! (tsume shogi rules), answered as `checkmate <moves>|nomate|timeout`.
//!
//! [`solve_mate`] is the seam for the df-pn solver. Until it lands, the
//! normal search stands in: it searches the checking moves only and
//! accepts a line when it replays as a tsume (checks, legal replies, mate
//! at the end). Alpha-beta cannot prove that no mate exists, so the
//! stand-in answers `nomate` only when there is no check at all.

use super::go::MateLimit;
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::search::{
    Control, Limits, PvInfo, Reporter, Score, SearchOptions, Searcher, TimeBudget,
};
use crate::types::Move;

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
///
/// The df-pn solver plugs in here: replace the body by
/// `MateSolver::solve(&mut pos.clone(), stop_flag, deadline, max_nodes)`
/// mapped onto `MateAnswer` (its `Mate`/`NoMate`/`Timeout` are ours).
pub fn solve_mate(
    searcher: &mut Searcher,
    pos: &Position,
    limit: MateLimit,
    control: &Control,
) -> MateAnswer {
    mate_by_search(searcher, pos, limit, control)
}

/// The stand-in: alpha-beta over the checking moves.
fn mate_by_search(
    searcher: &mut Searcher,
    pos: &Position,
    limit: MateLimit,
    control: &Control,
) -> MateAnswer {
    let checks: Vec<Move> = legal_moves(pos)
        .into_iter()
        .filter(|&m| pos.gives_check(m))
        .collect();
    if checks.is_empty() {
        return MateAnswer::NoMate;
    }
    let time = match limit {
        // The soft limit lies past the hard one: use all the time given.
        MateLimit::Time(t) => Some(TimeBudget {
            optimum: t * 2,
            maximum: t,
        }),
        MateLimit::Infinite => None,
    };
    let limits = Limits {
        time,
        infinite: time.is_none(),
        searchmoves: checks,
        ..Limits::default()
    };
    let mut watcher = TsumeWatcher {
        root: pos,
        control,
        found: None,
    };
    let result = searcher.search(
        pos,
        &limits,
        &SearchOptions::default(),
        control,
        &mut watcher,
    );
    let found = watcher
        .found
        .or_else(|| is_tsume(pos, &result.pv).then_some(result.pv));
    found.map_or(MateAnswer::Timeout, MateAnswer::Mate)
}

/// Watches the search's lines and stops it at the first one that is a
/// complete tsume.
struct TsumeWatcher<'a> {
    root: &'a Position,
    control: &'a Control,
    found: Option<Vec<Move>>,
}

impl Reporter for TsumeWatcher<'_> {
    fn pv(&mut self, info: &PvInfo) {
        if self.found.is_none()
            && matches!(info.score, Score::Mate(n) if n > 0)
            && is_tsume(self.root, &info.pv)
        {
            self.found = Some(info.pv.clone());
            self.control.stop();
        }
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
        if !(pos.is_pseudo_legal(m) && pos.is_legal(m)) {
            return false;
        }
        pos.do_move(m);
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
    fn mate_in_one_and_no_check() {
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
    }
}
