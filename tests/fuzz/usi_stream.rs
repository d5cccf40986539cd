//! The USI command stream: random sessions of real commands (options
//! from the `usi` answer with random values, positions with random and
//! tampered move lists, `go` with random arguments and small limits,
//! pondering, `go mate`, `perft`) mixed with junk tokens and bytes, some
//! lines mutated, run through `ryuo::usi::run` in this process.
//!
//! A model reads the same lines as the engine and says what must come
//! back: no panic (the search thread's guard reports a caught one with an
//! `info string error` line), exactly one answer per `go` once a last
//! `stop` has been sent, every `bestmove` (and its ponder move) and every
//! mate line legal in the position the `go` came in, `resign` only when
//! there is no legal move or `ResignValue` was set, `win` only where a
//! declaration is allowed, and every `d` showing the position the model
//! holds (a refused `position` leaves the previous one).

use super::corpus;
use super::mutate::{mutated, mutations, Mutation};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::movegen::legal_moves;
use ryuo::position::{EnteringKingRule, Position};
use ryuo::usi::go::GoCommand;
use ryuo::usi::options::Options;
use ryuo::usi::parse_position;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the answers may take after the last `stop` (every search
/// is stopped by it; this is for a loaded machine).
const ANSWER_DEADLINE: Duration = Duration::from_secs(60);

/// What the search thread's guard writes when it catches a panic or an
/// illegal move from the search (`usi::thinking`).
const GUARD_LINES: [&str; 2] = [
    "info string error: the search failed",
    "info string error: the search returned the illegal move",
];

// -- The option table -------------------------------------------------------

/// One option as the `usi` answer advertises it.
#[derive(Debug)]
struct OptionSpec {
    name: String,
    kind: OptionType,
}

#[derive(Debug)]
enum OptionType {
    Spin { min: i64, max: i64 },
    Check,
    Combo(Vec<String>),
    Button,
    Text,
}

/// The options of the `usi` answer.
fn option_specs() -> &'static [OptionSpec] {
    static SPECS: OnceLock<Vec<OptionSpec>> = OnceLock::new();
    SPECS.get_or_init(|| {
        Options::new()
            .usi_lines()
            .iter()
            .map(|line| {
                let words: Vec<&str> = line.split_ascii_whitespace().collect();
                let at = |key: &str| words.iter().position(|&w| w == key).unwrap();
                let name = words[at("name") + 1..at("type")].join(" ");
                let value_of = |key: &str| words[at(key) + 1].parse::<i64>().unwrap();
                let kind = match words[at("type") + 1] {
                    "spin" => OptionType::Spin {
                        min: value_of("min"),
                        max: value_of("max"),
                    },
                    "check" => OptionType::Check,
                    "combo" => OptionType::Combo(
                        words
                            .windows(2)
                            .filter(|w| w[0] == "var")
                            .map(|w| w[1].to_string())
                            .collect(),
                    ),
                    "button" => OptionType::Button,
                    "string" => OptionType::Text,
                    other => panic!("unknown option type {other} in {line}"),
                };
                OptionSpec { name, kind }
            })
            .collect()
    })
}

/// Largest value sent for options whose value is memory or threads: the
/// fuzz must not allocate gigabytes (`usi.rs` and `hostile_gui.rs` test
/// large tables).
fn value_cap(name: &str) -> Option<i64> {
    match name.to_ascii_lowercase().as_str() {
        "usi_hash" => Some(16),
        "matehash" => Some(4),
        "threads" => Some(4),
        _ => None,
    }
}

/// Files for the text options: real ones, missing ones, a folder.
fn file_choices(name: &str) -> Vec<String> {
    let files = fixture_files();
    let shown = |p: &Path| p.to_string_lossy().into_owned();
    match name {
        "BookFile" => vec![
            "no_book".into(),
            String::new(),
            shown(&corpus::data_path("book_small.db")),
            shown(&corpus::data_path("sample.psv")),
            "/nonexistent/book.db".into(),
        ],
        "EvalDir" => vec![
            "<internal>".into(),
            shown(&files.dir),
            "/nonexistent".into(),
        ],
        _ => vec![
            "<internal>".into(),
            "<empty>".into(),
            shown(&files.ryuo_network),
            shown(&files.dir.join("nn.bin")),
            shown(&files.dir),
            "/nonexistent/nn.bin".into(),
        ],
    }
}

