//! The `ryuo` binary: with no arguments, the USI loop on stdin/stdout;
//! with a subcommand, a command-line tool.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use ryuo::learn::gensfen::{GensfenConfig, Shard};
use ryuo::learn::manifest::EvalInfo;
use ryuo::learn::PsvReader;
use ryuo::position::Position;
use ryuo::progress::Progress;
use ryuo::search::{Evaluator, SearchOptions};
use ryuo::usi::output::perft_report;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "ryuo", version, about = "Ryuo, a USI shogi engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// Which evaluation a command-line search uses.
#[derive(clap::Args)]
struct EvalArgs {
    /// Use the hand-crafted evaluation instead of the network.
    #[arg(long)]
    classic: bool,
    /// Use material only (YaneuraOu's piece values) instead of the network.
    #[arg(long, conflicts_with = "classic")]
    material: bool,
    /// Use the network in this file (Ryuo's or YaneuraOu's `nn.bin`
    /// format) instead of the embedded one.
    #[arg(long, conflicts_with = "classic")]
    eval_file: Option<std::path::PathBuf>,
    /// Divisor of a YaneuraOu-format network's output (its `FV_SCALE`).
    #[arg(long, default_value_t = ryuo::nnue::standard::DEFAULT_FV_SCALE)]
    fv_scale: i32,
}

impl EvalArgs {
    /// The evaluator asked for; exits with an error line on a bad file.
    fn evaluator(&self) -> Evaluator {
        self.evaluator_and_info().0
    }

