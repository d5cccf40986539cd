//! The arguments of `go`, read into a `GoCommand`, and the search limits
//! they mean for a position.

use super::output::shorten;
use crate::position::{parse_usi_move_text, Position};
use crate::search::Limits;
use crate::time::{
    budget_for_clock, budget_for_movetime, remaining_budget, Clock, TimeBudget, TimeSettings,
};
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

/// The words of a `go` command, one at a time.
type Words<'a, 'b> = std::iter::Peekable<std::iter::Copied<std::slice::Iter<'b, &'a str>>>;

/// The number after `key`; a negative clock (some GUIs send them when time
/// is up) counts as zero. A missing value (end of line or the next
/// keyword) is not consumed, so the next argument still counts.
fn number(words: &mut Words, key: &str) -> Result<u64, String> {
    let Some(w) = words.next_if(|w| !KEYWORDS.contains(w)) else {
        return Err(format!("'{key}' needs a number"));
    };
    w.parse::<i64>()
        .map(|v| v.max(0) as u64)
        .map_err(|_| format!("'{key}' needs a number, not '{}'", shorten(w, 24)))
}

impl GoCommand {
    /// Reads the words after `go`. It never fails: every `go` must get its
    /// answer, so an unknown word or a bad value comes back as a warning
    /// and is ignored, and the command means what the rest of it says.
    pub fn parse(args: &[&str]) -> (GoCommand, Vec<String>) {
        let mut go = GoCommand::default();
        let mut warnings = Vec::new();
        let mut words: Words = args.iter().copied().peekable();
        while let Some(word) = words.next() {
            let slot = match word {
                "btime" => &mut go.btime,
                "wtime" => &mut go.wtime,
                "byoyomi" => &mut go.byoyomi,
                "binc" => &mut go.binc,
                "winc" => &mut go.winc,
                "movetime" => &mut go.movetime,
                "nodes" => &mut go.nodes,
                "depth" => {
                    match number(&mut words, word) {
                        Ok(d) => go.depth = Some(d.min(i32::MAX as u64) as i32),
                        Err(e) => warnings.push(format!("{e}; ignored")),
                    }
                    continue;
                }
                "infinite" => {
                    go.infinite = true;
                    continue;
                }
                "ponder" => {
                    go.ponder = true;
                    continue;
                }
                "mate" => {
                    go.mate = Some(mate_limit(&mut words, &mut warnings));
                    continue;
                }
                "searchmoves" => {
                    while let Some(m) = words.next_if(|w| !KEYWORDS.contains(w)) {
                        go.searchmoves.push(m.to_string());
                    }
                    if go.searchmoves.is_empty() {
                        warnings.push("'searchmoves' needs at least one move; ignored".into());
                    }
                    continue;
                }
                other => {
                    warnings.push(format!("unknown argument '{}' ignored", shorten(other, 20)));
                    continue;
                }
            };
            match number(&mut words, word) {
                Ok(v) => *slot = Some(v),
                Err(e) => warnings.push(format!("{e}; ignored")),
            }
        }
        (go, warnings)
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

    /// Whether any clock value (`btime wtime byoyomi binc winc`) was given.
    pub fn has_clock(&self) -> bool {
        [self.btime, self.wtime, self.byoyomi, self.binc, self.winc]
            .iter()
            .any(Option::is_some)
    }

    /// This command with the clock values of `other` instead of its own.
    pub fn with_clock_of(mut self, other: &GoCommand) -> GoCommand {
        self.btime = other.btime;
        self.wtime = other.wtime;
        self.byoyomi = other.byoyomi;
        self.binc = other.binc;
        self.winc = other.winc;
        self
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
    /// already. A `searchmoves` move that is not legal is left out with a
    /// warning; if none is left, every move is searched.
    pub fn limits(
        &self,
        pos: &Position,
        settings: &TimeSettings,
        spent: Duration,
        warnings: &mut Vec<String>,
    ) -> Limits {
        let mut searchmoves = Vec::new();
        for text in &self.searchmoves {
            match legal_move(pos, text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => warnings.push(format!("searchmoves: {e}; ignored")),
            }
        }
        if searchmoves.is_empty() && !self.searchmoves.is_empty() {
            warnings.push("searchmoves: no legal move given; searching every move".into());
        }
        let time = self
            .time_budget(pos, settings)
            .map(|b| remaining_budget(b, spent));
        // A bare `go` (or `go ponder` without a clock) has nothing to end
        // it: it runs like `go infinite`, until `stop`.
        let unbounded = time.is_none() && self.depth.is_none() && self.nodes.is_none();
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            time,
            infinite: self.infinite || unbounded,
            searchmoves,
            no_early_stop: false,
        }
    }
}

/// Limits that hold for every `go` whatever it says (`NodesLimit`,
/// `DepthLimit`, as in fixed-node tournaments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCaps {
    /// Most nodes a search may take.
    pub nodes: Option<u64>,
    /// Deepest iteration.
    pub depth: Option<i32>,
}

