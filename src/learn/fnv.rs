//! FNV-1a, 64 bits: the content hash of record files and networks in a
//! manifest. Not a defence against tampering, only a check that a file is
//! the one its manifest describes (a bad copy, a truncated transfer, a
//! shard run twice): simple enough to recompute in any language.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// A running FNV-1a 64 hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(OFFSET)
    }
}

impl Fnv1a64 {
    /// The hash of nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(PRIME);
        }
        self.0 = h;
    }

    /// The hash so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

/// The hash of `bytes` as a manifest writes it: `fnv1a64:` and 16 hex
/// digits.
pub fn hash_text(bytes: &[u8]) -> String {
    let mut h = Fnv1a64::new();
    h.update(bytes);
    text(h.value())
}

/// `fnv1a64:` and the value in 16 hex digits.
pub fn text(value: u64) -> String {
    format!("fnv1a64:{value:016x}")
}

/// The size and hash of a file, read in pieces.
pub fn hash_file(path: impl AsRef<Path>) -> io::Result<(u64, u64)> {
    let mut file = File::open(path)?;
    let mut h = Fnv1a64::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok((size, h.value())),
            Ok(n) => {
                h.update(&buf[..n]);
                size += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// A writer that hashes and counts what passes through it.
pub struct HashingWriter<W: Write> {
    inner: W,
    hash: Fnv1a64,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    /// Hashes what is written to `inner`.
    pub fn new(inner: W) -> Self {
        HashingWriter {
            inner,
            hash: Fnv1a64::new(),
            bytes: 0,
        }
    }

    /// Bytes written and their hash.
    pub fn summary(&self) -> (u64, u64) {
        (self.bytes, self.hash.value())
    }

    /// The underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // The reference vectors of the FNV authors' test suite.
        let h = |s: &[u8]| {
            let mut f = Fnv1a64::new();
            f.update(s);
            f.value()
        };
        assert_eq!(h(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(h(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(h(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(hash_text(b"a"), "fnv1a64:af63dc4c8601ec8c");
    }

    #[test]
    fn pieces_hash_as_the_whole() {
        let mut w = HashingWriter::new(Vec::new());
        w.write_all(b"foo").unwrap();
        w.write_all(b"bar").unwrap();
        let mut whole = Fnv1a64::new();
        whole.update(b"foobar");
        assert_eq!(w.summary(), (6, whole.value()));
    }
}
