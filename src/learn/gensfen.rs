//! Training positions by self-play (`ryuo gensfen`).
//!
//! Each thread plays its own games with its own single-threaded `Searcher`:
//! a few random legal plies from the start position for variety, then the
//! searched best move at every ply. Every quiet position (not in check, best
//! move not a capture) after the random opening is kept with the search
//! score and move; when the game ends, each kept position gets the result
//! from its side to move's view. Whole games go to one writer thread, which
//! stops everyone once enough positions are written.
//!
//! A thread's games depend only on the seed and its index (the search is
//! limited by nodes or depth, never by time), so one thread gives the same
//! file every run; with several threads the games are the same but their
//! order in the file depends on timing.

use super::file::PsvWriter;
use super::packed::{PackedSfen, PackedSfenValue};
use crate::movegen::legal_moves;
use crate::position::{Position, Repetition};
use crate::search::params::MATE_IN_MAX_PLY;
use crate::search::{Control, Evaluator, Limits, SearchOptions, Searcher, Silent};
use crate::types::{Color, Move, Value};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Plies in a row that the score must stay beyond the eval limit, in the
/// same side's favour, before the game is adjudicated: one wild score from
/// a shallow search should not decide a game.
pub const ADJUDICATION_PLIES: u32 = 4;

/// How often progress is printed.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// The recursive search keeps ~10 KiB a ply; worker threads get room.
const WORKER_STACK_BYTES: usize = 64 << 20;

/// What to generate and how.
#[derive(Clone, Debug)]
pub struct GensfenConfig {
    /// Positions to write.
    pub count: u64,
    /// Node budget of each move's search.
    pub nodes: Option<u64>,
    /// Depth of each move's search.
    pub depth: Option<i32>,
    /// Games played in parallel, one per thread.
    pub threads: usize,
    /// Seed; thread `i` plays from `thread_seed(seed, i)`.
    pub seed: u64,
    /// Fewest random plies at the start of a game.
    pub random_min: u32,
    /// Most random plies at the start of a game.
    pub random_max: u32,
    /// Scores are clamped to ±this, and a score beyond it for
    /// `ADJUDICATION_PLIES` plies wins the game.
    pub eval_limit: Value,
    /// A game still going after this many moves is a draw.
    pub max_ply: u32,
    /// Hash table of each thread's searcher, MiB.
    pub hash_mib: usize,
    /// The evaluation the searches use.
    pub evaluator: Evaluator,
}

impl Default for GensfenConfig {
    fn default() -> Self {
        GensfenConfig {
            count: 10_000,
            nodes: None,
            depth: None,
            threads: 1,
            seed: 1,
            random_min: 8,
            random_max: 16,
            eval_limit: 3000,
            max_ply: 320,
            hash_mib: 16,
            evaluator: Evaluator::default(),
        }
    }
}

/// Why generation could not start or went wrong.
#[derive(Debug)]
pub enum GensfenError {
    /// Neither a node nor a depth limit was given.
    NoSearchLimit,
    /// `random_min` exceeds `random_max`.
    BadRandomRange(u32, u32),
    /// The eval limit must be in 1..=32000 (scores are stored in 16 bits).
    BadEvalLimit(Value),
    /// Zero threads.
    NoThreads,
    /// Writing the output failed.
    Io(io::Error),
}

impl fmt::Display for GensfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GensfenError::NoSearchLimit => write!(f, "give --nodes or --depth"),
            GensfenError::BadRandomRange(a, b) => {
                write!(f, "random plies: minimum {a} is above maximum {b}")
            }
            GensfenError::BadEvalLimit(v) => write!(f, "eval limit {v} is not in 1..=32000"),
            GensfenError::NoThreads => write!(f, "at least one thread is needed"),
            GensfenError::Io(e) => write!(f, "cannot write records: {e}"),
        }
    }
}

impl std::error::Error for GensfenError {}

impl From<io::Error> for GensfenError {
    fn from(e: io::Error) -> Self {
        GensfenError::Io(e)
    }
}

