//! The USI protocol: the command loop, the engine state it keeps, and the
//! answers it writes.
//!
//! The loop reads stdin on the main thread; each `go` runs on its own
//! thread ([`thinking`]), so `stop`, `ponderhit`, `isready` and `quit` take
//! effect at once while it thinks. Malformed input never panics and never
//! changes the state: it gets an `info string error: …` line and the loop
//! goes on.
//!
//! Submodules: [`options`] (the option table), [`go`] (the `go`
//! arguments and the limits they mean), [`output`] (line-atomic output,
//! `info` lines), [`mate`] (`go mate`), [`thinking`] (the search thread).

pub mod book;
pub mod go;
pub mod mate;
pub mod options;
pub mod output;
pub mod thinking;

use crate::eval::explain;
use crate::nnue::Network;
use crate::perft;
use crate::position::Position;
use crate::search::{Evaluator, SearchOptions, Searcher};
use book::OwnBook;
use go::{legal_move, GoCommand};
use options::{shorten, Options, SetEffect};
use output::Output;
use std::io::{self, BufRead, Read, Write};
use std::sync::Arc;
use std::time::Instant;
use thinking::{Job, Thinking};

/// Longest command line read; the rest of a longer line is skipped and the
/// line refused (a 600-ply game is about 3 KB, a 1 MB line is garbage).
const MAX_LINE_BYTES: usize = 4 << 20;

/// Deepest `perft` accepted at the prompt (deeper would run for days).
const MAX_PERFT_DEPTH: u32 = 12;

/// Runs the USI loop on `input` until `quit` or end of input, writing to
/// `output`. A search still running at the end is stopped first.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static) {
    let mut engine = Engine::new(Output::new(output));
    engine.run(input);
}

/// Whether the loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit`: stop.
    Quit,
}

/// The engine as the protocol sees it.
pub struct Engine {
    out: Output,
    options: Options,
    /// The opening book (loaded at `isready`).
    book: OwnBook,
    pos: Position,
    /// Made at the first `isready` or `go` (not before `usiok`: GUIs give
    /// up on slow engines); `None` while a search thread owns it.
    searcher: Option<Searcher>,
    /// Hash size of `searcher`, MiB.
    searcher_hash_mib: usize,
    /// Whether the hash and histories hold anything from earlier searches.
    memory: SearchMemory,
    /// When the command being handled was read: a `go` counts its time
    /// from then, not from when the search could start.
    received: Instant,
    /// The search thread of the last `go`, until joined.
    thinking: Option<Thinking>,
    /// The evaluation network in use and the `EvalFile` it came from
    /// (`None`: the embedded one).
    network: Option<Arc<Network>>,
    network_file: Option<String>,
}

impl Engine {
    /// A fresh engine at the start position, writing to `out`.
    pub fn new(out: Output) -> Engine {
        Engine {
            out,
            options: Options::new(),
            book: OwnBook::default(),
            pos: Position::startpos(),
            searcher: None,
            searcher_hash_mib: 0,
            memory: SearchMemory::Clean,
            received: Instant::now(),
            thinking: None,
            network: crate::nnue::embedded(),
            network_file: None,
        }
    }

