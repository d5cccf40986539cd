//! The arguments of `go`, read into a `GoCommand`, and the search limits
//! they mean for a position.

use super::options::shorten;
use crate::position::{parse_usi_move_text, Position};
use crate::search::{Limits, TimeBudget};
use crate::time::{budget_for_clock, budget_for_movetime, remaining_budget, Clock, TimeSettings};
use crate::types::{Color, Move};
use std::time::Duration;

/// How long `go mate` may look for a mate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateLimit {
    /// `go mate <ms>`.
    Time(Duration),
    /// `go mate infinite`: until `stop`.
    Infinite,
}

/// A parsed `go` command (clock values in milliseconds, negative ones read
/// as zero).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoCommand {
    /// Black's main time left.
    pub btime: Option<u64>,
    /// White's main time left.
    pub wtime: Option<u64>,
    /// Byoyomi per move (both sides).
    pub byoyomi: Option<u64>,
    /// Black's Fischer increment.
    pub binc: Option<u64>,
    /// White's Fischer increment.
    pub winc: Option<u64>,
    /// Think exactly this long.
    pub movetime: Option<u64>,
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Think on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Only these root moves (as text; checked against the position later).
    pub searchmoves: Vec<String>,
    /// `go mate …`: look for a mate instead of a move.
    pub mate: Option<MateLimit>,
}

/// Words that start a `go` argument (they end a `searchmoves` list).
const KEYWORDS: [&str; 13] = [
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "perft",
];

/// A millisecond value; a negative clock (some GUIs send them when time
/// is up) counts as zero.
fn millis(word: Option<&str>, key: &str) -> Result<u64, String> {
    let w = word.ok_or_else(|| format!("'{key}' needs a number"))?;
    w.parse::<i64>()
        .map(|v| v.max(0) as u64)
        .map_err(|_| format!("'{key}' needs a number, not '{}'", shorten(w, 20)))
}

fn count(word: Option<&str>, key: &str) -> Result<u64, String> {
    millis(word, key)
}

impl GoCommand {
    /// Reads the words after `go`. Unknown words are returned as warnings
    /// (the search still runs: a GUI waiting for `bestmove` must get one);
    /// a known word with a bad value is an error.
    pub fn parse(args: &[&str]) -> Result<(GoCommand, Vec<String>), String> {
        let mut go = GoCommand::default();
        let mut warnings = Vec::new();
        let mut words = args.iter().copied().peekable();
        while let Some(word) = words.next() {
            match word {
                "btime" => go.btime = Some(millis(words.next(), word)?),
                "wtime" => go.wtime = Some(millis(words.next(), word)?),
                "byoyomi" => go.byoyomi = Some(millis(words.next(), word)?),
                "binc" => go.binc = Some(millis(words.next(), word)?),
                "winc" => go.winc = Some(millis(words.next(), word)?),
                "movetime" => go.movetime = Some(millis(words.next(), word)?),
                "nodes" => go.nodes = Some(count(words.next(), word)?),
                "depth" => {
                    let d = count(words.next(), word)?;
                    go.depth = Some(d.min(i32::MAX as u64) as i32);
                }
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "mate" => go.mate = Some(mate_limit(words.next())?),
                "searchmoves" => {
                    while let Some(m) = words.next_if(|w| !KEYWORDS.contains(w)) {
                        go.searchmoves.push(m.to_string());
                    }
                    if go.searchmoves.is_empty() {
                        return Err("'searchmoves' needs at least one move".into());
                    }
                }
                other => warnings.push(format!(
                    "ignored unknown go argument '{}'",
                    shorten(other, 20)
                )),
            }
        }
        Ok((go, warnings))
    }

    /// The clock of the side to move, if any clock value was given.
    fn clock(&self, side: Color) -> Option<Clock> {
        let any = [self.btime, self.wtime, self.byoyomi, self.binc, self.winc]
            .iter()
            .any(Option::is_some);
        let (time, inc) = match side {
            Color::Black => (self.btime, self.binc),
            Color::White => (self.wtime, self.winc),
        };
        any.then(|| Clock {
            remaining: Duration::from_millis(time.unwrap_or(0)),
            increment: Duration::from_millis(inc.unwrap_or(0)),
            byoyomi: Duration::from_millis(self.byoyomi.unwrap_or(0)),
        })
    }

    /// The time budget for `pos` under `settings`, if the command limits time.
    pub fn time_budget(&self, pos: &Position, settings: &TimeSettings) -> Option<TimeBudget> {
        if let Some(ms) = self.movetime {
            return Some(budget_for_movetime(Duration::from_millis(ms), settings));
        }
        self.clock(pos.side_to_move())
            .map(|c| budget_for_clock(&c, settings, pos.game_ply()))
    }

