//! What the engine writes: a line-atomic output shared by the input loop
//! and the search thread, the `info` line format, and the reporter that
//! throttles `info` lines during a search.

use crate::perft;
use crate::position::Position;
use crate::search::params::INFINITE;
use crate::search::{Bound, Control, CurrMoveSink, PvInfo, Reporter, Score, SearchResult};
use crate::types::{Move, Value};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Fewest milliseconds between two reported iterations by default
/// (`PvInterval`): fast early iterations would otherwise flood the GUI.
pub const DEFAULT_PV_INTERVAL_MS: u64 = 100;

/// What the analysis options ask of the `info` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportSettings {
    /// Fewest time between two reported iterations (`PvInterval`).
    pub interval: Duration,
    /// Report the PVs of fail-high and fail-low re-searches, marked
    /// `lowerbound`/`upperbound` (`OutputFailLHPV`).
    pub fail_high_low: bool,
    /// `ConsiderationMode`: every iteration reported whatever the
    /// interval, no bound lines (analysis windows would show them as the
    /// line), and the final line always repeated whole before `bestmove`.
    pub consideration: bool,
}

impl Default for ReportSettings {
    fn default() -> Self {
        ReportSettings {
            interval: Duration::from_millis(DEFAULT_PV_INTERVAL_MS),
            fail_high_low: true,
            consideration: false,
        }
    }
}

/// The engine's output, shared between threads; every line is written and
/// flushed whole, so lines from two threads never interleave.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Sink>>);

/// The writer, and what to do once it fails.
struct Sink {
    w: Box<dyn Write + Send>,
    /// Called once, at the first failed write: nobody reads us any more
    /// (the GUI closed our output but maybe not our input, so no end of
    /// input would ever end a `go infinite`).
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl Output {
    /// Wraps a writer (stdout, or a buffer in tests).
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Sink {
            w: Box::new(w),
            on_close: None,
        })))
    }

    /// Sets what to do when a write fails (the engine quits).
    pub fn on_close(&self, f: impl FnOnce() + Send + 'static) {
        self.sink().on_close = Some(Box::new(f));
    }

    fn sink(&self) -> std::sync::MutexGuard<'_, Sink> {
        // A panic elsewhere while holding the lock must not silence us.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line. A failed write (the GUI went away) calls the
    /// `on_close` hook once; later lines are dropped.
    pub fn line(&self, text: &str) {
        let mut sink = self.sink();
        if writeln!(sink.w, "{text}")
            .and_then(|()| sink.w.flush())
            .is_err()
        {
            if let Some(f) = sink.on_close.take() {
                f();
            }
        }
    }

    /// Writes several lines (a block such as the `usi` answer).
    pub fn lines(&self, text: &str) {
        for l in text.lines() {
            self.line(l);
        }
    }

    /// `info string <text>`.
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }

    /// `info string error: <text>`.
    pub fn error(&self, text: &str) {
        self.info_string(&format!("error: {text}"));
    }
}

/// Raw bytes, for reports that stream their own lines (`bench`).
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut sink = self.sink();
        sink.w.write_all(buf)?;
        sink.w.flush()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Moves as USI text, separated by spaces.
pub fn moves_text(moves: &[Move]) -> String {
    let words: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    words.join(" ")
}

/// The `info …` line for one principal variation (`pv` last, as GUIs
/// expect).
pub fn info_line(info: &PvInfo) -> String {
    let ms = info.time.as_millis() as u64;
    let nps = info.nodes * 1000 / ms.max(1);
    let score = match info.score {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let bound = match info.bound {
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
        Bound::Exact | Bound::None => "",
    };
    let mut line = format!(
        "info depth {} seldepth {} score {score}{bound} nodes {} nps {nps} time {ms} hashfull {} multipv {}",
        info.depth, info.seldepth, info.nodes, info.hashfull, info.multipv
    );
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&moves_text(&info.pv));
    }
    line
}

/// Prints the search's progress as `info` lines, at most one iteration per
/// `settings.interval`, and the final lines before `bestmove`.
pub struct InfoReporter {
    out: Output,
    settings: ReportSettings,
    /// The latest line of each MultiPV index (0-based), printed or not.
    latest: Vec<Option<PvInfo>>,
    /// When the last iteration was printed (time since the search began).
    last_printed: Option<Duration>,
    /// The depth whose MultiPV block is being printed line by line.
    printing_depth: Option<i32>,
    /// Depth, score and moves of the first PV as last printed: the final
    /// line is not repeated when it would only update the node count.
    last_best: Option<(i32, Score, Vec<Move>)>,
}