/// Network files written once for `EvalFile` and `EvalDir`.
struct FixtureFiles {
    /// Holds `nn.bin` (a small YaneuraOu network).
    dir: PathBuf,
    /// A small RYUONNUE network.
    ryuo_network: PathBuf,
}

fn fixture_files() -> &'static FixtureFiles {
    static FILES: OnceLock<FixtureFiles> = OnceLock::new();
    FILES.get_or_init(|| {
        // The same files on every run: one folder, rewritten.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-usi");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nn.bin"), corpus::standard_network()).unwrap();
        let ryuo_network = dir.join("small.nnue");
        std::fs::write(&ryuo_network, &corpus::ryuo_networks()[0]).unwrap();
        FixtureFiles { dir, ryuo_network }
    })
}

// -- Commands -----------------------------------------------------------------

/// A value for `setoption`.
#[derive(Clone, Debug)]
enum Value {
    /// A value the option accepts (within a small range for spins).
    Valid(Index),
    /// Any integer.
    Number(i64),
    /// A junk word.
    Word(Index),
    /// `setoption name X` without `value`.
    Missing,
}

/// A change that makes a `position` command wrong (or strange).
#[derive(Clone, Debug)]
enum Tamper {
    /// One move replaced by a move-like string.
    ReplaceMove(Index, String),
    /// A move-like string added at the end.
    AppendMove(String),
    /// The moves without the `moves` keyword.
    NoMovesKeyword,
    /// The SFEN mutated.
    Sfen(Vec<Mutation>),
}

/// One `go` argument.
#[derive(Clone, Debug)]
enum GoArg {
    Depth(u8),
    Nodes(u16),
    Movetime(u8),
    Clock(&'static str, u16),
    Infinite,
    Ponder,
    Mate(Option<u8>),
    Searchmoves(Vec<String>),
    Word(Index),
}

#[derive(Clone, Debug)]
enum Command {
    Usi,
    IsReady,
    NewGame,
    Stop,
    Display,
    Eval,
    SetOption(Index, Value),
    Position {
        start: Index,
        /// As SFEN, or as `startpos` when the start is the start position.
        as_sfen: bool,
        picks: Vec<u16>,
        tamper: Option<Tamper>,
    },
    Go(Vec<GoArg>),
    PonderHit(Option<(u16, u16, u16)>),
    Perft {
        depth: u8,
        via_go: bool,
    },
    Tokens(Vec<Index>),
    Bytes(Vec<u8>),
}

/// Words of the protocol and values around its limits, for junk lines.
/// `quit` and `gameover` are among them: the session drops lines that
/// they would end it with (see `ends_the_session`).
const TOKENS: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "setoption",
    "name",
    "value",
    "position",
    "startpos",
    "sfen",
    "moves",
    "go",
    "ponder",
    "stop",
    "ponderhit",
    "perft",
    "d",
    "eval",
    "depth",
    "nodes",
    "movetime",
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "infinite",
    "mate",
    "searchmoves",
    "quit",
    "gameover",
    "win",
    "lose",
    "7g7f",
    "3c3d",
    "P*5e",
    "8h2b+",
    "resign",
    "-1",
    "0",
    "1",
    "3",
    "99999999999999999999",
    "USI_Hash",
    "MultiPV",
    "Threads",
    "\u{feff}",
    "\u{3000}",
    "\u{a0}",
    "\x0b",
    "\r",
    "\t",
];

/// Bytes that USI lines are made of, for mutations.
const LINE_ALPHABET: &[u8] = b" \t\r\x0bgopsiquetdnamvbwcrf0123456789*+-/PLNSGBRKplnsgbrk";

