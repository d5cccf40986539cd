//! Command line of the trainer: parse flags, load data, train, export.

#![forbid(unsafe_code)]

use clap::Parser;
use ryuo_train::checkpoint;
use ryuo_train::dataset::Dataset;
use ryuo_train::gradient::{Loss, Objective};
use ryuo_train::psv::{self, LoadOptions, LoadStats};
use ryuo_train::quantise::{quantisation_gap, QuantisedNet};
use ryuo_train::selfplay;
use ryuo_train::train::{split, train, TrainConfig, TrainState};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Train Ryuo's NNUE network on PackedSfenValue (.psv) data.
#[derive(Parser, Debug)]
#[command(name = "ryuo-train", version)]
struct Cli {
    /// Training data: files of 40-byte PackedSfenValue records.
    files: Vec<PathBuf>,
    /// Add this many samples from random games labelled by the hand-written
    /// evaluation (for smoke runs and speed measurements).
    #[arg(long, default_value_t = 0)]
    generate: usize,
    /// Weight of the search score in the target; the rest is the game
    /// result.
    #[arg(long, default_value_t = 1.0)]
    lambda: f32,
    /// Loss on the win probability.
    #[arg(long, value_enum, default_value_t = Loss::Mse)]
    loss: Loss,
    /// Hidden units per perspective (a multiple of 16, at most 2048).
    #[arg(long = "hidden", default_value_t = 256)]
    hidden: usize,
    /// Epochs to train (a resumed run counts the checkpoint's epochs).
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Samples per Adam step.
    #[arg(long, default_value_t = 16384)]
    batch_size: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// Multiply the learning rate by --lr-gamma every this many epochs
    /// (0: never).
    #[arg(long, default_value_t = 8)]
    lr_drop_epoch: usize,
    /// Learning-rate factor at each drop.
    #[arg(long, default_value_t = 0.3)]
    lr_gamma: f32,
    /// Worker threads (default: all available).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of initialisation, validation split and shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Share of the samples held out for validation.
    #[arg(long, default_value_t = 0.01)]
    val_fraction: f64,
    /// Also train on the left-right mirror image of every training sample.
    #[arg(long)]
    mirror: bool,
    /// Train the network as a correction added to the hand-crafted
    /// evaluation (a hybrid evaluation; the file is flagged so).
    #[arg(long)]
    residual: bool,
    /// Clamp scores to ± this many centipawns when loading.
    #[arg(long)]
    score_clip: Option<i16>,
    /// Load at most this many samples from the files.
    #[arg(long)]
    max_samples: Option<usize>,
    /// Quantised network written after every epoch.
    #[arg(long, default_value = "net.nnue")]
    out: PathBuf,
    /// Float checkpoint written after every epoch.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Continue from this float checkpoint.
    #[arg(long)]
    resume: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.hidden == 0 || !cli.hidden.is_multiple_of(16) || cli.hidden > ryuo::nnue::MAX_HIDDEN {
        return Err("--hidden must be a multiple of 16 between 16 and 2048".into());
    }
    if !(0.0..=1.0).contains(&cli.lambda) || !(0.0..1.0).contains(&cli.val_fraction) {
        return Err("--lambda must be in [0, 1] and --val-fraction in [0, 1)".into());
    }
    if cli.score_clip.is_some_and(|c| c < 0) {
        return Err("--score-clip must not be negative".into());
    }
    if cli.batch_size == 0 {
        return Err("--batch-size must be positive".into());
    }
    let threads = cli
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let data = load(&cli, threads)?;
    if data.is_empty() {
        return Err("no training samples (give .psv files or --generate N)".into());
    }
    let mut state = match &cli.resume {
        Some(p) => {
            let s = checkpoint::load(p)?;
            if s.net.hidden != cli.hidden {
                return Err(format!("checkpoint has --hidden {}", s.net.hidden));
            }
            eprintln!("resumed {} after epoch {}", p.display(), s.epoch);
            s
        }
        None => TrainState::new(cli.hidden, cli.seed),
    };
    let config = TrainConfig {
        objective: Objective {
            lambda: cli.lambda,
            loss: cli.loss,
            residual: cli.residual,
        },
        epochs: cli.epochs,
        batch_size: cli.batch_size,
        lr: cli.lr,
        lr_drop_epoch: cli.lr_drop_epoch,
        lr_gamma: cli.lr_gamma,
        threads,
        seed: cli.seed,
        val_fraction: cli.val_fraction,
        mirror: cli.mirror,
    };
    let mut failure = None;
    train(&mut state, &data, &config, |state, r| {
        let val = r.val_loss.map_or("-".to_string(), |v| format!("{v:.6}"));
        println!(
            "epoch {:>3}  train {:.6}  val {}  lr {:.2e}  {:.0} samples/s  {:.1} s",
            r.epoch, r.train_loss, val, r.lr, r.samples_per_sec, r.elapsed
        );
        if let Err(e) = save(state, cli.residual, &cli.out, cli.checkpoint.as_deref()) {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    // What quantisation costs, on up to 10,000 held-out samples.
    let (val, _) = split(data.len(), cli.val_fraction, cli.seed);
    if !val.is_empty() {
        let some = &val[..val.len().min(10_000)];
        let gap = quantisation_gap(&state.net, &data, some);
        println!(
            "quantised vs float: mean |difference| {gap:.1} cp over {} validation samples",
            some.len()
        );
    }
    Ok(())
}

/// Loads every file, then adds generated samples.
fn load(cli: &Cli, threads: usize) -> Result<Dataset, String> {
    let start = Instant::now();
    let mut data = Dataset::new();
    let opts = LoadOptions {
        score_clip: cli.score_clip,
        max_samples: cli.max_samples,
        threads,
    };
    let mut stats = LoadStats::default();
    for f in &cli.files {
        psv::load_file(f, &opts, &mut data, &mut stats)?;
    }
    if cli.generate > 0 {
        data.append(&selfplay::random_play_parallel(
            cli.generate,
            cli.seed,
            threads,
        ));
    }
    data.shrink_to_fit();
    eprintln!(
        "{} samples ({} bad records skipped), {:.1} MB, loaded in {:.1} s",
        data.len(),
        stats.bad,
        data.memory_bytes() as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    Ok(data)
}

/// Writes the quantised network and, if asked, the float checkpoint.
fn save(state: &TrainState, residual: bool, out: &Path, ckpt: Option<&Path>) -> Result<(), String> {
    let mut q = QuantisedNet::from_float(&state.net);
    q.adds_to_classic = residual;
    let file = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    q.write(&mut BufWriter::new(file))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    if let Some(c) = ckpt {
        checkpoint::save(state, c)?;
    }
    Ok(())
}
