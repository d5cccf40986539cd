//! The manifest beside a record file, `<file>.manifest.json`: what made
//! the file (engine and commit, evaluation, every gensfen setting, the
//! shard) and a check of its content (records, bytes, FNV-1a 64 hash). A
//! merged file's manifest lists its parts' manifests.
//!
//! ```json
//! {
//!   "format": "ryuo-psv-manifest",
//!   "format_version": 1,
//!   "engine": { "name": "ryuo", "version": "0.1.0", "commit": "44101eb…" },
//!   "file": "shard-0.psv",
//!   "records": 50,
//!   "bytes": 2000,
//!   "content_hash": "fnv1a64:…",
//!   "gensfen": { "seed": 1, "shard": { "index": 0, "count": 4 }, … }
//! }
//! ```

use super::gensfen::{GensfenConfig, GensfenStats, Shard};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The `format` of every manifest.
pub const FORMAT: &str = "ryuo-psv-manifest";

/// The layout version written; readers refuse newer ones.
pub const FORMAT_VERSION: u32 = 1;

/// A record file's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `FORMAT`.
    pub format: String,
    /// The layout version, `FORMAT_VERSION` when written.
    pub format_version: u32,
    /// The engine that wrote the file.
    pub engine: EngineInfo,
    /// The record file's name, without folder (the manifest sits beside
    /// it).
    pub file: String,
    /// Records in the file.
    pub records: u64,
    /// Size of the file.
    pub bytes: u64,
    /// FNV-1a 64 of the file's bytes, `fnv1a64:` and 16 hex digits.
    pub content_hash: String,
    /// How a `ryuo gensfen` file was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gensfen: Option<GensfenInfo>,
    /// A merged file's parts, in file order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Manifest>,
}

/// Which engine wrote a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// `ryuo`.
    pub name: String,
    /// The crate version.
    pub version: String,
    /// The git commit built from (`-dirty` with local changes), or
    /// `unknown` (see `build.rs`).
    pub commit: String,
}

impl EngineInfo {
    /// This build.
    pub fn this() -> EngineInfo {
        EngineInfo {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: env!("RYUO_GIT_COMMIT").to_string(),
        }
    }
}

/// The evaluation the searches used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum EvalInfo {
    /// The hand-crafted evaluation.
    Classic,
    /// Material only.
    Material,
    /// The network built into the binary.
    Embedded {
        /// Its file name in the source (`default.nnue`).
        network: String,
        /// FNV-1a 64 of its bytes.
        hash: String,
    },
    /// A network file.
    File {
        /// The path given.
        path: String,
        /// FNV-1a 64 of its bytes.
        hash: String,
        /// `ryuo` (RYUONNUE), `yaneuraou` (nn.bin, also wrapped or packed)
        /// or `yaneuraou-hybrid` (one added to the hand-crafted evaluation).
        format: String,
        /// A YaneuraOu network's output divisor.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fv_scale: Option<i32>,
    },
}

/// The settings and counts of a `ryuo gensfen` run; together with the
/// engine's commit they determine the file (the thread count does not).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GensfenInfo {
    /// `--seed`.
    pub seed: u64,
    /// `--shard`.
    pub shard: Shard,
    /// The evaluation.
    pub evaluation: EvalInfo,
    /// Node budget of each move's search.
    pub nodes: Option<u64>,
    /// Depth of each move's search.
    pub depth: Option<i32>,
    /// Fewest and most random opening plies.
    pub random_plies: [u32; 2],
    /// `--eval-limit`.
    pub eval_limit: i32,
    /// `--max-ply`.
    pub max_ply: u32,
    /// Hash table of each searcher, MiB.
    pub hash_mib: usize,
    /// Records asked for (`--count`).
    pub count: u64,
    /// Games with records in the file (the last one perhaps cut short).
    pub games: u64,
    /// Games numbered `0..games_played` were played and taken in order,
    /// those without a kept position included.
    pub games_played: u64,
}

impl GensfenInfo {
    /// What `config` with evaluation `evaluation` produced as `stats`.
    pub fn of(config: &GensfenConfig, evaluation: EvalInfo, stats: &GensfenStats) -> GensfenInfo {
        GensfenInfo {
            seed: config.seed,
            shard: config.shard,
            evaluation,
            nodes: config.nodes,
            depth: config.depth,
            random_plies: [config.random_min, config.random_max],
            eval_limit: config.eval_limit,
            max_ply: config.max_ply,
            hash_mib: config.hash_mib,
            count: config.count,
            games: stats.games,
            games_played: stats.games_taken,
        }
    }
}