/// Move-like text: well-formed moves (mostly illegal where they land)
/// and junk.
fn move_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[1-9][a-i][1-9][a-i]\\+?",
        1 => "[PLNSGBRK]\\*[1-9][a-i]",
        1 => "[0-9a-zA-Z*+]{0,6}",
    ]
}

fn go_arg() -> impl Strategy<Value = GoArg> {
    prop_oneof![
        4 => (1..=3u8).prop_map(GoArg::Depth),
        3 => (1..2000u16).prop_map(GoArg::Nodes),
        2 => (1..=20u8).prop_map(GoArg::Movetime),
        2 => (proptest::sample::select(&["btime", "wtime", "byoyomi", "binc", "winc"][..]), 0..300u16)
            .prop_map(|(k, v)| GoArg::Clock(k, v)),
        1 => Just(GoArg::Infinite),
        2 => Just(GoArg::Ponder),
        1 => proptest::option::of(0..60u8).prop_map(GoArg::Mate),
        1 => proptest::collection::vec(move_text(), 0..3).prop_map(GoArg::Searchmoves),
        1 => any::<Index>().prop_map(GoArg::Word),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => any::<Index>().prop_map(Value::Valid),
        1 => any::<i64>().prop_map(Value::Number),
        1 => any::<Index>().prop_map(Value::Word),
        1 => Just(Value::Missing),
    ]
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        (any::<Index>(), move_text()).prop_map(|(i, m)| Tamper::ReplaceMove(i, m)),
        move_text().prop_map(Tamper::AppendMove),
        Just(Tamper::NoMovesKeyword),
        mutations(b"plnsgbrkPLNSGBRK+123456789/ bw-", &[], 2).prop_map(Tamper::Sfen),
    ]
}

fn command() -> impl Strategy<Value = Command> {
    let bytes =
        proptest::collection::vec(any::<u8>().prop_filter("one line", |&b| b != b'\n'), 0..40);
    prop_oneof![
        1 => Just(Command::Usi),
        2 => Just(Command::IsReady),
        1 => Just(Command::NewGame),
        2 => Just(Command::Stop),
        2 => Just(Command::Display),
        1 => Just(Command::Eval),
        4 => (any::<Index>(), value()).prop_map(|(o, v)| Command::SetOption(o, v)),
        5 => (
            any::<Index>(),
            any::<bool>(),
            proptest::collection::vec(any::<u16>(), 0..24),
            proptest::option::weighted(0.3, tamper()),
        )
            .prop_map(|(start, as_sfen, picks, tamper)| Command::Position { start, as_sfen, picks, tamper }),
        6 => proptest::collection::vec(go_arg(), 0..4).prop_map(Command::Go),
        2 => proptest::option::of((0..300u16, 0..300u16, 0..100u16)).prop_map(Command::PonderHit),
        1 => (0..=3u8, any::<bool>()).prop_map(|(depth, via_go)| Command::Perft { depth, via_go }),
        2 => proptest::collection::vec(any::<Index>(), 1..6).prop_map(Command::Tokens),
        1 => bytes.prop_map(Command::Bytes),
    ]
}

/// A command, maybe with its line mutated.
fn line() -> impl Strategy<Value = (Command, Option<Vec<Mutation>>)> {
    (
        command(),
        proptest::option::weighted(0.15, mutations(LINE_ALPHABET, TOKENS, 3)),
    )
}

fn spin_value(name: &str, min: i64, max: i64, pick: Index) -> i64 {
    // Small values are the interesting ones (and keep searches short).
    let max = value_cap(name).unwrap_or(max).min(min.saturating_add(999));
    min + pick.index((max - min + 1) as usize) as i64
}

fn render_value(spec: &OptionSpec, value: &Value) -> Option<String> {
    Some(match value {
        Value::Missing => return None,
        Value::Number(n) => n.to_string(),
        Value::Word(i) => i.get(TOKENS).to_string(),
        Value::Valid(pick) => match &spec.kind {
            OptionType::Spin { min, max } => spin_value(&spec.name, *min, *max, *pick).to_string(),
            OptionType::Check => ["true", "false"][pick.index(2)].to_string(),
            OptionType::Combo(vars) => pick.get(vars).clone(),
            OptionType::Button => return None,
            OptionType::Text => pick.get(&file_choices(&spec.name)).clone(),
        },
    })
}