    /// The evaluator asked for and its description for a manifest (a
    /// network's hash included); exits with an error line on a bad file.
    fn evaluator_and_info(&self) -> (Evaluator, EvalInfo) {
        use ryuo::learn::fnv;
        if self.classic {
            return (Evaluator::Classic, EvalInfo::Classic);
        }
        if self.material {
            return (Evaluator::Material, EvalInfo::Material);
        }
        let fail = |path: &Path, e: &dyn std::fmt::Display| -> ! {
            eprintln!("error: {}: {e}", path.display());
            std::process::exit(2);
        };
        let Some(path) = &self.eval_file else {
            let evaluator = Evaluator::default();
            let info = match evaluator {
                Evaluator::Network(_) => EvalInfo::Embedded {
                    network: ryuo::nnue::EMBEDDED_NAME.to_string(),
                    hash: fnv::hash_text(ryuo::nnue::EMBEDDED_BYTES),
                },
                _ => EvalInfo::Classic,
            };
            return (evaluator, info);
        };
        let net = ryuo::nnue::load(path).unwrap_or_else(|e| fail(path, &e));
        let (_, hash) = fnv::hash_file(path).unwrap_or_else(|e| fail(path, &e));
        let fv_scale = self.fv_scale.max(1);
        let (format, divisor) = match &net {
            ryuo::nnue::EvalNetwork::Ryuo(_) => ("ryuo", None),
            ryuo::nnue::EvalNetwork::Standard(n) if n.adds_to_classic() => {
                ("yaneuraou-hybrid", Some(fv_scale))
            }
            ryuo::nnue::EvalNetwork::Standard(_) => ("yaneuraou", Some(fv_scale)),
        };
        let info = EvalInfo::File {
            path: path.display().to_string(),
            hash: fnv::text(hash),
            format: format.to_string(),
            fv_scale: divisor,
        };
        (Evaluator::of(&net, fv_scale), info)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (bulk-counted at the last ply).
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Position to start from (default: the initial position).
        #[arg(long)]
        sfen: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
    },
    /// Solve a tsume problem with the df-pn mate solver.
    Mate {
        /// The problem; the side to move is the attacker.
        #[arg(long, required_unless_present = "file", conflicts_with = "file")]
        sfen: Option<String>,
        /// A problem set instead (`sfen<TAB>mate|nomate<TAB>plies` per line,
        /// e.g. tests/data/tsume.tsv): solved counts, slowest answer, nodes/s.
        #[arg(long)]
        file: Option<PathBuf>,
        /// With --file: print one line per problem.
        #[arg(long)]
        verbose: bool,
        /// Give up after this many milliseconds (default: no limit; with
        /// --file, 1000 unless --nodes is given).
        #[arg(long)]
        time_ms: Option<u64>,
        /// With --file: give up after this many nodes per problem, the
        /// same work on any machine (compares solvers under load).
        #[arg(long, requires = "file")]
        nodes: Option<u64>,
        /// Solver table size in MiB.
        #[arg(long, default_value_t = ryuo::search::DEFAULT_MATE_HASH_MIB)]
        hash: usize,
    },
    /// Search the bench positions to a fixed depth: node signature and speed.
    Bench {
        /// Depth of every search.
        #[arg(long, default_value_t = ryuo::bench::DEFAULT_DEPTH)]
        depth: i32,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Also switch each pruning/ordering technique off in turn and print
        /// node and time ratios.
        #[arg(long)]
        ablate: bool,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Print the search constants for SPSA, one per line:
    /// `name,value,min,max,step` (the names are the USI options of a
    /// `--features tune` build).
    TuneSpec,
    /// Self-play training positions in YaneuraOu's PackedSfenValue format,
    /// with a manifest beside them (`OUT.manifest.json`). The file depends
    /// only on the settings, not on the thread count.
    Gensfen {
        /// Positions to write.
        #[arg(long)]
        count: u64,
        /// Output file (truncated first).
        #[arg(long)]
        out: PathBuf,
        /// Node budget of each move's search.
        #[arg(long)]
        nodes: Option<u64>,
        /// Depth of each move's search.
        #[arg(long)]
        depth: Option<i32>,
        /// Games played in parallel, one per thread (the output is the
        /// same whatever their number).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Random seed: game j of shard i plays from a generator keyed by
        /// (seed, i, j).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Play shard I of N (0 <= I < N) of the seed's games: the shards
        /// of one seed never share a game, and their files concatenate
        /// (`ryuo gensfen-merge`).
        #[arg(long, default_value = "0/1", value_name = "I/N")]
        shard: Shard,
        /// Random legal plies at the start of each game, MIN..MAX.
        #[arg(long, value_parser = parse_range)]
        random_plies: Option<(u32, u32)>,
        /// Fewest random plies (overrides --random-plies).
        #[arg(long)]
        random_min: Option<u32>,
        /// Most random plies (overrides --random-plies).
        #[arg(long)]
        random_max: Option<u32>,
        /// Scores are clamped to this; beyond it for a few plies wins.
        #[arg(long, default_value_t = 3000)]
        eval_limit: i32,
        /// A game still going after this many moves is a draw.
        #[arg(long, default_value_t = 320)]
        max_ply: u32,
        /// Hash table per thread, MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Concatenate record files (gensfen shards) in the order given into
    /// OUT, after checking each against its manifest; writes OUT's
    /// manifest listing the parts.
    GensfenMerge {
        /// The merged file (its manifest goes beside it).
        out: PathBuf,
        /// The files to merge, each with its manifest beside it.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Check record files against their manifests (size, records, content
    /// hash).
    GensfenVerify {
        /// The files, each with its manifest beside it.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a PackedSfenValue file: sfen, move, score, ply, result per line.
    PsvDump {
        /// The record file.
        file: PathBuf,
        /// Print at most this many records.
        #[arg(long)]
        limit: Option<u64>,
    },
    /// Analyse a game record (USI line, CSA, or KIF in UTF-8 or Shift_JIS):
    /// the evaluation before every move, the engine's move, marks for
    /// inaccuracies (?!), mistakes (?) and blunders (??), and an SVG graph.
    Analyse {
        /// The record file.
        record: PathBuf,
        /// Nodes searched per position (default 100000).
        #[arg(long, conflicts_with = "time_ms")]
        nodes: Option<u64>,
        /// Milliseconds per position instead of a node budget.
        #[arg(long)]
        time_ms: Option<u64>,
        /// Write the evaluation graph here (SVG).
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write the report here instead of stdout.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Hash table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Opening book tools (YaneuraOu's text format).
    #[command(subcommand)]
    Book(BookCommand),
    /// YaneuraOu-format network tools.
    #[command(subcommand)]
    Nnue(NnueCommand),
}

#[derive(Subcommand)]
enum NnueCommand {
    /// Write a valid network file of an architecture with random weights
    /// (large enough to exercise every clip and shift; the same seed
    /// writes the same file), for exactness tests against YaneuraOu.
    Random {
        /// Architecture: halfkp_256x2-32-32, halfkp_512x2-16-32,
        /// halfkp_1024x2-8-32, halfkp_1024x2-8-64 or kp_256x2-32-32.
        #[arg(long)]
        arch: String,
        /// Random seed.
        #[arg(long)]
        seed: u64,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write a YaneuraOu-format network (an `nn.bin`, or one in Ryuo's
    /// wrapper) packed: lossless, about a quarter of the size for a
    /// trained HalfKP network (half that again if king-mirrored); the
    /// engine loads it like the original (`EvalFile`).
    Pack {
        /// The network to pack.
        #[arg(long = "in")]
        input: PathBuf,
        /// The packed file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Evaluation throughput: play each game of a file (`startpos moves
    /// …` or `sfen … moves …` a line) evaluating after every move, as
    /// YaneuraOu's `evalbench` (a local patch for measuring) does.
    Bench {
        /// The games.
        #[arg(long)]
        games: PathBuf,
        /// Play the games this many times.
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Print `sfen<TAB>value` for each SFEN of a file (one a line), the
    /// value as the `eval` command prints it (computed from scratch).
    Eval {
        /// The positions.
        #[arg(long)]
        positions: PathBuf,
        #[command(flatten)]
        eval: EvalArgs,
    },
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book from game records (`startpos moves …` or
    /// `sfen … moves …`, one a line): each move counted by how often it
    /// was played.
    FromSfens {
        /// The game records.
        #[arg(long = "in")]
        input: PathBuf,
        /// The book to write.
        #[arg(long)]
        out: PathBuf,
        /// Only positions up to this ply.
        #[arg(long, default_value_t = 40)]
        max_ply: u32,
    },
    /// Build a search-scored book: the engine plays itself at a fixed
    /// depth after a few random plies.
    FromSelfplay {
        /// Games to play.
        #[arg(long)]
        games: usize,
        /// Depth of every search.
        #[arg(long, default_value_t = 8)]
        depth: i32,
        /// Only positions up to this ply.
        #[arg(long, default_value_t = 24)]
        max_ply: u32,
        /// Random legal plies opening each game (not written).
        #[arg(long, default_value_t = 2)]
        random_plies: u32,
        /// Seed of the random plies.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Hash table, MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// The book to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write a synthetic book of random positions (for load-time tests).
    Synth {
        /// Number of distinct positions.
        #[arg(long)]
        positions: usize,
        /// The book to write.
        #[arg(long)]
        out: PathBuf,
        /// Random seed (the same seed writes the same book).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Load a book as `isready` would and report the time taken.
    Bench {
        /// The book to load.
        #[arg(long)]
        file: PathBuf,
    },
}

/// Reads `MIN..MAX` (or a single number).
fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let a = a
        .trim()
        .parse::<u32>()
        .map_err(|e| format!("bad minimum '{a}': {e}"))?;
    let b = b
        .trim()
        .parse::<u32>()
        .map_err(|e| format!("bad maximum '{b}': {e}"))?;
    Ok((a, b))
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        None => ryuo::usi::run(io::stdin(), io::stdout()),
        Some(Command::Bench {
            depth,
            hash,
            threads,
            ablate,
            eval,
        }) => {
            let mut out = io::stdout();
            let options = SearchOptions {
                evaluator: eval.evaluator(),
                ..SearchOptions::default()
            };
            let done = if ablate {
                ryuo::bench::ablate(depth, hash, &options, &mut out)
            } else {
                ryuo::bench::run(depth, hash, threads, &options, true, &mut out)
                    .map(|totals| ryuo::bench::print_totals(&totals, &mut out))
            };
            if let Err(e) = done {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
        Some(Command::TuneSpec) => {
            let params = ryuo::search::params::SearchParams::DEFAULT;
            for t in ryuo::search::params::TUNABLES {
                let value = (t.get)(&params);
                println!("{},{value},{},{},{}", t.name, t.min, t.max, t.step);
            }
        }
        Some(Command::Nnue(command)) => exit_on_error(nnue(command)),
        Some(Command::Analyse {
            record,
            nodes,
            time_ms,
            svg,
            report,
            hash,
            eval,
        }) => {
            use ryuo::analyse::{Budget, Config, DEFAULT_NODES};
            let budget = match time_ms {
                Some(t) => Budget::Time(std::time::Duration::from_millis(t)),
                None => Budget::Nodes(nodes.unwrap_or(DEFAULT_NODES)),
            };
            let config = Config {
                record,
                budget,
                svg,
                report,
                hash_mib: hash,
                options: SearchOptions {
                    evaluator: eval.evaluator(),
                    ..SearchOptions::default()
                },
            };
            exit_on_error(ryuo::analyse::run(&config));
        }
        Some(Command::Book(command)) => {
            if let Err(e) = book(command) {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
        Some(Command::Mate {
            sfen,
            file,
            verbose,
            time_ms,
            nodes,
            hash,
        }) => {
            if let Some(file) = file {
                if let Err(e) = mate_set(&file, time_ms, nodes, hash, verbose) {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
                return;
            }
            let text = ryuo::mate::run_cli(&sfen.unwrap_or_default(), time_ms, hash);
            if text.starts_with("error") {
                eprint!("{text}");
                std::process::exit(2);
            }
            print!("{text}");
        }
        Some(Command::Gensfen {
            count,
            out,
            nodes,
            depth,
            threads,
            seed,
            shard,
            random_plies,
            random_min,
            random_max,
            eval_limit,
            max_ply,
            hash,
            eval,
        }) => {
            let defaults = GensfenConfig::default();
            let (min, max) = random_plies.unwrap_or((defaults.random_min, defaults.random_max));
            let (evaluator, info) = eval.evaluator_and_info();
            let config = GensfenConfig {
                count,
                nodes,
                depth,
                threads,
                seed,
                shard,
                random_min: random_min.unwrap_or(min),
                random_max: random_max.unwrap_or(max),
                eval_limit,
                max_ply,
                hash_mib: hash,
                evaluator,
            };
            exit_on_error(gensfen(&config, info, &out));
        }
        Some(Command::GensfenMerge { out, inputs }) => exit_on_error(gensfen_merge(&out, &inputs)),
        Some(Command::GensfenVerify { files }) => exit_on_error(gensfen_verify(&files)),
        Some(Command::PsvDump { file, limit }) => exit_on_error(psv_dump(&file, limit)),
        Some(Command::Perft {
            depth,
            sfen,
            divide,
        }) => {
            let pos = match sfen {
                None => Ok(Position::startpos()),
                Some(s) => Position::from_sfen(&s),
            };
            match pos {
                Ok(mut pos) => {
                    let mut out = io::stdout();
                    let _ = write!(out, "{}", perft_report(&mut pos, depth, divide));
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::exit(2);
                }
            }
        }
    }
}

fn exit_on_error(r: Result<(), String>) {
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn gensfen(config: &GensfenConfig, evaluation: EvalInfo, out: &Path) -> Result<(), String> {
    use ryuo::learn::gensfen::PROGRESS_EVERY;
    config.validate().map_err(|e| e.to_string())?;
    let mut progress = Progress::stderr("gensfen", "positions", config.count, PROGRESS_EVERY);
    ryuo::learn::shards::generate(config, evaluation, out, &mut progress)
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn gensfen_merge(out: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let m = ryuo::learn::shards::merge(out, inputs).map_err(|e| e.to_string())?;
    println!(
        "{}: {} records from {} files, {} bytes, {}",
        out.display(),
        m.records,
        m.parts.len(),
        m.bytes,
        m.content_hash
    );
    Ok(())
}

/// Checks every file, then fails if any did not match.
fn gensfen_verify(files: &[PathBuf]) -> Result<(), String> {
    let mut bad = 0;
    for f in files {
        match ryuo::learn::shards::verify(f) {
            Ok(m) => println!(
                "{}: ok, {} records, {}",
                f.display(),
                m.records,
                m.content_hash
            ),
            Err(e) => {
                println!("{}: FAILED: {e}", f.display());
                bad += 1;
            }
        }
    }
    match bad {
        0 => Ok(()),
        n => Err(format!(
            "{n} of {} files do not match their manifests",
            files.len()
        )),
    }
}

/// One line per record; a record that does not decode gets an `error` line
/// and makes the exit status non-zero.
fn psv_dump(file: &Path, limit: Option<u64>) -> Result<(), String> {
    let reader =
        PsvReader::open(file).map_err(|e| format!("cannot open {}: {e}", file.display()))?;
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut bad = 0u64;
    for (i, rec) in reader.enumerate() {
        if limit.is_some_and(|n| i as u64 >= n) {
            break;
        }
        let rec = rec.map_err(|e| e.to_string())?;
        let line = match rec.position() {
            Ok(pos) => format!(
                "{}\t{}\t{}\t{}\t{}",
                pos.to_sfen(),
                rec.best_move(),
                rec.score,
                rec.game_ply,
                rec.game_result
            ),
            Err(e) => format!("error\trecord {i}: {e}"),
        };
        if line.starts_with("error") {
            bad += 1;
        }
        if writeln!(out, "{line}").is_err() {
            return Ok(()); // stdout closed (e.g. piped into head)
        }
    }
    let _ = out.flush();
    if bad > 0 {
        return Err(format!("{bad} record(s) do not decode"));
    }
    Ok(())
}

/// Runs a `ryuo book` command.
fn nnue(command: NnueCommand) -> Result<(), String> {
    use ryuo::nnue::standard::{Arch, StandardNetwork, ARCHITECTURES};
    match command {
        NnueCommand::Random { arch, seed, out } => {
            let Some(a) = Arch::by_name(&arch) else {
                let names: Vec<_> = ARCHITECTURES.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown architecture {arch}; one of {}",
                    names.join(", ")
                ));
            };
            let bytes = StandardNetwork::random(a, seed).to_bytes();
            std::fs::write(&out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
            println!(
                "{}: {arch}, seed {seed}, {} bytes",
                out.display(),
                bytes.len()
            );
        }
        NnueCommand::Pack { input, out } => {
            let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", input.display());
            let ryuo::nnue::EvalNetwork::Standard(net) =
                ryuo::nnue::load(&input).map_err(|e| fail(&e))?
            else {
                return Err(fail(&"not a YaneuraOu-format network"));
            };
            let mut flags = ryuo::nnue::FLAG_PACKED;
            if net.adds_to_classic() {
                flags |= ryuo::nnue::FLAG_ADDS_TO_CLASSIC;
            }
            let packed = ryuo::nnue::standard::pack::pack(&net);
            let bytes = ryuo::nnue::wrap_standard(&packed, flags);
            std::fs::write(&out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
            // Read back as the engine will.
            let back = match ryuo::nnue::load(&out) {
                Ok(ryuo::nnue::EvalNetwork::Standard(b)) => b,
                Ok(_) => return Err(format!("{}: not read back as packed", out.display())),
                Err(e) => return Err(format!("{}: {e}", out.display())),
            };
            if back.to_bytes() != net.to_bytes() || back.adds_to_classic() != net.adds_to_classic()
            {
                return Err(format!("{}: does not unpack to the input", out.display()));
            }
            println!(
                "{}: {}, {} bytes packed from {} (checked: unpacks to the same network)",
                out.display(),
                net.arch().name(),
                bytes.len(),
                net.to_bytes().len()
            );
        }
        NnueCommand::Bench {
            games,
            repeat,
            eval,
        } => {
            let text =
                std::fs::read_to_string(&games).map_err(|e| format!("{}: {e}", games.display()))?;
            let mut list = Vec::new();
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let words: Vec<&str> = line.split_whitespace().collect();
                let split = words
                    .iter()
                    .position(|&w| w == "moves")
                    .unwrap_or(words.len());
                let mut pos = ryuo::usi::parse_position(&words[..split])?;
                let start = pos.clone();
                let mut moves = Vec::new();
                for w in words.iter().skip(split + 1) {
                    let m = pos
                        .parse_usi_move(w)
                        .ok_or_else(|| format!("illegal move {w} in: {line}"))?;
                    pos.do_move(m);
                    moves.push(m);
                }
                list.push((start, moves));
            }
            let t = ryuo::bench::eval_throughput(&eval.evaluator(), &list, repeat);
            let secs = t.time.as_secs_f64().max(1e-9);
            println!(
                "positions {} time_ms {} evals_per_sec {:.0} checksum {}",
                t.evals,
                t.time.as_millis(),
                t.evals as f64 / secs,
                t.checksum
            );
        }
        NnueCommand::Eval { positions, eval } => {
            let text = std::fs::read_to_string(&positions)
                .map_err(|e| format!("{}: {e}", positions.display()))?;
            let evaluator = eval.evaluator();
            let mut out = BufWriter::new(io::stdout().lock());
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let sfen = line.strip_prefix("sfen ").unwrap_or(line);
                let pos = Position::from_sfen(sfen).map_err(|e| format!("{sfen}: {e}"))?;
                let v = evaluator.value_from_scratch(&pos);
                writeln!(out, "{sfen}\t{v}").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn book(command: BookCommand) -> Result<(), String> {
    let create = |path: &PathBuf| {
        File::create(path)
            .map(BufWriter::new)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    match command {
        BookCommand::FromSfens {
            input,
            out,
            max_ply,
        } => {
            let records =
                File::open(&input).map_err(|e| format!("cannot open {}: {e}", input.display()))?;
            let r =
                ryuo::book::make::from_sfens(BufReader::new(records), max_ply, &mut create(&out)?)
                    .map_err(|e| e.to_string())?;
            println!(
                "{} games, {} bad lines; {} positions and {} moves written to {}",
                r.games,
                r.bad_lines,
                r.positions,
                r.moves,
                out.display()
            );
            if let Some(p) = r.first_problem {
                println!("first problem: {p}");
            }
        }
        BookCommand::FromSelfplay {
            games,
            depth,
            max_ply,
            random_plies,
            seed,
            hash,
            out,
        } => {
            let settings = ryuo::book::make::SelfplaySettings {
                games,
                depth,
                max_ply,
                random_plies,
                seed,
                hash_mib: hash,
            };
            let every = std::time::Duration::from_secs(10);
            let mut progress = Progress::stderr("book", "games", games as u64, every);
            let r = ryuo::book::make::from_selfplay(&settings, &mut create(&out)?, &mut progress)
                .map_err(|e| e.to_string())?;
            println!(
                "{games} games; {} positions and {} moves written to {}",
                r.positions,
                r.moves,
                out.display()
            );
        }
        BookCommand::Synth {
            positions,
            out,
            seed,
        } => {
            ryuo::book::make::synth(positions, seed, &mut create(&out)?)
                .map_err(|e| e.to_string())?;
            println!("{positions} positions written to {}", out.display());
        }
        BookCommand::Bench { file } => print!("{}", ryuo::book::make::bench(&file)?),
    }
    Ok(())
}

/// `ryuo mate --file`: runs a problem set at `time_ms` (default 1000 when
/// no node limit is given) and `nodes` per problem and prints the summary.
fn mate_set(
    file: &Path,
    time_ms: Option<u64>,
    nodes: Option<u64>,
    hash: usize,
    verbose: bool,
) -> Result<(), String> {
    use ryuo::mate::problems;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let set = problems::parse(&text)?;
    let mut solver = ryuo::mate::MateSolver::try_new(hash)?;
    let time_ms = time_ms.or(if nodes.is_some() { None } else { Some(1000) });
    let limits = problems::SetLimits {
        time: time_ms.map(std::time::Duration::from_millis),
        nodes,
    };
    let mut print = |line: &str| println!("{line}");
    let each: Option<&mut dyn FnMut(&str)> = if verbose { Some(&mut print) } else { None };
    let report = problems::run_set(&set, limits, &mut solver, each);
    print!("{}", report.text());
    Ok(())
}
