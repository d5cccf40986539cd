//! A problem set for the solver (`ryuo mate --file`): each problem solved
//! within a time limit, answers checked against the expected ones, and the
//! figures a solver is judged by: solved counts, the slowest answer, and
//! nodes per second.
//!
//! File format, one problem per line (`#` starts a comment):
//! `sfen<TAB>mate|nomate<TAB>plies` — the plies of the mate found at long
//! time (0 for `nomate`).

use super::{MateResult, MateSolver};
use crate::position::Position;
use std::fmt::Write;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// One problem of a set.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The position; the side to move attacks.
    pub sfen: String,
    /// Whether there is a mate.
    pub mate: bool,
    /// Length of the mate known for it, in plies (0 when there is none).
    pub plies: usize,
}

/// Reads a problem file's text.
pub fn parse(text: &str) -> Result<Vec<Problem>, String> {
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("line {}: expected sfen<TAB>mate|nomate<TAB>plies", i + 1);
        let mut fields = line.split('\t');
        let (Some(sfen), Some(kind), Some(plies)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad());
        };
        let mate = match kind {
            "mate" => true,
            "nomate" => false,
            _ => return Err(bad()),
        };
        Position::from_sfen(sfen).map_err(|e| format!("line {}: {e}", i + 1))?;
        problems.push(Problem {
            sfen: sfen.to_string(),
            mate,
            plies: plies.parse().map_err(|_| bad())?,
        });
    }
    Ok(problems)
}

/// What running a set gave.
#[derive(Clone, Debug, Default)]
pub struct SetReport {
    /// Problems run.
    pub problems: usize,
    /// Mates found (and verified) among the problems that have one.
    pub mates_found: usize,
    /// Problems that have a mate.
    pub mates_expected: usize,
    /// `nomate` proven among the problems that have none.
    pub nomates_proven: usize,
    /// Problems without a mate.
    pub nomates_expected: usize,
    /// Mates found longer than the set's known length (the solver's line
    /// is not the shortest), and shorter (the set's length was not).
    pub longer: usize,
    /// See `longer`.
    pub shorter: usize,
    /// Answers that contradict the expected one (a mate where none was
    /// proven, or the reverse): solver bugs or a wrong set.
    pub wrong: Vec<String>,
    /// The slowest answer's wall time.
    pub slowest: Duration,
    /// Nodes over all problems.
    pub nodes: u64,
    /// Wall time over all problems.
    pub time: Duration,
}

impl SetReport {
    /// The summary lines.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let secs = self.time.as_secs_f64().max(1e-9);
        let _ = writeln!(
            s,
            "problems {}: mates found {}/{}, nomate proven {}/{}, wrong {}",
            self.problems,
            self.mates_found,
            self.mates_expected,
            self.nomates_proven,
            self.nomates_expected,
            self.wrong.len()
        );
        let _ = writeln!(
            s,
            "mates longer than the set's length {}, shorter {}",
            self.longer, self.shorter
        );
        let _ = writeln!(
            s,
            "slowest answer {:.1} ms, total {:.2} s, nodes {}, nodes/s {:.0}",
            self.slowest.as_secs_f64() * 1000.0,
            secs,
            self.nodes,
            self.nodes as f64 / secs
        );
        for w in &self.wrong {
            let _ = writeln!(s, "wrong: {w}");
        }
        s
    }
}

/// The budget of each problem of a set: a time, a node count, or both.
#[derive(Clone, Copy, Debug, Default)]
pub struct SetLimits {
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
}

/// Solves every problem within `limits` each (the table cleared between
/// problems, as for unrelated `go mate` commands), printing one line per
/// problem to `each` if given.
pub fn run_set(
    problems: &[Problem],
    limits: SetLimits,
    solver: &mut MateSolver,
    mut each: Option<&mut dyn FnMut(&str)>,
) -> SetReport {
    let stop = AtomicBool::new(false);
    let mut report = SetReport::default();
    for p in problems {
        let Ok(mut pos) = Position::from_sfen(&p.sfen) else {
            continue;
        };
        solver.clear();
        let start = Instant::now();
        let deadline = limits.time.and_then(|t| start.checked_add(t));
        let result = solver.solve(&mut pos, &stop, deadline, limits.nodes);
        let elapsed = start.elapsed();
        report.problems += 1;
        report.nodes += solver.nodes();
        report.time += elapsed;
        report.slowest = report.slowest.max(elapsed);
        if p.mate {
            report.mates_expected += 1;
        } else {
            report.nomates_expected += 1;
        }
        let answer = match &result {
            MateResult::Mate(line) => {
                if p.mate {
                    report.mates_found += 1;
                    report.longer += usize::from(line.len() > p.plies);
                    report.shorter += usize::from(line.len() < p.plies);
                } else {
                    report
                        .wrong
                        .push(format!("{}: mate where none expected", p.sfen));
                }
                format!("mate {}", line.len())
            }
            MateResult::NoMate => {
                if p.mate {
                    report
                        .wrong
                        .push(format!("{}: nomate, expected mate", p.sfen));
                } else {
                    report.nomates_proven += 1;
                }
                "nomate".to_string()
            }
            MateResult::Timeout => "timeout".to_string(),
        };
        if let Some(f) = each.as_mut() {
            let expected = if p.mate {
                format!("mate {}", p.plies)
            } else {
                "nomate".to_string()
            };
            f(&format!(
                "{:8.1} ms  {answer:<10} (expected {expected})  {}",
                elapsed.as_secs_f64() * 1000.0,
                p.sfen
            ));
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_lines_are_parsed_and_checked() {
        let text = "# a comment\n4k4/9/4P4/9/9/9/9/9/4K4 b G 1\tmate\t1\n\n\
                    4k4/9/9/9/9/9/9/9/4K4 b - 1\tnomate\t0\n";
        let set = parse(text).unwrap();
        assert_eq!(set.len(), 2);
        assert!(set[0].mate && set[0].plies == 1 && !set[1].mate);
        assert!(parse("4k4/9/9/9/9/9/9/9/4K4 b - 1\tmaybe\t0").is_err());
        assert!(parse("not a position\tmate\t1").is_err());
        let mut solver = MateSolver::new(4);
        let limits = SetLimits {
            time: Some(Duration::from_secs(10)),
            nodes: None,
        };
        let report = run_set(&set, limits, &mut solver, None);
        assert_eq!((report.mates_found, report.nomates_proven), (1, 1));
        assert!(report.wrong.is_empty());
    }
}