impl GensfenConfig {
    /// Checks the settings before any thread starts.
    pub fn validate(&self) -> Result<(), GensfenError> {
        if self.nodes.is_none() && self.depth.is_none() {
            return Err(GensfenError::NoSearchLimit);
        }
        if self.random_min > self.random_max {
            return Err(GensfenError::BadRandomRange(
                self.random_min,
                self.random_max,
            ));
        }
        if !(1..=32_000).contains(&self.eval_limit) {
            return Err(GensfenError::BadEvalLimit(self.eval_limit));
        }
        if self.threads == 0 {
            return Err(GensfenError::NoThreads);
        }
        Ok(())
    }

    fn limits(&self) -> Limits {
        Limits {
            nodes: self.nodes,
            depth: self.depth,
            ..Limits::default()
        }
    }
}

/// The search settings of every gensfen search, built in this one place
/// (an evaluation choice, such as a network file, belongs here).
pub fn search_options(config: &GensfenConfig) -> SearchOptions {
    SearchOptions {
        evaluator: config.evaluator.clone(),
        ..SearchOptions::default()
    }
}

/// The seed of thread `thread`'s random generator: distinct for every
/// (seed, thread) pair in practice, and fixed by them.
pub fn thread_seed(seed: u64, thread: usize) -> u64 {
    splitmix64(seed ^ splitmix64(thread as u64))
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This side won.
    Win(Color),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The result as a record stores it: from `side`'s view.
    pub fn result_for(self, side: Color) -> i8 {
        match self {
            Outcome::Win(c) if c == side => 1,
            Outcome::Win(_) => -1,
            Outcome::Draw => 0,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// No legal move, or the search found a mate.
    Mate,
    /// The score stayed beyond the eval limit.
    EvalLimit,
    /// Fourfold repetition or perpetual check.
    Repetition,
    /// Entering-king declaration.
    Declaration,
    /// The move limit.
    MaxPly,
}

impl GameEnd {
    /// Every reason, in the order `GensfenStats::ends` counts them.
    pub const ALL: [GameEnd; 5] = [
        GameEnd::Mate,
        GameEnd::EvalLimit,
        GameEnd::Repetition,
        GameEnd::Declaration,
        GameEnd::MaxPly,
    ];

    fn name(self) -> &'static str {
        match self {
            GameEnd::Mate => "mate",
            GameEnd::EvalLimit => "eval limit",
            GameEnd::Repetition => "repetition",
            GameEnd::Declaration => "declaration",
            GameEnd::MaxPly => "max ply",
        }
    }
}

/// A finished game: its kept positions and how it ended.
#[derive(Clone, Debug)]
pub struct Game {
    /// The records, in the order played.
    pub records: Vec<PackedSfenValue>,
    /// Who won.
    pub outcome: Outcome,
    /// Why the game ended.
    pub end: GameEnd,
}

/// A game ended by the rules before the side to move searches: fourfold
/// repetition (perpetual check loses), declaration, no legal move, or the
/// move limit.
fn rules_outcome(
    pos: &Position,
    options: &SearchOptions,
    max_ply: u32,
) -> Option<(Outcome, GameEnd)> {
    let us = pos.side_to_move();
    let outcome = match pos.repetition(0) {
        Repetition::Draw => Some(Outcome::Draw),
        Repetition::Win => Some(Outcome::Win(us)),
        Repetition::Loss => Some(Outcome::Win(!us)),
        _ => None,
    };
    if let Some(o) = outcome {
        return Some((o, GameEnd::Repetition));
    }
    if pos.can_declare_win(options.entering_king_rule) {
        return Some((Outcome::Win(us), GameEnd::Declaration));
    }
    if legal_moves(pos).is_empty() {
        return Some((Outcome::Win(!us), GameEnd::Mate));
    }
    if pos.game_ply() > max_ply {
        return Some((Outcome::Draw, GameEnd::MaxPly));
    }
    None
}

/// Plays one game; `None` when `stop` was raised before it ended.
pub fn play_game(
    searcher: &mut Searcher,
    rng: &mut StdRng,
    config: &GensfenConfig,
    stop: &AtomicBool,
) -> Option<Game> {
    let options = search_options(config);
    let limits = config.limits();
    searcher.clear();
    let mut pos = Position::startpos();
    for _ in 0..rng.gen_range(config.random_min..=config.random_max) {
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break; // the game below ends at once: nothing is kept
        }
        pos.do_move(moves[rng.gen_range(0..moves.len())]);
    }
    let mut kept: Vec<(PackedSfen, i16, Move, u16, Color)> = Vec::new();
    let mut streak: Option<(Color, u32)> = None;
    let (outcome, end) = loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(o) = rules_outcome(&pos, &options, config.max_ply) {
            break o;
        }
        let us = pos.side_to_move();
        let control = Control::new(false);
        let result = searcher.search(&pos, &limits, &options, &control, &mut Silent);
        if result.declare_win {
            break (Outcome::Win(us), GameEnd::Declaration);
        }
        let Some(best) = result.best else {
            break (Outcome::Win(!us), GameEnd::Mate);
        };
        let score = result.score;
        if !pos.in_check() && !pos.is_capture(best) {
            if let Ok(sfen) = PackedSfen::pack(&pos) {
                let clamped = score.clamp(-config.eval_limit, config.eval_limit) as i16;
                let ply = pos.game_ply().min(u16::MAX as u32) as u16;
                kept.push((sfen, clamped, best, ply, us));
            }
        }
        if score >= MATE_IN_MAX_PLY {
            break (Outcome::Win(us), GameEnd::Mate);
        }
        if score <= -MATE_IN_MAX_PLY {
            break (Outcome::Win(!us), GameEnd::Mate);
        }
        let ahead = if score > config.eval_limit {
            Some(us)
        } else if score < -config.eval_limit {
            Some(!us)
        } else {
            None
        };
        streak = match (ahead, streak) {
            (None, _) => None,
            (Some(c), Some((s, n))) if c == s => Some((c, n + 1)),
            (Some(c), _) => Some((c, 1)),
        };
        if let Some((c, n)) = streak {
            if n >= ADJUDICATION_PLIES {
                break (Outcome::Win(c), GameEnd::EvalLimit);
            }
        }
        pos.do_move(best);
    };
    let records = kept
        .into_iter()
        .map(|(sfen, score, mv, game_ply, side)| PackedSfenValue {
            sfen,
            score,
            mv: mv.raw(),
            game_ply,
            game_result: outcome.result_for(side),
        })
        .collect();
    Some(Game {
        records,
        outcome,
        end,
    })
}

