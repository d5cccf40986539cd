//! `ryuo analyse`: reads a game record (USI line, CSA or KIF), searches
//! every position of the game with the engine, and writes a report (the
//! evaluation before each move, the engine's choice, a mark for moves that
//! lose ground) and an SVG graph of the evaluation.
//!
//! Layers: this module uses `position` and `search`; nothing uses it but
//! the binary. Files: `record.rs` (the record and format detection, the
//! USI line), `csa.rs`, `kif.rs` (the parsers), `report.rs` (text),
//! `svg.rs` (graph).

pub mod csa;
pub mod kif;
pub mod record;
pub mod report;
pub mod svg;

use crate::position::Position;
use crate::search::{Control, Limits, Score, SearchOptions, Searcher, Silent};
use crate::time::TimeBudget;
use crate::types::{Color, Move, Value};
use record::Record;
use std::fmt;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Evaluations beyond this are drawn at it, and mates are drawn there: a
/// game is decided long before, and the graph stays readable. The marks
/// use the same clamp, so that moves in a decided game are not marked.
pub const CLAMP_CP: i32 = 2000;

/// An evaluation from Black's (sente's) point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, positive when Black is better.
    Cp(i32),
    /// A forced mate in `plies` (0: the side to move is mated now).
    Mate {
        /// Plies to the mate.
        plies: i32,
        /// Whether Black gives it.
        black_wins: bool,
    },
}

impl Eval {
    /// The evaluation of a search score, which is from the view of
    /// `side`, the side to move.
    pub fn from_search(score: Value, side: Color) -> Eval {
        let black = side == Color::Black;
        match Score::from_value(score) {
            Score::Cp(v) => Eval::Cp(if black { v } else { -v }),
            // `Mate(n)`: n >= 1 the side to move mates, n <= 0 it is mated.
            Score::Mate(n) => Eval::Mate {
                plies: n.abs(),
                black_wins: (n >= 1) == black,
            },
        }
    }

    /// Black's view in centipawns, within `±CLAMP_CP` (mates at the clamp).
    pub fn clamped(self) -> i32 {
        match self {
            Eval::Cp(v) => v.clamp(-CLAMP_CP, CLAMP_CP),
            Eval::Mate { black_wins, .. } => {
                if black_wins {
                    CLAMP_CP
                } else {
                    -CLAMP_CP
                }
            }
        }
    }

    /// `clamped` from `side`'s view.
    pub fn for_side(self, side: Color) -> i32 {
        match side {
            Color::Black => self.clamped(),
            Color::White => -self.clamped(),
        }
    }
}

impl fmt::Display for Eval {
    /// `+35`, `-120`, `mate +5` (Black mates in 5 plies), `mate -0`
    /// (Black is mated).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Eval::Cp(v) => write!(f, "{v:+}"),
            Eval::Mate { plies, black_wins } => {
                write!(f, "mate {}{plies}", if *black_wins { '+' } else { '-' })
            }
        }
    }
}

/// How bad a move was: by how much the mover's evaluation dropped from
/// before the move to after it (both clamped to `±CLAMP_CP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// `?!`: a drop of `INACCURACY_CP` or more.
    Inaccuracy,
    /// `?`: a drop of `MISTAKE_CP` or more.
    Mistake,
    /// `??`: a drop of `BLUNDER_CP` or more.
    Blunder,
}

/// Drop marking an inaccuracy (a search at the default budget is noisy
/// by some tens of centipawns: below this it is not worth a mark).
pub const INACCURACY_CP: i32 = 100;
/// Drop marking a mistake.
pub const MISTAKE_CP: i32 = 300;
/// Drop marking a blunder (about a major piece).
pub const BLUNDER_CP: i32 = 700;

impl Mark {
    /// The mark of a move that took the mover's evaluation from `before`
    /// to `after`; none when it is the engine's own choice (the drop is
    /// then search noise) or the drop is small.
    pub fn of(before: Eval, after: Eval, mover: Color, engine_choice: bool) -> Option<Mark> {
        if engine_choice {
            return None;
        }
        let drop = before.for_side(mover) - after.for_side(mover);
        if drop >= BLUNDER_CP {
            Some(Mark::Blunder)
        } else if drop >= MISTAKE_CP {
            Some(Mark::Mistake)
        } else if drop >= INACCURACY_CP {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// `?!`, `?` or `??`.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }
}

/// What the search said about one position of the game.
#[derive(Clone, Debug)]
pub struct PositionAnalysis {
    /// Black's view.
    pub eval: Eval,
    /// The engine's move (`None`: no legal move, or a declared win).
    pub best: Option<Move>,
    /// Its principal variation.
    pub pv: Vec<Move>,
    /// The side to move can declare an entering-king win.
    pub declare_win: bool,
    /// Depth of the last completed iteration.
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
}

/// A whole game analysed: `positions[i]` is the position before move
/// `i + 1`; the last is the final position.
pub struct Analysis {
    /// The game.
    pub record: Record,
    /// One per position: moves + 1 of them.
    pub positions: Vec<PositionAnalysis>,
}

impl Analysis {
    /// The mark of each move.
    pub fn marks(&self) -> Vec<Option<Mark>> {
        let mut pos = self.record.start.clone();
        let mut marks = Vec::with_capacity(self.record.moves.len());
        for (i, m) in self.record.moves.iter().enumerate() {
            let (Some(before), Some(after)) = (self.positions.get(i), self.positions.get(i + 1))
            else {
                break;
            };
            let mover = pos.side_to_move();
            marks.push(Mark::of(
                before.eval,
                after.eval,
                mover,
                before.best == Some(m.mv),
            ));
            pos.do_move(m.mv);
        }
        marks
    }
}

/// How long each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Nodes per position.
    Nodes(u64),
    /// Time per position.
    Time(Duration),
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Nodes(n) => write!(f, "{n} nodes"),
            Budget::Time(t) => write!(f, "{} ms", t.as_millis()),
        }
    }
}