    /// Runs the loop until `quit` or end of input, then stops any search.
    pub fn run(&mut self, mut input: impl BufRead) {
        let mut buf = Vec::new();
        loop {
            match read_line(&mut input, &mut buf) {
                Ok(LineRead::Line) => {
                    let line = String::from_utf8_lossy(&buf);
                    if self.handle(&line) == Flow::Quit {
                        break;
                    }
                }
                Ok(LineRead::TooLong) => self
                    .out
                    .error(&format!("line longer than {MAX_LINE_BYTES} bytes ignored")),
                Ok(LineRead::End) | Err(_) => break,
            }
        }
        self.shutdown();
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str) -> Flow {
        self.received = Instant::now();
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Flow::Continue;
        };
        match command {
            "usi" => self.usi(),
            "isready" => self.isready(),
            "setoption" => self.setoption(args),
            "usinewgame" => self.new_game(),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.stop(),
            "ponderhit" => self.ponderhit(),
            "gameover" => self.gameover(args),
            "quit" => return Flow::Quit,
            "d" => self.out.lines(&self.pos.to_string()),
            "eval" => self.eval(),
            "perft" => self.perft(args.first().copied()),
            "bench" => self.bench(args.first().copied()),
            other => self
                .out
                .error(&format!("unknown command '{}'", shorten(other, 40))),
        }
        Flow::Continue
    }

    /// Stops a running search, waits for its answer and takes the
    /// searcher back (`quit`, end of input, `gameover`).
    pub fn shutdown(&mut self) {
        if let Some(t) = self.thinking.take() {
            t.control.stop();
            self.searcher = t.join();
        }
    }

    fn usi(&self) {
        self.out
            .line(&format!("id name Ryuo {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the Ryuo developers");
        for line in self.options.usi_lines() {
            self.out.line(&line);
        }
        self.out.line("usiok");
    }

    /// Whether a search is thinking (its answer not yet printed).
    fn is_thinking(&self) -> bool {
        self.thinking.as_ref().is_some_and(|t| !t.has_answered())
    }

    /// Takes the searcher back from a search thread that has answered.
    fn reclaim_searcher(&mut self) {
        if self.thinking.as_ref().is_some_and(Thinking::has_answered) {
            if let Some(t) = self.thinking.take() {
                self.searcher = t.join();
            }
        }
    }

    /// Makes the searcher ready for a search: allocated at the wanted hash
    /// size, cleared if asked. Only when no search is thinking.
    fn prepare_searcher(&mut self) -> &mut Searcher {
        self.reclaim_searcher();
        let want = self.options.hash_mib();
        if self.searcher.is_none() {
            self.searcher_hash_mib = want;
            self.memory = SearchMemory::Clean;
        }
        let searcher = self.searcher.get_or_insert_with(|| Searcher::new(want));
        if self.searcher_hash_mib != want {
            searcher.resize_hash(want);
            self.searcher_hash_mib = want;
        }
        if self.memory == SearchMemory::ClearPending {
            searcher.clear();
            self.memory = SearchMemory::Clean;
        }
        searcher.set_mate_hash(self.options.mate_hash_mib());
        searcher.set_threads(self.options.threads());
        searcher
    }

    fn isready(&mut self) {
        // During a search the answer comes at once; the heavy work (hash
        // allocation) waits for the next `go`.
        if !self.is_thinking() {
            self.prepare_searcher();
            self.load_network();
            self.book.prepare(&self.options, &self.out);
        }
        self.out.line("readyok");
    }

    /// Loads the network that `EvalFile` names if it is not the one in
    /// use. A file that cannot be read or is not a network gets an error
    /// line and the network in use is kept.
    fn load_network(&mut self) {
        let wanted = self.options.eval_file().map(str::to_string);
        if wanted == self.network_file {
            return;
        }
        match &wanted {
            None => self.network = crate::nnue::embedded(),
            Some(path) => match Network::load(std::path::Path::new(path)) {
                Ok(net) => {
                    self.out.info_string(&format!(
                        "EvalFile {}: network loaded ({} hidden units)",
                        shorten(path, 200),
                        net.hidden()
                    ));
                    self.network = Some(Arc::new(net));
                }
                Err(e) => {
                    return self.out.error(&format!(
                        "EvalFile {}: {e}; the previous network is kept",
                        shorten(path, 200)
                    ))
                }
            },
        }
        self.network_file = wanted;
    }

    /// The search options with the evaluation chosen by `ClassicEval` and
    /// `EvalFile`.
    fn search_options(&self) -> SearchOptions {
        let mut options = self.options.search_options();
        options.evaluator = match &self.network {
            Some(net) if !self.options.check("ClassicEval") => Evaluator::Network(Arc::clone(net)),
            _ => Evaluator::Classic,
        };
        options
    }

    /// The `eval` command: the score of the evaluation in use, and the
    /// hand-crafted terms for reference.
    fn eval(&mut self) {
        let options = self.search_options();
        if let Evaluator::Network(net) = &options.evaluator {
            let v = crate::nnue::evaluate_from_scratch(net, &self.pos);
            self.out.line(&format!(
                "info string network evaluation (side to move): {v} cp"
            ));
        }
        self.out.lines(&explain(&self.pos));
    }

    fn setoption(&mut self, args: &[&str]) {
        const USAGE: &str = "usage: setoption name <id> [value <x>]";
        let Some((&"name", rest)) = args.split_first() else {
            return self.out.error(USAGE);
        };
        let (name, value) = match rest.iter().position(|&w| w == "value") {
            Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
            None => (rest.join(" "), None),
        };
        if name.is_empty() {
            return self.out.error(USAGE);
        }
        if name.eq_ignore_ascii_case("USI_Hash") {
            if let Some(mib) = value.as_deref().and_then(|v| v.parse::<u64>().ok()) {
                if !fits_in_memory(mib) {
                    return self
                        .out
                        .error(&format!("USI_Hash {mib} MiB is more than the free memory"));
                }
            }
        }
        match self.options.set(&name, value.as_deref()) {
            Ok(SetEffect::Stored) => {}
            Ok(SetEffect::ClearHash) => self.clear_hash(),
            Err(e) => self.out.error(&e),
        }
    }

    /// Clears the hash and histories now, or before the next search if one
    /// is thinking. Clearing a large table takes tens of milliseconds, so
    /// a clean one (new, or cleared at `gameover`) is left alone: the first
    /// move of a game must not pay for it.
    fn clear_hash(&mut self) {
        if self.memory == SearchMemory::Clean {
            return;
        }
        self.memory = SearchMemory::ClearPending;
        if !self.is_thinking() && self.searcher.is_some() {
            self.prepare_searcher();
        }
    }

    fn new_game(&mut self) {
        self.clear_hash();
    }

    fn position(&mut self, args: &[&str]) {
        match parse_position(args) {
            Ok(pos) => self.pos = pos,
            Err(e) => self.out.error(&format!("{e}; position unchanged")),
        }
    }

    fn go(&mut self, args: &[&str]) {
        if args.first() == Some(&"perft") {
            return self.perft(args.get(1).copied());
        }
        if self.is_thinking() {
            return self
                .out
                .error("a search is already running: 'stop' it first; this go is ignored");
        }
        let (command, warnings) = match GoCommand::parse(args) {
            Ok(parsed) => parsed,
            Err(e) => return self.out.error(&format!("go: {e}")),
        };
        for w in warnings {
            self.out.info_string(&w);
        }
        self.prepare_searcher();
        self.load_network();
        let book = self.book.answer(&self.pos, &command, &self.options);
        let job = match book {
            Some(answer) => Ok(Job::Book(answer)),
            None => self.job_for(&command),
        };
        let job = match job {
            Ok(job) => job,
            Err(e) => return self.out.error(&format!("go: {e}")),
        };
        let pondering = command.ponder && command.mate.is_none();
        let Some(searcher) = self.searcher.take() else {
            return self.out.error("no searcher");
        };
        self.memory = SearchMemory::Used;
        match Thinking::start(searcher, self.pos.clone(), job, pondering, self.out.clone()) {
            Ok(t) => self.thinking = Some(t),
            Err(e) => self.out.error(&e),
        }
    }

    /// What the search thread is to do for `command`.
    fn job_for(&self, command: &GoCommand) -> Result<Job, String> {
        if let Some(limit) = command.mate {
            return Ok(Job::Mate(limit));
        }
        // The clock runs from when the GUI sent `go`: time taken to get
        // the searcher ready comes off the budget.
        let spent = self.received.elapsed();
        let settings = self.options.time_settings();
        Ok(Job::BestMove {
            limits: command.limits(&self.pos, &settings, spent)?,
            options: self.search_options(),
            resign_value: self.options.resign_value(),
            report: self.options.report_settings(),
        })
    }

    fn stop(&mut self) {
        match &self.thinking {
            Some(t) if !t.has_answered() => t.control.stop(),
            _ => self.out.info_string("stop ignored: no search is running"),
        }
    }

    fn ponderhit(&mut self) {
        match &self.thinking {
            Some(t) if !t.has_answered() => t.control.ponderhit(),
            _ => self
                .out
                .info_string("ponderhit ignored: no search is running"),
        }
    }

    fn gameover(&mut self, args: &[&str]) {
        match args {
            [] | ["win" | "lose" | "draw"] => {
                // Pondering ends with the game; its bestmove is harmless.
                self.shutdown();
                // Between games there is time to spare: clear now, so that
                // `usinewgame` finds the table clean.
                self.clear_hash();
            }
            _ => self.out.error(&format!(
                "gameover expects win, lose or draw, not '{}'",
                shorten(&args.join(" "), 40)
            )),
        }
    }

    fn perft(&mut self, depth: Option<&str>) {
        if self.is_thinking() {
            return self.out.error("perft: a search is running");
        }
        let Some(depth) = depth
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|&d| d <= MAX_PERFT_DEPTH)
        else {
            return self
                .out
                .error(&format!("usage: perft <depth 0..{MAX_PERFT_DEPTH}>"));
        };
        self.out.lines(&perft_report(&mut self.pos, depth, true));
    }

    fn bench(&mut self, depth: Option<&str>) {
        if self.is_thinking() {
            return self.out.error("bench: a search is running");
        }
        let depth = match depth.map(str::parse::<i32>) {
            None => crate::bench::DEFAULT_DEPTH,
            Some(Ok(d)) if (1..=64).contains(&d) => d,
            Some(_) => return self.out.error("usage: bench [depth 1..64]"),
        };
        let options = self.search_options();
        let mut out = self.out.clone();
        let totals = crate::bench::run(
            depth,
            self.options.hash_mib(),
            self.options.threads(),
            &options,
            true,
            &mut out,
        );
        crate::bench::print_totals(&totals, &mut out);
    }
}

