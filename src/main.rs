//! The `ryuo` binary: with no arguments, the USI loop on stdin/stdout;
//! with a subcommand, a command-line tool.

use clap::{Parser, Subcommand};
use ryuo::position::Position;
use ryuo::usi::perft_report;
use std::io::{self, Write};

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
        }) => {
            let mut out = io::stdout();
            let done = if ablate {
                ryuo::bench::ablate(depth, hash, &mut out)
            } else {
                ryuo::bench::run(depth, hash, threads, Default::default(), true, &mut out)
                    .map(|totals| ryuo::bench::print_totals(&totals, &mut out))
            };
            if let Err(e) = done {
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
            if text.starts_with("error") {
                eprint!("{text}");
                std::process::exit(2);
            }
            print!("{text}");
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
