//! The search thread: one per `go` (or `perft`, `bench` typed at the
//! prompt), owning the searcher while it works and handing it back when
//! done, so the input loop never waits on a lock and `stop`, `ponderhit`
//! and `quit` are read at once.
//!
//! It prints the final `info` lines and exactly one `bestmove` (or, for
//! `go mate`, one `checkmate`), tells the input loop it is done, and ends.
//! If no thread can be made, the job runs on the input thread instead,
//! made to end by itself, so that the `go` is still answered. If the job
//! panics (a bug), the answer is still printed (a legal move, or
//! `checkmate timeout`) and the input loop makes a fresh searcher.

use super::book::BookAnswer;
use super::go::MateLimit;
use super::mate::solve_mate;
use super::output::{is_known_score, perft_report_until, InfoReporter, Output, ReportSettings};
use crate::movegen::legal_moves;
use crate::position::{EnteringKingRule, Position};
use crate::search::{Control, Limits, SearchOptions, SearchResult, Searcher};
use crate::time::TimeBudget;
use crate::types::{Move, Value};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Stack of the search thread: the recursive search keeps about 10 KiB per
/// ply, and the main thread's default stack is too small to be sure.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Set in the environment, no search thread is started (as if the system
/// refused one): a hidden switch for testing the fallback.
pub const NO_THREAD_ENV: &str = "RYUO_DEBUG_NO_SEARCH_THREAD";

/// Set in the environment, every `go` job panics as it starts (as a bug
/// in the search would): a hidden switch for testing that the GUI still
/// gets its answer.
pub const PANIC_ENV: &str = "RYUO_DEBUG_PANIC_IN_SEARCH";

/// What a job run on the input thread may take when nothing else ends it
/// (`go infinite`, `go ponder`, `go mate infinite`): no `stop` can be read
/// while it runs.
const FALLBACK_TIME: Duration = Duration::from_millis(1000);

/// What one `go` (or prompt command) asks of the search thread.
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
        /// Set for a `go ponder` under `Stochastic_Ponder`: the position
        /// searched is the one before the predicted move, and the answer
        /// is for the real one.
        stochastic: Option<Box<StochasticAnswer>>,
    },
    /// Look for a mate and answer `checkmate`.
    Mate(MateLimit),
    /// Play a book move: print its lines, wait while pondering (USI: no
    /// `bestmove` before `ponderhit` or `stop`), then answer.
    Book(BookAnswer),
    /// `perft <depth>` at the prompt: leaf counts by root move.
    Perft(u32),
    /// `bench [depth]` at the prompt, on the engine's searcher.
    Bench {
        /// Depth of every search.
        depth: i32,
        /// Evaluation and pruning switches as set by the options.
        options: SearchOptions,
    },
}

