//! Mate solver (tsume shogi): depth-first proof-number search (df-pn).
//!
//! The side to move is the attacker and may play only checks; the defender
//! plays every legal evasion, drops between king and checker included. The
//! attacker may have no king. Pawn-drop mate is illegal (the rules core
//! enforces it), a repetition is not mate, and perpetual check is not mate.
//!
//! Module map: `search` is the df-pn core (and documents how repetitions
//! are handled), `table` its transposition table with hand domination,
//! `moves` the check and evasion generators, `hand` proof/disproof hand
//! arithmetic, `problems` runs a problem set (`ryuo mate --file`),
//! `one_ply` the cheap contact mate-in-one (the main search asks it, and the
//! solver at each attacker node it meets first), `key` the board key the
//! table is indexed by, and `line` turns a proof into a short, verified
//! mating line.
//!
//! Lengths count every ply, interpositions included: a futile
//! interposition (one the attacker simply takes) lengthens the mate as it
//! would in a game, unlike the tsume convention of not counting it.

mod hand;
mod line;
mod moves;
pub mod one_ply;
pub mod problems;
mod search;
mod table;

use crate::position::Position;
use crate::types::Move;
use search::{Buffers, Limits, Outcome, PathEntry, Search, MAX_PLY};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use table::Table;

/// The longest mate searched for, in plies; a longer one is reported as no
/// mate.
const MAX_MATE_LENGTH: u16 = (MAX_PLY - 1) as u16;

/// Extra nodes allowed, past the caller's limits, to read the mating line
/// out of a proof already found (it usually takes a handful of table
/// probes; the grace only matters when the table lost parts of the proof).
const LINE_GRACE_NODES: u64 = 200_000;

/// The grace for the table line of each shorter proof found while
/// shortening: its entries are fresh, yet reading it re-proves a few
/// nodes (with 1 node, probes alone, no step's line was read); a step
/// whose line needs more is not worth the shortening's time. 20,000 gave
/// the same answers on `tsume320.tsv` at 1,000,000 nodes a problem.
const STEP_LINE_GRACE_NODES: u64 = 2_000;

/// Never set: the stop flag of the grace period.
static NEVER_STOP: AtomicBool = AtomicBool::new(false);

/// Shares of a time budget. Prove first: the proof search may use up to
/// `PROVE_SHARE` of it, and its first proof, read off the table, is the
/// answer (reading it may overrun the budget by `LINE_OVERRUN` when the
/// table lost part of the proof). Shorten later: while the line in hand
/// is as long as the length proven (each shorter proof's table line is
/// read as soon as it is found), the shortening may use all the time
/// left, as no line with longer defences exists. Otherwise it gets
/// `SHORTEN_SHARE` of the time left, and the rest goes to reading the
/// line with the longest defence; if that does not finish, the table line
/// of the shortest proof whose line is as long as proven stands, else the
/// first line.
/// (Before, the proof stopped at 60 % to leave time for reading a line
/// that re-proved the defences: at 100 ms, 86 of the set's 120 mates.
/// Then at 90 %: a search without a proof gave up at 90.6 ms of 100, yet
/// the first line takes a few probes, well inside the 3 % left. The
/// shortening had half of the time left until 2026-11-27: on a slower
/// machine, at 1000 ms, 14 and 14 mates of `tsume320.tsv` longer than the
/// shortest known, against 9 and 8 with 80 % (the line with the longest
/// defences mostly did not finish when the shortening had not: the
/// shortened proof's table line is what stands then). Until 2026-11-28
/// the shortening stopped at that share even with an exact line in hand,
/// and the longest defences were read again to no gain: the same answers
/// at 1,000,000 nodes a problem, with 9 % more nodes in all.)
const PROVE_SHARE: f64 = 0.97;
/// See `PROVE_SHARE`.
const SHORTEN_SHARE: f64 = 0.8;
/// See `PROVE_SHARE`.
const LINE_OVERRUN: Duration = Duration::from_millis(2);

/// The answer of a mate search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A verified mating line: attacker and defender moves alternating,
    /// ending with the mating move.
    Mate(Vec<Move>),
    /// There is no mate (within `MAX_MATE_LENGTH` plies).
    NoMate,
    /// A limit stopped the search before it knew.
    Timeout,
}

/// A df-pn mate solver owning its transposition table.
pub struct MateSolver {
    table: Table,
    buffers: Buffers,
    nodes: u64,
}

impl MateSolver {
    /// A solver with a table of about `hash_mib` MiB.
    pub fn new(hash_mib: usize) -> MateSolver {
        MateSolver {
            table: Table::new(hash_mib),
            buffers: Buffers::new(),
            nodes: 0,
        }
    }