impl InfoReporter {
    /// A reporter writing to `out` with the default settings.
    pub fn new(out: Output) -> InfoReporter {
        InfoReporter::with_settings(out, ReportSettings::default())
    }

    /// A reporter writing to `out` as `settings` ask.
    pub fn with_settings(out: Output, settings: ReportSettings) -> InfoReporter {
        InfoReporter {
            out,
            settings,
            latest: Vec::new(),
            last_printed: None,
            printing_depth: None,
            last_best: None,
        }
    }

    /// Where the lines go.
    pub fn output(&self) -> &Output {
        &self.out
    }

    fn due(&self, now: Duration) -> bool {
        self.settings.consideration
            || self
                .last_printed
                .is_none_or(|last| now.saturating_sub(last) >= self.settings.interval)
    }

    /// The lines that end a search: the best line from `result` (so the
    /// last `info` shows the move about to be played), then the other
    /// MultiPV lines as last seen.
    pub fn finish(&mut self, result: &SearchResult, control: &Control, hashfull: u32) {
        if result.declare_win {
            self.out
                .info_string("entering-king declaration: the side to move wins");
            return;
        }
        if result.best.is_none() {
            self.out.info_string("no legal move: resign");
            return;
        }
        let last = self.latest.first().and_then(|l| l.as_ref());
        let score = if is_known_score(result.score) {
            Score::from_value(result.score)
        } else {
            // Stopped before the first move was scored.
            last.map_or(Score::Cp(0), |l| l.score)
        };
        let seldepth = last.map_or(result.depth, |l| l.seldepth);
        let best = PvInfo {
            multipv: 1,
            depth: result.depth,
            seldepth: seldepth.max(result.depth),
            score,
            bound: Bound::Exact,
            nodes: result.nodes,
            time: control.since_start(),
            hashfull,
            pv: result.pv.clone(),
        };
        if self.settings.consideration
            || self.last_best != Some((best.depth, best.score, best.pv.clone()))
        {
            self.out.line(&info_line(&best));
        }
        for info in self.latest.iter().skip(1).flatten() {
            self.out.line(&info_line(info));
        }
    }
}

impl Reporter for InfoReporter {
    fn currmove_sink(&self) -> Option<CurrMoveSink> {
        let out = self.out.clone();
        Some(Box::new(move |depth, m, number| {
            out.line(&format!(
                "info depth {depth} currmove {m} currmovenumber {number}"
            ))
        }))
    }

    fn pv(&mut self, info: &PvInfo) {
        let bound = matches!(info.bound, Bound::Lower | Bound::Upper);
        if bound && (!self.settings.fail_high_low || self.settings.consideration) {
            return;
        }
        let index = info.multipv.saturating_sub(1);
        if self.latest.len() <= index {
            self.latest.resize(index + 1, None);
        }
        self.latest[index] = Some(info.clone());
        let print = if info.multipv == 1 {
            self.due(info.time)
        } else {
            // The rest of a block whose first line was printed.
            self.printing_depth == Some(info.depth)
        };
        if print {
            if info.multipv == 1 {
                self.last_printed = Some(info.time);
                self.printing_depth = Some(info.depth);
                self.last_best = Some((info.depth, info.score, info.pv.clone()));
            }
            self.out.line(&info_line(info));
        }
    }
}

/// Whether `score` is a searched value: a search stopped before its first
/// move was scored reports the window bound (±INFINITE).
pub fn is_known_score(score: Value) -> bool {
    score.abs() < INFINITE
}

/// At most `n` characters of untrusted text, escaped for one output line.
pub fn shorten(text: &str, n: usize) -> String {
    let mut s: String = text
        .chars()
        .take(n)
        .collect::<String>()
        .escape_default()
        .to_string();
    if text.chars().nth(n).is_some() {
        s.push_str("...");
    }
    s
}