fn render_position(start: Index, as_sfen: bool, picks: &[u16], tamper: &Option<Tamper>) -> String {
    let sfens = corpus::sfens();
    let at = start.index(sfens.len());
    let (_, mut moves) = corpus::walk(&corpus::positions()[at], picks);
    let mut setup = if at == 0 && !as_sfen {
        "startpos".to_string()
    } else {
        format!("sfen {}", sfens[at])
    };
    let mut keyword = "moves";
    match tamper {
        None => {}
        Some(Tamper::ReplaceMove(i, m)) if !moves.is_empty() => {
            let i = i.index(moves.len());
            moves[i] = m.clone();
        }
        Some(Tamper::ReplaceMove(_, m)) | Some(Tamper::AppendMove(m)) => moves.push(m.clone()),
        Some(Tamper::NoMovesKeyword) => keyword = "",
        Some(Tamper::Sfen(changes)) => {
            let sfen = mutated(sfens[at].as_bytes(), changes);
            setup = format!("sfen {}", String::from_utf8_lossy(&sfen));
        }
    }
    if moves.is_empty() {
        format!("position {setup}")
    } else {
        format!("position {setup} {keyword} {}", moves.join(" "))
    }
}

fn render_go(args: &[GoArg]) -> String {
    let mut line = "go".to_string();
    for arg in args {
        let text = match arg {
            GoArg::Depth(d) => format!("depth {d}"),
            GoArg::Nodes(n) => format!("nodes {n}"),
            GoArg::Movetime(t) => format!("movetime {t}"),
            GoArg::Clock(key, v) => format!("{key} {v}"),
            GoArg::Infinite => "infinite".into(),
            GoArg::Ponder => "ponder".into(),
            GoArg::Mate(Some(ms)) => format!("mate {ms}"),
            GoArg::Mate(None) => "mate infinite".into(),
            GoArg::Searchmoves(moves) => format!("searchmoves {}", moves.join(" ")),
            GoArg::Word(i) => i.get(TOKENS).to_string(),
        };
        line.push(' ');
        line.push_str(&text);
    }
    line
}

/// The bytes of one command line (without its newline).
fn render(command: &Command) -> Vec<u8> {
    let text = match command {
        Command::Usi => "usi".into(),
        Command::IsReady => "isready".into(),
        Command::NewGame => "usinewgame".into(),
        Command::Stop => "stop".into(),
        Command::Display => "d".into(),
        Command::Eval => "eval".into(),
        Command::SetOption(option, value) => {
            let spec = option.get(option_specs());
            match render_value(spec, value) {
                Some(v) => format!("setoption name {} value {v}", spec.name),
                None => format!("setoption name {}", spec.name),
            }
        }
        Command::Position {
            start,
            as_sfen,
            picks,
            tamper,
        } => render_position(*start, *as_sfen, picks, tamper),
        Command::Go(args) => render_go(args),
        Command::PonderHit(None) => "ponderhit".into(),
        Command::PonderHit(Some((b, w, byoyomi))) => {
            format!("ponderhit btime {b} wtime {w} byoyomi {byoyomi}")
        }
        Command::Perft { depth, via_go } => {
            format!("{}perft {depth}", if *via_go { "go " } else { "" })
        }
        Command::Tokens(words) => words
            .iter()
            .map(|i| *i.get(TOKENS))
            .collect::<Vec<_>>()
            .join(" "),
        Command::Bytes(bytes) => return bytes.clone(),
    };
    text.into_bytes()
}