/// What a run produced.
#[derive(Clone, Copy, Debug, Default)]
pub struct GensfenStats {
    /// Records written.
    pub positions: u64,
    /// Games whose positions were (at least partly) written.
    pub games: u64,
    /// Of those, how many ended each way (indexed as `GameEnd::ALL`).
    pub ends: [u64; 5],
    /// Wall time.
    pub elapsed: Duration,
}

/// Generates `config.count` records into `out`, printing progress to
/// `progress` every few seconds.
pub fn run<W: Write>(
    config: &GensfenConfig,
    out: &mut PsvWriter<W>,
    progress: &mut dyn Write,
) -> Result<GensfenStats, GensfenError> {
    config.validate()?;
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let result = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Game>(config.threads * 2);
        for i in 0..config.threads {
            let tx = tx.clone();
            let stop = &stop;
            let spawned = std::thread::Builder::new()
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || worker(i, config, stop, tx));
            if let Err(e) = spawned {
                stop.store(true, Ordering::Relaxed);
                return Err(GensfenError::Io(e));
            }
        }
        drop(tx);
        let r = write_games(config, rx, out, progress, start);
        stop.store(true, Ordering::Relaxed);
        r
    });
    let mut stats = result?;
    stats.elapsed = start.elapsed();
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    let _ = writeln!(
        progress,
        "gensfen: done, {} positions from {} games in {:.1} s ({:.0} positions/s)",
        stats.positions,
        stats.games,
        secs,
        stats.positions as f64 / secs
    );
    let ends: Vec<String> = GameEnd::ALL
        .iter()
        .zip(stats.ends)
        .map(|(e, n)| format!("{} {n}", e.name()))
        .collect();
    let _ = writeln!(progress, "gensfen: games ended by {}", ends.join(", "));
    Ok(stats)
}