/// Nodes per position unless told otherwise.
pub const DEFAULT_NODES: u64 = 100_000;

/// Searches every position of `record` (one thread; the hash table is
/// kept from one position to the next, as in a game), calling `progress`
/// with the 1-based number of the position and their count.
pub fn analyse(
    record: Record,
    budget: Budget,
    options: &SearchOptions,
    hash_mib: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Analysis, String> {
    let mut searcher = Searcher::try_new(hash_mib)?;
    searcher.set_threads(1)?;
    let limits = match budget {
        Budget::Nodes(n) => Limits {
            nodes: Some(n.max(1)),
            ..Limits::default()
        },
        Budget::Time(t) => Limits {
            time: Some(TimeBudget {
                minimum: Duration::ZERO,
                optimum: t,
                maximum: t,
            }),
            ..Limits::default()
        },
    };
    let count = record.moves.len() + 1;
    let mut positions = Vec::with_capacity(count);
    let mut pos: Position = record.start.clone();
    for i in 0..count {
        progress(i + 1, count);
        let control = Control::default();
        let result = searcher.search(&pos, &limits, options, &control, &mut Silent);
        positions.push(PositionAnalysis {
            eval: Eval::from_search(result.score, pos.side_to_move()),
            best: result.best,
            pv: result.pv.clone(),
            declare_win: result.declare_win,
            depth: result.depth,
            nodes: result.nodes,
        });
        if let Some(m) = record.moves.get(i) {
            pos.do_move(m.mv);
        }
    }
    Ok(Analysis { record, positions })
}

/// What `ryuo analyse` was asked to do.
pub struct Config {
    /// The record file.
    pub record: PathBuf,
    /// Search budget per position.
    pub budget: Budget,
    /// Where to write the SVG graph, if anywhere.
    pub svg: Option<PathBuf>,
    /// Where to write the report (stdout when `None`).
    pub report: Option<PathBuf>,
    /// Hash table size, MiB.
    pub hash_mib: usize,
    /// Search options (the evaluation); the thread count is always 1.
    pub options: SearchOptions,
}

/// Runs `ryuo analyse`: read, search (progress on stderr), write.
pub fn run(config: &Config) -> Result<(), String> {
    let path = config.record.display().to_string();
    let bytes = std::fs::read(&config.record).map_err(|e| format!("{path}: {e}"))?;
    let record = record::parse_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let terminal = std::io::stderr().is_terminal();
    let mut progress = |i: usize, n: usize| {
        if terminal {
            eprint!("\rmove {i}/{n}");
        } else {
            eprintln!("move {i}/{n}");
        }
    };
    let analysis = analyse(
        record,
        config.budget,
        &config.options,
        config.hash_mib,
        &mut progress,
    )?;
    if terminal {
        eprintln!();
    }
    let name = config
        .record
        .file_name()
        .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
    let text = report::text(&name, &analysis, config.budget);
    match &config.report {
        Some(out) => {
            std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        None => {
            use std::io::Write;
            // A closed stdout (piped into `head`) is not an error.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    if let Some(out) = &config.svg {
        std::fs::write(out, svg::render(&name, &analysis))
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::MATE;

    #[test]
    fn evals_from_search_scores() {
        assert_eq!(Eval::from_search(35, Color::Black), Eval::Cp(35));
        assert_eq!(Eval::from_search(35, Color::White), Eval::Cp(-35));
        let mated = Eval::from_search(-MATE, Color::White);
        assert_eq!(
            mated,
            Eval::Mate {
                plies: 0,
                black_wins: true
            }
        );
        assert_eq!(mated.to_string(), "mate +0");
        let mates = Eval::from_search(MATE - 3, Color::White);
        assert_eq!(mates.to_string(), "mate -3");
        assert_eq!(mates.clamped(), -CLAMP_CP);
        assert_eq!(Eval::Cp(5000).clamped(), CLAMP_CP);
        assert_eq!(Eval::Cp(0).to_string(), "+0");
        assert_eq!(Eval::Cp(-12).for_side(Color::White), 12);
    }

    #[test]
    fn marks_from_drops() {
        let b = Color::Black;
        assert_eq!(Mark::of(Eval::Cp(50), Eval::Cp(0), b, false), None);
        assert_eq!(
            Mark::of(Eval::Cp(50), Eval::Cp(-60), b, false),
            Some(Mark::Inaccuracy)
        );
        assert_eq!(
            Mark::of(Eval::Cp(50), Eval::Cp(-300), b, false),
            Some(Mark::Mistake)
        );
        assert_eq!(
            Mark::of(Eval::Cp(50), Eval::Cp(-900), b, false),
            Some(Mark::Blunder)
        );
        assert_eq!(Mark::of(Eval::Cp(50), Eval::Cp(-900), b, true), None);
        // White's view: Black's evaluation going up is White's drop.
        assert_eq!(
            Mark::of(Eval::Cp(0), Eval::Cp(800), Color::White, false),
            Some(Mark::Blunder)
        );
        // Beyond the clamp nothing is lost.
        assert_eq!(Mark::of(Eval::Cp(5000), Eval::Cp(2500), b, false), None);
    }
}
