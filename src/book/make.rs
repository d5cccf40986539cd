//! The `ryuo book` tools: a book from game records (`from-sfens`), a
//! synthetic book of random positions for load-time measurements
//! (`synth`), and that measurement (`bench`).

use super::format::{self, write_header, write_position};
use super::{BookKey, BookMove};
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::progress::Progress;
use crate::search::{Control, Limits, SearchOptions, Searcher, Silent};
use crate::types::Move;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::time::Instant;

/// How often each move was played in one position, and what followed it.
struct Seen {
    /// The position as first met (its ply number is written).
    sfen: String,
    /// Move, times played, replies with their counts.
    moves: Vec<(Move, u32, Counts)>,
}

/// Moves with how often each was played.
type Counts = Vec<(Move, u32)>;

/// What `from_sfens` read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FromSfensReport {
    /// Game records used.
    pub games: usize,
    /// Lines refused or cut short (an illegal move ends a game there).
    pub bad_lines: usize,
    /// The first of them: line number and why.
    pub first_problem: Option<String>,
    /// Positions written.
    pub positions: usize,
    /// Moves written.
    pub moves: usize,
}

/// Builds a book from game records, one a line: `[position] startpos
/// [moves …]` or `[position] sfen <sfen> [moves …]`. Every move played at a
/// ply up to `max_ply` is an entry counted by how often it was played; its
/// ponder move is the reply played most often; value and depth are 0.
pub fn from_sfens(
    input: impl BufRead,
    max_ply: u32,
    out: &mut impl Write,
) -> io::Result<FromSfensReport> {
    let mut seen: HashMap<BookKey, Seen> = HashMap::new();
    let mut report = FromSfensReport::default();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        let words = words.strip_prefix(&["position"]).unwrap_or(&words);
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        let mut problem = |why: String| {
            report.bad_lines += 1;
            report
                .first_problem
                .get_or_insert_with(|| format!("line {}: {why}", i + 1));
        };
        let (mut pos, moves) = match setup(words) {
            Ok(x) => x,
            Err(why) => {
                problem(why);
                continue;
            }
        };
        report.games += 1;
        let mut played = Vec::new();
        let mut end = pos.clone();
        for text in moves {
            match end.parse_usi_move(text) {
                Some(m) => {
                    played.push(m);
                    end.do_move(m);
                }
                None => {
                    problem(format!("illegal move '{}': game cut there", short(text)));
                    break;
                }
            }
        }
        for (n, &m) in played.iter().enumerate() {
            if pos.game_ply() <= max_ply {
                record(&mut seen, &pos, m, played.get(n + 1).copied());
            }
            pos.do_move(m);
        }
    }
    let mut positions: Vec<Seen> = seen.into_values().collect();
    positions.sort_by(|a, b| a.sfen.cmp(&b.sfen));
    write_header(out)?;
    for p in &mut positions {
        p.moves
            .sort_by(|a, b| b.1.cmp(&a.1).then(a.0.to_usi().cmp(&b.0.to_usi())));
        let entries: Vec<BookMove> = p
            .moves
            .iter()
            .map(|(mv, count, replies)| BookMove {
                mv: *mv,
                ponder: replies
                    .iter()
                    .max_by_key(|(_, n)| *n)
                    .map_or(Move::NONE, |r| r.0),
                value: 0,
                depth: 0,
                count: *count,
            })
            .collect();
        write_position(out, &p.sfen, &entries)?;
        report.positions += 1;
        report.moves += entries.len();
    }
    out.flush()?;
    Ok(report)
}

/// The position a record starts from and its move words.
fn setup<'a>(words: &'a [&'a str]) -> Result<(Position, &'a [&'a str]), String> {
    let at = words.iter().position(|&w| w == "moves");
    let (head, moves) = match at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let pos = match head {
        ["startpos"] => Position::startpos(),
        ["sfen", sfen @ ..] => {
            Position::from_sfen(&sfen.join(" ")).map_err(|e| format!("bad sfen: {e}"))?
        }
        _ => return Err("expected 'startpos …' or 'sfen … [moves …]'".into()),
    };
    Ok((pos, moves))
}

fn record(seen: &mut HashMap<BookKey, Seen>, pos: &Position, m: Move, reply: Option<Move>) {
    let entry = seen.entry(BookKey::of(pos, false)).or_insert_with(|| Seen {
        sfen: pos.to_sfen(),
        moves: Vec::new(),
    });
    let i = match entry.moves.iter().position(|e| e.0 == m) {
        Some(i) => i,
        None => {
            entry.moves.push((m, 0, Vec::new()));
            entry.moves.len() - 1
        }
    };
    let slot = &mut entry.moves[i];
    slot.1 = slot.1.saturating_add(1);
    if let Some(r) = reply {
        match slot.2.iter_mut().find(|(mv, _)| *mv == r) {
            Some(found) => found.1 += 1,
            None => slot.2.push((r, 1)),
        }
    }
}

fn short(text: &str) -> String {
    crate::usi::output::shorten(text, 20)
}

/// What `from_selfplay` plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfplaySettings {
    /// Games to play.
    pub games: usize,
    /// Depth of every search.
    pub depth: i32,
    /// Positions after this ply are neither searched nor written.
    pub max_ply: u32,
    /// Random legal plies that open each game (not written), so that the
    /// games differ.
    pub random_plies: u32,
    /// Seed of those random plies.
    pub seed: u64,
    /// Hash table, MiB.
    pub hash_mib: usize,
}