/// Why a manifest could not be read or does not match its file.
#[derive(Debug)]
pub enum ManifestError {
    /// A file could not be read or written.
    Io(PathBuf, io::Error),
    /// The manifest is not JSON of the expected shape.
    Json(PathBuf, serde_json::Error),
    /// The JSON is something else, or a newer layout.
    Format(PathBuf, String),
    /// The file is not what its manifest says.
    Mismatch {
        /// The record file.
        file: PathBuf,
        /// What differs.
        what: &'static str,
        /// The manifest's value.
        expected: String,
        /// The file's.
        found: String,
    },
    /// Two parts of a merge hold the same games.
    RepeatedShard {
        /// Seed of both.
        seed: u64,
        /// Shard index of both.
        index: u32,
        /// The two files.
        files: [PathBuf; 2],
    },
    /// A merge's output is also one of its inputs.
    OutputIsInput(PathBuf),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            ManifestError::Json(p, e) => write!(f, "{}: not a manifest: {e}", p.display()),
            ManifestError::Format(p, why) => write!(f, "{}: {why}", p.display()),
            ManifestError::Mismatch {
                file,
                what,
                expected,
                found,
            } => write!(
                f,
                "{}: {what} is {found}, its manifest says {expected}",
                file.display()
            ),
            ManifestError::RepeatedShard { seed, index, files } => write!(
                f,
                "{} and {} both hold shard {index} of seed {seed}: the same games \
                 (give each generation its own seed)",
                files[0].display(),
                files[1].display()
            ),
            ManifestError::OutputIsInput(p) => {
                write!(f, "{}: the output is also an input", p.display())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

/// Where the manifest of `file` is: `<file>.manifest.json`.
pub fn manifest_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".manifest.json");
    PathBuf::from(name)
}

impl Manifest {
    /// A manifest of this engine for `file` with these contents.
    pub fn new(file: &Path, records: u64, bytes: u64, hash: u64) -> Manifest {
        Manifest {
            format: FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            engine: EngineInfo::this(),
            file: file
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            records,
            bytes,
            content_hash: super::fnv::text(hash),
            gensfen: None,
            parts: Vec::new(),
        }
    }

    /// The manifest as written: pretty JSON and a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a manifest serialises");
        text.push('\n');
        text
    }

    /// Reads a manifest from its JSON text; `path` names it in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        // The format fields first, so that another file or a newer layout
        // is named as such rather than as a missing field.
        #[derive(Deserialize)]
        struct Head {
            format: Option<String>,
            format_version: Option<u32>,
        }
        let json = |e| ManifestError::Json(path.to_path_buf(), e);
        let head: Head = serde_json::from_str(text).map_err(json)?;
        let bad = |why: String| Err(ManifestError::Format(path.to_path_buf(), why));
        match (head.format.as_deref(), head.format_version) {
            (Some(FORMAT), Some(v)) if v <= FORMAT_VERSION => {}
            (Some(FORMAT), Some(v)) => {
                return bad(format!(
                    "manifest layout {v} is newer than this engine's ({FORMAT_VERSION})"
                ))
            }
            _ => return bad(format!("not a {FORMAT} manifest")),
        }
        serde_json::from_str(text).map_err(json)
    }

    /// Reads the manifest at `path`.
    pub fn read(path: &Path) -> Result<Manifest, ManifestError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| ManifestError::Io(path.to_path_buf(), e))?;
        Self::from_json(&text, path)
    }

    /// Writes the manifest to `path`.
    pub fn write(&self, path: &Path) -> Result<(), ManifestError> {
        std::fs::write(path, self.to_json()).map_err(|e| ManifestError::Io(path.to_path_buf(), e))
    }

    /// The gensfen runs whose games the file holds: its own, or its parts'
    /// (at any depth of merging).
    pub fn runs(&self) -> Vec<&GensfenInfo> {
        let mut runs: Vec<&GensfenInfo> = self.gensfen.iter().collect();
        for p in &self.parts {
            runs.extend(p.runs());
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        let mut m = Manifest::new(Path::new("/data/a.psv"), 2, 80, 0xabc);
        m.gensfen = Some(GensfenInfo {
            seed: 5,
            shard: Shard { index: 1, count: 3 },
            evaluation: EvalInfo::File {
                path: "nn.bin".into(),
                hash: "fnv1a64:0000000000000001".into(),
                format: "yaneuraou".into(),
                fv_scale: Some(16),
            },
            nodes: Some(3000),
            depth: None,
            random_plies: [8, 16],
            eval_limit: 3000,
            max_ply: 320,
            hash_mib: 16,
            count: 2,
            games: 1,
            games_played: 1,
        });
        m
    }

    #[test]
    fn round_trip() {
        let m = sample();
        assert_eq!(m.file, "a.psv");
        assert_eq!(m.content_hash, "fnv1a64:0000000000000abc");
        let text = m.to_json();
        assert!(text.contains("\"name\": \"file\""), "{text}");
        assert!(text.contains("\"shard\": {\n      \"index\": 1"), "{text}");
        assert!(!text.contains("parts"), "{text}");
        assert_eq!(Manifest::from_json(&text, Path::new("m")).unwrap(), m);
        assert_eq!(m.runs().len(), 1);
    }

    #[test]
    fn other_files_and_newer_layouts_are_named() {
        let p = Path::new("m.json");
        let err = |t: &str| Manifest::from_json(t, p).unwrap_err().to_string();
        assert!(
            err("[1, 2]").contains("not a manifest"),
            "{}",
            err("[1, 2]")
        );
        assert!(err("{}").contains("not a ryuo-psv-manifest"));
        let newer = sample()
            .to_json()
            .replace("\"format_version\": 1", "\"format_version\": 99");
        assert!(err(&newer).contains("newer"), "{}", err(&newer));
        let cut = sample().to_json().replace("\"records\": 2,", "");
        assert!(err(&cut).contains("records"), "{}", err(&cut));
    }

    #[test]
    fn manifest_sits_beside_its_file() {
        assert_eq!(
            manifest_path(Path::new("out/a.psv")),
            Path::new("out/a.psv.manifest.json")
        );
    }
}
