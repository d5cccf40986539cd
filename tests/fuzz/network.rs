//! Network files: `Network::from_bytes` (RYUONNUE) and
//! `StandardNetwork::from_bytes` (YaneuraOu `nn.bin`) on random bytes and
//! on valid files truncated, bit-flipped and given huge sizes in their
//! headers. A file is refused, or read with its weights exactly and
//! written back to a file that reads back to itself; never a panic, and no
//! allocation is much larger than the file itself (a header
//! claiming gigabytes must not be believed before the length is checked).

use super::alloc_probe::largest_allocation_in;
use super::corpus;
use super::mutate::{mutated, mutations};
use crate::config;
use proptest::prelude::*;
use proptest::sample::Index;
use ryuo::nnue::standard::StandardNetwork;
use ryuo::nnue::Network;

/// The largest allocation a reader may make for a file of `len` bytes:
/// the weights in a wider type plus a reordered copy, with room for small
/// tables.
fn allocation_bound(len: usize) -> usize {
    4 * len + (1 << 20)
}

fn check_ryuo(bytes: &[u8]) {
    // A version 1 file (no flags field) is written as the current version:
    // the weights come back exactly, and the file written back reads back
    // to itself.
    check_round_trip(bytes, Network::from_bytes, Network::to_bytes, ryuo_weights);
}

/// A reader given `bytes` allocates no more than the bound; what it accepts
/// is written back with the same weights (`weights` finds them), and the
/// file written reads back to itself.
fn check_round_trip<N, E>(
    bytes: &[u8],
    read: impl Fn(&[u8]) -> Result<N, E>,
    write: impl Fn(&N) -> Vec<u8>,
    weights: fn(&[u8]) -> &[u8],
) where
    E: std::fmt::Debug,
{
    let (read_once, largest) = largest_allocation_in(|| read(bytes));
    assert!(
        largest <= allocation_bound(bytes.len()),
        "{largest} bytes allocated for a file of {}",
        bytes.len()
    );
    if let Ok(net) = read_once {
        let written = write(&net);
        assert_same(weights(&written), weights(bytes));
        let again = read(&written).expect("a written file reads back");
        assert_same(&write(&again), &written);
    }
}

/// Where the weights start in a RYUONNUE file: after the magic, version,
/// feature set, width, activation and (from version 2) flags.
fn ryuo_weights(bytes: &[u8]) -> &[u8] {
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    &bytes[if version >= 2 { 28 } else { 24 }..]
}

/// Asserts that a file written back is the file read, naming the first
/// byte that differs (the files are too long to print).
fn assert_same(written: &[u8], read: &[u8]) {
    let differs = written.iter().zip(read).position(|(a, b)| a != b);
    assert!(
        differs.is_none() && written.len() == read.len(),
        "accepted, but written back differently: {} bytes read, {} written, first difference at {differs:?}",
        read.len(),
        written.len()
    );
}

/// Where the weights start in an `nn.bin`: after the version, the hash,
/// the description's length and the description.
fn standard_weights(bytes: &[u8]) -> &[u8] {
    let description = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    &bytes[12 + description..]
}

fn check_standard(bytes: &[u8]) {
    // The description is text for people, read leniently (invalid UTF-8
    // replaced): the weights come back exactly, and the file written back
    // reads back to itself.
    check_round_trip(
        bytes,
        StandardNetwork::from_bytes,
        StandardNetwork::to_bytes,
        standard_weights,
    );
}

/// What random bytes follow: a RYUONNUE magic, version and feature set;
/// the magic alone; nothing.
const RYUO_PREFIXES: &[&[u8]] = &[b"RYUONNUE\x02\0\0\0\x01\0\0\0", b"RYUONNUE", b""];

proptest! {
    #![proptest_config(config(500))]

    /// Any bytes, and any bytes behind a right magic or version.
    #[test]
    fn random_bytes_are_refused(
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
        ryuo_prefix in proptest::sample::select(RYUO_PREFIXES),
        standard_prefix in any::<bool>(),
    ) {
        check_ryuo(&[ryuo_prefix, &bytes[..]].concat());
        let version = ryuo::nnue::standard::VERSION.to_le_bytes();
        let standard_prefix = if standard_prefix { &version[..] } else { &[][..] };
        check_standard(&[standard_prefix, &bytes[..]].concat());
    }

    /// Valid RYUONNUE files, mutated (headers included).
    #[test]
    fn mutated_ryuo_networks_are_refused_or_exact(
        which in any::<Index>(),
        changes in mutations(&[], &[], 3),
    ) {
        let networks = corpus::ryuo_networks();
        check_ryuo(&mutated(&networks[which.index(networks.len())], &changes));
    }

    /// A valid `nn.bin`, mutated (headers included).
    #[test]
    fn mutated_standard_networks_are_refused_or_exact(changes in mutations(&[], &[], 3)) {
        check_standard(&mutated(corpus::standard_network(), &changes));
    }
}

/// The valid files are read and written back exactly.
#[test]
fn the_corpus_networks_are_read_back_exactly() {
    for bytes in corpus::ryuo_networks() {
        check_ryuo(bytes);
        assert!(Network::from_bytes(bytes).is_ok());
    }
    check_standard(corpus::standard_network());
    assert!(StandardNetwork::from_bytes(corpus::standard_network()).is_ok());
}

/// Found by the long run: a version 1 file (four header bytes fewer) is
/// accepted and written back as version 2, with the same weights.
#[test]
fn a_version_1_file_is_written_back_as_the_current_version() {
    let current = &corpus::ryuo_networks()[0];
    let mut v1 = current.clone();
    v1.drain(24..28);
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let net = Network::from_bytes(&v1).expect("a version 1 file");
    assert_eq!(&net.to_bytes(), current);
    check_ryuo(&v1);
}
