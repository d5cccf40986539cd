//! The `ryuo` binary: with no arguments, the USI loop on stdin/stdout;
//! with a subcommand, a command-line tool.

use clap::{Parser, Subcommand};
use ryuo::position::Position;
use ryuo::usi::perft_report;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ryuo", version, about = "Ryuo, a USI shogi engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
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
        #[arg(long)]
        sfen: String,
        /// Give up after this many milliseconds (default: no limit).
        #[arg(long)]
        time_ms: Option<u64>,
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
    },
    /// Opening book tools (YaneuraOu's text format).
    #[command(subcommand)]
    Book(BookCommand),
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

fn main() {
    let cli = Cli::parse();
    match cli.command {
        None => ryuo::usi::run(io::stdin().lock(), io::stdout()),
        Some(Command::Bench {
            depth,
            hash,
            threads,
            ablate,
        }) => {
            let mut out = io::stdout();
            if ablate {
                ryuo::bench::ablate(depth, hash, &mut out);
            } else {
                let totals =
                    ryuo::bench::run(depth, hash, threads, Default::default(), true, &mut out);
                ryuo::bench::print_totals(&totals, &mut out);
            }
        }
        Some(Command::Book(command)) => {
            if let Err(e) = book(command) {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
        Some(Command::Mate {
            sfen,
            time_ms,
            hash,
        }) => {
            let text = ryuo::mate::run_cli(&sfen, time_ms, hash);
            print!("{text}");
            if text.starts_with("error") {
                std::process::exit(2);
            }
        }
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

/// Runs a `ryuo book` command.
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