    /// Like `new`, but an error instead of an abort if the table cannot be
    /// allocated.
    pub fn try_new(hash_mib: usize) -> Result<MateSolver, String> {
        Ok(MateSolver {
            table: Table::try_new(hash_mib)?,
            buffers: Buffers::new(),
            nodes: 0,
        })
    }

    /// Replaces the table by an empty one of about `hash_mib` MiB; on
    /// failure the old table is kept.
    pub fn resize(&mut self, hash_mib: usize) -> Result<(), String> {
        self.table = Table::try_new(hash_mib)?;
        Ok(())
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Solves for the side to move; stops when `stop` becomes true, when
    /// `max_nodes` (if Some) or `deadline` (if Some) is reached.
    ///
    /// A mate is returned with the shortest line the limits allowed to
    /// establish, verified move by move (see `PROVE_SHARE` for how the
    /// time is shared). Once a mate is proven, each reading of a line (the
    /// first, the shortened proof's, the longest defences') may take up to
    /// `LINE_GRACE_NODES` more nodes, past a node limit, but not past the
    /// deadline (+2 ms).
    /// The table is kept between calls.
    pub fn solve(
        &mut self,
        pos: &mut Position,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        max_nodes: Option<u64>,
    ) -> MateResult {
        self.solve_with(pos, stop, deadline, max_nodes, true)
    }

    /// Like `solve`, but the first proof's line is the answer at once: no
    /// time goes to a shorter mate (the search's root mate test, where any
    /// mate wins and the time left belongs to the alpha-beta search).
    pub fn solve_first(
        &mut self,
        pos: &mut Position,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        max_nodes: Option<u64>,
    ) -> MateResult {
        self.solve_with(pos, stop, deadline, max_nodes, false)
    }

    fn solve_with(
        &mut self,
        pos: &mut Position,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        max_nodes: Option<u64>,
        shorten: bool,
    ) -> MateResult {
        let start = Instant::now();
        let share =
            |f: f64| deadline.map(|d| start + d.saturating_duration_since(start).mul_f64(f));
        let limits = Limits {
            stop,
            deadline: share(PROVE_SHARE),
            max_nodes,
        };
        let mut search = Search::new(&mut self.table, &mut self.buffers, limits);
        search.set_path(
            0,
            PathEntry {
                key: pos.board_key(),
                hand: pos.hand(pos.side_to_move()),
            },
        );
        let result = match search.prove(pos, 0, MAX_MATE_LENGTH) {
            Outcome::Unknown => MateResult::Timeout,
            Outcome::Disproven => MateResult::NoMate,
            Outcome::Proven { len } => {
                // The answer first: the proof as the table holds it.
                search.aborted = false;
                search.limits = Limits {
                    stop: &NEVER_STOP,
                    deadline: deadline.map(|d| d + LINE_OVERRUN),
                    max_nodes: Some(search.nodes + LINE_GRACE_NODES),
                };
                let first = line::table_line(&mut search, pos, len)
                    .filter(|moves| line::is_verified_mate(pos, moves));
                // Then a shorter one, in the time left: all of it while
                // the line in hand is as long as the length proven (the
                // longest defences could not make it longer), else a share
                // that leaves time to read one that is.
                let now = Instant::now();
                let shorten_deadline = if is_exact(&first, len) {
                    deadline
                } else {
                    deadline.map(|d| now + d.saturating_duration_since(now).mul_f64(SHORTEN_SHARE))
                };
                let has_time = shorten && shorten_deadline.is_none_or(|d| now < d);
                let mut best = first;
                // Shortening starts from the proven length, not from the
                // first line's: that line's defender may have given up
                // early, so its length says nothing of the mate's.
                if has_time && len >= 3 {
                    search.aborted = false;
                    search.limits = Limits {
                        stop,
                        deadline: shorten_deadline,
                        max_nodes,
                    };
                    // Each shorter proof's own table line is read as soon
                    // as it is proven (a few probes, before the next,
                    // shorter attempt overwrites parts of it): if the
                    // longest defences below cannot be read in time, the
                    // last of these stands instead of the first line,
                    // which can be twice as long.
                    let shorter = line::shortest_length(&mut search, pos, len, |search, pos, l| {
                        let grace = STEP_LINE_GRACE_NODES;
                        if let Some(moves) = exact_table_line(search, pos, l, deadline, grace) {
                            best = Some(moves);
                            search.limits.deadline = deadline;
                        }
                    });
                    // The shortest proof's line read right after it may have
                    // needed more than the step's grace: read it again
                    // with the full grace.
                    if shorter < len && !is_exact(&best, shorter) {
                        let grace = LINE_GRACE_NODES;
                        if let Some(moves) =
                            exact_table_line(&mut search, pos, shorter, deadline, grace)
                        {
                            best = Some(moves);
                        }
                    }
                    // The line read with the longest defence replaces the
                    // one in hand when that is shorter than the length
                    // proven, whenever it can be read in time: by the
                    // deadline itself, as there is an answer already. A
                    // node cap only where the caller set one: re-proving
                    // the defences of a long mate can take more than the
                    // grace (the first line then stood, longer than the
                    // length just proven, with seconds left).
                    if !is_exact(&best, shorter) {
                        search.aborted = false;
                        search.limits = Limits {
                            stop,
                            deadline,
                            max_nodes: max_nodes.map(|_| search.nodes + LINE_GRACE_NODES),
                        };
                        if let Some(moves) = line::extract_line(&mut search, pos, shorter)
                            .filter(|moves| line::is_verified_mate(pos, moves))
                        {
                            best = Some(moves);
                        }
                    }
                }
                best.map_or(MateResult::Timeout, MateResult::Mate)
            }
        };
        self.nodes = search.nodes;
        result
    }

    /// Nodes visited by the last `solve`.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// Whether `line` is a line of exactly `len` plies: as long as the length
/// proven, so that no defence could make it longer.
fn is_exact(line: &Option<Vec<Move>>, len: u16) -> bool {
    line.as_ref()
        .is_some_and(|moves| moves.len() == len as usize)
}

/// The table line of the root's proof within `len` plies if it is a
/// verified mate of exactly `len` plies (a shorter table line is one where
/// the defender gave up early, as the table mixes lengths of different
/// attempts: it would understate the mate). Reading it may re-prove lost
/// entries with `grace` nodes more, up to the deadline + `LINE_OVERRUN`;
/// the search's limits are restored afterwards.
fn exact_table_line(
    search: &mut Search,
    pos: &mut Position,
    len: u16,
    deadline: Option<Instant>,
    grace: u64,
) -> Option<Vec<Move>> {
    let reading = Limits {
        stop: search.limits.stop,
        deadline: deadline.map(|d| d + LINE_OVERRUN),
        max_nodes: Some(search.nodes + grace),
    };
    let saved = std::mem::replace(&mut search.limits, reading);
    search.aborted = false;
    let line = line::table_line(search, pos, len)
        .filter(|moves| moves.len() == len as usize)
        .filter(|moves| line::is_verified_mate(pos, moves));
    search.limits = saved;
    search.aborted = false;
    line
}

/// Mate in one by every check (distant and discovered ones too): a legal
/// checking move after which the defender has no legal move. Exact but too
/// slow for every search node, where `one_ply::contact_mate_in_one` serves.
pub fn mate_in_one(pos: &mut Position) -> Option<Move> {
    let mut checks = crate::movegen::MoveList::new();
    moves::generate_checks(pos, &mut checks);
    checks.into_iter().find(|&m| {
        pos.do_move(m);
        let mated = !moves::has_evasion(pos);
        pos.undo_move(m);
        mated
    })
}

/// The `ryuo mate` command: solves `sfen` within `time_ms` (no limit if
/// `None`) with a table of `hash_mib` MiB and returns the text to print:
/// `checkmate <moves>`, `checkmate nomate` or `checkmate timeout`, then a
/// line with nodes, time and speed.
pub fn run_cli(sfen: &str, time_ms: Option<u64>, hash_mib: usize) -> String {
    let mut pos = match Position::from_sfen(sfen) {
        Ok(pos) => pos,
        Err(e) => return format!("error: {e}\n"),
    };
    let mut solver = match MateSolver::try_new(hash_mib) {
        Ok(solver) => solver,
        Err(e) => return format!("error: {e}\n"),
    };
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    // A deadline past what the clock can represent is no deadline.
    let deadline = time_ms.and_then(|ms| start.checked_add(Duration::from_millis(ms)));
    let result = solver.solve(&mut pos, &stop, deadline, None);
    let elapsed = start.elapsed();
    let verdict = match result {
        MateResult::Mate(moves) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_usi()).collect();
            format!("checkmate {}", text.join(" "))
        }
        MateResult::NoMate => "checkmate nomate".to_string(),
        MateResult::Timeout => "checkmate timeout".to_string(),
    };
    let ms = elapsed.as_millis();
    let nps = solver.nodes() as u128 * 1000 / ms.max(1);
    format!(
        "{verdict}\ninfo nodes {} time {ms} nps {nps}\n",
        solver.nodes()
    )
}
