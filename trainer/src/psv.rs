//! Training data in YaneuraOu's `PackedSfenValue` format: 40-byte records
//! (32-byte Huffman-coded PackedSfen, `i16` score from the side to move's
//! view, `u16` move, `u16` game ply, `i8` game result from the side to
//! move's view, one pad byte), read in a stream so that files larger than
//! memory in raw form still load into a compact `Dataset`.

use crate::dataset::Dataset;
use ryuo::learn::PackedSfenValue;
use ryuo::position::Position;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// Size of one record.
pub const RECORD_BYTES: usize = 40;

/// Records decoded per batch (spread over the loading threads).
const CHUNK_RECORDS: usize = 1 << 16;

/// A decoded record: position, score, move, game ply, result.
pub type Record = (Position, i16, u16, u16, i8);

/// Decodes one `PackedSfenValue` record with the engine's codec
/// (`ryuo::learn::packed`, written by `ryuo gensfen`); a record whose
/// position does not decode is an error (the loader skips and counts it).
pub fn decode_record(bytes: &[u8; RECORD_BYTES]) -> Result<Record, String> {
    let r = PackedSfenValue::from_bytes(bytes);
    let pos = r.position().map_err(|e| e.to_string())?;
    Ok((pos, r.score, r.mv, r.game_ply, r.game_result))
}

/// What to do with each decoded record.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Clamp scores to ± this many centipawns (none: keep them).
    pub score_clip: Option<i16>,
    /// Stop after this many samples in total (none: read everything).
    pub max_samples: Option<usize>,
    /// Threads decoding records.
    pub threads: usize,
}

/// Counts of what a load did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Records read and kept.
    pub kept: usize,
    /// Records that failed to decode (skipped).
    pub bad: usize,
}