    /// The search limits in `pos`, the time budget less what is `spent`
    /// already; fails if a `searchmoves` move is not legal.
    pub fn limits(
        &self,
        pos: &Position,
        settings: &TimeSettings,
        spent: Duration,
    ) -> Result<Limits, String> {
        let searchmoves = self
            .searchmoves
            .iter()
            .map(|text| legal_move(pos, text))
            .collect::<Result<Vec<Move>, String>>()?;
        let time = self
            .time_budget(pos, settings)
            .map(|b| remaining_budget(b, spent));
        // A bare `go` (or `go ponder` without a clock) has nothing to end
        // it: it runs like `go infinite`, until `stop`.
        let unbounded = time.is_none() && self.depth.is_none() && self.nodes.is_none();
        Ok(Limits {
            depth: self.depth,
            nodes: self.nodes,
            time,
            infinite: self.infinite || unbounded,
            searchmoves,
        })
    }
}

fn mate_limit(word: Option<&str>) -> Result<MateLimit, String> {
    match word {
        Some("infinite") => Ok(MateLimit::Infinite),
        other => millis(other, "mate").map(|ms| MateLimit::Time(Duration::from_millis(ms))),
    }
}

/// `text` as a legal move in `pos`.
pub fn legal_move(pos: &Position, text: &str) -> Result<Move, String> {
    parse_usi_move_text(text)
        .filter(|&m| pos.is_pseudo_legal(m) && pos.is_legal(m))
        .ok_or_else(|| format!("'{}' is not a legal move here", shorten(text, 20)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<GoCommand, String> {
        let words: Vec<&str> = s.split_ascii_whitespace().collect();
        GoCommand::parse(&words).map(|(g, _)| g)
    }

    #[test]
    fn clocks_and_limits() {
        let g = parse("btime 1000 wtime -5 byoyomi 300 binc 0 winc 7 depth 9 nodes 42").unwrap();
        assert_eq!(g.btime, Some(1000));
        assert_eq!(g.wtime, Some(0));
        assert_eq!(g.byoyomi, Some(300));
        assert_eq!(g.winc, Some(7));
        assert_eq!(g.depth, Some(9));
        assert_eq!(g.nodes, Some(42));
    }

    #[test]
    fn bad_values_are_errors_and_unknown_words_warnings() {
        for bad in [
            "depth abc",
            "btime",
            "byoyomi xyz",
            "depth",
            "mate",
            "searchmoves",
            "nodes -",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let (g, warnings) = GoCommand::parse(&["frobnicate", "depth", "3"]).unwrap();
        assert_eq!(g.depth, Some(3));
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn searchmoves_stop_at_the_next_keyword() {
        let g = parse("searchmoves 7g7f 2g2f depth 3").unwrap();
        assert_eq!(g.searchmoves, ["7g7f", "2g2f"]);
        assert_eq!(g.depth, Some(3));
        let pos = Position::startpos();
        let limits = g
            .limits(&pos, &TimeSettings::default(), Duration::ZERO)
            .unwrap();
        assert_eq!(limits.searchmoves.len(), 2);
        let g = parse("searchmoves 7g7f 3c3d").unwrap();
        assert!(g
            .limits(&pos, &TimeSettings::default(), Duration::ZERO)
            .is_err());
    }

    #[test]
    fn mate_limits() {
        assert_eq!(
            parse("mate infinite").unwrap().mate,
            Some(MateLimit::Infinite)
        );
        assert_eq!(
            parse("mate 3000").unwrap().mate,
            Some(MateLimit::Time(Duration::from_millis(3000)))
        );
    }

    #[test]
    fn the_side_to_move_clock_is_used() {
        let settings = TimeSettings::default();
        let g = parse("btime 600000 wtime 300 byoyomi 0").unwrap();
        let black = Position::startpos();
        let mut white = Position::startpos();
        white.do_move(white.parse_usi_move("7g7f").unwrap());
        let b = g.time_budget(&black, &settings).unwrap();
        let w = g.time_budget(&white, &settings).unwrap();
        assert!(w.maximum <= Duration::from_millis(300), "{w:?}");
        assert!(b.maximum > Duration::from_secs(1), "{b:?}");
    }

    #[test]
    fn bare_go_runs_until_stop() {
        let pos = Position::startpos();
        let s = TimeSettings::default();
        assert!(
            parse("")
                .unwrap()
                .limits(&pos, &s, Duration::ZERO)
                .unwrap()
                .infinite
        );
        assert!(
            parse("ponder")
                .unwrap()
                .limits(&pos, &s, Duration::ZERO)
                .unwrap()
                .infinite
        );
        assert!(
            !parse("depth 3")
                .unwrap()
                .limits(&pos, &s, Duration::ZERO)
                .unwrap()
                .infinite
        );
        assert!(
            !parse("ponder byoyomi 100")
                .unwrap()
                .limits(&pos, &s, Duration::ZERO)
                .unwrap()
                .infinite
        );
    }
}