fn worker(thread: usize, config: &GensfenConfig, stop: &AtomicBool, tx: mpsc::SyncSender<Game>) {
    let mut rng = StdRng::seed_from_u64(thread_seed(config.seed, thread));
    let mut searcher = Searcher::new(config.hash_mib);
    while !stop.load(Ordering::Relaxed) {
        let Some(game) = play_game(&mut searcher, &mut rng, config, stop) else {
            return;
        };
        if !game.records.is_empty() && tx.send(game).is_err() {
            return; // the writer is done
        }
    }
}

/// Receives whole games and writes them until `config.count` records.
fn write_games<W: Write>(
    config: &GensfenConfig,
    rx: mpsc::Receiver<Game>,
    out: &mut PsvWriter<W>,
    progress: &mut dyn Write,
    start: Instant,
) -> Result<GensfenStats, GensfenError> {
    let mut stats = GensfenStats::default();
    let mut last_report = Instant::now();
    while stats.positions < config.count {
        match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(game) => {
                stats.games += 1;
                stats.ends[game.end as usize] += 1;
                for r in game
                    .records
                    .iter()
                    .take((config.count - stats.positions) as usize)
                {
                    out.write(r)?;
                    stats.positions += 1;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if last_report.elapsed() >= PROGRESS_EVERY {
            last_report = Instant::now();
            report(config, &stats, start.elapsed(), progress);
        }
    }
    Ok(stats)
}

fn report(config: &GensfenConfig, stats: &GensfenStats, elapsed: Duration, out: &mut dyn Write) {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let rate = stats.positions as f64 / secs;
    let left = config.count.saturating_sub(stats.positions) as f64;
    let eta = if rate > 0.0 {
        format!("{:.0} s", left / rate)
    } else {
        "?".to_string()
    };
    let _ = writeln!(
        out,
        "gensfen: {}/{} positions, {} games, {:.0} positions/s, ETA {}",
        stats.positions, config.count, stats.games, rate, eta
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_from_each_side() {
        let o = Outcome::Win(Color::White);
        assert_eq!(o.result_for(Color::White), 1);
        assert_eq!(o.result_for(Color::Black), -1);
        assert_eq!(Outcome::Draw.result_for(Color::Black), 0);
    }

    #[test]
    fn rules_end_games() {
        let options = SearchOptions::default();
        let mated = Position::from_sfen("4k4/9/9/9/9/9/4p4/4g4/4K4 b - 1").unwrap();
        assert_eq!(
            rules_outcome(&mated, &options, 320),
            Some((Outcome::Win(Color::White), GameEnd::Mate))
        );
        let late = Position::from_sfen(&crate::position::STARTPOS_SFEN.replace(" 1", " 321"));
        assert_eq!(
            rules_outcome(&late.unwrap(), &options, 320),
            Some((Outcome::Draw, GameEnd::MaxPly))
        );
        let mut pos = Position::startpos();
        assert_eq!(rules_outcome(&pos, &options, 320), None);
        for _ in 0..3 {
            for m in ["5i5h", "5a5b", "5h5i", "5b5a"] {
                assert_eq!(rules_outcome(&pos, &options, 320), None);
                let m = pos.parse_usi_move(m).unwrap();
                pos.do_move(m);
            }
        }
        assert_eq!(
            rules_outcome(&pos, &options, 320),
            Some((Outcome::Draw, GameEnd::Repetition))
        );
    }

    #[test]
    fn thread_seeds_differ() {
        assert_ne!(thread_seed(1, 0), thread_seed(1, 1));
        assert_ne!(thread_seed(1, 0), thread_seed(2, 0));
        assert_eq!(thread_seed(5, 3), thread_seed(5, 3));
    }

    #[test]
    fn settings_are_checked() {
        let mut c = GensfenConfig::default();
        assert!(matches!(c.validate(), Err(GensfenError::NoSearchLimit)));
        c.nodes = Some(100);
        assert!(c.validate().is_ok());
        c.random_min = 20;
        assert!(matches!(
            c.validate(),
            Err(GensfenError::BadRandomRange(20, 16))
        ));
        c.random_min = 0;
        c.eval_limit = 40_000;
        assert!(matches!(c.validate(), Err(GensfenError::BadEvalLimit(_))));
    }
}
