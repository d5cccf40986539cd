//! A compact, lossless form of a YaneuraOu-format network, small enough
//! to keep in git and to build into the binary.
//!
//! A HalfKP network's transformer is 81 king squares × `FE_END`
//! BonaPieces × `half` weights (64 MB for `halfkp_256x2-32-32`), and a
//! general-purpose compressor gains little on it (22.5 MB with `zstd -19`
//! for a network of our own). Two facts of trained networks do:
//! - the rows of one BonaPiece differ little from king square to king
//!   square (a trainer's factoriser gives every king square the same
//!   start): each weight is stored as its difference from the median of
//!   its BonaPiece's rows, nearly always within an `i8`;
//! - a king-mirrored network (`ryuo-train --king-mirror`) has the rows of
//!   a king on USI files 6–9 equal to the mirrored rows of files 1–5:
//!   when every such row is, only files 1–5 are stored.
//!
//! The result is deflated (`miniz_oxide`, pure Rust). Unpacking gives the
//! very bytes of the `nn.bin` (checked by `StandardNetwork::from_bytes`
//! afterwards, like any file). Other feature sets are deflated as they
//! are.
//!
//! Inflated layout (little endian): `u32` `PACK_VERSION`, `u64` length of
//! the `nn.bin`, `u32` flags (bit 0: HalfKP transform, bit 1: mirrored
//! rows left out), `u32` length of the prefix (the `nn.bin` up to the
//! transformer weights) and the prefix; with the transform, the medians
//! (`i16[FE_END][half]`), `u32` count and `i16` values of the escaped
//! weights, the differences (`i8` per stored weight, `-128` = the next
//! escaped value); without, the transformer weights as they are; then
//! the rest of the `nn.bin`.

use super::arch::{Arch, FeatureSet, FE_END};
use super::features::{mirror_bona_piece, on_mirrored_half};
use super::file::StandardNetwork;
use crate::types::Square;

/// Version of the packed layout.
pub const PACK_VERSION: u32 = 1;
/// A difference byte that stands for the next escaped weight.
const ESCAPE: i8 = i8::MIN;
/// Flag: the HalfKP transform (medians and differences).
const TRANSFORMED: u32 = 1;
/// Flag: the rows of kings on files 6–9 are left out (mirrors).
const MIRRORED: u32 = 2;
/// Largest `nn.bin` an unpacked file may declare (the widest supported
/// architecture is 257 MB).
pub const MAX_UNPACKED: u64 = 300 << 20;

/// Why packed bytes could not be unpacked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// The deflate stream is damaged or longer than its declared size.
    Inflate,
    /// The inflated layout does not hold together.
    Corrupt(&'static str),
    /// The unpacked network does not fit in the free memory.
    Memory,
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::Inflate => write!(f, "packed network: damaged compressed data"),
            PackError::Corrupt(what) => write!(f, "packed network: {what}"),
            PackError::Memory => write!(f, "not enough memory for the network"),
        }
    }
}

/// The row (king square, BonaPiece) that the row of BonaPiece `bp` with the
/// king on `king` mirrors (left to right).
fn mirrored_row(king: usize, bp: usize) -> usize {
    let king = Square::from_index(king).mirror().index();
    king * FE_END + mirror_bona_piece(bp as u32) as usize
}

/// Whether a king square is on USI files 6–9.
fn mirrored_king(king: usize) -> bool {
    on_mirrored_half(Square::from_index(king))
}

