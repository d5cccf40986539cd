//! Record files with their manifests: a gensfen run writes one
//! (`generate`), any can be checked against its manifest (`verify`), and
//! shards concatenate into one file with a manifest listing the parts
//! (`merge`). Records are plain 40-byte `PackedSfenValue`s without header,
//! so the merged file is the shards' bytes one after another.

use super::file::PsvWriter;
use super::fnv::{self, HashingWriter};
use super::gensfen::{self, GensfenConfig, GensfenError, GensfenStats};
use super::manifest::{manifest_path, EvalInfo, GensfenInfo, Manifest, ManifestError};
use super::packed::PackedSfenValue;
use crate::progress::Progress;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Why a generation with manifest failed.
#[derive(Debug)]
pub enum GenerateError {
    /// The run itself.
    Gensfen(GensfenError),
    /// Creating or finishing the output or its manifest.
    File(ManifestError),
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerateError::Gensfen(e) => e.fmt(f),
            GenerateError::File(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GenerateError {}

/// Runs `config` into the file `out` and writes its manifest beside it
/// (`evaluation` describes `config.evaluator` there).
pub fn generate(
    config: &GensfenConfig,
    evaluation: EvalInfo,
    out: &Path,
    progress: &mut Progress,
) -> Result<(GensfenStats, Manifest), GenerateError> {
    config.validate().map_err(GenerateError::Gensfen)?;
    let io_error = |e| GenerateError::File(ManifestError::Io(out.to_path_buf(), e));
    let file = File::create(out).map_err(io_error)?;
    let mut writer = PsvWriter::new(HashingWriter::new(BufWriter::new(file)));
    let stats = gensfen::run(config, &mut writer, progress).map_err(GenerateError::Gensfen)?;
    let records = writer.written();
    let (bytes, hash) = writer.finish().map_err(io_error)?.summary();
    let mut manifest = Manifest::new(out, records, bytes, hash);
    manifest.gensfen = Some(GensfenInfo::of(config, evaluation, &stats));
    manifest
        .write(&manifest_path(out))
        .map_err(GenerateError::File)?;
    Ok((stats, manifest))
}

/// Checks `file` against its manifest (size, record count, content hash)
/// and returns the manifest.
pub fn verify(file: &Path) -> Result<Manifest, ManifestError> {
    let manifest = Manifest::read(&manifest_path(file))?;
    let (bytes, hash) = fnv::hash_file(file).map_err(|e| ManifestError::Io(file.into(), e))?;
    let mismatch = |what, expected: String, found: String| {
        Err(ManifestError::Mismatch {
            file: file.to_path_buf(),
            what,
            expected,
            found,
        })
    };
    let record_bytes = manifest.records.checked_mul(PackedSfenValue::SIZE as u64);
    if record_bytes != Some(manifest.bytes) {
        return mismatch(
            "the size of its records",
            format!("{} bytes", manifest.bytes),
            format!("{} records", manifest.records),
        );
    }
    if bytes != manifest.bytes {
        return mismatch(
            "the size",
            format!("{} bytes", manifest.bytes),
            format!("{bytes} bytes"),
        );
    }
    if fnv::text(hash) != manifest.content_hash {
        return mismatch("the content hash", manifest.content_hash, fnv::text(hash));
    }
    Ok(manifest)
}

/// Concatenates `inputs`, in the order given, into `out` after checking
/// each against its manifest, and writes `out`'s manifest listing theirs.
/// Parts holding the same shard of the same seed (the same games) are
/// refused.
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<Manifest, ManifestError> {
    let mut parts = Vec::with_capacity(inputs.len());
    for input in inputs {
        if same_file(input, out) {
            return Err(ManifestError::OutputIsInput(out.to_path_buf()));
        }
        parts.push(verify(input)?);
    }
    let mut seen: Vec<(u64, u32, &Path)> = Vec::new();
    for (part, input) in parts.iter().zip(inputs) {
        for run in part.runs() {
            let key = (run.seed, run.shard.index);
            if let Some(&(_, _, first)) = seen.iter().find(|s| (s.0, s.1) == key) {
                return Err(ManifestError::RepeatedShard {
                    seed: key.0,
                    index: key.1,
                    files: [first.to_path_buf(), input.clone()],
                });
            }
            seen.push((key.0, key.1, input));
        }
    }
    let io_error = |p: &Path| {
        let p = p.to_path_buf();
        move |e| ManifestError::Io(p, e)
    };
    let file = File::create(out).map_err(io_error(out))?;
    let mut writer = HashingWriter::new(BufWriter::new(file));
    for (input, part) in inputs.iter().zip(&parts) {
        let copied = copy(input, out, &mut writer)?;
        if copied != part.bytes {
            // The file changed since it was checked.
            return Err(ManifestError::Mismatch {
                file: input.clone(),
                what: "the size while copying",
                expected: format!("{} bytes", part.bytes),
                found: format!("{copied} bytes"),
            });
        }
    }
    writer.flush().map_err(io_error(out))?;
    let (bytes, hash) = writer.summary();
    let records = parts.iter().map(|p| p.records).sum();
    let mut manifest = Manifest::new(out, records, bytes, hash);
    manifest.parts = parts;
    manifest.write(&manifest_path(out))?;
    Ok(manifest)
}

/// Appends the file `input` to `writer` (the file `out`); returns its size.
fn copy(input: &Path, out: &Path, writer: &mut impl Write) -> Result<u64, ManifestError> {
    let mut file = File::open(input).map_err(|e| ManifestError::Io(input.into(), e))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ManifestError::Io(input.into(), e)),
        };
        writer
            .write_all(&buf[..n])
            .map_err(|e| ManifestError::Io(out.into(), e))?;
        total += n as u64;
    }
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