impl GoCommand {
    /// `limits` (from this command) with `caps` applied: the smaller of
    /// the command's and the cap's value wins. A command with nothing to
    /// end it is no longer unbounded once capped, unless it said
    /// `infinite` (USI: then the answer waits for `stop`).
    pub fn capped(&self, mut limits: Limits, caps: SearchCaps) -> Limits {
        fn smaller<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        limits.nodes = smaller(limits.nodes, caps.nodes);
        limits.depth = smaller(limits.depth, caps.depth);
        let unbounded = limits.time.is_none() && limits.depth.is_none() && limits.nodes.is_none();
        limits.infinite = self.infinite || unbounded;
        limits
    }
}

/// The limit after `mate`: milliseconds or `infinite`; a bare `go mate`
/// (or one with a bad value, reported) looks until `stop`.
fn mate_limit(words: &mut Words, warnings: &mut Vec<String>) -> MateLimit {
    if words.next_if_eq(&"infinite").is_some() {
        return MateLimit::Infinite;
    }
    if words.peek().is_none_or(|w| KEYWORDS.contains(w)) {
        return MateLimit::Infinite;
    }
    match number(words, "mate") {
        Ok(ms) => MateLimit::Time(Duration::from_millis(ms)),
        Err(e) => {
            warnings.push(format!("{e}; looking until 'stop'"));
            MateLimit::Infinite
        }
    }
}