/// The session's lines: each command rendered, mutated if asked, kept on
/// one line.
fn session_lines(commands: &[(Command, Option<Vec<Mutation>>)]) -> Vec<Vec<u8>> {
    commands
        .iter()
        .map(|(command, changes)| {
            let mut bytes = render(command);
            if let Some(changes) = changes {
                bytes = mutated(&bytes, changes);
            }
            for b in &mut bytes {
                if *b == b'\n' {
                    *b = b' ';
                }
            }
            bytes
        })
        .collect()
}

// -- The model ------------------------------------------------------------------

/// The words of a line as the engine splits them.
fn words_of(line: &str) -> Vec<&str> {
    line.trim_start_matches('\u{feff}')
        .split_ascii_whitespace()
        .collect()
}

/// Whether the engine would end the session or the game at this line
/// (`quit`; `gameover`, which drops the queued `go`s): such lines are left
/// out, as the accounting of answers is for a session that goes on.
fn ends_the_session(words: &[&str]) -> bool {
    matches!(words.first(), Some(&"quit") | Some(&"gameover"))
}

/// Whether a `setoption` line would allocate more than the fuzz allows
/// (a mutated digit can turn 16 MiB into gigabytes).
fn allocates_too_much(words: &[&str]) -> bool {
    let Some(at) = words.iter().position(|&w| w == "value") else {
        return false;
    };
    let name = words[..at].get(2..).unwrap_or_default().join(" ");
    let value = words[at + 1..].join(" ");
    value_cap(&name).is_some_and(|cap| value.parse::<i64>().is_ok_and(|v| v > cap))
}

/// What the engine owes for one `go`.
enum Owed {
    BestMove(Position),
    Mate(Position),
}

impl std::fmt::Debug for Owed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owed::BestMove(pos) => write!(f, "a bestmove in {}", pos.to_sfen()),
            Owed::Mate(pos) => write!(f, "a mate answer in {}", pos.to_sfen()),
        }
    }
}

/// What the engine must do, from the lines it was sent.
struct Model {
    pos: Position,
    options: Options,
    /// `ResignValue` was set above 0 at some point: a `go` may resign.
    may_resign: bool,
    owed: Vec<Owed>,
    /// The SFEN each `d` must show.
    displays: Vec<String>,
}

impl Model {
    fn new() -> Model {
        Model {
            pos: Position::startpos(),
            options: Options::new(),
            may_resign: false,
            owed: Vec::new(),
            displays: Vec::new(),
        }
    }

    /// Reads one line as the engine does.
    fn read(&mut self, line: &str) {
        let words = words_of(line);
        let Some((&command, args)) = words.split_first() else {
            return;
        };
        match command {
            "position" => {
                if let Ok(pos) = parse_position(args) {
                    self.pos = pos;
                }
            }
            "go" if args.first() != Some(&"perft") => {
                let (go, _) = GoCommand::parse(args);
                self.owed.push(match go.mate {
                    Some(_) => Owed::Mate(self.pos.clone()),
                    None => Owed::BestMove(self.pos.clone()),
                });
            }
            "setoption" => self.setoption(args),
            "d" => self.displays.push(self.pos.to_sfen()),
            _ => {}
        }
    }

    /// `setoption` as `Engine::setoption` splits it.
    fn setoption(&mut self, args: &[&str]) {
        let Some((&"name", rest)) = args.split_first() else {
            return;
        };
        let (name, value) = match rest.iter().position(|&w| w == "value") {
            Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
            None => (rest.join(" "), None),
        };
        if self.options.set(&name, value.as_deref()).is_ok() && self.options.resign_value() > 0 {
            self.may_resign = true;
        }
    }
}

// -- Running a session ------------------------------------------------------

/// The engine's input: lines sent from the test, end of input when the
/// sender is dropped.
struct ChannelInput {
    lines: Receiver<Vec<u8>>,
    pending: Vec<u8>,
}

impl Read for ChannelInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            match self.lines.recv() {
                Ok(bytes) => self.pending = bytes,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// The engine's output, cut into lines for the test.
struct ChannelOutput {
    lines: Sender<String>,
    partial: Vec<u8>,
}

impl Write for ChannelOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i]).into_owned();
            // The test may have stopped listening after a failure.
            let _ = self.lines.send(text);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether an output line answers a `go`.
