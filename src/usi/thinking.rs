//! The search thread: one per `go`, owning the searcher while it thinks and
//! handing it back when done, so the input loop never waits on a lock.
//!
//! It prints the final `info` lines and exactly one `bestmove` (or, for
//! `go mate`, one `checkmate`) and then ends.

use super::book::BookAnswer;
use super::go::MateLimit;
use super::mate::solve_mate;
use super::output::{InfoReporter, Output, ReportSettings};
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::search::params::INFINITE;
use crate::search::{Control, Limits, SearchOptions, SearchResult, Searcher};
use crate::types::{Move, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Stack of the search thread: the recursive search keeps about 10 KiB per
/// ply, and the main thread's default stack is too small to be sure.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// What one `go` asks of the search thread.
pub enum Job {
    /// Find the best move and answer `bestmove`.
    BestMove {
        /// Search limits.
        limits: Limits,
        /// Search settings.
        options: SearchOptions,
        /// Resign at or below minus this score (0: never).
        resign_value: Value,
        /// What the analysis options ask of the `info` lines.
        report: ReportSettings,
    },
    /// Look for a mate and answer `checkmate`.
    Mate(MateLimit),
    /// Play a book move: print its lines, wait while pondering (USI: no
    /// `bestmove` before `ponderhit` or `stop`), then answer.
    Book(BookAnswer),
}

/// A search thread that may still be thinking.
pub struct Thinking {
    /// Shared with the search: `stop`, `ponderhit`.
    pub control: Arc<Control>,
    /// Set just before the answer line is printed: from then on the
    /// thread is only returning the searcher.
    answered: Arc<AtomicBool>,
    handle: JoinHandle<Searcher>,
}

impl Thinking {
    /// Starts `job` on `pos` in a new thread. On failure (no thread could
    /// be made) the searcher is lost and the error says so.
    pub fn start(
        mut searcher: Searcher,
        pos: Position,
        job: Job,
        pondering: bool,
        out: Output,
    ) -> Result<Thinking, String> {
        let control = Arc::new(Control::new(pondering));
        let answered = Arc::new(AtomicBool::new(false));
        let (c, a) = (Arc::clone(&control), Arc::clone(&answered));
        let handle = thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let answer = match job {
                    Job::BestMove {
                        limits,
                        options,
                        resign_value,
                        report,
                    } => {
                        let mut reporter = InfoReporter::with_settings(out.clone(), report);
                        best_move(
                            &mut searcher,
                            &pos,
                            &limits,
                            &options,
                            &c,
                            resign_value,
                            &mut reporter,
                        )
                    }
                    Job::Mate(limit) => solve_mate(&mut searcher, &pos, limit, &c).usi_line(),
                    Job::Book(answer) => {
                        for line in &answer.info {
                            out.line(line);
                        }
                        while c.is_pondering() && !c.is_stopped() {
                            thread::sleep(Duration::from_millis(1));
                        }
                        answer.bestmove
                    }
                };
                a.store(true, Ordering::SeqCst);
                out.line(&answer);
                searcher
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        Ok(Thinking {
            control,
            answered,
            handle,
        })
    }

    /// Whether the answer has been printed (the thread is about to end).
    pub fn has_answered(&self) -> bool {
        self.answered.load(Ordering::SeqCst)
    }

    /// Waits for the thread to end and takes the searcher back; `None` if
    /// the thread panicked (a bug: the caller makes a fresh searcher).
    pub fn join(self) -> Option<Searcher> {
        self.handle.join().ok()
    }
}

/// Runs the search and returns the `bestmove` line, after the final `info`.
fn best_move(
    searcher: &mut Searcher,
    pos: &Position,
    limits: &Limits,
    options: &SearchOptions,
    control: &Control,
    resign_value: Value,
    reporter: &mut InfoReporter,
) -> String {
    let result = searcher.search(pos, limits, options, control, reporter);
    reporter.finish(&result, control, searcher.hashfull());
    bestmove_line(pos, &result, resign_value, reporter.output())
}

/// The `bestmove` answer for `result` in `pos`.
pub fn bestmove_line(
    pos: &Position,
    result: &SearchResult,
    resign_value: Value,
    out: &Output,
) -> String {
    if result.declare_win {
        return "bestmove win".into();
    }
    let best = match result.best {
        Some(m) if is_legal(pos, m) => m,
        None => return "bestmove resign".into(),
        Some(m) => {
            // A search bug must not lose the game on the spot.
            out.error(&format!("the search returned the illegal move {m}"));
            match legal_moves(pos).first() {
                Some(&m) => m,
                None => return "bestmove resign".into(),
            }
        }
    };
    if resign_value > 0 && is_known_score(result.score) && result.score <= -resign_value {
        out.info_string(&format!(
            "score {} at or below -ResignValue: resigning",
            result.score
        ));
        return "bestmove resign".into();
    }
    let mut after = pos.clone();
    after.do_move(best);
    match result.ponder.filter(|&p| is_legal(&after, p)) {
        Some(p) => format!("bestmove {best} ponder {p}"),
        None => format!("bestmove {best}"),
    }
}

/// Whether `score` is a searched value: a search stopped before its first
/// move was scored reports the window bound (±INFINITE).
pub fn is_known_score(score: Value) -> bool {
    score.abs() < INFINITE
}

fn is_legal(pos: &Position, m: Move) -> bool {
    m.is_some() && pos.is_pseudo_legal(m) && pos.is_legal(m)
}
