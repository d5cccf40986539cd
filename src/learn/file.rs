//! Files of `PackedSfenValue` records: a plain stream of 40-byte records,
//! no header, as YaneuraOu writes them.

use super::packed::PackedSfenValue;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// Why a record file could not be read.
#[derive(Debug)]
pub enum PsvReadError {
    /// The file system refused.
    Io(io::Error),
    /// The file ends inside a record.
    Truncated {
        /// Whole records before the partial one.
        records: u64,
        /// Bytes of the partial record.
        bytes: usize,
    },
}

impl fmt::Display for PsvReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PsvReadError::Io(e) => write!(f, "cannot read records: {e}"),
            PsvReadError::Truncated { records, bytes } => write!(
                f,
                "truncated record file: {bytes} stray byte(s) after {records} record(s)"
            ),
        }
    }
}

impl std::error::Error for PsvReadError {}

impl From<io::Error> for PsvReadError {
    fn from(e: io::Error) -> Self {
        PsvReadError::Io(e)
    }
}

/// Reads records one by one; an iterator of `Result`s that ends after the
/// first error.
pub struct PsvReader<R: Read> {
    inner: R,
    records: u64,
    done: bool,
}

impl PsvReader<BufReader<File>> {
    /// Opens a record file.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Ok(PsvReader::new(BufReader::new(File::open(path)?)))
    }
}

impl<R: Read> PsvReader<R> {
    /// Reads records from `inner` (wrap files in a `BufReader`).
    pub fn new(inner: R) -> Self {
        PsvReader {
            inner,
            records: 0,
            done: false,
        }
    }

    fn next_record(&mut self) -> Result<Option<PackedSfenValue>, PsvReadError> {
        let mut buf = [0u8; PackedSfenValue::SIZE];
        let mut filled = 0;
        while filled < buf.len() {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        match filled {
            0 => Ok(None),
            PackedSfenValue::SIZE => {
                self.records += 1;
                Ok(Some(PackedSfenValue::from_bytes(&buf)))
            }
            bytes => Err(PsvReadError::Truncated {
                records: self.records,
                bytes,
            }),
        }
    }
}

impl<R: Read> Iterator for PsvReader<R> {
    type Item = Result<PackedSfenValue, PsvReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record().transpose();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

/// Every record of a file.
pub fn read_records(path: impl AsRef<Path>) -> Result<Vec<PackedSfenValue>, PsvReadError> {
    PsvReader::open(path)?.collect()
}

/// Writes records; call `finish` to flush and see the last error.
pub struct PsvWriter<W: Write> {
    inner: W,
    written: u64,
}

impl PsvWriter<BufWriter<File>> {
    /// Creates (or truncates) a record file.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        Ok(PsvWriter::new(BufWriter::new(File::create(path)?)))
    }
}

impl<W: Write> PsvWriter<W> {
    /// Writes records to `inner` (wrap files in a `BufWriter`).
    pub fn new(inner: W) -> Self {
        PsvWriter { inner, written: 0 }
    }

    /// Appends one record.
    pub fn write(&mut self, r: &PackedSfenValue) -> io::Result<()> {
        self.inner.write_all(&r.to_bytes())?;
        self.written += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::types::Move;

    fn record(score: i16) -> PackedSfenValue {
        PackedSfenValue::new(&Position::startpos(), score, Move::NONE, 0).unwrap()
    }

    #[test]
    fn stream_round_trip_and_truncation() {
        let mut w = PsvWriter::new(Vec::new());
        for s in 0..3 {
            w.write(&record(s)).unwrap();
        }
        assert_eq!(w.written(), 3);
        let mut bytes = w.finish().unwrap();
        let back: Vec<_> = PsvReader::new(&bytes[..])
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, vec![record(0), record(1), record(2)]);

        bytes.truncate(100);
        let items: Vec<_> = PsvReader::new(&bytes[..]).collect();
        assert_eq!(items.len(), 3);
        assert!(matches!(
            items[2],
            Err(PsvReadError::Truncated {
                records: 2,
                bytes: 20
            })
        ));
    }
}