/// What `from_selfplay` wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SelfplayReport {
    /// Positions written.
    pub positions: usize,
    /// Moves written.
    pub moves: usize,
}

/// Builds a search-scored book: the engine plays itself at a fixed depth
/// after a few random plies; every position searched is written with the
/// move played, its score for the side to move, the depth, the second
/// move of the PV as ponder move, and how often the move was played.
/// `progress` counts the games.
pub fn from_selfplay(
    settings: &SelfplaySettings,
    out: &mut impl Write,
    progress: &mut Progress,
) -> io::Result<SelfplayReport> {
    let mut rng = StdRng::seed_from_u64(settings.seed);
    let mut searcher = Searcher::new(settings.hash_mib.max(1));
    let options = SearchOptions::default();
    let limits = Limits {
        depth: Some(settings.depth.max(1)),
        ..Limits::default()
    };
    let mut seen: HashMap<BookKey, (String, Vec<BookMove>)> = HashMap::new();
    for game in 0..settings.games {
        progress.update(game as u64, &format!(", {} positions", seen.len()));
        let mut pos = Position::startpos();
        while pos.game_ply() <= settings.max_ply {
            let legal = legal_moves(&pos);
            let Some(&random) = legal.choose(&mut rng) else {
                break;
            };
            if pos.game_ply() <= settings.random_plies {
                pos.do_move(random);
                continue;
            }
            let result =
                searcher.search(&pos, &limits, &options, &Control::new(false), &mut Silent);
            let Some(best) = result.best.filter(|_| !result.declare_win) else {
                break;
            };
            let (_, moves) = seen
                .entry(BookKey::of(&pos, false))
                .or_insert_with(|| (pos.to_sfen(), Vec::new()));
            match moves.iter_mut().find(|m| m.mv == best) {
                Some(m) => m.count = m.count.saturating_add(1),
                None => moves.push(BookMove {
                    mv: best,
                    ponder: result.pv.get(1).copied().unwrap_or(Move::NONE),
                    value: result.score,
                    depth: result.depth.clamp(0, u16::MAX as i32) as u16,
                    count: 1,
                }),
            }
            pos.do_move(best);
        }
    }
    progress.update(
        settings.games as u64,
        &format!(", {} positions", seen.len()),
    );
    progress.finish();
    let mut positions: Vec<(String, Vec<BookMove>)> = seen.into_values().collect();
    positions.sort_by(|a, b| a.0.cmp(&b.0));
    write_header(out)?;
    let mut report = SelfplayReport::default();
    for (sfen, mut moves) in positions {
        moves.sort_by_key(|m| std::cmp::Reverse((m.value, m.count)));
        write_position(out, &sfen, &moves)?;
        report.positions += 1;
        report.moves += moves.len();
    }
    out.flush()?;
    Ok(report)
}

/// Longest random game `synth` plays before starting another.
const SYNTH_GAME_PLIES: u32 = 80;

/// Writes a book of `positions` distinct positions met in random legal
/// games from the start position, each with one to three random legal
/// moves (random values, depths and counts): a stand-in for a large real
/// book when measuring load time. The same `seed` writes the same book.
pub fn synth(positions: usize, seed: u64, out: &mut impl Write) -> io::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut written: HashSet<BookKey> = HashSet::with_capacity(positions);
    write_header(out)?;
    while written.len() < positions {
        let mut pos = Position::startpos();
        while pos.game_ply() <= SYNTH_GAME_PLIES && written.len() < positions {
            let legal = legal_moves(&pos);
            if legal.is_empty() {
                break;
            }
            if written.insert(BookKey::of(&pos, false)) {
                let n = rng.gen_range(1..=3).min(legal.len());
                let entries: Vec<BookMove> = legal
                    .choose_multiple(&mut rng, n)
                    .map(|&mv| {
                        let mut after = pos.clone();
                        after.do_move(mv);
                        BookMove {
                            mv,
                            ponder: legal_moves(&after)
                                .choose(&mut rng)
                                .copied()
                                .unwrap_or(Move::NONE),
                            value: rng.gen_range(-300..=300),
                            depth: rng.gen_range(0..=32),
                            count: rng.gen_range(1..=100),
                        }
                    })
                    .collect();
                write_position(out, &pos.to_sfen(), &entries)?;
            }
            let &mv = legal.choose(&mut rng).unwrap_or(&legal[0]);
            pos.do_move(mv);
        }
    }
    out.flush()
}