impl Job {
    /// The job made to end by itself, for the input thread: nothing waits
    /// for `stop` or `ponderhit`, and what nothing else limits gets
    /// `FALLBACK_TIME`.
    fn bounded(self) -> Job {
        match self {
            Job::BestMove {
                mut limits,
                options,
                resign_value,
                report,
                stochastic,
            } => {
                limits.infinite = false;
                if limits.time.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
                    limits.time = Some(TimeBudget {
                        minimum: Duration::ZERO,
                        optimum: FALLBACK_TIME,
                        maximum: FALLBACK_TIME,
                    });
                }
                Job::BestMove {
                    limits,
                    options,
                    resign_value,
                    report,
                    stochastic,
                }
            }
            Job::Mate(MateLimit::Infinite) => Job::Mate(MateLimit::Time(FALLBACK_TIME)),
            other => other,
        }
    }

    /// The answer this job owes the GUI even if it fails: a legal move
    /// for `bestmove` (in the real position of a stochastic ponder),
    /// `checkmate timeout` for `go mate`, nothing for prompt commands.
    fn owed_answer(&self, pos: &Position) -> Option<OwedAnswer> {
        match self {
            Job::BestMove {
                limits, stochastic, ..
            } => {
                let pos = stochastic.as_ref().map_or(pos, |s| &s.real);
                let line = match legal_moves(pos).first() {
                    Some(m) => format!("bestmove {m}"),
                    None => "bestmove resign".to_string(),
                };
                Some(OwedAnswer {
                    line,
                    waits_for_stop: limits.infinite,
                    superseded: stochastic.as_ref().map(|s| Arc::clone(&s.superseded)),
                })
            }
            Job::Book(answer) => Some(OwedAnswer {
                line: answer.bestmove.clone(),
                waits_for_stop: false,
                superseded: None,
            }),
            Job::Mate(limit) => Some(OwedAnswer {
                line: "checkmate timeout".to_string(),
                waits_for_stop: matches!(limit, MateLimit::Infinite),
                superseded: None,
            }),
            Job::Perft(_) | Job::Bench { .. } => None,
        }
    }

    /// Runs the job; the answer line to print last, if it has one.
    fn run(
        self,
        searcher: &mut Searcher,
        pos: &Position,
        control: &Control,
        out: &Output,
    ) -> Option<String> {
        if !matches!(self, Job::Perft(_) | Job::Bench { .. })
            && std::env::var_os(PANIC_ENV).is_some()
        {
            panic!("{PANIC_ENV} is set");
        }
        match self {
            Job::BestMove {
                limits,
                options,
                resign_value,
                report,
                stochastic,
            } => {
                let mut reporter = InfoReporter::with_settings(out.clone(), report);
                if let Some(stochastic) = stochastic {
                    let result = searcher.search(pos, &limits, &options, control, &mut reporter);
                    return stochastic.answer(searcher, &result, &options, out);
                }
                Some(best_move(
                    searcher,
                    pos,
                    &limits,
                    &options,
                    control,
                    resign_value,
                    &mut reporter,
                ))
            }
            Job::Book(answer) => {
                for line in &answer.info {
                    out.line(line);
                }
                wait_until_answer_allowed(control, false);
                Some(answer.bestmove)
            }
            Job::Mate(limit) => Some(solve_mate(searcher, pos, limit, control).usi_line()),
            Job::Perft(depth) => {
                let mut pos = pos.clone();
                match perft_report_until(&mut pos, depth, control.stop_flag()) {
                    Some(report) => out.lines(&report),
                    None => out.info_string(&format!("perft {depth} stopped")),
                }
                None
            }
            Job::Bench { depth, options } => {
                let mut w = out.clone();
                let totals = crate::bench::run_on(searcher, depth, &options, true, &mut w, control);
                crate::bench::print_totals(&totals, &mut w);
                if control.is_stopped() {
                    out.info_string("bench stopped");
                }
                None
            }
        }
    }
}

/// Waits while USI forbids an answer: during a ponder (until `ponderhit`
/// or `stop`), and for `until_stop` (`go infinite`) until `stop`.
fn wait_until_answer_allowed(control: &Control, until_stop: bool) {
    while (until_stop || control.is_pondering()) && !control.is_stopped() {
        thread::sleep(Duration::from_millis(1));
    }
}

/// What a failed job still prints (see `Job::owed_answer`).
struct OwedAnswer {
    /// The answer line.
    line: String,
    /// `go infinite` and `go mate infinite`: not before `stop` (USI).
    waits_for_stop: bool,
    /// A stochastic ponder's flag: once set (at `ponderhit`), a new search
    /// answers instead, and this job must print nothing.
    superseded: Option<Arc<AtomicBool>>,
}

/// A search thread that may still be working.
pub struct Thinking {
    /// Shared with the search: `stop`, `ponderhit`.
    pub control: Arc<Control>,
    /// The position searched (the clock of a `ponderhit` is read for it).
    pub pos: Position,
    /// Set just before the answer line is printed: from then on the
    /// thread is only returning the searcher.
    answered: Arc<AtomicBool>,
    handle: JoinHandle<Searcher>,
}

/// How `Thinking::start` ran a job.
pub enum Started {
    /// On its own thread, still working.
    Thread(Box<Thinking>),
    /// No thread could be made: the job ran on the calling thread, made to
    /// end by itself, and its answer is printed. The searcher is back.
    Inline(Box<Searcher>),
}