/// `text` as a legal move in `pos`.
pub fn legal_move(pos: &Position, text: &str) -> Result<Move, String> {
    parse_usi_move_text(text)
        .filter(|&m| pos.is_legal_move(m))
        .ok_or_else(|| format!("'{}' is not a legal move here", shorten(text, 20)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> GoCommand {
        parse_warned(s).0
    }

    fn parse_warned(s: &str) -> (GoCommand, Vec<String>) {
        let words: Vec<&str> = s.split_ascii_whitespace().collect();
        GoCommand::parse(&words)
    }

    fn limits(g: &GoCommand, pos: &Position) -> (Limits, Vec<String>) {
        let mut warnings = Vec::new();
        let l = g.limits(pos, &TimeSettings::default(), Duration::ZERO, &mut warnings);
        (l, warnings)
    }

    #[test]
    fn clocks_and_limits() {
        let g = parse("btime 1000 wtime -5 byoyomi 300 binc 0 winc 7 depth 9 nodes 42");
        assert_eq!(g.btime, Some(1000));
        assert_eq!(g.wtime, Some(0));
        assert_eq!(g.byoyomi, Some(300));
        assert_eq!(g.winc, Some(7));
        assert_eq!(g.depth, Some(9));
        assert_eq!(g.nodes, Some(42));
    }

    #[test]
    fn bad_values_are_reported_and_the_rest_obeyed() {
        for (bad, rest) in [
            ("depth abc", ""),
            ("btime", ""),
            ("byoyomi xyz btime 5", "btime 5"),
            ("depth byoyomi 100", "byoyomi 100"),
            ("btime 99999999999999999999 wtime 7", "wtime 7"),
            ("searchmoves depth 3", "depth 3"),
            ("nodes - movetime 9", "movetime 9"),
            ("frobnicate depth 3", "depth 3"),
        ] {
            let (g, warnings) = parse_warned(bad);
            assert_eq!(warnings.len(), 1, "{bad}: {warnings:?}");
            assert_eq!(g, parse(rest), "{bad}");
        }
    }

    #[test]
    fn illegal_searchmoves_are_left_out() {
        let pos = Position::startpos();
        let g = parse("searchmoves 7g7f 3c3d");
        let (l, warnings) = limits(&g, &pos);
        assert_eq!(l.searchmoves.len(), 1);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let g = parse("searchmoves 3c3d");
        let (l, warnings) = limits(&g, &pos);
        assert!(l.searchmoves.is_empty());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn searchmoves_stop_at_the_next_keyword() {
        let g = parse("searchmoves 7g7f 2g2f depth 3");
        assert_eq!(g.searchmoves, ["7g7f", "2g2f"]);
        assert_eq!(g.depth, Some(3));
        let (l, warnings) = limits(&g, &Position::startpos());
        assert_eq!(l.searchmoves.len(), 2);
        assert!(warnings.is_empty());
    }

    #[test]
    fn mate_limits() {
        assert_eq!(parse("mate infinite").mate, Some(MateLimit::Infinite));
        assert_eq!(
            parse("mate 3000").mate,
            Some(MateLimit::Time(Duration::from_millis(3000)))
        );
        // A bare `go mate` is `go mate infinite`.
        let (g, warnings) = parse_warned("mate");
        assert_eq!((g.mate, warnings.len()), (Some(MateLimit::Infinite), 0));
        let (g, warnings) = parse_warned("mate abc");
        assert_eq!((g.mate, warnings.len()), (Some(MateLimit::Infinite), 1));
    }

    #[test]
    fn the_side_to_move_clock_is_used() {
        let settings = TimeSettings::default();
        let g = parse("btime 600000 wtime 300 byoyomi 0");
        let black = Position::startpos();
        let mut white = Position::startpos();
        white.do_move(white.parse_usi_move("7g7f").unwrap());
        let b = g.time_budget(&black, &settings).unwrap();
        let w = g.time_budget(&white, &settings).unwrap();
        assert!(w.maximum <= Duration::from_millis(300), "{w:?}");
        assert!(b.maximum > Duration::from_secs(1), "{b:?}");
    }

    #[test]
    fn caps_combine_with_the_command() {
        let pos = Position::startpos();
        let caps = SearchCaps {
            nodes: Some(5000),
            depth: Some(6),
        };
        let capped = |text: &str| {
            let g = parse(text);
            g.capped(limits(&g, &pos).0, caps)
        };
        let l = capped("nodes 100000 depth 3");
        assert_eq!((l.nodes, l.depth, l.infinite), (Some(5000), Some(3), false));
        let l = capped("");
        assert_eq!((l.nodes, l.depth, l.infinite), (Some(5000), Some(6), false));
        assert!(capped("infinite").infinite);
        let l = capped("btime 0 wtime 0 byoyomi 1000");
        assert!(l.time.is_some() && l.nodes == Some(5000));
    }

    #[test]
    fn bare_go_runs_until_stop() {
        let pos = Position::startpos();
        let infinite = |text: &str| limits(&parse(text), &pos).0.infinite;
        assert!(infinite(""));
        assert!(infinite("ponder"));
        assert!(!infinite("depth 3"));
        assert!(!infinite("ponder byoyomi 100"));
    }
}