/// Packs the `nn.bin` bytes of `net`.
pub fn pack(net: &StandardNetwork) -> Vec<u8> {
    let nn_bin = net.to_bytes();
    let arch = net.arch();
    let h = arch.half;
    let weights = &net.ft_weights;
    // The file: version, hash, description (length and bytes), transformer
    // hash, biases (`half`), weights, then the dense layers.
    let prefix_len = 12 + net.description().len() + 4 + 2 * h;
    let suffix_start = prefix_len + weights.len() * 2;
    let mut out = Vec::with_capacity(nn_bin.len() / 2);
    let u32s = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    u32s(&mut out, PACK_VERSION);
    out.extend_from_slice(&(nn_bin.len() as u64).to_le_bytes());
    if arch.features != FeatureSet::HalfKp {
        u32s(&mut out, 0);
        u32s(&mut out, prefix_len as u32);
        out.extend_from_slice(&nn_bin);
        return miniz_oxide::deflate::compress_to_vec(&out, 10);
    }
    let row = |r: usize| &weights[r * h..(r + 1) * h];
    let symmetric = (0..Square::NUM * FE_END)
        .filter(|r| mirrored_king(r / FE_END))
        .all(|r| row(r) == row(mirrored_row(r / FE_END, r % FE_END)));
    let flags = TRANSFORMED | if symmetric { MIRRORED } else { 0 };
    u32s(&mut out, flags);
    u32s(&mut out, prefix_len as u32);
    out.extend_from_slice(&nn_bin[..prefix_len]);
    let stored: Vec<usize> = (0..Square::NUM)
        .filter(|&k| !(symmetric && mirrored_king(k)))
        .collect();
    let mut medians = vec![0i16; FE_END * h];
    let mut column = Vec::with_capacity(Square::NUM);
    for bp in 0..FE_END {
        for j in 0..h {
            column.clear();
            column.extend(stored.iter().map(|&k| weights[(k * FE_END + bp) * h + j]));
            column.sort_unstable();
            medians[bp * h + j] = column[column.len() / 2];
        }
    }
    for m in &medians {
        out.extend_from_slice(&m.to_le_bytes());
    }
    let mut escaped = Vec::new();
    let mut differences = Vec::with_capacity(stored.len() * FE_END * h);
    for &k in &stored {
        for bp in 0..FE_END {
            for (j, &w) in row(k * FE_END + bp).iter().enumerate() {
                let d = i32::from(w) - i32::from(medians[bp * h + j]);
                if d > i32::from(ESCAPE) && d <= i32::from(i8::MAX) {
                    differences.push(d as i8 as u8);
                } else {
                    differences.push(ESCAPE as u8);
                    escaped.push(w);
                }
            }
        }
    }
    u32s(&mut out, escaped.len() as u32);
    for w in &escaped {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&differences);
    out.extend_from_slice(&nn_bin[suffix_start..]);
    miniz_oxide::deflate::compress_to_vec(&out, 10)
}

/// A cursor over inflated bytes that reports a short read as corruption.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PackError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or(PackError::Corrupt("truncated"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, PackError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, PackError> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
}