/// Runs perft and formats the divide lines, the total and the speed.
pub fn perft_report(pos: &mut Position, depth: u32, divide: bool) -> String {
    let start = Instant::now();
    let mut text = String::new();
    let total = if divide && depth > 0 {
        let split = perft::divide(pos, depth);
        for (m, n) in &split {
            text.push_str(&format!("{m}: {n}\n"));
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(pos, depth)
    };
    finish_perft_report(text, depth, total, start)
}

/// Like `perft_report` with `divide`, but `None` once `stop` is set.
pub fn perft_report_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<String> {
    let start = Instant::now();
    let mut text = String::new();
    let total = if depth > 0 {
        let split = perft::divide_until(pos, depth, stop)?;
        for (m, n) in &split {
            text.push_str(&format!("{m}: {n}\n"));
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        1
    };
    Some(finish_perft_report(text, depth, total, start))
}

fn finish_perft_report(mut text: String, depth: u32, total: u64, start: Instant) -> String {
    let secs = start.elapsed().as_secs_f64();
    text.push_str(&format!(
        "info string perft {depth}: {total} nodes in {secs:.3} s ({:.0} nodes/s)\n",
        total as f64 / secs.max(1e-9)
    ));
    text.push_str(&format!("Nodes searched: {total}\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn info(depth: i32, multipv: usize, ms: u64) -> PvInfo {
        let pos = crate::position::Position::startpos();
        PvInfo {
            multipv,
            depth,
            seldepth: depth + 2,
            score: Score::Cp(-12),
            bound: Bound::Exact,
            nodes: 5000,
            time: Duration::from_millis(ms),
            hashfull: 3,
            pv: vec![pos.parse_usi_move("7g7f").unwrap()],
        }
    }

    #[test]
    fn info_line_has_every_field_and_pv_last() {
        let mut i = info(7, 2, 250);
        i.bound = Bound::Lower;
        assert_eq!(
            info_line(&i),
            "info depth 7 seldepth 9 score cp -12 lowerbound nodes 5000 nps 20000 time 250 hashfull 3 multipv 2 pv 7g7f"
        );
        i.score = Score::Mate(-3);
        assert!(info_line(&i).contains("score mate -3 lowerbound"));
    }

    #[test]
    fn fast_iterations_are_throttled_multipv_blocks_kept_whole() {
        let buf = Buffer::default();
        let mut r = InfoReporter::new(Output::new(buf.clone()));
        for (depth, ms) in [(1, 0), (2, 1), (3, 2), (4, 150), (5, 160)] {
            r.pv(&info(depth, 1, ms));
            r.pv(&info(depth, 2, ms));
        }
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let depths: Vec<&str> = text.lines().map(|l| l.split(' ').nth(2).unwrap()).collect();
        assert_eq!(depths, ["1", "1", "4", "4"], "{text}");
    }

    fn printed_depths(settings: ReportSettings, infos: &[PvInfo]) -> Vec<String> {
        let buf = Buffer::default();
        let mut r = InfoReporter::with_settings(Output::new(buf.clone()), settings);
        for i in infos {
            r.pv(i);
        }
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| {
                let bound = if l.contains("bound") { "b" } else { "" };
                format!("{}{bound}", l.split(' ').nth(2).unwrap())
            })
            .collect()
    }

    #[test]
    fn analysis_options_shape_the_output() {
        let mut fail_high = info(3, 1, 50);
        fail_high.bound = Bound::Lower;
        let infos = [info(1, 1, 0), info(2, 1, 20), fail_high, info(3, 1, 60)];
        let default = ReportSettings::default();
        assert_eq!(printed_depths(default, &infos), ["1"]);
        let every = ReportSettings {
            interval: Duration::ZERO,
            ..default
        };
        assert_eq!(printed_depths(every, &infos), ["1", "2", "3b", "3"]);
        let no_bounds = ReportSettings {
            fail_high_low: false,
            ..every
        };
        assert_eq!(printed_depths(no_bounds, &infos), ["1", "2", "3"]);
        let consideration = ReportSettings {
            consideration: true,
            ..default
        };
        assert_eq!(printed_depths(consideration, &infos), ["1", "2", "3"]);
    }

    #[test]
    fn the_final_line_shows_the_result_once() {
        let buf = Buffer::default();
        let mut r = InfoReporter::new(Output::new(buf.clone()));
        let shown = info(6, 1, 0);
        r.pv(&shown);
        let mut result = SearchResult {
            best: shown.pv.first().copied(),
            score: -12,
            depth: 6,
            nodes: 9000,
            pv: shown.pv.clone(),
            ..SearchResult::default()
        };
        r.finish(&result, &Control::new(false), 0);
        assert_eq!(
            String::from_utf8(buf.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .count(),
            1
        );
        result.depth = 7;
        r.finish(&result, &Control::new(false), 0);
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.lines().last().unwrap().starts_with("info depth 7 "),
            "{text}"
        );
    }
}
