//! Training records: `PackedSfenValue::from_bytes` and the unpacking into a
//! position on random and mutated 40-byte records, and `PsvReader` on
//! random byte streams. A record unpacks to a consistent position or is
//! refused, never a panic; a reader yields every whole record and reports
//! a partial one.

use super::corpus;
use super::mutate::{mutated, mutations};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::learn::{PackedSfen, PackedSfenValue, PsvReadError, PsvReader};

/// Unpacks a record; if accepted, the position is consistent, packs again
/// to a record that unpacks to the same position, and the record's move,
/// if legal, keeps it consistent.
fn check_record(bytes: &[u8; 40]) {
    let record = PackedSfenValue::from_bytes(bytes);
    assert_eq!(PackedSfenValue::from_bytes(&record.to_bytes()), record);
    let Ok(pos) = record.position() else {
        return;
    };
    pos.is_ok()
        .unwrap_or_else(|e| panic!("{bytes:02x?} unpacked to an inconsistent position: {e}"));
    let packed = PackedSfen::pack(&pos)
        .unwrap_or_else(|e| panic!("{} unpacked but does not pack: {e}", pos.to_sfen()));
    let again = packed
        .unpack_at(pos.game_ply())
        .expect("a packed position unpacks");
    assert_eq!(again.to_sfen(), pos.to_sfen());
    let m = record.best_move();
    if pos.is_legal_move(m) {
        let mut after = pos.clone();
        after.do_move(m);
        after
            .is_ok()
            .unwrap_or_else(|e| panic!("{}: after {m}: {e}", pos.to_sfen()));
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// Any 40 bytes.
    #[test]
    fn random_records_are_refused_or_consistent(bytes in any::<[u8; 40]>()) {
        check_record(&bytes);
    }

    /// Records of the committed sample with bits flipped and bytes set.
    #[test]
    fn mutated_records_are_refused_or_consistent(
        which in any::<Index>(),
        changes in mutations(&[], &[], 3),
    ) {
        let sample = corpus::training_records();
        let at = which.index(sample.len() / 40) * 40;
        let mut bytes = mutated(&sample[at..at + 40], &changes);
        bytes.resize(40, 0);
        check_record(&bytes[..].try_into().unwrap());
    }

    /// A stream of any length: its whole records, then a `Truncated` error
    /// for a partial one.
    #[test]
    fn a_reader_yields_whole_records_and_reports_a_partial_one(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        chunk in 1..64usize,
    ) {
        // Reads of `chunk` bytes at most, as a pipe may give them.
        let reader = PsvReader::new(Chunked { bytes: &bytes, chunk });
        let read: Vec<_> = reader.collect();
        let whole = bytes.len() / 40;
        let partial = bytes.len() % 40;
        prop_assert_eq!(read.len(), whole + usize::from(partial > 0));
        for (i, r) in read.iter().take(whole).enumerate() {
            let expected = PackedSfenValue::from_bytes(bytes[i * 40..i * 40 + 40].try_into().unwrap());
            prop_assert_eq!(r.as_ref().ok(), Some(&expected));
        }
        if partial > 0 {
            let truncated = matches!(
                read.last(),
                Some(Err(PsvReadError::Truncated { records, bytes: b }))
                    if *records == whole as u64 && *b == partial
            );
            prop_assert!(truncated, "{:?}", read.last());
        }
    }
}

/// A reader that gives at most `chunk` bytes a call.
struct Chunked<'a> {
    bytes: &'a [u8],
    chunk: usize,
}

impl std::io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