/// Appends the records of `data` (whole records only) to `out` using
/// `decode` (the real decoder, or a stand-in in tests). Records are split
/// over threads in contiguous parts and joined in order, so the dataset
/// does not depend on the thread count.
pub fn load_records<D>(
    data: &[u8],
    decode: D,
    opts: &LoadOptions,
    out: &mut Dataset,
    stats: &mut LoadStats,
) where
    D: Fn(&[u8; RECORD_BYTES]) -> Result<Record, String> + Sync,
{
    let records: Vec<&[u8; RECORD_BYTES]> = data
        .chunks_exact(RECORD_BYTES)
        .map(|r| r.try_into().expect("exact chunk"))
        .collect();
    let threads = opts.threads.max(1);
    let encoding = out.encoding();
    let per = records.len().div_ceil(threads).max(1);
    let parts: Vec<(Dataset, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(per)
            .map(|part| {
                let decode = &decode;
                s.spawn(move || {
                    let mut d = Dataset::with_encoding(encoding);
                    let mut bad = 0;
                    for r in part {
                        match decode(r) {
                            Ok((pos, score, _mv, _ply, result)) => {
                                let score = match opts.score_clip {
                                    Some(c) => score.clamp(-c, c),
                                    None => score,
                                };
                                d.push_position(&pos, score, result);
                            }
                            Err(_) => bad += 1,
                        }
                    }
                    (d, bad)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (d, bad) in parts {
        let room = opts
            .max_samples
            .map_or(usize::MAX, |m| m - out.len().min(m));
        if d.len() <= room {
            out.append(&d);
            stats.kept += d.len();
        } else {
            for i in 0..room {
                out.push_from(&d, i);
            }
            stats.kept += room;
        }
        stats.bad += bad;
    }
}

/// Streams the `.psv` file at `path` into `out`, decoding with
/// `decode_record`.
pub fn load_file(
    path: &Path,
    opts: &LoadOptions,
    out: &mut Dataset,
    stats: &mut LoadStats,
) -> Result<(), String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if !len.is_multiple_of(RECORD_BYTES as u64) {
        return Err(format!(
            "{}: size {len} is not a multiple of {RECORD_BYTES}",
            path.display()
        ));
    }
    let records = (len / RECORD_BYTES as u64) as usize;
    out.reserve(
        opts.max_samples
            .map_or(records, |m| records.min(m.saturating_sub(out.len()))),
    );
    let mut reader = BufReader::new(file);
    let mut buf = vec![0u8; CHUNK_RECORDS * RECORD_BYTES];
    loop {
        if opts.max_samples.is_some_and(|m| out.len() >= m) {
            return Ok(());
        }
        let n = read_full(&mut reader, &mut buf).map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            return Ok(());
        }
        load_records(&buf[..n], decode_record, opts, out, stats);
        if stats.kept == 0 && stats.bad > 0 {
            // Nothing decodes: report the decoder's reason instead of
            // silently skipping a whole file.
            let first: &[u8; RECORD_BYTES] = buf[..RECORD_BYTES].try_into().unwrap();
            if let Err(e) = decode_record(first) {
                return Err(format!("{}: {e}", path.display()));
            }
        }
    }
}

/// Reads until `buf` is full or the stream ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ryuo::movegen::legal_moves;

    /// A stand-in decoder: byte 0 is the number of first legal moves to
    /// play from the start position, bytes 32..40 are score, move, ply,
    /// result as in the real format.
    fn fake_decode(b: &[u8; RECORD_BYTES]) -> Result<Record, String> {
        if b[0] == 0xff {
            return Err("bad".into());
        }
        let mut pos = Position::startpos();
        for _ in 0..b[0] {
            let m = legal_moves(&pos)[0];
            pos.do_move(m);
        }
        let score = i16::from_le_bytes([b[32], b[33]]);
        let mv = u16::from_le_bytes([b[34], b[35]]);
        let ply = u16::from_le_bytes([b[36], b[37]]);
        Ok((pos, score, mv, ply, b[38] as i8))
    }

    fn record(plies: u8, score: i16, result: i8) -> [u8; RECORD_BYTES] {
        let mut r = [0u8; RECORD_BYTES];
        r[0] = plies;
        r[32..34].copy_from_slice(&score.to_le_bytes());
        r[38] = result as u8;
        r
    }

    #[test]
    fn records_load_in_order_whatever_the_thread_count() {
        let mut bytes = Vec::new();
        for i in 0..10u8 {
            bytes.extend_from_slice(&record(i, 100 * i as i16 - 400, (i % 3) as i8 - 1));
        }
        bytes.extend_from_slice(&[0xff; RECORD_BYTES]);
        let mut results = Vec::new();
        for threads in [1, 3] {
            let opts = LoadOptions {
                score_clip: Some(300),
                max_samples: Some(8),
                threads,
            };
            let (mut d, mut st) = (Dataset::new(), LoadStats::default());
            load_records(&bytes, fake_decode, &opts, &mut d, &mut st);
            assert_eq!(st, LoadStats { kept: 8, bad: 1 });
            assert_eq!(d.get(0).score, -300);
            assert_eq!(d.get(7).score, 300);
            assert_eq!(d.get(2).result, 1);
            results.push(d);
        }
        assert_eq!(results[0], results[1]);
    }

    #[test]
    fn load_file_checks_the_size() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("ryuo-train-psv-{}.psv", std::process::id()));
        let (opts, mut d, mut st) = (LoadOptions::default(), Dataset::new(), LoadStats::default());
        std::fs::write(&path, [0u8; RECORD_BYTES + 1]).unwrap();
        let e = load_file(&path, &opts, &mut d, &mut st).unwrap_err();
        assert!(e.contains("not a multiple"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn decode_record_reads_what_the_engine_packs() {
        use ryuo::learn::PackedSfenValue;
        let mut pos = Position::startpos();
        for _ in 0..7 {
            let m = legal_moves(&pos)[3];
            pos.do_move(m);
        }
        let mv = legal_moves(&pos)[0];
        let bytes = PackedSfenValue::new(&pos, -321, mv, -1).unwrap().to_bytes();
        let (back, score, m, ply, result) = decode_record(&bytes).unwrap();
        assert_eq!(back.to_sfen(), pos.to_sfen());
        assert_eq!((score, m, ply, result), (-321, mv.raw(), 8, -1));
        assert!(decode_record(&[0xff; RECORD_BYTES]).is_err());
    }
}
