//! The USI protocol: the command loop, the engine state it keeps, and the
//! answers it writes.
//!
//! A reader thread turns stdin into events; the loop handles them in
//! order on the main thread. Each `go` (and `perft` or `bench` typed at the
//! prompt) runs on its own thread ([`thinking`]), so `stop`, `ponderhit`,
//! `isready` and `quit` take effect at once while it works. A `go` that
//! comes while another is still being answered waits in a queue and starts
//! when the search thread reports it is done: every `go` gets exactly one
//! answer. Malformed input never panics and never changes the state: it
//! gets an `info string error: …` line and the loop goes on.
//!
//! Submodules: [`options`] (the option table), [`go`] (the `go`
//! arguments and the limits they mean), [`output`] (line-atomic output,
//! `info` lines, text helpers), [`mate`] (`go mate`), [`book`] (book moves),
//! [`thinking`] (the search thread). They depend on each other one way
//! only, each on those before it in this order:
//! `output` ← `go` ← `options` ← `mate`, `book` ← `thinking` ← this module.

pub mod book;
pub mod go;
pub mod mate;
pub mod options;
pub mod output;
pub mod thinking;

use crate::eval::explain;
use crate::memory::fits_in_memory;
use crate::nnue::EvalNetwork;
use crate::position::Position;
use crate::search::{Control, Evaluator, Limits, SearchOptions, Searcher};
use crate::time::remaining_budget;
use crate::types::Move;
use book::OwnBook;
use go::{legal_move, GoCommand};
use options::{EvalKind, Options, SetEffect};
use output::{shorten, Output};
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use thinking::{Job, Started, StochasticAnswer, Thinking};

/// Longest command line read; the rest of a longer line is skipped and the
/// line refused (a 600-ply game is about 3 KB, a 1 MB line is garbage).
const MAX_LINE_BYTES: usize = 4 << 20;

/// Deepest `perft` accepted at the prompt (deeper would run for days).
const MAX_PERFT_DEPTH: u32 = 12;

/// Hash size, MiB, when the one asked for cannot be had and there is no
/// table yet.
const FALLBACK_HASH_MIB: usize = 1;

