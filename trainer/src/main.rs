//! Command line of the trainer: parse flags, load data, train, export.

#![forbid(unsafe_code)]

use clap::Parser;
use ryuo::nnue::features::InputFeatures;
use ryuo::nnue::standard::{Arch, FeatureSet, ARCHITECTURES};
use ryuo::progress::Progress;
use ryuo_train::checkpoint;
use ryuo_train::dataset::{Dataset, Encoding};
use ryuo_train::gradient::{Loss, Objective};
use ryuo_train::halfkp;
use ryuo_train::psv::{self, LoadOptions, LoadStats};
use ryuo_train::quantise::{quantisation_gap, QuantisedNet};
use ryuo_train::selfplay;
use ryuo_train::train::TrainState;
use ryuo_train::train::{
    split_in_blocks, train_with_progress, BatchProgress, EpochReport, TrainConfig,
};
use std::cell::RefCell;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Train Ryuo's NNUE network, or a YaneuraOu HalfKP network, on
/// PackedSfenValue (.psv) data.
#[derive(Parser, Debug)]
#[command(name = "ryuo-train", version)]
struct Cli {
    /// Training data: files of 40-byte PackedSfenValue records.
    files: Vec<PathBuf>,
    /// Network to train: `ryuo` (Ryuo's own RYUONNUE format), `ryuo-kb`
    /// (the same with king buckets, factorised) or a YaneuraOu
    /// architecture (`halfkp_256x2-32-32`, …, `kp_256x2-32-32`: pieces and
    /// kings, two hidden layers), written as an nn.bin file.
    #[arg(long, default_value = "ryuo")]
    arch: String,
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
    /// Hidden units per perspective (a multiple of 16, at most 2048;
    /// default 256). `--arch ryuo` only: a HalfKP architecture fixes it.
    #[arg(long = "hidden")]
    hidden: Option<usize>,
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
    /// Hold out validation samples in runs of this many consecutive
    /// records (gensfen writes a game's positions together: 256 holds out
    /// whole games, nearly, so the validation loss is of games not trained
    /// on); 1: one by one.
    #[arg(long, default_value_t = 1)]
    val_block: usize,
    /// `--arch ryuo-kb`: decoupled weight decay of the bucket rows, which
    /// pulls each bucket towards the rows all buckets share (0: none).
    #[arg(long, default_value_t = 0.0)]
    bucket_decay: f32,
    /// Also train on the left-right mirror image of every training sample.
    #[arg(long)]
    mirror: bool,
    /// Train the network as a correction added to the hand-crafted
    /// evaluation (a hybrid evaluation; the file is flagged so).
    #[arg(long)]
    residual: bool,
    /// HalfKP architectures: read a perspective whose king is on USI files
    /// 6–9 mirrored left to right, so that 45 king squares learn from
    /// twice the positions each (the file still has all 81).
    #[arg(long)]
    king_mirror: bool,
    /// HalfKP architectures: train the last this many epochs
    /// quantisation-aware (the forward pass uses the file's rounded
    /// weights); 0: plain float throughout, rounded only at export.
    #[arg(long, default_value_t = 4)]
    qat_epochs: usize,
    /// Clamp scores to ± this many centipawns when loading.
    #[arg(long)]
    score_clip: Option<i16>,
    /// Load at most this many samples from the files.
    #[arg(long)]
    max_samples: Option<usize>,
    /// Quantised network written after every epoch (default: net.nnue,
    /// or nn.bin for a HalfKP architecture).
    #[arg(long)]
    out: Option<PathBuf>,
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

/// The network a run trains.
enum Target {
    /// Ryuo's own network of this feature set and hidden width.
    Ryuo(InputFeatures, usize),
    /// A YaneuraOu architecture (HalfKP, or K+P: its features are read
    /// from the same encoding).
    Standard(Arch),
}

/// What `--arch` (and `--hidden`) ask for.
fn target(cli: &Cli) -> Result<Target, String> {
    let set = match cli.arch.as_str() {
        "ryuo" => Some(InputFeatures::PieceSquare),
        "ryuo-kb" => Some(InputFeatures::KingBuckets),
        _ => None,
    };
    if let Some(set) = set {
        let hidden = cli.hidden.unwrap_or(256);
        if hidden == 0 || !hidden.is_multiple_of(16) || hidden > ryuo::nnue::MAX_HIDDEN {
            return Err("--hidden must be a multiple of 16 between 16 and 2048".into());
        }
        if cli.king_mirror {
            return Err("--king-mirror: Ryuo's network has no king squares".into());
        }
        return Ok(Target::Ryuo(set, hidden));
    }
    let standard: Vec<&str> = ARCHITECTURES.iter().map(|(n, _)| *n).collect();
    match Arch::by_name(&cli.arch) {
        Some(a) => {
            if cli.hidden.is_some() {
                return Err(format!("--hidden: {} fixes the widths", cli.arch));
            }
            if cli.king_mirror && a.features == FeatureSet::Kp {
                return Err(format!(
                    "--king-mirror: {} has no king squares to mirror",
                    cli.arch
                ));
            }
            Ok(Target::Standard(a))
        }
        None => Err(format!(
            "--arch must be ryuo, ryuo-kb or one of {}",
            standard.join(", ")
        )),
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let target = target(&cli)?;
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
    let encoding = match target {
        Target::Ryuo(InputFeatures::PieceSquare, _) => Encoding::Ryuo,
        Target::Ryuo(InputFeatures::KingBuckets, _) => Encoding::RyuoKingBuckets,
        Target::Standard(_) => Encoding::HalfKp,
    };
    let data = load(&cli, threads, encoding)?;
    if data.is_empty() {
        return Err("no training samples (give .psv files or --generate N)".into());
    }
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
        val_block: cli.val_block,
        bucket_decay: cli.bucket_decay,
        mirror: cli.mirror,
    };
    match target {
        Target::Ryuo(set, hidden) => run_ryuo(&cli, set, hidden, &data, &config),
        Target::Standard(arch) => run_halfkp(&cli, arch, &data, &config),
    }
}

/// How often progress is printed when stderr is not a terminal.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// The progress of a run that starts after epoch `first_epoch`: samples
/// trained over the epochs still to do, with the epoch and batch.
struct TrainProgress {
    progress: RefCell<Progress>,
    first_epoch: usize,
}

impl TrainProgress {
    fn new(first_epoch: usize) -> TrainProgress {
        let progress = Progress::stderr("train", "samples", 0, PROGRESS_EVERY);
        TrainProgress {
            progress: RefCell::new(progress),
            first_epoch,
        }
    }

