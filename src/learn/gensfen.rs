//! Training positions by self-play (`ryuo gensfen`).
//!
//! A run plays numbered games: game `j` of shard `i` draws its random
//! opening from its own generator, keyed by (seed, `i`, `j`) (`game_rng`),
//! and each game starts with a cleared searcher, so a game is a function of
//! its number alone. Any thread may play any game: each takes the next
//! number, plays it with its own single-threaded `Searcher` (a few random
//! legal plies from the start position for variety, then the searched best
//! move at every ply), and sends it whole to one writer. Every quiet
//! position (not in check, best move not a capture) after the random
//! opening is kept with the search score and move; when the game ends, each
//! kept position gets the result from its side to move's view.
//!
//! The writer emits whole games in game-number order (holding back those
//! that finish early) and stops at exactly `count` records, cutting the
//! last game short. The search is limited by nodes or depth, never by time,
//! so the file is a pure function of the settings: the same bytes whatever
//! the number of threads. Shards of one seed never share a game's
//! generator, and their files concatenate into one.

use super::file::PsvWriter;
use super::packed::{PackedSfen, PackedSfenValue};
use crate::movegen::legal_moves;
use crate::position::{Position, Repetition};
use crate::progress::Progress;
use crate::search::params::MATE_IN_MAX_PLY;
use crate::search::{Control, Evaluator, Limits, SearchOptions, Searcher, Silent};
use crate::types::{Color, Move, Value};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Plies in a row that the score must stay beyond the eval limit, in the
/// same side's favour, before the game is adjudicated: one wild score from
/// a shallow search should not decide a game.
pub const ADJUDICATION_PLIES: u32 = 4;

/// How often progress is printed when stderr is not a terminal.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(5);

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
    /// Games played in parallel, one per thread (the output does not
    /// depend on it).
    pub threads: usize,
    /// Seed of every game's generator (see `game_rng`).
    pub seed: u64,
    /// Which shard of the seed's games this run plays.
    pub shard: Shard,
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
            shard: Shard::WHOLE,
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

/// Part `index` of a generation split into `count` shards (`--shard
/// i/n`). The shard's index keys its games' generators (`game_rng`), so
/// shards of one seed play different games and their files concatenate;
/// `count` only bounds the index (and is recorded in the manifest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, `0..count`.
    pub index: u32,
    /// How many shards the generation has.
    pub count: u32,
}

impl Shard {
    /// The whole generation, one shard (`0/1`).
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };
}

impl Default for Shard {
    fn default() -> Self {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Reads `i/n` with `0 <= i < n`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let Some((i, n)) = s.split_once('/') else {
            return Err(format!("'{s}' is not of the form i/n (e.g. 0/4)"));
        };
        let number = |t: &str, what: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|e| format!("bad shard {what} '{t}': {e}"))
        };
        let (index, count) = (number(i, "index")?, number(n, "count")?);
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is not below the count {count} (shards are 0..{count})"
            ));
        }
        Ok(Shard { index, count })
    }
}

/// The random generator of game `game` of shard `shard` of a run seeded
/// `seed`. Its 256-bit key is (seed, shard, game, a tag), so two games have
/// the same generator only when all three numbers are equal: the shards of
/// one seed never repeat each other's games, however many there are, and
/// shard `i`'s games are the same whatever `n` in `i/n`.
pub fn game_rng(seed: u64, shard: u32, game: u64) -> StdRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&u64::from(shard).to_le_bytes());
    key[16..24].copy_from_slice(&game.to_le_bytes());
    key[24..].copy_from_slice(b"gensfen1");
    StdRng::from_seed(key)
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
    /// Games played to the end and taken in order, those without a kept
    /// position included: the games written are among numbers
    /// `0..games_taken`.
    pub games_taken: u64,
    /// Of the games written, how many ended each way (indexed as
    /// `GameEnd::ALL`).
    pub ends: [u64; 5],
    /// Wall time.
    pub elapsed: Duration,
}

/// Generates `config.count` records into `out`, showing progress on
/// `progress`.
pub fn run<W: Write>(
    config: &GensfenConfig,
    out: &mut PsvWriter<W>,
    progress: &mut Progress,
) -> Result<GensfenStats, GensfenError> {
    config.validate()?;
    let stop = AtomicBool::new(false);
    let next_game = AtomicU64::new(0);
    let start = Instant::now();
    let result = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(u64, Game)>(config.threads * 2);
        for _ in 0..config.threads {
            let tx = tx.clone();
            let (stop, next_game) = (&stop, &next_game);
            let spawned = std::thread::Builder::new()
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || worker(config, next_game, stop, tx));
            if let Err(e) = spawned {
                stop.store(true, Ordering::Relaxed);
                return Err(GensfenError::Io(e));
            }
        }
        drop(tx);
        let r = write_games(config, rx, out, progress);
        stop.store(true, Ordering::Relaxed);
        r
    });
    let mut stats = result?;
    stats.elapsed = start.elapsed();
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    progress.note(&format!(
        "gensfen: done, {} positions from {} games in {:.1} s ({:.0} positions/s)",
        stats.positions,
        stats.games,
        secs,
        stats.positions as f64 / secs
    ));
    let ends: Vec<String> = GameEnd::ALL
        .iter()
        .zip(stats.ends)
        .map(|(e, n)| format!("{} {n}", e.name()))
        .collect();
    progress.note(&format!("gensfen: games ended by {}", ends.join(", ")));
    progress.finish();
    Ok(stats)
}

