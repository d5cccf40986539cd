//! Float checkpoints of HalfKP runs: network, Adam state (lazy moments of
//! `W` included) and epoch count, so that `--resume` continues a run
//! exactly. 390 MB for halfkp_256x2-32-32 (the 32 M-weight table and its
//! two moments, 128 MB each); written through a temporary file, in about
//! a second.
//!
//! Format (little endian): magic `RYUOHKP1`, `u32` length and bytes of the
//! architecture name, `u32` flags (bit 0: quantisation-aware, bit 1:
//! king-mirrored), `u32` epochs
//! done, `u64` Adam steps, `u64` table and
//! `u64` dense parameter counts, then as `f32`: table, its first and
//! second moments, dense parameters, their first and second moments.

use crate::halfkp::train::HalfKpState;
use ryuo::nnue::standard::Arch;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"RYUOHKP1";

fn write_f32s(w: &mut impl Write, v: &[f32]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in v.chunks(1 << 14) {
        buf.clear();
        for x in chunk {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

fn read_f32s(r: &mut impl Read, v: &mut [f32]) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    for chunk in v.chunks_mut(1 << 14) {
        let bytes = &mut buf[..4 * chunk.len()];
        r.read_exact(bytes)?;
        for (x, c) in chunk.iter_mut().zip(bytes.chunks_exact(4)) {
            *x = f32::from_le_bytes(c.try_into().unwrap());
        }
    }
    Ok(())
}

/// Writes `state` to `path`.
pub fn save(state: &HalfKpState, path: &Path) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    let err = |e: std::io::Error| format!("{}: {e}", tmp.display());
    {
        let mut w = BufWriter::new(File::create(&tmp).map_err(err)?);
        let name = state.net.arch.name().as_bytes();
        w.write_all(MAGIC).map_err(err)?;
        w.write_all(&(name.len() as u32).to_le_bytes())
            .map_err(err)?;
        w.write_all(name).map_err(err)?;
        let flags = u32::from(state.net.quantisation_aware) | u32::from(state.net.king_mirror) << 1;
        w.write_all(&flags.to_le_bytes()).map_err(err)?;
        w.write_all(&(state.epoch as u32).to_le_bytes())
            .map_err(err)?;
        w.write_all(&state.adam.t.to_le_bytes()).map_err(err)?;
        w.write_all(&(state.net.table.len() as u64).to_le_bytes())
            .map_err(err)?;
        w.write_all(&(state.net.dense.len() as u64).to_le_bytes())
            .map_err(err)?;
        for v in [
            &state.net.table,
            &state.table_m,
            &state.table_v,
            &state.net.dense,
            &state.adam.m,
            &state.adam.v,
        ] {
            write_f32s(&mut w, v).map_err(err)?;
        }
        w.flush().map_err(err)?;
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a checkpoint written by `save`.
pub fn load(path: &Path) -> Result<HalfKpState, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let bad = |what: &str| format!("{}: {what}", path.display());
    let mut r = BufReader::new(File::open(path).map_err(err)?);
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).map_err(err)?;
    if &magic != MAGIC {
        return Err(bad("not a HalfKP trainer checkpoint"));
    }
    let mut u32_buf = [0u8; 4];
    r.read_exact(&mut u32_buf).map_err(err)?;
    let name_len = u32::from_le_bytes(u32_buf) as usize;
    if name_len > 64 {
        return Err(bad("corrupt header"));
    }
    let mut name = vec![0u8; name_len];
    r.read_exact(&mut name).map_err(err)?;
    let name = String::from_utf8_lossy(&name).into_owned();
    let arch = Arch::by_name(&name).ok_or_else(|| bad(&format!("unknown architecture {name}")))?;
    let mut head = [0u8; 32];
    r.read_exact(&mut head).map_err(err)?;
    let flags = u32::from_le_bytes(head[..4].try_into().unwrap());
    let epoch = u32::from_le_bytes(head[4..8].try_into().unwrap()) as usize;
    let t = u64::from_le_bytes(head[8..16].try_into().unwrap());
    let table_len = u64::from_le_bytes(head[16..24].try_into().unwrap()) as usize;
    let dense_len = u64::from_le_bytes(head[24..32].try_into().unwrap()) as usize;
    let mut state = HalfKpState::new(arch, 0);
    state.net.quantisation_aware = flags & 1 != 0;
    state.net.king_mirror = flags & 2 != 0;
    if state.net.table.len() != table_len || state.net.dense.len() != dense_len {
        return Err(bad("parameter counts do not match the architecture"));
    }
    for v in [
        &mut state.net.table,
        &mut state.table_m,
        &mut state.table_v,
        &mut state.net.dense,
        &mut state.adam.m,
        &mut state.adam.v,
    ] {
        read_f32s(&mut r, v).map_err(err)?;
    }
    state.net.refresh();
    state.adam.t = t;
    state.epoch = epoch;
    Ok(state)
}