/// The `nn.bin` bytes of a packed network. Never allocates more than
/// `MAX_UNPACKED` and a little, whatever the input.
pub fn unpack(packed: &[u8]) -> Result<Vec<u8>, PackError> {
    // The layout adds at most the medians and escapes (small) to the file.
    let limit = MAX_UNPACKED as usize + (64 << 20);
    let inflated = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, limit)
        .map_err(|_| PackError::Inflate)?;
    let mut c = Cursor {
        bytes: &inflated,
        at: 0,
    };
    if c.u32()? != PACK_VERSION {
        return Err(PackError::Corrupt("unknown version"));
    }
    let len = c.u64()?;
    if len > MAX_UNPACKED {
        return Err(PackError::Corrupt("declared size too large"));
    }
    let len = len as usize;
    let flags = c.u32()?;
    if flags & !(TRANSFORMED | MIRRORED) != 0 {
        return Err(PackError::Corrupt("unknown flags"));
    }
    let prefix_len = c.u32()? as usize;
    if flags & TRANSFORMED == 0 {
        let out = c.take(len)?.to_vec();
        return if c.at == inflated.len() {
            Ok(out)
        } else {
            Err(PackError::Corrupt("trailing bytes"))
        };
    }
    let prefix = c.take(prefix_len)?;
    if prefix_len < 12 {
        return Err(PackError::Corrupt("short header"));
    }
    let hash = u32::from_le_bytes([prefix[4], prefix[5], prefix[6], prefix[7]]);
    let arch = Arch::by_hash(hash).ok_or(PackError::Corrupt("unknown architecture"))?;
    if arch.features != FeatureSet::HalfKp {
        return Err(PackError::Corrupt("transform of a non-HalfKP network"));
    }
    let h = arch.half;
    let rows = Square::NUM * FE_END;
    if len < prefix_len + 2 * rows * h {
        return Err(PackError::Corrupt("declared size too small"));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| PackError::Memory)?;
    out.extend_from_slice(prefix);
    let medians: Vec<i16> = c
        .take(2 * FE_END * h)?
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let escapes = c.u32()? as usize;
    let escaped = c.take(
        escapes
            .checked_mul(2)
            .ok_or(PackError::Corrupt("escapes"))?,
    )?;
    let mut escaped = escaped
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]));
    let mirrored = flags & MIRRORED != 0;
    let stored = (0..Square::NUM)
        .filter(|&k| !(mirrored && mirrored_king(k)))
        .count();
    let differences = c.take(stored * FE_END * h)?;
    let mut weights = Vec::new();
    weights
        .try_reserve_exact(rows * h)
        .map_err(|_| PackError::Memory)?;
    weights.resize(rows * h, 0i16);
    let mut next = differences.iter();
    for k in (0..Square::NUM).filter(|&k| !(mirrored && mirrored_king(k))) {
        for bp in 0..FE_END {
            let r = (k * FE_END + bp) * h;
            for j in 0..h {
                let d = *next.next().expect("sized above") as i8;
                weights[r + j] = if d == ESCAPE {
                    escaped
                        .next()
                        .ok_or(PackError::Corrupt("too few escapes"))?
                } else {
                    medians[bp * h + j].wrapping_add(i16::from(d))
                };
            }
        }
    }
    if escaped.next().is_some() {
        return Err(PackError::Corrupt("too many escapes"));
    }
    if mirrored {
        for k in (0..Square::NUM).filter(|&k| mirrored_king(k)) {
            for bp in 0..FE_END {
                let from = mirrored_row(k, bp) * h;
                weights.copy_within(from..from + h, (k * FE_END + bp) * h);
            }
        }
    }
    for w in &weights {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let rest = len
        .checked_sub(out.len())
        .ok_or(PackError::Corrupt("declared size too small"))?;
    out.extend_from_slice(c.take(rest)?);
    if c.at != inflated.len() {
        return Err(PackError::Corrupt("trailing bytes"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_network_unpacks_to_the_same_file() {
        // The common HalfKP architecture and the K+P one (the wider HalfKP
        // ones take the same path, four times longer).
        for (name, arch) in [
            super::super::ARCHITECTURES[0],
            super::super::ARCHITECTURES[4],
        ] {
            let net = StandardNetwork::random(arch, 3);
            let packed = pack(&net);
            assert_eq!(unpack(&packed).unwrap(), net.to_bytes(), "{name}");
        }
    }

    #[test]
    fn damaged_packed_bytes_are_refused() {
        let net = StandardNetwork::random(super::super::ARCHITECTURES[0].1, 4);
        let packed = pack(&net);
        assert_eq!(unpack(&packed[..packed.len() / 2]), Err(PackError::Inflate));
        assert!(unpack(b"not deflate at all").is_err());
        let mut inflated = miniz_oxide::inflate::decompress_to_vec(&packed).unwrap();
        inflated.pop();
        let short = miniz_oxide::deflate::compress_to_vec(&inflated, 1);
        assert!(matches!(unpack(&short), Err(PackError::Corrupt(_))));
    }

    /// A network whose rows for kings on files 6–9 mirror those of files
    /// 1–5 (as `ryuo-train --king-mirror` writes them) is stored in about
    /// half the space, and unpacks to the same file.
    #[test]
    fn mirrored_rows_are_left_out() {
        let arch = super::super::ARCHITECTURES[0].1;
        let mut net = StandardNetwork::random(arch, 5);
        let h = arch.half;
        // Small weights around a per-BonaPiece value, as trained ones are.
        for (i, w) in net.ft_weights.iter_mut().enumerate() {
            let noise = ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) as i16;
            *w = ((i / h) % FE_END) as i16 % 50 + noise - 3;
        }
        let plain = pack(&net);
        for k in (0..Square::NUM).filter(|&k| mirrored_king(k)) {
            for bp in 0..FE_END {
                let from = mirrored_row(k, bp) * h;
                net.ft_weights
                    .copy_within(from..from + h, (k * FE_END + bp) * h);
            }
        }
        let symmetric = pack(&net);
        assert_eq!(unpack(&symmetric).unwrap(), net.to_bytes());
        assert!(
            symmetric.len() * 10 < plain.len() * 6,
            "{} vs {}",
            symmetric.len(),
            plain.len()
        );
    }
}
