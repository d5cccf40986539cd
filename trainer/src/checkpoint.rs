//! Float checkpoints: the network, Adam's moments and the epoch count, so
//! that `--resume` continues a run exactly where it stopped.
//!
//! Format (little endian): magic `RYUOTRN2`, `u32` hidden width, `u32`
//! epochs done, `u64` Adam steps, `u64` parameter count, `u32` feature set
//! (`InputFeatures::id`), then parameters, first moments and second
//! moments as `f32`. `RYUOTRN1` (no feature set: piece-square) is read
//! too.

use crate::train::TrainState;
use ryuo::nnue::features::InputFeatures;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"RYUOTRN2";
/// The magic of checkpoints written before king buckets.
const MAGIC_V1: &[u8; 8] = b"RYUOTRN1";

/// Writes `state` to `path` (through a temporary file, so that an
/// interrupted write never destroys the previous checkpoint).
pub fn save(state: &TrainState, path: &Path) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    let err = |e: std::io::Error| format!("{}: {e}", tmp.display());
    {
        let mut w = BufWriter::new(File::create(&tmp).map_err(err)?);
        w.write_all(MAGIC).map_err(err)?;
        w.write_all(&(state.net.hidden as u32).to_le_bytes())
            .map_err(err)?;
        w.write_all(&(state.epoch as u32).to_le_bytes())
            .map_err(err)?;
        w.write_all(&state.adam.t.to_le_bytes()).map_err(err)?;
        w.write_all(&(state.net.params.len() as u64).to_le_bytes())
            .map_err(err)?;
        w.write_all(&state.net.features.id().to_le_bytes())
            .map_err(err)?;
        for v in [&state.net.params, &state.adam.m, &state.adam.v] {
            for x in v.iter() {
                w.write_all(&x.to_le_bytes()).map_err(err)?;
            }
        }
        w.flush().map_err(err)?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a checkpoint written by `save`.
pub fn load(path: &Path) -> Result<TrainState, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut r = BufReader::new(File::open(path).map_err(err)?);
    let mut head = [0u8; 32];
    r.read_exact(&mut head).map_err(err)?;
    let features = if &head[..8] == MAGIC {
        let mut id = [0u8; 4];
        r.read_exact(&mut id).map_err(err)?;
        InputFeatures::from_id(u32::from_le_bytes(id))
            .ok_or_else(|| format!("{}: unknown feature set", path.display()))?
    } else if &head[..8] == MAGIC_V1 {
        InputFeatures::PieceSquare
    } else {
        return Err(format!("{}: not a trainer checkpoint", path.display()));
    };
    let hidden = u32::from_le_bytes(head[8..12].try_into().unwrap()) as usize;
    let epoch = u32::from_le_bytes(head[12..16].try_into().unwrap()) as usize;
    let t = u64::from_le_bytes(head[16..24].try_into().unwrap());
    let len = u64::from_le_bytes(head[24..32].try_into().unwrap()) as usize;
    let mut state = TrainState::new_of(features, hidden, 0);
    if state.net.params.len() != len {
        return Err(format!(
            "{}: parameter count does not match",
            path.display()
        ));
    }
    let mut read_vec = |v: &mut Vec<f32>| -> Result<(), String> {
        let mut bytes = vec![0u8; 4 * len];
        r.read_exact(&mut bytes).map_err(err)?;
        for (x, c) in v.iter_mut().zip(bytes.chunks_exact(4)) {
            *x = f32::from_le_bytes(c.try_into().unwrap());
        }
        Ok(())
    };
    read_vec(&mut state.net.params)?;
    read_vec(&mut state.adam.m)?;
    read_vec(&mut state.adam.v)?;
    state.adam.t = t;
    state.epoch = epoch;
    Ok(state)
}