/// Plays the next unplayed game, again and again, until stopped.
fn worker(
    config: &GensfenConfig,
    next_game: &AtomicU64,
    stop: &AtomicBool,
    tx: mpsc::SyncSender<(u64, Game)>,
) {
    let mut searcher = Searcher::new(config.hash_mib);
    while !stop.load(Ordering::Relaxed) {
        let number = next_game.fetch_add(1, Ordering::Relaxed);
        let mut rng = game_rng(config.seed, config.shard.index, number);
        let Some(game) = play_game(&mut searcher, &mut rng, config, stop) else {
            return;
        };
        // Games without a kept position are sent too: the writer takes
        // every number in turn.
        if tx.send((number, game)).is_err() {
            return; // the writer is done
        }
    }
}

/// Receives numbered games and writes them in number order until
/// `config.count` records. A game that finishes before those of lower
/// numbers waits in memory; they are at most the games the other threads
/// finish while one is played, a few kilobytes each.
fn write_games<W: Write>(
    config: &GensfenConfig,
    rx: mpsc::Receiver<(u64, Game)>,
    out: &mut PsvWriter<W>,
    progress: &mut Progress,
) -> Result<GensfenStats, GensfenError> {
    let mut stats = GensfenStats::default();
    let mut waiting: BTreeMap<u64, Game> = BTreeMap::new();
    while stats.positions < config.count {
        match rx.recv_timeout(Duration::from_millis(500)) {
            Ok((number, game)) => {
                waiting.insert(number, game);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        while stats.positions < config.count {
            let Some(game) = waiting.remove(&stats.games_taken) else {
                break;
            };
            stats.games_taken += 1;
            if game.records.is_empty() {
                continue;
            }
            stats.games += 1;
            stats.ends[game.end as usize] += 1;
            let left = (config.count - stats.positions) as usize;
            for r in game.records.iter().take(left) {
                out.write(r)?;
                stats.positions += 1;
            }
        }
        progress.update(stats.positions, &format!(", {} games", stats.games));
    }
    Ok(stats)
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
    fn game_generators_differ_by_seed_shard_and_number() {
        let first = |seed, shard, game| game_rng(seed, shard, game).gen::<u64>();
        let a = first(1, 0, 0);
        assert_eq!(a, first(1, 0, 0));
        for other in [first(1, 0, 1), first(1, 1, 0), first(2, 0, 0)] {
            assert_ne!(a, other);
        }
        // The key holds the three numbers whole: (seed, shard, game) and
        // a swapped (game, shard, seed) are different games.
        assert_ne!(first(7, 0, 9), first(9, 0, 7));
    }

    #[test]
    fn shards_are_read_and_checked() {
        assert_eq!("3/8".parse(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!(" 0 / 1 ".parse(), Ok(Shard::WHOLE));
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
        for bad in ["3/2", "2/2", "0/0", "a/b", "1", "", "-1/2", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// A game of `n` records whose scores are `number * 100 + k`.
    fn numbered_game(number: u64, n: usize) -> (u64, Game) {
        let records = (0..n)
            .map(|k| {
                let score = (number * 100) as i16 + k as i16;
                PackedSfenValue::new(&Position::startpos(), score, Move::NONE, 0).unwrap()
            })
            .collect();
        let game = Game {
            records,
            outcome: Outcome::Draw,
            end: GameEnd::MaxPly,
        };
        (number, game)
    }

    #[test]
    fn games_are_written_in_number_order_and_cut_at_the_count() {
        let config = GensfenConfig {
            count: 7,
            ..GensfenConfig::default()
        };
        let (tx, rx) = mpsc::sync_channel(8);
        // Finished out of order; game 1 kept nothing; game 4 is not needed.
        for (number, n) in [(2, 3), (1, 0), (4, 5), (0, 3), (3, 2)] {
            tx.send(numbered_game(number, n)).unwrap();
        }
        drop(tx);
        let mut out = PsvWriter::new(Vec::new());
        let stats = write_games(&config, rx, &mut out, &mut Progress::hidden()).unwrap();
        let bytes = out.finish().unwrap();
        let scores: Vec<i16> = bytes
            .chunks_exact(PackedSfenValue::SIZE)
            .map(|c| PackedSfenValue::from_bytes(c.try_into().unwrap()).score)
            .collect();
        assert_eq!(scores, [0, 1, 2, 200, 201, 202, 300]);
        assert_eq!((stats.positions, stats.games, stats.games_taken), (7, 3, 4));
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