/// What the searcher remembers from earlier searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SearchMemory {
    /// Nothing: new or just cleared.
    Clean,
    /// Something, and that is fine.
    Used,
    /// Something, to be cleared before the next search.
    ClearPending,
}

/// How reading one line ended.
enum LineRead {
    /// A line is in the buffer (without its limit on length exceeded).
    Line,
    /// The line was longer than `MAX_LINE_BYTES`; it has been skipped.
    TooLong,
    /// End of input.
    End,
}

/// Reads one line into `buf`, never holding more than `MAX_LINE_BYTES`.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let mut limited = Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1);
    let n = limited.read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(LineRead::End);
    }
    if buf.len() <= MAX_LINE_BYTES || buf.ends_with(b"\n") {
        return Ok(LineRead::Line);
    }
    // Skip to the end of the overlong line.
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(LineRead::TooLong);
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(LineRead::TooLong);
            }
            None => {
                let len = chunk.len();
                input.consume(len);
            }
        }
    }
}

/// Whether a hash table of `mib` MiB fits in the memory still free (Linux;
/// elsewhere assumed to fit). Allocation failure aborts the process, so a
/// GUI's typo must be caught before.
fn fits_in_memory(mib: u64) -> bool {
    let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") else {
        return true;
    };
    let available_kib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok());
    available_kib.is_none_or(|kib| mib.saturating_mul(1024) <= kib)
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
    let secs = start.elapsed().as_secs_f64();
    text.push_str(&format!(
        "info string perft {depth}: {total} nodes in {secs:.3} s ({:.0} nodes/s)\n",
        total as f64 / secs.max(1e-9)
    ));
    text.push_str(&format!("Nodes searched: {total}\n"));
    text
}

/// Parses the arguments of `position` into a new position, checking every
/// move; on any error nothing is returned and the caller keeps its position.
pub fn parse_position(args: &[&str]) -> Result<Position, String> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut pos = match setup {
        ["startpos"] => Position::startpos(),
        ["sfen", sfen @ ..] if !sfen.is_empty() => {
            Position::from_sfen(&sfen.join(" ")).map_err(|e| format!("bad SFEN: {e}"))?
        }
        _ => return Err("expected 'position startpos|sfen <sfen> [moves ...]'".into()),
    };
    for (i, text) in moves.iter().enumerate() {
        let m = legal_move(&pos, text).map_err(|e| format!("move {}: {e}", i + 1))?;
        pos.do_move(m);
    }
    Ok(pos)
}