/// Runs the USI loop on `input` until `quit` or end of input, writing to
/// `output`. A search still running at the end is stopped first.
pub fn run(input: impl Read + Send + 'static, output: impl Write + Send + 'static) {
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

/// What the loop reacts to, in the order it happened.
enum Event {
    /// A command line, and when it was read: a `go` counts its time from
    /// then.
    Line(String, Instant),
    /// A line longer than `MAX_LINE_BYTES` was skipped.
    TooLong,
    /// End of input (or a read error).
    End,
    /// The search thread printed its answer: the next request may start.
    Done,
}

/// A request for the search thread, made when its command came.
struct Request {
    task: Task,
    /// The position when the command came.
    pos: Position,
    /// Made when the command came, so that the clock runs from then and
    /// `stop` and `ponderhit` reach it while it waits in the queue.
    control: Arc<Control>,
    /// A `go ponder` under `Stochastic_Ponder`: its flag for "superseded
    /// by the search after `ponderhit`".
    stochastic: Option<Arc<AtomicBool>>,
}

/// The latest `go ponder` run under `Stochastic_Ponder`, kept for its
/// `ponderhit`.
struct StochasticPonder {
    /// The request's control (to know it is still the latest `go`).
    control: Arc<Control>,
    /// The `go` as sent, `ponder` included.
    command: GoCommand,
    /// The real position (after the predicted move).
    pos: Position,
    /// Tells the pondering search it answers nothing.
    superseded: Arc<AtomicBool>,
}

/// What a request asks for.
enum Task {
    Go(GoCommand),
    Perft(u32),
    Bench(i32),
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
    /// A `USI_Hash` size that could not be allocated: not tried again
    /// (and reported again) until the option changes.
    hash_refused: Option<usize>,
    /// Whether the hash and histories hold anything from earlier searches.
    memory: SearchMemory,
    /// When the command being handled was read.
    received: Instant,
    /// The search thread of the running request, until joined.
    thinking: Option<Thinking>,
    /// The evaluation network in use and the file it came from (`None`:
    /// the embedded one).
    network: Option<EvalNetwork>,
    network_file: Option<String>,
    /// Requests that came while another was running, oldest first.
    queue: VecDeque<Request>,
    /// The latest `go ponder` under `Stochastic_Ponder`.
    stochastic: Option<StochasticPonder>,
    /// Events for the loop; the reader thread and search threads send.
    events: Sender<Event>,
    inbox: Receiver<Event>,
}

impl Engine {
    /// A fresh engine at the start position, writing to `out`.
    pub fn new(out: Output) -> Engine {
        let (events, inbox) = mpsc::channel();
        Engine {
            out,
            options: Options::new(),
            book: OwnBook::default(),
            pos: Position::startpos(),
            searcher: None,
            hash_refused: None,
            memory: SearchMemory::Clean,
            received: Instant::now(),
            thinking: None,
            network: crate::nnue::embedded().map(EvalNetwork::Ryuo),
            network_file: None,
            queue: VecDeque::new(),
            stochastic: None,
            events,
            inbox,
        }
    }

    /// Runs the loop until `quit` or end of input, then stops any search.
    pub fn run(&mut self, input: impl Read + Send + 'static) {
        // Output nobody reads ends the loop as end of input does.
        let events = Mutex::new(self.events.clone());
        self.out.on_close(move || {
            let _ = lock(&events).send(Event::End);
        });
        // The input survives a failed spawn in this slot.
        let slot = Arc::new(Mutex::new(Some(BufReader::new(input))));
        let (taken, events) = (Arc::clone(&slot), self.events.clone());
        let reader = std::thread::Builder::new()
            .name("input".into())
            .spawn(move || {
                if let Some(input) = lock(&taken).take() {
                    read_events(input, &events, |_| true);
                }
            });
        if let Err(e) = reader {
            // Read here between events instead: a queued `go` then starts
            // only when the next line comes.
            self.out
                .error(&format!("cannot start the input thread: {e}"));
            let events = self.events.clone();
            if let Some(input) = lock(&slot).take() {
                read_events(input, &events, |_| {
                    while let Ok(event) = self.inbox.try_recv() {
                        if self.on_event(event) == Flow::Quit {
                            return false;
                        }
                    }
                    true
                });
            }
            return self.shutdown();
        }
        while let Ok(event) = self.inbox.recv() {
            if self.on_event(event) == Flow::Quit {
                break;
            }
        }
        self.shutdown();
    }

    fn on_event(&mut self, event: Event) -> Flow {
        match event {
            Event::Line(line, received) => return self.handle_at(&line, received),
            Event::TooLong => self
                .out
                .error(&format!("line longer than {MAX_LINE_BYTES} bytes ignored")),
            Event::End => return Flow::Quit,
            Event::Done => self.serve(),
        }
        Flow::Continue
    }

    /// Handles one command line (read just now).
    pub fn handle(&mut self, line: &str) -> Flow {
        self.handle_at(line, Instant::now())
    }

    /// Handles one command line read at `received`.
    fn handle_at(&mut self, line: &str, received: Instant) -> Flow {
        self.received = received;
        let words = command_words(line);
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
            "ponderhit" => self.ponderhit(args),
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

    /// Stops the running search, forgets the queued ones, waits for the
    /// answer and takes the searcher back (`quit`, end of input,
    /// `gameover`).
    pub fn shutdown(&mut self) {
        self.queue.clear();
        if let Some(t) = self.thinking.take() {
            t.control.stop();
            self.searcher = t.join();
        }
        // A `stats` build's counts of the search tree, for the tools that
        // compare its shape (stderr: a GUI reads only stdout).
        if let Some(report) = crate::search::stats::report() {
            eprint!("{report}");
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

    /// Whether a request is running (its answer not yet printed) or
    /// waiting.
    fn is_busy(&self) -> bool {
        self.thinking.as_ref().is_some_and(|t| !t.has_answered()) || !self.queue.is_empty()
    }

    /// Takes the searcher back from a search thread that has answered.
    fn reclaim_searcher(&mut self) {
        if self.thinking.as_ref().is_some_and(Thinking::has_answered) {
            if let Some(t) = self.thinking.take() {
                self.searcher = t.join();
            }
        }
    }

    /// Queues a request and starts it if nothing else runs.
    fn submit(&mut self, request: Request) {
        self.queue.push_back(request);
        self.serve();
    }

    /// Starts queued requests, oldest first, while the search thread is
    /// free.
    fn serve(&mut self) {
        self.reclaim_searcher();
        while self.thinking.is_none() {
            let Some(request) = self.queue.pop_front() else {
                return;
            };
            self.start(request);
        }
    }

    /// Runs `request` on a search thread (or, failing that, here).
    fn start(&mut self, request: Request) {
        self.prepare_searcher();
        self.load_network();
        let Request {
            task,
            mut pos,
            control,
            stochastic,
        } = request;
        let job = match task {
            Task::Go(command) => match stochastic {
                Some(superseded) => self.stochastic_job(&mut pos, superseded),
                None => self.job_for(&command, &pos),
            },
            Task::Perft(depth) => Job::Perft(depth),
            Task::Bench(depth) => Job::Bench {
                depth,
                options: self.search_options(),
            },
        };
        // `prepare_searcher` made one; a fresh one only if a search thread
        // was lost, so that this request is answered all the same.
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(FALLBACK_HASH_MIB));
        if matches!(job, Job::Mate(_)) {
            Self::ready_mate_solver(&mut searcher, &self.options, &self.out);
        }
        self.memory = SearchMemory::Used;
        let events = self.events.clone();
        let done = move || {
            let _ = events.send(Event::Done);
        };
        match Thinking::start(searcher, pos, job, control, self.out.clone(), done) {
            Started::Thread(t) => self.thinking = Some(*t),
            Started::Inline(searcher) => self.searcher = Some(*searcher),
        }
    }

    /// Makes the searcher ready for a search: allocated at the wanted hash
    /// size, cleared if asked. Only when no search is running. A size that
    /// cannot be had is reported and the table in use kept.
    fn prepare_searcher(&mut self) {
        self.reclaim_searcher();
        let want = self.options.hash_mib();
        let refused = self.hash_refused == Some(want);
        match &mut self.searcher {
            None => {
                let searcher = Searcher::try_new(want).unwrap_or_else(|e| {
                    self.out
                        .error(&format!("{e}; using {FALLBACK_HASH_MIB} MiB"));
                    self.hash_refused = Some(want);
                    Searcher::new(FALLBACK_HASH_MIB)
                });
                self.searcher = Some(searcher);
                self.memory = SearchMemory::Clean;
            }
            Some(searcher) if searcher.hash_mib() != want && !refused => {
                match searcher.try_resize_hash(want) {
                    Ok(()) => self.hash_refused = None,
                    Err(e) => {
                        let kept = searcher.hash_mib();
                        self.out
                            .error(&format!("{e}; the hash table keeps {kept} MiB"));
                        self.hash_refused = Some(want);
                    }
                }
            }
            Some(_) => {}
        }
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        if self.memory == SearchMemory::ClearPending {
            searcher.clear();
            self.memory = SearchMemory::Clean;
        }
        if let Err(e) = searcher.set_threads(self.options.threads()) {
            let kept = searcher.threads();
            self.out.error(&format!("{e}; {kept} search threads kept"));
        }
    }

    /// Allocates the mate solver's table at `isready`, as the hash table
    /// is: allocating 64 MiB at the first `go mate` took 120–220 ms of its
    /// time (`go mate 100` answered after 222 ms).
    fn prepare_mate_solver(&mut self) {
        if let Some(searcher) = self.searcher.as_mut() {
            Self::ready_mate_solver(searcher, &self.options, &self.out);
        }
    }

    /// Gives `searcher`'s mate solver the `MateHash` size; an allocation
    /// failure is reported and a smaller table kept.
    fn ready_mate_solver(searcher: &mut Searcher, options: &Options, out: &Output) {
        let ready = searcher
            .set_mate_hash(options.mate_hash_mib())
            .and_then(|()| searcher.prepare_mate_solver());
        if let Err(e) = ready {
            out.error(&e);
        }
    }

    fn isready(&mut self) {
        // During a search the answer comes at once; the heavy work (hash
        // allocation) waits for the next `go`.
        if !self.is_busy() {
            self.prepare_searcher();
            self.prepare_mate_solver();
            self.load_network();
            self.book.prepare(&self.options, &self.out);
        }
        self.out.line("readyok");
    }

    /// Loads the network that `EvalFile` or `EvalDir` names if it is not
    /// the one in use. A file that cannot be read or is not a network gets
    /// an error line naming the cause, and the network in use is kept.
    fn load_network(&mut self) {
        let wanted = self.options.eval_file();
        if wanted == self.network_file {
            return;
        }
        match &wanted {
            None => self.network = crate::nnue::embedded().map(EvalNetwork::Ryuo),
            Some(path) => match crate::nnue::load(std::path::Path::new(path)) {
                Ok(net) => {
                    self.out.info_string(&format!(
                        "EvalFile {}: loaded, {}",
                        shorten(path, 200),
                        net.describe()
                    ));
                    self.network = Some(net);
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

    /// The search options with the evaluation chosen by `EvalType`,
    /// `ClassicEval`, `EvalFile`/`EvalDir` and `FV_SCALE`.
    fn search_options(&self) -> SearchOptions {
        let mut options = self.options.search_options();
        options.evaluator = match (self.options.eval_kind(), &self.network) {
            (EvalKind::Material, _) => Evaluator::Material,
            (EvalKind::Network, Some(net)) => Evaluator::of(net, self.options.fv_scale()),
            _ => Evaluator::Classic,
        };
        options
    }

    /// The `eval` command: the score of the evaluation in use (for a
    /// YaneuraOu-format network in YaneuraOu's own units, unclamped by the
    /// search's limit, so that the two engines' `eval` compare), and the
    /// hand-crafted terms for reference.
    fn eval(&mut self) {
        let options = self.search_options();
        let kind = match &options.evaluator {
            Evaluator::Network(_) | Evaluator::Standard(..) => "network",
            Evaluator::Material => "material",
            Evaluator::Classic => "",
        };
        if !kind.is_empty() {
            let v = options.evaluator.value_from_scratch(&self.pos);
            self.out.line(&format!(
                "info string {kind} evaluation (side to move): {v} cp"
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
            if let Some(mib) = value.as_deref().and_then(|v| v.parse::<usize>().ok()) {
                if !fits_in_memory(mib.saturating_mul(1 << 20)) {
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
    /// is running. Clearing a large table takes tens of milliseconds, so
    /// a clean one (new, or cleared at `gameover`) is left alone: the first
    /// move of a game must not pay for it.
    fn clear_hash(&mut self) {
        if self.memory == SearchMemory::Clean {
            return;
        }
        self.memory = SearchMemory::ClearPending;
        if !self.is_busy() && self.searcher.is_some() {
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

    /// `go`: never refused. Bad arguments are reported and ignored; a `go`
    /// that comes while a search is still answering waits for it.
    fn go(&mut self, args: &[&str]) {
        if args.first() == Some(&"perft") {
            return self.perft(args.get(1).copied());
        }
        let (command, warnings) = GoCommand::parse(args);
        for w in warnings {
            self.out.error(&format!("go: {w}"));
        }
        let running = self.thinking.as_ref().filter(|t| !t.has_answered());
        if running.is_some_and(|t| !t.control.is_stopped()) || !self.queue.is_empty() {
            self.out
                .info_string("a search is running: this go is answered after it");
        }
        let pondering = command.ponder && command.mate.is_none();
        let control = Arc::new(Control::new_at(self.received, pondering));
        // Stochastic ponder: think on the position before the predicted
        // move (the last one of `position`), if there is one.
        let stochastic = (pondering
            && self.options.check("Stochastic_Ponder")
            && self.pos.moves_played() > 0
            && self.pos.last_move().is_some()
            && self.pos.last_move() != Move::NULL)
            .then(|| Arc::new(AtomicBool::new(false)));
        if let Some(superseded) = &stochastic {
            self.stochastic = Some(StochasticPonder {
                control: Arc::clone(&control),
                command: command.clone(),
                pos: self.pos.search_copy(),
                superseded: Arc::clone(superseded),
            });
        }
        self.submit(Request {
            task: Task::Go(command),
            pos: self.pos.search_copy(),
            control,
            stochastic,
        });
    }

    /// The job of a `go ponder` under `Stochastic_Ponder`: `pos` (the real
    /// position) becomes the one before the predicted move, which is
    /// searched until `ponderhit` or `stop`; the answer is for the real
    /// one.
    fn stochastic_job(&self, pos: &mut Position, superseded: Arc<AtomicBool>) -> Job {
        let real = pos.clone();
        let predicted = pos.last_move();
        pos.undo_move(predicted);
        // The clock is for the real position: only the caps apply here.
        let caps = self.options.search_caps();
        let limits = Limits {
            infinite: true,
            nodes: caps.nodes,
            depth: caps.depth,
            no_early_stop: self.options.check("ConsiderationMode"),
            ..Limits::default()
        };
        Job::BestMove {
            limits,
            options: self.search_options(),
            resign_value: self.options.resign_value(),
            report: self.options.report_settings(),
            stochastic: Some(Box::new(StochasticAnswer {
                real,
                predicted,
                superseded,
            })),
        }
    }

    /// What the search thread is to do for `command` in `pos`.
    fn job_for(&self, command: &GoCommand, pos: &Position) -> Job {
        if let Some(limit) = command.mate {
            return Job::Mate(limit);
        }
        if let Some(answer) = self.book.answer(pos, command, &self.options) {
            return Job::Book(answer);
        }
        // The search's clock runs from when the GUI sent `go` (the control
        // was made then), so the budget is the whole one.
        let settings = self.options.time_settings();
        let mut warnings = Vec::new();
        let limits = command.limits(pos, &settings, Duration::ZERO, &mut warnings);
        let mut limits = command.capped(limits, self.options.search_caps());
        limits.no_early_stop = self.options.check("ConsiderationMode");
        for w in warnings {
            self.out.error(&format!("go: {w}"));
        }
        Job::BestMove {
            limits,
            options: self.search_options(),
            resign_value: self.options.resign_value(),
            report: self.options.report_settings(),
            stochastic: None,
        }
    }

    /// `stop` ends the running search and any queued after it: each still
    /// gets its answer.
    fn stop(&mut self) {
        let mut stopped = false;
        if let Some(t) = self.thinking.as_ref().filter(|t| !t.has_answered()) {
            t.control.stop();
            stopped = true;
        }
        for r in &self.queue {
            r.control.stop();
            stopped = true;
        }
        if !stopped {
            self.out.info_string("stop ignored: no search is running");
        }
    }

    /// `ponderhit [btime … wtime … byoyomi …]` reaches the latest `go`. A
    /// clock sent with it sets the time budget from now on: ShogiHome and
    /// YaneuraOu send `go ponder` without one and the clock here.
    fn ponderhit(&mut self, args: &[&str]) {
        let latest = match self.queue.back() {
            Some(r) => Some((&r.control, &r.pos)),
            None => self
                .thinking
                .as_ref()
                .filter(|t| !t.has_answered())
                .map(|t| (&t.control, &t.pos)),
        };
        let Some((control, pos)) = latest else {
            return self
                .out
                .info_string("ponderhit ignored: no search is running");
        };
        let (clock, warnings) = GoCommand::parse(args);
        for w in warnings {
            self.out.error(&format!("ponderhit: {w}"));
        }
        let stochastic = self
            .stochastic
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(&s.control, control));
        if stochastic {
            return self.stochastic_ponderhit(&clock);
        }
        match clock.time_budget(pos, &self.options.time_settings()) {
            Some(budget) => {
                control.ponderhit_with(remaining_budget(budget, self.received.elapsed()))
            }
            None => control.ponderhit(),
        }
    }

    /// `ponderhit` after a stochastic ponder: the search of the position
    /// before the predicted move ends without an answer, and a normal
    /// search of the real position starts, with the clock of `ponderhit`
    /// (or of the `go ponder` if it brought none) counted from now.
    fn stochastic_ponderhit(&mut self, clock: &GoCommand) {
        let Some(sp) = self.stochastic.take() else {
            return;
        };
        sp.superseded.store(true, Ordering::SeqCst);
        sp.control.stop();
        let mut command = sp.command;
        command.ponder = false;
        if clock.has_clock() {
            command = command.with_clock_of(clock);
        }
        self.submit(Request {
            task: Task::Go(command),
            pos: sp.pos,
            control: Arc::new(Control::new_at(self.received, false)),
            stochastic: None,
        });
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

    /// `perft <depth>` at the prompt: on the search thread, so that `stop`
    /// and `quit` still work.
    fn perft(&mut self, depth: Option<&str>) {
        let Some(depth) = depth
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|&d| d <= MAX_PERFT_DEPTH)
        else {
            return self
                .out
                .error(&format!("usage: perft <depth 0..{MAX_PERFT_DEPTH}>"));
        };
        self.submit_prompt_task(Task::Perft(depth));
    }

    /// `bench [depth]` at the prompt, on the search thread like `perft`.
    fn bench(&mut self, depth: Option<&str>) {
        let depth = match depth.map(str::parse::<i32>) {
            None => crate::bench::DEFAULT_DEPTH,
            Some(Ok(d)) if (1..=64).contains(&d) => d,
            Some(_) => return self.out.error("usage: bench [depth 1..64]"),
        };
        self.submit_prompt_task(Task::Bench(depth));
    }

    fn submit_prompt_task(&mut self, task: Task) {
        self.submit(Request {
            task,
            pos: self.pos.clone(),
            control: Arc::new(Control::new_at(self.received, false)),
            stochastic: None,
        });
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

/// The reader: sends each line of `input` as an event, then `End`, calling
/// `sent` after each; stops when it returns false.
fn read_events(
    mut input: impl BufRead,
    events: &Sender<Event>,
    mut sent: impl FnMut(&Sender<Event>) -> bool,
) {
    let mut buf = Vec::new();
    loop {
        let event = match read_line(&mut input, &mut buf) {
            Ok(LineRead::Line) => {
                let line = String::from_utf8_lossy(&buf).into_owned();
                if command_words(&line).first() == Some(&"quit") {
                    // The loop may be busy filling the hash table for
                    // `isready`: it would read this only when done.
                    crate::memory::abandon_fills();
                }
                Event::Line(line, Instant::now())
            }
            Ok(LineRead::TooLong) => Event::TooLong,
            Ok(LineRead::End) | Err(_) => Event::End,
        };
        let end = matches!(event, Event::End);
        if events.send(event).is_err() || !sent(events) || end {
            return;
        }
    }
}

/// The words of a command line as the loop reads them: after a byte-order
/// mark (GUIs on Windows write one first), split at ASCII whitespace. The
/// reader asks it too whether a line is `quit`: a line it took for `quit`
/// that the loop did not (`"\u{3000}quit"`, `"quit\x0b"`: Unicode
/// whitespace) stopped every later hash allocation while the engine went
/// on, and the next `go` panicked for want of a table.
fn command_words(line: &str) -> Vec<&str> {
    line.trim_start_matches('\u{feff}')
        .split_ascii_whitespace()
        .collect()
}

/// Locks `m`, even if a thread panicked while holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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

#[cfg(test)]
mod tests {
    use super::command_words;

    /// The reader's `quit` is the loop's `quit`: Unicode whitespace does
    /// not split words (found by tests/fuzz.rs).
    #[test]
    fn quit_is_the_first_word_after_a_byte_order_mark() {
        for line in ["quit", "quit\r\n", " quit now", "\u{feff}quit"] {
            assert_eq!(command_words(line).first(), Some(&"quit"), "{line:?}");
        }
        for line in ["\u{3000}quit", "quit\x0b", "\u{a0}quit\n", "quitx"] {
            assert_ne!(command_words(line).first(), Some(&"quit"), "{line:?}");
        }
    }
}