impl Thinking {
    /// Starts `job` on `pos` in a new thread, which calls `done` once its
    /// answer is printed. If no thread can be made, says so and runs the
    /// job bounded on this thread.
    pub fn start(
        searcher: Searcher,
        pos: Position,
        job: Job,
        control: Arc<Control>,
        out: Output,
        done: impl FnOnce() + Send + 'static,
    ) -> Started {
        let answered = Arc::new(AtomicBool::new(false));
        // Everything the thread takes, in a slot the failed spawn leaves
        // behind: the searcher must survive it.
        let slot = Arc::new(Mutex::new(Some((searcher, job))));
        let (c, a, o, p, sl) = (
            Arc::clone(&control),
            Arc::clone(&answered),
            out.clone(),
            pos.clone(),
            Arc::clone(&slot),
        );
        let work = move || {
            let taken = sl.lock().unwrap_or_else(PoisonError::into_inner).take();
            let Some((mut searcher, job)) = taken else {
                unreachable!("the slot is filled before the thread starts")
            };
            let owed = job.owed_answer(&p);
            let run = panic::catch_unwind(AssertUnwindSafe(|| job.run(&mut searcher, &p, &c, &o)));
            let answer = match run {
                Ok(answer) => answer,
                Err(payload) => {
                    // A bug: still answer, so that the game is not lost on
                    // time and the engine takes further commands; the
                    // thread then ends by the panic, and the input loop
                    // makes a fresh searcher (its state may be broken).
                    o.error("the search failed (an internal error): answering with a legal move");
                    if let Some(owed) = &owed {
                        wait_until_answer_allowed(&c, owed.waits_for_stop);
                    }
                    a.store(true, Ordering::SeqCst);
                    if let Some(owed) = owed {
                        let superseded = owed.superseded.is_some_and(|s| s.load(Ordering::SeqCst));
                        if !superseded {
                            o.line(&owed.line);
                        }
                    }
                    done();
                    panic::resume_unwind(payload);
                }
            };
            a.store(true, Ordering::SeqCst);
            if let Some(line) = answer {
                o.line(&line);
            }
            done();
            searcher
        };
        let spawned = if std::env::var_os(NO_THREAD_ENV).is_some() {
            Err(format!("disabled by {NO_THREAD_ENV}"))
        } else {
            thread::Builder::new()
                .name("search".into())
                .stack_size(SEARCH_STACK_BYTES)
                .spawn(work)
                .map_err(|e| e.to_string())
        };
        match spawned {
            Ok(handle) => Started::Thread(Box::new(Thinking {
                control,
                pos,
                answered,
                handle,
            })),
            Err(e) => {
                out.error(&format!(
                    "cannot start the search thread ({e}): working on the input thread"
                ));
                let taken = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
                let Some((mut searcher, job)) = taken else {
                    unreachable!("the thread never ran")
                };
                control.ponderhit();
                if let Some(line) = job.bounded().run(&mut searcher, &pos, &control, &out) {
                    out.line(&line);
                }
                Started::Inline(Box::new(searcher))
            }
        }
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

/// What a `go ponder` under `Stochastic_Ponder` answers: it searched the
/// position before the predicted move, so that its work serves whatever
/// the opponent plays (YaneuraOu's option).
pub struct StochasticAnswer {
    /// The position the GUI set, after the predicted move.
    pub real: Position,
    /// The predicted move (the last of the `position` command).
    pub predicted: Move,
    /// Set at `ponderhit`: a normal search of `real` replaces this one,
    /// and this one answers nothing.
    pub superseded: Arc<AtomicBool>,
}

impl StochasticAnswer {
    /// The `bestmove` line in the real position after the search of the
    /// one before it (`None` once superseded): the reply to the predicted
    /// move from the searched line, else the hash table's move there,
    /// else any legal move; always legal in the real position.
    fn answer(
        self,
        searcher: &Searcher,
        result: &SearchResult,
        options: &SearchOptions,
        out: &Output,
    ) -> Option<String> {
        if self.superseded.load(Ordering::SeqCst) {
            return None;
        }
        let real = &self.real;
        let rule = options.entering_king_rule;
        let mut answer = SearchResult::default();
        if let Some(m) = (rule == EnteringKingRule::Try)
            .then(|| real.try_rule_move())
            .flatten()
        {
            answer.best = Some(m);
        } else if real.can_declare_win(rule) {
            answer.declare_win = true;
        } else if result.pv.first() == Some(&self.predicted) && result.pv.len() >= 2 {
            answer.best = Some(result.pv[1]);
            answer.ponder = result.pv.get(2).copied();
        } else {
            answer.best = searcher
                .hash_move(real)
                .or_else(|| legal_moves(real).first().copied());
        }
        Some(bestmove_line(real, &answer, 0, out))
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
        Some(m) if pos.is_legal_move(m) => m,
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
    match result.ponder.filter(|&p| after.is_legal_move(p)) {
        Some(p) => format!("bestmove {best} ponder {p}"),
        None => format!("bestmove {best}"),
    }
}