    fn batch(&self, b: &BatchProgress) {
        let per_epoch = b.samples as u64;
        let epochs = b.epochs.saturating_sub(self.first_epoch) as u64;
        let before = (b.epoch - 1).saturating_sub(self.first_epoch) as u64;
        let mut p = self.progress.borrow_mut();
        p.set_total(epochs * per_epoch);
        let detail = format!(
            ", epoch {}/{}, batch {}/{}",
            b.epoch, b.epochs, b.batch, b.batches
        );
        p.update(before * per_epoch + b.done as u64, &detail);
    }

    /// Prints the epoch's report (stdout) with the bar out of the way.
    fn epoch(&self, r: &EpochReport) {
        self.progress.borrow().suspend(|| report(r));
    }
}

/// Prints an epoch's report.
fn report(r: &EpochReport) {
    let val = r.val_loss.map_or("-".to_string(), |v| format!("{v:.6}"));
    println!(
        "epoch {:>3}  train {:.6}  val {}  lr {:.2e}  {:.0} samples/s  {:.1} s",
        r.epoch, r.train_loss, val, r.lr, r.samples_per_sec, r.elapsed
    );
}

/// Trains and exports Ryuo's own network.
fn run_ryuo(
    cli: &Cli,
    set: InputFeatures,
    hidden: usize,
    data: &Dataset,
    config: &TrainConfig,
) -> Result<(), String> {
    let mut state = match &cli.resume {
        Some(p) => {
            let s = checkpoint::load(p)?;
            if s.net.hidden != hidden {
                return Err(format!("checkpoint has --hidden {}", s.net.hidden));
            }
            if s.net.features != set {
                return Err(format!("checkpoint has features {:?}", s.net.features));
            }
            eprintln!("resumed {} after epoch {}", p.display(), s.epoch);
            s
        }
        None => TrainState::new_of(set, hidden, cli.seed),
    };
    let out = cli.out.clone().unwrap_or_else(|| "net.nnue".into());
    let mut failure = None;
    let progress = TrainProgress::new(state.epoch);
    let on_batch = |b: &BatchProgress| progress.batch(b);
    train_with_progress(&mut state, data, config, on_batch, |state, r| {
        progress.epoch(r);
        if let Err(e) = save(state, cli.residual, &out, cli.checkpoint.as_deref()) {
            failure.get_or_insert(e);
        }
    });
    progress.progress.borrow_mut().finish();
    if let Some(e) = failure {
        return Err(e);
    }
    // What quantisation costs, on up to 10,000 held-out samples.
    let (val, _) = split_in_blocks(data.len(), cli.val_fraction, cli.seed, cli.val_block);
    if !val.is_empty() {
        let some = &val[..val.len().min(10_000)];
        let gap = quantisation_gap(&state.net, data, some);
        println!(
            "quantised vs float: mean |difference| {gap:.1} cp over {} validation samples",
            some.len()
        );
    }
    Ok(())
}

/// Trains a YaneuraOu HalfKP network and exports it as an nn.bin file.
fn run_halfkp(cli: &Cli, arch: Arch, data: &Dataset, config: &TrainConfig) -> Result<(), String> {
    let mut state = match &cli.resume {
        Some(p) => {
            let s = halfkp::checkpoint::load(p)?;
            if s.net.arch != arch {
                return Err(format!("checkpoint is of --arch {}", s.net.arch.name()));
            }
            if s.net.king_mirror != cli.king_mirror {
                return Err(format!(
                    "checkpoint is {}king-mirrored: --king-mirror must match",
                    if s.net.king_mirror { "" } else { "not " }
                ));
            }
            eprintln!("resumed {} after epoch {}", p.display(), s.epoch);
            s
        }
        None => {
            let mut s = halfkp::train::HalfKpState::new(arch, cli.seed);
            s.net.king_mirror = cli.king_mirror;
            s
        }
    };
    // A hybrid network needs the flag an nn.bin cannot hold: it is written
    // wrapped in Ryuo's header (`ryuo::nnue`, format version 3).
    let default_out = if cli.residual { "net.nnue" } else { "nn.bin" };
    let out = cli.out.clone().unwrap_or_else(|| default_out.into());
    // Bias correction of the export (`halfkp::export`) on up to 4,096
    // training samples (the split's training part is in random order).
    let (val, train_idx) = split_in_blocks(data.len(), cli.val_fraction, cli.seed, cli.val_block);
    let calibration = &train_idx[..train_idx.len().min(4096)];
    let mut failure = None;
    let progress = TrainProgress::new(state.epoch);
    let on_batch = |b: &BatchProgress| progress.batch(b);
    let qat = cli.qat_epochs;
    halfkp::train::train_with_progress(&mut state, data, config, qat, on_batch, |state, r| {
        progress.epoch(r);
        let mut file = halfkp::export::export(&state.net, data, calibration).to_bytes();
        if cli.residual {
            file = ryuo::nnue::wrap_standard(&file, ryuo::nnue::FLAG_ADDS_TO_CLASSIC);
        }
        let saved = std::fs::write(&out, file)
            .map_err(|e| format!("{}: {e}", out.display()))
            .and_then(|()| match &cli.checkpoint {
                Some(c) => halfkp::checkpoint::save(state, c),
                None => Ok(()),
            });
        if let Err(e) = saved {
            failure.get_or_insert(e);
        }
    });
    progress.progress.borrow_mut().finish();
    if let Some(e) = failure {
        return Err(e);
    }
    // What quantisation costs, on up to 10,000 held-out samples, with the
    // engine's evaluation of the written file.
    if !val.is_empty() {
        let some = &val[..val.len().min(10_000)];
        let engine = halfkp::export::export(&state.net, data, calibration).to_engine();
        let (gap, n) = halfkp::export::quantisation_gap(&state.net, &engine, data, some);
        println!(
            "engine (nn.bin) vs float: mean |difference| {gap:.2} cp over {n} validation positions"
        );
    }
    Ok(())
}

/// Loads every file, then adds generated samples.
fn load(cli: &Cli, threads: usize, encoding: Encoding) -> Result<Dataset, String> {
    let start = Instant::now();
    let mut data = Dataset::with_encoding(encoding);
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
            encoding,
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