/// Loads the book at `path` and reports its size and the time taken, as
/// `isready` would; then times probes of the positions of random games.
pub fn bench(path: &Path) -> Result<String, String> {
    let cpu_before = cpu_time_ms();
    let loaded = format::load(path)?;
    let cpu = match (cpu_before, cpu_time_ms()) {
        (Some(a), Some(b)) => format!(" ({} ms of CPU)", b.saturating_sub(a)),
        _ => String::new(),
    };
    let book = &loaded.book;
    let mut text = format!(
        "book {}: {} positions, {} moves, {} lines skipped; loaded in {} ms{cpu}\n",
        path.display(),
        book.positions(),
        book.move_count(),
        loaded.skipped,
        loaded.elapsed.as_millis()
    );
    let mut rng = StdRng::seed_from_u64(1);
    let (mut probes, mut hits) = (0u64, 0u64);
    let start = Instant::now();
    for _ in 0..1000 {
        let mut pos = Position::startpos();
        for _ in 0..40 {
            probes += 1;
            hits += !book.lookup(&pos, true).is_empty() as u64;
            let legal = legal_moves(&pos);
            let Some(&mv) = legal.choose(&mut rng) else {
                break;
            };
            pos.do_move(mv);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    text.push_str(&format!(
        "{probes} probes along random games ({hits} hits), {:.0} probes/s with move generation\n",
        probes as f64 / secs.max(1e-9)
    ));
    Ok(text)
}

/// CPU time (user and system) of this process so far, in ms, where
/// `/proc` tells it (Linux): on a busy machine wall time says little.
fn cpu_time_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields 14 and 15 (utime, stime), counted after the ")" that ends
    // the command name; in clock ticks, almost always 100 a second.
    let after = stat.rsplit_once(')')?.1;
    let mut fields = after.split_ascii_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) * 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_counted_entries() {
        let games = "startpos moves 7g7f 3c3d 2g2f\n\
                     position startpos moves 7g7f 8c8d\n\
                     startpos moves 2g2f\n\
                     # a comment\n\
                     startpos moves 7g7f 3c3d 9a9b\n\
                     nonsense\n";
        let mut out = Vec::new();
        let report = from_sfens(games.as_bytes(), 1, &mut out).unwrap();
        assert_eq!((report.games, report.bad_lines), (4, 2), "{report:?}");
        assert_eq!((report.positions, report.moves), (1, 2));
        let loaded = format::parse(&out[..]).unwrap();
        let moves = loaded.book.lookup(&Position::startpos(), false);
        let summary: Vec<String> = moves
            .iter()
            .map(|m| format!("{} {} {}", m.mv, m.ponder, m.count))
            .collect();
        assert_eq!(summary, ["7g7f 3c3d 3", "2g2f none 1"]);
        let mut out = Vec::new();
        let report = from_sfens(games.as_bytes(), 2, &mut out).unwrap();
        assert_eq!(report.positions, 2);
    }

    #[test]
    fn selfplay_writes_searched_legal_moves() {
        let settings = SelfplaySettings {
            games: 2,
            depth: 2,
            max_ply: 6,
            random_plies: 2,
            seed: 3,
            hash_mib: 1,
        };
        let mut out = Vec::new();
        let report = from_selfplay(&settings, &mut out, &mut Progress::hidden()).unwrap();
        assert!(report.positions >= 4, "{report:?}");
        let loaded = format::parse(&out[..]).unwrap();
        assert_eq!(loaded.skipped, 0);
        assert_eq!(loaded.book.positions(), report.positions);
        let text = String::from_utf8(out).unwrap();
        for block in text.split("sfen ").skip(1) {
            let mut lines = block.lines();
            let pos = Position::from_sfen(lines.next().unwrap()).unwrap();
            for line in lines {
                let mv = line.split(' ').next().unwrap();
                assert!(pos.parse_usi_move(mv).is_some(), "{line}");
                let fields: Vec<&str> = line.split(' ').collect();
                assert_eq!(fields.len(), 5, "{line}");
                assert!(["1", "2"].contains(&fields[3]), "{line}");
            }
        }
    }

    #[test]
    fn synth_writes_distinct_legal_positions() {
        let mut out = Vec::new();
        synth(300, 5, &mut out).unwrap();
        let loaded = format::parse(&out[..]).unwrap();
        assert_eq!((loaded.book.positions(), loaded.skipped), (300, 0));
        let mut again = Vec::new();
        synth(300, 5, &mut again).unwrap();
        assert_eq!(out, again);
    }
}
