//! Progress of a long command (`ryuo gensfen`, `ryuo book from-selfplay`,
//! the trainer): a bar with rate and time left (indicatif) when stderr is
//! a terminal, otherwise a plain line every few seconds, which a log file
//! or a driver reading the output can follow:
//!
//! ```text
//! gensfen: 3600/10000 positions, 52 games, 545 positions/s, ETA 12 s
//! ```

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Where a command stands; see the module comment.
pub struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    done: u64,
    start: Instant,
    view: View,
}

enum View {
    Bar(ProgressBar),
    Lines {
        out: Box<dyn Write + Send>,
        every: Duration,
        last: Instant,
    },
    Hidden,
}

impl Progress {
    /// Progress of `total` `unit`s (e.g. "positions") on stderr: a bar at a
    /// terminal, else a line at most every `every`.
    pub fn stderr(label: &str, unit: &'static str, total: u64, every: Duration) -> Progress {
        if !io::stderr().is_terminal() {
            return Self::lines(label, unit, total, Box::new(io::stderr()), every);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let template = format!(
            "{{prefix}}: {{wide_bar}} {{pos}}/{{len}} {unit}{{msg}}, {{rate}} {unit}/s, \
             {{elapsed}} elapsed, ETA {{eta}}"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            let rate = |s: &ProgressState, w: &mut dyn fmt::Write| {
                let _ = write!(w, "{:.0}", s.per_sec());
            };
            bar.set_style(style.with_key("rate", rate).progress_chars("=> "));
        }
        bar.set_prefix(label.to_string());
        Self::with_view(label, unit, total, View::Bar(bar))
    }

    /// Plain lines to `out`, at most one every `every`.
    pub fn lines(
        label: &str,
        unit: &'static str,
        total: u64,
        out: Box<dyn Write + Send>,
        every: Duration,
    ) -> Progress {
        let view = View::Lines {
            out,
            every,
            last: Instant::now(),
        };
        Self::with_view(label, unit, total, view)
    }

    /// Shows nothing (tests, library callers).
    pub fn hidden() -> Progress {
        Self::with_view("", "", 0, View::Hidden)
    }

    fn with_view(label: &str, unit: &'static str, total: u64, view: View) -> Progress {
        Progress {
            label: label.to_string(),
            unit,
            total,
            done: 0,
            start: Instant::now(),
            view,
        }
    }

    /// Changes the amount of work (when it is known only once started).
    pub fn set_total(&mut self, total: u64) {
        self.total = total;
        if let View::Bar(bar) = &self.view {
            bar.set_length(total);
        }
    }

    /// `done` units are done; `detail` (e.g. ", 52 games") follows the
    /// count.
    pub fn update(&mut self, done: u64, detail: &str) {
        self.done = done;
        match &mut self.view {
            View::Bar(bar) => {
                bar.set_message(detail.to_string());
                bar.set_position(done);
            }
            View::Lines { every, last, .. } => {
                if last.elapsed() >= *every {
                    *last = Instant::now();
                    let line = self.line(detail);
                    if let View::Lines { out, .. } = &mut self.view {
                        let _ = writeln!(out, "{line}");
                    }
                }
            }
            View::Hidden => {}
        }
    }

    /// The plain progress line for the current count.
    fn line(&self, detail: &str) -> String {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let rate = self.done as f64 / secs;
        let left = self.total.saturating_sub(self.done) as f64;
        let eta = if rate > 0.0 {
            format!("{:.0} s", left / rate)
        } else {
            "?".to_string()
        };
        format!(
            "{}: {}/{} {}{detail}, {rate:.0} {}/s, ETA {eta}",
            self.label, self.done, self.total, self.unit, self.unit
        )
    }

    /// Prints a line that stays (a summary, an epoch's report) on stderr,
    /// above the bar if there is one.
    pub fn note(&mut self, line: &str) {
        match &mut self.view {
            View::Bar(bar) => bar.println(line),
            View::Lines { out, .. } => {
                let _ = writeln!(out, "{line}");
            }
            View::Hidden => {}
        }
    }

    /// Runs `f` (which prints elsewhere, e.g. to stdout) with the bar
    /// taken off the screen.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.view {
            View::Bar(bar) => bar.suspend(f),
            _ => f(),
        }
    }

    /// Removes the bar (plain lines need nothing).
    pub fn finish(&mut self) {
        if let View::Bar(bar) = &self.view {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A shared buffer standing for stderr.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Sink {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn plain_lines_give_count_rate_and_time_left() {
        let sink = Sink::default();
        let mut p = Progress::lines(
            "gensfen",
            "positions",
            100,
            Box::new(sink.clone()),
            Duration::ZERO,
        );
        p.update(40, ", 3 games");
        p.note("done");
        let text = sink.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].starts_with("gensfen: 40/100 positions, 3 games, "),
            "{text}"
        );
        assert!(lines[0].contains(" positions/s, ETA "), "{text}");
        assert_eq!(lines[1], "done");
    }

    #[test]
    fn lines_are_spaced_out() {
        let sink = Sink::default();
        let every = Duration::from_secs(3600);
        let mut p = Progress::lines("book", "games", 10, Box::new(sink.clone()), every);
        for i in 0..10 {
            p.update(i, "");
        }
        assert_eq!(sink.text(), "");
    }
}