fn is_answer(line: &str) -> bool {
    line.starts_with("bestmove") || line.starts_with("checkmate")
}

/// Runs a session: the setup lines, `lines`, then `stop`; waits for the
/// answers the model expects, ends the input and waits for the engine
/// to return. Returns the model and every output line.
fn run_session(setup: &[&str], lines: &[Vec<u8>]) -> (Model, Vec<String>) {
    let (input, input_lines) = mpsc::channel::<Vec<u8>>();
    let (output_lines, output) = mpsc::channel::<String>();
    let (finished, engine_done) = mpsc::channel::<()>();
    let engine = std::thread::spawn(move || {
        ryuo::usi::run(
            ChannelInput {
                lines: input_lines,
                pending: Vec::new(),
            },
            ChannelOutput {
                lines: output_lines,
                partial: Vec::new(),
            },
        );
        let _ = finished.send(());
    });
    let mut model = Model::new();
    let mut send = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let words = words_of(&text);
        if ends_the_session(&words) || allocates_too_much(&words) {
            return;
        }
        model.read(&text);
        let mut line = bytes.to_vec();
        line.push(b'\n');
        input.send(line).expect("the engine reads its input");
    };
    for line in setup {
        send(line.as_bytes());
    }
    for line in lines {
        send(line);
    }
    send(b"stop");
    let mut seen = Vec::new();
    let deadline = Instant::now() + ANSWER_DEADLINE;
    let answered = |seen: &[String]| seen.iter().filter(|l| is_answer(l)).count();
    while answered(&seen) < model.owed.len() {
        match output.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => seen.push(line),
            Err(RecvTimeoutError::Timeout) => panic!(
                "{} of {} go answered after {ANSWER_DEADLINE:?}; output:\n{}",
                answered(&seen),
                model.owed.len(),
                seen.join("\n")
            ),
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(input);
    match engine_done.recv_timeout(ANSWER_DEADLINE) {
        // Disconnected: the engine's thread panicked; its panic is the
        // failure to report.
        Ok(()) | Err(RecvTimeoutError::Disconnected) => {
            if let Err(panic) = engine.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(RecvTimeoutError::Timeout) => {
            panic!("the engine did not return at the end of its input")
        }
    }
    seen.extend(output.try_iter());
    (model, seen)
}

// -- The checks -------------------------------------------------------------

/// Whether a declaration win may be claimed in `pos` under some rule (the
/// rule in force may change while a `go` waits).
fn may_declare(pos: &Position) -> bool {
    [
        EnteringKingRule::Csa27,
        EnteringKingRule::Csa24,
        EnteringKingRule::Csa24Handicap,
        EnteringKingRule::Csa27Handicap,
        EnteringKingRule::Try,
    ]
    .iter()
    .any(|&rule| pos.can_declare_win(rule))
}

/// Plays `moves` (USI text) from `pos`, each legal; the position after.
fn play_legal(pos: &Position, moves: &[&str], what: &str) -> Position {
    let mut pos = pos.clone();
    for text in moves {
        let m = pos
            .parse_usi_move(text)
            .unwrap_or_else(|| panic!("{what}: {text} is not legal in {}", pos.to_sfen()));
        pos.do_move(m);
    }
    pos
}

fn check_answer(owed: &Owed, line: &str, may_resign: bool) {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    match (owed, words.as_slice()) {
        (Owed::BestMove(pos), ["bestmove", "resign"]) => assert!(
            may_resign || legal_moves(pos).is_empty(),
            "'{line}' with legal moves and ResignValue 0 in {}",
            pos.to_sfen()
        ),
        (Owed::BestMove(pos), ["bestmove", "win"]) => {
            assert!(may_declare(pos), "'{line}' in {}", pos.to_sfen())
        }
        (Owed::BestMove(pos), ["bestmove", m]) => {
            play_legal(pos, &[m], line);
        }
        (Owed::BestMove(pos), ["bestmove", m, "ponder", p]) => {
            play_legal(pos, &[m, p], line);
        }
        (Owed::Mate(_), ["checkmate", "nomate" | "timeout"]) => {}
        (Owed::Mate(pos), ["checkmate", moves @ ..]) if !moves.is_empty() => {
            let end = play_legal(pos, moves, line);
            assert!(
                end.in_check() && legal_moves(&end).is_empty(),
                "'{line}' does not end in mate from {}",
                pos.to_sfen()
            );
        }
        _ => panic!("'{line}' does not answer {owed:?}"),
    }
}

/// Every property of a session's output against its model.
fn check_session(model: &Model, output: &[String]) {
    let transcript = || output.join("\n");
    for guard in GUARD_LINES {
        assert!(
            !output.iter().any(|l| l.starts_with(guard)),
            "the search thread failed:\n{}",
            transcript()
        );
    }
    let answers: Vec<&String> = output.iter().filter(|l| is_answer(l)).collect();
    assert_eq!(
        answers.len(),
        model.owed.len(),
        "answers for {} go:\n{}",
        model.owed.len(),
        transcript()
    );
    for (owed, line) in model.owed.iter().zip(answers) {
        check_answer(owed, line, model.may_resign);
    }
    let shown: Vec<&str> = output
        .iter()
        .filter_map(|l| l.strip_prefix("sfen: "))
        .collect();
    assert_eq!(
        shown,
        model.displays,
        "positions shown by d:\n{}",
        transcript()
    );
}

/// A session as a GUI starts it: small tables (the fuzz runs many).
const SETUP: [&str; 3] = [
    "usi",
    "setoption name USI_Hash value 4",
    "setoption name MateHash value 1",
];

proptest! {
    #![proptest_config(config(300))]

    /// Random sessions: no panic, one legal answer per `go`, refused input
    /// changes nothing.
    #[test]
    fn random_sessions_answer_every_go_legally(
        commands in proptest::collection::vec(line(), 1..40),
    ) {
        let lines = session_lines(&commands);
        let (model, output) = run_session(&SETUP, &lines);
        check_session(&model, &output);
    }
}

/// Found by the fuzz: a `quit` behind Unicode whitespace is no command to
/// the loop, but the reader took it for one and stopped every later table
/// allocation, so the next `go` panicked on a fresh engine.
#[test]
fn quit_behind_unicode_whitespace_is_an_unknown_command() {
    let lines = ["\u{3000}quit", "quit\x0b", "go depth 1"].map(|l| l.as_bytes().to_vec());
    let (model, output) = run_session(&[], &lines);
    assert_eq!(model.owed.len(), 1);
    check_session(&model, &output);
    assert!(!ryuo::memory::fills_abandoned());
}

/// A refused `position` keeps the previous position: `d` shows it and
/// `go` answers a move legal in it.
#[test]
fn a_refused_position_changes_nothing() {
    let lines = [
        "position startpos moves 7g7f 3c3d",
        "position startpos moves 2g2f 2g2f",
        "position sfen lnsgkgsnl/9/ppppppppp b - 1",
        "d",
        "go depth 1",
    ]
    .map(|l| l.as_bytes().to_vec());
    let (model, output) = run_session(&SETUP, &lines);
    assert_eq!(model.displays.len(), 1);
    assert!(
        model.displays[0].starts_with("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/"),
        "{}",
        model.displays[0]
    );
    check_session(&model, &output);
}

/// The entering-king position of the corpus is a declaration win, so the
/// sessions reach `bestmove win` and its check.
#[test]
fn the_corpus_reaches_a_declaration() {
    let sfen = corpus::sfens()
        .iter()
        .find(|s| may_declare(&Position::from_sfen(s).unwrap()))
        .expect("a corpus position where a declaration wins");
    let lines = [format!("position sfen {sfen}"), "go depth 1".into()].map(String::into_bytes);
    let (model, output) = run_session(&SETUP, &lines);
    check_session(&model, &output);
    assert!(output.iter().any(|l| l == "bestmove win"), "{output:?}");
}
